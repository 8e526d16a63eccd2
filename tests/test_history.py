"""Every game remembered (issue 16): a transcript exported as arena records and replayed
through the rules, the history database recorded live and rebuilt from the logs (the same
rows), a process killed while it writes, a database of a newer version, and the statistics
with their pictures."""

from __future__ import annotations

import io
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pcards.core import Decision, End, load_games
from p2pcards.history import HistoryError
from p2pcards.history.charts import bar_chart, form_line, points_chart, sparkline
from p2pcards.history.db import History, SeatFacts, TableFacts, db_path, rebuild
from p2pcards.history.export import run_export
from p2pcards.history.opened import read_transcript
from p2pcards.history.stats import compute_stats, run_history, run_stats
from p2pcards.identity import Identity
from p2pcards.net import LocalSeat, log_path, make_table, play_in_memory
from p2pcards.players import make_player
from p2pcards.table.audit import replay_deal
from p2pcards.table.transcript import Genesis, SeatInfo, parse_message
from p2pcards.tui.runtime import LocalTable
from p2pcards.words import Text
from tests import rulecheck_bisca, rulecheck_sueca

REGISTRY = load_games()
ROOT = Path(__file__).resolve().parent.parent


def _played(home: Path, game: str, deals: int) -> bytes:
    """A table of ``game`` played in memory to its end, its logs under ``home``; its id."""
    spec = REGISTRY.get(game)
    ids = [Identity.generate(f"p{s}") for s in range(spec.seats)]
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, None if s == 0 else "random",
                      None if s == 0 else ids[0].fingerprint) for s, i in enumerate(ids)]
    # a match long enough for ``deals`` deals: one Sueca or Bisca deal may win 4 game points
    options = spec.resolve_options({"target": "8"} if any(o.name == "target" for o in spec.options) else {})
    raw = make_table(ids[0], spec, infos, deals=deals, options=options)
    seats = [LocalSeat(i, make_player("random", spec, random.Random(n))) for n, i in enumerate(ids)]

    async def play() -> None:
        with trio.fail_after(60):
            await play_in_memory(raw, spec, [[s] for s in seats], data_dir=home)

    trio.run(play)
    return Genesis.from_body(parse_message(raw, None).body).table_id


def _export(path: Path) -> tuple[int, list[dict[str, Any]], dict[str, Any]]:
    out = io.StringIO()
    code = run_export(path, True, out, REGISTRY)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return code, lines[:-1], lines[-1]


def _replay_through_the_plugin(spec: Any, options: dict[str, Any], records: list[dict[str, Any]]) -> None:
    """Deal each record's hands again with the plugin (where each position goes comes from
    dealing a known deck), play its tricks' cards through the rules, and compare."""
    match = spec.new_match(options, records[0]["dealer"])
    for rec in records:
        probe = match.new_deal(list(spec.deck))
        while probe.hands_at_start is None:
            assert not isinstance(probe.step(), (Decision, End))
            probe.complete()
        cards: list[str | None] = [None] * len(spec.deck)
        for seat, hand in enumerate(probe.hands_at_start):
            for at, card in zip(hand, rec["hands"][seat], strict=True):
                cards[spec.deck.index(at)] = card
        choices = [(s, cards.index(c)) for t in rec["tricks"] for s, c in zip(t["seats"], t["cards"])]
        deal = replay_deal(match, cards, choices)
        assert deal.hands_at_start == rec["hands"] and deal.events == rec["events"]
        assert deal.result == rec["result"]
        match.record(deal)
        assert match.totals == rec["totals"] and match.finished == rec["match_over"]


