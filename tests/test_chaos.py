"""Away and back, with real processes on loopback: a peer frozen (SIGSTOP) past the table's
timeout, or killed and resumed during, just after or long after the vote against it, or
after the table ended.  In every case every log is a beginning of (or equal to) the
table's transcript, the audits agree with the table, nobody but the absent seat is voted
out or blamed, and the returning peer ends in a clear state.  A freeze shorter than the
timeout changes nothing (regression).  Every process has a hard time cap."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from p2pcards.core import load_games
from p2pcards.net import log_path
from p2pcards.table.audit import audit_transcript
from tests.procs import LOOPBACK, Proc, frames, one_transcript, until

REGISTRY = load_games()
TIMEOUT = 3.0
SEATS = "bot:random,remote,remote,remote"


def _table(tmp: Path, deals: int = 14, linger: float = 1.0) -> dict[str, Any]:
    """A Copas table: the host (a bot in seat 0) and three joiners (seats 1, 2, 3)."""
    procs: dict[int, Proc] = {}
    host = Proc(tmp, "host", tmp / "h0", "host", "copas", "--bind", LOOPBACK, "--seats", SEATS, "--deals",
                str(deals), "--timeout", str(TIMEOUT), "--linger", str(linger), "--json", "--no-announce")
    procs[0] = host
    port = until("the host to listen", lambda: host.lines()[:1])[0]["port"]
    address = f"{LOOPBACK}:{port}"
    for s in (1, 2, 3):
        procs[s] = Proc(tmp, f"join{s}", tmp / f"h{s}", "join", address, "--bot", "random", "--json", "--linger",
                        str(linger))
        until(f"seat {s} to be seated", lambda s=s: procs[s].first("seated"))
    table = until("the table to start", lambda: host.first("table"))
    return {"procs": procs, "address": address, "table": bytes.fromhex(table["table"])}


def _log(tmp: Path, run: dict[str, Any], seat: int) -> Path:
    return log_path(tmp / f"h{seat}", run["table"], seat)


def _stop_all(run: dict[str, Any], *extra: Proc) -> None:
    for p in [*run["procs"].values(), *extra]:
        p.kill()


def _check(tmp: Path, run: dict[str, Any], absent: int | None) -> tuple[list[bytes], dict[str, Any]]:
    """:func:`tests.procs.one_transcript` of the four seats' logs."""
    return one_transcript({s: frames(_log(tmp, run, s)) for s in range(4)}, REGISTRY, absent)


def _where(tmp: Path, run: dict[str, Any], seat: int) -> str:
    """Where seat's log parts from the host's (for failure messages)."""
    from p2pcards.table.transcript import peek

    mine, theirs = frames(_log(tmp, run, seat)), frames(_log(tmp, run, 0))
    part = next((i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b), min(len(mine), len(theirs)))
    return (f"\nlogs part at {part}: seat {seat} has {[peek(m) for m in mine[part - 2:part + 3]]}, the host "
            f"{[peek(m) for m in theirs[part - 2:part + 3]]}")


def _finals(run: dict[str, Any]) -> dict[int, dict[str, Any]]:
    return {s: p.first("final") for s, p in run["procs"].items() if p.first("final")}


@pytest.mark.slow
@pytest.mark.parametrize("frozen", [2, 0], ids=["joiner", "host"])
def test_a_peer_frozen_past_the_timeout_catches_up_and_follows_the_table(tmp_path, frozen):
    # the others may finish the match while it is stopped (a dummy's deals go fast): they
    # linger for it longer than it is stopped, and stop lingering once it has caught up
    run = _table(tmp_path, linger=TIMEOUT * 4)
    victim = run["procs"][frozen]
    try:
        until("the table to be under way", lambda: len(frames(_log(tmp_path, run, frozen))) >= 30)
        victim.signal(signal.SIGSTOP)
        time.sleep(TIMEOUT + 3)
        victim.signal(signal.SIGCONT)
        codes = {s: p.wait(90) for s, p in run["procs"].items()}
    finally:
        _stop_all(run)
    assert all(code == 0 for code in codes.values()), {s: p.stderr[-1500:] for s, p in run["procs"].items()}
    table, report = _check(tmp_path, run, frozen)
    finals = _finals(run)
    assert len({f["transcript_hash"] for f in finals.values()}) == 1, "the frozen peer ends on the table's transcript"
    assert frames(_log(tmp_path, run, frozen)) == table
    if report["votes"]:  # it was due while frozen: the others voted it out, and it watched the rest
        assert finals[frozen]["voted_out"] is True
        assert all(not f["voted_out"] for s, f in finals.items() if s != frozen)
    # its own clocks did not act on waking: it voted against nobody
    side = log_path(tmp_path / f"h{frozen}", run["table"], frozen).with_suffix(".side")
    assert not side.exists() or not frames(side), "the frozen peer voted on waking"
    assert "Traceback" not in victim.stderr


@pytest.mark.slow
def test_a_freeze_shorter_than_the_timeout_changes_nothing(tmp_path):
    run = _table(tmp_path, deals=6)
    victim = run["procs"][1]
    try:
        until("the table to be under way", lambda: len(frames(_log(tmp_path, run, 1))) >= 30)
        victim.signal(signal.SIGSTOP)
        time.sleep(TIMEOUT / 3)
        victim.signal(signal.SIGCONT)
        codes = {s: p.wait(90) for s, p in run["procs"].items()}
    finally:
        _stop_all(run)
    assert all(code == 0 for code in codes.values())
    table, report = _check(tmp_path, run, None)
    assert all(frames(_log(tmp_path, run, s)) == table for s in range(4)), "every log is the same, byte for byte"
    assert report["votes"] == []


