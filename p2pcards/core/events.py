"""A deal's events: what happened, in the vocabulary of the arena's records and the engine
protocol (protocol/ENGINE.md, "Events"), as typed mappings.

An event stays a plain mapping (a :class:`~typing.TypedDict` is a ``dict`` at run time):
``arena --json``, the history's exports and the engine carry it as JSON, and the screens read
its fields by name.  The types say which fields each kind has, in the order the JSON shows
them (``type`` and ``seat`` first):

* :class:`PlayEvent` and :class:`DrawEvent` -- the core's own (a card played, cards drawn
  from the stock);
* :class:`TrumpEvent`, :class:`SwapEvent`, :class:`PassEvent`, :class:`GoInEvent` -- the
  kinds the built-in games record, which text mode, the sampler of the search player and
  the engine know;
* :class:`GameEvent` -- any other kind a game records with ``DealState._event(KIND, seat,
  **fields)``: ``type`` and ``seat``, then whatever fields the game gives it.

A deal records an event with :meth:`DealState._record
<p2pcards.core.deal.DealState._record>` (a typed one) or ``_event`` (a game's own kind).
``cards`` of draws, passes and exchanges are private: :attr:`SeatView.events
<p2pcards.core.view.SeatView.events>` leaves them out for other seats.

>>> PlayEvent(type="play", seat=2, card="7H")
{'type': 'play', 'seat': 2, 'card': '7H'}
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

from p2pcards.core.cards import Card

__all__ = ["PlayEvent", "DrawEvent", "TrumpEvent", "SwapEvent", "PassEvent", "GoInEvent", "GameEvent", "Event"]


class PlayEvent(TypedDict):
    """``seat`` played ``card``."""

    type: Literal["play"]
    seat: int
    card: Card


class DrawEvent(TypedDict):
    """``seat`` drew ``cards`` from the stock (private)."""

    type: Literal["draw"]
    seat: int
    cards: list[Card | None]


class TrumpEvent(TypedDict):
    """Trumps are set: by the card shown (``card``: Sueca's dealer's card, Bisca's under the
    stock) or, where a seat chooses (Sobe e Desce), by its ``choice`` -- a suit letter, or
    ``"turn"`` and the turned ``card`` (None when it named a suit)."""

    type: Literal["trump"]
    seat: int
    choice: NotRequired[str]
    card: Card | None


class SwapEvent(TypedDict):
    """``seat`` exchanged ``card`` (the 2 of trumps) for the face-up trump card ``took``."""

    type: Literal["swap"]
    seat: int
    card: Card | None
    took: Card | None


class PassEvent(TypedDict):
    """``seat`` passed ``cards`` to ``to`` (private to both)."""

    type: Literal["pass"]
    seat: int
    to: int
    cards: list[Card | None]


class GoInEvent(TypedDict):
    """``seat`` said whether it ``plays``; going in, it exchanged ``exchange`` cards,
    discarding ``cards`` (private)."""

    type: Literal["go_in"]
    seat: int
    plays: bool
    exchange: int
    cards: list[Card | None]


class GameEvent(TypedDict):
    """An event of a game's own kind: ``type`` and ``seat``, and (not typed here) the fields
    the game gave ``DealState._event``."""

    type: str
    seat: int


#: An event a deal records, of whichever kind.
Event: TypeAlias = PlayEvent | DrawEvent | TrumpEvent | SwapEvent | PassEvent | GoInEvent | GameEvent
