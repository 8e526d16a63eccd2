""""Past games" and "Statistics" on the start screen (issue 16): the matches this machine
knows, from the history database or else from the transcripts, newest first; Enter replays
one (the start screen comes back afterwards); the statistics of ``p2pcards stats`` a page at
a time, in the screen's language."""

from __future__ import annotations

import io
import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input

from p2pcards.history import HistoryError
from p2pcards.history.db import History, db_path
from p2pcards.history.stats import run_stats
from p2pcards.players import make_player
from p2pcards.tui import replay as replay_screen
from p2pcards.tui.runtime import LocalTable
from p2pcards.tui.start import start_fragments
from p2pcards.tui.start_model import MENU, StartChoice, StartModel
from p2pcards.tui.start_past import PastEntry, past_games
from p2pcards.words import Text
from tests.test_history import _deal, _played, _sueca_table
from tests.test_tui_app import DOWN, REGISTRY, ScreenOutput, person, screen_text
from tests.test_tui_strings import english_in


def _local(home: Path, game: str, deals: int | None, seed: int) -> LocalTable:
    """A table against the computer played to its end in memory, recorded into ``home``'s
    history as the table screen records it (a computer player plays the person's seat)."""
    spec = REGISTRY.get(game)
    table = LocalTable(spec, spec.resolve_options({}), me=person(), text=Text("en"), bots="random", seed=seed,
                       deals=deals, speed=0, data_dir=home)
    table.seats[0].player = make_player("random", spec, random.Random(seed))
    table.gate.close = lambda: None  # type: ignore[method-assign]  # nobody reads the summaries

    async def play() -> None:
        with trio.fail_after(60):
            await table.run()

    trio.run(play)
    table.history.close()
    assert table.outcome == "over"
    return table


def _model(home: Path | None, lang: str = "en") -> tuple[StartModel, list[Any]]:
    model = StartModel(list(REGISTRY.games.values()), Text(lang))
    model.history_from(home)
    chosen: list[Any] = []
    model.on_exit = chosen.append
    return model, chosen


def _open(model: StartModel, item: str) -> None:
    model.cursor = MENU.index(item)
    model.enter()


def _drawn(model: StartModel, rows: int | None = None, columns: int | None = None) -> str:
    return "".join(f[1] for f in start_fragments(model, rows, columns))


def _started(home: Path, table: bytes, when: int) -> None:
    """Say in the database that ``table`` started at ``when`` (the tables here are played a
    moment apart: this puts them hours apart)."""
    conn = sqlite3.connect(db_path(home))
    conn.execute("UPDATE matches SET started = ? WHERE table_id = ?", (when, table.hex()))
    conn.commit()
    conn.close()


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, LocalTable, LocalTable]:
    """A data directory with a history database: a whole Bisca match (won), then a Sueca
    table of one deal (no winner)."""
    home = tmp_path_factory.mktemp("recorded")
    bisca = _local(home, "bisca", None, 7)
    sueca = _local(home, "sueca", 1, 7)
    _started(home, bisca.table_id, 1_700_000_000)
    _started(home, sueca.table_id, 1_700_003_600)
    return home, bisca, sueca


# ---------------------------------------------------------------------- the list, on the model
def test_past_games_come_from_the_history_database_newest_first(recorded):
    home, bisca, sueca = recorded
    with History(db_path(home)) as history:
        matches = {m["table_id"]: m for m in history.matches()}
    won = matches[bisca.table_id.hex()]
    assert won["ended"] == "finished" and won["winner"] is not None  # the Bisca match was played to a winner
    model, chosen = _model(home)
    _open(model, "past")
    assert model.view == "past"
    assert [e.table for e in model.past] == [sueca.table_id.hex(), bisca.table_id.hex()]  # newest first
    first, second = model.past
    assert (first.game, first.ended, first.deals, first.winners) == ("sueca", "finished", 1, ())
    assert first.names == ("Zé", "Ana", "Rui", "Inês")
    winner = next(s["name"] for s in won["seats"] if s["side"] == won["winner"])
    assert (second.game, second.ended, second.winners, second.deals) == ("bisca", "finished", (winner,), won["deals"])
    # each is offered with one of its table's logs
    assert first.path is not None and first.path.parent.name == sueca.table_id.hex() and first.path.suffix == ".log"
    screen = _drawn(model)
    assert "Sueca  Zé, Ana, Rui, Inês — played to its end, no winner · 1 deal" in screen
    assert f"Bisca  Zé, Ana — won by {winner} · {won['deals']} deals" in screen
    model.down()
    model.enter()
    assert chosen == [StartChoice("replay", game="bisca", path=second.path)]
    # in Portuguese, with the same facts
    pt, _ = _model(home, "pt")
    _open(pt, "past")
    drawn = _drawn(pt)
    assert "jogada até ao fim, sem vencedor · 1 mão" in drawn and f"ganha por {winner}" in drawn
    assert english_in(drawn) == set()


