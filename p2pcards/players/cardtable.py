"""A deck as the batch simulator sees it (:mod:`p2pcards.players.fastsim`): cards as
integers, hands as 64-bit masks, and the rules of play beyond following suit that a game
adds (:class:`HeartsRules`, :class:`TrumpDuties`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from p2pcards.core.cards import SUITS, Card

__all__ = ["CardTable", "HeartsRules", "TrumpDuties", "cards_of_mask", "TRUMP_BONUS", "U64", "I64", "Bools"]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]
Bools = NDArray[np.bool_]

#: added to a trump's strength so that any trump beats any card of another suit
TRUMP_BONUS: int = 1000


@dataclass(frozen=True)
class HeartsRules:
    """Copas' rules of play beyond following suit, as sets of cards: ``breaking`` cards
    break hearts when played (a heart, the queen of spades); ``unled`` cards may not be
    led before then unless the hand holds nothing else (the hearts); ``first_barred``
    cards may not be thrown on the first trick unless the hand holds nothing else (the
    point cards); ``points`` gives each card's points (those of the deck's ranks are not
    used)."""

    breaking: frozenset[Card]
    unled: frozenset[Card]
    first_barred: frozenset[Card]
    points: Mapping[Card, int]


@dataclass(frozen=True)
class TrumpDuties:
    """Sobe e Desce's duties with trumps: ``lead_ace``, a leader holding the ace of trumps
    must lead it; ``overtrump``, a player who cannot follow suit and holds a trump higher
    than every trump in the trick (any trump when there is none) must play one of those."""

    lead_ace: bool = True
    overtrump: bool = True


class CardTable:
    """A deck seen as integers: card ``i`` is ``deck[i]``, with its suit, strength and points.

    ``suit_mask[s]`` has the bits of the cards of suit ``s``; the extra last entry is empty
    (the "no suit led" of an empty trick, where any card may be played).
    """

    def __init__(
        self, deck: Sequence[Card], strength: Mapping[str, int], points: Mapping[str, int], suits: str = SUITS,
        hearts: HeartsRules | None = None, duties: TrumpDuties | None = None, swap_two: bool = False,
    ) -> None:
        if not 0 < len(deck) <= 64:
            raise ValueError(f"a deck of {len(deck)} cards does not fit 64-bit hands")
        if len(set(deck)) != len(deck):
            raise ValueError("a deck must not hold the same card twice")
        self.deck: tuple[Card, ...] = tuple(deck)
        self.suits = suits
        self.ids: dict[Card, int] = {c: i for i, c in enumerate(self.deck)}
        n = len(self.deck)
        self.suit: I64 = np.array([suits.index(c[1]) for c in self.deck], dtype=np.int64)
        self.strength: I64 = np.array([strength[c[0]] for c in self.deck], dtype=np.int64)
        if int(self.strength.min()) < 0 or int(self.strength.max()) >= TRUMP_BONUS:
            raise ValueError("card strengths must lie in 0..999")
        if hearts is None:
            self.points: I64 = np.array([points.get(c[0], 0) for c in self.deck], dtype=np.int64)
        else:
            self.points = np.array([hearts.points.get(c, 0) for c in self.deck], dtype=np.int64)
        #: the game's :class:`HeartsRules` (None: none), and their card sets as masks
        self.hearts = hearts
        self.breaking = np.uint64(self.mask(sorted(hearts.breaking)) if hearts else 0)
        self.unled = np.uint64(self.mask(sorted(hearts.unled)) if hearts else 0)
        self.first_barred = np.uint64(self.mask(sorted(hearts.first_barred)) if hearts else 0)
        #: the game's :class:`TrumpDuties` (None: none); per trump suit, its ace, and the
        #: trumps at least as strong as each strength
        self.duties = duties
        top = int(self.strength.max()) + 2
        aces = [0] * (len(suits) + 1)
        above = [[0] * top for _ in range(len(suits) + 1)]
        for i, c in enumerate(self.deck):
            k = suits.index(c[1])
            if c[0] == "A":
                aces[k] |= 1 << i
            for v in range(int(self.strength[i]) + 1):
                above[k][v] |= 1 << i
        self.trump_ace: U64 = np.array(aces, dtype=np.uint64)
        self.trumps_from: U64 = np.array(above, dtype=np.uint64)
        self.bit: U64 = np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))
        masks = [0] * (len(suits) + 1)
        for i, c in enumerate(self.deck):
            masks[suits.index(c[1])] |= 1 << i
        self.suit_mask: U64 = np.array(masks, dtype=np.uint64)
        self.no_suit = len(suits)
        higher = [0] * n
        for i, c in enumerate(self.deck):
            for j, d in enumerate(self.deck):
                if d[1] == c[1] and strength[d[0]] > strength[c[0]]:
                    higher[i] |= 1 << j
        #: per card, the cards of its suit that beat it
        self.higher: U64 = np.array(higher, dtype=np.uint64)
        #: whether the seat to play swaps the 2 of trumps it holds for the face-up trump card
        #: (the last card of the stock) while the stock lasts (Bisca's swap2=on); each suit's 2
        self.swap_two = swap_two
        self.two_of: I64 = np.array([self.ids.get("2" + s, -1) for s in suits] + [-1], dtype=np.int64)
        #: the greedy players' tables of this card table, made on first use (fastsim)
        self._greedy: object | None = None

    def mask(self, cards: Sequence[Card]) -> int:
        """The bitmask of ``cards``."""
        out = 0
        for c in cards:
            out |= 1 << self.ids[c]
        return out

    def suit_index(self, suit: str | None) -> int:
        """The index of ``suit`` (``-1`` for no trumps)."""
        return -1 if suit is None else self.suits.index(suit)


def cards_of_mask(table: CardTable, mask: int) -> list[Card]:
    """The cards whose bits are set in ``mask``, in deck order."""
    return [c for i, c in enumerate(table.deck) if mask >> i & 1]
