"""README's "Writing a game plugin" is the Highcard test plugin, file by file, and that plugin
is a complete game that needs nothing under ``p2pcards/``: installed through its entry point
into a directory of its own, it is listed, played by computer players, played in text mode
and (tests/test_tui_tmux_highcard.py) on the full-screen table, in English and Portuguese.

The README's scheme: every ``python`` or ``toml`` code block of the section carries
``file=PATH`` in its info string (PATH relative to ``tests/plugin_highcard/``); the blocks of
one file, in order, are that whole file (blank lines aside, so prose may come between them
at any blank line), and every file of the plugin is shown.
"""

from __future__ import annotations

import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from p2pcards.core import Decision, IllegalChoice, Line, SeatView
from p2pcards.players import make_player
from p2pcards.textplay import play_text
from p2pcards.words import LANGS
from tests.helpers import seeded_home
from tests.plugin_highcard.p2pcards_highcard import SPEC as HIGHCARD
from tests.plugin_highcard.p2pcards_highcard.game import LEAD, HighcardDeal
from tests.plugin_highcard.p2pcards_highcard.heuristic import HighcardHeuristic

ROOT = Path(__file__).resolve().parent.parent
PLUGIN = ROOT / "tests" / "plugin_highcard"
SECTION = "## Writing a game plugin"
FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)


# ---------------------------------------------------------------------- the README is the plugin
def section(readme: str) -> str:
    """The README's walk-through: from its heading to the next heading of its level."""
    start = readme.index(SECTION + "\n")
    end = readme.find("\n## ", start + len(SECTION))
    return readme[start:] if end < 0 else readme[start:end]


def plugin_files(root: Path) -> list[str]:
    """The plugin's source files (relative to ``root``): its pyproject and its modules."""
    return ["pyproject.toml", *sorted(p.relative_to(root).as_posix() for p in root.glob("p2pcards_highcard/*.py"))]


def code_lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def walkthrough_mismatches(readme: str, root: Path) -> list[str]:
    """What differs between the README's walk-through and the plugin's files (none: they match)."""
    shown: dict[str, list[str]] = {}
    problems = []
    for lang, info, body in FENCE.findall(section(readme)):
        name = re.search(r"\bfile=(\S+)", info)
        if name is None:
            if lang in ("python", "toml"):
                problems.append(f"a {lang} block without file=: {body.splitlines()[:1]}")
            continue
        shown.setdefault(name.group(1), []).extend(code_lines(body))
    for rel in sorted(set(shown) | set(plugin_files(root))):
        path = root / rel
        if rel not in shown:
            problems.append(f"{rel} is not in the README")
        elif not path.is_file():
            problems.append(f"the README shows {rel}, which the plugin does not have")
        elif shown[rel] != code_lines(path.read_text(encoding="utf-8")):
            have, want = shown[rel], code_lines(path.read_text(encoding="utf-8"))
            first = next((i for i, (a, b) in enumerate(zip(have, want)) if a != b), min(len(have), len(want)))
            problems.append(f"{rel} differs from line {first + 1} of its code: README "
                            f"{have[first:first + 1]} file {want[first:first + 1]}")
    return problems


def test_the_readme_walk_through_is_the_plugin_file_by_file():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert walkthrough_mismatches(readme, PLUGIN) == []
    assert len(FENCE.findall(section(readme))) >= len(plugin_files(PLUGIN)) + 1  # and how to try it