# ---------------------------------------------------------------------- export
def test_export_of_a_played_table_replays_through_the_rules(tmp_path):
    table_id = _played(tmp_path, "sueca", 2)
    code, records, summary = _export(log_path(tmp_path, table_id, 2))
    assert code == 0 and len(records) == 2 and summary["type"] == "summary"
    assert summary["table"] == table_id.hex() and summary["finished"] and summary["deals"] == 2
    assert summary["torn_tail"] is None and summary["error"] is None and summary["not_opened"] == []
    spec = REGISTRY.get("sueca")
    assert [r["deal"] for r in records] == [0, 1]
    assert set(records[0]) == {"type", "game", "match", "deal", "match_deal", "dealer", "trump", "hands", "events",
                               "tricks", "result", "totals", "match_over", "winner"}  # the arena's deal record
    _replay_through_the_plugin(spec, summary["options"], records)
    for rec in records:
        rulecheck_sueca.check(rec, summary["options"])
    # every seat's log exports the same deals
    assert _export(log_path(tmp_path, table_id, 0))[1] == records


def test_export_of_bisca_passes_the_independent_rule_check(tmp_path):
    table_id = _played(tmp_path, "bisca", 1)
    code, records, summary = _export(log_path(tmp_path, table_id, 0))
    assert code == 0 and len(records) == 1
    rulecheck_bisca.check(records[0], summary["options"])
    human = io.StringIO()
    assert run_export(log_path(tmp_path, table_id, 0), False, human, REGISTRY) == 0
    text = human.getvalue()
    assert "deal 1: p" in text and "trick 20:" in text and "(seat 2)" in text


