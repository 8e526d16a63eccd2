"""Hosting a table: the lobby, the genesis, then the host's bots as peers like any other.

The host opens a TCP listener and seats remote peers as they introduce themselves
(``hello``); bot seats are separate peers run by this process, each with a fresh identity;
a ``me`` seat is the host's own person, a peer with the host's identity whose decisions come
from a screen (an asynchronous player, :mod:`p2pcards.tui.runtime`).
When every seat is taken it signs the genesis with the host's own identity and sends it,
with the directory of processes, to every joiner (``start``).  The lobby connection of each
joiner then becomes the mesh link between that joiner and this process; the host's only
privilege ends there.  The listener stays open for the whole table: a process that comes
back after a crash reconnects through it (``rejoin``, :mod:`p2pcards.net.rejoin`).  The
bots' identities and the process's manifest are saved with the logs, so that
``p2pcards resume`` can take the bots' seats again.  Messages: ``protocol/TRANSPORT.md``.
"""

from __future__ import annotations

import logging
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from p2pcards.core import GameSpec, Options
from p2pcards.identity import Identity
from p2pcards.net.errors import ListenError, LobbyTimeout, MeshError, single_error
from p2pcards.net.handshake import (
    NONCE_SIZE,
    Hello,
    LobbyProtocolError,
    Process,
    Seated,
    SeatSpec,
    decode,
    make_greeting,
    make_refused,
    make_seated,
    make_start,
    parse_hello,
)
from p2pcards.net.link import Link, LinkClosed, PreauthGate, PreauthSlot, open_preauth
from p2pcards.net.memory import make_table
from p2pcards.net.node import LINGER, EventSink, LinkSink, LocalSeat, Node, TableRecorder, describe_table
from p2pcards.net.rejoin import answer_rejoin
from p2pcards.net.store import PERSON, Manifest, PeerEntry, peer_stem, save_identity, table_dir
from p2pcards.players import TABLE_CAP_MS, Player, make_player
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, SeatInfo, parse_message

__all__ = ["host_table", "HELLO_TIMEOUT"]

log = logging.getLogger("p2pcards.net.host")

#: Seconds a new connection has to introduce itself.
HELLO_TIMEOUT = 10.0


_REJOINED = object()


@dataclass
class _Joiner:
    seat: int
    hello: Hello
    addr: str
    link: Link
    watch: trio.CancelScope = field(default_factory=trio.CancelScope)


