"""How cards look on the screens: card labels and colours, hand order.  A game's words in
a language are in :mod:`p2pcards.words.games`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from p2pcards.core import Card, pretty

__all__ = ["SUIT_ORDER", "card_label", "is_red", "sort_hand"]

#: Suits in the hand from left to right: colours alternate (♠ ♥ ♣ ♦).
SUIT_ORDER = "SHCD"

def card_label(card: Card) -> str:
    """Rank and suit symbol together: ``"7H"`` -> ``"7♥"``, ``"TC"`` -> ``"10♣"``."""
    return pretty(card)


def is_red(card_or_suit: str) -> bool:
    """Hearts and diamonds are red."""
    return card_or_suit[-1] in "HD"


def sort_hand(hand: Sequence[tuple[int, Card]], strength: Mapping[str, int]) -> list[tuple[int, Card]]:
    """``(position, card)`` sorted by suit (:data:`SUIT_ORDER`), then rank from high to low."""
    return sorted(hand, key=lambda pc: (SUIT_ORDER.index(pc[1][1]), -strength.get(pc[1][0], 0), pc[0]))
