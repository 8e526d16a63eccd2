"""The steps of a deal and the kinds of decision (formats in :mod:`p2pcards.core`'s
docstring, "Choice formats"; a choice's values in :mod:`p2pcards.core.choices`).

The driver asks :meth:`DealState.step <p2pcards.core.deal.DealState.step>` for the
pending step and fulfils it: :class:`Deal`, :class:`Reveal`, :class:`Locate`,
:class:`Decision` or :class:`End`.  A malformed choice raises :class:`IllegalChoice`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

from p2pcards.core.cards import Card
from p2pcards.core.deck import STOCK

__all__ = [
    "Deal", "Reveal", "Locate", "Decision", "End", "Step", "IllegalChoice",
    "PLAY", "TRUMP", "PASS", "GO_IN", "SWAP", "DealResult",
]

PLAY = "play"
TRUMP = "trump"
PASS = "pass"
GO_IN = "go_in"
SWAP = "swap"

#: A deal's result, JSON-ready: the fields its game gives (each game types its own), and
#: ``renuncia`` (the seat blamed, or None), which the core adds.  A match that could not
#: score a deal records ``{"void": True}``.
DealResult: TypeAlias = Mapping[str, object]


@dataclass(frozen=True, slots=True)
class Deal:
    """Give ``positions`` to ``seat``; ``source`` is :data:`STOCK` or the passing seat."""

    seat: int
    positions: tuple[int, ...]
    source: int = STOCK


@dataclass(frozen=True, slots=True)
class Reveal:
    """Show ``positions`` to all; ``holder`` is the seat holding them (None: the stock)."""

    positions: tuple[int, ...]
    holder: int | None


@dataclass(frozen=True, slots=True)
class Locate:
    """The seat holding ``card`` reveals the position it sits at."""

    card: Card


@dataclass(frozen=True, slots=True)
class Decision:
    """``seats`` must decide (all at once when several; results apply in seat order)."""

    seats: tuple[int, ...]
    kind: str
    pick: tuple[int, int] | None = None
    may_decline: bool = False


@dataclass(frozen=True, slots=True)
class End:
    """The deal is over."""

    result: DealResult


Step = Deal | Reveal | Locate | Decision | End


class IllegalChoice(Exception):
    """A choice that is malformed, out of turn, or not the seat's to make."""
