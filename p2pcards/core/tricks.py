"""What every trick-taking game shares: trick resolution and the follow/trump predicates.

Common to every game here: the highest trump wins a trick; without trumps, the highest
card of the suit led.  Predicates here are pure functions of cards; games combine them
into their own legality rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import NamedTuple

from p2pcards.core.cards import Card, Suit

__all__ = [
    "Trick",
    "trick_winner",
    "follow_suit",
    "higher_trumps",
    "card_points",
]


class Trick(NamedTuple):
    """A finished trick: who led, ``(seat, position)`` plays in order, and the winner (a
    named tuple: a deal makes ten of them, and a tuple is made at half a frozen
    dataclass's cost)."""

    leader: int
    plays: tuple[tuple[int, int], ...]
    winner: int


def trick_winner(cards: Sequence[Card], trump: Suit | None, strength: Mapping[str, int]) -> int:
    """Index (in play order) of the card that wins a trick.

    The highest trump wins; without trumps, the highest card of the suit led.
    ``strength`` maps a rank character to its strength (higher wins).
    """
    best = 0
    best_card = cards[0]
    for i in range(1, len(cards)):
        c = cards[i]
        if c[1] == best_card[1]:
            if strength[c[0]] > strength[best_card[0]]:
                best, best_card = i, c
        elif c[1] == trump:
            best, best_card = i, c
    return best


def follow_suit(hand: Sequence[Card], led: Suit) -> list[Card]:
    """Cards a player must choose from when following suit is compulsory.

    Those of the suit led if it has any, else the whole hand.
    """
    same = [c for c in hand if c[1] == led]
    return same if same else list(hand)


def higher_trumps(
    hand: Iterable[Card], trick: Iterable[Card], trump: Suit, strength: Mapping[str, int]
) -> list[Card]:
    """Trumps in ``hand`` higher than every trump already in ``trick`` (any trump if none)."""
    top = max((strength[c[0]] for c in trick if c[1] == trump), default=-1)
    return [c for c in hand if c[1] == trump and strength[c[0]] > top]


def card_points(cards: Iterable[Card], points: Mapping[str, int]) -> int:
    """Sum of the card points of ``cards`` under a rank -> points table."""
    return sum(points.get(c[0], 0) for c in cards)
