"""A local peer's way in: every frame decoded once, queued, and put in transcript order.

* :class:`Frame` -- one incoming frame, decoded once (:func:`~p2pcards.table.transcript.decode`)
  where it arrives; the runtime routes it by kind and place, the replica checks it without
  decoding it again.
* :class:`Inbox` -- the queue of frames for one local peer's task (trio): frames from links
  are bounded (a link's reader waits for room, and TCP pushes back on the sender); frames of
  the other local peers are never refused, so that two local peers never wait on each other
  (their number is bounded by the protocol itself: a peer only writes in its turn).
* :class:`Reorder` -- the entries that came ahead of their replica (sans-IO): in a mesh a
  message from one author can overtake another author's earlier one, so an entry whose
  place is ahead waits (bounded) until the replica reaches it; side messages (votes, nays,
  seeds) go to the replica at once (it keeps those for a place it has not reached);
  duplicates of what the replica holds are dropped.
* :class:`Refusals` -- what the refusals a link causes cost it: past a rate its frames are
  dropped unread for a while, so that nobody can keep a peer busy checking garbage.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Final

import trio

from p2pcards.table.common import Rejected
from p2pcards.table.transcript import SIDE_KINDS, Decoded, TableKind, TranscriptError, decode

__all__ = [
    "Frame",
    "POKE",
    "Inbox",
    "Reorder",
    "Filed",
    "Refusals",
    "REMOTE_BACKLOG",
    "AHEAD_WINDOW",
    "MAX_AHEAD",
    "REFUSAL_BURST",
    "REFUSALS_PER_SECOND",
]

#: Frames from links that may wait, per local peer, for its task to take them.
REMOTE_BACKLOG: Final = 64
#: How far ahead of its replica a peer buffers entries (in seq), and how many at most.
AHEAD_WINDOW: Final = 4096
MAX_AHEAD: Final = 1024
#: Refusals a link may cause: a burst, then this many per second.
REFUSAL_BURST: Final = 64
REFUSALS_PER_SECOND: Final = 8.0


@dataclass(frozen=True, slots=True, eq=False)
class Frame:
    """One frame for a local peer: its bytes, decoded once (``decoded``, or ``error`` when
    it is not a table message) and where it came from (``source``: the link, None from a
    local peer)."""

    raw: bytes
    decoded: Decoded | None
    error: str | None
    source: Any = None

    @classmethod
    def of(cls, raw: bytes, outer: object = None, source: object = None) -> Frame:
        """Decode ``raw`` (``outer``: its msgpack, when the caller has it already)."""
        try:
            return cls(raw, decode(raw, outer), None, source)
        except TranscriptError as exc:
            return cls(raw, None, str(exc), source)

    @property
    def kind(self) -> str | None:
        return self.decoded.kind if self.decoded is not None else None

    @property
    def seq(self) -> int | None:
        return self.decoded.seq if self.decoded is not None else None

    def with_source(self, source: object) -> Frame:
        return Frame(self.raw, self.decoded, self.error, source)


#: What the heartbeat puts in a peer's inbox to wake it (a clock ran out).
POKE: Final = Frame(b"", None, None)


class Inbox:
    """A local peer's queue of incoming frames (module docstring)."""

    def __init__(self, remote_limit: int = REMOTE_BACKLOG) -> None:
        self._items: deque[Frame] = deque()
        self._remote = 0
        self._limit = remote_limit
        self._closed = False
        self._getters = trio.lowlevel.ParkingLot()
        self._putters = trio.lowlevel.ParkingLot()

    def put_local(self, frame: Frame) -> None:
        if not self._closed:
            self._items.append(frame)
            self._getters.unpark_all()

    async def put_remote(self, frame: Frame) -> None:
        await trio.lowlevel.checkpoint()
        while self._remote >= self._limit and not self._closed:
            await self._putters.park()
        if self._closed:
            return
        self._remote += 1
        self._items.append(frame)
        self._getters.unpark_all()

    async def get(self, spare: Callable[[], bool] | None = None) -> Frame:
        """The next frame.  While none is queued, ``spare`` -- work that can wait (it does a
        piece and says whether some remains) -- runs a piece at a time, and every piece
        gives way to a frame that came in the meantime."""
        await trio.lowlevel.checkpoint()
        while not self._items and spare is not None and spare():
            await trio.lowlevel.checkpoint()
        while not self._items:
            await self._getters.park()
        return self._pop()

    def get_nowait(self) -> Frame | None:
        return self._pop() if self._items else None

    def _pop(self) -> Frame:
        frame = self._items.popleft()
        if frame.source is not None:
            self._remote -= 1
            self._putters.unpark()
        return frame

    def close(self) -> None:
        """Drop everything queued; later puts are ignored (the peer has finished)."""
        self._closed = True
        self._items.clear()
        self._putters.unpark_all()


