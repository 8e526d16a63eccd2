"""Sueca rules (plugins/p2pcards_sueca/game.py) on arranged decks."""

from __future__ import annotations

import pytest

from p2pcards.core import PORTUGUESE_40, Deck, End, IllegalChoice, OptionError, Reveal
from p2pcards_sueca import SPEC, SuecaDeal
from tests.helpers import arranged, finish, legal_cards, play_card, pos_of, run_until_decision

# seat 1 gets positions 0-9, seat 2 10-19, seat 3 20-29, the dealer (seat 0) 30-39
HANDS = {
    1: ["AS", "7S", "2S", "KH", "JH", "QH", "6H", "5H", "4H", "3H"],
    2: ["KS", "JS", "QS", "6S", "5S", "4S", "3S", "2H", "AD", "7D"],
    3: ["AC", "7C", "KC", "JC", "QC", "6C", "5C", "4C", "3C", "2C"],
    0: ["AH", "7H", "KD", "JD", "QD", "6D", "5D", "4D", "3D", "2D"],
}


def deal_with(options: dict | None = None, dealer: int = 0, multiplier: int = 1) -> SuecaDeal:
    order = [(dealer + 1 + k) % 4 for k in range(4)]
    cards = arranged(PORTUGUESE_40, [c for s in order for c in HANDS[s]])
    opts = SPEC.resolve_options(options or {})
    return SuecaDeal(dealer, opts, Deck.full(4, cards), multiplier=multiplier)


def test_deal_ten_each_and_trump_is_dealers_last_card_kept_in_hand():
    d = deal_with()
    run_until_decision(d)
    for seat in range(4):
        assert sorted(d.deck.hand_cards(seat)) == sorted(HANDS[seat])
    assert d.trump == "D"  # 2D is the dealer's last card
    assert d.deck.cards[d.trump_card_pos] == "2D"
    assert d.deck.owner[d.trump_card_pos] == 0


def test_variant_first_card_sets_trumps():
    d = deal_with({"trump_card": "first"})
    run_until_decision(d)
    assert d.trump == "H" and d.deck.cards[d.trump_card_pos] == "AH"


def test_trump_card_reveal_is_a_public_step_of_the_dealer():
    d = deal_with(dealer=2)
    steps = []
    while not isinstance(d.step(), Reveal):
        steps.append(d.step())
        d.complete()
    assert d.step() == Reveal((39,), 2)
    assert [s.seat for s in steps] == [3, 0, 1, 2]


def test_player_after_dealer_leads_and_follow_suit_is_required():
    d = deal_with()
    step = run_until_decision(d)
    assert step.seats == (1,)
    assert len(legal_cards(d, 1)) == 10  # leader plays anything
    play_card(d, 1, "AS")
    assert legal_cards(d, 2) == sorted(["KS", "JS", "QS", "6S", "5S", "4S", "3S"])


def test_no_obligation_to_trump_when_void():
    d = deal_with()
    play_card(d, 1, "AS")
    play_card(d, 2, "KS")
    # seat 3 has only clubs: any card, trumps (diamonds) not required
    assert len(legal_cards(d, 3)) == 10


def test_worked_example_trumping_team_takes_13_points():
    # hearts trumps, order 3,1,2,4: AS, 2S, QS, 4H -> the trumper's team, 13 points
    from p2pcards.core import PT_POINTS, PT_RANK_ORDER, strength_table, trick_winner

    cards = ["AS", "2S", "QS", "4H"]
    i = trick_winner(cards, "H", strength_table(PT_RANK_ORDER))
    assert i == 3
    assert sum(PT_POINTS.get(c[0], 0) for c in cards) == 13


def test_trick_winner_leads_next_and_points_sum_to_120():
    d = deal_with()
    res = finish(d)
    assert sum(res["points"]) == 120 and sum(res["tricks"]) == 10
    for prev, nxt in zip(d.tricks, d.tricks[1:]):
        assert nxt.leader == prev.winner


@pytest.mark.parametrize(
    ("points", "tricks", "all_points", "expected"),
    [
        ((61, 59), (5, 5), 2, [1, 0]),
        ((90, 30), (6, 4), 2, [1, 0]),
        ((91, 29), (6, 4), 2, [2, 0]),
        ((119, 1), (9, 1), 2, [2, 0]),
        ((120, 0), (9, 1), 2, [2, 0]),
        ((120, 0), (9, 1), 4, [4, 0]),
        ((120, 0), (10, 0), 2, [4, 0]),
        ((60, 60), (5, 5), 2, [0, 0]),
        ((30, 90), (4, 6), 2, [0, 1]),
    ],
)
def test_game_points_table(points, tricks, all_points, expected, monkeypatch):
    d = deal_with({"all_points": str(all_points)})
    monkeypatch.setattr(d, "taken_points", lambda s: points[s % 2] if s < 2 else 0)
    monkeypatch.setattr(d, "trick_counts", lambda: [tricks[0], tricks[1], 0, 0])
    assert d._result()["game_points"] == expected