def test_without_a_database_the_list_comes_from_the_logs_and_a_broken_one_is_not_offered(tmp_path):
    sueca = _played(tmp_path, "sueca", 1)
    bisca = _played(tmp_path, "bisca", 1)
    for path in tmp_path.glob(db_path(tmp_path).name + "*"):  # the peers recorded them: no database now
        path.unlink()
    broken = tmp_path / "tables" / ("ab" * 32)
    broken.mkdir(parents=True)
    (broken / "seat0.log").write_bytes(b"not a transcript at all, just some words")
    model, chosen = _model(tmp_path)
    _open(model, "past")
    by_table = {e.table: e for e in model.past}
    assert set(by_table) == {sueca.hex(), bisca.hex(), "ab" * 32}
    for table, game, seats in ((sueca, "sueca", 4), (bisca, "bisca", 2)):
        entry = by_table[table.hex()]
        assert (entry.game, entry.ended, entry.names) == (game, "unknown", tuple(f"p{s}" for s in range(seats)))
        assert entry.path is not None and entry.path.parent.name == table.hex()
    assert by_table["ab" * 32] == PastEntry("ab" * 32, "", by_table["ab" * 32].started, (), "unreadable")
    screen = _drawn(model)
    assert "Sueca  p0, p1, p2, p3 — how it ended is not recorded" in screen
    assert "abababab   — unreadable" in screen
    model.past_cursor = model.past.index(by_table["ab" * 32])
    model.enter()
    assert chosen == [] and model.error.startswith("The transcript of that game cannot be read here")
    model.past_cursor = model.past.index(by_table[sueca.hex()])
    model.enter()
    assert chosen == [StartChoice("replay", game="sueca", path=by_table[sueca.hex()].path)]
    assert not db_path(tmp_path).exists()  # looking does not create a database


def test_a_match_whose_transcript_is_gone_is_listed_but_not_offered(tmp_path):
    with History(db_path(tmp_path)) as h:
        one = _sueca_table(1, ["Zé", "Ana", "Rui", "Inês"], [None, "heuristic", None, "heuristic"])
        h.record(one, _deal(0, [120, 0], [10, 0], [4, 0], over=True, winner=0))
        h.record(one, {"type": "final", "winner": 0, "totals": [4, 0], "deals": 1, "transcript_hash": "ab",
                       "abandoned": None, "voted_out": False})
    (entry,) = past_games(tmp_path)
    assert entry.ended == "unreadable" and entry.path is None and entry.winners == ("Zé", "Rui")


def test_a_long_list_shows_a_page_around_the_cursor():
    model, chosen = _model(None)
    entries = [PastEntry(f"{n:064x}", "copas", 1_700_000_000 - n * 60, ("Zé", "Ana", "Rui", "Inês"), "abandoned",
                         path=Path(f"/data/tables/{n:064x}/seat0.log")) for n in range(40)]
    model.past_source = lambda: entries
    _open(model, "past")
    screen = _drawn(model, rows=14, columns=100)  # 8 rows of the list fit
    assert model.page == 8 and "1–8 of 40" in screen
    assert screen.count("Copas  Zé, Ana") == 8
    for _ in range(9):
        model.down()
    screen = _drawn(model, rows=14, columns=100)
    assert model.past_cursor == 9 and "3–10 of 40" in screen  # the cursor stays on screen, at the bottom
    model.page_down()
    model.page_down()
    model.page_down()
    model.page_down()
    assert model.past_cursor == 39 and "33–40 of 40" in _drawn(model, rows=14, columns=100)
    model.page_up()
    assert model.past_cursor == 31 and "32–39 of 40" in _drawn(model, rows=14, columns=100)
    assert model.past_window() == range(31, 39)
    model.up()
    model.enter()
    assert chosen[-1].path == entries[30].path
    model.back()
    assert model.view == "menu"


