"""What every computer player shares: the :class:`Player` interface, the random player,
the levels' table (:data:`LEVELS`) and the budget of a match's searching players.

A player is given a :class:`~p2pcards.core.view.SeatView` and the pending
:class:`~p2pcards.core.steps.Decision` and returns a choice (formats in
:mod:`p2pcards.core`).  Bots see exactly what a person in the seat would.
The levels built on these (:func:`~p2pcards.players.levels.make_player`) and the dummy's
rule are in :mod:`p2pcards.players.levels`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Protocol

from p2pcards.core import Decision, Plain
from p2pcards.core.view import SeatView

__all__ = ["Player", "RandomPlayer", "Level", "LEVELS", "bot_budget"]


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


@dataclass(frozen=True)
class Level:
    """What a computer player's level is: who decides (``player``: "random", "heuristic" or
    "search") and, for a search, its fixed effort -- never the clock, so that a level is the
    same opponent on every machine and a seed replays its match:

    * ``worlds``: worlds weighed per decision;
    * ``solve_plays``: the exact end-game solver takes over when at most this many cards
      are left in the hands (0: never; it applies to two-sided games with a batch
      simulator, Sueca and Bisca);
    * ``mistakes``: the share of its plays (with more than one candidate) in which it
      takes the card its search ranks second instead of the best, drawn from its own
      random stream (a casual player's slip: a card close to the right one, never a
      random card).
    """

    player: str
    worlds: int = 0
    solve_plays: int = 0
    mistakes: float = 0.0


#: The levels people choose (``play --bots``, ``--seats bot:LEVEL``, the start screen, the
#: engine's bots), weakest first.  docs/players.md, "The levels against each other", gives
#: each one's win rate against the others and its time per decision (``p2pcards duel``).
LEVELS: Final[Mapping[str, Level]] = {
    "random": Level("random"),
    "casual": Level("search", worlds=8, solve_plays=0, mistakes=0.5),
    "heuristic": Level("heuristic"),
    "search": Level("search", worlds=100, solve_plays=12),
}


def bot_budget(seed: int | None, think_ms: int) -> dict[str, int]:
    """The search budget of the computer players of a match: their level's worlds per
    decision, within ``think_ms`` (the table's pace: a decision the cap stops short is
    counted and logged), or, when the match has a ``seed`` (the same seed must give the
    same match), their level's worlds with no time limit."""
    return {"cap_ms": think_ms} if seed is None else {}
