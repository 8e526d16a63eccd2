""""Your tables" (issue 23, point 5): one row per table with when it was played, against
whom and the score so far; a table against the computer is thrown away from the list (x,
twice) or with ``resume --abandon``, and ends abandoned, with no winner."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input

from p2pcards.core import load_games
from p2pcards.history.db import History, db_path
from p2pcards.identity import load_or_create
from p2pcards.net import unfinished_tables
from p2pcards.textplay import play_text
from p2pcards.tui.start import run_start_screen, saved_tables, start_fragments
from p2pcards.tui.start_model import StartModel
from p2pcards.words import Text
from tests.test_tui_app import DOWN, ScreenOutput

REGISTRY = load_games()


def left_bisca(home: Path, seed: int) -> str:
    """A Bisca match of two deals against the computer, left in its second deal (the
    answers run out); its table id."""
    me = load_or_create(home, "Zé")
    spec = REGISTRY.get("bisca")
    out = io.StringIO()
    answers = io.StringIO("1\n2\n3\n" * 10)
    assert play_text(spec, spec.resolve_options({}), "random", seed, 2, answers, out, me=me, data_dir=home) == 0
    assert "Deal 1 is over:" in out.getvalue() and "Deal 2 is over:" not in out.getvalue()
    (found,) = unfinished_tables(home, me)
    return found.table


def test_a_row_says_when_against_whom_and_the_score(tmp_path):
    table = left_bisca(tmp_path, 3)
    (entry,) = saved_tables(tmp_path, load_or_create(tmp_path))
    # (the totals after one deal may be 0-0: a fresh identity each run deals other cards)
    assert entry.table == table and entry.others == ("Ana",) and entry.deals == 1 and len(entry.totals) == 2
    model = StartModel(list(REGISTRY.games.values()), Text("en"))
    model.saved = [entry]
    model.view = "saved"
    said = " ".join("".join(f[1] for f in start_fragments(model, 30, 100)).split())
    score = "–".join(map(str, entry.totals))
    assert re.search(rf"\d{{4}}-\d\d-\d\d \d\d:\d\d Bisca {table[:8]} against the computer \(Ana\) · {score} after "
                     r"1 deal: unfinished: Enter takes it up again", said), said
    assert "x throws away a table against the computer" in said
    model.throw_away()
    assert model.error.startswith("x again throws this table away: it ends with no winner")
    model.down()  # any other key keeps it
    assert model.throwing is None


def test_x_twice_throws_a_table_against_the_computer_away(tmp_path):
    table = left_bisca(tmp_path, 3)
    me = load_or_create(tmp_path)
    with create_pipe_input() as inp:

        class Output(ScreenOutput):
            left = False

            def flush(self) -> None:
                super().flush()
                if not self.left and self.screens and "was thrown away" in self.screens[-1]:
                    self.left = True
                    inp.send_text("\x1bq")  # "Your tables" again, saying so: then back, and quit

        out = Output()
        inp.send_text("5" + "x")  # Your tables; x once: it asks
        inp.send_text(DOWN + "x" + "x")  # another key keeps it; then x twice throws it away
        with create_app_session(input=inp, output=out):
            code = run_start_screen(REGISTRY, me=me, lang="en", data_dir=tmp_path, input=inp, output=out, lan=False)
    assert code == 0
    said = " ".join(out.drawn().split())
    assert f"Table {table[:8]} was thrown away: it ended with no winner." in said
    assert not unfinished_tables(tmp_path, me) and saved_tables(tmp_path, me) == []
    (ended,) = unfinished_tables(tmp_path, me, ended=True)
    assert ended.state == "abandoned"
    with History(db_path(tmp_path)) as history:
        (match,) = history.matches()
    assert match["ended"] == "abandoned" and match["winner"] is None


def test_resume_abandon_throws_a_table_against_the_computer_away_at_once(tmp_path, monkeypatch, cli):
    table = left_bisca(tmp_path, 3)
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    code, out = cli("resume", "--abandon", "--json")
    assert code == 0
    assert json.loads(out) == {"type": "abandoned", "table": table, "game": "bisca", "role": "local"}
    code, out = cli("resume", "--list")
    assert code == 0 and f"{table[:16]} (bisca, local" in out and "ended: abandoned" in out
    code, _ = cli("resume")
    assert code == 1  # nothing left to take up