def _resume(tmp: Path, run: dict[str, Any], seat: int, name: str) -> Proc:
    return Proc(tmp, name, tmp / f"h{seat}", "resume", "--json", "--linger", "1")


@pytest.mark.slow
@pytest.mark.parametrize("when", ["during", "just-after", "after-the-end"])
def test_a_peer_killed_past_the_timeout_comes_back_and_learns_the_outcome(tmp_path, when):
    run = _table(tmp_path, deals=10, linger=8.0)
    victim = run["procs"][3]
    host = run["procs"][0]
    again = None
    try:
        until("the table to be under way", lambda: len(frames(_log(tmp_path, run, 3))) >= 30)
        victim.signal(signal.SIGKILL)
        victim.proc.wait(10)
        killed = time.monotonic()
        if when == "during":
            time.sleep(TIMEOUT - 0.5)
        elif when == "just-after":
            until("the vote", lambda: host.first("vote_out"), timeout=20)
        else:
            until("the end", lambda: host.first("final"), timeout=60)
        again = _resume(tmp_path, run, 3, "resumed")
        codes = {s: p.wait(90) for s, p in run["procs"].items() if s != 3}
        code = again.wait(60)
    finally:
        _stop_all(run, *([again] if again else []))
    assert all(c == 0 for c in codes.values()), {s: p.stderr[-1500:] for s, p in run["procs"].items()}
    assert code == 0, again.stderr[-3000:] + _where(tmp_path, run, 3)
    table, report = _check(tmp_path, run, 3)
    lines = again.lines()
    final = next(x for x in lines if x["type"] == "final")
    assert final["transcript_hash"] == host.first("final")["transcript_hash"], "it learned the outcome"
    assert frames(_log(tmp_path, run, 3)) == table
    if report["votes"]:
        assert final["voted_out"] is True
    else:
        assert when == "during" and time.monotonic() - killed > 0
    assert "Traceback" not in again.stderr
    listed = [json.loads(x) for x in Proc(tmp_path, "list", tmp_path / "h3", "resume", "--list", "--json")
              .wait_output(30).splitlines()]
    (mine,) = [x for x in listed if x["table"] == run["table"].hex()]
    assert mine["state"] in ("voted-out", "finished")


@pytest.mark.slow
def test_a_peer_that_comes_back_long_after_the_end_is_told_plainly(tmp_path):
    run = _table(tmp_path, deals=4, linger=0.5)
    victim = run["procs"][3]
    try:
        until("the table to be under way", lambda: len(frames(_log(tmp_path, run, 3))) >= 30)
        victim.signal(signal.SIGKILL)
        victim.proc.wait(10)
        codes = {s: p.wait(90) for s, p in run["procs"].items() if s != 3}
        time.sleep(2 * TIMEOUT + 1)  # the others have gone, and waited for it no longer than that
        again = _resume(tmp_path, run, 3, "resumed")
        code = again.wait(60)
    finally:
        _stop_all(run)
    assert all(c == 0 for c in codes.values())
    assert code == 1 and "the table went on without you" in again.stderr and "Traceback" not in again.stderr
    _check(tmp_path, run, 3)
    listed = [json.loads(x) for x in Proc(tmp_path, "list", tmp_path / "h3", "resume", "--list", "--json")
              .wait_output(30).splitlines()]
    (mine,) = [x for x in listed if x["table"] == run["table"].hex()]
    assert mine["state"] == "unknown"
    # resume no longer offers it, and says why
    again = Proc(tmp_path, "resume-again", tmp_path / "h3", "resume")
    assert again.wait(30) == 1 and "no unfinished table" in again.stderr


def test_a_two_seat_table_whose_other_seat_is_gone_waits_then_can_be_abandoned(tmp_path):
    host = Proc(tmp_path, "host", tmp_path / "h0", "host", "bisca", "--bind", LOOPBACK, "--seats", "bot:random,remote",
                "--timeout", "1", "--linger", "0", "--json", "--no-announce")
    joiner = None
    try:
        port = until("the host to listen", lambda: host.lines()[:1])[0]["port"]
        joiner = Proc(tmp_path, "join1", tmp_path / "h1", "join", f"{LOOPBACK}:{port}", "--bot", "random", "--json",
                      "--linger", "0")
        table = bytes.fromhex(until("the table to start", lambda: host.first("table"))["table"])
        until("the table to be under way", lambda: len(frames(log_path(tmp_path / "h1", table, 1))) >= 6)
        joiner.signal(signal.SIGKILL)
        assert host.wait(60) == 1, "a table of two never votes: the host stops, the table left to resume"
        assert "silent for 2 s" in host.stderr and "--abandon" in host.stderr and "Traceback" not in host.stderr
        again = Proc(tmp_path, "abandon", tmp_path / "h0", "resume", "--abandon", "--json", "--linger", "0")
        assert again.wait(60) == 0, again.stderr[-2000:]
    finally:
        for p in (host, joiner):
            if p is not None:
                p.kill()
    final = again.first("final")
    assert final["winner"] is None and final["abandoned"]["by"] == 0 and final["abandoned"]["waiting_for"] == [1]
    report = audit_transcript(frames(log_path(tmp_path / "h0", table, 0)), REGISTRY)
    assert report["error"] is None and report["abandoned"]["by"] == 0 and report["winner"] is None
    listed = [json.loads(x) for x in Proc(tmp_path, "list", tmp_path / "h0", "resume", "--list", "--json")
              .wait_output(30).splitlines()]
    assert [x["state"] for x in listed if x["table"] == table.hex()] == ["abandoned"]
