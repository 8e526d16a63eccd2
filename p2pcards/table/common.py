"""What the table's modules share: its errors, and why a deal ends early (:class:`Cause`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["TableError", "SetupError", "Rejected", "Cause", "MIN_VOTERS", "MAX_REASON"]

#: Longest reason a dispute may give.
MAX_REASON: Final = 200
#: A vote needs at least this many voters (so at least three playing seats).
MIN_VOTERS: Final = 2


class TableError(Exception):
    """Base of the table's errors."""


class SetupError(TableError):
    """The genesis cannot be played here (unknown game, bad options, not seated...)."""


class Rejected(TableError):
    """A received message was refused and changed nothing.

    ``blame`` is the seat whose signed message broke a rule, or None when the message
    cannot be attributed (bad signature, garbage, a replay, another branch of the chain).
    """

    def __init__(self, reason: str, blame: int | None = None) -> None:
        super().__init__(reason, blame)
        self.reason = reason
        self.blame = blame

    def __repr__(self) -> str:
        return f"Rejected(reason={self.reason!r}, blame={self.blame!r})"

    def __str__(self) -> str:
        who = "unattributed" if self.blame is None else f"seat {self.blame}"
        return f"rejected ({who}): {self.reason}"


@dataclass(frozen=True)
class Cause:
    """Why a deal went to its seed round before its end, and what decides its verdict.

    ``kind``: ``dispute`` (audit; the accuser if clean), ``unattributed`` (audit), or a
    fixed verdict against ``seat``: ``vote-out``, ``equivocation``, or a deck fault's kind.
    """

    kind: str
    seat: int | None
    reason: str
    fixed: bool
