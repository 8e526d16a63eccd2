"""Typed errors of the mental deck, each saying whose fault it is.

Modelled on h11's ``LocalProtocolError`` / ``RemoteProtocolError``:

* :class:`LocalError` -- the caller misused the API (an operation out of phase, a
  position that is not held by the seat named, a message of our own fed back).  Nothing
  was changed; the party stays usable.
* :class:`RemoteError` -- something another seat sent is wrong.  The party that raised it
  is dead afterwards (every later call raises :class:`LocalError`), unless the error is
  ``private``: a fault only this seat can see (keys sealed to it that do not open or are
  wrong, a card of its own that does not open).  Such a party carries on with the deal's
  structure (the faulty message counts as received, its keys as missing), so that its
  table can still follow whose turn it is and raise a dispute in its own turn.

  - :class:`DeckFault` names the seat whose message proves it misbehaved, with a
    :class:`FaultKind` and, for a bad key inside a sealed payload, the signed plaintext
    as ``evidence`` that anyone can check with :func:`p2pcards.mental.verify_evidence`.
  - :class:`UnattributedFault` is a deviation that is visible now but can only be pinned
    on a seat once the seeds are revealed (every key matches its commitment, yet the
    position does not open to a card: some seat's lock output is wrong).  Run the audit.
  - :class:`MalformedMessage` is a message so broken that it does not even say which seat
    wrote it; blame whoever the transport says sent it.

* :class:`GroupError` -- a group element or scalar failed validation.  The group layer
  raises it; the party and the audit turn it into a :class:`DeckFault` naming the author.
"""

from __future__ import annotations

from enum import StrEnum

__all__ = [
    "DeckFault",
    "FaultKind",
    "GroupError",
    "LocalError",
    "MalformedMessage",
    "MentalError",
    "RemoteError",
    "UnattributedFault",
]


class FaultKind(StrEnum):
    """Why a seat is blamed; shared by :class:`DeckFault` and the audit's ``Fault``."""

    MALFORMED = "malformed"
    """A message with missing or extra fields, wrong types or sizes, wrong table or deal."""
    OUT_OF_TURN = "out-of-turn"
    """A message out of phase, out of turn, for an undeclared step, or a duplicate."""
    BAD_ELEMENT = "bad-element"
    """A group element that is not canonical, is the identity, or repeats within a deck."""
    BAD_SEAL = "bad-seal"
    """A sealed payload that does not open, or whose inner signature does not verify."""
    BAD_KEY = "bad-key"
    """A key sent to a seat (deal or transfer) that is not the key the sender committed to."""
    BAD_REVEAL = "bad-reveal"
    """A reveal or stock share whose keys are not the committed ones, so it does not open."""
    BAD_SHUFFLE = "bad-shuffle"
    """A shuffle output that is not the seed's scalar and permutation applied to the input."""
    BAD_LOCK = "bad-lock"
    """A lock output or key commitment that does not follow from the seed."""
    SEED_MISMATCH = "seed-mismatch"
    """A revealed seed that does not match the seat's commitment."""
    SEED_REFUSED = "seed-refused"
    """A seat that did not reveal its seed for the audit."""
    MISSING_COMMITMENT = "missing-commitment"
    """A seat that never committed (the audit cannot even compute the deal id)."""


class MentalError(Exception):
    """Base class of every error raised by :mod:`p2pcards.mental`."""


class LocalError(MentalError):
    """The caller used the API wrongly; no state was changed."""


class GroupError(MentalError):
    """A group element or scalar is invalid (non-canonical, identity, out of range)."""


class RemoteError(MentalError):
    """Something received from another seat is wrong; the party is dead afterwards unless
    ``private`` (seen by this seat alone: see the module docstring)."""

    reason: str
    private: bool

    def __init__(self, reason: str, *, private: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.private = private


class DeckFault(RemoteError):
    """A received message proves that ``seat`` misbehaved.

    ``evidence`` is set when the proof is a sealed plaintext signed by ``seat`` (a wrong
    key sent in a deal or transfer): show it to the other seats, who check it with
    :func:`p2pcards.mental.verify_evidence`.
    """

    seat: int
    kind: FaultKind
    evidence: bytes | None

    def __init__(
        self,
        seat: int,
        kind: FaultKind,
        reason: str,
        evidence: bytes | None = None,
        *,
        private: bool = False,
    ) -> None:
        super().__init__(reason, private=private)
        self.seat = seat
        self.kind = kind
        self.evidence = evidence

    def __str__(self) -> str:
        return f"seat {self.seat}: {self.kind}: {self.reason}"


class UnattributedFault(RemoteError):
    """A deviation visible now whose author only the audit can name (run it)."""


class MalformedMessage(RemoteError):
    """A message that does not even name a valid author seat."""
