"""One process's part of a table: its local peers, its links to the other processes.

A :class:`Node` holds one or more local peers -- each a :class:`~p2pcards.table.Table`
replica with its own identity and player -- and one :class:`~p2pcards.net.link.Link` to
every other process of the mesh.  Every message a local peer sends goes to the other local
peers and, directly, to every other process (nothing is relayed by the runtime itself: a
Table relays what it must, e.g. a silent seat's message it holds, by returning it).
Every frame that arrives on a link goes to every local peer.

Each local peer has one task that feeds what it receives to its Table in order: the
transcript is strictly sequential, but in a mesh a message from one author can overtake
another author's earlier one, so an entry whose ``seq`` is ahead of the Table waits in a
bounded buffer until the Table catches up; side messages (votes, nays, seeds) go to the
Table at once (it keeps those for a place it has not reached); duplicates are dropped;
whatever the Table refuses (:class:`~p2pcards.table.table.Rejected`) is logged with its
reason and whom it blames, and changes nothing.  Refusals cost the link that caused them:
past a rate (:data:`REFUSALS_PER_SECOND`, burst :data:`REFUSAL_BURST`) a link's frames are
dropped unread for a while, so that nobody can keep a peer busy checking garbage.  When the
Table's seat must decide, the task asks the seat's player (a player with an
``achoose(view, decision)`` coroutine -- a person at a screen -- is awaited; one with
``observe(table)`` is called after every change of its Table).  Before anything the Table
produced leaves the process, the new entries are appended to the peer's log file
(``tables/<table id>/seat<N>.log`` in the data directory: one wire frame per message, from
the genesis on) and fsync'd, and so are the peer's own votes and nays (``seat<N>.side``: a
voter must never vote and nay both, even across a crash).  Entries of its own that a
certificate superseded are cut from the log and kept apart in ``seat<N>.rejected``: the
log holds the table's chain only.  The write and fsync run in the trio thread (a hop to a
worker thread per message cost more than the fsync, ``p2pcards bench table``); messages
that arrived together are filed together and logged with one fsync.

**Clocks.**  A :class:`_Clock` per local peer notes when each seat became due (the seat
that must write the next entry, or a seat whose seed the seed round waits for).  A
heartbeat task looks at the clocks four times a second: at half the table's timeout
without progress a peer asks the other processes for what it may have missed (``sync``);
once a seat has been due for the timeout, the peer votes it out if its Table allows
(:meth:`Table.may_vote`: a table of at least three playing seats; the others vote from
their own clocks, and the certificate needs every one of them).  **The clocks measure the
other seat's silence, not this process's sleep**: when a heartbeat comes late (the process
was stopped, the machine slept), every clock restarts and the node asks for a sync first,
so a peer that was away catches up before any timer of its own may act.  A Table that has
made no progress for twice the timeout stops the node with
:class:`~p2pcards.net.errors.PeerSilent`: the table is left as it is, to be resumed.

**A seat voted out** keeps following the table as an observer to its end (its replica
checks everything, it just writes nothing): the process learns the outcome.

**Reconnections.**  A process that comes back (``p2pcards resume``) proves its seats over
fresh nonces (:mod:`p2pcards.net.rejoin`); :meth:`Node.adopt_link` then replaces the
dead link, and both sides ask each other for what they missed.  A node built with saved
logs (:class:`LocalSeat` ``log``) restores its Tables from them and continues its files.

**The end.**  The run ends when every local Table has finished; the node then half-closes
its links and waits (bounded) for the other processes to do the same, so that no byte in
flight is lost.  When a process of the table is missing at the end (its link is down, or
its seat was voted out), the node **lingers** up to ``linger`` seconds, answering
reconnections and syncs, so that a late peer can learn the outcome.
"""

from __future__ import annotations

import logging
import math
import os
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import trio

from p2pcards.core import GameRegistry, GameSpec
from p2pcards.core.players import Player
from p2pcards.identity import Identity, fingerprint
from p2pcards.net.errors import MeshError, NetError, PeerSilent, ResumeError, single_error
from p2pcards.net.link import Link
from p2pcards.net.lobby import SYNC_BATCH, LobbyProtocolError, Sync, make_sync, make_synced, parse_control
from p2pcards.net.sender import LinkSender
from p2pcards.net.store import (
    FrameFile,
    Manifest,
    StoreError,
    TableLog,
    log_path,
    peer_stem,
    save_manifest,
    side_path,
    table_dir,
)
from p2pcards.table.table import Rejected, SetupError, Table
from p2pcards.table.transcript import SIDE_KINDS, Genesis, TableKind, TranscriptError, parse_message, peek
from p2pcards.table.wire import FrameError, unpack

if TYPE_CHECKING:
    from p2pcards.history.db import Recorder

__all__ = [
    "LocalSeat", "Node", "ThreadedPlayer", "in_background",
    "TableLog", "log_path", "table_dir", "describe_table", "peek_seq", "EventSink",
    "REMOTE_BACKLOG", "AHEAD_WINDOW", "LinkSink", "HEARTBEAT", "GAP",
]

log = logging.getLogger("p2pcards.net.node")
#: A log record of a refused message carries ``(replica's seat, blamed seat or None)`` under
#: this attribute, for a screen to tell the person (:mod:`p2pcards.tui.logfile`).
REFUSED_RECORD = "p2pcards_refused"

