"""Joining a table: introduce this peer to the host, take a seat, link up with everyone, play.

The joiner opens its own mesh listener first (on the local address it uses to reach the
host, so that it listens on the network the table is on), announces its port in its
``hello``, and waits to be seated.  When the table starts it checks the genesis -- signed
by the host that seated it, this peer in the seat it was given -- and builds the full mesh:
the lobby connection is its link to the host's process; with every other joiner, the one
with the higher seat dials the one with the lower seat.  The mesh listener stays open for
the whole table: a process that comes back after a crash reconnects through it
(``rejoin``, :mod:`p2pcards.net.rejoin`).  The process's manifest (the directory, the
host's address, its own listener) is saved with its log for ``p2pcards resume``.
Messages: ``protocol/TRANSPORT.md``.
"""

from __future__ import annotations

import functools
import logging
import os
import random
from collections.abc import Callable
from pathlib import Path

import trio

from p2pcards.core import GameRegistry
from p2pcards.identity import Identity, fingerprint
from p2pcards.net.errors import ConnectError, LobbyTimeout, MeshError, Refused, single_error
from p2pcards.net.handshake import (
    DIALLER,
    LISTENER,
    NONCE_SIZE,
    LobbyProtocolError,
    Process,
    Seated,
    Start,
    decode,
    make_greeting,
    make_hello,
    make_mesh_hello,
    parse_greeting,
    parse_mesh_hello,
    parse_seated_or_refused,
    parse_start,
)
from p2pcards.net.link import Link, LinkClosed, PreauthGate, open_preauth, receive_control
from p2pcards.net.node import LINGER, EventSink, LinkSink, LocalSeat, Node, TableRecorder, describe_table
from p2pcards.net.rejoin import answer_rejoin
from p2pcards.net.store import PERSON, Manifest, PeerEntry, peer_stem
from p2pcards.players import TABLE_CAP_MS, Player, make_player
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, TranscriptError, parse_message

__all__ = ["join_table", "CONNECT_TIMEOUT"]

log = logging.getLogger("p2pcards.net.join")

#: Seconds to reach a peer, and for it to answer a hello.
CONNECT_TIMEOUT = 10.0
_RETRY = 0.2


