"""Headless tables recorded live in the history: a real Sueca table over loopback TCP (a
``p2pcards host`` with three bots and one ``p2pcards join``), the joiner killed once the first
deal has closed and taken up again by ``p2pcards resume``.  Each process's history
database holds the match and its deals, row for row what ``history --rebuild`` makes of the
same logs -- the resumed joiner's too, after its database was lost with the process: the
deal it had played before is recorded again from its log when it comes back."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

from p2pcards.core import load_games
from p2pcards.history.db import History, db_path, rebuild
from tests.procs import LOOPBACK, Proc, until

REGISTRY = load_games()
TABLES = ("matches", "seats", "deals", "deal_sides")
SEATS = "bot:random,remote,bot:random,bot:random"  # the host runs seats 0, 2 and 3; the joiner seat 1


def _rows(path: Path) -> dict[str, list[tuple[Any, ...]]]:
    with History(path) as history:
        return {t: history.rows(t) for t in TABLES}


def _rebuilt(home: Path, name: str) -> dict[str, list[tuple[Any, ...]]]:
    """What ``history --rebuild`` makes of ``home``'s logs (into a file of its own)."""
    fresh = home.parent / f"{name}.sqlite"
    rebuild(home, REGISTRY, fresh)
    return _rows(fresh)


def test_headless_host_join_and_resume_record_their_table_live(tmp_path):
    host = Proc(tmp_path, "host", tmp_path / "host", "host", "sueca", "--bind", LOOPBACK, "--seats", SEATS,
                "--deals", "2", "--timeout", "15", "--json", "--no-announce", "--linger", "1")
    joiner = again = None
    try:
        port = until("the host to listen", lambda: host.lines()[:1])[0]["port"]
        joiner = Proc(tmp_path, "joiner", tmp_path / "j1", "join", f"{LOOPBACK}:{port}", "--bot", "random", "--json",
                      "--linger", "1")
        table_id = bytes.fromhex(until("the table to start", lambda: host.first("table"))["table"])
        until("the joiner to close deal 1", lambda: joiner.first("deal"), timeout=60)
        joiner.proc.send_signal(signal.SIGKILL)  # the table cannot end without seat 1: it waits
        joiner.proc.wait(10)
        # `join` recorded the deal before it printed it, and the match with it, still unfinished
        at_kill = _rows(db_path(tmp_path / "j1"))
        assert [(m[0], m[5]) for m in at_kill["matches"]] == [(table_id.hex(), "unfinished")]
        assert [d[1] for d in at_kill["deals"]] == [0]
        for lost in (tmp_path / "j1").glob("history.sqlite*"):  # the database is lost with the process
            lost.unlink()
        again = Proc(tmp_path, "resumed", tmp_path / "j1", "resume", "--json", "--linger", "1")
        for proc in (again, host):
            assert proc.wait(60) == 0, proc.stderr[-3000:]
    finally:
        for p in (host, joiner, again):
            if p is not None:
                p.kill()
    assert again.lines()[0]["type"] == "resumed" and again.lines()[-1]["type"] == "final"
    for home in ("host", "j1"):
        live = _rows(db_path(tmp_path / home))
        assert live == _rebuilt(tmp_path / home, f"{home}-rebuilt"), home
        (match,) = live["matches"]
        assert match[0] == table_id.hex() and match[1] == "sueca" and match[5] == "finished" and match[8] == 2
        assert [d[1] for d in live["deals"]] == [0, 1] and len(live["deal_sides"]) == 4
        assert [(s[1], s[5], s[6]) for s in live["seats"]] == [(seat, "bot", "random") for seat in range(4)]
    for proc in (host, joiner, again):
        assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
