"""Real p2pcards processes for end-to-end tests: output to files, bounded waits, cleanup."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from p2pcards.core import GameRegistry
from p2pcards.table.audit import audit_transcript
from p2pcards.table.wire import FrameDecoder

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"


def ctrl_c_works() -> None:
    """``preexec_fn`` for a process a test may interrupt: SIGINT back to its default, so
    that the child's Python turns it into KeyboardInterrupt even when the suite itself was
    started with SIGINT ignored (``pytest &`` from a script), which children inherit."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


class Proc:
    """``python -m MODULE ARGS`` (``p2pcards`` by default) whose standard output and error
    go to files, with ``P2PCARDS_HOME=home``."""

    def __init__(self, tmp: Path, name: str, home: Path, *args: str, module: str = "p2pcards") -> None:
        self.name = name
        self.out_path, self.err_path = tmp / f"{name}.out", tmp / f"{name}.err"
        self.home = home
        env = {**os.environ, "P2PCARDS_HOME": str(home), "PYTHONUNBUFFERED": "1"}
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", module, *args], stdout=out, stderr=err, env=env,
                                         cwd=ROOT, preexec_fn=ctrl_c_works)

    def lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.out_path.read_text().splitlines() if line.endswith("}")]

    def first(self, kind: str) -> dict[str, Any] | None:
        return next((x for x in self.lines() if x.get("type") == kind), None)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.name} did not finish in {timeout:g} s; stderr:\n{self.stderr[-3000:]}") \
                from None

    def wait_output(self, timeout: float) -> str:
        """Wait for the process to end; its standard output."""
        self.wait(timeout)
        return self.out_path.read_text()

    def signal(self, sig: int) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)

    @property
    def stderr(self) -> str:
        return self.err_path.read_text()


def until(what: str, check: Callable[[], Any], timeout: float = 30.0) -> Any:
    """The first true value of ``check()``; AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def one_transcript(logs: Mapping[int, list[bytes]], registry: GameRegistry,
                   absent: int | None) -> tuple[list[bytes], dict[str, Any]]:
    """Every seat's log a beginning of (or equal to) the longest -- but ``absent``'s, which may
    end with messages of its own that it wrote and never sent; the audit sound; votes and
    blame only ever against ``absent``.  Returns the longest log and its audit."""
    longest = max((log for s, log in logs.items() if s != absent), key=len)
    for s, log in logs.items():
        agree = next((i for i, (a, b) in enumerate(zip(log, longest)) if a != b), min(len(log), len(longest)))
        # a process writes its own message to its log before it sends it: killed in between, its
        # log ends with messages of its own that nobody got, and that the table never took
        tail = [peek_author(m) for m in log[agree:]]
        assert s == absent or not tail, f"seat {s}'s log is not a beginning of the table's transcript"
        assert all(a == s for a in tail), f"seat {s}'s log is not a beginning of the table's transcript"
    report = audit_transcript(longest, registry)
    assert report["error"] is None and report["ok"], report
    assert all(v["seat"] == absent for v in report["votes"]), report["votes"]
    assert all(d["seat"] in (None, absent) for d in report["deals"]), report["deals"]
    return longest, report


def peek_author(raw: bytes) -> int | None:
    """The author of a table message, unchecked."""
    from p2pcards.table.wire import unpack

    try:
        header = unpack(unpack(raw)[0])
    except Exception:  # noqa: BLE001 -- not a table message
        return None
    return header.get("author") if isinstance(header, dict) else None


def frames(path: Path) -> list[bytes]:
    """The whole frames of a log being written (none while it cannot be read)."""
    try:
        return FrameDecoder().feed(path.read_bytes())
    except Exception:  # noqa: BLE001 -- a file being written: try again
        return []
