"""A seat's information set: what one seat may know of a deal, and nothing more.

Bots receive a :class:`SeatView` and never the state; the same view will drive the
distributed runtime and the terminal UI.  Everything here is either the seat's own hand
or public: the trump, face-up cards, tricks, known voids, events, match scores.  A card
is read from the deck only at a position the seat holds or one shown to everyone, so,
given the seat's own cards, the view is the same whatever else the observer's deck knows
(full information, another seat's hand, or nothing but public cards).

A *dummy* view (``dummy=True``, a seat voted out of a network table whose cards are open)
is the seat's information set as every peer can compute it: public facts and the cards it
holds now, but none of its earlier private cards (what it passed, discarded or drew), which
not every peer may have seen.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from p2pcards.core.cards import Card, Suit
from p2pcards.core.choices import Legal, Plain
from p2pcards.core.deal import DealState
from p2pcards.core.deck import DISCARD, PLAYED, STOCK
from p2pcards.core.options import OptionValue
from p2pcards.core.steps import Decision

__all__ = ["SeatView", "Chooser"]


class SeatView:
    """Read-only view of ``state`` for ``seat`` (lazy: computed on access).

    ``dummy``: the view of a dummy seat (module docstring): events carry no cards.
    """

    __slots__ = ("_state", "seat", "match_totals", "dummy")

    def __init__(
        self, state: DealState, seat: int, match_totals: Sequence[int] = (), *, dummy: bool = False
    ) -> None:
        self._state = state
        self.seat = seat
        self.match_totals = tuple(match_totals)
        self.dummy = dummy

    # -- the seat's own cards
    @property
    def hand(self) -> list[tuple[int, Card]]:
        """``(position, card)`` for every card the seat holds."""
        st = self._state
        cards = st.deck.cards
        return [(p, cards[p]) for p in st.deck.hands[self.seat]]  # type: ignore[misc]

    @property
    def hand_cards(self) -> list[Card]:
        return [c for _, c in self.hand]

    @property
    def dealt(self) -> list[Card]:
        """The cards the seat was dealt at the deal's start, before any pass, exchange, draw
        or play (while the dealing goes on: those it holds)."""
        st = self._state
        if st.hands_at_start is None:
            return self.hand_cards
        return [c for c in st.hands_at_start[self.seat] if c is not None]

    def card(self, pos: int) -> Card | None:
        """The card at ``pos`` if it is the seat's own or public."""
        st = self._state
        owner = st.deck.owner[pos]
        if owner == self.seat or pos in self._state.shown:
            return st.deck.cards[pos]
        return None

    @property
    def legal(self) -> list[Legal]:
        """The seat's legal choices now, in their plain form (:meth:`DealState.legal`)."""
        return self._state.legal(self.seat)

    @property
    def decision(self) -> Decision | None:
        step = self._state.step()
        return step if isinstance(step, Decision) else None

    # -- public facts
    @property
    def seats(self) -> int:
        return self._state.seats

    @property
    def dealer(self) -> int:
        return self._state.dealer

    @property
    def options(self) -> dict[str, OptionValue]:
        return dict(self._state.options)

    @property
    def trump(self) -> Suit | None:
        return self._state.trump

    @property
    def trump_card(self) -> Card | None:
        """The face-up trump card while it is still public and unplayed, else None."""
        st = self._state
        pos = st.trump_card_pos
        if pos is None or pos not in st.shown or st.deck.owner[pos] in (PLAYED, DISCARD):
            return None
        return st.deck.cards[pos]

    @property
    def active(self) -> list[int]:
        return list(self._state.active)

    @property
    def leader(self) -> int | None:
        return self._state.leader

    @property
    def trick(self) -> list[tuple[int, Card]]:
        """The current trick: ``(seat, card)`` in play order."""
        cards = self._state.deck.cards
        return [(s, cards[p]) for s, p in self._state.trick]  # type: ignore[misc]

    @property
    def tricks(self) -> list[tuple[int, list[tuple[int, Card]], int]]:
        """Finished tricks: ``(leader, [(seat, card)...], winner)``."""
        cards = self._state.deck.cards
        return [
            (t.leader, [(s, cards[p]) for s, p in t.plays], t.winner)  # type: ignore[misc]
            for t in self._state.tricks
        ]

    @property
    def played(self) -> list[Card]:
        """Every card played so far in this deal, in order (tricks, then current trick)."""
        cards = self._state.deck.cards
        out = [cards[p] for t in self._state.tricks for _, p in t.plays]
        out.extend(cards[p] for _, p in self._state.trick)
        return out  # type: ignore[return-value]

    @property
    def public_positions(self) -> frozenset[int]:
        """Positions shown to everyone so far (plays, trump cards, turned cards)."""
        return frozenset(self._state.shown)

    def voids(self, seat: int) -> frozenset[Suit]:
        """Suits ``seat`` has shown it lacks (it failed to follow when it had to)."""
        return frozenset(self._state.voids[seat])

    def excluded(self, seat: int) -> frozenset[Card]:
        """Cards ``seat`` has shown it cannot hold (beyond whole void suits)."""
        return frozenset(self._state.excluded[seat])

    def hand_size(self, seat: int) -> int:
        return len(self._state.deck.hands[seat])

    @property
    def stock_count(self) -> int:
        return self._state.deck.owner.count(STOCK)

    @property
    def tricks_won(self) -> list[int]:
        return self._state.trick_counts()

    @property
    def points_won(self) -> list[int]:
        """Card points taken so far by each seat (public: won cards are face up)."""
        return [self._state.taken_points(s) for s in range(self.seats)]

    @property
    def events(self) -> list[Mapping[str, Any]]:
        """Public events (plays, trump choices, going in...: :mod:`p2pcards.core.events`).
        Pass, draw and exchange events carry their cards only for the seat that gave or
        received them, and never in a dummy view (those cards were private when the event
        happened).  (Read as plain mappings: the screens look their fields up by name.)"""
        out: list[Mapping[str, object]] = []
        me = self.seat
        dummy = self.dummy
        for ev in self._state.events:
            if "cards" in ev and (dummy or (ev.get("seat") != me and ev.get("to") != me)):
                out.append({k: v for k, v in ev.items() if k != "cards"})
            else:
                out.append(ev)
        return out

    def extra(self, name: str, default: object = None) -> object:
        """A game-specific public fact (e.g. Sobe e Desce scores, ``trump_chooser``)."""
        return self._state.public_info().get(name, default)


class Chooser(Protocol):
    """What decides for a seat from its view: a game's heuristic player (what
    :attr:`GameSpec.heuristic_class <p2pcards.core.spec.GameSpec.heuristic_class>` builds),
    any computer player (:class:`p2pcards.players.Player`), a person's screen.  It answers
    with one of ``view.legal``'s choices, in their plain form (or, for a pick, a tuple of
    positions, or None to decline)."""

    def choose(self, view: SeatView, decision: Decision) -> Plain: ...
