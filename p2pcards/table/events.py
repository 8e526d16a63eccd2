"""What a table replica tells the runtime: one :class:`Output` per input, and typed events.

Every input to a :class:`~p2pcards.table.table.Table` (a message received, this seat's
decision, a vote its runtime's clock calls for, a restore) returns one :class:`Output`:
everything the runtime must do, in the order it must do it (the way h11's connection
answers each event).  Nothing else reports: no callback, nothing to poll.

1. cut the log at :attr:`Output.rewind` (a certificate took the place of entries there);
2. append :attr:`Output.entries` to the log, keep :attr:`Output.superseded` apart (this
   seat's own entries the table did not accept) and :attr:`Output.signed` (this seat's own
   votes and nays: a replica never signs both for one place) -- all on disk first;
3. send :attr:`Output.send` to every other peer;
4. tell :attr:`Output.events` to whoever watches (a screen, the history, ``--json``).

The events are small frozen values; :meth:`TableEvent.to_json` gives the plain mapping the
``--json`` output and the history have always carried (``{"type": "deal", ...}``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from p2pcards.core import Choice, DealResult, DealState
    from p2pcards.table.claims import Verdict

__all__ = [
    "Output",
    "TableEvent",
    "DealClosed",
    "Ended",
    "VoteOut",
    "VotedOut",
    "Fork",
    "Dispute",
    "TakenUp",
]


@dataclass(frozen=True, kw_only=True)
class TableEvent:
    """Something every replica of the table agrees happened (subclasses name what)."""

    type: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        """The event as a plain mapping with its ``type`` (the ``--json`` form)."""
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class DealClosed(TableEvent):
    """A deal closed: its verdict (the audit's ``audit`` mapping) and score.

    ``replay`` is the deal replayed with every card known (None when the audit could not
    open it: a deck fault, a void or forfeited deal) and ``choices`` the decisions taken in
    it; neither is part of the JSON form (they are for replays and the history)."""

    type: ClassVar[str] = "deal"
    deal: int
    dealer: int
    trump: str | None
    result: DealResult | None
    audit: Verdict
    totals: Sequence[int]
    match_over: bool
    winner: int | None
    replay: DealState | None = field(default=None, compare=False, repr=False)
    choices: Sequence[tuple[int, Choice]] = field(default=(), compare=False, repr=False)

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "deal": self.deal, "dealer": self.dealer, "trump": self.trump,
                "result": self.result, "audit": dict(self.audit), "totals": list(self.totals),
                "match_over": self.match_over, "winner": self.winner}


@dataclass(frozen=True, kw_only=True)
class Ended(TableEvent):
    """The table ended: by its rules (``abandoned`` None) or abandoned by a seat of two.
    ``abandons`` lists every abandon of the table, the last one's too, each with its ``seq``
    and whether both seats ``taken_up`` the table again after it."""

    type: ClassVar[str] = "final"
    winner: int | None
    totals: Sequence[int]
    deals: int
    transcript_hash: str
    abandoned: Mapping[str, object] | None
    voted_out: bool
    abandons: Sequence[Mapping[str, object]] = ()

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "winner": self.winner, "totals": list(self.totals), "deals": self.deals,
                "transcript_hash": self.transcript_hash,
                "abandoned": dict(self.abandoned) if self.abandoned is not None else None,
                "voted_out": self.voted_out, "abandons": [dict(a) for a in self.abandons]}


@dataclass(frozen=True, kw_only=True)
class TakenUp(TableEvent):
    """Both seats took an abandoned table up again (their ``takeup`` entries, the last at
    ``seq``): deal ``deal`` closes void and play goes on.  ``abandon`` is the abandon's record."""

    type: ClassVar[str] = "taken_up"
    deal: int
    seq: int
    abandon: Mapping[str, object]

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "deal": self.deal, "seq": self.seq, "abandon": dict(self.abandon)}


@dataclass(frozen=True, kw_only=True)
class VoteOut(TableEvent):
    """Seat ``against`` was voted out at ``seq`` by every other playing seat."""

    type: ClassVar[str] = "vote_out"
    against: int
    deal: int
    seq: int
    voters: Sequence[int]

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "against": self.against, "deal": self.deal, "seq": self.seq,
                "voters": list(self.voters)}


@dataclass(frozen=True, kw_only=True)
class VotedOut(TableEvent):
    """This replica's own seat was voted out (it follows the table as an observer)."""

    type: ClassVar[str] = "voted_out"
    deal: int
    seq: int

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "deal": self.deal, "seq": self.seq}


@dataclass(frozen=True, kw_only=True)
class Fork(TableEvent):
    """Seat ``against`` signed two different messages for place ``seq``."""

    type: ClassVar[str] = "fork"
    against: int
    deal: int
    seq: int

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "against": self.against, "deal": self.deal, "seq": self.seq}


@dataclass(frozen=True, kw_only=True)
class Dispute(TableEvent):
    """Seat ``accuser`` disputed the deal (a fault only it could see)."""

    type: ClassVar[str] = "dispute"
    accuser: int
    deal: int
    against: int | None
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "accuser": self.accuser, "deal": self.deal, "against": self.against,
                "reason": self.reason}


@dataclass
class Output:
    """Everything the runtime must do after one input to a replica (module docstring)."""

    #: The lowest place the log goes back to (None: it only grows).
    rewind: int | None = None
    #: New entries of the log, in order, from :attr:`rewind` (or the log's end) on.
    entries: list[bytes] = field(default_factory=list)
    #: This seat's own entries that the table did not accept (kept apart).
    superseded: list[bytes] = field(default_factory=list)
    #: This seat's own votes and nays, to keep on disk before any of :attr:`send` leaves.
    signed: list[bytes] = field(default_factory=list)
    #: Messages to send to every other peer, in order.
    send: list[bytes] = field(default_factory=list)
    #: What happened, in order.
    events: list[TableEvent] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.rewind is not None or self.entries or self.superseded or self.signed or self.send
                    or self.events)