# ---------------------------------------------------------------------- statistics
def test_the_statistics_page_shows_the_numbers_of_stats_json(recorded):
    home, _, _ = recorded
    out = io.StringIO()
    assert run_stats(home, True, out, REGISTRY) == 0
    stats = json.loads(out.getvalue())
    t = Text("en")
    model, _ = _model(home)
    _open(model, "stats")
    assert model.view == "stats"
    (me,) = stats["players"]  # the person is Zé at both tables; the rest are computer players
    expected = [t("stats_player", name=me["name"], fingerprint=me["fingerprint"])]
    for game, e in me["games"].items():
        label = t(f"stats_measure_{REGISTRY.get(game).match_class.value_label}")
        average = t("stats_average", value=f"{e['average_points']:g}", label=label, lower="")
        unfinished = t("stats_unfinished", n=e["unfinished"]) if e["unfinished"] else ""
        expected.append(t("stats_game", game=REGISTRY.get(game).title, matches=t.plural("stats_matches", e["matches"]),
                          unfinished=unfinished, won=e["won"], deals_won=e["deals_won"],
                          deals=t.plural("stats_deals", e["deals"]), average=average,
                          capotes=t.plural("stats_capotes", e["capotes"]),
                          renuncias=t.plural("stats_renuncias", e["renuncias"]),
                          cheating=t.plural("stats_cheating", e["cheating"]), hints=""))
    for b in stats["bots"]:
        label = t(f"stats_measure_{REGISTRY.get(b['game']).match_class.value_label}")
        average = t("stats_bot_average", value=f"{b['average_points']:g}", label=label)
        unfinished = t("stats_unfinished", n=b["unfinished"]) if b["unfinished"] else ""
        expected.append(t("stats_bot", game=REGISTRY.get(b["game"]).title, level=b["level"], won=b["won"],
                          matches=t.plural("stats_matches", b["matches"]), unfinished=unfinished,
                          deals_won=b["deals_won"], deals=t.plural("stats_deals", b["deals"]), average=average))
    for pair in stats["partnerships"]:
        unfinished = t("stats_unfinished", n=pair["unfinished"]) if pair["unfinished"] else ""
        fields = {"game": REGISTRY.get(pair["game"]).title, "won": pair["won"], "unfinished": unfinished,
                  "matches": t.plural("stats_matches", pair["matches"])}
        if pair["players"][0] == pair["players"][1]:  # two computer players of one level: said once
            expected.append(t("stats_pair_bots", level=pair["players"][0][4:], **fields))
        else:
            expected.append(t("stats_pair", a=pair["names"][0], b=pair["names"][1], **fields))
    assert stats["bots"] and stats["partnerships"] and set(expected) <= set(model.stats)
    assert any(line.startswith("    form ") for line in model.stats)
    assert any("┤" in line for line in model.stats)  # the points-per-deal chart of the last match
    # scrolled a page at a time; the last page stops at the end
    _drawn(model, rows=12, columns=200)
    assert model.page == 6 and len(model.stats) > 6
    lines, top, total = model.stats_window()
    assert (top, lines) == (0, model.stats[:6]) and total == len(model.stats)
    model.down()
    assert model.stats_window()[0] == model.stats[1:7]
    for _ in range(5):
        model.page_down()
    assert model.stats_window()[0] == model.stats[-6:]
    model.page_up()
    model.up()
    assert model.stats_window()[1] == total - 6 - 6 - 1
    # in Portuguese: no English word of the screen's
    pt, _ = _model(home, "pt")
    _open(pt, "stats")
    drawn = _drawn(pt, rows=200, columns=200)
    assert "Parceiros:" in drawn and "o computador (aleatório)" in drawn and "pontos das cartas por mão" in drawn
    assert english_in(drawn) == set()


def test_no_database_means_a_friendly_line_and_no_file(tmp_path):
    model, _ = _model(tmp_path)
    _open(model, "stats")
    assert model.stats == [Text("en")("stats_none")] and "No games are recorded yet" in _drawn(model)
    assert not db_path(tmp_path).exists()