class _Lobby:
    """Seats of the table while it fills (one per host process; touched by one task at a time)."""

    def __init__(self, spec: GameSpec, seats: Sequence[SeatSpec], bot_keys: set[bytes], host: Identity,
                 options: Options, deals: int | None, timeout: float) -> None:
        self.spec = spec
        self.free = [i for i, s in enumerate(seats) if s.kind == "remote"]
        self.joiners: dict[int, _Joiner] = {}
        self.bot_keys = bot_keys
        self.host = host
        self.options = options
        self.deals = deals
        self.timeout = timeout
        self.started = False
        #: whether the host's own identity holds a seat (a ``me`` seat)
        self.host_seated = any(s.kind == "me" for s in seats)
        self.changed = trio.Event()
        #: The connections that have not said who they are yet (no hello, no rejoin proof).
        self.gate = PreauthGate("the lobby")
        #: The node playing the bots, once the table has started (reconnections go to it).
        self.node: Node | None = None
        self.on_seats: Callable[[int, int], None] | None = None
        self.on_joiners: Callable[[Mapping[int, str]], None] | None = None

    def _notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()
        if self.on_seats is not None:  # e.g. the LAN announcement (p2pcards.discovery)
            self.on_seats(self.spec.seats - len(self.free), self.spec.seats)
        if self.on_joiners is not None:  # e.g. the host's lobby screen: who sits where
            self.on_joiners({seat: j.hello.name for seat, j in sorted(self.joiners.items())})

    def refusal(self, hello: Hello) -> tuple[str, str] | None:
        spec = self.spec
        theirs = hello.games.get(spec.name)
        if theirs is None:
            return "game", f"this table plays {spec.name}, which the peer does not have installed"
        if theirs != spec.rules_version:
            return "game", (f"this table plays {spec.name} rules version {spec.rules_version}; "
                            f"the peer has version {theirs}")
        held = [s for s, j in self.joiners.items() if j.hello.signing == hello.signing]
        if self.started and held:  # a player who left knocks again: say how it gets back
            return "seated", (f"this identity holds seat {held[0] + 1} of this table, which is being played: "
                              "`p2pcards resume` (or \"Your tables\" on the start screen) on the machine that "
                              "played it takes the seat again")
        if self.started or not self.free:
            return "full", "every seat at this table is taken"
        if (hello.signing in self.bot_keys or any(j.hello.signing == hello.signing for j in self.joiners.values())
                or (self.host_seated and hello.signing == self.host.signing_public)):
            return "seated", "this identity already holds a seat at this table"
        return None

    def seat(self, hello: Hello, addr: str, link: Link) -> _Joiner:
        seat = self.free.pop(0)
        joiner = _Joiner(seat, hello, addr, link)
        self.joiners[seat] = joiner
        log.info("seat %d: %s (%s) from %s", seat, hello.name, link.name, addr)
        self._notify()
        return joiner

    def leave(self, joiner: _Joiner, reason: str) -> None:
        if self.started or self.joiners.get(joiner.seat) is not joiner:
            return
        del self.joiners[joiner.seat]
        self.free.append(joiner.seat)
        self.free.sort()
        log.info("seat %d is free again: %s left the lobby (%s)", joiner.seat, joiner.hello.name, reason)
        self._notify()

    def seated(self, seat: int) -> Seated:
        spec = self.spec
        return Seated(seat, spec.name, spec.rules_version, self.options, spec.seats, self.deals, self.timeout,
                      self.host.name, self.host.signing_public)

    async def handle(self, stream: trio.SocketStream) -> None:
        """One lobby connection; catches everything so one bad peer cannot hurt the others.

        Until it is seated (or its reconnection proven) the connection holds a slot of
        :attr:`gate` (none free: it is closed at once, not even greeted) and its frames are
        at most :data:`~p2pcards.net.link.PREAUTH_FRAME` bytes.
        """
        opened = await open_preauth(stream, self.gate)
        if opened is None:
            return
        link, slot, addr = opened
        name = link.name
        try:
            async with trio.open_nursery() as nursery:
                await nursery.start(link.run)
                nonce = os.urandom(NONCE_SIZE)
                try:
                    await link.send(make_greeting(nonce))
                except LinkClosed:
                    await link.aclose()
                    return
                joiner = await self._admit(link, addr, nonce, slot)
                if joiner is _REJOINED:
                    return  # the link is the node's now; its reader goes on in this nursery
                if joiner is None:
                    await link.aclose()
                    return
                assert isinstance(joiner, _Joiner)
                with joiner.watch:
                    try:
                        await link.receive()
                        reason = "it spoke before the table started"
                    except LinkClosed as exc:
                        reason = str(exc)
                    self.leave(joiner, reason)
                    await link.aclose(reason)
                    return
                # the table starts: the link now belongs to the node; the reader goes on here
        except Exception:  # noqa: BLE001 -- one connection never takes the host down
            log.exception("lobby connection %s failed", name)
            await link.aclose("failed")
        finally:
            slot.release()  # on every way out before it was seated: refusal, timeout, error, cancellation

    async def _admit(self, link: Link, addr: str, nonce: bytes, slot: PreauthSlot) -> _Joiner | object | None:
        """Read the hello (or rejoin) and seat the peer; on success the link is authenticated:
        its frame limit is raised and ``slot`` released."""
        with trio.move_on_after(HELLO_TIMEOUT):
            try:
                payload = await link.receive()
            except LinkClosed as exc:
                log.info("%s left before its hello: %s", link.name, exc)
                return None
            try:
                obj = decode(payload)
                if obj.get("type") == "rejoin":  # a process of this table comes back
                    if not await answer_rejoin(self.node, link, obj, nonce):
                        return None
                    # welcomed (answer_rejoin sent it): the dialler speaks again only once it has it
                    link.raise_limit()
                    slot.release()
                    return _REJOINED
                hello = parse_hello(obj, nonce)
            except LobbyProtocolError as exc:
                log.warning("%s: refused (%s): %s", link.name, exc.code, exc.reason)
                await self._refuse(link, exc.code, exc.reason)
                return None
            problem = self.refusal(hello)
            if problem is not None:
                log.info("%s (%s): refused (%s): %s", link.name, hello.name, *problem)
                await self._refuse(link, *problem)
                return None
            joiner = self.seat(hello, addr, link)
            link.raise_limit()  # before `seated`: whatever it sends next is read with the full limit
            slot.release()
            try:
                await link.send(make_seated(self.seated(joiner.seat)))
            except LinkClosed as exc:
                self.leave(joiner, str(exc))
                return None
            return joiner
        log.info("%s sent no hello within %g s; closed", link.name, HELLO_TIMEOUT)
        return None

    async def _refuse(self, link: Link, code: str, reason: str) -> None:
        try:
            await link.send(make_refused(code, reason))
            await link.send_eof()
        except LinkClosed:
            pass


