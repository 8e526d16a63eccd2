"""Deck positions: who owns each position and which card this observer knows there.

Positions, not cards: a game moves deck *positions*; the deck tells who
knows which card sits at a position.  In full information (arena, bots' simulations,
the audit's replay) every card is known from the start.  Distributed, a peer's deck
learns a card only when it is dealt to that peer or revealed to all.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.core.cards import Card

__all__ = ["Deck", "STOCK", "PLAYED", "DISCARD", "UNKNOWN", "DeckError"]

#: Owner of positions not yet dealt (the shuffled deck, the stock).
STOCK = -1
#: Owner of positions played to a trick (face up).
PLAYED = -2
#: Owner of positions discarded face down (Sobe e Desce's exchange).
DISCARD = -3

#: What :meth:`Deck.card` returns for a position this observer does not know.
UNKNOWN: None = None


class DeckError(Exception):
    """A position was used in a way the deck does not allow (e.g. learning two cards)."""


class Deck:
    """Owners and known cards of positions ``0 .. size-1``.

    ``hands[seat]`` lists the positions a seat holds, in the order it received them.
    """

    __slots__ = ("size", "seats", "cards", "owner", "hands", "whole")

    def __init__(self, seats: int, size: int, cards: Sequence[Card] | None = None) -> None:
        if cards is not None and len(cards) != size:
            raise DeckError(f"deck of {size} positions given {len(cards)} cards")
        self.size = size
        self.seats = seats
        self.cards: list[Card | None] = list(cards) if cards is not None else [None] * size
        self.owner: list[int] = [STOCK] * size
        self.hands: list[list[int]] = [[] for _ in range(seats)]
        #: whether every card was known from the start (full information); a card once
        #: known stays known, so :meth:`knows_hand` is then true of every seat
        self.whole = cards is not None and None not in self.cards

    @classmethod
    def full(cls, seats: int, cards: Sequence[Card]) -> Deck:
        """A deck where every card is known (full information)."""
        if len(set(cards)) != len(cards):
            raise DeckError("a deck must not hold the same card twice")
        return cls(seats, len(cards), cards)

    def card(self, pos: int) -> Card | None:
        """The card at ``pos`` if this observer knows it, else ``None``."""
        return self.cards[pos]

    def learn(self, pos: int, card: Card) -> None:
        """Record that ``pos`` holds ``card`` (after a deal to us or a reveal)."""
        known = self.cards[pos]
        if known is not None and known != card:
            raise DeckError(f"position {pos} holds {known}, cannot also hold {card}")
        self.cards[pos] = card

    def move(self, pos: int, owner: int) -> None:
        """Give ``pos`` to ``owner`` (a seat, :data:`STOCK`, :data:`PLAYED` or :data:`DISCARD`)."""
        old = self.owner[pos]
        if old >= 0:
            self.hands[old].remove(pos)
        self.owner[pos] = owner
        if owner >= 0:
            self.hands[owner].append(pos)

    def give(self, positions: Sequence[int], owner: int) -> None:
        """:meth:`move` each of ``positions`` to ``owner``, in their order."""
        hands, owners = self.hands, self.owner
        for pos in positions:
            old = owners[pos]
            if old >= 0:
                hands[old].remove(pos)
            owners[pos] = owner
        if owner >= 0:  # appended after every removal: the same order as one move at a time
            hands[owner].extend(positions)

    def hand_cards(self, seat: int) -> list[Card | None]:
        """Cards at the positions ``seat`` holds (``None`` where unknown)."""
        cards = self.cards
        return [cards[p] for p in self.hands[seat]]

    def knows_hand(self, seat: int) -> bool:
        """Whether this observer knows every card ``seat`` holds."""
        # a known card is a non-empty string, so true; an unknown one is None
        return self.whole or all(map(self.cards.__getitem__, self.hands[seat]))

    def find(self, card: Card) -> int | None:
        """The position known to hold ``card``, or ``None``."""
        try:
            return self.cards.index(card)
        except ValueError:
            return None

    def copy(self) -> Deck:
        """An independent copy (for simulations)."""
        d = Deck.__new__(Deck)
        d.size, d.seats = self.size, self.seats
        d.cards = list(self.cards)
        d.owner = list(self.owner)
        d.hands = [list(h) for h in self.hands]
        d.whole = self.whole
        return d