#: Frames from links that may wait, per local peer, for its task to take them.
REMOTE_BACKLOG: Final = 64
#: How far ahead of its Table a peer buffers entries (in seq), and how many at most.
AHEAD_WINDOW: Final = 4096
MAX_AHEAD: Final = 1024
#: Longest wait, after the local Tables have finished, for the other processes to hang up.
LINGER: Final = 30.0
#: Seconds between two looks at the clocks.
HEARTBEAT: Final = 0.25
#: A heartbeat later than this many seconds means this process was away (stopped, asleep).
GAP: Final = 2.0
#: Refusals a link may cause: a burst, then this many per second.
REFUSAL_BURST: Final = 64
REFUSALS_PER_SECOND: Final = 8.0
#: After this long with entries waiting ahead of the Table and nothing fitting, ask for a sync.
AHEAD_SYNC: Final = 1.0
#: What the heartbeat puts in a peer's inbox to wake it (a clock ran out).
POKE: Final = b""

#: ``on_event(seat, event)``: a local Table's ``deal`` or ``final`` event.
EventSink = Callable[[int, dict[str, Any]], None]
#: ``on_link(seats, up)``: the link to the process of ``seats`` went down (``up`` False) in
#: the middle of the table, or a reconnection of that process replaced it (``up`` True).
LinkSink = Callable[[frozenset[int], bool], None]


@dataclass
class LocalSeat:
    """A peer this process runs: its identity, its player, and its private table secret.

    To take a seat again after a crash, ``log`` is the saved transcript (the Table is
    restored from it and the file goes on) and ``side`` the peer's saved votes and nays;
    ``stem`` names its files (:func:`~p2pcards.net.store.peer_stem`).
    """

    identity: Identity
    player: Player
    secret: bytes = field(default_factory=lambda: os.urandom(32))
    log: list[bytes] | None = None
    side: list[bytes] = field(default_factory=list)
    stem: str | None = None


class ThreadedPlayer:
    """A computer player that thinks in a worker thread, so that the peer's links,
    heartbeats and clocks go on while it searches (:func:`in_background`).

    The peer's task awaits :meth:`achoose` and files nothing meanwhile, so the Table the
    view reads does not change under the thread.
    """

    def __init__(self, inner: Player) -> None:
        self.inner = inner

    async def achoose(self, view: Any, decision: Any) -> Any:
        return await trio.to_thread.run_sync(self.inner.choose, view, decision)

    def choose(self, view: Any, decision: Any) -> Any:  # the plain Player interface
        return self.inner.choose(view, decision)


def in_background(player: Player) -> Player:
    """``player`` itself, or, for a player that takes time to think (a ``thinks``
    attribute that is true, like the search bot's), a :class:`ThreadedPlayer` around it.
    Quick players stay in the trio thread: a hop to a worker thread per decision costs
    more than their whole decision."""
    if getattr(player, "thinks", False) and not hasattr(player, "achoose"):
        return ThreadedPlayer(player)
    return player


class _Inbox:
    """A local peer's queue of incoming messages.

    Frames from links are bounded (:data:`REMOTE_BACKLOG`: a link's dispatcher waits for
    room, and TCP pushes back on the sender); messages from the other local peers are
    never refused, so that two local peers can never wait on each other.  Their number is
    bounded by the protocol itself: a peer only writes in its turn.
    """

    def __init__(self, remote_limit: int = REMOTE_BACKLOG) -> None:
        self._items: deque[tuple[bytes, Link | None]] = deque()
        self._remote = 0
        self._limit = remote_limit
        self._closed = False
        self._getters = trio.lowlevel.ParkingLot()
        self._putters = trio.lowlevel.ParkingLot()

    def put_local(self, raw: bytes) -> None:
        if not self._closed:
            self._items.append((raw, None))
            self._getters.unpark_all()

    async def put_remote(self, raw: bytes, link: Link) -> None:
        await trio.lowlevel.checkpoint()
        while self._remote >= self._limit and not self._closed:
            await self._putters.park()
        if self._closed:
            return
        self._remote += 1
        self._items.append((raw, link))
        self._getters.unpark_all()

    async def get(self) -> tuple[bytes, Link | None]:
        await trio.lowlevel.checkpoint()
        while not self._items:
            await self._getters.park()
        return self._pop()

    def get_nowait(self) -> tuple[bytes, Link | None] | None:
        return self._pop() if self._items else None

    def _pop(self) -> tuple[bytes, Link | None]:
        raw, link = self._items.popleft()
        if link is not None:
            self._remote -= 1
            self._putters.unpark()
        return raw, link

    def close(self) -> None:
        """Drop everything queued; later puts are ignored (the peer has finished)."""
        self._closed = True
        self._items.clear()
        self._putters.unpark_all()


class _Clock:
    """When each due seat became due, and when the Table last moved (trio time)."""

    def __init__(self, now: float) -> None:
        self.progress = now
        self.due: dict[int, float] = {}
        self.synced = False

    def update(self, due: frozenset[int], now: float, moved: bool) -> None:
        if moved:
            self.progress = now
            self.synced = False
        self.due = {s: self.due.get(s, now) for s in due}

    def restart(self, now: float) -> None:
        """This process was away: nobody's silence can be measured across the gap."""
        self.progress = now
        self.due = {s: now for s in self.due}
        self.synced = False


