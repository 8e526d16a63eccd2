"""Sobe e Desce (plugins/p2pcards_sobe_e_desce/game.py): each rule on hand-built decks, evident renúncia
with partial information, match end, riscos, the heuristic, and random playouts."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.core import (
    DISCARD,
    GO_IN,
    PLAY,
    PORTUGUESE_40,
    STOCK,
    TRUMP,
    Deal,
    Decision,
    End,
    IllegalChoice,
    Reveal,
    SeatView,
    load_games,
)
from p2pcards.core.records import deal_record
from p2pcards.players import RandomPlayer
from p2pcards.tools.arena import run_arena
from p2pcards_sobe_e_desce.game import SPEC, SobeEDesceDeal, SobeEDesceMatch, match_winner, riscos
from p2pcards_sobe_e_desce.heuristic import SobeEDesceHeuristic
from tests.rulecheck_sobe_e_desce import check as rulecheck

# Seat 0 is the trump chooser whenever the dealer is seat 3.
DEALER = 3


# ---------------------------------------------------------------------- helpers
def arrange(hands: dict[int, Sequence[str]], dealer: int = DEALER, stock: Sequence[str] = ()) -> list[str]:
    """A full deck giving ``hands[seat]`` (5 cards) to each listed seat: cards 0-2 in the
    first round, 3-4 in the second (the chooser's card 3 is the one it would turn);
    ``stock`` are the first stock cards; every other card fills the rest at random."""
    chooser = (dealer + 1) % 4
    cards: list[str | None] = [None] * 40
    for k in range(4):
        seat = (chooser + k) % 4
        hand = list(hands.get(seat, ()))
        first = list(range(3 * k, 3 * k + 3)) + [12 + 2 * k, 13 + 2 * k]
        for pos, card in zip(first, hand):
            cards[pos] = card
    for i, card in enumerate(stock):
        cards[20 + i] = card
    used = [c for c in cards if c is not None]
    assert len(set(used)) == len(used), "a card is arranged twice"
    rest = [c for c in PORTUGUESE_40 if c not in used]
    random.Random(1).shuffle(rest)
    it = iter(rest)
    return [c if c is not None else next(it) for c in cards]


def advance(deal: SobeEDesceDeal, truth: Sequence[str] | None = None) -> None:
    """Fulfil deck steps until a decision or the end.  With ``truth`` the deal has
    partial information: reveals teach the deck the true card, as a runtime would."""
    while True:
        step = deal.step()
        if isinstance(step, (Decision, End)):
            return
        if isinstance(step, Reveal) and truth is not None:
            for pos in step.positions:
                deal.deck.learn(pos, truth[pos])
        deal.complete()


def new_deal(
    hands: dict[int, Sequence[str]],
    trump: str = "S",
    dealer: int = DEALER,
    stock: Sequence[str] = (),
    totals: Sequence[int] | None = None,
    sat_out: Sequence[int] | None = None,
) -> SobeEDesceDeal:
    """A full-information deal of a fresh match, advanced past the trump choice."""
    match = SPEC.new_match({}, dealer)
    if totals is not None:
        match.totals = list(totals)
    if sat_out is not None:
        match.sat_out = list(sat_out)  # type: ignore[attr-defined]
    deal = match.new_deal(arrange(hands, dealer, stock))
    assert isinstance(deal, SobeEDesceDeal)
    advance(deal)
    deal.apply((dealer + 1) % 4, trump)
    advance(deal)
    return deal


def go_in(deal: SobeEDesceDeal, choices: dict[int, tuple[str, ...] | None], truth: Sequence[str] | None = None) -> None:
    """Every seat goes in (a tuple of cards to exchange) or sits out (None), in turn."""
    for _ in range(4):
        step = deal.step()
        assert isinstance(step, Decision) and step.kind == GO_IN
        seat = step.seats[0]
        choice = choices[seat]
        picked = None if choice is None else tuple(pos_of(deal, c, truth) for c in choice)
        deal.apply(seat, picked)
        advance(deal, truth)


def pos_of(deal: SobeEDesceDeal, card: str, truth: Sequence[str] | None = None) -> int:
    cards = truth if truth is not None else deal.deck.cards
    return list(cards).index(card)


def play(deal: SobeEDesceDeal, seat: int, card: str, truth: Sequence[str] | None = None) -> None:
    step = deal.step()
    assert isinstance(step, Decision) and step.kind == PLAY and step.seats == (seat,), step
    deal.apply(seat, pos_of(deal, card, truth))
    advance(deal, truth)


def legal_cards(deal: SobeEDesceDeal, seat: int) -> set[str]:
    return {deal.deck.cards[p] for p in deal.legal(seat)}  # type: ignore[misc]


def play_out(deal: SobeEDesceDeal) -> dict[str, Any]:
    """Finish a full-information deal with the first legal play."""
    while True:
        step = deal.step()
        if isinstance(step, End):
            return step.result
        assert isinstance(step, Decision) and step.kind == PLAY
        deal.apply(step.seats[0], deal.legal(step.seats[0])[0])
        advance(deal)


FIVE_TOP_SPADES = ["AS", "7S", "KS", "JS", "QS"]


# ---------------------------------------------------------------------- the spec
def test_registered_through_the_entry_point() -> None:
    spec = load_games().get("sobe-e-desce")
    assert spec.title == "Sobe e Desce" and spec.seats == 4 and spec.options == ()
    assert sorted(spec.deck) == sorted(PORTUGUESE_40)
    assert spec.resolve_options() == {}
    assert spec.heuristic is not None


# ---------------------------------------------------------------------- dealing
@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_deal_three_then_two_from_the_dealers_next_seat(dealer: int) -> None:
    """The rules: 3 cards to each starting after the dealer, the first receiver chooses
    trumps, then 2 more each in the same order; 20 cards stay in the stock."""
    cards = list(PORTUGUESE_40)
    deal = SPEC.new_match({}, dealer).new_deal(cards)
    chooser = (dealer + 1) % 4
    steps = []
    while not isinstance(deal.step(), Decision):
        steps.append(deal.step())
        deal.complete()
    assert steps == [Deal((chooser + k) % 4, (3 * k, 3 * k + 1, 3 * k + 2)) for k in range(4)]
    assert deal.step() == Decision((chooser,), TRUMP)
    assert deal.legal(chooser) == ["S", "H", "D", "C", "turn"]
    assert deal.legal((chooser + 1) % 4) == []
    deal.apply(chooser, "D")
    steps = []
    while not isinstance(deal.step(), Decision):
        steps.append(deal.step())
        deal.complete()
    assert steps == [Deal((chooser + k) % 4, (12 + 2 * k, 13 + 2 * k)) for k in range(4)]
    assert deal.trump == "D"
    assert deal.events[0] == {"type": "trump", "seat": chooser, "choice": "D", "card": None}
    for k in range(4):
        seat = (chooser + k) % 4
        assert deal.deck.hands[seat] == [3 * k, 3 * k + 1, 3 * k + 2, 12 + 2 * k, 13 + 2 * k]
    assert deal.hands_at_start == [deal.deck.hand_cards(s) for s in range(4)]
    assert deal.public_info()["stock"] == 20
    assert deal.step() == Decision((chooser,), GO_IN, pick=(0, 5), may_decline=False)


def test_turn_deals_the_next_card_face_up_to_the_chooser() -> None:
    """Turn: the next card the chooser would receive is dealt to it, shown to all, sets
    trumps and stays in its hand; it then gets only one more card."""
    hands = {0: ["2S", "3S", "4S", "KD", "QS"]}  # KD sits at position 12
    deal = SPEC.new_match({}, DEALER).new_deal(arrange(hands))
    advance(deal)
    deal.apply(0, "turn")
    assert deal.step() == Deal(0, (12,))
    deal.complete()
    assert deal.step() == Reveal((12,), 0)
    deal.complete()
    assert deal.trump == "D" and deal.trump_card_pos == 12
    assert deal.events[0] == {"type": "trump", "seat": 0, "choice": "turn", "card": "KD"}
    assert deal.step() == Deal(0, (13,))
    advance(deal)
    assert deal.deck.hands[0] == [0, 1, 2, 12, 13]
    assert deal.hands_at_start is not None and deal.hands_at_start[0] == ["2S", "3S", "4S", "KD", "QS"]
    assert all(len(h) == 5 for h in deal.deck.hands)
    other = SeatView(deal, 2)
    assert other.trump_card == "KD" and other.card(12) == "KD" and other.card(13) is None


def test_turned_card_is_public_with_partial_information() -> None:
    truth = arrange({0: ["2S", "3S", "4S", "KD", "QS"]})
    deal = SPEC.new_match({}, DEALER).new_deal(None)
    advance(deal, truth)
    deal.apply(0, "turn")
    advance(deal, truth)
    assert deal.trump == "D" and deal.deck.cards[12] == "KD"
    assert [c for c in deal.deck.cards if c is not None] == ["KD"]


# ---------------------------------------------------------------------- going in
def test_the_trump_chooser_must_play() -> None:
    deal = new_deal({})
    assert deal.step() == Decision((0,), GO_IN, pick=(0, 5), may_decline=False)
    with pytest.raises(IllegalChoice):
        deal.apply(0, None)
    deal.apply(0, ())
    assert deal.step() == Decision((1,), GO_IN, pick=(0, 5), may_decline=True)


def test_five_points_or_less_must_play() -> None:
    deal = new_deal({}, totals=[20, 5, 6, 1])
    assert deal.public_info()["must_play"] == [True, True, False, True]
    flags = []
    for seat in range(4):
        step = deal.step()
        assert isinstance(step, Decision) and step.seats == (seat,)
        flags.append(step.may_decline)
        deal.apply(seat, ())
        advance(deal)
    assert flags == [False, False, True, False]


def test_sitting_out_two_deals_in_a_row_forces_play() -> None:
    """The match counts consecutive deals sat out; after two the player must play."""
    match = SPEC.new_match({}, DEALER)
    assert isinstance(match, SobeEDesceMatch)
    may_decline_3 = []
    for _ in range(3):
        chooser = (match.dealer + 1) % 4
        deal = match.new_deal(list(PORTUGUESE_40))
        advance(deal)
        deal.apply(chooser, "S")
        advance(deal)
        for _ in range(4):
            step = deal.step()
            assert isinstance(step, Decision)
            seat = step.seats[0]
            if seat == 3:
                may_decline_3.append(step.may_decline)
            deal.apply(seat, None if step.may_decline and seat == 3 else ())
            advance(deal)
        play_out(deal)
        match.record(deal)
    # seat 3 chose trumps in none of these deals (choosers 0, 1, 2)
    assert may_decline_3 == [True, True, False]
    assert match.sat_out == [0, 0, 0, 0]
    assert [r["played"][3] for r in match.results] == [False, False, True]


def test_hearts_as_trumps_makes_everyone_play() -> None:
    deal = new_deal({}, trump="H")
    assert deal.public_info()["must_play"] == [True] * 4
    for seat in range(4):
        step = deal.step()
        assert isinstance(step, Decision) and not step.may_decline
        with pytest.raises(IllegalChoice):
            deal.apply(seat, None)
        deal.apply(seat, ())
        advance(deal)
    assert deal.active == [0, 1, 2, 3]


def test_exchange_discards_face_down_and_draws_from_the_stock_at_once() -> None:
    hands = {1: ["2H", "3H", "4H", "AS", "7S"], 2: ["2D", "3D", "4D", "5D", "6D"]}
    deal = new_deal(hands, stock=["AH", "7H", "KH"])
    deal.apply(0, ())
    advance(deal)
    discard = (pos_of(deal, "2H"), pos_of(deal, "3H"))
    deal.apply(1, discard)
    # the draw comes before seat 2 decides
    assert deal.step() == Deal(1, (20, 21))
    deal.complete()
    assert deal.step() == Decision((2,), GO_IN, pick=(0, 5), may_decline=True)
    assert deal.deck.owner[discard[0]] == DISCARD and deal.deck.owner[discard[1]] == DISCARD
    assert sorted(deal.deck.hand_cards(1)) == sorted(["4H", "AS", "7S", "AH", "7H"])
    deal.apply(2, (pos_of(deal, "6D"),))
    assert deal.step() == Deal(2, (22,))
    advance(deal)
    assert "KH" in deal.deck.hand_cards(2) and "6D" not in deal.deck.hand_cards(2)
    deal.apply(3, None)
    advance(deal)
    assert deal.events[1:] == [
        {"type": "go_in", "seat": 0, "plays": True, "exchange": 0, "cards": []},
        {"type": "go_in", "seat": 1, "plays": True, "exchange": 2, "cards": ["2H", "3H"]},
        {"type": "draw", "seat": 1, "cards": ["AH", "7H"]},
        {"type": "go_in", "seat": 2, "plays": True, "exchange": 1, "cards": ["6D"]},
        {"type": "draw", "seat": 2, "cards": ["KH"]},
        {"type": "go_in", "seat": 3, "plays": False, "exchange": 0, "cards": []},
    ]
    assert deal.public_info()["stock"] == 17
    assert deal.active == [0, 1, 2]
    # the others never see what was discarded or drawn
    seen_by_0 = SeatView(deal, 0).events
    assert all("cards" not in ev for ev in seen_by_0 if ev["seat"] != 0)
    # discards are never in play
    result = play_out(deal)
    played = [deal.deck.cards[p] for t in deal.tricks for _, p in t.plays]
    assert not {"2H", "3H", "6D"} & set(played)
    assert result["played"] == [True, True, True, False]


def test_a_seat_is_told_the_cards_it_drew_until_the_first_trick_is_over() -> None:
    hands = {1: ["2H", "3H", "4H", "AS", "7S"]}
    deal = new_deal(hands, stock=["AH", "7H", "KH"])
    deal.apply(0, ())
    advance(deal)
    assert deal.notes(1) == []
    deal.apply(1, (pos_of(deal, "2H"), pos_of(deal, "3H")))
    advance(deal)
    assert [(n.key, n.fields) for n in deal.notes(1)] == [("note.drew", {"cards": "A♥ 7♥"})]
    assert deal.notes(0) == [] and deal.notes(2) == []
    assert SPEC.text("en", "note.drew").format(cards="A♥ 7♥") == "you drew A♥ 7♥"
    go = {2: None, 3: None}
    for seat in (2, 3):
        deal.apply(seat, go[seat])
        advance(deal)
    while not deal.tricks:
        assert deal.notes(1), "told while the first trick is played"
        step = deal.step()
        assert isinstance(step, Decision)
        deal.apply(step.seats[0], deal.legal(step.seats[0])[0])
        advance(deal)
    assert deal.notes(1) == []


def test_a_deal_that_ends_with_one_seat_alone_says_so() -> None:
    from p2pcards.words.games import summary_text

    deal = new_deal({})
    go_in(deal, {0: (), 1: None, 2: None, 3: None})
    assert deal.result is not None
    summary = SPEC.deal_summary(deal.result)
    names = ["Ana", "Rui", "Eva", "Zé"]
    en = summary_text(SPEC, "en", summary, names.__getitem__, lambda seat, _: names[seat])
    pt = summary_text(SPEC, "pt", summary, names.__getitem__, lambda seat, _: names[seat])
    assert "Ana alone went in: the five tricks without play" in en
    assert "Ana entrou sozinho: as cinco vazas sem jogar" in pt
    # a deal with play says nothing of the kind
    played = new_deal({})
    go_in(played, {0: (), 1: (), 2: None, 3: None})
    assert not SPEC.deal_summary(play_out(played)).notes


def test_exchanging_all_five() -> None:
    deal = new_deal({})
    deal.apply(0, tuple(deal.deck.hands[0]))
    assert deal.step() == Deal(0, (20, 21, 22, 23, 24))


def test_one_player_alone_takes_five_tricks_without_play() -> None:
    deal = new_deal({})
    go_in(deal, {0: (), 1: None, 2: None, 3: None})
    assert deal.over and deal.tricks == []
    assert deal.result == {
        "played": [True, False, False, False],
        "tricks": [5, 0, 0, 0],
        "delta": [-5, 0, 0, 0],
        "scores": [15, 20, 20, 20],
        "trump_chooser": 0,
        "renuncia": None,
    }


def test_one_player_alone_with_clubs_takes_ten() -> None:
    deal = new_deal({}, trump="C")
    go_in(deal, {0: (), 1: None, 2: None, 3: None})
    assert deal.result is not None and deal.result["delta"] == [-10, 0, 0, 0]


# ---------------------------------------------------------------------- play
def test_the_chooser_leads_and_must_lead_the_ace_of_trumps() -> None:
    hands = {0: ["AS", "2H", "3H", "4H", "5H"], 1: ["AH", "7H", "KH", "JH", "QH"]}
    deal = new_deal(hands)
    go_in(deal, {0: (), 1: (), 2: None, 3: None})
    assert deal.step() == Decision((0,), PLAY)
    assert legal_cards(deal, 0) == {"AS"}
    play(deal, 0, "AS")
    play(deal, 1, "QH")  # no spades, no trumps: anything
    # the winner leads again; without the ace, anything
    assert legal_cards(deal, 0) == {"2H", "3H", "4H", "5H"}


def test_a_leader_that_is_later_given_the_lead_must_lead_the_ace() -> None:
    hands = {0: ["2H", "3D", "4D", "5D", "6D"], 1: ["AS", "AH", "KC", "QC", "JC"]}
    deal = new_deal(hands)
    go_in(deal, {0: (), 1: (), 2: None, 3: None})
    play(deal, 0, "2H")
    assert legal_cards(deal, 1) == {"AH"}  # follow suit
    play(deal, 1, "AH")
    assert legal_cards(deal, 1) == {"AS"}


def test_follow_suit_then_overtrump() -> None:
    """Cannot follow: with a trump above every trump in the trick, play one of those."""
    hands = {
        0: ["AH", "2D", "3D", "4D", "5D"],
        1: ["5S", "2S", "6D", "2C", "3C"],  # no hearts: any trump (none in the trick)
        2: ["KS", "3S", "4C", "5C", "6C"],  # no hearts: only KS beats 5S
        3: ["4S", "7C", "KC", "JD", "QD"],  # no hearts, no trump above KS: anything
    }
    deal = new_deal(hands)
    go_in(deal, {0: (), 1: (), 2: (), 3: ()})
    assert legal_cards(deal, 0) == {"AH", "2D", "3D", "4D", "5D"}
    play(deal, 0, "AH")
    assert legal_cards(deal, 1) == {"5S", "2S"}
    play(deal, 1, "5S")
    assert legal_cards(deal, 2) == {"KS"}
    play(deal, 2, "KS")
    assert legal_cards(deal, 3) == {"4S", "7C", "KC", "JD", "QD"}
    play(deal, 3, "7C")
    assert deal.tricks[-1].winner == 2
    # public inferences: seat 3 holds no trump above KS (but may hold lower ones)
    assert {"AS", "7S"} <= deal.excluded[3] and "4S" not in deal.excluded[3]
    assert "H" in deal.voids[1] and "H" in deal.voids[3]
    assert "S" not in deal.voids[3]


def test_following_suit_comes_before_trumping() -> None:
    hands = {0: ["AH", "2D", "3D", "4D", "5D"], 1: ["2H", "AS", "7S", "KS", "JS"]}
    deal = new_deal(hands)
    go_in(deal, {0: (), 1: (), 2: None, 3: None})
    play(deal, 0, "AH")
    assert legal_cards(deal, 1) == {"2H"}


def test_sitting_out_players_are_skipped() -> None:
    deal = new_deal({})
    go_in(deal, {0: (), 1: None, 2: (), 3: None})
    step = deal.step()
    assert step == Decision((0,), PLAY)
    deal.apply(0, deal.legal(0)[0])
    advance(deal)
    assert deal.step() == Decision((2,), PLAY)
    deal.apply(2, deal.legal(2)[0])
    advance(deal)
    assert len(deal.tricks) == 1
    assert deal.step() == Decision((deal.tricks[0].winner,), PLAY)


# ---------------------------------------------------------------------- scoring
def test_tricks_subtract_no_trick_adds_five_sitting_out_unchanged() -> None:
    deal = new_deal({0: FIVE_TOP_SPADES})
    go_in(deal, {0: (), 1: (), 2: (), 3: None})
    result = play_out(deal)
    assert result["tricks"] == [5, 0, 0, 0]
    assert result["delta"] == [-5, 5, 5, 0]
    assert result["scores"] == [15, 25, 25, 20]
    assert result["played"] == [True, True, True, False]


def test_clubs_double_tricks_and_the_no_trick_penalty() -> None:
    deal = new_deal({0: ["AC", "7C", "KC", "JC", "QC"]}, trump="C")
    go_in(deal, {0: (), 1: (), 2: None, 3: ()})
    result = play_out(deal)
    assert result["delta"] == [-10, 10, 0, 10]


def test_clubs_tricks_count_two_each() -> None:
    hands = {
        0: ["AC", "7C", "2H", "3H", "4H"],
        1: ["AH", "7H", "KC", "5D", "6D"],
    }
    deal = new_deal(hands, trump="C")
    go_in(deal, {0: (), 1: (), 2: None, 3: None})
    play(deal, 0, "AC")
    play(deal, 1, "KC")  # must follow clubs
    play(deal, 0, "7C")
    play(deal, 1, "5D")
    play(deal, 0, "2H")
    play(deal, 1, "AH")
    play(deal, 1, "7H")
    play(deal, 0, "3H")
    play(deal, 1, "6D")
    play(deal, 0, "4H")
    assert deal.result is not None
    assert deal.result["tricks"] == [2, 3, 0, 0]
    assert deal.result["delta"] == [-4, -6, 0, 0]


def test_renuncia_adds_ten_and_takes_no_tricks() -> None:
    """Full information: the illegal play is recorded, the deal runs to its end, the
    offender adds 10 and is credited with no tricks; the others score as played."""
    hands = {
        0: ["2H", "2D", "3D", "4D", "5D"],
        1: ["AH", "AS", "7S", "KS", "JS"],
        2: ["3H", "6D", "2C", "3C", "4C"],
    }
    deal = new_deal(hands)
    go_in(deal, {0: (), 1: (), 2: (), 3: None})
    play(deal, 0, "2H")
    play(deal, 1, "AS")  # holds AH: must follow hearts -- a renúncia
    assert deal.renuncia == 1 and not deal.over
    result = play_out(deal)
    assert result["renuncia"] == 1
    assert result["tricks"][1] == 0 and result["delta"][1] == 10
    for s in (0, 2):
        t = result["tricks"][s]
        assert result["delta"][s] == (-t if t else 5)
    assert result["delta"][3] == 0


def test_illegal_lead_without_the_ace_of_trumps_is_a_renuncia() -> None:
    deal = new_deal({0: ["AS", "2H", "3H", "4H", "5H"]})
    go_in(deal, {0: (), 1: (), 2: None, 3: None})
    play(deal, 0, "2H")
    assert deal.renuncia == 0
    assert "AS" in deal.excluded[0]


# ---------------------------------------------------------------------- evident renúncia
def _partial(
    hands: dict[int, Sequence[str]], trump: str = "S", dealer: int = DEALER, stock: Sequence[str] = ()
) -> tuple[SobeEDesceDeal, list[str]]:
    """A deal whose deck knows no card (a bystander's view): cards become known only
    when revealed, as in the distributed runtime."""
    truth = arrange(hands, dealer, stock)
    deal = SPEC.new_match({}, dealer).new_deal(None)
    assert isinstance(deal, SobeEDesceDeal)
    assert deal.deck.cards == [None] * 40
    advance(deal, truth)
    deal.apply((dealer + 1) % 4, trump)
    advance(deal, truth)
    return deal, truth


def test_evident_renuncia_a_suit_claimed_void_ends_the_deal() -> None:
    hands = {
        0: ["2H", "5D", "6D", "2C", "3C"],
        1: ["3H", "4D", "AC", "7C", "KC"],
    }
    deal, truth = _partial(hands)
    go_in(deal, {0: (), 1: (), 2: None, 3: None}, truth)
    play(deal, 0, "2H", truth)
    play(deal, 1, "4D", truth)  # holds 3H: not visible yet
    assert deal.renuncia is None and "H" in deal.voids[1]
    assert deal.tricks[0].winner == 0
    play(deal, 0, "5D", truth)
    play(deal, 1, "3H", truth)  # shows a heart: evident
    assert deal.over and deal.renuncia == 1
    assert deal.result == {
        "played": [True, True, False, False],
        "tricks": [1, 0, 0, 0],
        "delta": [-1, 10, 0, 0],
        "scores": [19, 30, 20, 20],
        "trump_chooser": 0,
        "renuncia": 1,
    }
    assert isinstance(deal.step(), End)


def test_evident_renuncia_a_trump_not_played_when_it_had_to_be() -> None:
    """Cannot follow and no trump in the trick, yet no trump played: the seat holds no
    trump; showing one later is evident."""
    hands = {
        0: ["2H", "4H", "6D", "2C", "3C"],
        1: ["2S", "4D", "5D", "7C", "KC"],
    }
    deal, truth = _partial(hands)
    go_in(deal, {0: (), 1: (), 2: None, 3: None}, truth)
    play(deal, 0, "2H", truth)
    play(deal, 1, "4D", truth)  # no hearts, holds 2S: had to trump
    assert "2S" in deal.excluded[1] and "S" in deal.voids[1]
    play(deal, 0, "4H", truth)
    play(deal, 1, "2S", truth)
    assert deal.over and deal.renuncia == 1
    assert deal.result is not None and deal.result["delta"] == [-1, 10, 0, 0]


def test_evident_renuncia_ace_of_trumps_not_led() -> None:
    hands = {
        0: ["AS", "2H", "3H", "4H", "5H"],
        1: ["6H", "7H", "KH", "JH", "QH"],
    }
    deal, truth = _partial(hands)
    go_in(deal, {0: (), 1: (), 2: None, 3: None}, truth)
    play(deal, 0, "2H", truth)  # leads without the ace of trumps
    assert "AS" in deal.excluded[0] and not deal.over
    play(deal, 1, "6H", truth)
    assert deal.tricks[0].winner == 1
    play(deal, 1, "7H", truth)
    play(deal, 0, "AS", truth)
    assert deal.over and deal.renuncia == 0
    assert deal.result is not None and deal.result["tricks"] == [0, 1, 0, 0]
    assert deal.result["delta"] == [10, -1, 0, 0]


def test_evident_renuncia_the_turned_card_is_known_held() -> None:
    """The chooser holds the public turned trump: failing to trump shows a lie at once."""
    hands = {
        0: ["2D", "5C", "6C", "4S", "QD"],  # 4S is turned
        1: ["AD", "KH", "2H", "3H", "4H"],
    }
    deal, truth = _partial(hands, trump="turn")
    assert deal.trump == "S"
    go_in(deal, {0: (), 1: (), 2: None, 3: None}, truth)
    play(deal, 0, "2D", truth)
    play(deal, 1, "AD", truth)
    play(deal, 1, "KH", truth)
    play(deal, 0, "5C", truth)  # no hearts shown, yet 4S (a trump) is in its hand
    assert deal.over and deal.renuncia == 0
    assert deal.result is not None and deal.result["delta"] == [10, -1, 0, 0]


def test_a_discarded_turned_card_is_no_contradiction() -> None:
    hands = {
        0: ["2D", "5C", "6C", "4S", "QD"],
        1: ["AD", "KH", "2H", "3H", "4H"],
    }
    deal, truth = _partial(hands, trump="turn", stock=["3D"])
    go_in(deal, {0: ("4S",), 1: (), 2: None, 3: None}, truth)
    play(deal, 0, "2D", truth)
    play(deal, 1, "AD", truth)
    play(deal, 1, "KH", truth)
    play(deal, 0, "5C", truth)  # no hearts and, the 4S discarded, no trumps: legal
    assert not deal.over and deal.renuncia is None


def test_partial_information_gives_the_same_steps_as_full() -> None:
    """The steps depend only on public facts: a bystander's deal and the full deal
    agree step by step through a random legal deal."""
    rng = random.Random(5)
    for _ in range(20):
        truth = list(PORTUGUESE_40)
        rng.shuffle(truth)
        dealer = rng.randrange(4)
        full = SPEC.new_match({}, dealer).new_deal(truth)
        part = SPEC.new_match({}, dealer).new_deal(None)
        player = RandomPlayer(rng)
        while True:
            step = full.step()
            assert part.step() == step
            if isinstance(step, End):
                assert part.result == full.result
                break
            if isinstance(step, Decision):
                seat = step.seats[0]
                choice = player.choose(SeatView(full, seat), step)
                full.apply(seat, choice)
                part.apply(seat, choice)
            else:
                if isinstance(step, Reveal):
                    for pos in step.positions:
                        part.deck.learn(pos, truth[pos])
                full.complete()
                part.complete()


# ---------------------------------------------------------------------- malformed choices
def test_malformed_choices_raise_and_change_nothing() -> None:
    deal = SPEC.new_match({}, DEALER).new_deal(list(PORTUGUESE_40))
    with pytest.raises(IllegalChoice):
        deal.apply(0, "S")  # a deck step is pending
    advance(deal)
    step = deal.step()
    for bad in ("X", None, 3, "spades", ("S",)):
        with pytest.raises(IllegalChoice):
            deal.apply(0, bad)
        assert deal.step() is step
    with pytest.raises(IllegalChoice):
        deal.apply(1, "S")  # not the chooser
    deal.apply(0, "S")
    advance(deal)
    step = deal.step()
    hand1 = deal.deck.hands[1]
    for bad in ((hand1[0],), (deal.deck.hands[0][0],) * 2, tuple(range(6)), "0", (1.0,), 5):
        with pytest.raises(IllegalChoice):
            deal.apply(0, bad)
        assert deal.step() is step
    deal.apply(0, ())
    advance(deal)
    for seat in (1, 2, 3):
        deal.apply(seat, ())
        advance(deal)
    step = deal.step()
    assert step == Decision((0,), PLAY)
    for bad in (hand1[0], "x", None, (deal.deck.hands[0][0],), 99):
        with pytest.raises(IllegalChoice):
            deal.apply(0, bad)
        assert deal.step() is step
    with pytest.raises(IllegalChoice):
        deal.apply(1, hand1[0])
    deal.apply(0, deal.legal(0)[0])


# ---------------------------------------------------------------------- the match
def test_match_winner_and_tie_breaks() -> None:
    assert match_winner([1, 3, 2, 5], [0, 0, 0, 0], 0) is None
    assert match_winner([0, 3, -1, 5], [1, 0, 2, 0], 0) == 2
    # tie on score: more tricks in the deal
    assert match_winner([0, 0, 4, 5], [1, 2, 0, 0], 3) == 1
    # tie on score and tricks: the earlier in play order from the trump chooser
    assert match_winner([0, 0, 4, 5], [2, 2, 0, 0], 3) == 0
    assert match_winner([0, 0, 4, 5], [2, 2, 0, 0], 1) == 1
    assert match_winner([4, 0, 4, 0], [0, 2, 0, 2], 2) == 3


def test_riscos_worked_example() -> None:
    assert riscos([0, 11, 2, 5], 0) == [18, -11, -2, -5]


def test_match_ends_at_zero_with_the_worked_riscos() -> None:
    """Scores 3, 11, 3, 6; seats 0, 2, 3 play; tricks 3, 1, 1 -> 0, 11, 2, 5: seat 0
    wins, riscos +18, -11, -2, -5 (the rules' worked example)."""
    hands = {
        0: ["AS", "7S", "KS", "2C", "3C"],
        2: ["AC", "JH", "QH", "6H", "5H"],
        3: ["AH", "2D", "3D", "4D", "5D"],
    }
    match = SPEC.new_match({}, DEALER)
    assert isinstance(match, SobeEDesceMatch)
    match.totals = [3, 11, 3, 6]
    deal = match.new_deal(arrange(hands))
    advance(deal)
    deal.apply(0, "S")
    advance(deal)
    assert isinstance(deal, SobeEDesceDeal)
    go_in(deal, {0: (), 1: None, 2: (), 3: ()})
    for c0, c2, c3 in (("AS", "5H", "2D"), ("7S", "6H", "3D"), ("KS", "QH", "4D")):
        play(deal, 0, c0)
        play(deal, 2, c2)
        play(deal, 3, c3)
    play(deal, 0, "2C")
    play(deal, 2, "AC")
    play(deal, 3, "5D")
    play(deal, 2, "JH")
    play(deal, 3, "AH")
    play(deal, 0, "3C")
    assert deal.result is not None
    assert deal.result["tricks"] == [3, 0, 1, 1]
    match.record(deal)
    assert match.totals == [0, 11, 2, 5]
    assert match.finished and match.winner == 0
    summary = match.summary()
    assert summary["winner"] == 0 and summary["totals"] == [0, 11, 2, 5]
    assert summary["riscos"] == [18, -11, -2, -5]
    with pytest.raises(RuntimeError):
        match.new_deal(list(PORTUGUESE_40))


def test_match_tie_at_zero_goes_to_more_tricks() -> None:
    hands = {
        0: ["AS", "7S", "2H", "3H", "4H"],
        1: ["AH", "7H", "KH", "KS", "JS"],
    }
    match = SPEC.new_match({}, DEALER)
    match.totals = [2, 3, 20, 20]
    deal = match.new_deal(arrange(hands))
    advance(deal)
    deal.apply(0, "S")
    advance(deal)
    assert isinstance(deal, SobeEDesceDeal)
    go_in(deal, {0: (), 1: (), 2: None, 3: None})
    play(deal, 0, "AS")
    play(deal, 1, "JS")
    play(deal, 0, "7S")
    play(deal, 1, "KS")
    play(deal, 0, "2H")
    play(deal, 1, "AH")
    play(deal, 1, "7H")
    play(deal, 0, "3H")
    play(deal, 1, "KH")
    play(deal, 0, "4H")
    assert deal.result is not None and deal.result["tricks"] == [2, 3, 0, 0]
    match.record(deal)
    assert match.totals == [0, 0, 20, 20]
    assert match.winner == 1
    assert match.summary()["riscos"] == [-0, 40, -20, -20]


def test_match_is_not_over_above_zero() -> None:
    match = SPEC.new_match({}, 0)
    deal = match.new_deal(list(PORTUGUESE_40))
    play_with(deal, [RandomPlayer(random.Random(s)) for s in range(4)])
    match.record(deal)
    assert not match.finished and "riscos" not in match.summary()
    assert match.dealer == 1


# ---------------------------------------------------------------------- the heuristic
def test_heuristic_trump_choice() -> None:
    choose = SobeEDesceHeuristic.choose_trump
    assert choose(["AH", "2S", "3D"]) == "H"  # the ace of trumps is a sure trick
    assert choose(["KS", "2S", "7D"]) == "S"
    assert choose(["KS", "2H", "7D"]) == "turn"
    assert choose(["2C", "3C", "AD"]) == "D"


def test_heuristic_goes_in_with_strength_and_exchanges_weak_cards() -> None:
    h = SobeEDesceHeuristic(random.Random(0))
    strong = {1: ["AS", "7S", "2H", "3H", "4D"]}
    deal = new_deal(strong)
    deal.apply(0, ())
    advance(deal)
    step = deal.step()
    assert isinstance(step, Decision) and step.may_decline
    choice = h.choose(SeatView(deal, 1), step)
    assert choice is not None
    assert sorted(deal.deck.cards[p] for p in choice) == ["2H", "3H", "4D"]  # type: ignore[type-var]
    weak = {1: ["2H", "3H", "4D", "5D", "6C"], 2: ["AS", "7S", "KS", "JS", "QS"]}
    deal = new_deal(weak)
    deal.apply(0, ())
    advance(deal)
    assert h.choose(SeatView(deal, 1), deal.step()) is None  # type: ignore[arg-type]


def test_heuristic_plays_legally_and_wins_cheaply() -> None:
    h = SobeEDesceHeuristic(random.Random(0))
    hands = {
        0: ["AH", "2D", "3D", "4D", "5D"],
        1: ["7H", "2H", "KC", "QC", "JC"],
        2: ["AD", "KH", "6C", "5C", "4C"],
        3: ["3H", "JH", "7D", "2C", "3C"],
    }
    deal = new_deal(hands, trump="C")
    go_in(deal, {0: (), 1: (), 2: (), 3: ()})
    play(deal, 0, "2D")
    step = deal.step()
    assert isinstance(step, Decision)
    # seat 1 cannot follow diamonds: it must trump, and any trump wins -- the lowest
    assert legal_cards(deal, 1) == {"KC", "QC", "JC"}
    assert deal.deck.cards[h.choose(SeatView(deal, 1), step)] == "QC"


def play_with(deal: SobeEDesceDeal, players: Sequence[Any]) -> dict[str, Any]:
    views = [SeatView(deal, s) for s in range(4)]
    while True:
        step = deal.step()
        if isinstance(step, End):
            return step.result
        if isinstance(step, Decision):
            seat = step.seats[0]
            deal.apply(seat, players[seat].choose(views[seat], step))
        else:
            deal.complete()


def test_heuristic_beats_random_players() -> None:
    deltas = [0, 0, 0, 0]
    records = list(run_arena(SPEC, {}, 60, 11, ["heuristic", "random", "random", "random"]))
    for rec in records[:-1]:
        for s in range(4):
            deltas[s] += rec["result"]["delta"][s]
    assert deltas[0] < sum(deltas[1:]) / 3, deltas


# ---------------------------------------------------------------------- arena records
def test_arena_records_pass_the_independent_rulecheck() -> None:
    for levels in (["random"] * 4, ["heuristic", "random", "heuristic", "heuristic"]):
        for rec in run_arena(SPEC, {}, 300, 2, levels):
            if rec["type"] == "deal":
                rulecheck(json.loads(json.dumps(rec)), {})


def test_rulecheck_catches_broken_records() -> None:
    recs = [r for r in run_arena(SPEC, {}, 40, 4, ["random"] * 4) if r["type"] == "deal"]
    rec = next(r for r in recs if r["tricks"])
    bad = json.loads(json.dumps(rec))
    bad["tricks"][0]["winner"] = (bad["tricks"][0]["winner"] + 1) % 4
    with pytest.raises(AssertionError, match="winner"):
        rulecheck(bad, {})
    bad = json.loads(json.dumps(rec))
    bad["result"]["delta"][0] += 1
    with pytest.raises(AssertionError):
        rulecheck(bad, {})
    bad = json.loads(json.dumps(rec))
    bad["dealer"] = (bad["dealer"] + 1) % 4
    with pytest.raises(AssertionError):
        rulecheck(bad, {})


def test_rulecheck_accepts_a_renuncia_deal() -> None:
    hands = {
        0: ["2H", "5D", "6D", "2C", "3C"],
        1: ["3H", "4D", "AC", "7C", "KC"],
    }
    deal = new_deal(hands)
    go_in(deal, {0: (), 1: (), 2: None, 3: None})
    play(deal, 0, "2H")
    play(deal, 1, "4D")
    play(deal, 0, "5D")
    play(deal, 1, "3H")
    assert deal.over and deal.renuncia == 1
    rec = deal_record(SPEC, 0, 0, deal, SobeEDesceMatch(SPEC, SPEC.resolve_options({}), deal.dealer))
    for key in ("totals", "match_over", "winner"):  # a deal on its own: no match to check it against
        del rec[key]
    rulecheck(rec, {})


# ---------------------------------------------------------------------- random playouts
class _Cheater:
    """A random player that sometimes plays any card it holds (a modified client)."""

    def __init__(self, rng: random.Random, rate: float) -> None:
        self.rng = rng
        self.rate = rate
        self.inner = RandomPlayer(rng)

    def choose(self, view: SeatView, decision: Decision) -> Any:
        if decision.kind == PLAY and self.rng.random() < self.rate:
            return self.rng.choice([p for p, _ in view.hand])
        return self.inner.choose(view, decision)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    first_dealer=st.integers(0, 3),
    cheat=st.sampled_from([0.0, 0.0, 0.05]),
)
def test_random_playouts_keep_every_rule(seed: int, first_dealer: int, cheat: float) -> None:
    rng = random.Random(seed)
    match = SPEC.new_match({}, first_dealer)
    assert isinstance(match, SobeEDesceMatch)
    players = [_Cheater(random.Random(seed + s), cheat) for s in range(4)]
    for _ in range(300):
        before = list(match.totals)
        cards = list(PORTUGUESE_40)
        rng.shuffle(cards)
        deal = match.new_deal(cards)
        assert isinstance(deal, SobeEDesceDeal)
        # record each play with the hand that made it
        hands_at_play: list[tuple[int, list[str], list[str], str]] = []
        views = [SeatView(deal, s) for s in range(4)]
        while not deal.over:
            step = deal.step()
            if isinstance(step, Decision):
                seat = step.seats[0]
                choice = players[seat].choose(views[seat], step)
                if step.kind == PLAY:
                    legal = [deal.deck.cards[p] for p in deal.legal(seat)]
                    hands_at_play.append((seat, deal.deck.hand_cards(seat), legal, deal.deck.cards[choice]))  # type: ignore[arg-type]
                deal.apply(seat, choice)
            elif not isinstance(step, End):
                deal.complete()
        result = deal.result
        assert result is not None
        owner = deal.deck.owner
        # every card dealt once: 40 positions, each owned once; discards never played
        discarded = {deal.deck.cards[p] for p in range(40) if owner[p] == DISCARD}
        played_cards = [c for _, _, _, c in hands_at_play]
        assert len(set(played_cards)) == len(played_cards)
        assert not discarded & set(played_cards)
        assert sum(len(h) for h in deal.deck.hands) + owner.count(STOCK) + len(discarded) + len(played_cards) == 40
        # every play is legal for its hand, unless it is the recorded renúncia or after it
        assert all(card in hand for _, hand, _, card in hands_at_play)
        first_bad = next((i for i, (_, _, legal, card) in enumerate(hands_at_play) if card not in legal), None)
        if first_bad is None:
            assert result["renuncia"] is None
            assert len(deal.tricks) in (0, 5)
        else:
            assert result["renuncia"] == hands_at_play[first_bad][0]
        # trick winners
        for t in deal.tricks:
            tc = [deal.deck.cards[p] for _, p in t.plays]
            trumps = [c for c in tc if c[1] == deal.trump]
            pool = trumps or [c for c in tc if c[1] == tc[0][1]]
            best = max(pool, key=lambda c: "23456QJK7A".index(c[0]))
            assert t.winner == t.plays[tc.index(best)][0]
        # scoring arithmetic
        mult = 2 if deal.trump == "C" else 1
        for s in range(4):
            t = result["tricks"][s]
            if not result["played"][s]:
                want = 0
            elif s == result["renuncia"]:
                want = 10
            else:
                want = -t * mult if t else 5 * mult
            assert result["delta"][s] == want
            assert result["scores"][s] == before[s] + want
        assert sum(result["tricks"]) <= 5
        match.record(deal)
        rulecheck(deal_record(SPEC, 0, deal.number, deal, match), {})
        # the match ends exactly when someone is at 0 or below
        assert match.finished == (min(match.totals) <= 0)
        if match.finished:
            assert match.summary()["riscos"] == riscos(match.totals, match.winner)  # type: ignore[arg-type]
            break
    assert match.finished or cheat > 0  # renúncias (+10) can keep a match going