class _Mesh:
    """The links of this joiner to the other processes, as they come up."""

    def __init__(self) -> None:
        self.node: Node | None = None
        self.my_seats: tuple[int, ...] = ()
        self.expected_inbound: dict[tuple[int, ...], Process] = {}
        self.links: dict[tuple[int, ...], Link] = {}
        self.ready = trio.Event()  # the genesis is known
        self.changed = trio.Event()
        #: The inbound connections that have not proven their seats yet.
        self.gate = PreauthGate("the mesh listener")

    def _notify(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def identities(self) -> dict[int, Identity]:
        """This process's seats and their identities, for its mesh hellos."""
        assert self.node is not None
        mine = self.node.local_identities()
        return {s: mine[s] for s in self.my_seats}

    def add(self, seats: tuple[int, ...], link: Link) -> None:
        assert self.node is not None
        self.links[seats] = link
        self.node.attach(link, set(seats))
        self._notify()


async def join_table(
    host: str,
    port: int,
    *,
    me: Identity,
    registry: GameRegistry,
    data_dir: Path,
    level: str = "heuristic",
    name: str | None = None,
    lobby_timeout: float = 600.0,
    on_seated: Callable[[dict[str, object]], None] | None = None,
    on_table: Callable[[dict[str, object]], None] | None = None,
    on_event: EventSink | None = None,
    seed: int | None = None,
    expect_host: str | None = None,
    player: Player | None = None,
    on_link: LinkSink | None = None,
    linger: float = LINGER,
    table_class: Callable[..., Table] = Table,
    table_name: str | None = None,
    recorder: TableRecorder | None = None,
) -> Node:
    """Join the table at ``host:port`` as a bot peer of ``level`` and play it to the end.

    With ``player`` (a person's seat on a screen: an asynchronous player) the peer joins as
    a person instead (its ``hello`` names no bot level) and ``level`` is ignored.  With
    ``expect_host`` (a fingerprint, e.g. from the table's LAN announcement) the seat is
    given up unless the host that seats this peer has that key.  ``on_link``, ``linger``,
    ``table_class`` and ``recorder`` go to the node (:class:`~p2pcards.net.node.Node`).  ``table_name`` (the
    name the table was found by on the LAN) is kept in the manifest, so that joining by that
    name again takes the seat up again.

    Raises :class:`ConnectError`, :class:`Refused`, :class:`LobbyTimeout` or
    :class:`MeshError` (all NetErrors) with a message for people.
    """
    mesh = _Mesh()
    try:
        with trio.fail_after(CONNECT_TIMEOUT):
            stream = await trio.open_tcp_stream(host, port)
    except (OSError, trio.TooSlowError) as exc:
        why = "timed out" if isinstance(exc, trio.TooSlowError) else (exc.strerror or str(exc))
        raise ConnectError(f"cannot connect to {host}:{port}: {why}") from None
    local_ip = str(stream.socket.getsockname()[0])
    lobby = Link(stream, f"host {host}:{port}")
    try:
        listeners = await trio.open_tcp_listeners(0, host=local_ip)
    except OSError as exc:
        await trio.aclose_forcefully(stream)
        raise ConnectError(f"cannot listen for the other peers on {local_ip}: {exc.strerror or exc}") from None
    my_port = listeners[0].socket.getsockname()[1]
    games = {n: s.rules_version for n, s in registry.games.items()}
    with single_error():
        async with trio.open_nursery() as nursery:
            await nursery.start(lobby.run)
            await nursery.start(trio.serve_listeners, functools.partial(_inbound, mesh=mesh), listeners)
            seated = await _get_seat(lobby, me, my_port, games, None if player is not None else level, name)
            if expect_host is not None and fingerprint(seated.host_signing) != expect_host:
                await lobby.aclose("not the announced host")  # gives the seat back at once
                raise ConnectError(f"the host at {host}:{port} is not the one announced: its key's fingerprint is "
                                   f"{fingerprint(seated.host_signing)}, the announcement says {expect_host}")
            if on_seated is not None:
                on_seated({"type": "seated", "seat": seated.seat, "game": seated.game, "options": dict(seated.options),
                           "host": {"name": seated.host_name}, "port": my_port, "timeout": seated.timeout})
            start = await _get_start(lobby, seated, lobby_timeout)
            spec = registry.games.get(seated.game)
            if spec is None:  # the host refuses those; a host that does not is at fault
                raise MeshError(f"the host started a game this peer does not have: {seated.game}")
            genesis = _check_genesis(start, seated, me)
            if player is None:
                player = make_player(level, spec, random.Random(seed if seed is not None else os.urandom(16)),
                                     cap_ms=TABLE_CAP_MS if seed is None else None)  # a seed replays it
                entry = PeerEntry(seated.seat, peer_stem(seated.seat), "user", level)
            else:
                entry = PeerEntry(seated.seat, peer_stem(seated.seat), "user", PERSON)
            manifest = Manifest("join", genesis.table_id, me.fingerprint, spec.name, start.processes, (entry,),
                                listen=(local_ip, my_port), dial=(host, port), name=table_name)
            node = Node(start.genesis, spec, [LocalSeat(me, player)], data_dir=data_dir, on_event=on_event,
                        manifest=manifest, on_link=on_link, linger=linger, table_class=table_class,
                        recorder=recorder)
            mesh.node = node
            mesh.my_seats = (seated.seat,)
            if on_table is not None:
                on_table(describe_table(genesis, [seated.seat]))
            await _build_mesh(mesh, start, lobby, seated.seat, node.timeout, nursery)
            await node.run()
            nursery.cancel_scope.cancel()
    return node


async def _receive(link: Link, what: str) -> dict[str, object]:
    try:
        return await receive_control(link, what)
    except LobbyProtocolError as exc:
        raise MeshError(f"{link.name} broke the lobby protocol: {exc}") from None


async def _greeting(link: Link, what: str) -> bytes:
    """The nonce of the listener's greeting (bounded by :data:`CONNECT_TIMEOUT`)."""
    with trio.move_on_after(CONNECT_TIMEOUT):
        obj = await _receive(link, f"{what}'s greeting")
        try:
            return parse_greeting(obj)
        except LobbyProtocolError as exc:
            raise MeshError(f"{link.name} does not speak this peer's protocol: {exc.reason}") from None
    raise ConnectError(f"{link.name} sent no greeting within {CONNECT_TIMEOUT:g} s (it may run an older "
                       "p2pcards, which waits for the joiner to speak first)")


async def _get_seat(lobby: Link, me: Identity, port: int, games: dict[str, str], level: str | None,
                    name: str | None) -> Seated:
    nonce = await _greeting(lobby, "the host")
    try:
        await lobby.send(make_hello(me, nonce, port, games, level, name))
    except LinkClosed as exc:
        raise ConnectError(str(exc)) from None
    with trio.move_on_after(CONNECT_TIMEOUT):
        obj = await _receive(lobby, "a seat")
        try:
            answer = parse_seated_or_refused(obj)
        except LobbyProtocolError as exc:
            raise MeshError(f"the host broke the lobby protocol: {exc}") from None
        if isinstance(answer, tuple):
            raise Refused(*answer)
        log.info("seated at seat %d of %s (host %s)", answer.seat, answer.game, answer.host_name)
        return answer
    raise ConnectError(f"{lobby.name} did not answer the hello within {CONNECT_TIMEOUT:g} s")


async def _get_start(lobby: Link, seated: Seated, lobby_timeout: float) -> Start:
    with trio.move_on_after(lobby_timeout):
        obj = await _receive(lobby, "the table to start")
        try:
            return parse_start(obj, seated.seats)
        except LobbyProtocolError as exc:
            raise MeshError(f"the host sent a bad start: {exc}") from None
    raise LobbyTimeout(f"the table did not start within {lobby_timeout:g} s")


def _check_genesis(start: Start, seated: Seated, me: Identity) -> Genesis:
    """The genesis is the host's, describes the table we were seated at, and seats us there."""
    try:
        env = parse_message(start.genesis, None, host_key=seated.host_signing)
        if env.kind != "genesis" or env.seq != 0:
            raise TranscriptError("the start does not carry a genesis")
        genesis = Genesis.from_body(env.body)
    except TranscriptError as exc:
        raise MeshError(f"the host sent a bad genesis: {exc}") from None
    problems = []
    if env.table != genesis.table_id:
        problems.append("its table id is not the hash of its body")
    if (genesis.game, genesis.rules_version) != (seated.game, seated.rules_version):
        problems.append(f"it plays {genesis.game} {genesis.rules_version}, not {seated.game} {seated.rules_version}")
    if dict(genesis.options) != dict(seated.options) or genesis.deals != seated.deals:
        problems.append("its options are not the ones announced")
    if genesis.timeout != seated.timeout:
        problems.append(f"its timeout is {genesis.timeout:g} s, not the {seated.timeout:g} s announced")
    if len(genesis.seats) != seated.seats:
        problems.append("it has another number of seats")
    elif (genesis.seats[seated.seat].signing, genesis.seats[seated.seat].sealing) != (
            me.signing_public, me.sealing_public):
        problems.append(f"seat {seated.seat} is not this peer's")
    mine = [p for p in start.processes if seated.seat in p.seats]
    if not mine or mine[0].seats != (seated.seat,):
        problems.append("the directory does not give this peer its own process")
    if problems:
        raise MeshError("the host sent a genesis that does not match this seat: " + "; ".join(problems))
    return genesis


async def _build_mesh(mesh: _Mesh, start: Start, lobby: Link, seat: int, timeout: float,
                      nursery: trio.Nursery) -> None:
    """Link with every other process: the host's over the lobby link, lower seats by dialling."""
    assert mesh.node is not None
    others = [p for p in start.processes if seat not in p.seats]
    host_proc = [p for p in others if p.addr is None]
    if host_proc:
        mesh.add(host_proc[0].seats, lobby)
    else:
        await lobby.send_eof()
        await lobby.aclose("the host holds no seat")
    dial = [p for p in others if p.addr is not None and min(p.seats) < seat]
    mesh.expected_inbound = {p.seats: p for p in others if p.addr is not None and min(p.seats) > seat}
    mesh.ready.set()
    try:
        with trio.fail_after(timeout):
            for proc in dial:
                mesh.add(proc.seats, await _dial(proc, mesh, nursery))
            while len(mesh.links) < len(others):
                await mesh.changed.wait()
    except trio.TooSlowError:
        node = mesh.node
        missing = [p for p in others if p.seats not in mesh.links]
        names = "; ".join(f"seat(s) {', '.join(map(str, p.seats))} ({node.seat_name(p.seats[0])}) at "
                          f"{p.addr}:{p.port}" for p in missing)
        raise MeshError(f"could not link up within {timeout:g} s with {names}") from None
    log.info("mesh up: linked with %d process(es)", len(others))


async def _dial(proc: Process, mesh: _Mesh, nursery: trio.Nursery) -> Link:
    """Connect to a lower seat's process (retrying until the caller's deadline) and shake hands."""
    assert mesh.node is not None and proc.addr is not None and proc.port is not None
    node = mesh.node
    while True:
        try:
            stream = await trio.open_tcp_stream(proc.addr, proc.port)
        except OSError as exc:
            log.info("dialling seat(s) %s at %s:%d: %s; retrying", proc.seats, proc.addr, proc.port, exc)
            await trio.sleep(_RETRY)
            continue
        link = Link(stream, f"seat {'+'.join(map(str, proc.seats))} ({proc.addr}:{proc.port})")
        await nursery.start(link.run)
        try:
            theirs = await _greeting(link, "the peer")
            mine = os.urandom(NONCE_SIZE)
            await link.send(make_mesh_hello(DIALLER, node.table_id, mesh.identities(), theirs, mine))
            obj: dict[str, object] | None = None
            with trio.move_on_after(CONNECT_TIMEOUT):
                obj = await _receive(link, "a mesh hello")
            if obj is None:
                raise ConnectError(f"no mesh hello within {CONNECT_TIMEOUT:g} s")
            hello = parse_mesh_hello(obj, LISTENER, node.table_id, node.keys, mine, theirs)
        except (LinkClosed, LobbyProtocolError, ConnectError, MeshError) as exc:
            await link.aclose(str(exc))
            raise MeshError(f"the process of seat(s) {proc.seats} at {proc.addr}:{proc.port} "
                            f"refused the mesh link: {exc}") from None
        if hello.seats != proc.seats:
            await link.aclose("wrong seats")
            raise MeshError(f"{proc.addr}:{proc.port} answered for seat(s) {hello.seats}, not {proc.seats}")
        return link


async def _inbound(stream: trio.SocketStream, mesh: _Mesh) -> None:
    """A higher seat's process dials us: check its mesh hello, answer with ours.

    The handler lives as long as the link (trio closes a served stream when its handler
    returns), with the link's reader in its own nursery.  Until the link is accepted it
    holds a slot of the mesh's gate (none free: closed at once, not even greeted) and its
    frames are at most :data:`~p2pcards.net.link.PREAUTH_FRAME` bytes.
    """
    opened = await open_preauth(stream, mesh.gate)
    if opened is None:
        return
    link, slot, _ = opened
    peer = link.name
    link.name = f"inbound {peer}"
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(link.run)
            nonce = os.urandom(NONCE_SIZE)
            await link.send(make_greeting(nonce))
            with trio.move_on_after(CONNECT_TIMEOUT) as scope:
                payload = await link.receive()  # first: a connection that breaks is dropped at once
                await mesh.ready.wait()
            if scope.cancelled_caught:
                log.info("%s: no mesh hello in time; closed", link.name)
                await link.aclose("no mesh hello")
                return
            node = mesh.node
            assert node is not None
            obj = decode(payload)
            if obj.get("type") == "rejoin":  # a process of this table comes back after a crash
                if not await answer_rejoin(node, link, obj, nonce):
                    await link.aclose("reconnection refused")
                    return
                link.raise_limit()  # welcomed (by answer_rejoin): the link is the node's now
                slot.release()
                return  # its reader goes on in this nursery
            hello = parse_mesh_hello(obj, DIALLER, node.table_id, node.keys, nonce)
            if hello.seats not in mesh.expected_inbound or hello.seats in mesh.links:
                raise LobbyProtocolError(f"seat(s) {hello.seats} are not expected to dial this peer", "mesh")
            link.raise_limit()  # proven: before our answer, so the dialler's table messages get the full limit
            slot.release()
            await link.send(make_mesh_hello(LISTENER, node.table_id, mesh.identities(), hello.nonce, nonce))
            link.name = f"seat {'+'.join(map(str, hello.seats))} ({peer})"
            mesh.add(hello.seats, link)
    except (LobbyProtocolError, LinkClosed) as exc:
        log.warning("%s: mesh link refused: %s", link.name, exc)
        await link.aclose(str(exc))
    except Exception:  # noqa: BLE001 -- one connection never takes the peer down
        log.exception("%s: mesh connection failed", link.name)
        await link.aclose("failed")
    finally:
        slot.release()  # on every way out before it was accepted: refusal, timeout, error, cancellation
