"""One sender task per link, with a bounded queue: a slow link delays nobody else.

Everything a process sends on a link -- its peers' messages, sync answers, control frames,
the final end of stream -- goes through the link's :class:`LinkSender`: :meth:`put` never
waits, and the link's own task sends the frames in order, those queued together in one
write.  A peer whose link has stopped reading (a cable pulled, a process stopped) therefore
holds up only its own queue: the other links and the person's own screen go on at once.
That is what keeps a healthy seat from falling silent, and being voted out, while it waits
on a dead link.  Having queued what its replica sent, the node lets the links' tasks begin
writing (:meth:`~p2pcards.net.mesh.Mesh.flush`) before it checks the next message, so that
a frame does not wait behind a long check of a proof.

A link that stays unable to take a frame for a while (the mesh gives it four times the
table's timeout: :data:`~p2pcards.net.mesh.STUCK_TIMEOUTS`), or whose queue grows past
:data:`MAX_QUEUED_FRAMES` frames or :data:`MAX_QUEUED_BYTES` bytes, has stopped reading: it
is closed with the reason logged, and the process at the other end catches up by the
usual means when it comes back (a reconnection and a sync).
"""

from __future__ import annotations

import logging
from collections import deque
from typing import Final

import trio

from p2pcards.net.link import Link, LinkClosed

__all__ = ["BATCH_BYTES", "LinkSender", "MAX_QUEUED_FRAMES", "MAX_QUEUED_BYTES"]

log = logging.getLogger("p2pcards.net.sender")

#: Most frames that may wait for one link (a whole deal of a four-seat table is a few hundred).
MAX_QUEUED_FRAMES: Final = 4096
#: Most bytes that may wait for one link.
MAX_QUEUED_BYTES: Final = 32 * 1024 * 1024

#: Most bytes written at once: frames queued together leave in one write up to this.
BATCH_BYTES: Final = 256 * 1024

#: The end of the stream, queued after the frames before it.
_EOF: Final = None


class LinkSender:
    """The queue of frames for one link and the task that sends them (:meth:`run`).

    ``timeout``: how long one frame may take to be accepted before the link is deemed to
    have stopped reading.
    """

    def __init__(self, link: Link, timeout: float, *, max_frames: int = MAX_QUEUED_FRAMES,
                 max_bytes: int = MAX_QUEUED_BYTES) -> None:
        self.link = link
        self.timeout = timeout
        self._queue: deque[bytes | None] = deque()
        self._bytes = 0
        self._max_frames = max_frames
        self._max_bytes = max_bytes
        self._wake = trio.Event()
        self._writing = False
        self._closing: str | None = None
        self._eof = False
        #: Set when the sender has stopped: the end of stream has left, or the link closed.
        self.done = trio.Event()
        #: Frames sent so far.
        self.sent = 0

    @property
    def queued(self) -> int:
        """Frames waiting to be sent."""
        return len(self._queue)

    @property
    def waiting(self) -> bool:
        """Whether frames wait that this link's task has not begun to write (a task that is
        writing, perhaps to a link that stopped reading, is not waiting)."""
        return bool(self._queue) and not self._writing and self._closing is None

    @property
    def open(self) -> bool:
        """Whether a frame put now may still leave: the link is up, not overflowing, and
        its end was not queued."""
        return self._closing is None and not self._eof and self.link.reason is None

    @property
    def finished(self) -> bool:
        """Whether nothing more will leave: the end of stream has left, or the link is closed."""
        return self.done.is_set() or self.link.reason is not None

    def put(self, payload: bytes) -> bool:
        """Queue one frame; never waits.  False when the link is closed (or is closed now,
        because its queue overflowed)."""
        if not self.open:
            return False
        if len(self._queue) >= self._max_frames or self._bytes + len(payload) > self._max_bytes:
            self._give_up(f"stopped reading: {len(self._queue)} frames ({self._bytes} bytes) wait for it")
            return False
        self._queue.append(payload)
        self._bytes += len(payload)
        self._wake.set()
        return True

    def put_eof(self) -> None:
        """Queue the end of the stream (a half-close once the frames before it have left)."""
        if self.open:
            self._eof = True
            self._queue.append(_EOF)
            self._wake.set()

    def _give_up(self, reason: str) -> None:
        if self._closing is None:
            self._closing = reason
            log.warning("link %s %s; closing it", self.link.name, reason)
            self._queue.clear()
            self._bytes = 0
            self._wake.set()

    def _take(self) -> list[bytes]:
        """The frames queued up to the end of stream (or :data:`BATCH_BYTES`), to leave in one write."""
        batch: list[bytes] = []
        size = 0
        while self._queue and self._queue[0] is not _EOF and (not batch or size < BATCH_BYTES):
            item = self._queue.popleft()
            assert item is not None
            batch.append(item)
            size += len(item)
        self._bytes -= size
        return batch

    async def run(self) -> None:
        """Send what is queued, in order, until the end of stream has left or the link
        closes (never raises but Cancelled)."""
        try:
            while True:
                while not self._queue and self._closing is None:
                    self._wake = trio.Event()
                    await self._wake.wait()
                if self._closing is not None:
                    await self.link.aclose(self._closing)
                    return
                if self._queue[0] is _EOF:
                    await self.link.send_eof()
                    return
                batch = self._take()
                self._writing = True
                with trio.move_on_after(self.timeout) as scope:
                    try:
                        await self.link.send_frames(batch)
                    except LinkClosed as exc:
                        log.info("link %s: %s", self.link.name, exc)
                        return
                    self.sent += len(batch)
                self._writing = False
                if scope.cancelled_caught:
                    self._give_up(f"took more than {self.timeout:g} s to accept a message")
        finally:
            self._queue.clear()
            self._bytes = 0
            self.done.set()