def test_export_of_a_torn_or_broken_log(tmp_path):
    table_id = _played(tmp_path, "sueca", 2)
    path = log_path(tmp_path, table_id, 0)
    data = path.read_bytes()
    torn = tmp_path / "torn.log"
    torn.write_bytes(data[:-7])  # the close of deal 2 was being written
    code, records, summary = _export(torn)
    assert code == 0 and [r["deal"] for r in records] == [0]
    assert summary["torn_tail"] is not None and summary["torn_tail"]["bytes"] > 0 and not summary["finished"]
    out = io.StringIO()
    run_export(torn, False, out, REGISTRY)
    assert "WARNING" in out.getvalue() and "stops before the table's end" in out.getvalue()
    # a message changed in the middle: exported up to there, exit status 1
    messages, _ = read_transcript(path)
    bad = bytearray(messages[80])
    bad[len(bad) // 2] ^= 0x01
    from p2pcards.table.wire import frame

    broken = tmp_path / "broken.log"
    broken.write_bytes(b"".join(frame(m) for m in messages[:80]) + frame(bytes(bad)))
    code, records, summary = _export(broken)
    assert code == 1 and summary["error"]["seq"] == 80 and len(records) == 1
    for content, words in ((b"", "empty"), (b"not a log at all, just words", "not a p2pcards transcript"),
                           (data[:200] + b"\xff" * 64 + data[200:], "damaged")):
        bad_path = tmp_path / "bad.log"
        bad_path.write_bytes(content)
        with pytest.raises(HistoryError, match=words):
            run_export(bad_path, True, io.StringIO(), REGISTRY)
    with pytest.raises(HistoryError, match="cannot read"):
        run_export(tmp_path / "missing.log", True, io.StringIO(), REGISTRY)


# ---------------------------------------------------------------------- database
def test_rebuild_from_the_logs_gives_the_rows_recorded_live(tmp_path):
    """A table against the computer, recorded live through the screen's event path; the
    same database rebuilt from its transcripts holds the very same rows."""
    spec = REGISTRY.get("sueca")
    me = Identity.generate("Zé")
    table = LocalTable(spec, spec.resolve_options({}), me=me, text=Text("en"), bots="random", seed=7, deals=2,
                       speed=0, data_dir=tmp_path)
    table.seats[0].player = make_player("random", spec, random.Random(3))  # no screen: a bot plays the person
    table.gate.close = lambda: None  # type: ignore[method-assign]  # nobody reads the summaries

    async def play() -> None:
        with trio.fail_after(60):
            await table.run()

    trio.run(play)
    assert table.outcome == "over"
    table.history.close()
    tables = ("matches", "seats", "deals", "deal_sides")
    with History(db_path(tmp_path)) as live:
        recorded = {t: live.rows(t) for t in tables}
    assert len(recorded["matches"]) == 1 and len(recorded["deals"]) == 2 and len(recorded["deal_sides"]) == 4
    match = recorded["matches"][0]
    assert match[0] == table.table_id.hex() and match[1] == "sueca" and match[5] == "finished" and match[8] == 2
    assert [(s[1], s[3], s[5], s[6]) for s in recorded["seats"]] == [
        (0, "Zé", "person", None), (1, "Ana", "bot", "random"), (2, "Rui", "bot", "random"),
        (3, "Inês", "bot", "random")]
    fresh = tmp_path / "fresh.sqlite"
    report = rebuild(tmp_path, REGISTRY, fresh)
    assert report == {"tables": 1, "deals": 2, "skipped": []}
    with History(fresh) as rebuilt:
        assert {t: rebuilt.rows(t) for t in tables} == recorded
    # and `history --rebuild` over the live database changes nothing
    out = io.StringIO()
    assert run_history(tmp_path, None, "zé", True, True, out, REGISTRY) == 0
    listed = json.loads(out.getvalue())
    assert listed["rebuilt"]["deals"] == 2 and [m["table"] for m in listed["matches"]] == [table.table_id.hex()]
    with History(db_path(tmp_path)) as again:
        assert {t: again.rows(t) for t in tables} == recorded


WRITER = """
import json, sys, time
from pathlib import Path
from p2pcards.core import load_games
from p2pcards.history.db import History, SeatFacts, TableFacts

spec = load_games().get("sueca")
seats = tuple(SeatFacts(s, s % 2, f"p{s}", f"fp{s}", "person", None, None) for s in range(4))
history = History(Path(sys.argv[1]))
history.conn.set_trace_callback(lambda statement: time.sleep(0.002))  # slow writes: killed inside one
totals = [0, 0]
for n in range(100000):
    facts = TableFacts(f"{n // 5:064x}", spec, {}, 0, None, seats)
    points = [40 + n % 41, 80 - n % 41]
    gp = [int(points[0] > 60), int(points[1] > 60)]
    totals = [totals[0] + gp[0], totals[1] + gp[1]] if n % 5 else gp
    history.record(facts, {"type": "deal", "deal": n % 5, "dealer": n % 4, "trump": "S",
                           "result": {"points": points, "tricks": [5, 5], "game_points": gp, "multiplier": 1,
                                      "renuncia": None},
                           "audit": {"verdict": "clean", "seat": None, "kind": None, "reason": None},
                           "totals": totals, "match_over": False, "winner": None})
    print(n, flush=True)
"""


def test_a_process_killed_while_it_writes_leaves_no_half_deal(tmp_path):
    path = tmp_path / "history.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(WRITER), str(path)], stdout=subprocess.PIPE,
                            text=True, env=env)
    assert proc.stdout is not None
    done = -1
    deadline = time.monotonic() + 30
    while done < 7 and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        done = int(line)
    time.sleep(0.013)  # in the middle of the next deal's statements
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    rest = proc.stdout.read().split()  # what it reported while this test read slower than it wrote
    done = int(rest[-1]) if rest else done
    assert done >= 7, "the writer recorded deals before it was killed"
    with History(path) as history:  # opens after the crash: WAL recovery
        c = history.conn
        assert c.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert c.execute("PRAGMA foreign_key_check").fetchall() == []
        deals = c.execute("SELECT COUNT(*) FROM deals").fetchone()[0]
        assert done + 1 <= deals <= done + 2  # every deal it reported, and at most the one it was writing
        # each deal whole: its sides, and its match's count and totals
        assert c.execute("SELECT COUNT(*) FROM deal_sides").fetchone()[0] == 2 * deals
        for table_id, count, totals in c.execute("SELECT table_id, deals, totals FROM matches").fetchall():
            rows = c.execute("SELECT totals FROM deals WHERE table_id = ? ORDER BY deal DESC", (table_id,)).fetchall()
            assert count == len(rows) and totals == rows[0][0]
        assert c.execute("SELECT COUNT(*) FROM seats").fetchone()[0] == 4 * c.execute(
            "SELECT COUNT(*) FROM matches").fetchone()[0]


