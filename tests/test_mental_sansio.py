"""The mental deck is sans-IO: it imports no I/O framework, socket, thread or ``random``."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import p2pcards.mental

PACKAGE = Path(p2pcards.mental.__file__).parent
FRAMEWORKS = ("trio", "prompt_toolkit", "zeroconf", "asyncio")
FORBIDDEN_IMPORTS = {*FRAMEWORKS, "socket", "threading", "random", "secrets", "time", "select"}
# No module of the deck reads a clock: the benchmark that times it is p2pcards/tools/bench_deck.py.


def test_importing_the_mental_deck_loads_no_io_framework() -> None:
    code = (
        "import sys, json\n"
        "import p2pcards.mental, p2pcards.tools.bench_deck, p2pcards.testing.deck_vectors\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = set(json.loads(out.stdout.splitlines()[-1]))
    leaked = sorted(m for m in loaded if m.split(".")[0] in FRAMEWORKS)
    assert not leaked, f"p2pcards.mental imported {leaked}"


def test_no_module_of_the_mental_deck_imports_io_clocks_or_random() -> None:
    for path in sorted(PACKAGE.glob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top not in FORBIDDEN_IMPORTS, f"{path.name} imports {name}"
