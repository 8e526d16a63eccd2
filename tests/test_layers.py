"""The import direction: every module imports only its own layer and the layers below it
(:mod:`p2pcards.layers` lists them), the imports between files make no circle, the games
build on nothing above the players and nothing in p2pcards imports a game, only the tools
import the test doubles, and no source file is too long to read in one sitting.

Every ``import`` and ``from ... import`` of every module under ``p2pcards/`` and
``plugins/`` counts, wherever it stands: at the top, in a function, under
``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from p2pcards.layers import GAMES, LAYERS, layer_of

ROOT = Path(__file__).resolve().parent.parent
#: The longest a source file under p2pcards/ may be, in lines.
MAX_LINES = 600
#: Files allowed past it: the word catalogues are data, one dictionary each.
LONG_DATA = {"p2pcards/words/en.py", "p2pcards/words/pt.py"}


def _module_files() -> dict[str, Path]:
    """Every module of the project: dotted name -> file."""
    files: dict[str, Path] = {}
    roots = [(ROOT / "p2pcards", "p2pcards")] + [(ROOT / "plugins" / g, g) for g in GAMES]
    for base, package in roots:
        for path in sorted(base.rglob("*.py")):
            parts = [package, *path.relative_to(base).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            files[".".join(parts)] = path
    return files


MODULES = _module_files()


@dataclass(frozen=True)
class Import:
    importer: str  # dotted name of the importing module
    target: str  # dotted name of the project module it imports
    line: int
    text: str  # the import statement as written

    def where(self) -> str:
        return f"{_rel(MODULES[self.importer])}:{self.line} `{self.text}`"


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _resolve(name: str) -> str | None:
    """The project module ``name`` is or lies in (the longest prefix that is one), or None."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in MODULES:
            return candidate
        parts.pop()
    return None


def _imports(module: str, path: Path) -> Iterator[Import]:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source, filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            # `from PACKAGE import submodule` imports the submodule; `from MODULE import name` the module
            names = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in MODULES else origin
                     for alias in node.names]
        else:
            continue
        text = ast.get_source_segment(source, node) or ""
        for name in dict.fromkeys(names):
            target = _resolve(name)
            if target is not None and target != module:
                yield Import(module, target, node.lineno, " ".join(text.split()))


IMPORTS = [imp for module, path in MODULES.items() for imp in _imports(module, path)]


def test_every_module_has_a_layer() -> None:
    orphans = sorted(_rel(path) for module, path in MODULES.items() if layer_of(module) is None)
    assert not orphans, f"modules that no layer of p2pcards/layers.py holds: {orphans}"
    assert [name for name, _ in LAYERS][0] == "foundation" and len({name for name, _ in LAYERS}) == len(LAYERS)


def test_no_module_imports_a_higher_layer() -> None:
    wrong = []
    for imp in IMPORTS:
        (mine, my_name), (theirs, their_name) = layer_of(imp.importer), layer_of(imp.target)  # type: ignore[misc]
        if theirs > mine:
            wrong.append(f"{imp.where()}: {my_name} imports {imp.target} of the higher layer {their_name}")
    assert not wrong, "imports against the layers (p2pcards/layers.py):\n" + "\n".join(wrong)


def test_games_build_on_nothing_above_the_players_and_p2pcards_imports_no_game() -> None:
    players = next(i for i, (name, _) in enumerate(LAYERS) if name == "players")
    wrong = []
    for imp in IMPORTS:
        game_importer = imp.importer.split(".")[0] in GAMES
        game_target = imp.target.split(".")[0] in GAMES
        if game_importer and not game_target:
            index, name = layer_of(imp.target)  # type: ignore[misc]
            if index > players:
                wrong.append(f"{imp.where()}: a game imports {imp.target} ({name}, above the players)")
        if imp.importer.startswith("p2pcards.") or imp.importer == "p2pcards":
            if game_target:
                wrong.append(f"{imp.where()}: p2pcards imports the game {imp.target}")
        if game_importer and game_target and imp.importer.split(".")[0] != imp.target.split(".")[0]:
            wrong.append(f"{imp.where()}: a game imports another game, {imp.target}")
    assert not wrong, "\n".join(wrong)


def test_only_the_tools_and_the_doubles_themselves_import_the_test_doubles() -> None:
    """p2pcards.testing sits below the tools, which run on it, but nothing that runs a real
    table (the faces and the command included, though they sit higher) may import it."""
    allowed = ("p2pcards.testing", "p2pcards.tools")
    wrong = [f"{imp.where()}: imports the test double {imp.target}" for imp in IMPORTS
             if imp.target.startswith("p2pcards.testing")
             and not any(imp.importer == a or imp.importer.startswith(a + ".") for a in allowed)]
    assert not wrong, "\n".join(wrong)


def _cycle(edges: dict[str, list[Import]]) -> list[Import] | None:
    """One circle of imports, as the imports that make it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[Import] = []

    def visit(node: str) -> list[Import] | None:
        state[node] = 1
        for imp in edges.get(node, []):
            if state.get(imp.target) == 1:  # back to a module on the path: the circle closes
                start = next(i for i, step in enumerate(path) if step.importer == imp.target)
                return path[start:] + [imp]
            if imp.target not in state:
                path.append(imp)
                found = visit(imp.target)
                if found:
                    return found
                path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_imports_between_files_make_no_circle() -> None:
    edges: dict[str, list[Import]] = {}
    for imp in IMPORTS:
        edges.setdefault(imp.importer, []).append(imp)
    found = _cycle(edges)
    assert found is None, "a circle of imports between files:\n" + "\n".join(
        f"  {imp.where()} -> {_rel(MODULES[imp.target])}" for imp in found)


def test_the_circle_finder_finds_circles() -> None:
    a, b, c = (Import(m, t, 1, "") for m, t in (("a", "b"), ("b", "c"), ("c", "a")))
    assert _cycle({"a": [a], "b": [b], "c": [c]}) == [a, b, c]
    assert _cycle({"a": [a], "b": [b]}) is None


def test_no_source_file_is_too_long_to_read_in_one_sitting() -> None:
    long = []
    for path in sorted((ROOT / "p2pcards").rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES and _rel(path) not in LONG_DATA:
            long.append(f"{_rel(path)}: {lines} lines")
    assert not long, f"source files over {MAX_LINES} lines (split them along their seams):\n" + "\n".join(long)


def test_the_architecture_page_draws_the_layers_from_the_one_list() -> None:
    """docs/architecture.md's diagram is the one p2pcards/layers.py writes (run
    ``python -m p2pcards.layers`` and paste it when a layer changes)."""
    from p2pcards.layers import diagram

    page = (ROOT / "docs" / "architecture.md").read_text()
    assert f"```\n{diagram()}\n```" in page, "docs/architecture.md's layers differ from p2pcards/layers.py"