def test_a_database_of_a_newer_version_is_refused_untouched(tmp_path):
    path = db_path(tmp_path)
    History(path).close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    with pytest.raises(HistoryError, match="newer p2pcards .*schema version 99"):
        History(path)
    with pytest.raises(HistoryError, match="newer p2pcards"):
        run_stats(tmp_path, True, io.StringIO(), REGISTRY)
    conn = sqlite3.connect(path)
    assert conn.execute("SELECT version FROM schema_version").fetchone()[0] == 99
    conn.close()
    junk = tmp_path / "junk"
    junk.mkdir()
    db_path(junk).write_bytes(b"this is not a database, only some bytes" * 100)
    with pytest.raises(HistoryError, match="not a p2pcards history database"):
        run_history(junk, None, None, False, False, io.StringIO(), REGISTRY)


def test_history_refuses_bad_filters(tmp_path):
    with pytest.raises(HistoryError, match="unknown game 'xadrez'"):
        run_history(tmp_path, "xadrez", None, False, False, io.StringIO(), REGISTRY)
    with pytest.raises(HistoryError, match="--player"):
        run_history(tmp_path, None, "  ", False, False, io.StringIO(), REGISTRY)
    out = io.StringIO()
    assert run_history(tmp_path, None, None, False, False, out, REGISTRY) == 0
    assert "no matches recorded" in out.getvalue()


# ---------------------------------------------------------------------- statistics
def _deal(n: int, points: list[int], tricks: list[int], totals: list[int], *, verdict: str = "clean",
          seat: int | None = None, renuncia: int | None = None, over: bool = False,
          winner: int | None = None) -> dict[str, Any]:
    gp = [4 if renuncia is not None and renuncia % 2 != t else int(points[t] > 60) for t in (0, 1)]
    return {"type": "deal", "deal": n, "dealer": n % 4, "trump": "H",
            "result": {"points": points, "tricks": tricks, "game_points": gp, "multiplier": 1, "renuncia": renuncia},
            "audit": {"verdict": verdict, "seat": seat, "kind": verdict if seat is not None else None,
                      "reason": "a reason" if seat is not None else None},
            "totals": totals, "match_over": over, "winner": winner}


def _sueca_table(n: int, names: list[str], kinds: list[str | None]) -> TableFacts:
    spec = REGISTRY.get("sueca")
    seats = tuple(SeatFacts(s, s % 2, names[s], f"fp-{names[s].lower()}" if kinds[s] is None else f"bot-{n}-{s}",
                            "person" if kinds[s] is None else "bot", kinds[s], None) for s in range(4))
    return TableFacts(f"{n:064x}", spec, {"target": 4}, 1000 + n, None, seats)


