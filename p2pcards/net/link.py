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

Work is bounded before it is done.  The reader never holds more than ``limit + 4`` bytes of
a frame (it reads no further than the current frame can reach), and a length above the
limit is refused as soon as its 4 bytes are in, without waiting for the body.  A listener's connection
starts with the small :data:`PREAUTH_FRAME` limit and raises it (:meth:`Link.raise_limit`)
once the remote side has proven who it is; a :class:`PreauthGate` caps how many
connections a listener holds before that.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Sequence
from types import TracebackType
from typing import Final

import trio

from p2pcards.net.errors import ConnectError
from p2pcards.net.handshake import decode
from p2pcards.table.wire import MAX_FRAME, FrameDecoder, FrameError, frame

__all__ = ["Link", "LinkClosed", "PreauthGate", "PreauthSlot", "PREAUTH_FRAME", "PREAUTH_CONNECTIONS", "open_preauth",
           "receive_control"]

log = logging.getLogger("p2pcards.net.link")

_CHUNK = 65536

#: Largest frame a listener reads from a connection that has not authenticated yet (before
#: its ``hello``, ``mesh`` hello or ``rejoin`` proof is accepted).  The largest legitimate
#: frame then is a ``hello`` listing the most games a host accepts (256, each a name of at
#: most 40 characters and a rules version of at most 16, in UTF-8): under 28 KiB.  Mesh
#: hellos, ``rejoin`` and ``proof`` carry at most 16 seats and signatures: about 1.2 KiB.
PREAUTH_FRAME: Final = 32 * 1024
#: Most connections one listener holds before they authenticate; more are closed at once.
#: A table has at most 16 seats, so every other process arriving (or coming back) at once fits.
PREAUTH_CONNECTIONS: Final = 16
#: Seconds between two log lines about connections turned away by a :class:`PreauthGate`.
_GATE_LOG_EVERY: Final = 5.0


class LinkClosed(Exception):
    """The link is closed: by the remote side, by a framing error, or locally."""


class Link:
    """Frames over ``stream``; start :meth:`run` in a nursery before receiving.

    ``name`` says who is at the other end, for log lines.  ``limit`` is the largest frame
    read or sent (a listener's connection starts at :data:`PREAUTH_FRAME`, see
    :meth:`raise_limit`).  ``capacity`` bounds the frames decoded but not yet taken by
    :meth:`receive`.
    """

    def __init__(self, stream: trio.abc.Stream, name: str, *, limit: int = MAX_FRAME, capacity: int = 16) -> None:
        self.stream = stream
        self.name = name
        self._decoder = FrameDecoder(limit)
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

    @property
    def limit(self) -> int:
        """The largest frame this link reads or sends now."""
        return self._decoder.limit

    def raise_limit(self, limit: int = MAX_FRAME) -> None:
        """Accept frames up to ``limit`` from now on (the remote side has authenticated).

        It applies to every frame whose length the reader has not checked yet: call it
        before answering the authenticating frame (or at least before the next checkpoint),
        so that the remote side's next frame, sent once it has the answer, is read with it.
        Frames that arrived before were read with the smaller limit: a remote side that does
        not wait for the answer gets a framing error.
        """
        if limit < self._decoder.limit:
            raise ValueError(f"a link's frame limit only goes up ({self._decoder.limit} -> {limit})")
        self._decoder.limit = limit

    @property
    def pending(self) -> int:
        """Bytes read that do not make a whole frame yet (at most ``limit + 4``)."""
        return self._decoder.pending

    # ------------------------------------------------------------------ reading
    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """The reader task: decode frames into the channel until EOF, an error or close.

        Never raises (except Cancelled): every failure closes this link and is logged.
        """
        self.running = True
        task_status.started()
        decoder = self._decoder
        async with self._in:  # closed last, so that a receiver always finds the reason set
            try:
                while True:
                    # never further than the current frame can reach: at most limit + 4 bytes held
                    data = await self.stream.receive_some(min(_CHUNK, max(1, decoder.limit + 4 - decoder.pending)))
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
        await self.send_frames((payload,))

    async def send_frames(self, payloads: Sequence[bytes]) -> None:
        """Send frames in order, in one write (:meth:`send`).  The bytes leave as soon as the
        stream takes them: the lock is taken without a pass through the scheduler when no
        other send holds it, so that a frame is not held up behind whatever other task runs
        next (a replica checking a shuffle proof)."""
        data = b"".join(frame(payload, self.limit) for payload in payloads)
        try:
            self._send_lock.acquire_nowait()
        except trio.WouldBlock:
            await self._send_lock.acquire()
        try:
            if self._eof_sent:
                raise LinkClosed("this side has finished sending")
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as exc:
                raise LinkClosed(f"cannot send to {self.name}: {exc.__cause__ or exc}") from None
        finally:
            self._send_lock.release()
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


