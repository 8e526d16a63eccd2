"""Match scoring helpers shared by the games (each plugin's docstring states its scoring).

Pure functions: game points from card points (Sueca, Bisca), bandeira, running totals,
dealer rotation.  A helper that serves one game only lives in that game's plugin.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "game_points",
    "bandeira_winner",
    "running_totals",
    "next_dealer",
]


def game_points(points: int, all_tricks: bool, total: int = 120, all_points_value: int = 2) -> int:
    """Game points a side earns for a deal in Sueca or Bisca.

    Sueca: more than half the card points wins; 61-90 -> 1, 91-119 -> 2,
    all the tricks (capote) -> 4, all 120 points without all the tricks -> 2
    (``all_points_value``; the variant makes it 4).  A side with half or less scores 0.
    """
    if all_tricks:
        return 4
    if points >= total:
        return all_points_value
    if points * 4 > total * 3:  # 91..119 out of 120
        return 2
    if points * 2 > total:  # 61..90
        return 1
    return 0


def bandeira_winner(totals: Sequence[int], target: int) -> int | None:
    """The side whose game points reached ``target`` (a bandeira), or None."""
    for side, total in enumerate(totals):
        if total >= target:
            return side
    return None


def running_totals(start: Sequence[int], deltas: Sequence[Sequence[int]]) -> list[list[int]]:
    """Totals after each deal, starting from ``start`` and adding each deal's deltas."""
    totals = list(start)
    out = []
    for d in deltas:
        totals = [t + x for t, x in zip(totals, d, strict=True)]
        out.append(list(totals))
    return out


def next_dealer(dealer: int, seats: int) -> int:
    """The dealer rotates one seat in play order after every deal."""
    return (dealer + 1) % seats

