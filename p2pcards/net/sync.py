"""The sync exchange: a process asks another for the transcript from a place on, and gets
it (protocol/TRANSPORT.md, "Sync").

A process asks (``sync``) when its replica has been idle for half the timeout, when entries
wait ahead of it that nothing fits, when a link brings a message of another chain (perhaps
a fork, or a certificate in place of its own last entries), and when a process comes back
(``rejoin``).  The answer is the asker's start of the transcript as this process wrote it
on disk, at most :data:`SYNC_BATCH` entries, then -- when that reaches the end -- the side
messages of the place this process is at (seeds, votes, a message held aside), then
``synced``; a partial answer makes the asker ask again from where it stopped.

:class:`Syncs` keeps what this process needs to remember of the exchange (sans-IO): which
link's last answer reached the end of what it had written, and when it last asked a link
(once a second at most).  The node sends what it says to send.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from p2pcards.net.handshake import LobbyProtocolError, expect_fields
from p2pcards.table.wire import pack

__all__ = ["SYNC_BATCH", "Sync", "Synced", "Syncs", "make_sync", "make_synced", "parse_control"]

#: The most messages a peer sends in answer to one ``sync``.
SYNC_BATCH: Final = 256
#: A link is asked at most once per this many seconds (but on a reconnection).
ASK_EVERY: Final = 1.0


@dataclass(frozen=True, slots=True)
class Sync:
    """``sync``: send me your transcript's messages from ``start`` on."""

    start: int


@dataclass(frozen=True, slots=True)
class Synced:
    """``synced``: ``count`` messages from ``start`` were sent; the sender holds ``seq``."""

    start: int
    count: int
    seq: int


def make_sync(table: bytes, start: int) -> bytes:
    return pack({"type": "sync", "table": table, "from": start})


def make_synced(table: bytes, start: int, count: int, seq: int) -> bytes:
    return pack({"type": "synced", "table": table, "from": start, "count": count, "seq": seq})


def _counter(value: object) -> int:
    if type(value) is not int or not 0 <= value < 1 << 32:
        raise LobbyProtocolError("sync counters are non-negative integers")
    return value


def parse_control(obj: Mapping[str, object], table: bytes) -> Sync | Synced:
    """A control frame on a mesh link (a map with a ``type``; table messages have none)."""
    kind = obj.get("type")
    if kind == "sync":
        expect_fields(obj, "sync", {"table", "from"})
    elif kind == "synced":
        expect_fields(obj, "synced", {"table", "from", "count", "seq"})
    else:
        raise LobbyProtocolError(f"unknown control frame {kind!r} on a mesh link")
    if obj["table"] != table:
        raise LobbyProtocolError("a control frame of another table", "table")
    counters = [_counter(obj[k]) for k in ("from", "count", "seq") if k in obj]
    if kind == "sync":
        return Sync(counters[0])
    return Synced(counters[0], counters[1], counters[2])


class Syncs:
    """What one process remembers of its sync exchanges (module docstring); links are
    any hashable values."""

    def __init__(self, table_id: bytes) -> None:
        self.table_id = table_id
        #: links whose last answer reached the end of what this process had written
        self.whole: set[object] = set()
        self._asked_at: dict[object, float] = {}

    def ask(self, start: int) -> bytes:
        """A ``sync`` from ``start`` (a negative start asks from the genesis)."""
        return make_sync(self.table_id, max(0, start))

    def may_ask(self, link: object, now: float) -> bool:
        """Whether ``link`` may be asked now (once a second at most); noted if so."""
        if now - self._asked_at.get(link, -math.inf) < ASK_EVERY:
            return False
        self._asked_at[link] = now
        return True

    def answer(self, link: object, start: int, log: Sequence[bytes], written: int,
               side: Sequence[bytes]) -> tuple[list[bytes], bool]:
        """What to send ``link`` for its ``sync`` from ``start``: from ``log``'s first
        ``written`` entries (what is on disk), then ``side`` when that reaches the end, then
        ``synced``; and whether it reached the end."""
        batch = list(log[start:written][:SYNC_BATCH]) if start < written else []
        whole = start + len(batch) >= written
        if whole:
            self.whole.add(link)
        else:
            self.whole.discard(link)
        return [*batch, *(side if whole else ()), make_synced(self.table_id, start, len(batch), written)], whole

    @staticmethod
    def more(answer: Synced) -> int | None:
        """Where to ask again after a partial ``answer`` (None: it was all)."""
        if answer.count >= SYNC_BATCH and answer.start + answer.count < answer.seq:
            return answer.start + answer.count
        return None