class Filed(Enum):
    """What :meth:`Reorder.file` did with a frame."""

    #: give it to the replica now
    NOW = "now"
    #: a duplicate of an entry the replica holds: dropped
    DUPLICATE = "duplicate"
    #: an entry ahead of the replica: it waits for its place
    AHEAD = "ahead"


@dataclass
class Reorder:
    """Entries ahead of one replica, waiting for their place (module docstring)."""

    #: entries by seq, each with the frames that claim that place
    ahead: dict[int, list[Frame]] = field(default_factory=dict)
    count: int = 0
    #: when the first entry still waiting arrived (None: none waits)
    since: float | None = None
    #: the furthest ``close`` buffered, and the furthest shown to a replica that holds a
    #: late entry aside (:meth:`~p2pcards.table.table.Table.take_held`)
    furthest_close: int = -1
    held_tried: int = -1
    #: entries that arrived ahead of their replica and waited (a statistic)
    overtaken: int = 0

    def file(self, frame: Frame, seq_now: int, log: Sequence[bytes], now: float) -> Filed:
        """File a frame for a replica at ``seq_now`` holding ``log``.  Raises
        :class:`Rejected` for an entry too far ahead, or when too many wait already."""
        kind, seq = frame.kind, frame.seq
        if kind in SIDE_KINDS:
            return Filed.NOW
        if seq is not None and seq < seq_now and log[seq] == frame.raw:
            return Filed.DUPLICATE
        if seq is None or seq <= seq_now:
            return Filed.NOW
        if seq - seq_now > AHEAD_WINDOW:
            raise Rejected(f"seq {seq} is too far ahead of {seq_now}; dropped")
        if self.count >= MAX_AHEAD:
            raise Rejected(f"{MAX_AHEAD} messages already wait for their turn; seq {seq} dropped")
        bucket = self.ahead.setdefault(seq, [])
        if all(frame.raw != held.raw for held in bucket):
            bucket.append(frame)
            self.count += 1
            if kind == TableKind.CLOSE:
                self.furthest_close = max(self.furthest_close, seq)
            self.overtaken += 1
            if self.since is None:
                self.since = now
        return Filed.AHEAD

    def take(self, seq: int) -> list[Frame]:
        """The frames waiting for place ``seq`` (removed)."""
        frames = self.ahead.pop(seq, [])
        self.count -= len(frames)
        if not self.ahead:
            self.since = None
        return frames

    def by_seq(self) -> dict[int, list[bytes]]:
        """What waits, as bytes by seq."""
        return {s: [f.raw for f in frames] for s, frames in self.ahead.items()}

    def new_close(self) -> bool:
        """Whether a ``close`` arrived ahead since the last call (marks it shown)."""
        if self.furthest_close > self.held_tried:
            self.held_tried = self.furthest_close
            return True
        return False


class Refusals:
    """A token bucket of the refusals one link may cause (module docstring)."""

    def __init__(self, now: float) -> None:
        self.tokens = float(REFUSAL_BURST)
        self.at = now
        self.dropped = 0

    def take(self, now: float) -> bool:
        self.tokens = min(float(REFUSAL_BURST), self.tokens + (now - self.at) * REFUSALS_PER_SECOND)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def allows(self, now: float) -> bool:
        return min(float(REFUSAL_BURST), self.tokens + (now - self.at) * REFUSALS_PER_SECOND) >= 1