@dataclass
class _Peer:
    seat: int
    table: Table
    player: Player
    secret: bytes
    clock: _Clock
    inbox: _Inbox = field(default_factory=_Inbox)
    log: TableLog | None = None
    side_file: FrameFile | None = None
    rejected_file: FrameFile | None = None
    written: int = 0
    out: list[bytes] = field(default_factory=list)
    ahead: dict[int, list[tuple[bytes, Link | None]]] = field(default_factory=dict)
    ahead_count: int = 0
    ahead_since: float | None = None
    #: The furthest ``close`` buffered ahead, and the furthest one shown to a Table that
    #: holds a late entry aside (:meth:`Table.take_held`)
    ahead_close: int = -1
    held_tried: int = -1
    #: Messages that arrived ahead of the Table and waited (a statistic).
    overtaken: int = 0
    rejected: list[tuple[int | None, Rejected]] = field(default_factory=list)
    stem: str = ""
    #: True when the Table was restored from a saved log (it has started already).
    restored: bool = False
    #: Messages the restored log held when the node took it (the file goes on from there).
    saved: list[bytes] | None = None


class _Bucket:
    """A token bucket of refusals per link."""

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


def peek_seq(raw: bytes) -> tuple[bool, int | None]:
    """``(is msgpack, seq)`` of a frame, without checking anything else."""
    try:
        unpack(raw)
    except FrameError:
        return False, None
    return True, peek(raw)[1]


