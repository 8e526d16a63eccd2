"""The shared core: cards, decks, positions, tricks, scoring helpers, steps."""

from __future__ import annotations

import pytest

from p2pcards.core import (
    FRENCH_52,
    PORTUGUESE_40,
    PT_POINTS,
    PT_RANK_ORDER,
    STOCK,
    Deck,
    DeckError,
    Option,
    OptionError,
    bandeira_winner,
    follow_suit,
    game_points,
    higher_trumps,
    next_dealer,
    parse_card,
    pretty,
    running_totals,
    strength_table,
    trick_winner,
)

PT = strength_table(PT_RANK_ORDER)


def test_card_notation_and_pretty_forms():
    assert pretty("7H") == "7♥" and pretty("TC") == "10♣" and pretty("QS") == "Q♠" and pretty("AD") == "A♦"
    for text, card in [("7H", "7H"), ("7h", "7H"), ("7♥", "7H"), ("10♣", "TC"), ("tc", "TC"), ("QS", "QS")]:
        assert parse_card(text) == card
    for bad in ["", "1H", "7X", "HH", "77H", "10"]:
        with pytest.raises(ValueError, match="card"):
            parse_card(bad)


def test_decks():
    assert len(PORTUGUESE_40) == 40 == len(set(PORTUGUESE_40))
    assert not any(c[0] in "89T" for c in PORTUGUESE_40)
    assert len(FRENCH_52) == 52 == len(set(FRENCH_52))
    assert sum(PT_POINTS.get(c[0], 0) for c in PORTUGUESE_40) == 120
    assert [PT[r] for r in "A7KJQ65432"] == sorted((PT[r] for r in "A7KJQ65432"), reverse=True)


def test_trick_resolution():
    assert trick_winner(["KS", "AS", "7S", "2S"], None, PT) == 1
    assert trick_winner(["KS", "AH", "7D", "2C"], "D", PT) == 2
    assert trick_winner(["KS", "2D", "AD", "AS"], "D", PT) == 2  # higher trump wins
    assert trick_winner(["KS", "AH", "AC", "QS"], "D", PT) == 0  # off-suit cards never win
    assert trick_winner(["JS", "QS"], None, PT) == 0  # jack above queen
    assert trick_winner(["6S", "7S"], None, PT) == 1  # seven second only to the ace


def test_follow_and_trump_predicates():
    assert follow_suit(["AS", "2H", "3S"], "S") == ["AS", "3S"]
    assert follow_suit(["AS", "2H"], "D") == ["AS", "2H"]
    assert higher_trumps(["2H", "KH", "AS"], ["JH", "AS"], "H", PT) == ["KH"]
    assert higher_trumps(["2H", "KH"], ["AS"], "H", PT) == ["2H", "KH"]
    assert higher_trumps(["2H"], ["AH"], "H", PT) == []


@pytest.mark.parametrize(
    ("points", "all_tricks", "all_value", "gp"),
    [(60, False, 2, 0), (61, False, 2, 1), (90, False, 2, 1), (91, False, 2, 2), (119, False, 2, 2),
     (120, False, 2, 2), (120, False, 4, 4), (120, True, 2, 4), (0, False, 2, 0)],
)
def test_game_points(points, all_tricks, all_value, gp):
    assert game_points(points, all_tricks, 120, all_value) == gp


def test_match_helpers():
    assert bandeira_winner([3, 4], 4) == 1 and bandeira_winner([3, 3], 4) is None
    assert running_totals([20, 20], [[-1, 5], [-2, 0]]) == [[19, 25], [17, 25]]
    assert [next_dealer(d, 4) for d in range(4)] == [1, 2, 3, 0]


def test_deck_positions_owners_and_knowledge():
    d = Deck(4, 6)
    assert d.card(0) is None and d.hands[0] == [] and d.owner == [STOCK] * 6
    d.move(0, 2)
    d.move(1, 2)
    assert d.hands[2] == [0, 1] and not d.knows_hand(2)
    d.learn(0, "AS")
    d.learn(0, "AS")  # learning the same card twice is fine
    with pytest.raises(DeckError):
        d.learn(0, "2S")
    d.learn(1, "2S")
    assert d.knows_hand(2) and d.hand_cards(2) == ["AS", "2S"] and d.find("2S") == 1
    d.move(0, 3)
    assert d.hands[2] == [1] and d.hands[3] == [0]
    with pytest.raises(DeckError):
        Deck.full(2, ["AS", "AS"])
    c = d.copy()
    c.move(1, 0)
    assert d.hands[2] == [1]


def test_option_parsing():
    opt = Option("target", (4, 8))
    assert opt.default == 4 and opt.parse("g", "8") == 8 and opt.parse("g", " 4 ") == 4
    with pytest.raises(OptionError, match="g: target must be 4 or 8"):
        opt.parse("g", "x")
    with pytest.raises(OptionError, match="g: hand must be 3, 5 or 7"):
        Option("hand", (3, 5, 7)).parse("g", "4")


def test_decisions_fulfil_deck_steps_between_decisions_until_the_end():
    from p2pcards.core import Decision, load_games

    spec = load_games().get("bisca")
    deal = spec.new_match(spec.resolve_options(), 1).new_deal(list(spec.deck))
    seen = 0
    for step in deal.decisions():
        assert isinstance(step, Decision) and deal.step() is step
        seat = step.seats[0]
        deal.apply(seat, deal.legal(seat)[0])
        seen += 1
    assert deal.over and seen == len(deal.tricks) * 2 >= 2  # every card played was a decision of its own


def test_a_view_hides_the_cards_of_an_event_that_names_no_seat():
    """A game's event with cards but no seat (nobody's to see) never breaks a view."""
    from p2pcards.core import SeatView, load_games

    spec = load_games().get("sueca")
    deal = spec.new_match(spec.resolve_options(), 1).new_deal(list(spec.deck))
    deal.events.append({"type": "burn", "cards": ["7H", "AS"]})
    deal.events.append({"type": "pass", "seat": 2, "to": 0, "cards": ["2C"]})
    for seat in range(4):
        burn, passed = SeatView(deal, seat).events[-2:]
        assert burn == {"type": "burn"}
        assert ("cards" in passed) == (seat in (0, 2))


def test_a_deal_step_from_a_seat_that_does_not_hold_every_position_moves_none():
    from p2pcards.core import Deal, IllegalChoice, load_games

    spec = load_games().get("sueca")
    deal = spec.new_match(spec.resolve_options(), 0).new_deal(list(spec.deck))
    deal.deck.move(5, 3)  # the fifth card of the first deal's ten is no longer in the stock
    owners = list(deal.deck.owner)
    assert isinstance(deal.step(), Deal)
    with pytest.raises(IllegalChoice, match="position 5 is not held by -1"):
        deal.complete()
    assert deal.deck.owner == owners and deal.deck.hands[1] == [], "nothing dealt"
    assert isinstance(deal.step(), Deal), "the step is still pending"


def test_a_deal_is_refused_a_deck_of_other_cards():
    from p2pcards.core import load_games

    spec = load_games().get("sueca")
    match = spec.new_match(spec.resolve_options(), 0)
    with pytest.raises(ValueError, match="not a sueca deck"):
        match.new_deal([*spec.deck[:-1], "2H" if "2H" not in spec.deck else "8H"])
    with pytest.raises(DeckError):
        match.new_deal([*spec.deck[:-1], spec.deck[0]])
    with pytest.raises(ValueError, match="not a sueca deck"):
        match.new_deal(list(spec.deck[:-1]))