def test_renuncia_gives_opponents_four():
    d = deal_with()
    play_card(d, 1, "AS")
    play_card(d, 2, "2H")  # holds spades: renúncia by team 0 (seat 2)
    res = finish(d)
    assert res["renuncia"] == 2
    assert res["game_points"] == [0, 4]


def test_evident_renuncia_ends_deal_at_once_with_partial_information():
    # seat 3 holds one heart (3H); the observer is seat 0 and knows only its own cards,
    # learning the others' cards as they are shown, as a distributed peer does
    hands = {s: list(h) for s, h in HANDS.items()}
    hands[1][hands[1].index("3H")] = "2C"
    hands[3][hands[3].index("2C")] = "3H"
    cards = arranged(PORTUGUESE_40, [c for s in (1, 2, 3, 0) for c in hands[s]])
    d = SuecaDeal(0, SPEC.resolve_options({}), Deck(4, 40))
    for pos in range(30, 40):
        d.deck.learn(pos, cards[pos])

    def show_and_play(seat, card):
        run_until_decision(d)
        pos = cards.index(card)
        d.apply(seat, pos)
        d.deck.learn(pos, card)  # the holder's reveal
        d.complete()

    run_until_decision(d)
    for seat, card in [(1, "KH"), (2, "2H"), (3, "AC"), (0, "AH")]:
        show_and_play(seat, card)
    assert "H" in d.voids[3] and d.renuncia is None  # not evident yet: 3H is hidden
    for seat, card in [(0, "7H"), (1, "JH"), (2, "KS"), (3, "7C"), (0, "KD"), (1, "2C"), (2, "AD")]:
        show_and_play(seat, card)
    assert d.renuncia is None
    show_and_play(3, "3H")  # a heart from the seat that failed to follow hearts
    step = d.step()
    assert isinstance(step, End), "an evident renúncia ends the deal at once"
    assert len(d.tricks) == 2
    assert step.result["renuncia"] == 3
    assert step.result["game_points"] == [4, 0]


def test_full_information_replay_finds_the_hidden_renuncia_first():
    hands = {s: list(h) for s, h in HANDS.items()}
    hands[1][hands[1].index("3H")] = "2C"
    hands[3][hands[3].index("2C")] = "3H"
    cards = arranged(PORTUGUESE_40, [c for s in (1, 2, 3, 0) for c in hands[s]])
    d = SuecaDeal(0, SPEC.resolve_options({}), Deck.full(4, cards))
    play_card(d, 1, "KH")
    play_card(d, 2, "2H")
    play_card(d, 3, "AC")  # renúncia, known at once with every hand known
    assert d.renuncia == 3
    assert not isinstance(d.step(), End), "a hidden renúncia does not stop play"


def test_tie_double_variant_doubles_next_deal():
    match = SPEC.new_match(SPEC.resolve_options({"tie": "double"}), 0)
    match._score({"points": [60, 60], "game_points": [0, 0], "renuncia": None})
    assert match.multiplier == 2
    nxt = match.new_deal(list(PORTUGUESE_40))
    assert nxt.multiplier == 2
    plain = SPEC.new_match(SPEC.resolve_options({}), 0)
    plain._score({"points": [60, 60], "game_points": [0, 0], "renuncia": None})
    assert plain.multiplier == 1


@pytest.mark.parametrize("target", [4, 8])
def test_match_ends_at_target(target):
    match = SPEC.new_match(SPEC.resolve_options({"target": str(target)}), 3)
    dealers = []
    while not match.finished:
        dealers.append(match.dealer)
        match._score({"points": [70, 50], "game_points": [1, 0], "renuncia": None})
        match.deal_number += 1
        match.dealer = (match.dealer + 1) % 4
    assert match.totals == [target, 0] and match.winner == 0
    assert dealers[:4] == [3, 0, 1, 2]


def test_options_are_validated_with_clear_errors():
    with pytest.raises(OptionError, match="sueca: target must be 4 or 8"):
        SPEC.resolve_options({"target": "9"})
    with pytest.raises(OptionError, match="unknown option 'colour'"):
        SPEC.resolve_options({"colour": "red"})
    assert SPEC.resolve_options({}) == {"trump_card": "last", "target": 4, "all_points": 2, "tie": "none"}


def test_malformed_choices_are_rejected_and_change_nothing():
    d = deal_with()
    run_until_decision(d)
    before = list(d.deck.owner)
    for bad in (99, "AS", None, pos_of(d, "KS")):  # KS belongs to seat 2
        with pytest.raises(IllegalChoice):
            d.apply(1, bad)
        assert d.deck.owner == before
    with pytest.raises(IllegalChoice):
        d.apply(2, pos_of(d, "KS"))  # not seat 2's turn