def test_statistics_per_player_partnership_and_level(tmp_path):
    with History(db_path(tmp_path)) as h:
        # match 1: Zé and Rui (people) beat two heuristic bots, with a capote and a renúncia of the bots
        one = _sueca_table(1, ["Zé", "Ana", "Rui", "Inês"], [None, "heuristic", None, "heuristic"])
        h.record(one, _deal(0, [120, 0], [10, 0], [4, 0]))
        h.record(one, _deal(1, [30, 90], [3, 7], [8, 0], verdict="renuncia", seat=1, renuncia=1, over=True,
                            winner=0))
        h.record(one, {"type": "final", "winner": 0, "totals": [8, 0], "deals": 2, "transcript_hash": "ab",
                       "abandoned": None, "voted_out": False})
        # match 2: Zé with a bot against Rui and a bot; Rui's side wins; Zé cheats once; it was abandoned
        two = _sueca_table(2, ["Zé", "Ana", "Bot", "Rui"], [None, "random", "random", None])
        h.record(two, _deal(0, [40, 80], [4, 6], [0, 1], verdict="fault", seat=0, renuncia=0))
        h.record(two, {"type": "final", "winner": None, "totals": [0, 4], "deals": 1, "transcript_hash": "cd",
                       "abandoned": {"by": 3, "waiting_for": [0], "deal": 1}, "voted_out": False})
        matches = h.matches()
    assert [m["ended"] for m in matches] == ["finished", "abandoned"]
    assert matches[0]["deal_list"][0]["capote"] == 0 and matches[0]["deal_list"][1]["winner"] == 0
    stats = compute_stats(matches)
    by_name = {p["name"]: p for p in stats["players"]}
    assert set(by_name) == {"Zé", "Rui"}
    ze = by_name["Zé"]["games"]["sueca"]
    assert ze == {"matches": 2, "won": 1, "unfinished": 0, "deals": 3, "deals_won": 2, "capotes": 1, "renuncias": 0,
                  "cheating": 1, "hints": 0, "average_points": round((120 + 30 + 40) / 3, 2), "form": ["W", "-"]}
    rui = by_name["Rui"]["games"]["sueca"]
    assert rui["matches"] == 2 and rui["won"] == 1 and rui["deals_won"] == 3 and rui["form"] == ["W", "-"]
    pairs = {tuple(p["names"]): p for p in stats["partnerships"]}
    assert pairs[("Rui", "Zé")]["matches"] == 1 and pairs[("Rui", "Zé")]["won"] == 1
    assert pairs[("the computer (random)", "Zé")]["players"] == ["bot:random", "fp-zé"]
    heuristic = next(b for b in stats["bots"] if b["level"] == "heuristic")
    assert heuristic == {"game": "sueca", "level": "heuristic", "matches": 2, "won": 0, "deals": 4, "deals_won": 0,
                         "average_points": 45.0, "unfinished": 0}
    assert stats["last_match"]["sides"] == [[0, 2], [1, 3]] and stats["last_match"]["points"] == [[40.0, 80.0]]
    renuncias = {p["name"]: p["games"]["sueca"]["renuncias"] for p in stats["players"]}
    assert renuncias == {"Zé": 0, "Rui": 0}  # the renúncia was a bot's
    out = io.StringIO()
    assert run_stats(tmp_path, False, out, REGISTRY) == 0
    text = out.getvalue()
    assert "Zé (fp-zé)" in text and "form █·" in text and "1 capote," in text and "1 cheating verdict\n" in text
    assert "sueca heuristic: 0 of 2 matches won; 0 of 4 deals won" in text and "Rui with Zé: 1 of 1 match won" in text
    assert "sueca: 2 matches, 1 won; 2 of 3 deals won;" in text  # counts in the singular or plural, never "(s)"
    assert "(s)" not in text and "(es)" not in text
    assert "Last match (sueca" in text and "┤" in text and "█" in text
    js = io.StringIO()
    run_stats(tmp_path, True, js, REGISTRY)
    assert json.loads(js.getvalue()) == json.loads(json.dumps(stats))


def test_a_deal_the_table_took_back_is_kept_as_it_was_told_last(tmp_path):
    """A replica may tell a deal's close and then take it back (an abandon that crossed the
    last seed takes the place of the close, PROTOCOL.md): the history keeps the later word,
    once, and the same word told again (a restart) changes nothing."""
    with History(db_path(tmp_path)) as h:
        table = _sueca_table(3, ["Zé", "Ana", "Rui", "Inês"], [None, "random", None, "random"])
        assert h.record(table, _deal(0, [70, 50], [6, 4], [1, 0]))
        assert h.record(table, _deal(1, [90, 30], [8, 2], [2, 0]))
        void = {**_deal(1, [0, 0], [0, 0], [1, 0], verdict="void"), "result": None}
        assert h.record(table, void), "the later word replaces the deal"
        assert not h.record(table, void), "told again, it changes nothing"
        (match,) = h.matches()
    assert [(d["deal"], d["verdict"]) for d in match["deal_list"]] == [(0, "clean"), (1, "void")]
    assert match["deals"] == 2 and match["totals"] == [1, 0]


