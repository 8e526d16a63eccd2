"""Plugins are real plugins: found through the ``p2pcards`` entry-point group, one broken
plugin is reported and skipped, and an out-of-tree package is installed and played."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards.core import GameRegistry, GameSpec, get_plugin_manager, hookimpl, load_games

HERE = Path(__file__).parent


def run_cli(*args: str, pythonpath: Path | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "p2pcards", *args], capture_output=True, text=True, env=env, check=check, timeout=120
    )


def test_builtin_games_come_through_entry_points():
    registry = load_games()
    assert {"sueca", "bisca", "copas", "sobe-e-desce"} <= set(registry.games)
    assert registry.owners["sueca"] == "sueca" and registry.owners["sobe-e-desce"] == "sobe-e-desce"
    assert registry.problems == []
    pm = get_plugin_manager()
    assert {pm.get_name(p) for p in pm.get_plugins()} >= {"sueca", "bisca", "copas", "sobe-e-desce"}


def test_a_failing_register_hook_is_reported_and_rolled_back():
    pm = get_plugin_manager(entry_points=False)
    sueca = load_games().get("sueca")

    class Good:
        @hookimpl
        def p2pcards_register_games(self, registry: GameRegistry) -> None:
            registry.add_game(sueca)

    class Bad:
        @hookimpl
        def p2pcards_register_games(self, registry: GameRegistry) -> None:
            registry.add_game(GameSpec(**{**sueca.__dict__, "name": "half"}))
            raise RuntimeError("boom")

    pm.register(Good(), name="good")
    pm.register(Bad(), name="bad")
    registry = load_games(pm)
    assert set(registry.games) == {"sueca"}, "the failing plugin's games are rolled back"
    assert [p.plugin for p in registry.problems] == ["bad"] and "boom" in registry.problems[0].error


def test_duplicate_game_name_is_a_problem_not_a_crash():
    registry = GameRegistry()
    spec = load_games().get("bisca")
    registry.add_game(spec)
    with pytest.raises(ValueError, match="already registered"):
        registry.add_game(spec)
    with pytest.raises(KeyError, match="unknown game 'nope'"):
        registry.get("nope")


def _fake_dist(root: Path, name: str, module: str, source: str) -> None:
    info = root / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[p2pcards]\n{name} = {module}\n")
    (root / f"{module}.py").write_text(source)


def test_broken_plugins_are_reported_and_skipped(tmp_path):
    _fake_dist(tmp_path, "crashy", "crashy_plugin", "raise ImportError('missing dependency xyz')\n")
    _fake_dist(
        tmp_path, "typo", "typo_plugin",
        "from p2pcards.core import hookimpl\n"
        "@hookimpl\ndef p2pcards_register_game(registry):\n    pass\n",
    )
    _fake_dist(tmp_path, "empty", "empty_plugin", "X = 1\n")
    proc = run_cli("games", "--json", pythonpath=tmp_path)
    data = json.loads(proc.stdout)
    names = {g["name"] for g in data["games"]}
    assert {"sueca", "bisca", "copas", "sobe-e-desce"} <= names
    problems = {p["plugin"]: p["error"] for p in data["problems"]}
    assert "missing dependency xyz" in problems["crashy"]
    assert "p2pcards_register_game" in problems["typo"]  # check_pending caught the typo
    assert "implements no p2pcards hook" in problems["empty"]
    assert "plugin crashy skipped" in proc.stderr


@pytest.fixture(scope="module")
def highcard_site(tmp_path_factory):
    """The out-of-tree package built and installed (pip) into a private directory."""
    target = tmp_path_factory.mktemp("site")
    src = tmp_path_factory.mktemp("src") / "plugin_highcard"
    import shutil

    shutil.copytree(HERE / "plugin_highcard", src)
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(src)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert any(p.name.startswith("p2pcards_highcard") for p in target.iterdir())
    return target


def test_out_of_tree_game_is_listed(highcard_site):
    data = json.loads(run_cli("games", "--json", pythonpath=highcard_site).stdout)
    game = {g["name"]: g for g in data["games"]}["highcard"]
    assert game["plugin"] == "highcard" and game["seats"] == 2 and game["deck"] == 6
    assert game["options"][0] == {"name": "colour", "default": "plain", "allowed": ["plain", "fancy"],
                               "help": "has no effect; shows that options work"}
    # its words in Portuguese come from the plugin's own ``texts``
    pt = run_cli("--lang", "pt", "games", pythonpath=highcard_site).stdout
    assert "highcard       Carta Alta — 2 jogadores, 6 cartas, ganha a carta mais alta\n" in pt
    assert "cor, por omissão plain (simples): não muda nada; mostra que as opções funcionam" in pt
    assert "highcard       Highcard — 2 players, 6 cards, highest card wins\n" in run_cli(
        "games", pythonpath=highcard_site).stdout
    # and without the package on the path it is not there
    data = json.loads(run_cli("games", "--json").stdout)
    assert "highcard" not in {g["name"] for g in data["games"]}


def test_out_of_tree_game_plays_a_deal_through_the_cli(highcard_site):
    proc = run_cli("arena", "highcard", "--json", "--seed", "5", "--players", "random,heuristic",
                   "-o", "colour=fancy", pythonpath=highcard_site)
    deal, summary = [json.loads(line) for line in proc.stdout.splitlines()]
    assert deal["game"] == "highcard" and len(deal["tricks"]) == 3
    assert sorted(c for h in deal["hands"] for c in h) == sorted(["AS", "KS", "QS", "AH", "KH", "QH"])
    assert sum(deal["result"]["tricks"]) == 3 and deal["match_over"]
    assert summary == {"type": "summary", "game": "highcard", "options": {"colour": "fancy", "lead": "choice"},
                       "players": ["random", "heuristic"], "seed": 5, "deals": 1,
                       "matches_finished": 1, "wins": summary["wins"]}
    bad = run_cli("arena", "highcard", "-o", "colour=blue", pythonpath=highcard_site, check=False)
    assert bad.returncode == 2 and "highcard: colour must be plain or fancy" in bad.stderr
