"""What the table's modules share: its errors, and why a deal ends early (:class:`Cause`,
:func:`public_cause`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p2pcards.mental import DeckFault, MalformedMessage, RemoteError, UnattributedFault

__all__ = ["TableError", "SetupError", "Rejected", "Cause", "public_cause", "MIN_VOTERS", "MAX_REASON"]

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


def public_cause(exc: RemoteError, author: int, parties: tuple[int, ...]) -> Cause:
    """The verdict of a fault every replica saw in the same message of ``author``
    (``parties``: the deal's playing seats, by deck party)."""
    if isinstance(exc, DeckFault):
        return Cause(str(exc.kind), parties[exc.seat], exc.reason, True)
    if isinstance(exc, UnattributedFault):
        return Cause("unattributed", None, exc.reason, False)
    if isinstance(exc, MalformedMessage):
        return Cause("malformed", author, exc.reason, True)
    return Cause("malformed", author, str(exc), True)  # pragma: no cover
