"""``p2pcards bench table``: audited Sueca deals among four OS processes on loopback.

A host process (one random bot) and three ``join`` processes play ``deals`` deals over
TCP on 127.0.0.1, of a match to 8 game points (:data:`OPTIONS`: the longest Sueca
match; it may still end before ``deals``, and the figures are then over the deals
played).  Figures: wall time per audited deal (from the table's start, that is
the first commitment, to each deal's audited result, as the host reports them), bytes
each peer sends (its messages, once to each other process, from the transcript), and each
process's peak resident memory and processor time per deal (``wait4``; that includes
starting Python and the handshake, which the processor time from the table's start, read
from ``/proc`` when the host reports the table, leaves out).  With ``profile`` the first
joining process runs under cProfile and writes its profile there.  The baseline, measured
in the same run, is the same number of deals among four replicas in one process joined by
the synchronous in-memory network (no sockets, no processes): the ratio is what the
network costs.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final, TypedDict

from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.lifeline import child_preexec
from p2pcards.players import RandomPlayer
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, SeatInfo, make_genesis, parse_message
from p2pcards.table.wire import FrameDecoder
from p2pcards.testing.table_mesh import run_local

__all__ = ["run_table_bench", "AIM_MS", "AIM_MB"]

#: Sueca options of the benchmark's match: to 8 game points, so that it lasts 4 deals at least.
OPTIONS: Final = {"target": 8}
#: The aims per audited deal and per process, with every shuffle and lock proven: 250 ms a
#: deal on a quiet machine (it was 150 ms before the proofs, which add some 110 ms of
#: proving and checking per process and deal) and 50 MB of peak memory a process.
AIM_MS: Final = 250.0
AIM_MB: Final = 50.0
_WAIT: Final = 120.0


class TableBaseline(TypedDict):
    """The same match's four replicas in one process, no sockets."""

    ms_per_deal: float
    deals: int
    cpu_ms_per_deal_per_replica: float
    note: str


class TableAims(TypedDict):
    """The aims per deal and per process, and whether both were met."""

    ms_per_deal: float
    rss_mb: float
    met: bool


class TableReport(TypedDict):
    """``bench table --json`` (:func:`run_table_bench`)."""

    deals: int
    ms_per_deal: list[float]
    ms_per_deal_mean: float
    bytes_sent_per_seat: list[int]
    peak_rss_mb_per_process: list[float]
    cpu_ms_per_deal_per_process: list[float]
    table_cpu_ms_per_deal_per_process: list[float] | None
    baseline: TableBaseline
    ratio_to_baseline: float
    aims: TableAims
    self_rss_mb: float
    messages_per_deal: float
    entries_per_deal: float
    fsync_ms: float
    profile: str | None


def _baseline(deals: int) -> TableBaseline:
    spec = load_games().get("sueca")
    ids = [Identity.generate(f"b{s}") for s in range(4)]
    host = Identity.generate("host")
    seats = tuple(SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids)
    genesis = Genesis("sueca", spec.rules_version, spec.resolve_options(OPTIONS), seats, deals, host.signing_public,
                      "host", os.urandom(16), 60.0)
    raw = make_genesis(host, genesis)
    tables = [Table(raw, spec, ids[s], os.urandom(32)) for s in range(4)]
    players = [RandomPlayer(random.Random(s)) for s in range(4)]
    start, cpu = time.perf_counter(), time.process_time()
    run_local(tables, players)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    played = tables[0].deals_done
    return {"ms_per_deal": round(1000 * wall / played, 1), "deals": played,
            "cpu_ms_per_deal_per_replica": round(1000 * cpu / played / len(tables), 1),
            "note": "4 replicas in one process, no sockets"}


def _traffic(log: Path) -> tuple[list[int], int, int]:
    """Bytes each seat sent (its messages, once to each other process), the messages sent
    and the transcript's entries.  Certificates are written by every replica and sent by
    none; the signed messages in their proofs (seeds, votes) were each sent by their author."""
    frames = FrameDecoder().feed(log.read_bytes())
    sent = [0] * 4
    genesis = parse_message(frames[0], None)
    keys = [s["signing"] for s in genesis.body["seats"]]
    messages = 0
    for raw in frames[1:]:
        env = parse_message(raw, keys)
        for signed in (env.proof if env.certificate else (raw,)):
            author = parse_message(signed, keys).author
            sent[author] += (len(signed) + 4) * 3  # one copy to each other process
            messages += 1
    return sent, messages, len(frames) - 1


