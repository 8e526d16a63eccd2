"""Computer players: one interface for bots and people.

A player is given a :class:`~p2pcards.core.view.SeatView` and the pending
:class:`~p2pcards.core.game.Decision` and returns a choice (formats in
:mod:`p2pcards.core.game`).  Bots see exactly what a person in the seat would.
"""

from __future__ import annotations

import random
from typing import Protocol

from p2pcards.core.game import Choice, Decision, GameSpec
from p2pcards.core.view import SeatView

__all__ = ["Player", "RandomPlayer", "make_player", "PLAYER_LEVELS"]

#: Names accepted by :func:`make_player` (and the CLI's ``--players``).
PLAYER_LEVELS = ("random", "heuristic")


class Player(Protocol):
    """Anything that can decide for a seat."""

    def choose(self, view: SeatView, decision: Decision) -> Choice: ...


class RandomPlayer:
    """Uniformly random legal choices (for tests and benchmarks)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, decision: Decision) -> Choice:
        legal = view.legal
        rng = self.rng
        if decision.pick is None:
            return legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
        if decision.may_decline and rng.random() < 0.3:
            return None
        lo, hi = decision.pick
        k = rng.randint(lo, min(hi, len(legal)))
        return tuple(rng.sample(legal, k))


def make_player(level: str, spec: GameSpec, rng: random.Random) -> Player:
    """A computer player of ``level`` (``random`` or ``heuristic``) for ``spec``.

    Games without a heuristic of their own get the random player for ``heuristic``.
    """
    if level == "random":
        return RandomPlayer(rng)
    if level == "heuristic":
        if spec.heuristic is None:
            return RandomPlayer(rng)
        player: Player = spec.heuristic(rng)
        return player
    raise ValueError(f"unknown player {level!r} (choose from {', '.join(PLAYER_LEVELS)})")