async def host_table(
    spec: GameSpec,
    *,
    seats: Sequence[SeatSpec],
    host: Identity,
    data_dir: Path,
    options: Options | None = None,
    deals: int | None = None,
    timeout: float = 60.0,
    bind: str = "0.0.0.0",
    port: int = 0,
    lobby_timeout: float = 600.0,
    on_event: EventSink | None = None,
    on_table: Callable[[dict[str, object]], None] | None = None,
    on_listening: Callable[[str, int], None] | None = None,
    on_seats: Callable[[int, int], None] | None = None,
    on_joiners: Callable[[Mapping[int, str]], None] | None = None,
    on_link: LinkSink | None = None,
    person: Player | None = None,
    wrap_bot: Callable[[Player], Player] | None = None,
    seed: int | None = None,
    linger: float = LINGER,
    table_class: Callable[..., Table] = Table,
    hints: bool = True,
    recorder: TableRecorder | None = None,
    task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
) -> Node | None:
    """Host a table of ``spec`` and play its bot seats (and ``me`` seat) to the end; returns the node.

    ``on_listening(address, port)`` is called and ``task_status.started((address, port))``
    reported once the listener is open (port 0 picks a free port); ``on_seats(taken, total)``
    then, and whenever a seat is taken or freed before the table starts, and
    ``on_joiners({seat: name})`` with the people seated by then.  ``options`` are
    resolved against the game (plain values in the genesis).  The ``me`` seat (at most one)
    is played by ``person`` with the host's identity; ``wrap_bot(player)`` may wrap each
    bot's player (e.g. to pace it for a screen); ``on_link`` goes to the node.  With no
    local seat the host only seats the players, sends the genesis and returns None.
    ``linger``, ``table_class`` and ``recorder`` go to the node (:class:`~p2pcards.net.node.Node`).
    ``hints`` False writes into the genesis that the host forbids hints at the table.
    Raises :class:`ListenError`, :class:`LobbyTimeout`, or another NetError.
    """
    if len(seats) != spec.seats:
        raise ValueError(f"{spec.name} has {spec.seats} seats, not {len(seats)}")
    mine = [i for i, s in enumerate(seats) if s.kind == "me"]
    if len(mine) > 1 or (mine and person is None):
        raise ValueError("a table has at most one 'me' seat, and it needs a person to play it")
    resolved = spec.resolve_options({k: str(v) for k, v in (options or {}).items()})
    rng = random.Random(seed if seed is not None else os.urandom(16))
    # named as people count seats, from 1 ("bot2" sits in seat 2)
    bots = {i: Identity.generate(f"bot{i + 1}") for i, s in enumerate(seats) if s.kind == "bot"}
    lobby = _Lobby(spec, seats, {b.signing_public for b in bots.values()}, host, resolved, deals, timeout)
    try:
        listeners = await trio.open_tcp_listeners(port, host=bind)
    except OSError as exc:
        raise ListenError(f"cannot listen on {bind}:{port}: {exc.strerror or exc}") from None
    for extra in listeners[1:]:  # e.g. "localhost": IPv4 and IPv6 would get different free ports
        await extra.aclose()
    listeners = listeners[:1]
    actual = listeners[0].socket.getsockname()[1]
    with single_error():
        async with trio.open_nursery() as nursery:
            await nursery.start(trio.serve_listeners, lobby.handle, listeners)
            log.info("table for %s open on %s:%d", spec.name, bind, actual)
            if on_listening is not None:
                on_listening(bind, actual)
            lobby.on_seats, lobby.on_joiners = on_seats, on_joiners
            lobby._notify()
            task_status.started((bind, actual))
            await _fill(lobby, lobby_timeout)
            genesis_raw = _genesis(lobby, spec, seats, bots, host, hints)
            genesis = Genesis.from_body(parse_message(genesis_raw, None).body)
            if on_table is not None:
                on_table(describe_table(genesis, sorted([*bots, *mine])))
            node = None
            local_seats = sorted([*bots, *mine])
            processes = _directory(lobby, local_seats)
            if local_seats:
                locals_: list[LocalSeat] = []
                entries: list[PeerEntry] = []
                for i in local_seats:
                    if i in bots:
                        level = seats[i].level or "heuristic"
                        bot = make_player(level, spec, random.Random(rng.getrandbits(64)), cap_ms=TABLE_CAP_MS)
                        locals_.append(LocalSeat(bots[i], wrap_bot(bot) if wrap_bot is not None else bot))
                        entries.append(PeerEntry(i, peer_stem(i), "file", level))
                        save_identity(table_dir(data_dir, genesis.table_id) / f"{peer_stem(i)}.identity", bots[i])
                    else:
                        assert person is not None
                        locals_.append(LocalSeat(host, person))
                        entries.append(PeerEntry(i, peer_stem(i), "user", PERSON))
                manifest = Manifest("host", genesis.table_id, host.fingerprint, spec.name, tuple(processes),
                                    tuple(entries), listen=(bind, actual))
                node = Node(genesis_raw, spec, locals_, data_dir=data_dir, on_event=on_event, timeout=timeout,
                            manifest=manifest, on_link=on_link, linger=linger, table_class=table_class,
                            recorder=recorder)
                for joiner in lobby.joiners.values():
                    node.attach(joiner.link, {joiner.seat})
                lobby.node = node
            await _send_start(lobby, genesis_raw, processes)
            if node is not None:
                await node.run()
            else:
                await _release(lobby)
            nursery.cancel_scope.cancel()
    return node