def _fsync_ms(directory: Path, rounds: int = 50) -> float:
    """Median time of a 500-byte append and fsync in ``directory``: every table message
    waits for one before it is sent, so it is a floor of each message's latency here."""
    path = directory / "fsync-probe"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    times = []
    try:
        for _ in range(rounds):
            start = time.perf_counter()
            os.write(fd, bytes(500))
            os.fsync(fd)
            times.append(time.perf_counter() - start)
    finally:
        os.close(fd)
        path.unlink()
    return round(1000 * sorted(times)[len(times) // 2], 3)


def _cpu_seconds(pid: int) -> float | None:
    """The processor time a running process has used so far (user and system), from
    ``/proc``; None where there is no ``/proc`` to read."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def run_table_bench(deals: int = 3, profile: Path | None = None) -> TableReport:
    """Run the benchmark; return the JSON-ready report.  ``profile``: where the first
    joining process writes its cProfile (``python -m pstats FILE`` reads it)."""
    with tempfile.TemporaryDirectory(prefix="p2pcards-bench-") as tmp:
        base = [sys.executable, "-m", "p2pcards"]
        env = {**os.environ, "P2PCARDS_HOME": str(Path(tmp) / "host")}
        host = subprocess.Popen(
            [*base, "host", "sueca", "--bind", "127.0.0.1", "--port", "0", "--seats", "bot:random,remote,remote,remote",
             "--deals", str(deals), "--json", *(f"-o{k}={v}" for k, v in OPTIONS.items())],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, preexec_fn=child_preexec(),
        )
        procs: list[subprocess.Popen[str] | subprocess.Popen[bytes]] = [host]
        try:
            assert host.stdout is not None
            first = json.loads(host.stdout.readline())
            port = first["port"]
            for j in range(3):
                jenv = {**os.environ, "P2PCARDS_HOME": str(Path(tmp) / f"join{j}")}
                cmd = base if j or profile is None else [sys.executable, "-m", "cProfile", "-o", str(profile),
                                                         "-m", "p2pcards"]
                procs.append(subprocess.Popen([*cmd, "join", f"127.0.0.1:{port}", "--bot", "random", "--json"],
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=jenv,
                                              preexec_fn=child_preexec()))
            started = None
            at_start: list[float | None] = []
            times: list[float] = []
            final: dict[str, object] = {}
            deadline = time.monotonic() + _WAIT
            for line in host.stdout:
                now = time.perf_counter()
                event = json.loads(line)
                if event["type"] == "table":
                    started = now
                    at_start = [_cpu_seconds(p.pid) for p in procs]
                elif event["type"] == "deal":
                    times.append(now)
                elif event["type"] == "final":
                    final = event
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError("the benchmark table did not finish in time")
            peaks, cpu = [], []
            for p in procs:
                _, status, usage = os.wait4(p.pid, 0)
                if status != 0:
                    raise RuntimeError(f"a benchmark process failed (status {status})")
                peaks.append(round(usage.ru_maxrss / 1024, 1))  # KiB on Linux
                cpu.append(usage.ru_utime + usage.ru_stime)
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
        if started is None or not times or len(times) != final.get("deals"):
            raise RuntimeError("the benchmark table did not report its deals")
        played = len(times)
        table_cpu = None
        if len(at_start) == len(cpu) and all(c is not None for c in at_start):
            table_cpu = [round(1000 * (c - (s or 0.0)) / played, 1) for c, s in zip(cpu, at_start, strict=True)]
        per_deal = [round(1000 * (b - a), 1) for a, b in zip([started, *times[:-1]], times, strict=True)]
        log = final["log"]
        if not isinstance(log, str):
            raise RuntimeError("the benchmark table did not say where its transcript is")
        sent, messages, entries = _traffic(Path(log))
        fsync_ms = _fsync_ms(Path(tmp))
    baseline = _baseline(played)
    mean = sum(per_deal) / len(per_deal)
    return {
        "deals": played,
        "ms_per_deal": per_deal,
        "ms_per_deal_mean": round(mean, 1),
        "bytes_sent_per_seat": [s // played for s in sent],
        "peak_rss_mb_per_process": peaks,
        "cpu_ms_per_deal_per_process": [round(1000 * c / played, 1) for c in cpu],
        "table_cpu_ms_per_deal_per_process": table_cpu,
        "baseline": baseline,
        "ratio_to_baseline": round(mean / baseline["ms_per_deal"], 2),
        "aims": {"ms_per_deal": AIM_MS, "rss_mb": AIM_MB,
                 "met": mean <= AIM_MS and max(peaks) <= AIM_MB},
        "self_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "messages_per_deal": round(messages / played, 1),
        "entries_per_deal": round(entries / played, 1),
        "fsync_ms": fsync_ms,
        "profile": str(profile) if profile is not None else None,
    }