def test_the_walk_through_check_sees_a_change_a_missing_file_and_an_unnamed_block(tmp_path: Path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shutil.copytree(PLUGIN / "p2pcards_highcard", tmp_path / "p2pcards_highcard")
    shutil.copy(PLUGIN / "pyproject.toml", tmp_path)
    assert walkthrough_mismatches(readme, tmp_path) == []
    game = tmp_path / "p2pcards_highcard" / "game.py"
    game.write_text(game.read_text().replace('LEAD_CHOICES = ("lead", "pass")', 'LEAD_CHOICES = ("pass",)'))
    assert [p.split(" differs")[0] for p in walkthrough_mismatches(readme, tmp_path)] == ["p2pcards_highcard/game.py"]
    (tmp_path / "p2pcards_highcard" / "extra.py").write_text("X = 1\n")
    assert "p2pcards_highcard/extra.py is not in the README" in walkthrough_mismatches(readme, tmp_path)
    unnamed = readme.replace("```python file=p2pcards_highcard/heuristic.py", "```python")
    assert any("without file=" in p for p in walkthrough_mismatches(unnamed, PLUGIN))
    # blank lines may move (prose between blocks), other lines may not
    assert walkthrough_mismatches(readme.replace("\n\nclass HighcardMatch", "\nclass HighcardMatch"), PLUGIN) == []
    assert walkthrough_mismatches(readme.replace("    totals_label = ", "  totals_label = "), PLUGIN) != []


# ---------------------------------------------------------------------- nothing under p2pcards/ knows it
def test_nothing_under_p2pcards_names_the_plugin():
    """A new game needs edits in its own package only: the core, the screens, the CLI and
    their words do not name Highcard (nor its module, nor its Portuguese title)."""
    found = []
    for path in sorted((ROOT / "p2pcards").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            text = path.read_text(encoding="utf-8", errors="replace").lower()
            found += [f"{path.relative_to(ROOT)}: {word}" for word in ("highcard", "carta alta") if word in text]
    assert found == []


# ---------------------------------------------------------------------- the game, in process
def played(dealer: int = 0, lead: str = "choice", cards: list[str] | None = None) -> HighcardDeal:
    """A new deal in full information (the deck in its order unless ``cards``), dealt."""
    match = HIGHCARD.new_match({"lead": lead}, dealer)
    deal = match.new_deal(cards or list(HIGHCARD.deck))
    while not isinstance(deal.step(), Decision):
        deal.complete()
    assert isinstance(deal, HighcardDeal)
    return deal


def finish(deal: HighcardDeal) -> Mapping[str, Any]:
    """Play the deal to its end, every seat its first legal card."""
    while not deal.over:
        step = deal.step()
        if isinstance(step, Decision):
            deal.apply(step.seats[0], deal.legal(step.seats[0])[0])
        else:
            deal.complete()
    assert deal.result is not None
    return deal.result


def test_the_dealer_decides_who_leads_in_the_games_own_words():
    deal = played(dealer=0)
    step = deal.step()
    assert step == Decision((0,), LEAD) and deal.legal(0) == ["lead", "pass"] and deal.legal(1) == []
    assert deal.decision_lines(0) == [Line("lead.text", seats={"name": 1})]
    assert deal.choice_line(0, "lead") == Line("lead.lead")
    assert deal.choice_line(0, "pass") == Line("lead.pass", seats={"name": 1})
    assert deal.choice_line(0, 3) is None  # a card is shown as a card
    with pytest.raises(IllegalChoice, match="lead or pass"):
        deal.apply(0, "later")
    assert deal.step() == step  # a refused choice changes nothing
    deal.apply(0, "pass")
    assert deal.step() == Decision((1,), "play") and deal.decision_lines(1) == []
    assert deal.events[-1] == {"type": "lead", "seat": 0, "choice": "pass"}
    assert deal.notes(1) == [Line("note.passed", seats={"name": 0})] and deal.notes(0) == []
    assert deal.facts() == [Line("fact.left", {"n": 3})]
    finish(deal)
    assert deal.notes(1) == [] and deal.facts() == [Line("fact.left", {"n": 0})]


def test_with_lead_dealer_nobody_decides():
    deal = played(dealer=1, lead="dealer")
    assert deal.step() == Decision((1,), "play")
    assert sum(finish(deal)["tricks"]) == 3


def test_a_forfeit_gives_the_other_player_every_trick_and_the_summary_reads_it():
    deal = played(dealer=0)
    deal.forfeit(0)
    assert deal.result == {"tricks": [0, 3], "renuncia": 0}
    summary = HIGHCARD.deal_summary(deal.result)
    assert summary.columns == ("tricks",) and summary.rows == ((0, (0,)), (1, (3,))) and summary.highlight == 1
    assert summary.notes == (Line("deal_to", seats={"name": 1}),)


@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en"])
def test_every_word_of_the_plugin_is_translated(lang: str):
    words = HIGHCARD.texts[lang]
    assert [key for key in HIGHCARD.text_keys() if not words.get(key, "").strip()] == []
    assert set(words) <= set(HIGHCARD.text_keys())
    english = HIGHCARD.texts["en"]
    for key, text in words.items():  # the same fields, so no screen shows "{name}"
        assert set(re.findall(r"{(\w+)}", text)) == set(re.findall(r"{(\w+)}", english.get(key, ""))), key


def test_the_heuristic_follows_its_tips():
    rng = random.Random(1)
    player = HighcardHeuristic(rng)
    # the dealer (seat 0) holds the last three cards of the deck order: AH KH QH
    deal = played(dealer=0)
    assert player.choose(SeatView(deal, 0), deal.step()) == "lead"  # an ace: lead
    deal = played(dealer=0, cards=["AS", "AH", "KS", "KH", "QS", "QH"])  # the dealer holds KH QS QH
    assert player.choose(SeatView(deal, 0), deal.step()) == "pass"
    deal.apply(0, "pass")
    view = SeatView(deal, 1)
    assert view.card(player.choose(view, deal.step())) == "AS"  # lead the best card
    deal.apply(1, 0)
    deal.complete()
    view = SeatView(deal, 0)
    assert view.card(player.choose(view, deal.step()))[0] == "Q"  # cannot beat it: a lowest card


# ---------------------------------------------------------------------- installed through its entry point
def install_highcard(target: Path) -> Path:
    """The plugin built and installed with pip into ``target`` (a directory for PYTHONPATH),
    from a copy of its source, as a third party's package would be."""
    src = target.parent / "highcard-src"
    shutil.copytree(PLUGIN, src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return target


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_highcard(tmp_path_factory.mktemp("highcard") / "site")


def run(site: Path, *args: str, stdin: str = "", check: bool = True,
        home: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``p2pcards ARGS`` in a fresh process that finds the plugin only through its entry
    point (``home``: its data directory, default one the module shares)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "P2PCARDS_LANG")}
    env.update(PYTHONPATH=str(site), P2PCARDS_HOME=str(home or site.parent / "home"))
    proc = subprocess.run([sys.executable, "-m", "p2pcards", *args], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120, cwd=site.parent)
    if check:
        assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


def test_installed_it_is_listed_with_its_options_in_both_languages(site: Path):
    games = {g["name"]: g for g in json.loads(run(site, "games", "--json").stdout)["games"]}
    game = games["highcard"]
    assert game["seats"] == 2 and game["deck"] == 6
    assert [(o["name"], o["allowed"]) for o in game["options"]] == [("colour", ["plain", "fancy"]),
                                                                    ("lead", ["choice", "dealer"])]
    en = run(site, "games").stdout
    assert "Highcard — 2 players, 6 cards, highest card wins" in en
    assert "-o lead=choice|dealer" in en and "who leads the first trick" in en
    pt = run(site, "--lang", "pt", "games").stdout
    assert "Carta Alta — 2 jogadores, 6 cartas, ganha a carta mais alta" in pt
    assert "primeira vaza, por omissão choice (escolhe quem dá)" in pt


def test_installed_its_own_heuristic_plays_the_arena_and_is_imported_only_when_needed(site: Path):
    lines = [json.loads(x) for x in run(site, "arena", "highcard", "--deals", "12", "--seed", "3", "--json").stdout
             .splitlines()]
    deals = [x for x in lines if x["type"] == "deal"]
    assert len(deals) == 12 and all(sum(d["result"]["tricks"]) == 3 for d in deals)
    for d in deals:  # the heuristic's tip: lead with an ace in hand, else let the other player lead
        (lead,) = [e for e in d["events"] if e["type"] == "lead"]
        assert lead["seat"] == d["dealer"]
        assert lead["choice"] == ("lead" if any(c[0] == "A" for c in d["hands"][d["dealer"]]) else "pass")
    assert {lead["choice"] for d in deals for lead in d["events"] if lead["type"] == "lead"} == {"lead", "pass"}
    bad = run(site, "arena", "highcard", "-o", "lead=never", check=False)
    assert bad.returncode == 2 and "highcard: lead must be choice or dealer" in bad.stderr
    probe = ("import sys, random; from p2pcards.core import load_games; from p2pcards.players import make_player; "
             "spec = load_games().get('highcard'); "
             "print('p2pcards_highcard.heuristic' in sys.modules); "
             "print(type(make_player('heuristic', spec, random.Random(1))).__name__); "
             "print('p2pcards_highcard.heuristic' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, timeout=60)
    assert out.stdout.split() == ["False", "HighcardHeuristic", "True"], out.stderr


@pytest.mark.parametrize(("lang", "words"), [
    ("en", ["You dealt: who leads the first trick, you or seat 2?", "Who leads: 1) I lead  2) Seat 2 leads",
            "  You — high cards", "The deal goes to"]),
    ("pt", ["Deu as cartas: abre a primeira vaza ou deixa lugar 2 abrir?", "Quem abre: 1) Abro eu  2) Abre lugar 2",
            "  Eu — cartas altas", "A mão fica para"]),
])
def test_installed_it_plays_in_text_mode_with_its_decision_in_its_words(site: Path, lang: str, words: list[str],
                                                                         tmp_path: Path):
    # seed 2: the person (seat 1) deals, so the person decides who leads; then three cards
    home = seeded_home(tmp_path / "home", 2)  # the match play_text plays with seed 2
    out = run(site, "--lang", lang, "play", "highcard", "--text", "--seed", "2", stdin="1\n1\n1\n1\n",
              home=home).stdout
    for text in words:
        assert text in out, out
    assert "{" not in out and "lead.text" not in out


def test_text_mode_in_process_shows_the_decision_line_too():
    out = io.StringIO()
    assert play_text(HIGHCARD, HIGHCARD.resolve_options({}), "random", 0, 1, io.StringIO("2\n1\n1\n1\n"), out) == 0
    assert "You dealt: who leads the first trick, you or seat 2?" in out.getvalue()
    assert "The deal goes to" in out.getvalue()


def test_the_heuristic_is_what_the_spec_names():
    assert HIGHCARD.heuristic_class == "tests.plugin_highcard.p2pcards_highcard.heuristic:HighcardHeuristic"
    assert isinstance(make_player("heuristic", HIGHCARD, random.Random(1)), HighcardHeuristic)