class PreauthSlot:
    """One connection counted by a :class:`PreauthGate`; :meth:`release` it once the
    connection has authenticated.  Leaving its ``with`` block releases it too (whatever
    the way out: an error, a timeout, cancellation), so it is never held by a closed one."""

    def __init__(self, gate: PreauthGate) -> None:
        self._gate: PreauthGate | None = gate

    def release(self) -> None:
        """Stop counting this connection (idempotent)."""
        if self._gate is not None:
            self._gate.open -= 1
            self._gate = None

    def __enter__(self) -> PreauthSlot:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.release()


class PreauthGate:
    """The connections of one listener that have not authenticated yet: at most ``cap``.

    :meth:`enter` gives a :class:`PreauthSlot`, or None when ``cap`` connections are
    already waiting: the listener then closes the new one at once, before its greeting.
    Connections turned away are logged at most once per :data:`_GATE_LOG_EVERY` seconds.
    """

    def __init__(self, what: str, cap: int = PREAUTH_CONNECTIONS) -> None:
        self.what = what
        self.cap = cap
        #: Connections counted now.
        self.open = 0
        #: Connections turned away since this gate was made.
        self.turned_away = 0
        self._unlogged = 0
        self._logged_at = -math.inf

    def enter(self) -> PreauthSlot | None:
        """A slot for a new connection, or None if the listener must close it at once."""
        if self.open < self.cap:
            self.open += 1
            return PreauthSlot(self)
        self.turned_away += 1
        self._unlogged += 1
        now = trio.current_time()
        if now - self._logged_at >= _GATE_LOG_EVERY:
            log.warning("%s: %d new connection(s) closed at once since the last such message: %d connections "
                        "have not authenticated yet, the most it holds", self.what, self._unlogged, self.open)
            self._logged_at = now
            self._unlogged = 0
        return None


async def open_preauth(stream: trio.SocketStream, gate: PreauthGate) -> tuple[Link, PreauthSlot, str] | None:
    """A new connection to a listener, as a link that has not authenticated yet: the link
    (frames of at most :data:`PREAUTH_FRAME` bytes, not yet running), its slot of ``gate``
    (the caller releases it on every way out) and the peer's address.  None when it cannot
    be one -- the peer is already gone, or ``gate`` is full -- and then the stream is closed
    at once, before any greeting."""
    try:
        peer = stream.socket.getpeername()
    except OSError:
        await trio.aclose_forcefully(stream)
        return None
    slot = gate.enter()
    if slot is None:
        await trio.aclose_forcefully(stream)
        return None
    return Link(stream, f"{peer[0]}:{peer[1]}", limit=PREAUTH_FRAME), slot, str(peer[0])


async def receive_control(link: Link, what: str, timeout: float | None = None) -> dict[str, object]:
    """The next control message on ``link``, decoded (``what``: what this peer waits for,
    for the error).  Raises :class:`~p2pcards.net.errors.ConnectError` when the link closes,
    or when nothing comes within ``timeout`` seconds, and
    :class:`~p2pcards.net.handshake.LobbyProtocolError` for a message that is not one."""
    with trio.move_on_after(math.inf if timeout is None else timeout):
        try:
            return decode(await link.receive())
        except LinkClosed as exc:
            raise ConnectError(f"{link.name} closed the connection while this peer waited for {what}: {exc}") from None
    raise ConnectError(f"{link.name} sent no {what} within {timeout:g} s")
