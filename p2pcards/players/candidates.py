"""What the search compares besides cards, and how it picks among them.

:func:`neighbours` gives the picks of cards next to the heuristic's (Copas' pass of three,
Sobe e Desce's exchange: too many to weigh them all); :func:`clear_best` leaves the
heuristic's choice for another only when the worlds say so clearly (decisions other than
plays, whose outcomes vary too much for the best mean of a few dozen worlds to be more
than luck).  Used by :mod:`p2pcards.players.search`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

import numpy as np

__all__ = ["PICK_NEIGHBOURS", "CLEAR_Z", "CLEAR_WORLDS", "neighbours", "clear_best"]

#: A pick of cards (Copas' pass of three, Sobe e Desce's exchange) is compared with this
#: many of its neighbours (:func:`neighbours`).
PICK_NEIGHBOURS: Final = 6
#: Decisions other than plays leave the heuristic's choice only for a clearly better one:
#: by more than this many standard errors, over at least :data:`CLEAR_WORLDS` worlds.
#: Measured against the heuristic (Sobe e Desce, the README's 240 pairs): 0, 0.5 and 2
#: did no better than 1 (63.5, 63.8 and 60.0 % of the pairs against 64.4 %).
CLEAR_Z: Final = 1.0
CLEAR_WORLDS: Final = 8


def neighbours(
    pick: tuple[int, ...], hand: Sequence[int], sizes: tuple[int, int], count: int, rng: random.Random,
) -> list[tuple[int, ...]]:
    """Up to ``count`` picks next to ``pick`` (positions of ``hand``; a pick holds from
    ``sizes[0]`` to ``sizes[1]`` cards), drawn from ``rng`` without repeats: ``pick`` with
    one of its cards changed for another card of the hand, with one card more, or with
    one card fewer."""
    lo, hi = sizes
    rest = [p for p in hand if p not in pick]
    moves: list[tuple[int | None, int | None]] = [(i, p) for i in range(len(pick)) for p in rest]
    if len(pick) < hi:
        moves += [(None, p) for p in rest]
    if len(pick) > lo:
        moves += [(i, None) for i in range(len(pick))]
    out: list[tuple[int, ...]] = []
    for i, p in rng.sample(moves, min(count, len(moves))):
        kept = pick if i is None else pick[:i] + pick[i + 1:]
        out.append(kept if p is None else (*kept, p))
    return out


def clear_best(rows: Sequence[Sequence[float]], weights: Sequence[float]) -> int:
    """The candidate to take from per-world scores ``rows`` (one row per world, one score
    per candidate, the heuristic's choice first) weighed by ``weights``: the best weighted
    mean among those that beat the first by more than :data:`CLEAR_Z` standard errors of
    the weighted mean paired difference; the first (0) when none does, or with fewer than
    :data:`CLEAR_WORLDS` worlds."""
    if len(rows) < CLEAR_WORLDS:
        return 0
    vals = np.asarray(rows, dtype=float)
    w = np.asarray(weights, dtype=float)
    total = float(w.sum())
    if total <= 0.0:
        return 0
    w = w / total
    means = w @ vals
    diff = vals - vals[:, :1]
    gain = w @ diff
    spread = np.sqrt((w ** 2) @ (diff - gain) ** 2)  # the standard error of each weighted mean
    best = 0
    for i in range(1, vals.shape[1]):
        if gain[i] > CLEAR_Z * spread[i] and gain[i] > 0.0 and means[i] > means[best]:
            best = i
    return best
