"""Bisca rules (plugins/p2pcards_bisca/game.py) on arranged decks."""

from __future__ import annotations

import pytest

from p2pcards.core import PORTUGUESE_40, SWAP, Deck, End, IllegalChoice, OptionError
from p2pcards_bisca import SPEC, BiscaDeal
from tests.helpers import arranged, finish, legal_cards, play_card, pos_of, run_until_decision


def deal_with(first: list[str], options: dict | None = None, dealer: int = 0) -> BiscaDeal:
    return BiscaDeal(dealer, SPEC.resolve_options(options or {}), Deck.full(2, arranged(PORTUGUESE_40, first)))


# dealer 0: seat 1 gets positions 0-2, seat 0 gets 3-5, position 6 is the face-up trump
FIRST = ["AS", "2S", "KH", "7S", "3C", "2H", "5H", "AH", "4C", "QD"]


def test_deal_trump_under_stock_and_dealer_leads():
    d = deal_with(FIRST)
    step = run_until_decision(d)
    assert sorted(d.deck.hand_cards(1)) == sorted(["AS", "2S", "KH"])
    assert sorted(d.deck.hand_cards(0)) == sorted(["7S", "3C", "2H"])
    assert d.trump == "H" and d.deck.cards[d.trump_card_pos] == "5H"
    assert d.stock[-1] == d.trump_card_pos, "the face-up trump is the last card drawn"
    assert step.seats == (0,), "the dealer leads the first trick"


@pytest.mark.parametrize("hand", [3, 5, 7, 9, 11])
def test_hand_sizes(hand):
    d = BiscaDeal(1, SPEC.resolve_options({"hand": str(hand)}), Deck.full(2, list(PORTUGUESE_40)))
    run_until_decision(d)
    assert len(d.deck.hands[0]) == len(d.deck.hands[1]) == hand
    assert len(d.stock) == 40 - 2 * hand
    res = finish(d)
    assert sum(res["points"]) == 120 and sum(res["tricks"]) == 20


def test_no_need_to_follow_while_stock_lasts_then_must_follow():
    d = deal_with(FIRST)
    play_card(d, 0, "7S")
    assert len(legal_cards(d, 1)) == 3  # stock not empty: anything
    # play the deal down to an empty stock
    while d.stock:
        step = run_until_decision(d)
        seat = step.seats[0]
        d.apply(seat, d.legal(seat)[0])
    step = run_until_decision(d)
    if d.trick:  # a trick was open when the stock ran out; finish it
        seat = step.seats[0]
        d.apply(seat, d.legal(seat)[0])
        step = run_until_decision(d)
    leader = step.seats[0]
    d.apply(leader, d.legal(leader)[0])
    run_until_decision(d)
    led = d.deck.cards[d.trick[0][1]][1]
    other = 1 - leader
    hand = d.deck.hand_cards(other)
    allowed = legal_cards(d, other)
    if any(c[1] == led for c in hand):
        assert all(c[1] == led for c in allowed)
    else:
        assert allowed == sorted(hand)


def test_winner_draws_first_then_other():
    d = deal_with(FIRST)
    play_card(d, 0, "7S")
    play_card(d, 1, "AS")  # seat 1 wins
    draws = [e for e in d.events if e["type"] == "draw"]
    assert [e["seat"] for e in draws] == [1, 0]
    assert draws[0]["cards"] == ["AH"] and draws[1]["cards"] == ["4C"]


def test_swap_two_of_trumps_variant():
    d = deal_with(FIRST, {"swap2": "on"})
    run_until_decision(d)
    two = pos_of(d, "2H")
    assert (SWAP, two) in d.legal(0)
    d.apply(0, (SWAP, two))
    step = run_until_decision(d)
    assert step.seats == (0,), "after the swap the same player plays"
    assert "5H" in d.deck.hand_cards(0) and "2H" not in d.deck.hand_cards(0)
    assert d.deck.cards[d.trump_card_pos] == "2H" and d.stock[-1] == two
    assert d.events[-1] == {"type": "swap", "seat": 0, "card": "2H", "took": "5H"}


def test_swap_is_off_by_default_and_checked():
    d = deal_with(FIRST)
    run_until_decision(d)
    assert not any(isinstance(c, tuple) for c in d.legal(0))
    with pytest.raises(IllegalChoice, match="swap2=off"):
        d.apply(0, (SWAP, pos_of(d, "2H")))


def test_swap_of_a_card_that_is_not_the_two_is_punished():
    d = deal_with(FIRST, {"swap2": "on"})
    run_until_decision(d)
    d.apply(0, (SWAP, pos_of(d, "7S")))  # claims 7S is the 2 of trumps
    d.complete()
    step = d.step()
    assert isinstance(step, End) and step.result["renuncia"] == 0
    assert step.result["game_points"] == [0, 4]


def test_renuncia_after_stock_gives_opponent_four():
    d = deal_with(FIRST)
    # finish the stock with first-legal plays, then make the follower revoke if it can
    while True:
        step = run_until_decision(d)
        assert not isinstance(step, End)
        seat = step.seats[0]
        if not d.stock and d.trick:
            led = d.deck.cards[d.trick[0][1]][1]
            wrong = [p for p in d.deck.hands[seat] if d.deck.cards[p][1] != led]
            right = [p for p in d.deck.hands[seat] if d.deck.cards[p][1] == led]
            if wrong and right:
                d.apply(seat, wrong[0])
                res = finish(d)
                assert res["renuncia"] == seat
                assert res["game_points"][1 - seat] == 4 and res["game_points"][seat] == 0
                return
        d.apply(seat, d.legal(seat)[0])


def test_options_validated():
    with pytest.raises(OptionError, match="bisca: hand must be 3, 5, 7, 9 or 11"):
        SPEC.resolve_options({"hand": "4"})
    with pytest.raises(OptionError, match="bisca: swap2 must be off or on"):
        SPEC.resolve_options({"swap2": "yes"})


@pytest.mark.parametrize("target", [4, 8])
def test_match_to_target(target):
    match = SPEC.new_match(SPEC.resolve_options({"target": str(target)}), 0)
    while not match.finished:
        match._score({"game_points": [0, 2], "renuncia": None})
    assert match.winner == 1 and match.totals[1] >= target