class Node:
    """Local peers of one table and this process's links to the other processes.

    ``seats`` are the local peers (each must hold a seat of the genesis).  ``data_dir``
    (None: no files) is where the log files go, with the process's ``manifest`` if given
    (:mod:`p2pcards.net.store`), and where each local Table's deals and end are recorded
    as they close, in the data directory's history database (:attr:`history`, whose
    failures never reach the table).  ``on_event(seat, event)`` receives each local Table's
    events; ``on_link(seats, up)`` hears of links to other processes lost before the
    table's end and of their reconnections (a screen says "reconnecting").  ``timeout``
    (default: the genesis's) is how long a seat may stay silent before this process votes
    it out; ``linger`` how long a finished node waits for a missing process to come back
    and learn the outcome.  ``table_class`` builds the replicas (tests run dishonest ones).
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
        manifest: Manifest | None = None,
        on_link: LinkSink | None = None,
        linger: float = LINGER,
        table_class: Callable[..., Table] = Table,
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
        self.linger = linger
        self.data_dir = data_dir
        self._on_event = on_event
        self._on_link = on_link
        self.manifest = manifest
        self.table_class = table_class
        self.seat_infos = list(self.genesis.seats)
        self.peers: dict[int, _Peer] = {}
        self.links: list[tuple[Link, frozenset[int]]] = []
        self.started = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._last_tick: float | None = None  # trio time of the heartbeat's last tick (_was_away)
        #: each link's sender: its queue of frames and the task that sends them
        #: (:mod:`p2pcards.net.sender`), so that one slow link delays no other
        self.senders: dict[Link, LinkSender] = {}
        #: links whose last sync answer reached the end of what this process had written
        self._whole: set[Link] = set()
        #: True once every local Table has finished (the node only lingers, answering syncs)
        self._over = False
        self._buckets: dict[Link, _Bucket] = {}
        self._synced_at: dict[Link, float] = {}
        #: records the ``deal`` and ``final`` events of the lowest local seat's Table (every
        #: replica tells the same) in the history database of ``data_dir``
        #: (:mod:`p2pcards.history.db`): the one place where every table this process plays,
        #: on a screen or headless, is recorded live; None without a data directory
        self.history = _recorder(spec) if data_dir is not None else None
        self._recording: int | None = None
        for local in seats:
            self._make_peer(local)

    def _make_peer(self, local: LocalSeat) -> int:
        holder: list[int] = []

        def emit(event: dict[str, Any]) -> None:
            if not holder:
                return
            if muted[0]:  # a restored Table's past is not told again; the history only makes sure it has it
                self._record(holder[0], event)
            else:
                self.tell(holder[0], event)

        muted = [local.log is not None]
        try:
            table = self.table_class(self.genesis_raw, self.spec, local.identity, local.secret, on_event=emit)
        except SetupError as exc:
            raise MeshError(f"cannot take a seat at this table: {exc}") from None
        seat = table.seat
        assert seat is not None
        if seat in self.peers:
            raise MeshError(f"seat {seat} is given twice to this process")
        holder.append(seat)
        self._recording = seat if self._recording is None else min(self._recording, seat)
        peer = _Peer(seat, table, in_background(local.player), local.secret, _Clock(0.0),
                     stem=local.stem or peer_stem(seat))
        if local.log is not None:
            try:
                peer.out = table.restore(local.log, local.side)
            except (SetupError, Rejected) as exc:
                raise ResumeError(f"the saved transcript of seat {seat} ({peer.stem}.log) is not sound, "
                                  f"so this process will not take its seat again: {exc}") from None
            finally:
                muted[0] = False
            peer.restored = True
            peer.saved = list(local.log)
            peer.written = len(local.log)
            for raw in table.take_superseded():  # pragma: no cover -- a restore supersedes nothing
                log.warning("seat %d: message %s was superseded", seat, raw[:8].hex())
        self.peers[seat] = peer
        return seat

    # ------------------------------------------------------------------ events
    def tell(self, seat: int, event: dict[str, Any]) -> None:
        """Seat ``seat``'s Table's ``event``: recorded in the history (before anyone is told
        of it, so that what a person or a program sees is there already), then given to
        ``on_event``.  Neither may break the Table mid-message: their failures are logged."""
        self._record(seat, event)
        if self._on_event is not None:
            try:
                self._on_event(seat, event)
            except Exception:  # noqa: BLE001 -- a failing observer must not break the Table mid-message
                log.exception("seat %d: the event handler failed", seat)

    def _record(self, seat: int, event: dict[str, Any]) -> None:
        if self.history is not None and seat == self._recording:  # the Recorder never raises
            self.history.record(self.data_dir, self.table_id, seat, event)

    def close_history(self) -> None:
        """Close the history database (it opens again if another event comes)."""
        if self.history is not None:
            self.history.close()

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
        if seat is None or not 0 <= seat < len(self.seat_infos):
            return "unknown seat"
        info = self.seat_infos[seat]
        return f"{info.name}, {info.fingerprint}"

    def log_path(self, seat: int) -> Path | None:
        if self.data_dir is None:
            return None
        peer = self.peers.get(seat)
        return log_path(self.data_dir, self.table_id, seat, peer.stem if peer else None)

    @property
    def n_seats(self) -> int:
        return len(self.genesis.seats)

    def _lead(self) -> Table:
        """The local Table furthest along (what this process knows of the table)."""
        return max((p.table for p in self.peers.values()), key=lambda t: t.seq)

    def current_keys(self) -> list[bytes]:
        """Each seat's signing key (they never change: a seat voted out keeps its key)."""
        return list(self.keys)

    def former_keys(self) -> dict[int, list[bytes]]:
        """Keys seats held before (none: a vote no longer hands a seat to a new key)."""
        return {}

    def local_identities(self) -> dict[int, Identity]:
        """The identities of the local peers (they prove this process's seats)."""
        out: dict[int, Identity] = {}
        for s, p in sorted(self.peers.items()):
            if p.table.me is not None:
                out[s] = p.table.me
        return out

    def _min_seq(self) -> int:
        return min(p.table.seq for p in self.peers.values())

    def _sync_start(self) -> int:
        """Where to ask the others' transcript from: the start of the current deal of the
        local Table furthest behind (a certificate may have taken the place of this process's
        own last entries, within that deal)."""
        return min(p.table.deal_start for p in self.peers.values())

    @property
    def voted_out(self) -> list[int]:
        """Local seats the other seats voted out."""
        return [s for s, p in sorted(self.peers.items()) if p.table.voted_out]

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

    def adopt_link(self, link: Link, seats: frozenset[int]) -> bool:
        """A reconnection (verified by :mod:`p2pcards.net.rejoin`) of the process that runs
        ``seats``: it replaces that process's old link, and both sides ask each other for
        what they missed.  Returns False when the new link loses to one that is already up
        (two processes that came back dialled each other: the one dialled by the process
        whose lowest seat is higher is kept, on both sides).  ``link`` is already read."""
        if not self.may_adopt(link, seats):
            return False
        old = [(lk, s) for lk, s in self.links if s & seats]
        self.links = [(lk, s) for lk, s in self.links if not (s & seats)] + [(link, frozenset(seats))]
        link.rejoined = True
        if self._nursery is None:  # not running yet: the run starts its dispatcher and asks for a sync
            return True
        for lk, _ in old:
            self._nursery.start_soon(lk.aclose, "replaced by a new connection")
        self._start_link(self._nursery, link, frozenset(seats))
        self.request_sync(self._sync_start(), [(link, frozenset(seats))])
        log.info("seat(s) %s: link replaced by a new connection (%s)", sorted(seats), link.name)
        self._tell_link(frozenset(seats), True)
        return True

    def _tell_link(self, seats: frozenset[int], up: bool) -> None:
        if self._on_link is None or not seats:
            return
        try:
            self._on_link(seats, up)
        except Exception:  # noqa: BLE001 -- a failing observer must not break the node
            log.exception("the link observer failed")

    def may_adopt(self, link: Link, seats: frozenset[int]) -> bool:
        """Whether :meth:`adopt_link` would take ``link`` (it does not lose to a link up already)."""
        if set(seats) & set(self.peers):
            return False
        for lk, s in self.links:
            if s & seats and lk.rejoined and lk.reason is None and self._wins(lk, s) and not self._wins(link, seats):
                return False
        return True

    @property
    def seq(self) -> int:
        """The length of the transcript this process holds (its furthest Table)."""
        return self._lead().seq

    def _wins(self, link: Link, seats: frozenset[int]) -> bool:
        """Whether ``link`` was dialled by the process whose lowest seat is higher."""
        mine = min(self.peers)
        return (link.dialled and mine > min(seats)) or (not link.dialled and min(seats) > mine)

    def request_sync(self, start: int, links: Sequence[tuple[Link, frozenset[int]]] | None = None) -> None:
        """Ask the other processes (or ``links``) for their transcript from seq ``start`` on."""
        if self._nursery is None:
            return
        payload = make_sync(self.table_id, max(0, start))
        for link, seats in list(self.links if links is None else links):
            if seats:
                self._send(link, payload)

    def _sync_from(self, link: Link | None, start: int) -> None:
        """Ask one link (rate-limited: once a second) for what it holds from ``start``."""
        now = trio.current_time()
        targets = [(lk, s) for lk, s in self.links if s and (link is None or lk is link)]
        fresh = [(lk, s) for lk, s in targets if now - self._synced_at.get(lk, -math.inf) >= 1.0]
        for lk, _ in fresh:
            self._synced_at[lk] = now
        if fresh:
            self.request_sync(start, fresh)

    def _send(self, link: Link, payload: bytes) -> None:
        """Queue ``payload`` on ``link``'s sender (nothing if the link has none, or is closed)."""
        sender = self.senders.get(link)
        if sender is not None:
            sender.put(payload)

    def _control(self, link: Link, seats: frozenset[int], obj: dict[str, Any]) -> None:
        """A ``sync`` or ``synced`` frame from a process with seats (TRANSPORT.md, "Sync")."""
        try:
            msg = parse_control(obj, self.table_id)
        except LobbyProtocolError as exc:
            log.warning("link %s: bad control frame: %s", link.name, exc)
            return
        if isinstance(msg, Sync):
            self._answer_sync(link, msg.start)
        elif msg.count >= SYNC_BATCH and msg.start + msg.count < msg.seq:
            self.request_sync(msg.start + msg.count, [(link, seats)])

    def _answer_sync(self, link: Link, start: int) -> None:
        """Queue our transcript from ``start`` (what is on disk), then the side messages of
        the place we are at (seeds, votes), then ``synced`` -- and the end of the stream
        when the table is over and that was all of it (a process that came back after the
        end has it all now)."""
        best = max(self.peers.values(), key=lambda p: p.written)
        written = best.written
        batch = best.table.log[start:written][:SYNC_BATCH] if start < written else []
        whole = start + len(batch) >= written
        if whole:
            self._whole.add(link)
        else:
            self._whole.discard(link)
        side = best.table.side_messages() if whole else []
        for raw in [*batch, *side, make_synced(self.table_id, start, len(batch), written)]:
            self._send(link, raw)
        if whole and self._over:
            self.senders[link].put_eof()

    # ------------------------------------------------------------------ running
    async def run(self) -> None:
        """Play until every local Table has finished (or raise a :class:`NetError`)."""
        self._open_logs()
        try:
            with single_error():
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery  # from now on adopt_link starts its links' dispatchers
                    for link, seats in list(self.links):
                        if not link.running:
                            await nursery.start(link.run)
                        self._start_link(nursery, link, seats)
                    now = trio.current_time()
                    for peer in self.peers.values():
                        peer.clock = _Clock(now)
                    self.started.set()
                    if any(p.restored for p in self.peers.values()):
                        self.request_sync(self._sync_start())
                    nursery.start_soon(self._heartbeat)
                    async with trio.open_nursery() as peers:
                        for peer in list(self.peers.values()):
                            peers.start_soon(self._run_peer, peer)
                    await self._hang_up()
                    nursery.cancel_scope.cancel()
        finally:
            self._nursery = None
            self._close_files()
            with trio.CancelScope(shield=True):
                for link, _ in self.links:
                    await link.aclose("the table is over")
        if self.manifest is not None and self.data_dir is not None:
            self._save_manifest(ended=self.ending())

    def set_aside_unconfirmed(self) -> None:
        """This process's table went on without it and nobody can tell it what became of
        its last messages: its own entries at the end of each log, which no other seat has
        built on, are cut from the log and kept apart with the rejected ones (the log keeps
        only what the others are known to have accepted)."""
        for peer in self.peers.values():
            table = peer.table
            k = len(table.log)
            while k > 1 and table._authors[k - 1] == peer.seat:
                k -= 1
            if k == len(table.log) or peer.log is None:
                continue
            tail = table.log[k:]
            if peer.rejected_file is not None:
                peer.rejected_file.append(tail)
            peer.log.truncate(k)
            peer.written = min(peer.written, k)
            log.warning("seat %d: its last %d message(s) were never confirmed by another seat; kept apart in "
                        "%s.rejected", peer.seat, len(tail), peer.stem)

    def ending(self) -> str:
        """How the table ended for this process (:data:`~p2pcards.net.store.ENDINGS`)."""
        if self.voted_out:
            return "voted-out"
        return "abandoned" if any(p.table.abandoned for p in self.peers.values()) else "finished"

    def close_files(self, finished: bool = False) -> None:
        """Open the log files (cutting a torn last write), close them, save the manifest:
        for a process that finds its table over without running."""
        self._open_logs()
        self._close_files()
        self._save_manifest(ended=self.ending() if finished else None)

    def _close_files(self) -> None:
        for peer in self.peers.values():
            for f in (peer.log, peer.side_file, peer.rejected_file):
                if f is not None:
                    f.close()
        self.close_history()

    def _save_manifest(self, ended: str | None = None) -> None:
        if self.manifest is None or self.data_dir is None:
            return
        if ended is not None:
            self.manifest = replace(self.manifest, finished=True, ended=ended)
        try:
            save_manifest(self.data_dir, self.manifest)
        except OSError as exc:
            log.warning("cannot write the table manifest: %s", exc)

    def _open_logs(self) -> None:
        if self.data_dir is None:
            return
        for peer in self.peers.values():
            self._open_log(peer)
        self._save_manifest()

    def _open_log(self, peer: _Peer) -> None:
        assert self.data_dir is not None
        path = log_path(self.data_dir, self.table_id, peer.seat, peer.stem)
        try:
            if peer.saved is not None:
                peer.log = TableLog.reopen(path, peer.saved)
            else:
                peer.log = TableLog(self.data_dir, self.table_id, peer.seat, peer.secret, stem=peer.stem)
            peer.side_file = FrameFile(side_path(path, "side"))
            peer.rejected_file = FrameFile(side_path(path, "rejected"))
        except FileExistsError:
            raise NetError(f"{path} exists already") from None
        except StoreError as exc:
            raise ResumeError(str(exc)) from None
        except OSError as exc:
            raise NetError(f"cannot write the table log: {exc}") from None

    def _start_link(self, nursery: trio.Nursery, link: Link, seats: frozenset[int]) -> None:
        """Start ``link``'s dispatcher and its sender."""
        sender = self.senders[link] = LinkSender(link, self.timeout)
        nursery.start_soon(sender.run)
        nursery.start_soon(self._dispatch, link, seats)

    async def _dispatch(self, link: Link, seats: frozenset[int]) -> None:
        """Hand every table message from ``link`` to every unfinished local peer; answer
        control frames (``sync``) from processes with seats."""
        bucket = self._buckets.setdefault(link, _Bucket(trio.current_time()))
        async for raw in link:
            if not bucket.allows(trio.current_time()):
                bucket.dropped += 1
                if bucket.dropped in (1, 100, 10_000):
                    log.warning("link %s: too many refused messages; dropping what it sends (%d so far)",
                                link.name, bucket.dropped)
                continue
            try:
                obj = unpack(raw)
            except FrameError:
                log.warning("link %s: garbage frame (not msgpack); closing the link", link.name)
                await link.aclose("sent garbage")
                break
            if isinstance(obj, dict) and "type" in obj:
                current = next((s for lk, s in self.links if lk is link), frozenset())
                if current:
                    self._control(link, current, obj)
                continue
            for peer in list(self.peers.values()):
                if not peer.table.finished:
                    await peer.inbox.put_remote(raw, link)
        if seats and not all(p.table.finished for p in self.peers.values()):
            names = ", ".join(f"seat {s}" for s in sorted(seats))
            # a clean hang-up is what a process does when its tables are over
            level = logging.INFO if link.clean_eof else logging.WARNING
            log.log(level, "link to %s closed before this process's tables ended: %s", names, link.reason)
            current = next((s for lk, s in self.links if lk is link), frozenset())
            if current and self._nursery is not None:  # still this process's link to them: they are gone
                self._tell_link(current, False)

    async def _heartbeat(self) -> None:
        """Look at the clocks (module docstring, "Clocks")."""
        self._last_tick = trio.current_time()
        while True:
            await trio.sleep(HEARTBEAT)
            now = trio.current_time()
            if self._was_away(now, beat=True):
                continue
            for peer in self.peers.values():
                self._look(peer, now)

    def _was_away(self, now: float, beat: bool = False) -> bool:
        """Whether this process was away (stopped, asleep, or starved of CPU) since the
        heartbeat's last tick: then every clock restarts and the node asks for a sync, before
        any clock may act.  Whoever looks first after a gap sees it -- the heartbeat
        (``beat``: its tick), or a peer's task woken by what arrived meanwhile, which must not
        vote from a clock that ran while the process slept."""
        last = self._last_tick
        if last is None or now - last <= GAP:
            if beat:
                self._last_tick = now
            return False
        self._last_tick = now
        log.warning("this process was away for %.1f s; catching up before any clock may act", now - last)
        for peer in self.peers.values():
            peer.clock.restart(now)
        self.request_sync(self._sync_start())
        return True

    def _look(self, peer: _Peer, now: float) -> None:
        table, clock = peer.table, peer.clock
        if table.finished:
            return
        if peer.ahead and peer.ahead_since is not None and now - peer.ahead_since >= AHEAD_SYNC:
            peer.ahead_since = now
            self._sync_from(None, min(table.seq - 4, table.deal_start))
        idle = now - clock.progress
        if idle >= self.timeout / 2 and not clock.synced:
            clock.synced = True
            start = min(table.seq - 4, table.deal_start)  # (a fork at the last place shows only so)
            log.info("seat %d: nothing for %g s; asking the others for the transcript from seq %d",
                     peer.seat, self.timeout / 2, start)
            self.request_sync(start)
        if any(now - since >= self.timeout for s, since in clock.due.items() if s in table.may_vote()) or (
                idle >= 2 * self.timeout):
            peer.inbox.put_local(POKE)

    async def _run_peer(self, peer: _Peer) -> None:
        table = peer.table
        if not peer.restored:
            peer.out.extend(table.start())
        written_head: bytes | None = None
        observe = getattr(peer.player, "observe", None)  # optional: told of every change (a screen)
        while True:
            self._pump(peer)
            now = trio.current_time()
            moved = table.head != written_head  # (a vote of our own is no progress of the table)
            if moved or peer.out or table.own_side:
                self._commit(peer)
                written_head = table.head
                if observe is not None:
                    try:
                        observe(table)
                    except Exception:  # noqa: BLE001 -- a failing observer must not break the peer
                        log.exception("seat %d: the player's observer failed", peer.seat)
            peer.clock.update(table.due(), now, moved)
            if table.finished:
                break
            if self._was_away(now):
                continue
            if self._vote(peer, now):
                continue
            if now - peer.clock.progress >= 2 * self.timeout:
                due = sorted(table.due())
                seat = due[0] if due else -1
                raise PeerSilent(seat, self.seat_name(seat), 2 * self.timeout, table.seq, peer.seat)
            decision = table.decision()
            if decision is not None and hasattr(peer.player, "achoose"):  # a person: await the choice
                view = table.view()
                assert view is not None
                choice = await peer.player.achoose(view, decision)
                if table.decision() is not None:  # (what arrived meanwhile is taken next)
                    peer.out.extend(table.decide(choice))
                continue
            await self._receive_into(peer)

    async def _receive_into(self, peer: _Peer) -> None:
        """Wait for a message or a poke (an empty message, from the heartbeat); file what arrived."""
        raw, link = await peer.inbox.get()
        self._file(peer, raw, link)
        while (queued := peer.inbox.get_nowait()) is not None:  # filed together, logged once
            self._file(peer, *queued)

    def _vote(self, peer: _Peer, now: float) -> bool:
        """Vote against every seat this peer's clock has seen due for the timeout."""
        table = peer.table
        voted = False
        for x in sorted(table.may_vote()):
            since = peer.clock.due.get(x)
            if since is not None and now - since >= self.timeout:
                log.warning("seat %d (%s) has been silent for %g s at seq %d: seat %d votes it out",
                            x, self.seat_name(x), self.timeout, table.seq, peer.seat)
                peer.out.extend(table.vote(x))
                voted = True
        return voted

    def _file(self, peer: _Peer, raw: bytes, link: Link | None) -> None:
        """Take one received message: drop a duplicate, buffer an entry from ahead, give
        side messages to the Table at once, refuse the rest."""
        if raw is POKE:
            return
        table = peer.table
        kind, seq = peek(raw)
        if kind in SIDE_KINDS:
            self._try(peer, raw, seq, link)
            return
        if seq is not None and seq < table.seq and table.log[seq] == raw:
            return  # a duplicate of an accepted entry
        if seq is None or seq <= table.seq:
            self._try(peer, raw, seq, link)
            return
        if seq - table.seq > AHEAD_WINDOW:
            self._reject(peer, seq, Rejected(f"seq {seq} is too far ahead of {table.seq}; dropped"), link)
            return
        if peer.ahead_count >= MAX_AHEAD:
            self._reject(peer, seq, Rejected(f"{MAX_AHEAD} messages already wait for their turn; seq {seq} dropped"),
                         link)
            return
        bucket = peer.ahead.setdefault(seq, [])
        if all(raw != held for held, _ in bucket):
            bucket.append((raw, link))
            peer.ahead_count += 1
            if kind == TableKind.CLOSE:
                peer.ahead_close = max(peer.ahead_close, seq)
            peer.overtaken += 1
            if peer.ahead_since is None:
                peer.ahead_since = trio.current_time()

    def _pump(self, peer: _Peer) -> None:
        """Apply the seat's decisions and every buffered entry that fits, in order."""
        table = peer.table
        progressed = True
        while progressed and not table.finished:
            progressed = False
            decision = table.decision()
            if decision is not None:
                if hasattr(peer.player, "achoose"):
                    break  # an asynchronous player: _run_peer awaits its choice
                view = table.view()
                assert view is not None
                peer.out.extend(table.decide(peer.player.choose(view, decision)))
                progressed = True
                continue
            if table.holding and peer.ahead_close > peer.held_tried:  # a voter left behind: see take_held
                peer.held_tried = peer.ahead_close
                before = table.seq
                try:
                    peer.out.extend(table.take_held({s: [r for r, _ in b] for s, b in peer.ahead.items()}))
                except Rejected as exc:
                    self._reject(peer, table.seq, exc, None)
                progressed = table.seq != before
                if progressed:
                    log.info("seat %d: the table went on past the entry it held aside (it voted); it takes it",
                             peer.seat)
                    continue
            seq = table.seq
            candidates = peer.ahead.pop(seq, None)
            if not candidates:
                continue
            peer.ahead_count -= len(candidates)
            for i, (raw, link) in enumerate(candidates):
                if self._try(peer, raw, seq, link):
                    progressed = True
                    for other, olink in candidates[i + 1:]:
                        if other != raw:
                            self._try(peer, other, seq, olink)
                    break
        if not peer.ahead:
            peer.ahead_since = None

    def _try(self, peer: _Peer, raw: bytes, seq: int | None, link: Link | None) -> bool:
        bucket = self._buckets.get(link) if link is not None else None
        if bucket is not None and not bucket.allows(trio.current_time()):
            # (checked here too: the reader's check runs ahead of the refusals still in the inbox)
            bucket.dropped += 1
            return False
        try:
            peer.out.extend(peer.table.receive(raw))
        except Rejected as exc:
            self._reject(peer, seq, exc, link)
            if link is not None and ("chain mismatch" in exc.reason or "another chain" in exc.reason):
                # perhaps a fork, or a certificate in place of this peer's own last entries: see what
                # that process holds from the start of the deal
                self._sync_from(link, min(peer.table.seq - 4, peer.table.deal_start))
            return False
        except Exception as exc:  # noqa: BLE001 -- a bug below must not stop the peer
            log.exception("seat %d: the table failed on a message (seq %s)", peer.seat, seq)
            self._reject(peer, seq, Rejected(f"internal error: {exc!r}"), link)
            return False
        return True

    def _reject(self, peer: _Peer, seq: int | None, exc: Rejected, link: Link | None) -> None:
        peer.rejected.append((seq, exc))
        if len(peer.rejected) > 1000:
            del peer.rejected[:500]
        if link is not None:
            self._buckets.setdefault(link, _Bucket(trio.current_time())).take(trio.current_time())
        if exc.blame is None:
            blame = "nobody can be blamed"
        else:
            blame = f"blames seat {exc.blame} ({self.seat_name(exc.blame)})"
        level = logging.DEBUG if "replayed" in exc.reason or "stale" in exc.reason else logging.WARNING
        log.log(level, "seat %d rejected a message (seq %s; %s): %s", peer.seat, "?" if seq is None else seq, blame,
                exc.reason, extra={REFUSED_RECORD: (peer.seat, exc.blame)})

    def _commit(self, peer: _Peer) -> None:
        """Log what the Table accepted or wrote (fsync), and its own votes and nays, then
        send what it wrote (queued on each link: nobody waits for a slow one)."""
        table = peer.table
        rewound = table.take_rewind()
        superseded = table.take_superseded()
        if superseded and peer.rejected_file is not None:
            peer.rejected_file.append(superseded)
        if rewound is not None and rewound < peer.written:  # a certificate took the place of entries
            log.warning("seat %d: entries from seq %d on were superseded by a certificate; the log is cut there "
                        "(this seat's own are kept apart, in %s.rejected)", peer.seat, rewound, peer.stem)
            if peer.log is not None:
                peer.log.truncate(rewound)
            peer.written = rewound
        new = table.log[peer.written:]
        if new and peer.log is not None:
            peer.log.append(new)  # in this thread: see the module docstring
        peer.written = len(table.log)
        own = table.take_own_side()
        if own and peer.side_file is not None:
            peer.side_file.append(own)
        out, peer.out = peer.out, []
        for raw in out:
            self._broadcast(peer.seat, raw)

    def _broadcast(self, author: int, raw: bytes) -> None:
        for other in self.peers.values():
            if other.seat != author and not other.table.finished:
                other.inbox.put_local(raw)
        for link, seats in list(self.links):
            if seats:
                self._send(link, raw)

    async def _hang_up(self) -> None:
        """Half-close every link, then wait (bounded) until the processes with seats hang up
        too; when one is missing (its link broke, or its seat was voted out), linger up to
        ``linger`` seconds so that it can come back, sync and learn the outcome."""
        missing = {s for link, seats in self.links if link.reason is not None and not link.clean_eof for s in seats}
        missing |= {s for s in range(self.n_seats) if self._peer_is_dummy(s)}
        self._over = True
        held = set()
        for link, seats in list(self.links):
            if self._catching_up(link, seats, missing):
                held.add(link)  # its last sync answer (``_answer_sync``) ends with the end of the link
            else:
                self._end(link)
        if missing and self.linger > 0:
            log.info("seat(s) %s missing: waiting up to %g s for them to come back and learn the outcome",
                     sorted(missing), self.linger)

        def done() -> bool:
            for link, seats in self.links:
                if not seats:
                    continue
                if seats & missing and not (link.rejoined and link.clean_eof):
                    return False  # not back yet, or back and still catching up
                if not link.clean_eof and link.reason is None:
                    return False  # still playing its last moves
            return True

        with trio.move_on_after(self.linger if missing else min(self.timeout, LINGER)):
            while not done():
                await trio.sleep(HEARTBEAT)  # (a link adopted meanwhile gets the end after its sync)
                for link in [lk for lk in held if lk.clean_eof]:  # it hung up first: it had it all
                    held.discard(link)
                    self._end(link)
        with trio.move_on_after(self.timeout):  # what is queued leaves before the links close
            for link, _ in list(self.links):
                self._end(link)
                sender = self.senders.get(link)
                if sender is not None and not sender.finished:
                    await sender.done.wait()

    def _end(self, link: Link) -> None:
        """Queue the end of ``link``'s stream after what waits on it."""
        sender = self.senders.get(link)
        if sender is not None:
            sender.put_eof()

    def _catching_up(self, link: Link, seats: frozenset[int], missing: set[int]) -> bool:
        """Whether ``link`` is a sync in progress the end must not cut: a process that came
        back (or fell behind) and has not yet been answered up to this process's end."""
        if link.reason is not None or link.clean_eof or not seats:
            return False
        return bool(seats & missing) and link.rejoined and link not in self._whole

    def _peer_is_dummy(self, seat: int) -> bool:
        return any(seat in p.table.dummies for p in self.peers.values()) and seat not in self.peers


def _recorder(spec: GameSpec) -> Recorder:
    """A history recorder for a table of ``spec`` (it reads the game from the table's
    genesis, and needs no other game than this one)."""
    from p2pcards.history.db import Recorder  # here: only a node that keeps files records

    return Recorder(GameRegistry(games={spec.name: spec}))


def describe_table(genesis: Genesis, local_seats: Sequence[int]) -> dict[str, Any]:
    """The ``table`` object of the ``--json`` output: the genesis in plain values
    (``hints``: False when the host forbade the people at the table to ask for hints)."""
    return {
        "type": "table",
        "table": genesis.table_id.hex(),
        "game": genesis.game,
        "rules_version": genesis.rules_version,
        "options": dict(genesis.options),
        "deals": genesis.deals,
        "timeout": genesis.timeout,
        "hints": genesis.hints,
        "host": {"name": genesis.host_name, "fingerprint": fingerprint(genesis.host_signing)},
        "seats": [
            {"seat": i, "name": s.name, "fingerprint": s.fingerprint, "bot": s.bot, "runs_on": s.runs_on}
            for i, s in enumerate(genesis.seats)
        ],
        "local_seats": sorted(local_seats),
    }
