"""One process's part of a table: it wires its local peers' replicas to trio.

A :class:`Node` holds one or more local peers -- each a :class:`~p2pcards.table.Table`
replica with its identity and player -- and the process's links to the others
(:class:`~p2pcards.net.mesh.Mesh`).  It decides nothing about the table (the replicas do):
one task per local peer feeds its replica what arrives, in order
(:mod:`~p2pcards.net.inbox`), asks its player when its seat must decide, and carries out
each :class:`~p2pcards.table.events.Output` in its order -- the files first
(:mod:`~p2pcards.net.files`), then what it sends, then the events told (``on_event``) and
recorded (``recorder``, the history).  A heartbeat looks at the clocks that lead to syncs
and votes (:mod:`~p2pcards.net.clocks`); a process that comes back is answered
(:mod:`~p2pcards.net.sync`, :mod:`~p2pcards.net.rejoin`); when every local replica has
finished the node hangs up, lingering for a process that is missing.  The rules of all this
are protocol/TRANSPORT.md's; docs/architecture.md walks through it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import trio

from p2pcards.core import GameSpec
from p2pcards.identity import Identity
from p2pcards.net.asking import ask
from p2pcards.net.clocks import AHEAD_SYNC, HEARTBEAT, Away, Clock
from p2pcards.net.errors import MeshError, PeerSilent, ResumeError, single_error
from p2pcards.net.files import PeerFiles, keep_manifest
from p2pcards.net.handshake import LobbyProtocolError
from p2pcards.net.inbox import POKE, Filed, Frame
from p2pcards.net.link import Link
from p2pcards.net.mesh import LINGER, LinkSink, Mesh
from p2pcards.net.peer import AsyncPlayer, EventSink, LocalSeat, Peer, TableRecorder, describe_table, in_background
from p2pcards.net.store import Manifest, log_path, peer_stem
from p2pcards.net.sync import Sync, Syncs, parse_control
from p2pcards.net.takeup import TakeUp
from p2pcards.table.events import Ended, TableEvent, TakenUp
from p2pcards.table.table import Rejected, SetupError, Table
from p2pcards.table.transcript import Genesis, TranscriptError, parse_message

__all__ = ["Node", "LocalSeat", "TableRecorder", "describe_table", "EventSink", "LinkSink", "LINGER"]

log = logging.getLogger("p2pcards.net.node")
#: A log record of a refused message carries ``(replica's seat, blamed seat or None)`` under
#: this attribute, for a screen to tell the person (:mod:`p2pcards.tui.logfile`).
REFUSED_RECORD = "p2pcards_refused"


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
        self.manifest = manifest
        self.table_class = table_class
        self.recorder = recorder if data_dir is not None else None
        self.seat_infos = list(self.genesis.seats)
        self.peers: dict[int, Peer] = {}
        self.syncs = Syncs(self.table_id)
        self.away = Away()
        self.started = trio.Event()
        self._nursery: trio.Nursery | None = None
        #: True once every local replica has finished (the node only lingers, answering syncs)
        self._over = False
        #: the local seat whose replica the history hears (every replica tells the same)
        self._recording: int | None = None
        #: an abandoned table this process takes up again (``p2pcards resume``)
        self.takeup = TakeUp()
        for local in seats:
            self._make_peer(local)
        #: the links to the other processes
        self.mesh = Mesh(self.timeout, frozenset(self.peers), deliver=self._deliver, control=self._control,
                         over=lambda: not any(self._active(p.table) for p in self.peers.values()), on_link=on_link)

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
        peer = Peer(seat, table, in_background(local.player), files)
        if local.log is not None:
            try:
                restored = table.restore(local.log, local.side)
            except (SetupError, Rejected) as exc:
                raise ResumeError(f"the saved transcript of seat {seat} ({stem}.log) is not sound, "
                                  f"so this process will not take its seat again: {exc}") from None
            peer.out = restored.send
            peer.restored = True
            if self.manifest is not None and self.manifest.ended == "abandoned" and not table.finished:
                # taken up again before the process stopped (it had not said so in its manifest yet)
                self.manifest = replace(self.manifest, finished=False, ended=None)
            for event in restored.events:  # its past is not told again; the history only makes sure it has it
                self._record(seat, event)
        self.peers[seat] = peer

    # ------------------------------------------------------------------ events
    def tell(self, seat: int, event: TableEvent) -> None:
        """Seat ``seat``'s replica's ``event``: recorded (before anyone is told of it, so
        that what a person or a program sees is there already), then given to ``on_event``.
        Neither may break the table: their failures are logged."""
        if isinstance(event, TakenUp) and self.manifest is not None and self.manifest.finished:
            self.manifest = replace(self.manifest, finished=False, ended=None)  # in play again
            self._save_manifest()
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
                               transcript_hash=t.transcript_hash, abandoned=t.abandoned, voted_out=t.voted_out,
                               abandons=[dict(a) for a in t.abandons]))

    def close_history(self) -> None:
        """Close the history (it opens again if another event comes)."""
        if self.recorder is not None:
            self.recorder.close()

    # ------------------------------------------------------------------ queries
    def _active(self, table: Table) -> bool:
        """Whether a local replica still takes part: not finished, or an abandoned table this
        process takes up again."""
        return not table.finished or self.takeup.waits(table)

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
        return f"{self.seat_infos[seat].name}, {self.seat_infos[seat].fingerprint}"

    def log_path(self, seat: int) -> Path | None:
        if self.data_dir is None:
            return None
        peer = self.peers.get(seat)
        return log_path(self.data_dir, self.table_id, seat, peer.stem if peer else None)

    def lead(self) -> Table:
        """The local replica furthest along (what this process knows of the table)."""
        return max((p.table for p in self.peers.values()), key=lambda t: t.seq)

    @property
    def seq(self) -> int:
        """The length of the transcript this process holds (its furthest replica)."""
        return self.lead().seq

    def local_identities(self) -> dict[int, Identity]:
        """The identities of the local peers (they prove this process's seats)."""
        return {s: me for s, p in sorted(self.peers.items()) if (me := p.table.me) is not None}

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
        return self.mesh.linked

    @property
    def links(self) -> list[tuple[Link, frozenset[int]]]:
        return self.mesh.links

    def abandon(self) -> bool:
        """Abandon the table from a local seat that may (a table of two, while the other
        seat is due); False when none may."""
        able = [p for p in self.peers.values() if p.table.may_abandon()]
        if not able:
            return False
        able[0].took(able[0].table.abandon())
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
        self.mesh.attach(link, frozenset(seats))

    def adopt_link(self, link: Link, seats: frozenset[int]) -> bool:
        """A reconnection (verified by :mod:`p2pcards.net.rejoin`) of the process that runs
        ``seats``: it replaces that process's old link (:meth:`Mesh.adopt`), and both sides
        ask each other for what they missed.  ``link`` is already read."""
        if not self.mesh.adopt(link, frozenset(seats)):
            return False
        self.request_sync(self.sync_start(), [(link, frozenset(seats))])  # (before the run: the run asks)
        return True

    def may_adopt(self, link: Link, seats: frozenset[int]) -> bool:
        """Whether :meth:`adopt_link` would take ``link`` (it does not lose to a link up already)."""
        return self.mesh.may_adopt(link, frozenset(seats))

    def _broadcast(self, author: int, raw: bytes) -> None:
        """``raw`` to every other local peer (decoded once for all of them) and queued on
        every link to a process with seats."""
        others = [p for p in self.peers.values() if p.seat != author and self._active(p.table)]
        if others:
            frame = Frame.of(raw)
            for other in others:
                other.inbox.put_local(frame)
        self.mesh.send_all(raw)

    async def _deliver(self, frame: Frame) -> None:
        """A table message from a link, for every unfinished local peer."""
        for peer in list(self.peers.values()):
            if self._active(peer.table):
                await peer.inbox.put_remote(frame)

    # ------------------------------------------------------------------ sync
    def request_sync(self, start: int, links: Sequence[tuple[Link, frozenset[int]]] | None = None) -> None:
        """Ask the other processes (or ``links``) for their transcript from seq ``start`` on."""
        if self._nursery is None:
            return
        self.mesh.send_all(self.syncs.ask(start), list(links) if links is not None else None)

    def _sync_from(self, link: Link | None, start: int) -> None:
        """Ask one link (or every one), rate-limited: once a second, for what it holds from ``start``."""
        now = trio.current_time()
        fresh = [(lk, s) for lk, s in self.links if s and (link is None or lk is link) and self.syncs.may_ask(lk, now)]
        if fresh:
            self.request_sync(start, fresh)

    def _control(self, link: Link, seats: frozenset[int], obj: dict[str, object]) -> None:
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
                self.mesh.send(link, raw)
            if whole and msg.start >= best.files.written and seats & set(best.table.dummies):
                self.mesh.caught_up(link)  # a voted-out seat's process that holds all this one has
            if whole and self._over:  # a process that came back after the end has it all now
                self.mesh.end(link)
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
                    self._nursery = nursery
                    await self.mesh.start(nursery)  # from now on a link adopted starts at once
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
            self.mesh.stop()
            self._close_files()
            await self.mesh.close()
        if self.manifest is not None and self.data_dir is not None:
            self._save_manifest(ended=self.ending())

    def set_aside_unconfirmed(self) -> None:
        """The table went on without this process, and nobody can tell it what became of its
        last messages: its own entries at the end of each log, which no other seat built on,
        are kept apart with the rejected ones (the log keeps what the others accepted)."""
        for peer in self.peers.values():
            peer.set_aside_unconfirmed()

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
        if self.manifest is not None and self.data_dir is not None:
            self.manifest = keep_manifest(self.data_dir, self.manifest, ended)

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

    def _look(self, peer: Peer, now: float) -> None:
        table, clock = peer.table, peer.clock
        if self.takeup.waits(table):
            peer.inbox.put_local(POKE)  # (the peer writes its takeup once linked, or gives up)
            if self.linked and clock.wants_sync(now, self.timeout):
                self.request_sync(table.deal_start)
            return
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

    async def _run_peer(self, peer: Peer) -> None:
        table = peer.table
        if not peer.restored:
            peer.took(table.start())
        written_head: bytes | None = None
        observe = getattr(peer.player, "observe", None)  # optional: told of every change (a screen)
        while True:
            self._pump(peer)
            moved = table.head != written_head  # (a vote of our own is no progress of the table)
            if moved or peer.out or peer.events or peer.files.pending:
                sent = self._commit(peer)
                written_head = table.head
                peer.observe(observe)
                if sent:
                    await self.mesh.flush()  # what it sent leaves before the next message is checked
            now = trio.current_time()  # (after the flush: the process may have been stopped in it)
            peer.clock.update(table.due() or table.awaiting_takeup(), now, moved)
            if not self._active(table):
                break
            if self.takeup.waits(table):
                if not self.takeup.step(peer, now, self.linked, self.timeout, self.peers, self.seat_name):
                    await self._receive_into(peer)
                continue
            if self._was_away(now):
                continue
            if self._vote(peer, now):
                continue
            if peer.clock.stalled(now, self.timeout):
                due = sorted(table.due())
                seat = due[0] if due else -1
                raise PeerSilent(seat, self.seat_name(seat), 2 * self.timeout, table.seq, peer.seat,
                                 alone=not self.linked)
            decision = table.decision()
            if decision is not None and isinstance(peer.player, AsyncPlayer):  # a person: await the choice
                answer = await ask(peer, decision, self._receive_into, lambda p: self._settle(p, observe))
                if answer and table.decision() is not None:  # (what arrived meanwhile is taken next)
                    peer.took(table.decide(answer[0]))
                continue
            await self._receive_into(peer)

    def _settle(self, peer: Peer, observe: Callable[[Table], None] | None) -> None:
        """Carry out what filing produced while a person thinks (:mod:`~p2pcards.net.asking`)."""
        if peer.out or peer.events or peer.files.pending:
            self._commit(peer)
            peer.observe(observe)

    async def _receive_into(self, peer: Peer) -> None:
        """Wait for a frame or a poke (from the heartbeat); file what arrived."""
        frame = await peer.inbox.get(peer.table.check_ahead)  # (proofs checked while waiting)
        self._file(peer, frame)
        while (queued := peer.inbox.get_nowait()) is not None:  # filed together, logged once
            self._file(peer, queued)

    def _vote(self, peer: Peer, now: float) -> bool:
        """Vote against every seat this peer's clock has seen due for the timeout."""
        table = peer.table
        silent = peer.clock.silent(table.may_vote(), now, self.timeout)
        for x in silent:
            log.warning("seat %d (%s) has been silent for %g s at seq %d: seat %d votes it out",
                        x, self.seat_name(x), self.timeout, table.seq, peer.seat)
            peer.took(table.vote(x))
        return bool(silent)

    def _file(self, peer: Peer, frame: Frame) -> None:
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

    def _pump(self, peer: Peer) -> None:
        """Apply the seat's decisions and every entry waiting ahead that fits, in order."""
        table, reorder = peer.table, peer.reorder
        progressed = True
        while progressed and self._active(table):
            progressed = False
            decision = table.decision()
            if decision is not None:
                if isinstance(peer.player, AsyncPlayer):
                    break  # an asynchronous player: _run_peer awaits its choice
                view = table.view()
                assert view is not None
                peer.took(table.decide(peer.player.choose(view, decision)))
                progressed = True
                continue
            if table.holding and reorder.new_close():  # a voter left behind: see Table.take_held
                before = table.seq
                try:
                    peer.took(table.take_held(reorder.by_seq()))
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

    def _try(self, peer: Peer, frame: Frame) -> bool:
        link = frame.source
        if not self.mesh.allows(link):  # (checked here too: the reader runs ahead of the refusals in the inbox)
            return False
        try:
            if frame.decoded is None:
                raise Rejected(frame.error or "not a table message")
            peer.took(peer.table.receive(frame.decoded))
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

    def _reject(self, peer: Peer, seq: int | None, exc: Rejected, link: Link | None) -> None:
        peer.refused(seq, exc)
        if link is not None:
            self.mesh.refused(link)
        if exc.blame is None:
            blame = "nobody can be blamed"
        else:
            blame = f"blames seat {exc.blame} ({self.seat_name(exc.blame)})"
        level = logging.DEBUG if "replayed" in exc.reason or "stale" in exc.reason else logging.WARNING
        log.log(level, "seat %d rejected a message (seq %s; %s): %s", peer.seat, "?" if seq is None else seq, blame,
                exc.reason, extra={REFUSED_RECORD: (peer.seat, exc.blame)})

    def _commit(self, peer: Peer) -> int:
        """Carry out the replica's outputs, in their order: write the files (fsync), queue
        what it sends on every link (nobody waits for a slow one), tell its events.  The
        number of messages sent."""
        sends, events = peer.commit()
        for raw in sends:
            self._broadcast(peer.seat, raw)
        for event in events:
            self.tell(peer.seat, event)
        return len(sends)

    async def _hang_up(self) -> None:
        """The tables are over: end every link's stream and wait (bounded) for the other
        processes to hang up too (:meth:`Mesh.hang_up`); a process whose link broke or whose
        seat was voted out is missing, and the node lingers for it.  A process whose own seat
        was voted out first asks for what follows its end: the others then know it has it all."""
        broken = {s for link, seats in self.links if link.reason is not None and not link.clean_eof for s in seats}
        dummies = {s for p in self.peers.values() for s in p.table.dummies if s not in self.peers}
        self._over = True
        if self.voted_out:  # the others linger for this process: it tells them it has it all
            self.request_sync(self.seq)
        await self.mesh.hang_up(broken | dummies, self.syncs.whole, self.linger)
