"""The project's documentation stands on its own and stays true.

* Every relative link in README.md, docs/*.md and protocol/*.md points to a file (or
  directory) of the repository, and a link to a heading (``#...``) to a heading that exists.
* Nothing in the repository points to documents that are not part of it (the names are
  built at run time, so that this file does not trip its own check).
* Every table option of the built-in games, with each of its values, is in docs/rules.md,
  and every option named there exists.
* Every worked example in docs/rules.md is replayed with the arena and its numbers checked.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from p2pcards.core import GameSpec
from p2pcards.core.plugins import ENTRY_POINT_GROUP, load_games
from p2pcards.tools.arena import run_arena

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"

_FENCE = re.compile(r"^\s*(```|~~~)")
_CODE_SPAN = re.compile(r"`[^`\n]*`")
_INLINE_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_REF_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def _markdown_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted(DOCS.glob("*.md")), *sorted((ROOT / "protocol").glob("*.md"))]
    return [f for f in files if f.is_file()]


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """Lines outside fenced code blocks, numbered from 1."""
    out = []
    fenced = False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            out.append((number, line))
    return out


def _links(text: str) -> list[tuple[int, str]]:
    """Link targets of a Markdown text with their line numbers (code is not looked at)."""
    found = []
    for number, line in _prose_lines(text):
        ref = _REF_LINK.match(line)
        if ref:
            found.append((number, ref.group(1)))
            continue
        for match in _INLINE_LINK.finditer(_CODE_SPAN.sub("code", line)):
            found.append((number, match.group(1)))
    return found


def slug(heading: str) -> str:
    """The anchor a Markdown renderer (GitHub's rule) gives a heading."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading anchor of a Markdown text (a repeated heading gets -1, -2...)."""
    seen: dict[str, int] = {}
    out = set()
    for _, line in _prose_lines(text):
        match = _HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        out.add(base if count == 0 else f"{base}-{count}")
    return out


def test_the_anchor_rule_matches_the_headings_linked_today() -> None:
    assert slug("Group: ristretto255") == "group-ristretto255"
    assert slug("Sealed payloads: HPKE and signatures") == "sealed-payloads-hpke-and-signatures"
    assert slug("Renúncia: breaking a play rule, and how it is caught") == (
        "renúncia-breaking-a-play-rule-and-how-it-is-caught"
    )
    assert anchors("# A\n## A\n```\n# not a heading\n```\n") == {"a", "a-1"}


def test_every_relative_link_points_into_the_repository() -> None:
    files = _markdown_files()
    assert DOCS / "README.md" in files, "docs/README.md is the documentation's index"
    broken = []
    checked = 0
    for md in files:
        text = md.read_text(encoding="utf-8")
        for number, target in _links(text):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue  # http:, https:, mailto: ... are not files of the repository
            where = f"{md.relative_to(ROOT)}:{number}: {target}"
            path_part, _, anchor = target.partition("#")
            dest = (md.parent / path_part).resolve() if path_part else md
            checked += 1
            if not dest.is_relative_to(ROOT):
                broken.append(f"{where} (outside the repository)")
            elif not dest.exists():
                broken.append(f"{where} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest.read_text(encoding="utf-8")):
                broken.append(f"{where} (no such heading in {dest.relative_to(ROOT)})")
    assert checked > 50, "the documentation links into the repository"
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_the_link_finder_sees_links_and_skips_code() -> None:
    text = "see [a](x.md) and [`b`](y/z.py#q)\n`[c](not.md)`\n```\n[d](no.md)\n```\n[e]: ref.md\n"
    assert [t for _, t in _links(text)] == ["x.md", "y/z.py#q", "ref.md"]


def _repository_files() -> list[Path]:
    files = [ROOT / name for name in ("README.md", "pyproject.toml", "MANIFEST.in", "LICENSE")]
    for folder in ("p2pcards", "plugins", "tests", "protocol", "docs"):
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    return [f for f in files if f.is_file()]


def test_nothing_refers_to_documents_outside_the_repository() -> None:
    # Built here, so that this file's own text holds none of them.
    outside = ["DESIGN" + ".md", "RULES" + ".md", ".." + "/shared", "/work" + "/shared"]
    hits = []
    files = _repository_files()
    assert any(f.name == "rules.md" for f in files) and any(f.suffix == ".py" for f in files)
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary files hold no references
        for number, line in enumerate(text.splitlines(), 1):
            for name in outside:
                if name in line:
                    hits.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert not hits, "references to documents that are not part of the repository:\n" + "\n".join(hits)


def _builtin_games() -> dict[str, GameSpec]:
    """The games of this repository's own plugins: the entry points its pyproject.toml
    declares (not a test plugin that may be installed meanwhile)."""
    registry = load_games()
    assert not registry.problems, registry.problems
    with open(ROOT / "pyproject.toml", "rb") as f:
        declared = set(tomllib.load(f)["project"]["entry-points"][ENTRY_POINT_GROUP])
    games = {name: spec for name, spec in registry.games.items() if registry.owners[name] in declared}
    assert len(games) == len(declared) >= 4, f"the built-in games are found: {sorted(games)}"
    return games


def _sections(text: str) -> dict[str, str]:
    """The text under each second-level heading, by heading."""
    out: dict[str, str] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            out[current] = ""
        elif current:
            out[current] += line + "\n"
    return out


def test_every_option_of_every_game_is_in_the_rule_book() -> None:
    sections = _sections(RULES.read_text(encoding="utf-8"))
    missing = []
    for spec in _builtin_games().values():
        section = sections.get(spec.title)
        if section is None:
            missing.append(f"{spec.name}: no section '## {spec.title}'")
            continue
        for option in spec.options:
            for value in option.allowed:
                if f"`{option.name}={value}`" not in section:
                    missing.append(f"{spec.name}: `{option.name}={value}`")
    assert not missing, "docs/rules.md does not describe:\n" + "\n".join(missing)


def test_every_option_the_rule_book_names_exists() -> None:
    sections = _sections(RULES.read_text(encoding="utf-8"))
    unknown = []
    for spec in _builtin_games().values():
        allowed = {(o.name, str(v)) for o in spec.options for v in o.allowed}
        for name, value in re.findall(r"`([a-z_0-9]+)=([^`\s]+)`", sections.get(spec.title, "")):
            if (name, value) not in allowed:
                unknown.append(f"{spec.name}: `{name}={value}`")
    assert not unknown, "docs/rules.md names options the games do not have:\n" + "\n".join(unknown)


def _examples() -> list[tuple[str, int, dict[str, str], int, dict[str, Any]]]:
    """(game title, seed, options, deal counted from 1, quoted result) per example row."""
    rows = []
    title = None
    for line in RULES.read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^### Worked examples \((.+)\)\s*$", line)
        if heading:
            title = heading.group(1)
            continue
        if line.startswith("#"):
            title = None
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if title is None or len(cells) != 4 or not cells[0].isdigit():
            continue
        seed, options, deal, result = cells
        opts = {}
        if options not in ("—", "-", ""):
            for item in options.replace("`", "").split(","):
                key, _, value = item.strip().partition("=")
                opts[key] = value
        quoted = json.loads("{" + result.replace("`", "") + "}")
        rows.append((title, int(seed), opts, int(deal), quoted))
    return rows


def test_the_rule_book_has_worked_examples_for_every_game() -> None:
    titles = {row[0] for row in _examples()}
    assert titles >= {spec.title for spec in _builtin_games().values()}


@pytest.mark.parametrize("row", _examples() if RULES.exists() else [], ids=lambda r: f"{r[0]}-seed{r[1]}-deal{r[3]}")
def test_a_worked_example_is_what_the_arena_plays(row: tuple[str, int, dict[str, str], int, dict[str, Any]]) -> None:
    title, seed, options, deal, quoted = row
    (spec,) = [s for s in _builtin_games().values() if s.title == title]
    records = list(run_arena(spec, spec.resolve_options(options), deal, seed, ["random"] * spec.seats))
    record = records[deal - 1]
    assert record["type"] == "deal"
    result = record["result"]
    wrong = {k: (v, result.get(k)) for k, v in quoted.items() if result.get(k) != v}
    assert not wrong, f"docs/rules.md quotes (quoted, played): {wrong}; whole result: {result}"


def test_the_readme_says_where_the_installed_command_is() -> None:
    """After the README's install line, ``p2pcards`` is ``.venv/bin/p2pcards``: the README
    says so and how to put it on the PATH, before the examples that type ``p2pcards`` alone."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme.index(".venv/bin/pip install -e . && .venv/bin/p2pcards play")
    said = readme.index("The command is then `.venv/bin/p2pcards`")
    first_bare = readme.index("`p2pcards` alone")
    assert install < said < first_bare
    assert "`. .venv/bin/activate` puts it on the `PATH`" in readme