def test_charts_are_lines_of_blocks():
    assert sparkline([0, 60, 120, None]) == "▁▄█ "
    assert bar_chart([0, 4, 8], height=1, width=1) == ["▁▄█"]
    assert bar_chart([8, 16], height=2, lo=0, hi=16) == ["  █", "█ █"]
    assert bar_chart([None, 5], height=2) == ["  █", "  █"]
    assert form_line(["W", "L", "-", "W"]) == "█▁·█"
    with pytest.raises(ValueError):
        form_line(["X"])
    lines = points_chart(["us", "them"], [[120, 0, 90], [0, 120, 90]], height=2)
    assert lines == ["us", "120 ┤█   ▄", "  0 ┤█ ▁ █", "them", "120 ┤  █ ▄", "  0 ┤▁ █ █", "     1 2 3"]
    many = points_chart(["a"], [list(range(12))], height=1)
    assert many[-1].split() == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]


# ---------------------------------------------------------------------- the commands
def test_export_history_and_stats_commands(tmp_path, home, cli, capsys):
    """The three commands over a played table: export prints the arena's records, history
    lists the match after a rebuild, stats counts it; bad input exits 2 with a reason."""
    table_id = _played(home, "sueca", 1)
    code, out = cli("export", str(log_path(home, table_id, 0)), "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and lines[0]["type"] == "deal" and lines[-1]["type"] == "summary"
    code, out = cli("export", str(log_path(home, table_id, 0)))
    assert code == 0 and "deal 1:" in out and "trick 10:" in out
    assert " — points " in out and "{" not in out  # the game's own summary, not a raw result
    code, out = cli("history", "--rebuild", "--json")
    listed = json.loads(out)
    assert code == 0 and [m["table"] for m in listed["matches"]] == [table_id.hex()]
    assert listed["matches"][0]["game"] == "sueca" and len(listed["matches"][0]["deals"]) == 1
    code, out = cli("stats", "--json")
    assert code == 0 and json.loads(out)
    garbage = tmp_path / "garbage.log"
    garbage.write_bytes(b"not a transcript at all")
    for argv, words in ((["export", str(garbage)], "not a p2pcards transcript"),
                        (["history", "--game", "poker"], "unknown game")):
        with pytest.raises(SystemExit) as stop:
            cli(*argv)
        assert stop.value.code == 2 and words in capsys.readouterr().err


def test_a_database_of_version_1_is_migrated_to_keep_hints(tmp_path):
    """Version 2 adds the ``hints`` table: a version-1 database keeps its rows and gains it."""
    from p2pcards.history.db import MIGRATIONS, SCHEMA_VERSION

    path = db_path(tmp_path)
    conn = sqlite3.connect(path)
    conn.executescript(MIGRATIONS[0])
    conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
    conn.execute("INSERT INTO schema_version (version) VALUES (1)")
    facts = _sueca_table(1, ["Zé", "Ana", "Rui", "Inês"], [None, "random", "random", "random"])
    conn.execute("INSERT INTO matches (table_id, game, options, started, deals_planned, ended, winner, totals) "
                 "VALUES (?, 'sueca', '{}', 5, NULL, 'unfinished', NULL, '[]')", (facts.table_id,))
    conn.executemany("INSERT INTO seats (table_id, seat, side, name, fingerprint, kind, level, runs_on) "
                     "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                     [(facts.table_id, s.seat, s.side, s.name, s.fingerprint, s.kind, s.level, s.runs_on)
                      for s in facts.seats])
    conn.commit()
    conn.close()
    with History(path) as history:
        assert history.version == SCHEMA_VERSION
        assert [m["table_id"] for m in history.matches()] == [facts.table_id]
        history.record_hint(facts, 0, 0, 1, "7H", True)
        assert history.rows("hints") == [(facts.table_id, 0, 0, 1, "7H", 1)]
        assert history.matches()[0]["hints"] == [1, 0, 0, 0]


