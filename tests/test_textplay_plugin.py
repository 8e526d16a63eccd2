"""Text mode tells what the full-screen table shows of a game: its public facts, the
person's notes, and events of the game's own kinds (in its words, or as a plain line)."""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path
from typing import Any

import pytest

from p2pcards.core import Choice, GameSpec, load_games
from p2pcards.textplay import play_text
from p2pcards.words.en import EN
from p2pcards.words.pt import PT
from tests.helpers import seeded_home
from tests.plugin_highcard.p2pcards_highcard import SPEC as HIGHCARD
from tests.plugin_highcard.p2pcards_highcard.game import HighcardDeal, HighcardMatch
from tests.test_plugin_walkthrough import install_highcard, run

ANSWERS = ("1 2 3\n\n2\nabc\n" + "".join(f"{n}\n" for n in range(1, 14))) * 400


def play(spec: GameSpec, seed: int, *, lang: str = "en", inp: str = ANSWERS, bots: str = "random",
         options: dict[str, str] | None = None) -> str:
    out = io.StringIO()
    code = play_text(spec, spec.resolve_options(options or {}), bots, seed, 1, io.StringIO(inp), out, lang=lang)
    assert code == 0, out.getvalue()[-2000:]
    return out.getvalue()


# ---------------------------------------------------------------- facts and notes
COPAS = load_games().get("copas")


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_games_fact_is_printed_once_when_it_starts_to_hold(lang: str, seed: int):
    """Copas' fact (hearts broken) shows on the screen's top line from the first heart on;
    text mode prints it once, in the game's words, before the next card is played."""
    text = play(COPAS, seed, lang=lang)
    table = {"en": EN, "pt": PT}[lang]["text_facts"]
    fact = "  " + table.format(facts=COPAS.text(lang, "fact.hearts_broken"))
    assert text.count(fact) == 1, text
    played = {"en": " played ", "pt": " jogou "}[lang]
    before = [ln for ln in text[:text.index(fact)].splitlines() if played in ln]
    assert before and ("♥" in before[-1] or "Q♠" in before[-1]), before[-1:]  # what breaks hearts
    assert text.index(fact) < text.index(COPAS.text(lang, "totals"))  # before the deal's summary


@pytest.mark.parametrize("lang", ["en", "pt"])
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_note_for_the_person_is_printed_under_the_play_it_tells_of(lang: str, seed: int):
    """Copas leads the two of clubs for whoever holds it; the person is told who, once,
    right under that play, as the screen shows it under the trick."""
    text = play(COPAS, seed, lang=lang)
    lines = text.splitlines()
    (at,) = [i for i, ln in enumerate(lines) if re.fullmatch(r"  \S+( \d)? (played|jogou) 2♣", ln)]
    lead = lines[at].split()[0]
    if lead in ("You", "Eu"):
        note = COPAS.text(lang, "note.two_clubs_you")
    else:
        note = COPAS.text(lang, "note.two_clubs").format(name=lead + " " + lines[at].split()[1])  # it opens the line
    assert lines[at + 1] == "    " + note, lines[at:at + 2]
    assert text.count(note) == 1


def test_facts_and_notes_read_in_the_games_words_through_the_table_words():
    """Highcard's fact changes after every trick (printed each time, never twice the same);
    its note tells the person the dealer let them lead."""
    text = play(HIGHCARD, 14)  # seed 14: seat 2 deals and lets the person lead
    facts = [ln for ln in text.splitlines() if ln.startswith("  At the table: ")]
    assert facts == ["  At the table: 3 to play", "  At the table: 2 to play", "  At the table: 1 to play"]
    assert "    Seat 2 lets you lead the first trick\n" in text
    assert "0 to play" not in text  # the deal is over: its facts are no longer the table's


# ---------------------------------------------------------------- a game's own events
def test_a_games_own_event_reads_in_its_words_in_process():
    text = play(HIGHCARD, 14)  # seed 14: seat 2 deals and lets the person lead
    assert "  Seat 2 let the other player lead the first trick\n" in text
    text = play(HIGHCARD, 1, lang="pt")
    assert "  Lugar 2 escolheu abrir a primeira vaza\n" in text
    text = play(HIGHCARD, 0, inp="2\n1\n1\n1\n")  # the person deals and lets seat 2 lead
    assert "You let the other player lead the first trick\n" in text


