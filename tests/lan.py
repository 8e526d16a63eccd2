"""A small LAN for tests that need multicast: network namespaces joined by a Linux bridge.

``Lan.build(n)`` makes a "switch" namespace holding a bridge (multicast snooping off) and
``n`` host namespaces, each with one veth ``lan0`` plugged into the bridge and the
addresses ``10.213.0.I/24``, ``fd13:213::I/64`` and ``fe80::I/64`` -- they exist only
inside the namespaces, nothing is added to the machine's own network, and no packet leaves
the namespaces.  ``close()`` kills every process started in them and deletes them; it runs
from the fixture's ``finally`` and, as a last resort, ``atexit``.  Namespaces left behind by
a test run that was killed are removed by the next one.

Needs root and iproute2's ``ip``; :func:`skip_reason` says why a LAN cannot be built.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from tests.procs import ctrl_c_works

ROOT = Path(__file__).resolve().parent.parent
_PREFIX = "p2pclan"
_IP_TIMEOUT = 10


def _ip(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *args], capture_output=True, text=True, timeout=_IP_TIMEOUT, check=check)


def built(n: int) -> Iterator[Lan]:
    """A fixture's body: a LAN of ``n`` hosts for the test (skipped, with the reason, where
    none can be built), deleted after it even when it fails."""
    import pytest

    reason = skip_reason()
    if reason:
        pytest.skip(reason)
    lan = Lan.build(n)
    try:
        yield lan
    finally:
        lan.close()


def skip_reason() -> str | None:
    """Why no LAN of namespaces can be built here (None: it can)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "the LAN test builds network namespaces: it needs root (CI runs as root)"
    if shutil.which("ip") is None:
        return "the LAN test needs iproute2's `ip` (apt-get install iproute2)"
    probe = f"{_PREFIX}probe{os.getpid()}"
    made = _ip("netns", "add", probe, check=False)
    if made.returncode != 0:
        return f"cannot create a network namespace: {made.stderr.strip()}"
    _ip("netns", "del", probe, check=False)
    return None


def _remove_stale() -> None:
    """Delete namespaces of earlier runs whose process is gone."""
    listed = _ip("netns", "list", check=False).stdout.split("\n")
    for line in listed:
        name = line.split(" ")[0]
        if not name.startswith(_PREFIX):
            continue
        pid_text = name[len(_PREFIX):].split("-")[0].removeprefix("probe")
        if pid_text.isdigit() and not Path(f"/proc/{pid_text}").exists():
            _kill_in(name)
            _ip("netns", "del", name, check=False)


