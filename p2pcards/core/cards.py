"""Cards, suits, ranks and the two decks (the Portuguese 40 and the French 52).

A card is a two-character string: rank in ``A23456789TJQK`` then suit in ``SHDC``
(``"7H"``, ``"TC"``, ``"QS"``).  Strings keep cards hashable, cheap and readable in
logs, JSON and test vectors; the rules code only ever looks at ``card[0]`` (rank)
and ``card[1]`` (suit).
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "Card",
    "Suit",
    "SUITS",
    "RANKS",
    "SUIT_SYMBOLS",
    "SUIT_NAMES",
    "PORTUGUESE_40",
    "FRENCH_52",
    "PT_RANK_ORDER",
    "PT_POINTS",
    "rank_of",
    "suit_of",
    "pretty",
    "parse_card",
    "make_deck",
    "strength_table",
]

Card = str
Suit = str

SUITS: Final = "SHDC"
RANKS: Final = "A23456789TJQK"
SUIT_SYMBOLS: Final = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES: Final = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
_SYMBOL_TO_SUIT: Final = {v: k for k, v in SUIT_SYMBOLS.items()}

#: Portuguese rank order, high to low: A, 7, K, J, Q, 6, 5, 4, 3, 2.
PT_RANK_ORDER: Final = "A7KJQ65432"
#: Card points of the Portuguese deck: A 11, 7 10, K 4, J 3, Q 2; 120 in all.
PT_POINTS: Final = {"A": 11, "7": 10, "K": 4, "J": 3, "Q": 2}


def rank_of(card: Card) -> str:
    """The rank character of ``card``."""
    return card[0]


def suit_of(card: Card) -> Suit:
    """The suit character of ``card``."""
    return card[1]


def make_deck(rank_order: str, suits: str = SUITS) -> tuple[Card, ...]:
    """Every card of ``rank_order`` in every suit, suit by suit, ranks high to low."""
    return tuple(r + s for s in suits for r in rank_order)


#: The Portuguese 40-card deck (no 8, 9, 10), in canonical order.
PORTUGUESE_40: Final = make_deck(PT_RANK_ORDER)
#: The French 52-card deck, in canonical order (A K Q J 10 ... 2 per suit).
FRENCH_52: Final = make_deck("AKQJT98765432")


def strength_table(rank_order: str) -> dict[str, int]:
    """Map each rank to its strength for trick resolution: higher beats lower."""
    n = len(rank_order)
    return {r: n - i for i, r in enumerate(rank_order)}


def pretty(card: Card) -> str:
    """Human form of a card: ``"7H"`` -> ``"7♥"``, ``"TC"`` -> ``"10♣"``."""
    rank = "10" if card[0] == "T" else card[0]
    return rank + SUIT_SYMBOLS[card[1]]


def parse_card(text: str) -> Card:
    """Parse ``"7H"``, ``"7h"``, ``"7♥"``, ``"10H"`` or ``"10♥"`` into a card.

    Raises ``ValueError`` with a message naming the bad text.
    """
    t = text.strip()
    if not t:
        raise ValueError("empty card")
    suit = t[-1]
    suit = _SYMBOL_TO_SUIT.get(suit, suit.upper())
    rank = t[:-1].upper()
    if rank == "10":
        rank = "T"
    if len(rank) != 1 or rank not in RANKS or suit not in SUITS:
        raise ValueError(f"not a card: {text!r} (expected rank in {RANKS} and suit in {SUITS}, e.g. 7H)")
    return rank + suit
