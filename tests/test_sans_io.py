"""The sans-IO boundary: rules, plugins and the mental deck import no I/O framework,
and the core imports no game."""

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


def test_core_imports_no_game():
    mods = _modules_after("import p2pcards.core, p2pcards.tools.arena, p2pcards.players, p2pcards.cli")
    games = sorted(m for m in mods if m.startswith("p2pcards_"))
    assert not games, f"the core imported game plugins: {games}"
