"""The sans-IO boundary: the rules, the computer players, the plugins, the mental deck and
the table import no I/O framework, and the core imports no game."""

from __future__ import annotations

import json
import subprocess
import sys

FORBIDDEN = ("trio", "prompt_toolkit", "zeroconf", "asyncio")


def _modules_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys, json; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True,
    ).stdout
    return set(json.loads(out.splitlines()[-1]))


def test_core_and_plugins_import_no_io_framework():
    mods = _modules_after(
        "import p2pcards.core, p2pcards.tools.arena, p2pcards.players.heuristics, p2pcards.tools.bench_rules\n"
        "from p2pcards.core import load_games\n"
        "reg = load_games(); assert len(reg.games) >= 4, reg.games\n"
        "for spec in reg.games.values(): spec.heuristic and spec.heuristic(__import__('random').Random(1))"
    )
    leaked = sorted(m for m in mods if m.split(".")[0] in FORBIDDEN)
    assert not leaked, f"sans-IO layers imported {leaked}"
    assert {"p2pcards_sueca", "p2pcards_bisca", "p2pcards_copas", "p2pcards_sobe_e_desce"} <= mods


#: The sans-IO packages: every module of each is imported, function-local imports aside
#: (tests/test_layers.py holds those to the layers).
SANS_IO = ("p2pcards.core", "p2pcards.players", "p2pcards.mental", "p2pcards.table")


def test_every_module_of_the_sans_io_layers_and_the_plugins_imports_no_io_framework():
    mods = _modules_after(
        "import importlib, pkgutil, random\n"
        f"for name in {SANS_IO!r}:\n"
        "    pkg = importlib.import_module(name)\n"
        "    for info in pkgutil.walk_packages(pkg.__path__, name + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "from p2pcards.core import load_games\n"
        "reg = load_games(); assert len(reg.games) >= 4, reg.games\n"
        "for spec in reg.games.values():\n"
        "    spec.heuristic and spec.heuristic(random.Random(1)); spec.batch_simulator\n"
        "for game in ('p2pcards_sueca', 'p2pcards_bisca', 'p2pcards_copas', 'p2pcards_sobe_e_desce'):\n"
        "    pkg = importlib.import_module(game)\n"
        "    for info in pkgutil.walk_packages(pkg.__path__, game + '.'):\n"
        "        importlib.import_module(info.name)\n"
    )
    leaked = sorted(m for m in mods if m.split(".")[0] in FORBIDDEN)
    assert not leaked, f"sans-IO layers imported {leaked}"
    assert {"p2pcards.players.search", "p2pcards.players.hints", "p2pcards.mental.deck_audit",
            "p2pcards.table.audit", "p2pcards_sueca.fastsim"} <= mods


def test_core_imports_no_game():
    mods = _modules_after("import p2pcards.core, p2pcards.tools.arena, p2pcards.players, p2pcards.mental, "
                          "p2pcards.table, p2pcards.cli")
    games = sorted(m for m in mods if m.startswith("p2pcards_"))
    assert not games, f"the core imported game plugins: {games}"