async def _fill(lobby: _Lobby, lobby_timeout: float) -> None:
    """Wait until every remote seat is taken by a peer that is still there."""
    with trio.move_on_after(lobby_timeout):
        while True:
            for joiner in list(lobby.joiners.values()):
                if joiner.link.reason is not None:
                    lobby.leave(joiner, joiner.link.reason)
            if not lobby.free:
                lobby.started = True
                for joiner in lobby.joiners.values():
                    joiner.watch.cancel()
                return
            await lobby.changed.wait()
    free = ", ".join(str(s) for s in lobby.free)
    raise LobbyTimeout(f"the table did not fill within {lobby_timeout:g} s: seat(s) {free} still free")


def _genesis(lobby: _Lobby, spec: GameSpec, seats: Sequence[SeatSpec], bots: Mapping[int, Identity],
             host: Identity, hints: bool = True) -> bytes:
    infos: list[SeatInfo] = []
    for i, s in enumerate(seats):
        if s.kind == "me":
            infos.append(SeatInfo(host.name, host.signing_public, host.sealing_public, None, None))
        elif s.kind == "bot":
            b = bots[i]
            infos.append(SeatInfo(b.name, b.signing_public, b.sealing_public, s.level, host.fingerprint))
        else:
            h = lobby.joiners[i].hello
            infos.append(SeatInfo(h.name, h.signing, h.sealing, h.bot, None))
    return make_table(host, spec, infos, options=lobby.options, deals=lobby.deals, timeout=lobby.timeout,
                      hints=hints)


def _directory(lobby: _Lobby, local_seats: Sequence[int]) -> list[Process]:
    """The processes of the table: the host's (its bots and person; reached through the lobby
    link), each joiner's."""
    processes = [Process(tuple(local_seats), None, None)] if local_seats else []
    processes += [Process((j.seat,), j.addr, j.hello.port) for _, j in sorted(lobby.joiners.items())]
    return processes


async def _send_start(lobby: _Lobby, genesis_raw: bytes, processes: Sequence[Process]) -> None:
    start = make_start(genesis_raw, processes)
    for seat, joiner in sorted(lobby.joiners.items()):
        try:
            with trio.fail_after(HELLO_TIMEOUT):
                await joiner.link.send(start)
        except (LinkClosed, trio.TooSlowError) as exc:
            raise MeshError(f"seat {seat} ({joiner.hello.name}) left as the table started: "
                            f"{str(exc) or 'it does not read'}") from None


async def _release(lobby: _Lobby) -> None:
    """With no seat here, hand the table over: hang up, let the joiners close (bounded)."""
    for joiner in lobby.joiners.values():
        await joiner.link.send_eof()
    with trio.move_on_after(HELLO_TIMEOUT):
        for joiner in lobby.joiners.values():
            await joiner.link.finished.wait()
    for joiner in lobby.joiners.values():
        await joiner.link.aclose("handed over")
