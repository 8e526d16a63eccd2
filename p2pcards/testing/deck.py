"""All seats of one deal in one process, joined by an in-memory transcript.

Used by the benchmark, the test-vector generator and the tests: every message a party
sends is msgpack-encoded, appended to the transcript and delivered, in transcript order,
to every other party -- the order the table's hash chain gives real peers.  Operations are
declared on every party in seat order, as the game would on every peer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial

import msgpack  # type: ignore[import-untyped]

from p2pcards.mental.errors import LocalError
from p2pcards.mental.messages import Wire
from p2pcards.mental.party import Party

__all__ = ["InProcessDeal", "Sent"]


@dataclass(frozen=True, kw_only=True)
class Sent:
    """One message of the transcript: its author, wire form and msgpack bytes."""

    seat: int
    message: Wire
    packed: bytes


class InProcessDeal:
    """Routes messages between parties that run in this process.

    ``intercept(seat, message)`` may replace a message before it enters the transcript
    (tests use it to tamper).  ``clock`` (e.g. ``time.perf_counter``) makes the table
    add the time spent inside each party's methods to :attr:`elapsed`.
    """

    def __init__(
        self,
        parties: Sequence[Party],
        *,
        intercept: Callable[[int, Wire], Wire] | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if [p.seat for p in parties] != list(range(len(parties))):
            raise LocalError("one party per seat, in seat order")
        self.parties = list(parties)
        self.transcript: list[Sent] = []
        self.elapsed = [0.0] * len(parties)
        self._intercept = intercept
        self._clock = clock
        self._delivered = 0

    def _call(self, seat: int, action: Callable[[], list[Wire]]) -> None:
        """Run one party method, timing it, and append what it sends."""
        if self._clock is None:
            out = action()
        else:
            begin = self._clock()
            out = action()
            self.elapsed[seat] += self._clock() - begin
        for message in out:
            if self._intercept is not None:
                message = self._intercept(seat, message)
            packed = msgpack.packb(message, use_bin_type=True)
            self.transcript.append(
                Sent(seat=seat, message=msgpack.unpackb(packed, raw=False), packed=packed)
            )

    def deliver(self) -> None:
        """Deliver every undelivered message to every other party, in transcript order."""
        while self._delivered < len(self.transcript):
            sent = self.transcript[self._delivered]
            self._delivered += 1
            for seat, party in enumerate(self.parties):
                if seat != sent.seat:
                    self._call(seat, partial(party.receive, sent.message))

    def _everyone(self, action: Callable[[Party], list[Wire]], deliver: bool) -> None:
        """Call ``action`` on every party in seat order, then deliver if asked."""
        for seat, party in enumerate(self.parties):
            self._call(seat, partial(action, party))
        if deliver:
            self.deliver()

    def start(self, deliver: bool = True) -> None:
        """Every party commits; with ``deliver`` the shuffle and lock rounds run to the end."""
        self._everyone(Party.start, deliver)

    def deal(self, positions: Iterable[int], to_seat: int, deliver: bool = True) -> None:
        """Declare a deal on every party."""
        chosen = list(positions)
        self._everyone(lambda p: p.deal(chosen, to_seat), deliver)

    def reveal(self, positions: Iterable[int], deliver: bool = True) -> None:
        """Declare a reveal on every party."""
        chosen = list(positions)
        self._everyone(lambda p: p.reveal(chosen), deliver)

    def transfer(
        self, positions: Iterable[int], from_seat: int, to_seat: int, deliver: bool = True
    ) -> None:
        """Declare a transfer on every party."""
        chosen = list(positions)
        self._everyone(lambda p: p.transfer(chosen, from_seat, to_seat), deliver)

    def reveal_seeds(self, deliver: bool = True) -> None:
        """Every party reveals its seed."""
        self._everyone(Party.reveal_seed, deliver)

    def messages(self) -> list[Wire]:
        """The transcript's messages, in order (for the audit)."""
        return [sent.message for sent in self.transcript]

    def bytes_sent(self) -> list[int]:
        """Total msgpack-encoded size of the messages each seat sent."""
        totals = [0] * len(self.parties)
        for sent in self.transcript:
            totals[sent.seat] += len(sent.packed)
        return totals