def test_a_history_that_cannot_be_written_is_said_once_and_the_table_plays_on(tmp_path, caplog):
    from p2pcards.history.db import Recorder

    data = tmp_path / "data"
    db_path(data).mkdir(parents=True)  # a directory where the database should be: sqlite cannot open it
    recorder = Recorder(REGISTRY)
    event = {"type": "deal", "deal": 0, "dealer": 0, "trump": None, "result": None, "totals": [0, 0],
             "match_over": False, "winner": None, "audit": {"verdict": "void", "seat": None, "kind": None,
                                                            "reason": None}}
    with caplog.at_level("WARNING", logger="p2pcards"):
        for _ in range(3):
            recorder.record(data, b"\x01" * 32, 0, event)
        recorder.record_hint(data, b"\x01" * 32, 0, 0, 0, "7H")
    said = [r for r in caplog.records if r.levelname == "WARNING" and "history" in r.getMessage()]
    assert len(said) == 1, [r.getMessage() for r in caplog.records]
    message = said[0].getMessage()
    assert "01010101" in message and "--rebuild" in message and said[0].exc_info is None


def test_statistics_count_the_hints_each_person_asked_for(tmp_path):
    with History(db_path(tmp_path)) as h:
        # Zé (seat 0) asks twice in match 1 and once in match 2; Rui (seat 2) never asks
        for n in (1, 2):
            table = _sueca_table(n, ["Zé", "Ana", "Rui", "Inês"], [None, "heuristic", None, "heuristic"])
            h.record(table, _deal(0, [70, 50], [6, 4], [1, 0], over=True, winner=0))
            h.record(table, {"type": "final", "winner": 0, "totals": [1, 0], "deals": 1, "transcript_hash": "ab",
                             "abandoned": None, "voted_out": False})
            h.record_hint(table, 0, 0, 0, "7H", True)
            if n == 1:
                h.record_hint(table, 0, 0, 3, "AS", False)
        matches = h.matches()
    stats = compute_stats(matches)
    by_name = {p["name"]: p for p in stats["players"]}
    assert by_name["Zé"]["games"]["sueca"]["hints"] == 3 and by_name["Rui"]["games"]["sueca"]["hints"] == 0
    assert all("hints" not in b for b in stats["bots"])  # the computer asks no one
    out = io.StringIO()
    assert run_stats(tmp_path, False, out, REGISTRY) == 0
    lines = out.getvalue().splitlines()
    ze, rui = (next(line for line in lines[lines.index(who) + 1:] if line.startswith("  sueca:"))
               for who in ("Zé (fp-zé)", "Rui (fp-rui)"))
    assert ze.endswith("0 cheating verdicts; 3 hints asked")
    assert rui.endswith("0 cheating verdicts")  # none asked: nothing said
    js = io.StringIO()
    run_stats(tmp_path, True, js, REGISTRY)
    assert json.loads(js.getvalue())["players"][1]["games"]["sueca"]["hints"] == 3


def test_a_history_line_says_only_what_is_known_with_counts_in_words(tmp_path):
    """A match left before its first deal closed reads "unfinished, no winner yet" -- not
    "no winner, , 0 deal(s)"; counts are in the singular or the plural; in Portuguese too."""
    with History(db_path(tmp_path)) as h:
        left = _sueca_table(1, ["Zé", "Ana", "Rui", "Inês"], [None, "search", "search", "search"])
        h.record_hint(left, 0, 0, 0, "7H")  # a hint asked, then the table left: no deal, no totals
        one = _sueca_table(2, ["Zé", "Ana", "Rui", "Inês"], [None, "search", "search", "search"])
        h.record(one, _deal(0, [70, 50], [6, 4], [1, 0]))
    out = io.StringIO()
    assert run_history(tmp_path, None, None, False, False, out, REGISTRY) == 0
    first, second = out.getvalue().splitlines()
    assert " unfinished no winner yet; seats 1 Zé, 2 Ana (search)" in first and ", ," not in first
    assert " unfinished no winner yet, 1:0, 1 deal; seats " in second
    assert "(s)" not in out.getvalue()
    out = io.StringIO()
    assert run_history(tmp_path, None, None, False, False, out, REGISTRY, Text("pt")) == 0
    first, second = out.getvalue().splitlines()
    assert " por acabar ainda sem vencedor; lugares 1 Zé, 2 Ana (pesquisa)" in first
    assert ", 1:0, 1 mão; lugares " in second
