"""The command line: help everywhere, clear errors, and the --json contract."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from p2pcards.cli import main

GAMES = ["sueca", "bisca", "copas", "sobe-e-desce"]


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], capture_output=True, text=True,
                          env=env, timeout=300)


@pytest.mark.parametrize("cmd", [[], ["games"], ["arena"], ["bench"], ["bench", "rules"], ["bench", "deck"], ["play"]])
def test_help_on_every_command(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        main([*cmd, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "usage: p2pcards" in text
    if cmd in (["games"], ["arena"], ["bench", "rules"], ["bench", "deck"]):
        assert "JSON output (--json)" in text


def test_games_json_lists_every_builtin_with_options(cli):
    code, out = cli("games", "--json")
    data = json.loads(out)
    games = {g["name"]: g for g in data["games"]}
    assert set(GAMES) <= set(games)
    assert games["sueca"]["seats"] == 4 and games["bisca"]["seats"] == 2 and games["copas"]["deck"] == 52
    opts = {o["name"]: o for o in games["sueca"]["options"]}
    assert opts["target"] == {"name": "target", "default": 4, "allowed": [4, 8],
                              "help": "game points that win the match (a bandeira)"}
    code, text = cli("games")
    assert code == 0 and "-o target=4|8" in text


def test_games_json_carries_each_games_words_in_every_language(cli):
    """Tools that show the games (a launcher, a web page) read their words in English and
    Portuguese from games --json, the same words `--lang pt games` prints."""
    code, out = cli("games", "--json")
    games = {g["name"]: g for g in json.loads(out)["games"]}
    code, listing = cli("--lang", "pt", "games")
    for name, game in games.items():
        assert set(game["texts"]) == {"en", "pt"}
        en, pt = game["texts"]["en"], game["texts"]["pt"]
        assert en["title"] == game["title"] and en["description"] == game["description"]
        assert f"{name:<14} {pt['title']} — " in listing
        assert set(pt["options"]) == {o["name"] for o in game["options"]}
        for option in game["options"]:
            words = pt["options"][option["name"]]
            assert set(words["values"]) == {str(v) for v in option["allowed"]}
            assert words["help"] in listing and words["label"]
    sueca = games["sueca"]["texts"]
    assert sueca["pt"]["options"]["trump_card"]["values"] == {"last": "a última", "first": "a primeira"}
    assert sueca["en"]["options"]["trump_card"]["values"]["last"] != "a última"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "sueca", "-o", "target=9"], "sueca: target must be 4 or 8"),
        (["arena", "sueca", "-o", "target"], "-o expects KEY=VALUE"),
        (["arena", "sueca", "-o", "nope=1"], "sueca: unknown option 'nope'"),
        (["arena", "chess"], "unknown game 'chess'"),
        (["arena", "sueca", "--players", "random,random"], "sueca has 4 seats"),
        (["arena", "bisca", "--players", "random,genius"], "unknown player 'genius'"),
        (["arena", "sueca", "--deals", "0"], "--deals must be at least 1"),
        (["arena", "sueca", "--deals", "many"], "invalid int value"),
        (["bench", "deck", "--seats", "7"], "--seats must be 2, 3 or 4"),
        (["play", "sueca", "--bots", "genius"], "unknown bot level"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_options_exit_2_with_a_clear_message(args, message):
    proc = run(*args)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(("args", "usage"), [(["stats", "--bogus"], "usage: p2pcards stats "),
                                             (["bench", "table", "--x"], "usage: p2pcards bench table "),
                                             (["--bogus"], "usage: p2pcards [-h]")])
def test_an_unknown_argument_is_said_with_its_own_command_s_usage(args, usage):
    proc = run(*args)
    assert proc.returncode == 2 and proc.stderr.startswith(usage), proc.stderr
    assert f"unrecognized arguments: {args[-1]}" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("game", GAMES)
def test_arena_json_is_reproducible_byte_for_byte(game):
    env1 = {**os.environ, "PYTHONHASHSEED": "1"}
    env2 = {**os.environ, "PYTHONHASHSEED": "2"}
    a = run("arena", game, "--deals", "25", "--seed", "7", "--json", env=env1)
    b = run("arena", game, "--deals", "25", "--seed", "7", "--json", env=env2)
    assert a.returncode == 0, a.stderr
    assert a.stdout == b.stdout
    c = run("arena", game, "--deals", "25", "--seed", "8", "--json", env=env1)
    assert c.stdout != a.stdout


@pytest.mark.parametrize("game", GAMES)
def test_arena_record_shape(cli, game):
    players = ",".join((["random", "heuristic"] * 2)[: 2 if game == "bisca" else 4])
    code, out = cli("arena", game, "--deals", "3", "--seed", "1", "--json", "--players", players)
    lines = [json.loads(line) for line in out.splitlines()]
    assert [r["type"] for r in lines] == ["deal", "deal", "deal", "summary"]
    for i, r in enumerate(lines[:3]):
        assert r["deal"] == i and r["game"] == game
        keys = ("match_deal", "dealer", "trump", "hands", "events", "tricks", "result", "totals", "match_over",
                "winner")
        for key in keys:
            assert key in r
        assert "renuncia" in r["result"] and r["result"]["renuncia"] is None
        for t in r["tricks"]:
            assert set(t) == {"leader", "seats", "cards", "winner"} and t["seats"][0] == t["leader"]
        for ev in r["events"]:
            assert isinstance(ev["seat"], int) and ev["type"] in ("trump", "pass", "go_in", "draw", "swap", "play")


def test_arena_human_output(cli, capsys):
    code, out = cli("arena", "sueca", "--deals", "2", "--seed", "3")
    assert code == 0
    assert out.count("match 1 deal") == 2 and "2 deals" in out
    assert "match 1 deal 1: dealer seat " in out and "match 1 deal 2: " in out and "deal 0" not in out
    # each deal's result in the game's words, per side, not as raw JSON
    assert "team 1 (seats 1 and 3) — points " in out and "game points +" in out and '{"points"' not in out


def test_arena_human_output_names_the_winning_team_from_1(cli):
    code, out = cli("arena", "sueca", "--deals", "12", "--seed", "3")
    assert code == 0 and "match won by team " in out
    for line in out.splitlines():
        if "match won by team 1" in line:
            assert line.endswith("match won by team 1 (seats 1 and 3)")
        elif "match won by team 2" in line:
            assert line.endswith("match won by team 2 (seats 2 and 4)")
    assert "won by 0" not in out and "won by 1" not in out


def test_games_says_each_fact_once(cli):
    code, text = cli("games")
    assert code == 0
    lines = {line.split()[0]: line for line in text.splitlines() if not line.startswith(" ")}
    assert lines["bisca"].count("2 players") == 1 and lines["bisca"].count("40 cards") == 1
    assert lines["sueca"].count("40 cards") == 1 and lines["copas"].count("52 cards") == 1
    assert "(40 cards)" in lines["sobe-e-desce"]  # its description does not say the deck: added once
    assert "draw from the stock after each trick" in lines["bisca"]
