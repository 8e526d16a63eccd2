"""One process's part of a table: it wires its local peers' replicas to trio.

A :class:`Node` holds one or more local peers -- each a :class:`~p2pcards.table.Table`
replica with its own identity and player -- and one :class:`~p2pcards.net.link.Link` to
every other process of the mesh.  It decides nothing about the table (the replicas do) and
keeps its parts in rooms of their own:

* :mod:`p2pcards.net.inbox` -- every frame decoded once where it arrives, each local peer's
  queue, the entries that came ahead of their replica, what refusals cost a link;
* :mod:`p2pcards.net.clocks` -- the clocks that lead to votes, and the one that tells this
  process it was away;
* :mod:`p2pcards.net.sync` -- asking another process for what was missed, and answering;
* :mod:`p2pcards.net.files` -- each peer's log, side and rejected files, written from its
  replica's outputs before anything that follows from them leaves;
* :mod:`p2pcards.net.sender` -- one sender task per link with a bounded queue, so that a
  slow link delays nobody else.

**A local peer** has one task that feeds what it receives to its replica in order, asks its
player when its seat must decide (a player with an ``achoose(view, decision)`` coroutine
-- a person at a screen -- is awaited; one with ``observe(table)`` is called after every
change of its replica), and carries out each :class:`~p2pcards.table.events.Output` in its
order: files first (entries that arrived together are filed together and logged with one
fsync; the write runs in the trio thread, as a hop to a worker thread per message cost
more than the fsync, ``p2pcards bench table``), then the messages queued on every link and
given to the other local peers, then the events told (``on_event``) and recorded
(``recorder``: the history, handed in by whoever runs the node).  Whatever a replica
refuses (:class:`~p2pcards.table.table.Rejected`) is logged with its reason and whom it
blames, and changes nothing.

**Clocks.**  A heartbeat looks at the clocks four times a second: at half the table's
timeout without progress a peer asks the others for what it may have missed; once a seat
has been due for the timeout, the peer votes it out if its replica allows; when a heartbeat
comes late every clock restarts and a sync comes first.  A replica that has made no
progress for twice the timeout stops the node with :class:`~p2pcards.net.errors.PeerSilent`:
the table is left as it is, to be resumed.  **A seat voted out** keeps following the table
as an observer to its end.

**Reconnections.**  A process that comes back (``p2pcards resume``) proves its seats over
fresh nonces (:mod:`p2pcards.net.rejoin`); :meth:`Node.adopt_link` then replaces the dead
link, and both sides ask each other for what they missed.  A node built with saved logs
(:class:`LocalSeat` ``log``) restores its replicas from them and continues their files.

**The end.**  The run ends when every local replica has finished; the node then queues the
end of every link's stream after what waits on it and waits (bounded) for the other
processes to do the same, so that no byte in flight is lost.  When a process of the table
is missing at the end (its link is down, or its seat was voted out), the node **lingers**
up to ``linger`` seconds, answering reconnections and syncs, so that a late peer can learn
the outcome.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final, Protocol

import trio

from p2pcards.core import GameSpec
from p2pcards.core.players import Player
from p2pcards.identity import Identity, fingerprint
from p2pcards.net.clocks import AHEAD_SYNC, HEARTBEAT, Away, Clock
from p2pcards.net.errors import MeshError, PeerSilent, ResumeError, single_error
from p2pcards.net.files import PeerFiles
from p2pcards.net.inbox import POKE, Filed, Frame, Inbox, Refusals, Reorder
from p2pcards.net.link import Link
from p2pcards.net.lobby import LobbyProtocolError
from p2pcards.net.sender import LinkSender
from p2pcards.net.store import Manifest, log_path, peer_stem, save_manifest
from p2pcards.net.sync import Sync, Syncs, parse_control
from p2pcards.table.events import Ended, Output, TableEvent
from p2pcards.table.table import Rejected, SetupError, Table
from p2pcards.table.transcript import Genesis, TranscriptError, parse_message
from p2pcards.table.wire import FrameError, unpack

__all__ = [
    "LocalSeat", "Node", "ThreadedPlayer", "in_background", "TableRecorder",
    "describe_table", "EventSink", "LinkSink", "LINGER",
]

log = logging.getLogger("p2pcards.net.node")
#: A log record of a refused message carries ``(replica's seat, blamed seat or None)`` under
#: this attribute, for a screen to tell the person (:mod:`p2pcards.tui.logfile`).
REFUSED_RECORD = "p2pcards_refused"

#: Longest wait, after the local replicas have finished, for the other processes to hang up.
LINGER: Final = 30.0

#: ``on_event(seat, event)``: what a local replica told (a closed deal, the end, a vote...).
EventSink = Callable[[int, TableEvent], None]
#: ``on_link(seats, up)``: the link to the process of ``seats`` went down (``up`` False) in
#: the middle of the table, or a reconnection of that process replaced it (``up`` True).
LinkSink = Callable[[frozenset[int], bool], None]


class TableRecorder(Protocol):
    """Whatever keeps a record of the tables this process plays (the history database):
    it hears every event of the lowest local seat's replica, the ones its saved log told
    again when it was restored included, and never raises."""

    def record(self, data_dir: Path | None, table_id: bytes, seat: int | None, event: TableEvent) -> None: ...

    def close(self) -> None: ...


@dataclass
class LocalSeat:
    """A peer this process runs: its identity, its player, and its private table secret.

    To take a seat again after a crash, ``log`` is the saved transcript (the replica is
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

    The peer's task awaits :meth:`achoose` and files nothing meanwhile, so the replica the
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


@dataclass
class _Peer:
    seat: int
    table: Table
    player: Player
    files: PeerFiles
    clock: Clock = field(default_factory=lambda: Clock(0.0))
    inbox: Inbox = field(default_factory=Inbox)
    reorder: Reorder = field(default_factory=Reorder)
    #: messages to send and events to tell, from outputs not carried out yet
    out: list[bytes] = field(default_factory=list)
    events: list[TableEvent] = field(default_factory=list)
    rejected: list[tuple[int | None, Rejected]] = field(default_factory=list)
    #: True when the replica was restored from a saved log (it has started already)
    restored: bool = False

    @property
    def stem(self) -> str:
        return self.files.stem


class Node:
    """Local peers of one table and this process's links to the other processes.

    ``seats`` are the local peers (each must hold a seat of the genesis).  ``data_dir``
    (None: no files) is where the log files go, with the process's ``manifest`` if given
    (:mod:`p2pcards.net.store`); ``recorder`` keeps the history of the table
    (:class:`TableRecorder`).  ``on_event(seat, event)`` receives each local replica's
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
        recorder: TableRecorder | None = None,
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
        self.recorder = recorder if data_dir is not None else None
        self.seat_infos = list(self.genesis.seats)
        self.peers: dict[int, _Peer] = {}
        self.links: list[tuple[Link, frozenset[int]]] = []
        #: each link's sender: its queue of frames and the task that sends them
        self.senders: dict[Link, LinkSender] = {}
        self.refusals: dict[Link, Refusals] = {}
        self.syncs = Syncs(self.table_id)
        self.away = Away()
        self.started = trio.Event()
        self._nursery: trio.Nursery | None = None
        #: True once every local replica has finished (the node only lingers, answering syncs)
        self._over = False
        #: the local seat whose replica the history hears (every replica tells the same)
        self._recording: int | None = None
        for local in seats:
            self._make_peer(local)

    def _make_peer(self, local: LocalSeat) -> None:
        try:
            table = self.table_class(self.genesis_raw, self.spec, local.identity, local.secret)
        except SetupError as exc:
            raise MeshError(f"cannot take a seat at this table: {exc}") from None
        seat = table.seat
        assert seat is not None
        if seat in self.peers:
            raise MeshError(f"seat {seat} is given twice to this process")
        self._recording = seat if self._recording is None else min(self._recording, seat)
        stem = local.stem or peer_stem(seat)
        files = PeerFiles(self.data_dir, self.table_id, seat, stem, local.secret, local.log)
        peer = _Peer(seat, table, in_background(local.player), files)
        if local.log is not None:
            try:
                restored = table.restore(local.log, local.side)
            except (SetupError, Rejected) as exc:
                raise ResumeError(f"the saved transcript of seat {seat} ({stem}.log) is not sound, "
                                  f"so this process will not take its seat again: {exc}") from None
            peer.out = restored.send
            peer.restored = True
            for event in restored.events:  # its past is not told again; the history only makes sure it has it
                self._record(seat, event)
        self.peers[seat] = peer

    # ------------------------------------------------------------------ events
    def tell(self, seat: int, event: TableEvent) -> None:
        """Seat ``seat``'s replica's ``event``: recorded (before anyone is told of it, so
        that what a person or a program sees is there already), then given to ``on_event``.
        Neither may break the table: their failures are logged."""
        self._record(seat, event)
        if self._on_event is not None:
            try:
                self._on_event(seat, event)
            except Exception:  # noqa: BLE001 -- a failing observer must not break the table
                log.exception("seat %d: the event handler failed", seat)

    def _record(self, seat: int, event: TableEvent) -> None:
        if self.recorder is not None and seat == self._recording:
            try:
                self.recorder.record(self.data_dir, self.table_id, seat, event)
            except Exception:  # noqa: BLE001 -- the history never stops a table
                log.exception("the history recorder failed")

    def tell_ended(self) -> None:
        """Tell again how the table ended (a process that finds its table over on resuming)."""
        first = min(self.peers)
        t = self.peers[first].table
        assert t.match is not None
        self.tell(first, Ended(winner=t.match.winner, totals=list(t.match.totals), deals=t.deals_done,
                               transcript_hash=t.transcript_hash, abandoned=t.abandoned, voted_out=t.voted_out))

    def close_history(self) -> None:
        """Close the history (it opens again if another event comes)."""
        if self.recorder is not None:
            self.recorder.close()

    # ------------------------------------------------------------------ queries
    @property
    def tables(self) -> dict[int, Table]:
        """The local replicas by seat."""
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

    def lead(self) -> Table:
        """The local replica furthest along (what this process knows of the table)."""
        return max((p.table for p in self.peers.values()), key=lambda t: t.seq)

    @property
    def seq(self) -> int:
        """The length of the transcript this process holds (its furthest replica)."""
        return self.lead().seq

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

    def sync_start(self) -> int:
        """Where to ask the others' transcript from: the start of the current deal of the
        local replica furthest behind (a certificate may have taken the place of this
        process's own last entries, within that deal)."""
        return min(p.table.deal_start for p in self.peers.values())

    @property
    def voted_out(self) -> list[int]:
        """Local seats the other seats voted out."""
        return [s for s, p in sorted(self.peers.items()) if p.table.voted_out]

    @property
    def linked(self) -> bool:
        """Whether a link to another process with seats is up."""
        return any(seats and link.reason is None for link, seats in self.links)

    def abandon(self) -> bool:
        """Abandon the table from a local seat that may (a table of two, while the other
        seat is due); False when none may."""
        able = [p for p in self.peers.values() if p.table.may_abandon()]
        if not able:
            return False
        self._took(able[0], able[0].table.abandon())
        return True

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
        self.request_sync(self.sync_start(), [(link, frozenset(seats))])
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

    def _wins(self, link: Link, seats: frozenset[int]) -> bool:
        """Whether ``link`` was dialled by the process whose lowest seat is higher."""
        mine = min(self.peers)
        return (link.dialled and mine > min(seats)) or (not link.dialled and min(seats) > mine)

    def _current_seats(self, link: Link) -> frozenset[int]:
        return next((s for lk, s in self.links if lk is link), frozenset())

    def _send(self, link: Link, payload: bytes) -> None:
        """Queue ``payload`` on ``link``'s sender (nothing if the link has none, or is closed)."""
        sender = self.senders.get(link)
        if sender is not None:
            sender.put(payload)

    def _broadcast(self, author: int, raw: bytes) -> None:
        """``raw`` to every other local peer (decoded once for all of them) and queued on
        every link to a process with seats."""
        others = [p for p in self.peers.values() if p.seat != author and not p.table.finished]
        if others:
            frame = Frame.of(raw)
            for other in others:
                other.inbox.put_local(frame)
        for link, seats in list(self.links):
            if seats:
                self._send(link, raw)

    # ------------------------------------------------------------------ sync
    def request_sync(self, start: int, links: Sequence[tuple[Link, frozenset[int]]] | None = None) -> None:
        """Ask the other processes (or ``links``) for their transcript from seq ``start`` on."""
        if self._nursery is None:
            return
        payload = self.syncs.ask(start)
        for link, seats in list(self.links if links is None else links):
            if seats:
                self._send(link, payload)

    def _sync_from(self, link: Link | None, start: int) -> None:
        """Ask one link (or every one), rate-limited: once a second, for what it holds from ``start``."""
        now = trio.current_time()
        fresh = [(lk, s) for lk, s in self.links if s and (link is None or lk is link) and self.syncs.may_ask(lk, now)]
        if fresh:
            self.request_sync(start, fresh)

    def _control(self, link: Link, seats: frozenset[int], obj: dict[str, Any]) -> None:
        """A ``sync`` or ``synced`` frame from a process with seats (TRANSPORT.md, "Sync")."""
        try:
            msg = parse_control(obj, self.table_id)
        except LobbyProtocolError as exc:
            log.warning("link %s: bad control frame: %s", link.name, exc)
            return
        if isinstance(msg, Sync):
            best = max(self.peers.values(), key=lambda p: p.files.written)
            frames, whole = self.syncs.answer(link, msg.start, best.table.log, best.files.written,
                                              best.table.side_messages())
            for raw in frames:
                self._send(link, raw)
            if whole and self._over:  # a process that came back after the end has it all now
                self._end(link)
            return
        again = self.syncs.more(msg)
        if again is not None:
            self.request_sync(again, [(link, seats)])

    # ------------------------------------------------------------------ running
    async def run(self) -> None:
        """Play until every local replica has finished (or raise a :class:`NetError`)."""
        self._open_files()
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
                        peer.clock = Clock(now)
                    self.started.set()
                    if any(p.restored for p in self.peers.values()):
                        self.request_sync(self.sync_start())
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
            authors = peer.table.chain.authors
            k = len(authors)
            while k > 1 and authors[k - 1] == peer.seat:
                k -= 1
            peer.files.set_aside(peer.table.log[k:peer.files.written])

    def ending(self) -> str:
        """How the table ended for this process (:data:`~p2pcards.net.store.ENDINGS`)."""
        if self.voted_out:
            return "voted-out"
        return "abandoned" if any(p.table.abandoned for p in self.peers.values()) else "finished"

    def close_files(self, finished: bool = False) -> None:
        """Open the log files (cutting a torn last write), close them, save the manifest:
        for a process that finds its table over without running."""
        self._open_files()
        self._close_files()
        self._save_manifest(ended=self.ending() if finished else None)

    def _open_files(self) -> None:
        if self.data_dir is None:
            return
        for peer in self.peers.values():
            peer.files.open()
        self._save_manifest()

    def _close_files(self) -> None:
        for peer in self.peers.values():
            peer.files.close()
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

    def _start_link(self, nursery: trio.Nursery, link: Link, seats: frozenset[int]) -> None:
        """Start ``link``'s dispatcher and its sender."""
        sender = self.senders[link] = LinkSender(link, self.timeout)
        nursery.start_soon(sender.run)
        nursery.start_soon(self._dispatch, link, seats)

    async def _dispatch(self, link: Link, seats: frozenset[int]) -> None:
        """Hand every table message from ``link`` (decoded once) to every unfinished local
        peer; answer control frames (``sync``) from processes with seats."""
        refusals = self.refusals.setdefault(link, Refusals(trio.current_time()))
        async for raw in link:
            if not refusals.allows(trio.current_time()):
                refusals.dropped += 1
                if refusals.dropped in (1, 100, 10_000):
                    log.warning("link %s: too many refused messages; dropping what it sends (%d so far)",
                                link.name, refusals.dropped)
                continue
            try:
                obj = unpack(raw)
            except FrameError:
                log.warning("link %s: garbage frame (not msgpack); closing the link", link.name)
                await link.aclose("sent garbage")
                break
            if isinstance(obj, dict) and "type" in obj:
                current = self._current_seats(link)
                if current:
                    self._control(link, current, obj)
                continue
            frame = Frame.of(raw, obj, link)
            for peer in list(self.peers.values()):
                if not peer.table.finished:
                    await peer.inbox.put_remote(frame)
        if seats and not all(p.table.finished for p in self.peers.values()):
            names = ", ".join(f"seat {s}" for s in sorted(seats))
            # a clean hang-up is what a process does when its tables are over
            level = logging.INFO if link.clean_eof else logging.WARNING
            log.log(level, "link to %s closed before this process's tables ended: %s", names, link.reason)
            current = self._current_seats(link)
            if current and self._nursery is not None:  # still this process's link to them: they are gone
                self._tell_link(current, False)

    async def _heartbeat(self) -> None:
        """Look at the clocks (module docstring, "Clocks")."""
        self.away.start(trio.current_time())
        while True:
            await trio.sleep(HEARTBEAT)
            now = trio.current_time()
            if self._was_away(now, beat=True):
                continue
            for peer in self.peers.values():
                self._look(peer, now)

    def _was_away(self, now: float, beat: bool = False) -> bool:
        """Whether this process was away (stopped, asleep, or starved of CPU) since the
        heartbeat's last tick (:class:`~p2pcards.net.clocks.Away`): then every clock
        restarts and the node asks for a sync, before any clock may act."""
        gap = self.away.check(now, beat)
        if gap is None:
            return False
        log.warning("this process was away for %.1f s; catching up before any clock may act", gap)
        for peer in self.peers.values():
            peer.clock.restart(now)
        self.request_sync(self.sync_start())
        return True

    def _look(self, peer: _Peer, now: float) -> None:
        table, clock = peer.table, peer.clock
        if table.finished:
            return
        reorder = peer.reorder
        if reorder.since is not None and now - reorder.since >= AHEAD_SYNC:
            reorder.since = now
            self._sync_from(None, min(table.seq - 4, table.deal_start))
        if clock.wants_sync(now, self.timeout):
            start = min(table.seq - 4, table.deal_start)  # (a fork at the last place shows only so)
            log.info("seat %d: nothing for %g s; asking the others for the transcript from seq %d",
                     peer.seat, self.timeout / 2, start)
            self.request_sync(start)
        if clock.silent(table.may_vote(), now, self.timeout) or clock.stalled(now, self.timeout):
            peer.inbox.put_local(POKE)

    async def _run_peer(self, peer: _Peer) -> None:
        table = peer.table
        if not peer.restored:
            self._took(peer, table.start())
        written_head: bytes | None = None
        observe = getattr(peer.player, "observe", None)  # optional: told of every change (a screen)
        while True:
            self._pump(peer)
            now = trio.current_time()
            moved = table.head != written_head  # (a vote of our own is no progress of the table)
            if moved or peer.out or peer.events or peer.files.pending:
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
            if peer.clock.stalled(now, self.timeout):
                due = sorted(table.due())
                seat = due[0] if due else -1
                raise PeerSilent(seat, self.seat_name(seat), 2 * self.timeout, table.seq, peer.seat)
            decision = table.decision()
            if decision is not None and hasattr(peer.player, "achoose"):  # a person: await the choice
                view = table.view()
                assert view is not None
                choice = await peer.player.achoose(view, decision)
                if table.decision() is not None:  # (what arrived meanwhile is taken next)
                    self._took(peer, table.decide(choice))
                continue
            await self._receive_into(peer)

    async def _receive_into(self, peer: _Peer) -> None:
        """Wait for a frame or a poke (from the heartbeat); file what arrived."""
        frame = await peer.inbox.get()
        self._file(peer, frame)
        while (queued := peer.inbox.get_nowait()) is not None:  # filed together, logged once
            self._file(peer, queued)

    def _vote(self, peer: _Peer, now: float) -> bool:
        """Vote against every seat this peer's clock has seen due for the timeout."""
        table = peer.table
        silent = peer.clock.silent(table.may_vote(), now, self.timeout)
        for x in silent:
            log.warning("seat %d (%s) has been silent for %g s at seq %d: seat %d votes it out",
                        x, self.seat_name(x), self.timeout, table.seq, peer.seat)
            self._took(peer, table.vote(x))
        return bool(silent)

    def _file(self, peer: _Peer, frame: Frame) -> None:
        """Take one received frame: drop a duplicate, keep an entry from ahead for its
        place, give the rest to the replica now (:class:`~p2pcards.net.inbox.Reorder`)."""
        if frame is POKE:
            return
        table = peer.table
        try:
            filed = peer.reorder.file(frame, table.seq, table.log, trio.current_time())
        except Rejected as exc:
            self._reject(peer, frame.seq, exc, frame.source)
            return
        if filed is Filed.NOW:
            self._try(peer, frame)

    def _pump(self, peer: _Peer) -> None:
        """Apply the seat's decisions and every entry waiting ahead that fits, in order."""
        table, reorder = peer.table, peer.reorder
        progressed = True
        while progressed and not table.finished:
            progressed = False
            decision = table.decision()
            if decision is not None:
                if hasattr(peer.player, "achoose"):
                    break  # an asynchronous player: _run_peer awaits its choice
                view = table.view()
                assert view is not None
                self._took(peer, table.decide(peer.player.choose(view, decision)))
                progressed = True
                continue
            if table.holding and reorder.new_close():  # a voter left behind: see Table.take_held
                before = table.seq
                try:
                    self._took(peer, table.take_held(reorder.by_seq()))
                except Rejected as exc:
                    self._reject(peer, table.seq, exc, None)
                progressed = table.seq != before
                if progressed:
                    log.info("seat %d: the table went on past the entry it held aside (it voted); it takes it",
                             peer.seat)
                    continue
            seq = table.seq
            candidates = reorder.take(seq)
            for i, frame in enumerate(candidates):
                if self._try(peer, frame):
                    progressed = True
                    for other in candidates[i + 1:]:
                        if other.raw != frame.raw:
                            self._try(peer, other)
                    break

    def _try(self, peer: _Peer, frame: Frame) -> bool:
        link = frame.source
        refusals = self.refusals.get(link) if link is not None else None
        if refusals is not None and not refusals.allows(trio.current_time()):
            # (checked here too: the reader's check runs ahead of the refusals still in the inbox)
            refusals.dropped += 1
            return False
        try:
            if frame.decoded is None:
                raise Rejected(frame.error or "not a table message")
            self._took(peer, peer.table.receive(frame.decoded))
        except Rejected as exc:
            self._reject(peer, frame.seq, exc, link)
            if link is not None and ("chain mismatch" in exc.reason or "another chain" in exc.reason):
                # perhaps a fork, or a certificate in place of this peer's own last entries: see what
                # that process holds from the start of the deal
                self._sync_from(link, min(peer.table.seq - 4, peer.table.deal_start))
            return False
        except Exception as exc:  # noqa: BLE001 -- a bug below must not stop the peer
            log.exception("seat %d: the table failed on a message (seq %s)", peer.seat, frame.seq)
            self._reject(peer, frame.seq, Rejected(f"internal error: {exc!r}"), link)
            return False
        return True

    def _reject(self, peer: _Peer, seq: int | None, exc: Rejected, link: Link | None) -> None:
        peer.rejected.append((seq, exc))
        if len(peer.rejected) > 1000:
            del peer.rejected[:500]
        if link is not None:
            self.refusals.setdefault(link, Refusals(trio.current_time())).take(trio.current_time())
        if exc.blame is None:
            blame = "nobody can be blamed"
        else:
            blame = f"blames seat {exc.blame} ({self.seat_name(exc.blame)})"
        level = logging.DEBUG if "replayed" in exc.reason or "stale" in exc.reason else logging.WARNING
        log.log(level, "seat %d rejected a message (seq %s; %s): %s", peer.seat, "?" if seq is None else seq, blame,
                exc.reason, extra={REFUSED_RECORD: (peer.seat, exc.blame)})

    def _took(self, peer: _Peer, out: Output) -> None:
        """An output of ``peer``'s replica, carried out at the next commit."""
        peer.files.take(out)
        peer.out += out.send
        peer.events += out.events

    def _commit(self, peer: _Peer) -> None:
        """Carry out the replica's outputs, in their order: write the files (fsync), queue
        what it sends on every link (nobody waits for a slow one), tell its events."""
        peer.files.commit()
        out, peer.out = peer.out, []
        for raw in out:
            self._broadcast(peer.seat, raw)
        events, peer.events = peer.events, []
        for event in events:
            self.tell(peer.seat, event)

    async def _hang_up(self) -> None:
        """Queue the end of every link's stream, then wait (bounded) until the processes with
        seats hang up too; when one is missing (its link broke, or its seat was voted out),
        linger up to ``linger`` seconds so that it can come back, sync and learn the outcome."""
        missing = {s for link, seats in self.links if link.reason is not None and not link.clean_eof for s in seats}
        missing |= {s for s in range(self.n_seats) if self._peer_is_dummy(s)}
        self._over = True
        held = set()
        for link, seats in list(self.links):
            if self._catching_up(link, seats, missing):
                held.add(link)  # its last sync answer (``_control``) ends with the end of the link
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
        return bool(seats & missing) and link.rejoined and link not in self.syncs.whole

    def _peer_is_dummy(self, seat: int) -> bool:
        return any(seat in p.table.dummies for p in self.peers.values()) and seat not in self.peers


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