def _kill_in(ns: str) -> None:
    pids = _ip("netns", "pids", ns, check=False).stdout.split()
    for pid in pids:
        try:
            os.kill(int(pid), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass


class Proc:
    """A process in a namespace; its output lines are collected by reader threads."""

    def __init__(self, args: Sequence[str], env: dict[str, str]) -> None:
        self.args = list(args)
        self.popen = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                                      cwd=ROOT, start_new_session=True, preexec_fn=ctrl_c_works)
        self.lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.out: list[str] = []
        self.err: list[str] = []
        self._threads = [threading.Thread(target=self._read, args=(self.popen.stdout, True), daemon=True),
                         threading.Thread(target=self._read, args=(self.popen.stderr, False), daemon=True)]
        for t in self._threads:
            t.start()

    def _read(self, stream: Any, is_out: bool) -> None:
        for line in stream:
            (self.out if is_out else self.err).append(line)
            if is_out:
                self.lines.put(line)
        if is_out:
            self.lines.put(None)

    def next_json(self, pred: Callable[[dict[str, Any]], bool] = lambda obj: True,
                  timeout: float = 15.0) -> dict[str, Any]:
        """The next JSON line (skipping others) that satisfies ``pred``; AssertionError after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                line = self.lines.get(timeout=max(left, 0.0))
            except queue.Empty:
                raise AssertionError(f"no matching line within {timeout:g} s from {self.describe()}") from None
            if line is None:
                self.lines.put(None)
                raise AssertionError(f"the process ended without a matching line: {self.describe()}")
            try:
                obj = json.loads(line)
            except ValueError:
                continue
            if isinstance(obj, dict) and pred(obj):
                return obj

    def wait(self, timeout: float) -> int:
        """Its exit status; AssertionError (after killing it) if it runs past ``timeout``."""
        try:
            code = self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running after {timeout:g} s: {self.describe()}") from None
        for t in self._threads:
            t.join(2)
        return code

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(5)

    def interrupt(self) -> None:
        """Ctrl-C."""
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGINT)

    def describe(self) -> str:
        return (f"{' '.join(self.args[4:])}\n--- stdout:\n{''.join(self.out)[-3000:]}"
                f"\n--- stderr:\n{''.join(self.err)[-3000:]}")


class Lan:
    """``hosts`` namespaces on one bridge; host ``i`` (1-based) is 10.213.0.i."""

    def __init__(self, hosts: int) -> None:
        self.tag = f"{_PREFIX}{os.getpid()}"
        self.switch = f"{self.tag}-sw"
        self.hosts = [f"{self.tag}-{i}" for i in range(1, hosts + 1)]
        self.procs: list[Proc] = []
        self._made: list[str] = []
        self._closed = False

    @classmethod
    def build(cls, hosts: int = 4) -> Lan:
        """Build it (removing everything again if any step fails)."""
        _remove_stale()
        lan = cls(hosts)
        atexit.register(lan.close)
        try:
            lan._build()
        except BaseException:
            lan.close()
            raise
        return lan

    def _build(self) -> None:
        sw = self.switch
        _ip("netns", "add", sw)
        self._made.append(sw)
        _ip("-n", sw, "link", "add", "br0", "type", "bridge", "mcast_snooping", "0")
        _ip("-n", sw, "link", "set", "br0", "up")
        for i, ns in enumerate(self.hosts, 1):
            _ip("netns", "add", ns)
            self._made.append(ns)
            _ip("-n", ns, "link", "set", "lo", "up")
            _ip("link", "add", "lan0", "netns", ns, "type", "veth", "peer", "name", f"port{i}", "netns", sw)
            _ip("-n", sw, "link", "set", f"port{i}", "master", "br0", "up")
            _ip("-n", ns, "link", "set", "lan0", "addrgenmode", "none")  # our own link-local, no DAD wait
            _ip("-n", ns, "addr", "add", f"10.213.0.{i}/24", "dev", "lan0")
            _ip("-n", ns, "addr", "add", f"fd13:213::{i}/64", "dev", "lan0", "nodad")
            _ip("-n", ns, "addr", "add", f"fe80::213:{i}/64", "dev", "lan0", "nodad")
            _ip("-n", ns, "link", "set", "lan0", "up")

    def address(self, i: int) -> str:
        return f"10.213.0.{i}"

    def spawn(self, i: int, *args: str, home: Path, program: Sequence[str] | None = None,
              env: dict[str, str] | None = None) -> Proc:
        """Start ``p2pcards ARGS`` (or ``program``) in host ``i``'s namespace with ``P2PCARDS_HOME=home``."""
        cmd = list(program) if program is not None else [sys.executable, "-m", "p2pcards", *args]
        full_env = {**os.environ, "P2PCARDS_HOME": str(home), "PYTHONUNBUFFERED": "1", **(env or {})}
        proc = Proc(["ip", "netns", "exec", self.hosts[i - 1], *cmd], full_env)
        self.procs.append(proc)
        return proc

    def run(self, i: int, *args: str, home: Path, timeout: float = 20.0) -> tuple[int, str, str]:
        """Run ``p2pcards ARGS`` in host ``i``'s namespace to its end: (status, stdout, stderr)."""
        proc = self.spawn(i, *args, home=home)
        code = proc.wait(timeout)
        return code, "".join(proc.out), "".join(proc.err)

    def close(self) -> None:
        """Kill every process started here, then delete the namespaces (and with them the veths)."""
        if self._closed:
            return
        self._closed = True
        for proc in self.procs:
            try:
                proc.kill()
            except Exception:  # noqa: BLE001 -- clean up everything else regardless
                pass
        for ns in reversed(self._made):
            _kill_in(ns)
            _ip("netns", "del", ns, check=False)
        self._made.clear()
