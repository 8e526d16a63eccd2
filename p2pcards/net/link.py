"""A framed message link over any trio stream (TCP or in-memory).

Frames are :mod:`p2pcards.table.wire` frames: a 4-byte big-endian length, then that many
bytes (at most :data:`~p2pcards.table.wire.MAX_FRAME`).  As in trio-websocket, a link has
one reader task (:meth:`Link.run`) that decodes frames and feeds them into a bounded memory
channel -- when the consumer falls behind, the reader stops reading and TCP pushes back on
the sender -- and a lock around sends so that two tasks never interleave the bytes of two
frames.

A framing error (a length of zero or above the limit) is the remote side's fault: the link
is closed at once with the reason logged, and the consumer sees :class:`LinkClosed` once it
has taken the frames that arrived before the bad one.  Nothing a remote side sends can make
the reader raise: one bad peer never takes the process or the other links down.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import trio

from p2pcards.table.wire import MAX_FRAME, FrameDecoder, FrameError, frame

__all__ = ["Link", "LinkClosed"]

log = logging.getLogger("p2pcards.net.link")

_CHUNK = 65536


class LinkClosed(Exception):
    """The link is closed: by the remote side, by a framing error, or locally."""


class Link:
    """Frames over ``stream``; start :meth:`run` in a nursery before receiving.

    ``name`` says who is at the other end, for log lines.  ``capacity`` bounds the frames
    decoded but not yet taken by :meth:`receive`.
    """

    def __init__(self, stream: trio.abc.Stream, name: str, *, limit: int = MAX_FRAME, capacity: int = 16) -> None:
        self.stream = stream
        self.name = name
        self.limit = limit
        self._in, self._out = trio.open_memory_channel[bytes](capacity)
        self._send_lock = trio.Lock()
        self._eof_sent = False
        #: Set when the reader has stopped (remote EOF, error, or local close).
        self.finished = trio.Event()
        #: Why the reader stopped (None while it runs).
        self.reason: str | None = None
        #: True when the remote side ended the stream cleanly (EOF on a frame boundary).
        self.clean_eof = False
        self.frames_in = 0
        self.bytes_out = 0
        #: True once :meth:`run` has started.
        self.running = False
        #: True when this side dialled a reconnection on this link; True once the link
        #: replaced another after a reconnection (:meth:`p2pcards.net.node.Node.adopt_link`).
        self.dialled = False
        self.rejoined = False

    def __repr__(self) -> str:
        return f"<Link {self.name}>"

    # ------------------------------------------------------------------ reading
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The reader task: decode frames into the channel until EOF, an error or close.

        Never raises (except Cancelled): every failure closes this link and is logged.
        """
        self.running = True
        task_status.started()
        decoder = FrameDecoder(self.limit)
        async with self._in:  # closed last, so that a receiver always finds the reason set
            try:
                while True:
                    data = await self.stream.receive_some(_CHUNK)
                    if not data:
                        if decoder.pending:
                            self._stop(f"closed by the remote side in the middle of a frame "
                                       f"({decoder.pending} bytes pending)", logging.WARNING)
                        else:
                            self.clean_eof = True
                            self._stop("closed by the remote side", logging.DEBUG)
                        return
                    for payload in decoder.feed(bytes(data)):
                        self.frames_in += 1
                        await self._in.send(payload)
            except FrameError as exc:
                self._stop(f"framing error: {exc}", logging.WARNING)
                await self._abort()
            except trio.ClosedResourceError:
                self._stop("closed locally", logging.DEBUG)
            except trio.BrokenResourceError as exc:
                self._stop(f"connection lost: {exc.__cause__ or exc}", logging.INFO)
            except trio.Cancelled:
                self._stop("cancelled", logging.DEBUG)
                raise
            except Exception as exc:  # noqa: BLE001 -- a link never takes the process down
                self._stop(f"reader failed: {exc!r}", logging.ERROR)
                await self._abort()
            finally:
                self.finished.set()

    def _stop(self, reason: str, level: int) -> None:
        if self.reason is None:
            self.reason = reason
            log.log(level, "link %s: %s", self.name, reason)

    async def _abort(self) -> None:
        with trio.CancelScope(shield=True):
            await trio.aclose_forcefully(self.stream)

    async def receive(self) -> bytes:
        """The next frame's payload; :class:`LinkClosed` once the link is over."""
        try:
            return await self._out.receive()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise LinkClosed(self.reason or "closed") from None

    def receive_nowait(self) -> bytes:
        """A frame already decoded, :class:`trio.WouldBlock` if none, :class:`LinkClosed` at the end."""
        try:
            return self._out.receive_nowait()
        except (trio.EndOfChannel, trio.ClosedResourceError):
            raise LinkClosed(self.reason or "closed") from None

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            try:
                yield await self.receive()
            except LinkClosed:
                return

    # ------------------------------------------------------------------ writing
    async def send(self, payload: bytes) -> None:
        """Send one frame.  :class:`LinkClosed` if the link is broken or closed.

        A payload over the limit is a local bug and raises :class:`FrameError`.
        """
        data = frame(payload, self.limit)
        async with self._send_lock:
            if self._eof_sent:
                raise LinkClosed("this side has finished sending")
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise LinkClosed(f"cannot send to {self.name}: {exc.__cause__ or exc}") from None
        self.bytes_out += len(data)

    async def send_eof(self) -> None:
        """Tell the remote side that nothing more will be sent (half-close when possible)."""
        async with self._send_lock:
            if self._eof_sent:
                return
            self._eof_sent = True
            try:
                if isinstance(self.stream, trio.abc.HalfCloseableStream):
                    await self.stream.send_eof()
                else:
                    await self.stream.aclose()
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

    async def aclose(self, reason: str = "closed locally") -> None:
        """Close the stream; the reader stops and :meth:`receive` ends."""
        if self.reason is None:
            self.reason = reason
        self._out.close()  # frees a reader blocked on a full channel
        await trio.aclose_forcefully(self.stream)
