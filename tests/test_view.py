"""A seat's view shows its information set and nothing more, even over a full-information deal."""

from __future__ import annotations

from p2pcards.core import PORTUGUESE_40, Deck, SeatView, load_games
from tests.helpers import play_card, run_until_decision

SUECA = load_games().get("sueca")


def test_view_shows_own_hand_and_public_cards_only():
    from p2pcards_sueca import SuecaDeal

    d = SuecaDeal(0, SUECA.resolve_options({}), Deck.full(4, list(PORTUGUESE_40)))
    run_until_decision(d)
    v1 = SeatView(d, 1, match_totals=(1, 2))
    own = {p for p, _ in v1.hand}
    assert own == set(d.deck.hands[1]) and len(v1.hand_cards) == 10
    others = [p for s in (0, 2, 3) for p in d.deck.hands[s]]
    trump_pos = d.trump_card_pos
    assert v1.card(trump_pos) == d.deck.cards[trump_pos], "the dealer's trump card is public"
    assert all(v1.card(p) is None for p in others if p != trump_pos), "other hands stay hidden"
    assert v1.trump == d.trump and v1.trump_card == d.deck.cards[trump_pos]
    assert v1.match_totals == (1, 2) and v1.dealer == 0 and v1.seats == 4
    lead = d.deck.cards[d.deck.hands[1][0]]
    play_card(d, 1, lead)
    v2 = SeatView(d, 2)
    assert v2.trick == [(1, lead)] and v2.played == [lead]
    assert v2.card(d.deck.find(lead)) == lead
    assert v2.hand_size(1) == 9 and v2.stock_count == 0
    assert v2.legal == d.legal(2) and v2.decision is not None and v2.decision.seats == (2,)
    assert v1.legal == [], "not seat 1's turn"


def test_view_hides_other_seats_passed_and_drawn_cards():
    copas = load_games().get("copas")
    match = copas.new_match(copas.resolve_options({}), 0)
    d = match.new_deal(list(copas.deck))
    step = run_until_decision(d)
    for seat in step.seats:
        d.apply(seat, tuple(d.deck.hands[seat][:3]))
    run_until_decision(d)
    passes = [e for e in SeatView(d, 0).events if e["type"] == "pass"]
    assert len(passes) == 4
    for ev in passes:
        assert ("cards" in ev) == (0 in (ev["seat"], ev["to"])), ev