def test_a_database_that_cannot_be_read_is_said_not_raised(tmp_path):
    db_path(tmp_path).write_bytes(b"this is not a database, only some bytes" * 100)
    model, _ = _model(tmp_path)
    _open(model, "stats")
    assert model.view == "message" and model.message.startswith("Could not read the statistics: ")
    assert "not a p2pcards history database" in model.message
    model.enter()
    _open(model, "past")  # the list still comes from the transcripts
    assert model.view == "past" and model.past == []


# ---------------------------------------------------------------------- the whole screen
def test_the_start_screen_reaches_statistics_and_past_games_and_comes_back_from_a_replay(recorded, monkeypatch):
    """By keys through a pipe: Statistics (7), back (q), Past games (6), Enter replays the
    newest; the screen comes back on the list; the next one is not a transcript: the
    message says so; then quit (9)."""
    import p2pcards.tui.start as start_module

    home, bisca, sueca = recorded
    replayed: list[tuple[Path, dict[str, Any]]] = []
    steps = [("6. Past games", "7"), ("Computer players, by level:", "q"), ("7. Statistics", "6"),
             ("Enter replays a game", "\r"), ("Could not replay the game: ", "\r9")]

    def run_replay(path: Path, **kw: Any) -> int:
        replayed.append((path, kw))
        if len(replayed) == 2:
            raise HistoryError(f"{path} is not a p2pcards transcript log: the file is empty")
        inp.send_text(DOWN + "\r")  # back on the list: the next game
        return 0

    monkeypatch.setattr(replay_screen, "run_replay", run_replay)
    real_build = start_module.build_start_app

    def build(model: StartModel, **kw: Any) -> Any:
        app = real_build(model, **kw)

        def step(_: Any) -> None:
            if steps and steps[0][0] in screen_text(app):
                inp.send_text(steps.pop(0)[1])

        app.after_render += step
        return app

    monkeypatch.setattr(start_module, "build_start_app", build)
    out = ScreenOutput()
    with create_pipe_input() as inp, create_app_session(input=inp, output=out):
        code = start_module.run_start_screen(REGISTRY, me=person(), lang="en", data_dir=home, input=inp, output=out,
                                             lan=False)
    assert code == 0 and steps == []
    assert [p.parent.name for p, _ in replayed] == [sueca.table_id.hex(), bisca.table_id.hex()]
    assert all(kw["lang"] == "en" and kw["input"] is inp for _, kw in replayed)
    drawn = out.drawn()
    assert "Zé (" in drawn and "Computer players, by level:" in drawn  # the statistics page
    assert "Sueca  Zé, Ana, Rui, Inês" in drawn and "won by" in drawn  # the past games
    assert "Could not replay the game: " in drawn and "Traceback" not in drawn


def test_the_portuguese_statistics_page_writes_decimals_with_a_comma(tmp_path):
    with History(db_path(tmp_path)) as h:
        # Zé's side: (120 + 30 + 29) / 3 = 59.67 card points a deal; the bots' side: (0 + 90 + 91) / 3 = 60.33
        table = _sueca_table(1, ["Zé", "Ana", "Rui", "Inês"], [None, "heuristic", None, "heuristic"])
        for n, points in enumerate(([120, 0], [30, 90], [29, 91])):
            h.record(table, _deal(n, points, [5, 5], [n, 0]))
        h.record_hint(table, 0, 0, 0, "7H")
    out = io.StringIO()
    assert run_stats(tmp_path, False, out, REGISTRY) == 0
    said = out.getvalue()  # `p2pcards stats` is English, with a point, for people and for other tools
    assert "59.67 card points a deal" in said and "60.33 card points a deal" in said and "59,67" not in said
    english, _ = _model(tmp_path)
    _open(english, "stats")
    assert any("59.67 card points a deal" in line for line in english.stats)
    assert not any("59,67" in line or "60,33" in line for line in english.stats)
    pt, _ = _model(tmp_path, "pt")
    _open(pt, "stats")
    drawn = _drawn(pt, rows=200, columns=200)
    assert "59,67 pontos das cartas por mão" in drawn and "; 60,33 pontos das cartas por mão" in drawn
    assert "59.67" not in drawn and "60.33" not in drawn
    assert "; 1 dica pedida" in drawn and english_in(drawn) == set()
