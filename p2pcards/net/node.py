"""One process's part of a table: its local peers, its links to the other processes.

A :class:`Node` holds one or more local peers -- each a :class:`~p2pcards.table.Table`
replica with its own identity and player -- and one :class:`~p2pcards.net.link.Link` to
every other process of the mesh.  Every message a local peer authors goes to the other
local peers and, directly, to every other process (nothing is relayed).  Every frame that
arrives on a link goes to every local peer.

Each local peer has one task that feeds what it receives to its Table in order: the
transcript is strictly sequential, but in a mesh a message from one author can overtake
another author's earlier one, so a message whose ``seq`` is ahead of the Table waits in a
bounded buffer until the Table catches up; duplicates are dropped; whatever the Table
rejects (:class:`~p2pcards.table.table.Rejected`) is logged with its reason and whom it
blames, and changes nothing.  When the Table's seat must decide, the task asks the seat's
player.  Before anything the Table produced leaves the process, the new messages are
appended to the peer's log file (``tables/<table id>/seat<N>.log`` in the data directory:
one wire frame per message, from the genesis on) and fsync'd.

A seat whose message a Table waits for longer than the table timeout stops the node with
:class:`~p2pcards.net.errors.PeerSilent` naming it.  The node's run ends when every local
Table has finished; it then half-closes its links and waits (bounded) for the other
processes to do the same, so that no byte in flight is lost to a reset.
"""

from __future__ import annotations

import logging
import os
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import trio

from p2pcards.core import GameSpec
from p2pcards.core.players import Player
from p2pcards.identity import Identity, fingerprint
from p2pcards.net.errors import MeshError, NetError, PeerSilent, single_error
from p2pcards.net.link import Link, LinkClosed
from p2pcards.table.table import Rejected, SetupError, Table
from p2pcards.table.transcript import Genesis, TranscriptError, parse_message
from p2pcards.table.wire import FrameError, frame, unpack

__all__ = [
    "LocalSeat", "Node", "TableLog", "log_path", "describe_table", "peek_seq", "EventSink", "REMOTE_BACKLOG",
    "AHEAD_WINDOW",
]

log = logging.getLogger("p2pcards.net.node")

#: Frames from links that may wait, per local peer, for its task to take them.
REMOTE_BACKLOG: Final = 64
#: How far ahead of its Table a peer buffers messages (in seq), and how many at most.
AHEAD_WINDOW: Final = 4096
MAX_AHEAD: Final = 1024
#: Longest wait, after the local Tables have finished, for the other processes to hang up.
LINGER: Final = 30.0

#: ``on_event(seat, event)``: a local Table's ``deal`` or ``final`` event.
EventSink = Callable[[int, dict[str, Any]], None]


@dataclass
class LocalSeat:
    """A peer this process runs: its identity, its player, and its private table secret."""

    identity: Identity
    player: Player
    secret: bytes = field(default_factory=lambda: os.urandom(32))


def table_dir(data_dir: Path, table_id: bytes) -> Path:
    return data_dir / "tables" / table_id.hex()


def log_path(data_dir: Path, table_id: bytes, seat: int) -> Path:
    """Where seat ``seat``'s transcript of table ``table_id`` is kept."""
    return table_dir(data_dir, table_id) / f"seat{seat}.log"


