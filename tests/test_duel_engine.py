"""``duel --engine``: an outside program speaking the engine protocol as one side of a duel.

Our own ``p2pcards engine`` stands in for the outside program: its heuristic is the
heuristic, so ``engine:heuristic`` must replay ``heuristic``'s matches card for card, in
every game (Bisca's swaps, Copas' passes, Sobe e Desce's trump choice, going in and the
turned card discarded included).  Broken engines are small scripts written here.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from p2pcards.core import SeatView
from p2pcards.tools.duel_engine import position_events
from tests.test_engine import CASES, arena_positions, seat_events

ENGINE = f"{sys.executable} -m p2pcards engine"


def duel(cli, *args: str) -> dict:
    code, out = cli("duel", *args, "--seed", "3", "--jobs", "1", "--json")
    assert code == 0
    return json.loads(out)


@pytest.mark.parametrize(("game", "options", "pairs"), [
    ("sueca", [], 2), ("bisca", ["-o", "swap2=on"], 6), ("copas", [], 2), ("sobe-e-desce", [], 6)])
def test_the_engine_s_heuristic_replays_the_heuristic_s_matches(cli, game, options, pairs):
    args = [game, "--a", "random", "--pairs", str(pairs), *options]
    mine = duel(cli, *args, "--b", "heuristic")
    outside = duel(cli, *args, "--b", "engine:heuristic", "--engine", ENGINE)
    assert outside["results"] == mine["results"]
    assert outside["engine"] == ENGINE and mine["engine"] is None
    assert outside["ms_per_decision"]["b"]["decisions"] == mine["ms_per_decision"]["b"]["decisions"] > 0


def test_an_engine_that_searches_reports_its_worlds_and_workers_start_their_own(cli):
    code, out = cli("duel", "sueca", "--a", "heuristic", "--b", "engine:search@7", "--engine", ENGINE,
                    "--pairs", "2", "--jobs", "2", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["jobs"] == 2 and report["worlds_per_decision"]["b"]["max"] == 7
    assert report["fallbacks"]["b"] == {}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[3]}")
def test_a_position_is_what_the_seat_knows(case):
    """The events and hand sent for a seat are those the engine's own tests cut from the
    arena's record: the turned card a chooser discarded named, nothing else private."""
    for request, _record, deal, _decision in arena_positions(*case):
        view = SeatView(deal, request["seat"])
        assert position_events(view) == seat_events(deal, request["seat"])
        assert sorted(view.dealt) == sorted(request["hand"])


def fake_engine(tmp_path: Path, body: str) -> str:
    """A script that answers ``{"cmd": "bots"}`` as an engine does, then runs ``body``
    with each position as ``req``."""
    script = tmp_path / "engine.py"
    script.write_text(textwrap.dedent("""\
        import json, sys
        for line in sys.stdin:
            req = json.loads(line)
            if req.get("cmd") == "bots":
                print(json.dumps({"id": req["id"], "bots": ["heuristic"]}), flush=True)
                continue
        """) + textwrap.indent(textwrap.dedent(body), "    "))
    return f"{sys.executable} {script}"


@pytest.mark.parametrize(("body", "message"), [
    ('print(json.dumps({"id": req["id"], "kind": "play", "choice": "ZZ"}), flush=True)',
     'answered the card "ZZ", which the seat does not hold'),
    ('print(json.dumps({"id": req["id"], "kind": "play", "choice": req["hand"][0] if req["events"] else "AS"}),'
     ' flush=True)', "which the rules do not allow here"),
    ('print(json.dumps({"id": req["id"], "error": "no such position"}), flush=True)',
     "refused a position: no such position"),
    ("print('hello', flush=True)", "answered a line that is not JSON"),
    ("sys.exit(3)", "stopped answering (exit status 3)"),
    ('print(json.dumps({"id": req["id"], "kind": "trump", "choice": "S"}), flush=True)',
     'answered a "trump" to a play decision'),
])
def test_an_engine_that_fails_stops_the_match_with_a_clear_message(cli, capsys, tmp_path, body, message):
    code, out = cli("duel", "sueca", "--a", "random", "--b", "engine:heuristic", "--engine",
                    fake_engine(tmp_path, body), "--pairs", "1", "--jobs", "1")
    err = capsys.readouterr().err
    assert code == 1 and out == ""
    assert message in err and "Traceback" not in err, err


@pytest.mark.parametrize(("args", "message"), [
    (["--b", "engine:heuristic"], "--b: engine:heuristic needs the engine's command (--engine COMMAND)"),
    (["--b", "heuristic", "--engine", ENGINE], "--engine: neither --a nor --b is engine:LEVEL"),
    (["--b", "engine:genius", "--engine", ENGINE], "--b: the engine offers no level 'genius'"),
    (["--b", "engine:heuristic", "--engine", "/nonexistent/engine"], "--engine: cannot start the engine"),
    (["--b", "engine:heuristic", "--engine", "'unclosed"], "--engine: No closing quotation"),
    (["--b", "engine:heuristic", "--engine", " "], "--engine: the command is empty"),
])
def test_bad_engine_arguments_exit_2_with_a_clear_message(cli, capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        cli("duel", "sueca", "--a", "random", *args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


def test_a_silent_engine_stops_the_match_after_the_answer_timeout(cli, capsys, tmp_path, monkeypatch):
    from p2pcards.tools import duel_engine

    monkeypatch.setattr(duel_engine, "ANSWER_TIMEOUT_S", 0.5)
    code, _ = cli("duel", "sueca", "--a", "random", "--b", "engine:heuristic", "--engine",
                  fake_engine(tmp_path, "import time; time.sleep(30)"), "--pairs", "1", "--jobs", "1")
    err = capsys.readouterr().err
    assert code == 1 and "did not answer within 0.5 s" in err, err
