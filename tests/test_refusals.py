"""A refused card says which rule refuses it, in the game's own words (issue 23, point 14):
"Q♠ is not allowed now: you hold hearts, the suit led, and must follow it" rather than
"follow the rules of the trick"."""

from __future__ import annotations

import io
import random

import pytest

from p2pcards.core import PLAY, Decision, End, Line, load_games
from p2pcards.textplay import play_text
from p2pcards.tui.model import GameInfo, SeatLabel, Snapshot, TableModel
from p2pcards.words import Text, line_text

REGISTRY = load_games()

#: The rules each game's refusals name (every one seen in the deals below).
RULES = {"sueca": {"refusal.follow"}, "bisca": {"refusal.follow_empty"},
         "copas": {"refusal.follow", "refusal.first_trick", "refusal.hearts"},
         "sobe-e-desce": {"refusal.lead_ace", "refusal.follow", "refusal.trump", "refusal.overtrump"}}


def refusals_in_random_deals(game: str, deals: int) -> dict[str, Line]:
    """Every refusal met over ``deals`` deals played at random, one per rule; each checked:
    a card is refused with a reason exactly when it is not a legal play."""
    spec = REGISTRY.get(game)
    seen: dict[str, Line] = {}
    for seed in range(deals):
        rng = random.Random(seed)
        match = spec.new_match(spec.resolve_options({}), seed % spec.seats)
        cards = list(spec.deck)
        rng.shuffle(cards)
        deal = match.new_deal(cards)
        while True:
            step = deal.step()
            if isinstance(step, End):
                break
            if not isinstance(step, Decision):
                deal.complete()
                continue
            for seat in step.seats:
                legal = deal.legal(seat)
                if step.kind == PLAY:
                    for pos in deal.deck.hands[seat]:
                        line = deal.refusal(seat, pos)
                        assert (line is None) == (pos in legal), (game, seed, pos, line)
                        if line is not None:
                            seen.setdefault(line.key, line)
                    deal.apply(seat, rng.choice(legal))
                elif step.pick is not None:
                    deal.apply(seat, tuple(legal[: step.pick[0]]))
                else:
                    deal.apply(seat, rng.choice(legal))
    return seen


@pytest.mark.parametrize("game", sorted(RULES))
def test_every_refused_card_names_its_rule_in_the_games_words(game: str):
    spec = REGISTRY.get(game)
    seen = refusals_in_random_deals(game, 40)
    assert set(seen) == RULES[game]
    for key, line in seen.items():
        for lang in ("en", "pt"):
            words = spec.texts[lang][key]  # the game's own words, in both languages
            said = line_text(spec, lang, line, lambda seat, first: "?")
            assert "{" not in said and said != key
            if line.suits:
                assert Text(lang).suit(line.suits["suit"]) in said
        assert words


def test_the_screen_says_the_rule_and_falls_back_when_the_game_gives_none():
    spec = REGISTRY.get("sueca")
    seats = [SeatLabel(s, f"P{s}") for s in range(4)]
    model = TableModel(GameInfo.of(spec, spec.resolve_options({})), seats, 0, Text("pt"))
    model.update(Snapshot(stage="play", in_deal=True, hand=((3, "QS"), (5, "7H")), hand_sizes=(2,) * 4,
                          tricks_won=(0,) * 4, points_won=(0,) * 4, refusals={3: Line("refusal.follow",
                                                                                        suits={"suit": "H"})}))
    assert model.refused_card(3, "QS") == "Q♠ não pode ser jogada agora: tem copas, o naipe da vaza, e tem de assistir"
    model.text = Text("en")
    assert model.refused_card(3, "QS") == "Q♠ is not allowed now: you hold hearts, the suit led, and must follow it"
    assert model.refused_card(5, "7H") == "7♥ is not allowed now (follow the rules of the trick)"  # no rule given


def test_line_mode_says_the_rule_too():
    spec = REGISTRY.get("sueca")
    out = io.StringIO()
    answers = io.StringIO("".join(f"{n}\n" for n in range(1, 11)) * 40)
    assert play_text(spec, spec.resolve_options({}), "random", 2, 1, answers, out) == 0
    refused = [line for line in out.getvalue().splitlines() if "is not allowed now" in line]
    assert refused and all(", the suit led, and must follow it" in line for line in refused)
