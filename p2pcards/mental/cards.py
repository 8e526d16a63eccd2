"""Card names and the decks used by tests, vectors and the benchmark.

A card is two characters: a rank from ``A23456789TJQK`` and a suit from ``SHDC``
("7H", "TC", "QS").  The mental deck treats a deck as an ordered list of distinct cards
given by the caller; its order is the order of the card encodings before the shuffle.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from p2pcards.mental.errors import LocalError

__all__ = ["FRENCH_DECK", "PORTUGUESE_DECK", "RANKS", "SUITS", "check_deck", "standard_deck"]

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"

PORTUGUESE_DECK: Final = tuple(rank + suit for suit in SUITS for rank in "A7KJQ65432")
"""The 40-card deck: ranks A, 7, K, J, Q, 6, 5, 4, 3, 2 of each suit."""

FRENCH_DECK: Final = tuple(rank + suit for suit in SUITS for rank in RANKS)
"""The 52-card deck: ranks A to K of each suit."""

MAX_DECK: Final = 1 << 16
"""Upper bound on the number of cards (positions are small integers on the wire)."""


def check_deck(deck: Sequence[str]) -> tuple[str, ...]:
    """Return ``deck`` as a tuple after checking every card's name and that none repeats."""
    if isinstance(deck, str) or not 1 <= len(deck) < MAX_DECK:
        raise LocalError("a deck is a non-empty list of card names")
    for card in deck:
        if type(card) is not str or len(card) != 2 or card[0] not in RANKS or card[1] not in SUITS:
            raise LocalError(f"not a card name: {card!r}")
    if len(set(deck)) != len(deck):
        raise LocalError("a card appears twice in the deck")
    return tuple(deck)


def standard_deck(size: int) -> tuple[str, ...]:
    """A deck of ``size`` cards: the Portuguese deck for 40, else the first of the French."""
    if size == len(PORTUGUESE_DECK):
        return PORTUGUESE_DECK
    if not 1 <= size <= len(FRENCH_DECK):
        raise LocalError(f"no standard deck of {size} cards")
    return FRENCH_DECK[:size]