def without_event_words(spec: GameSpec) -> GameSpec:
    texts = {lang: {k: v for k, v in words.items() if not k.startswith("event.")} for lang, words in spec.texts.items()}
    return dataclasses.replace(spec, texts=texts)


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_an_event_without_words_reads_as_a_plain_line(lang: str):
    plain = without_event_words(HIGHCARD)
    text = play(plain, 14, lang=lang)
    assert {"en": "  Seat 2: lead pass\n", "pt": "  Lugar 2: lead pass\n"}[lang] in text
    text = play(plain, 0, lang=lang, inp="1\n1\n1\n1\n")
    assert {"en": "You: lead lead\n", "pt": "Eu: lead lead\n"}[lang] in text


class OddDeal(HighcardDeal):
    """Highcard whose dealer's choice also records events with odd fields."""

    def _on_lead(self, seat: int, choice: Choice) -> None:
        super()._on_lead(seat, choice)
        self._event("odd", seat, choice={"x": [1]}, card=12, cards=[None, "ZZ"], to="nobody")
        self._event("odd", 7, cards=["AS", "KH"])  # no such seat; another seat's cards stay private
        self._event("worded", seat, card="AS", cards=["KH", "QS"], to=1 - seat, n=2)
        self._event("badly_worded", seat, choice="x")
        self._event("swap", seat)  # a kind text mode knows, without the fields it reads
        self._event("draw", seat, cards=["AH"])  # the core's draws stay quiet


class OddMatch(HighcardMatch):
    def _new_deal(self, deck: Any) -> OddDeal:
        return OddDeal(2, self.dealer, self.options, deck, self.deal_number)


ODD_WORDS = {"event.worded": "{who} showed {card}, kept {cards} for {to} ({n}, {missing}, {kind})",
             "event.badly_worded": "{who} {0} {card.x} {"}
ODD = dataclasses.replace(HIGHCARD, match_class=OddMatch,
                          texts={"en": {**HIGHCARD.texts["en"], **ODD_WORDS}, "pt": dict(HIGHCARD.texts["pt"])})


@pytest.mark.parametrize("seed", [0, 1])
def test_events_with_odd_fields_do_not_stop_the_narration(seed: int):
    text = play(ODD, seed, inp="1\n1\n1\n1\n")
    dealer = "You" if seed == 0 else "Seat 2"
    other = "seat 2" if seed == 0 else "you"
    assert f"{dealer}: odd {{'x': [1]}}\n" in text
    assert "  ?: odd\n" in text  # an event of no seat; the cards of a seat not the person's are not shown
    assert "A♠" not in text.split("?: odd", 1)[1].split("\n", 1)[0]
    assert f"  {dealer} showed A♠, kept K♥ Q♠ for {other} (2, ?, worded)\n" in text
    assert f"{dealer}: badly_worded x\n" in text
    assert f"{dealer}: swap\n" in text
    assert "draw" not in text and "A♥" not in text.split("Deal 1 is over")[0].split("Your hand")[0]
    assert "Deal 1 is over:" in text and "Traceback" not in text


# ---------------------------------------------------------------- installed, in a fresh process
@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_highcard(tmp_path_factory.mktemp("highcard") / "site")


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_installed_its_lead_event_is_told_in_its_own_words(site: Path, lang: str, tmp_path: Path):
    words = HIGHCARD.texts[lang]
    # seed 2: the person deals and lets seat 2 lead ("2"); seed 1: seat 2 deals and decides
    # (each in a data directory of its own whose person is the one play_text makes from the seed)
    out = run(site, "--lang", lang, "play", "highcard", "--text", "--seed", "2", stdin="2\n1\n1\n1\n",
              home=seeded_home(tmp_path / "h2", 2)).stdout
    # the person's own deed: English "You let...", Portuguese in words of its own, without a pronoun
    mine = words["event.lead.pass"].format(who="You") if lang == "en" else words["event.lead.pass_you"]
    assert mine + "\n" in out, out
    assert lang == "en" or mine.startswith("Deixou")
    out = run(site, "--lang", lang, "play", "highcard", "--text", "--seed", "1", stdin="1\n1\n1\n",
              home=seeded_home(tmp_path / "h1", 1)).stdout
    seat = {"en": "Seat 2", "pt": "Lugar 2"}[lang]
    told = [words[f"event.lead.{c}"].format(who=seat) for c in ("lead", "pass")]
    assert any(f"  {line}\n" in out for line in told), out
    assert "{" not in out and "event.lead" not in out and ": lead " not in out
    table = {"en": EN, "pt": PT}[lang]["text_facts"]
    assert "  " + table.format(facts=words["fact.left"].format(n=3)) + "\n" in out