class TableLog:
    """An append-only file of frames (one per transcript message), fsync'd on every append.

    The peer's private table secret is kept next to it (``seat<N>.secret``, mode 0600):
    with the log it is all a peer needs to take up its seat again.
    """

    def __init__(self, data_dir: Path, table_id: bytes, seat: int, secret: bytes) -> None:
        directory = table_dir(data_dir, table_id)
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.path = log_path(data_dir, table_id, seat)
        secret_path = directory / f"seat{seat}.secret"
        fd = os.open(secret_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.write(fd, secret)
            os.fsync(fd)
        finally:
            os.close(fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)

    def append(self, messages: Sequence[bytes]) -> None:
        """Append ``messages`` as frames and fsync (blocking: call it from a thread)."""
        data = b"".join(frame(m) for m in messages)
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class _Inbox:
    """A local peer's queue of incoming messages.

    Frames from links are bounded (:data:`REMOTE_BACKLOG`: a link's dispatcher waits for
    room, and TCP pushes back on the sender); messages from the other local peers are
    never refused, so that two local peers can never wait on each other.  Their number is
    bounded by the protocol itself: a peer only writes in its turn.
    """

    def __init__(self, remote_limit: int = REMOTE_BACKLOG) -> None:
        self._items: deque[tuple[bytes, int | None, bool]] = deque()
        self._remote = 0
        self._limit = remote_limit
        self._closed = False
        self._getters = trio.lowlevel.ParkingLot()
        self._putters = trio.lowlevel.ParkingLot()

    def put_local(self, raw: bytes, seq: int | None) -> None:
        if not self._closed:
            self._items.append((raw, seq, False))
            self._getters.unpark_all()

    async def put_remote(self, raw: bytes, seq: int | None) -> None:
        await trio.lowlevel.checkpoint()
        while self._remote >= self._limit and not self._closed:
            await self._putters.park()
        if self._closed:
            return
        self._remote += 1
        self._items.append((raw, seq, True))
        self._getters.unpark_all()

    async def get(self) -> tuple[bytes, int | None]:
        await trio.lowlevel.checkpoint()
        while not self._items:
            await self._getters.park()
        raw, seq, remote = self._items.popleft()
        if remote:
            self._remote -= 1
            self._putters.unpark()
        return raw, seq

    def close(self) -> None:
        """Drop everything queued; later puts are ignored (the peer has finished)."""
        self._closed = True
        self._items.clear()
        self._putters.unpark_all()


@dataclass
class _Peer:
    seat: int
    table: Table
    player: Player
    secret: bytes
    inbox: _Inbox = field(default_factory=_Inbox)
    log: TableLog | None = None
    written: int = 0
    out: list[bytes] = field(default_factory=list)
    ahead: dict[int, list[bytes]] = field(default_factory=dict)
    ahead_count: int = 0
    #: Messages that arrived ahead of the Table and waited (a statistic).
    overtaken: int = 0
    rejected: list[tuple[int | None, Rejected]] = field(default_factory=list)


def peek_seq(raw: bytes) -> tuple[bool, int | None]:
    """``(is msgpack, seq)`` of a frame, without checking anything else."""
    try:
        obj = unpack(raw)
    except FrameError:
        return False, None
    if isinstance(obj, dict):
        seq = obj.get("seq")
        if type(seq) is int and seq >= 0:
            return True, seq
    return True, None


class Node:
    """Local peers of one table and this process's links to the other processes.

    ``seats`` are the local peers (each must hold a seat of the genesis).  ``data_dir``
    (None: no files) is where the log files go.  ``on_event(seat, event)`` receives each
    local Table's events.  ``timeout`` (default: the genesis's) bounds every wait for a
    remote seat's message.
    """

    def __init__(
        self,
        genesis_raw: bytes,
        spec: GameSpec,
        seats: Sequence[LocalSeat],
        *,
        data_dir: Path | None,
        on_event: EventSink | None = None,
        timeout: float | None = None,
    ) -> None:
        try:
            self.genesis = Genesis.from_body(parse_message(genesis_raw, None).body)
        except TranscriptError as exc:
            raise MeshError(f"bad genesis: {exc}") from None
        self.genesis_raw = genesis_raw
        self.table_id = self.genesis.table_id
        self.spec = spec
        self.keys = [s.signing for s in self.genesis.seats]
        self.timeout = float(timeout if timeout is not None else self.genesis.timeout)
        self.data_dir = data_dir
        self._on_event = on_event
        self.peers: dict[int, _Peer] = {}
        for local in seats:
            self._make_peer(local)
        self.links: list[tuple[Link, frozenset[int]]] = []
        self.started = trio.Event()

    def _make_peer(self, local: LocalSeat) -> int:
        holder: list[int] = []

        def emit(event: dict[str, Any]) -> None:
            if self._on_event is not None and holder:
                try:
                    self._on_event(holder[0], event)
                except Exception:  # noqa: BLE001 -- a failing observer must not break the Table mid-message
                    log.exception("seat %d: the event handler failed", holder[0])

        try:
            table = Table(self.genesis_raw, self.spec, local.identity, local.secret, on_event=emit)
        except SetupError as exc:
            raise MeshError(f"cannot take a seat at this table: {exc}") from None
        if table.seat in self.peers:
            raise MeshError(f"seat {table.seat} is given twice to this process")
        holder.append(table.seat)
        self.peers[table.seat] = _Peer(table.seat, table, local.player, local.secret)
        return table.seat

    # ------------------------------------------------------------------ queries
    @property
    def tables(self) -> dict[int, Table]:
        """The local Tables by seat."""
        return {s: p.table for s, p in sorted(self.peers.items())}

    @property
    def rejections(self) -> dict[int, list[tuple[int | None, Rejected]]]:
        """What each local peer refused: ``(seq or None, Rejected)`` in order."""
        return {s: list(p.rejected) for s, p in sorted(self.peers.items())}

    def seat_name(self, seat: int | None) -> str:
        if seat is None or not 0 <= seat < len(self.genesis.seats):
            return "unknown seat"
        info = self.genesis.seats[seat]
        return f"{info.name}, {info.fingerprint}"

    def log_path(self, seat: int) -> Path | None:
        return None if self.data_dir is None else log_path(self.data_dir, self.table_id, seat)

    # ------------------------------------------------------------------ links
    def attach(self, link: Link, seats: frozenset[int] | set[int]) -> None:
        """Add a link to another process that runs ``seats`` (empty: a link that carries
        no seat -- frames from it are still checked, nothing is sent on it)."""
        if self.started.is_set():
            raise MeshError("links are attached before the node runs")
        bad = set(seats) & set(self.peers)
        if bad:
            raise MeshError(f"a link claims local seats {sorted(bad)}")
        self.links.append((link, frozenset(seats)))

    # ------------------------------------------------------------------ running
    async def run(self) -> None:
        """Play until every local Table has finished (or raise a :class:`NetError`)."""
        self._open_logs()
        try:
            with single_error():
                async with trio.open_nursery() as nursery:
                    for link, seats in self.links:
                        if not link.running:
                            await nursery.start(link.run)
                        nursery.start_soon(self._dispatch, link, seats)
                    self.started.set()
                    async with trio.open_nursery() as peers:
                        for peer in self.peers.values():
                            peers.start_soon(self._run_peer, peer)
                    await self._hang_up()
                    nursery.cancel_scope.cancel()
        finally:
            for peer in self.peers.values():
                if peer.log is not None:
                    peer.log.close()
            with trio.CancelScope(shield=True):
                for link, _ in self.links:
                    await link.aclose("the table is over")

    def _open_logs(self) -> None:
        if self.data_dir is None:
            return
        for peer in self.peers.values():
            try:
                peer.log = TableLog(self.data_dir, self.table_id, peer.seat, peer.secret)
            except FileExistsError:
                raise NetError(f"{log_path(self.data_dir, self.table_id, peer.seat)} exists already") from None
            except OSError as exc:
                raise NetError(f"cannot write the table log: {exc}") from None

    async def _dispatch(self, link: Link, seats: frozenset[int]) -> None:
        """Hand every frame from ``link`` to every unfinished local peer."""
        async for raw in link:
            is_msgpack, seq = peek_seq(raw)
            if not is_msgpack:
                log.warning("link %s: garbage frame (not msgpack); closing the link", link.name)
                await link.aclose("sent garbage")
                break
            for peer in self.peers.values():
                if not peer.table.finished:
                    await peer.inbox.put_remote(raw, seq)
        if seats and not all(p.table.finished for p in self.peers.values()):
            names = ", ".join(f"seat {s}" for s in sorted(seats))
            # a clean hang-up is what a process does when its tables are over
            level = logging.INFO if link.clean_eof else logging.WARNING
            log.log(level, "link to %s closed before this process's tables ended: %s", names, link.reason)

    async def _run_peer(self, peer: _Peer) -> None:
        table = peer.table
        peer.out.extend(table.start())
        written_seq = -1
        deadline = trio.current_time() + self.timeout
        while True:
            self._pump(peer)
            if table.seq != written_seq:
                await self._commit(peer)
                written_seq = table.seq
                deadline = trio.current_time() + self.timeout
            if table.finished:
                break
            with trio.move_on_at(deadline):
                raw, seq = await peer.inbox.get()
                self._file(peer, raw, seq)
                continue
            seat = table.expected()
            raise PeerSilent(-1 if seat is None else seat, self.seat_name(seat), self.timeout, table.seq, peer.seat)
        peer.inbox.close()
        log.info("seat %d: table over after %d messages", peer.seat, table.seq)

    def _file(self, peer: _Peer, raw: bytes, seq: int | None) -> None:
        """Take one received message: drop a duplicate, buffer one from ahead, reject the rest."""
        table = peer.table
        if seq is not None and seq < table.seq and table.log[seq] == raw:
            return  # a duplicate of an accepted message
        if seq is None or seq < table.seq:
            self._try(peer, raw, seq)  # the Table says why not
            return
        if seq - table.seq > AHEAD_WINDOW:
            self._reject(peer, seq, Rejected(f"seq {seq} is too far ahead of {table.seq}; dropped"))
            return
        if peer.ahead_count >= MAX_AHEAD:
            self._reject(peer, seq, Rejected(f"{MAX_AHEAD} messages already wait for their turn; seq {seq} dropped"))
            return
        bucket = peer.ahead.setdefault(seq, [])
        if raw not in bucket:
            bucket.append(raw)
            peer.ahead_count += 1
            if seq > table.seq:
                peer.overtaken += 1

    def _pump(self, peer: _Peer) -> None:
        """Apply the seat's decisions and every buffered message that fits, in order."""
        table = peer.table
        progressed = True
        while progressed and not table.finished:
            progressed = False
            decision = table.decision()
            if decision is not None:
                view = table.view()
                assert view is not None
                peer.out.extend(table.decide(peer.player.choose(view, decision)))
                progressed = True
                continue
            seq = table.seq
            candidates = peer.ahead.pop(seq, None)
            if not candidates:
                continue
            peer.ahead_count -= len(candidates)
            for i, raw in enumerate(candidates):
                if self._try(peer, raw, seq):
                    progressed = True
                    for other in candidates[i + 1:]:
                        if other != raw:
                            self._try(peer, other, seq)
                    break

    def _try(self, peer: _Peer, raw: bytes, seq: int | None) -> bool:
        try:
            peer.out.extend(peer.table.receive(raw))
        except Rejected as exc:
            self._reject(peer, seq, exc)
            return False
        except Exception as exc:  # noqa: BLE001 -- a bug below must not stop the peer
            log.exception("seat %d: the table failed on a message (seq %s)", peer.seat, seq)
            self._reject(peer, seq, Rejected(f"internal error: {exc!r}"))
            return False
        return True

    def _reject(self, peer: _Peer, seq: int | None, exc: Rejected) -> None:
        peer.rejected.append((seq, exc))
        if exc.blame is None:
            blame = "nobody can be blamed"
        else:
            blame = f"blames seat {exc.blame} ({self.seat_name(exc.blame)})"
        log.warning("seat %d rejected a message (seq %s; %s): %s", peer.seat,
                    "?" if seq is None else seq, blame, exc.reason)

    async def _commit(self, peer: _Peer) -> None:
        """Log what the Table accepted or wrote (fsync), then send what it wrote."""
        table = peer.table
        new = table.log[peer.written:]
        if new and peer.log is not None:
            await trio.to_thread.run_sync(peer.log.append, new)
        peer.written = len(table.log)
        out, peer.out = peer.out, []
        for raw in out:
            await self._broadcast(peer.seat, raw)

    async def _broadcast(self, author: int, raw: bytes) -> None:
        seq = peek_seq(raw)[1]
        for other in self.peers.values():
            if other.seat != author and not other.table.finished:
                other.inbox.put_local(raw, seq)
        for link, seats in self.links:
            if not seats or link.reason is not None:
                continue
            with trio.move_on_after(self.timeout) as scope:
                try:
                    await link.send(raw)
                except LinkClosed as exc:
                    log.warning("seat %d cannot send to %s: %s", author, link.name, exc)
            if scope.cancelled_caught:
                log.warning("link %s took more than %g s to accept a message; closing it", link.name, self.timeout)
                await link.aclose("stopped reading")

    async def _hang_up(self) -> None:
        """Half-close every link, then wait (bounded) until the processes with seats hang up too."""
        for link, _ in self.links:
            await link.send_eof()
        with trio.move_on_after(min(self.timeout, LINGER)):
            for link, seats in self.links:
                if seats:
                    await link.finished.wait()



def describe_table(genesis: Genesis, local_seats: Sequence[int]) -> dict[str, Any]:
    """The ``table`` object of the ``--json`` output: the genesis in plain values."""
    return {
        "type": "table",
        "table": genesis.table_id.hex(),
        "game": genesis.game,
        "rules_version": genesis.rules_version,
        "options": dict(genesis.options),
        "deals": genesis.deals,
        "timeout": genesis.timeout,
        "host": {"name": genesis.host_name, "fingerprint": fingerprint(genesis.host_signing)},
        "seats": [
            {"seat": i, "name": s.name, "fingerprint": s.fingerprint, "bot": s.bot, "runs_on": s.runs_on}
            for i, s in enumerate(genesis.seats)
        ],
        "local_seats": sorted(local_seats),
    }
