"""What every computer player shares: the :class:`Player` interface, the random player,
and the budget of a match's searching players.

A player is given a :class:`~p2pcards.core.view.SeatView` and the pending
:class:`~p2pcards.core.steps.Decision` and returns a choice (formats in
:mod:`p2pcards.core`).  Bots see exactly what a person in the seat would.
The levels built on these (:func:`~p2pcards.players.levels.make_player`) and the dummy's
rule are in :mod:`p2pcards.players.levels`.
"""

from __future__ import annotations

import random
from typing import Protocol

from p2pcards.core import Decision, Plain
from p2pcards.core.view import SeatView

__all__ = ["Player", "RandomPlayer", "SEEDED_WORLDS", "bot_budget"]


class Player(Protocol):
    """Anything that can decide for a seat."""

    def choose(self, view: SeatView, decision: Decision) -> Plain: ...


class RandomPlayer:
    """Uniformly random legal choices (for tests and benchmarks)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        legal = view.legal
        rng = self.rng
        if decision.pick is None:
            return rng.choice(legal) if len(legal) > 1 else legal[0]
        if decision.may_decline and rng.random() < 0.3:
            return None
        lo, hi = decision.pick
        k = rng.randint(lo, min(hi, len(legal)))
        return tuple(rng.sample([p for p in legal if isinstance(p, int)], k))


#: Worlds a searching computer player weighs per decision in a match replayed from a seed
#: (a time budget would make its choices depend on the machine's load).
SEEDED_WORLDS = 40


def bot_budget(seed: int | None, think_ms: int) -> dict[str, int]:
    """The search budget of the computer players of a match: their level's worlds per
    decision, within ``think_ms`` (the table's pace: a decision the cap stops short is
    counted and logged), or, when the match has a ``seed`` (the same seed must give the
    same match), :data:`SEEDED_WORLDS` and no time limit."""
    return {"cap_ms": think_ms} if seed is None else {"iterations": SEEDED_WORLDS}
