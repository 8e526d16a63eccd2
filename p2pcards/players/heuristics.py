"""Building blocks for heuristic computer players: card counting from public facts.

Pure functions over a :class:`~p2pcards.core.view.SeatView`; each game's heuristic
combines them with the tips of its rule sheet.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from p2pcards.core.cards import Card, Suit
from p2pcards.core.tricks import trick_winner
from p2pcards.core.view import SeatView

__all__ = [
    "outstanding",
    "is_top",
    "current_winner",
    "beats",
    "lowest",
    "highest",
    "cheapest",
    "by_position",
]


def outstanding(view: SeatView, deck: Iterable[Card]) -> set[Card]:
    """Cards not yet seen by this seat: not in its hand, not played, not face up."""
    seen = set(view.played)
    seen.update(view.hand_cards)
    tc = view.trump_card
    if tc is not None:
        seen.add(tc)
    return {c for c in deck if c not in seen}


def is_top(card: Card, unseen: set[Card], strength: Mapping[str, int]) -> bool:
    """Whether no unseen card of ``card``'s suit ranks higher."""
    s = strength[card[0]]
    suit = card[1]
    return not any(c[1] == suit and strength[c[0]] > s for c in unseen)


def current_winner(
    trick: Sequence[tuple[int, Card]], trump: Suit | None, strength: Mapping[str, int]
) -> tuple[int, Card]:
    """``(seat, card)`` winning the trick so far."""
    i = trick_winner([c for _, c in trick], trump, strength)
    return trick[i]


def beats(card: Card, best: Card, trump: Suit | None, strength: Mapping[str, int]) -> bool:
    """Whether ``card`` played now would beat ``best`` (the trick's winning card)."""
    if card[1] == best[1]:
        return strength[card[0]] > strength[best[0]]
    return card[1] == trump


def lowest(cards: Iterable[Card], strength: Mapping[str, int]) -> Card:
    return min(cards, key=lambda c: (strength[c[0]], c))


def highest(cards: Iterable[Card], strength: Mapping[str, int]) -> Card:
    return max(cards, key=lambda c: (strength[c[0]], c))


def cheapest(
    cards: Iterable[Card], points: Mapping[str, int], strength: Mapping[str, int], trump: Suit | None
) -> Card:
    """The card that costs least to throw away: fewest points, not a trump, lowest rank."""
    return min(cards, key=lambda c: (points.get(c[0], 0), c[1] == trump, strength[c[0]], c))


def by_position(view: SeatView, card: Card) -> int:
    """The position of one of the seat's own cards."""
    for pos, c in view.hand:
        if c == card:
            return pos
    raise KeyError(card)
