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
player (a player with an ``achoose(view, decision)`` coroutine -- a person at a screen --
is awaited; one with ``observe(table)`` is called after every change of its Table).
Before anything the Table produced leaves the process, the new messages are appended to
the peer's log file (``tables/<table id>/seat<N>.log`` in the data directory: one wire
frame per message, from the genesis on) and fsync'd.  The write and fsync run in the
trio thread, not in a worker thread: every peer must log before it acts anyway, a
message's fsync is short next to the table's timeouts, and a hop to a thread and back for
every message cost more than the fsync itself (``p2pcards bench table``).  Messages that
arrived together are filed together and logged with one fsync.

**Silence, sync and votes.**  When a local Table has waited half the table timeout for a
remote seat's message, the node asks every other process for the messages it may have
missed (a ``sync`` control frame: "your transcript from seq k"; the answers are verified
by the Table like any message).  At the full timeout, if this peer's seat is the one to
open it, the peer opens a vote against the silent seat (:meth:`Table.vote_out`) naming a
new bot peer, whose identity and secret are saved first; the other seats' replicas vote
in their turn.  When the vote is complete the bot is a new local peer of this process,
built from the transcript (:meth:`Table.restore`), and every process moves the seat to the
link of this process.  A Table that is still stuck at twice the timeout (a vote needs
every other seat) stops the node with :class:`~p2pcards.net.errors.PeerSilent`.

**Reconnections.**  A process that comes back (``p2pcards resume``) proves its seats over
fresh nonces (:mod:`p2pcards.net.rejoin`); :meth:`Node.adopt_link` then replaces the
dead link, and both sides ask each other for what they missed.  A node built with saved
logs (:class:`LocalSeat` ``log``) restores its Tables from them and continues its files.

The node's run ends when every local Table has finished; it then half-closes its links and
waits (bounded) for the other processes to do the same, so that no byte in flight is lost
to a reset.
"""

from __future__ import annotations

import logging
import os
import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

import trio

from p2pcards.core import GameSpec
from p2pcards.core.players import Player, make_player
from p2pcards.identity import Identity, fingerprint
from p2pcards.net.errors import MeshError, NetError, PeerSilent, ResumeError, VotedOut, single_error
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.lobby import SYNC_BATCH, LobbyProtocolError, Sync, make_sync, make_synced, parse_control
from p2pcards.net.store import (
    Manifest,
    PeerEntry,
    StoreError,
    TableLog,
    load_identity,
    log_path,
    peer_stem,
    read_log,
    read_secret,
    save_identity,
    save_manifest,
    table_dir,
    write_private,
)
from p2pcards.table.audit import Replacement
from p2pcards.table.table import Rejected, SetupError, Table
from p2pcards.table.transcript import Genesis, SeatInfo, TranscriptError, parse_message
from p2pcards.table.wire import FrameError, unpack

__all__ = [
    "LocalSeat", "Node", "TableLog", "log_path", "table_dir", "describe_table", "peek_seq", "EventSink",
    "REMOTE_BACKLOG", "AHEAD_WINDOW", "LinkSink",
]

log = logging.getLogger("p2pcards.net.node")

#: Frames from links that may wait, per local peer, for its task to take them.
REMOTE_BACKLOG: Final = 64
#: How far ahead of its Table a peer buffers messages (in seq), and how many at most.
AHEAD_WINDOW: Final = 4096
MAX_AHEAD: Final = 1024
#: Messages refused for a past seq that a peer keeps, in case a vote takes its Table back.
STALE_KEPT: Final = 64
#: Longest wait, after the local Tables have finished, for the other processes to hang up.
LINGER: Final = 30.0

#: ``on_event(seat, event)``: a local Table's ``deal`` or ``final`` event.
EventSink = Callable[[int, dict[str, Any]], None]
#: ``on_link(seats, up)``: the link to the process of ``seats`` went down (``up`` False) in
#: the middle of the table, or a reconnection of that process replaced it (``up`` True).
LinkSink = Callable[[frozenset[int], bool], None]


@dataclass
class LocalSeat:
    """A peer this process runs: its identity, its player, and its private table secret.

    To take a seat again after a crash, ``log`` is the saved transcript (the Table is
    restored from it and the file goes on); ``seat`` is needed for a bot that took a
    voted-out seat, ``stem`` names its files (:func:`~p2pcards.net.store.peer_stem`).
    """

    identity: Identity
    player: Player
    secret: bytes = field(default_factory=lambda: os.urandom(32))
    log: list[bytes] | None = None
    seat: int | None = None
    stem: str | None = None


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
        return self._pop()

    def get_nowait(self) -> tuple[bytes, int | None] | None:
        """The next message if one is queued already, else ``None``."""
        return self._pop() if self._items else None

    def _pop(self) -> tuple[bytes, int | None]:
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
    stem: str = ""
    #: Recent messages refused for a seq the Table had passed (a vote may take it back there).
    stale: deque[tuple[int, bytes]] = field(default_factory=lambda: deque(maxlen=STALE_KEPT))
    #: True when the Table was restored from a saved log (it has started already).
    restored: bool = False
    #: Messages the restored log held when the node took it (the file goes on from there).
    saved: list[bytes] | None = None
    muted: bool = False


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

    ``seats`` are the local peers (each must hold a seat of the genesis, or take one from
    its saved log).  ``data_dir`` (None: no files) is where the log files go, with the
    process's ``manifest`` if given (:mod:`p2pcards.net.store`).  ``on_event(seat, event)``
    receives each local Table's events; ``on_link(seats, up)`` hears of links to other
    processes lost before the table's end and of their reconnections (a screen says
    "reconnecting").  ``timeout`` (default: the genesis's) bounds every wait for a remote
    seat's message.  ``bot_level`` is the level of a bot this process starts for a seat
    voted out.
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
        bot_level: str = "heuristic",
        on_link: LinkSink | None = None,
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
        self._on_link = on_link
        self.manifest = manifest
        self.bot_level = bot_level
        self.seat_infos = list(self.genesis.seats)
        self.former: dict[int, list[bytes]] = {}
        self.peers: dict[int, _Peer] = {}
        self.links: list[tuple[Link, frozenset[int]]] = []
        self.started = trio.Event()
        self._nursery: trio.Nursery | None = None
        self._peer_nursery: trio.Nursery | None = None
        self._bots: dict[bytes, tuple[Identity, bytes, str]] = {}  # bots this process started, by key
        self._moved: set[tuple[int, bytes]] = set()
        self._answering: set[Link] = set()
        for local in seats:
            self._make_peer(local)
        for peer in list(self.peers.values()):
            self._note_replacements(peer.table)

    def _make_peer(self, local: LocalSeat) -> int:
        holder: list[int] = []

        def emit(event: dict[str, Any]) -> None:
            if self._on_event is not None and holder:
                try:
                    self._on_event(holder[0], event)
                except Exception:  # noqa: BLE001 -- a failing observer must not break the Table mid-message
                    log.exception("seat %d: the event handler failed", holder[0])

        muted = [local.log is not None]

        def emit_live(event: dict[str, Any]) -> None:
            if not muted[0]:  # a restored Table's past is not told again
                emit(event)

        try:
            table = Table(self.genesis_raw, self.spec, local.identity, local.secret, on_event=emit_live,
                          seat=local.seat)
        except SetupError as exc:
            raise MeshError(f"cannot take a seat at this table: {exc}") from None
        if table.seat in self.peers:
            raise MeshError(f"seat {table.seat} is given twice to this process")
        holder.append(table.seat)
        peer = _Peer(table.seat, table, local.player, local.secret, stem=local.stem or peer_stem(table.seat))
        if local.log is not None:
            try:
                peer.out = table.restore(local.log)
            except (SetupError, Rejected) as exc:
                raise ResumeError(f"the saved transcript of seat {table.seat} ({peer.stem}.log) is not sound, "
                                  f"so this process will not take its seat again: {exc}") from None
            finally:
                muted[0] = False
            peer.restored = True
            peer.saved = list(local.log)
            peer.written = len(local.log)
        self.peers[table.seat] = peer
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
        """Each seat's signing key as this process knows it now (a bot's for a seat voted out)."""
        return list(self._lead().keys)

    def former_keys(self) -> dict[int, list[bytes]]:
        """The keys seats had before a vote gave them to a bot."""
        return {s: list(keys) for s, keys in self.former.items()}

    def local_identities(self) -> dict[int, Identity]:
        """The identities of the local peers still seated (they prove this process's seats)."""
        return {s: p.table.me for s, p in sorted(self.peers.items()) if not p.table.voted_out}

    def _min_seq(self) -> int:
        return min(p.table.seq for p in self.peers.values())

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
        self._nursery.start_soon(self._dispatch, link, frozenset(seats))
        self.request_sync(self._min_seq(), [(link, frozenset(seats))])
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
        mine = min(self.local_identities() or self.peers)
        return (link.dialled and mine > min(seats)) or (not link.dialled and min(seats) > mine)

    def request_sync(self, start: int, links: Sequence[tuple[Link, frozenset[int]]] | None = None) -> None:
        """Ask the other processes (or ``links``) for their transcript from seq ``start`` on."""
        if self._nursery is None:
            return
        payload = make_sync(self.table_id, start)
        for link, seats in list(self.links if links is None else links):
            if seats and link.reason is None:
                self._nursery.start_soon(self._send_control, link, payload)

    async def _send_control(self, link: Link, payload: bytes) -> None:
        with trio.move_on_after(self.timeout):
            try:
                await link.send(payload)
            except LinkClosed:
                pass

    def _control(self, link: Link, seats: frozenset[int], obj: dict[str, Any]) -> None:
        """A ``sync`` or ``synced`` frame from a process with seats (TRANSPORT.md, "Sync")."""
        try:
            msg = parse_control(obj, self.table_id)
        except LobbyProtocolError as exc:
            log.warning("link %s: bad control frame: %s", link.name, exc)
            return
        assert self._nursery is not None
        if isinstance(msg, Sync):
            if link not in self._answering:  # one answer at a time per link; the asker asks again
                self._answering.add(link)
                self._nursery.start_soon(self._answer_sync, link, msg.start)
        elif msg.count >= SYNC_BATCH and msg.start + msg.count < msg.seq:
            self.request_sync(msg.start + msg.count, [(link, seats)])

    async def _answer_sync(self, link: Link, start: int) -> None:
        """Send our transcript from ``start`` (what is on disk), then ``synced``."""
        try:
            best = max(self.peers.values(), key=lambda p: p.written)
            written = best.written
            batch = best.table.log[start:written][:SYNC_BATCH] if start < written else []
            with trio.move_on_after(self.timeout):
                for raw in batch:
                    await link.send(raw)
                await link.send(make_synced(self.table_id, start, len(batch), written))
        except LinkClosed:
            pass
        finally:
            self._answering.discard(link)

    # ------------------------------------------------------------------ running
    async def run(self) -> None:
        """Play until every local Table has finished (or raise a :class:`NetError`;
        :class:`VotedOut` when the others voted this process's seat out)."""
        self._open_logs()
        try:
            with single_error():
                async with trio.open_nursery() as nursery:
                    self._nursery = nursery  # from now on adopt_link starts its links' dispatchers
                    for link, seats in list(self.links):
                        if not link.running:
                            await nursery.start(link.run)
                        nursery.start_soon(self._dispatch, link, seats)
                    self.started.set()
                    if any(p.restored for p in self.peers.values()):
                        self.request_sync(self._min_seq())
                    async with trio.open_nursery() as peers:
                        self._peer_nursery = peers
                        for peer in list(self.peers.values()):
                            peers.start_soon(self._run_peer, peer)
                    self._peer_nursery = None
                    await self._hang_up()
                    nursery.cancel_scope.cancel()
        finally:
            self._nursery = None
            for peer in self.peers.values():
                if peer.log is not None:
                    peer.log.close()
            with trio.CancelScope(shield=True):
                for link, _ in self.links:
                    await link.aclose("the table is over")
        out = [p for p in self.peers.values() if p.table.voted_out]
        if out:
            names = ", ".join(str(p.seat) for p in out)
            raise VotedOut(f"seat {names} was voted out of table {self.table_id.hex()[:16]} while it was silent "
                           "past the timeout; a bot run by another player plays it now")
        if self.manifest is not None and self.data_dir is not None:
            self._save_manifest(finished=True)

    def close_files(self, finished: bool = False) -> None:
        """Open the log files (cutting a torn last write), close them, save the manifest:
        for a process that finds its table over without running."""
        self._open_logs()
        for peer in self.peers.values():
            if peer.log is not None:
                peer.log.close()
        self._save_manifest(finished)

    def _save_manifest(self, finished: bool = False) -> None:
        if self.manifest is None or self.data_dir is None:
            return
        if finished:
            self.manifest = replace(self.manifest, finished=True)
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

    def _open_log(self, peer: _Peer, secret_saved: bool = False) -> None:
        assert self.data_dir is not None
        path = log_path(self.data_dir, self.table_id, peer.seat, peer.stem)
        try:
            if peer.saved is not None:
                peer.log = TableLog.reopen(path, peer.saved)
            else:
                peer.log = TableLog(self.data_dir, self.table_id, peer.seat, None if secret_saved else peer.secret,
                                    stem=peer.stem)
        except FileExistsError:
            raise NetError(f"{path} exists already") from None
        except StoreError as exc:
            raise ResumeError(str(exc)) from None
        except OSError as exc:
            raise NetError(f"cannot write the table log: {exc}") from None

    async def _dispatch(self, link: Link, seats: frozenset[int]) -> None:
        """Hand every table message from ``link`` to every unfinished local peer; answer
        control frames (``sync``) from processes with seats."""
        async for raw in link:
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
            seq = obj.get("seq") if isinstance(obj, dict) else None
            if type(seq) is not int or seq < 0:
                seq = None
            for peer in list(self.peers.values()):
                if not peer.table.finished:
                    await peer.inbox.put_remote(raw, seq)
        if seats and not all(p.table.finished for p in self.peers.values()):
            names = ", ".join(f"seat {s}" for s in sorted(seats))
            # a clean hang-up is what a process does when its tables are over
            level = logging.INFO if link.clean_eof else logging.WARNING
            log.log(level, "link to %s closed before this process's tables ended: %s", names, link.reason)
            current = next((s for lk, s in self.links if lk is link), frozenset())
            if current and self._nursery is not None:  # still this process's link to them: they are gone
                self._tell_link(current, False)

    async def _run_peer(self, peer: _Peer) -> None:
        table = peer.table
        if not peer.restored:
            peer.out.extend(table.start())
        written_head: bytes | None = None
        progress_at = trio.current_time()
        phase = 0  # 0: waiting; 1: a sync was asked for; 2: a vote could have been opened
        observe = getattr(peer.player, "observe", None)  # optional: told of every change (a screen)
        while True:
            self._pump(peer)
            if peer.table is not table:  # pragma: no cover -- Tables are never swapped
                table = peer.table
            if table.head != written_head or peer.out:
                await self._commit(peer)
                written_head = table.head
                progress_at = trio.current_time()
                phase = 0
                if observe is not None:
                    try:
                        observe(table)
                    except Exception:  # noqa: BLE001 -- a failing observer must not break the peer
                        log.exception("seat %d: the player's observer failed", peer.seat)
            if table.finished:
                break
            decision = table.decision()
            if decision is not None:  # left by _pump for an asynchronous player (a person): await it
                view = table.view()
                assert view is not None
                choice = await peer.player.achoose(view, decision)  # type: ignore[attr-defined]
                if table.decision() is not None:  # (a vote may have begun meanwhile)
                    peer.out.extend(table.decide(choice))
                continue
            with trio.move_on_at(progress_at + self.timeout * (0.5, 1.0, 2.0)[phase]):
                raw, seq = await peer.inbox.get()
                self._file(peer, raw, seq)
                while (queued := peer.inbox.get_nowait()) is not None:  # filed together, logged once
                    self._file(peer, *queued)
                continue
            phase += 1
            if phase == 1:  # half the timeout: perhaps this process missed messages
                log.info("seat %d: nothing for %g s; asking the others for the transcript from seq %d",
                         peer.seat, self.timeout / 2, table.seq)
                self.request_sync(table.seq)
            elif phase == 2:  # the timeout: the lowest other seat opens a vote
                against = table.may_open_vote()
                if against is not None:
                    log.warning("seat %d (%s) has been silent for %g s at seq %d: seat %d opens a vote to replace "
                                "it by a bot", against, self.seat_name(against), self.timeout, table.seq, peer.seat)
                    peer.out.extend(table.vote_out(self._new_bot(against, peer)))
            else:
                seat = table.expected()
                raise PeerSilent(-1 if seat is None else seat, self.seat_name(seat), 2 * self.timeout, table.seq,
                                 peer.seat)
        peer.inbox.close()
        log.info("seat %d: table over after %d messages", peer.seat, table.seq)

    def _file(self, peer: _Peer, raw: bytes, seq: int | None) -> None:
        """Take one received message: drop a duplicate, buffer one from ahead, reject the rest."""
        table = peer.table
        if seq is not None and seq < table.seq and table.log[seq] == raw:
            return  # a duplicate of an accepted message
        if seq is None or seq < table.seq:
            if not self._try(peer, raw, seq) and seq is not None:
                peer.stale.append((seq, raw))  # kept in case a vote takes this replica back before seq
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
                if hasattr(peer.player, "achoose"):
                    break  # an asynchronous player: _run_peer awaits its choice
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
            rewound = peer.table.rewound_to
            if rewound is not None and peer.stale:  # the replica went back: what it refused may fit now
                for old_seq, old in list(peer.stale):
                    if old_seq >= peer.table.seq and old not in peer.ahead.get(old_seq, []):
                        peer.ahead.setdefault(old_seq, []).append(old)
                        peer.ahead_count += 1
                peer.stale.clear()
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
        rewound = table.take_rewind()
        if rewound is not None and rewound < peer.written:  # a late message lost to a vote: cut it off
            log.warning("seat %d: messages from seq %d on were superseded by a vote; the log is cut there",
                        peer.seat, rewound)
            if peer.log is not None:
                peer.log.truncate(rewound)
            peer.written = rewound
        new = table.log[peer.written:]
        if new and peer.log is not None:
            peer.log.append(new)  # in this thread: see the module docstring
        peer.written = len(table.log)
        self._note_replacements(table)
        await self._spawn_bots(peer)
        out, peer.out = peer.out, []
        for raw in out:
            await self._broadcast(peer.seat, raw)

    # ------------------------------------------------------------------ votes
    def _new_bot(self, seat: int, opener: _Peer) -> SeatInfo:
        """A fresh bot identity for a seat about to be voted out, saved before the vote is sent."""
        ident = Identity.generate(f"bot{seat}")
        secret = os.urandom(32)
        stem = peer_stem(seat, ident.fingerprint)
        if self.data_dir is not None:
            directory = table_dir(self.data_dir, self.table_id)
            save_identity(directory / f"{stem}.identity", ident)
            write_private(directory / f"{stem}.secret", secret)
        self._bots[ident.signing_public] = (ident, secret, stem)
        return SeatInfo(ident.name, ident.signing_public, ident.sealing_public, self.bot_level,
                        opener.table.me.fingerprint)

    def _bot_for(self, rep: Replacement) -> tuple[Identity, bytes, str] | None:
        """This process's bot for a completed vote, if it opened it (from memory or its files)."""
        found = self._bots.get(rep.bot.signing)
        if found is not None or self.data_dir is None:
            return found
        stem = peer_stem(rep.seat, rep.bot.fingerprint)
        directory = table_dir(self.data_dir, self.table_id)
        if not (directory / f"{stem}.identity").exists():
            return None
        try:
            ident = load_identity(directory / f"{stem}.identity")
            secret = read_secret(directory / f"{stem}.secret")
        except StoreError as exc:
            log.error("cannot start the bot for seat %d: %s", rep.seat, exc)
            return None
        if ident.signing_public != rep.bot.signing:
            return None
        return ident, secret, stem

    async def _spawn_bots(self, source: _Peer) -> None:
        """Start the bot of every completed vote this process opened, as a new local peer."""
        for rep in source.table.replacements:
            if rep.seat in self.peers or rep.opener not in self.peers:
                continue
            found = self._bot_for(rep)
            if found is None:
                continue
            ident, secret, stem = found
            player = make_player(rep.bot.bot or self.bot_level, self.spec, random.Random(os.urandom(16)))
            local = LocalSeat(ident, player, secret, seat=rep.seat, stem=stem)
            seat = self._make_peer(local)
            peer = self.peers[seat]
            try:
                peer.out = peer.table.restore(source.table.log)
            except SetupError as exc:
                del self.peers[seat]
                log.error("cannot start the bot for seat %d: %s", rep.seat, exc)
                continue
            if self.data_dir is not None:
                path = log_path(self.data_dir, self.table_id, seat, stem)
                if path.exists():  # a crash came between the vote and this process's manifest
                    saved, _ = read_log(path)
                    if peer.table.log[: len(saved)] != saved:
                        raise NetError(f"{path} is not this table's transcript")
                    peer.saved, peer.written = saved, len(saved)
                self._open_log(peer, secret_saved=True)
                if self.manifest is not None:
                    entries = [e for e in self.manifest.peers if e.seat != seat]
                    entry = PeerEntry(seat, stem, "file", rep.bot.bot or self.bot_level)
                    self.manifest = self.manifest.with_peers([*entries, entry])
                    self._save_manifest()
            peer.restored = True
            log.warning("seat %d is now played by bot %s of this process (%s)", seat, ident.fingerprint,
                        self.seat_name(seat))
            if self._peer_nursery is not None:
                self._peer_nursery.start_soon(self._run_peer, peer)

    def _note_replacements(self, table: Table) -> None:
        """Follow completed votes: the seat's new keys, and its messages now come from the
        link of the process that opened the vote (which runs the bot)."""
        for rep in table.replacements:
            if (rep.seat, rep.bot.signing) in self._moved:
                continue
            self._moved.add((rep.seat, rep.bot.signing))
            self.keys[rep.seat] = rep.bot.signing
            self.seat_infos[rep.seat] = rep.bot
            self.former.setdefault(rep.seat, []).append(rep.old_signing)
            links = []
            for link, seats in self.links:
                seats = seats - {rep.seat}
                if rep.opener in seats:
                    seats = seats | {rep.seat}
                links.append((link, frozenset(seats)))
            self.links = links
            if self.manifest is not None:
                self.manifest = self.manifest.moved(rep.seat, rep.opener)
                self._save_manifest()
            log.warning("seat %d was voted out in deal %d (seats %s voted); bot %s run by seat %d's process plays "
                        "it from the next deal", rep.seat, rep.deal, list(rep.voters), rep.bot.fingerprint, rep.opener)

    async def _broadcast(self, author: int, raw: bytes) -> None:
        seq = peek_seq(raw)[1]
        for other in self.peers.values():
            if other.seat != author and not other.table.finished:
                other.inbox.put_local(raw, seq)
        for link, seats in list(self.links):
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
        for link, _ in list(self.links):
            await link.send_eof()
        with trio.move_on_after(min(self.timeout, LINGER)):
            for link, seats in list(self.links):
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
