"""Taking a table up again after a crash (``p2pcards resume``, or the same ``join`` again).

The process reads what it saved (:mod:`p2pcards.net.store`): its manifest, and for each of
its peers the log, its own votes and nays, the table secret and (for bots) the identity.
Each Table is rebuilt from its log (:meth:`~p2pcards.table.table.Table.restore`: every
message verified again, this peer's own messages produced again byte for byte -- a
tampered log is refused), the log files go on where they stopped, and the process listens
again where it listened (the host on its lobby port, a joiner on its mesh port if it is
free).  It then dials every other process of the directory (the host through the address
it joined) with a ``rejoin`` (:mod:`p2pcards.net.rejoin`), asks each for the messages it
missed (``sync``), and plays on -- or, when the others voted its seat out meanwhile,
follows the table to its end as an observer, and learns the outcome.

**Taking an abandoned table up again.**  A table of two that a seat abandoned is resumed
the same way (:func:`taken_up_again`): once linked to the other seat's process, this
process writes its seat's ``takeup`` (resuming is the consent) and plays on when the other
seat's comes -- that seat resumed too.  The first of the two to resume waits for the other
to dial it; if nobody comes within twice the table's timeout it gives up
(:class:`~p2pcards.net.errors.ConnectError`), and the table stays abandoned and resumable.

**Coming back late.**  When no other process can be reached (they finished, and the time
they linger to hand out the outcome has passed) and this process has been away longer
than twice the table's timeout (the others cannot have waited for it), the table went on
without it: its manifest is closed as ``unknown`` (:class:`TableGone`), so that it is
listed as ended, not as a table to resume.  Processes that cannot be reached after a short
absence are left to the table's rules: they may come back themselves, or be voted out.
"""

from __future__ import annotations

import functools
import logging
import math
import os
import random
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

import trio

from p2pcards.core import GameRegistry, GameSpec
from p2pcards.identity import Identity
from p2pcards.net.errors import ConnectError, ListenError, NetError, ResumeError, TableGone, single_error
from p2pcards.net.handshake import NONCE_SIZE, LobbyProtocolError, decode, make_greeting, make_refused
from p2pcards.net.link import LinkClosed, PreauthGate, open_preauth
from p2pcards.net.node import LINGER, EventSink, LinkSink, LocalSeat, Node, TableRecorder, describe_table
from p2pcards.net.rejoin import REJOIN_TIMEOUT, answer_rejoin, dial_rejoin
from p2pcards.net.store import (
    PERSON,
    FrameFile,
    Manifest,
    PeerEntry,
    StoreError,
    find_manifests,
    in_use,
    load_identity,
    load_manifest,
    read_log,
    read_secret,
    save_manifest,
    side_path,
)
from p2pcards.players import PLAYER_LEVELS, TABLE_CAP_MS, Player, make_player
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, TranscriptError, parse_message

__all__ = ["Unfinished", "unfinished_tables", "resume_table", "taken_up_again"]

log = logging.getLogger("p2pcards.net.resume")


@dataclass(frozen=True)
class Unfinished:
    """An unfinished table this data directory holds a process's part of."""

    path: Path
    manifest: Manifest

    @property
    def table(self) -> str:
        return self.manifest.table_hex

    @property
    def may_take_up(self) -> bool:
        """Whether this is a table of two that a seat abandoned, which ``resume`` takes up again."""
        return taken_up_again(self.manifest)

    @property
    def state(self) -> str:
        """``unfinished``, or how it ended here (:data:`~p2pcards.net.store.ENDINGS`)."""
        if not self.manifest.finished:
            return "unfinished"
        return self.manifest.ended or "finished"

    def describe(self) -> str:
        m = self.manifest
        if m.role == "local":
            where = "against the computer"
        else:
            where = f"joined at {m.dial[0]}:{m.dial[1]}" if m.dial else (
                f"hosted on port {m.listen[1]}" if m.listen else "hosted")
        return f"{m.table_hex[:16]} ({m.game}, {m.role}, seat(s) {', '.join(str(s + 1) for s in m.seats)}, {where})"


def unfinished_tables(
    data_dir: Path,
    me: Identity,
    *,
    prefix: str | None = None,
    role: str | None = None,
    dial: tuple[str, int] | None = None,
    game: str | None = None,
    ended: bool = False,
    name: str | None = None,
    abandoned: bool = False,
) -> list[Unfinished]:
    """The tables of this identity that were not played to their end here, optionally only
    those whose id starts with ``prefix``, of a ``role``, joined at ``dial``, of a ``game``,
    joined by the LAN ``name``; with ``ended``, the ended ones too (``manifest.ended`` says
    how); with ``abandoned``, the abandoned ones that can be taken up again too."""
    out = []
    for path, m in find_manifests(data_dir):
        if (m.finished and not ended and not (abandoned and taken_up_again(m))) or m.user != me.fingerprint:
            continue
        if prefix is not None and not m.table_hex.startswith(prefix.lower()):
            continue
        if (role is not None and m.role != role) or (dial is not None and m.dial != dial):
            continue
        if (game is not None and m.game != game) or (name is not None and m.name != name):
            continue
        out.append(Unfinished(path, m))
    return out


def taken_up_again(manifest: Manifest) -> bool:
    """Whether ``resume`` takes this table up again: a LAN table that ended abandoned here."""
    return manifest.finished and manifest.ended == "abandoned" and manifest.role != "local"


def joined_before(data_dir: Path, me: Identity, *, name: str | None = None,
                  address: tuple[str, int] | None = None) -> Unfinished | None:
    """This identity's unfinished table joined by the LAN ``name`` (or else at ``address``),
    if any: knocking there again means taking that seat up again."""
    found = unfinished_tables(data_dir, me, role="join", **({"name": name} if name else {"dial": address}))
    return found[0] if found else None


def load_seats(manifest: Manifest, directory: Path, me: Identity, registry: GameRegistry,
               seed: int | None, person: Player | None = None) -> tuple[bytes, Genesis, GameSpec, list[LocalSeat]]:
    """The genesis, the game and the local peers with their saved logs (StoreError if not sound).

    A person's seat (level :data:`~p2pcards.net.store.PERSON`) is played by ``person``, or,
    with no screen to play it on, by a heuristic bot (logged).
    """
    logs: list[tuple[PeerEntry, list[bytes]]] = []
    genesis_raw: bytes | None = None
    for entry in manifest.peers:
        if in_use(directory / f"{entry.stem}.log"):
            raise StoreError(f"another process is playing seat {entry.seat} of this table right now "
                             f"({entry.stem}.log is in use)")
        messages, partial = read_log(directory / f"{entry.stem}.log")
        if partial:
            log.warning("%s.log: %d bytes at its end are a write cut short (never sent); they are cut off",
                        entry.stem, partial)
        if genesis_raw is None:
            genesis_raw = messages[0]
        elif messages[0] != genesis_raw:
            raise StoreError(f"{entry.stem}.log is the transcript of another table")
        logs.append((entry, messages))
    assert genesis_raw is not None
    try:
        genesis = Genesis.from_body(parse_message(genesis_raw, None).body)
    except TranscriptError as exc:
        raise StoreError(f"the saved genesis does not verify: {exc}") from None
    if genesis.table_id != manifest.table:
        raise StoreError("the logs are not of the table the manifest names")
    spec = registry.games.get(genesis.game)
    if spec is None:
        raise StoreError(f"the table plays {genesis.game}, which is not installed here")
    if spec.rules_version != genesis.rules_version:
        raise StoreError(f"the table plays {genesis.game} rules version {genesis.rules_version}; "
                         f"this installation has version {spec.rules_version}")
    rng = random.Random(seed if seed is not None else os.urandom(16))
    seats = []
    for entry, messages in logs:
        ident = me if entry.identity == "user" else load_identity(directory / f"{entry.stem}.identity")
        level = entry.level if entry.level in PLAYER_LEVELS else "heuristic"
        player: Player = make_player(level, spec, random.Random(rng.getrandbits(64)), cap_ms=TABLE_CAP_MS)
        if entry.level == PERSON:
            if person is not None:
                player = person
            else:
                log.warning("seat %d is a person's, who is not at a screen here: a heuristic bot plays it",
                            entry.seat)
        side = FrameFile.read(side_path(directory / f"{entry.stem}.log", "side"))
        seats.append(LocalSeat(ident, player, read_secret(directory / f"{entry.stem}.secret"), log=messages,
                               side=side, stem=entry.stem))
    return genesis_raw, genesis, spec, seats


async def resume_table(
    manifest_path: Path,
    *,
    me: Identity,
    registry: GameRegistry,
    data_dir: Path,
    on_resumed: Callable[[dict[str, object]], None] | None = None,
    on_table: Callable[[dict[str, object]], None] | None = None,
    on_event: EventSink | None = None,
    seed: int | None = None,
    person: Player | None = None,
    on_link: LinkSink | None = None,
    linger: float = LINGER,
    abandon: bool = False,
    recorder: TableRecorder | None = None,
    table_class: Callable[..., Table] = Table,
    task_status: trio.TaskStatus[tuple[str, int]] = trio.TASK_STATUS_IGNORED,
) -> Node:
    """Take this process's seats of a table again and play it to the end; returns the node.

    ``person`` plays a person's seat (a screen; without it a heuristic bot does);
    ``on_link``, ``linger``, ``recorder`` and ``table_class`` (tests run dishonest replicas)
    go to the node.  With ``abandon`` the table is abandoned instead (a table of two playing
    seats, while the other seat is due: it ends with no winner, recorded in the transcript
    and sent to the other seat if it can be reached).

    A table of two that ended abandoned is taken up again (module docstring).

    ``on_resumed`` gets ``{"type": "resumed", "table", "game", "role", "seats", "seq",
    "deals_done", "finished", "taking_up"}`` once the logs are restored; ``task_status`` reports the
    listener's address (``("", 0)`` for a ``local`` table: its peers link in memory).
    Raises :class:`ResumeError` (files missing or not sound: a tampered log),
    :class:`TableGone` (nobody to learn the outcome from, long after the others went on),
    :class:`ListenError` or another NetError.
    """
    try:
        manifest = load_manifest(manifest_path)
        if manifest.finished and not (taken_up_again(manifest) and not abandon):
            raise ResumeError(f"table {manifest.table_hex[:16]} is over: there is nothing to resume")
        genesis_raw, genesis, spec, seats = load_seats(manifest, manifest_path.parent, me, registry, seed, person)
    except StoreError as exc:
        raise ResumeError(f"cannot resume from {manifest_path.parent}: {exc}") from None
    node = Node(genesis_raw, spec, seats, data_dir=data_dir, on_event=on_event, manifest=manifest, on_link=on_link,
                linger=linger, recorder=recorder, table_class=table_class)
    tables = node.tables
    lead = node.lead()
    finished = all(t.finished for t in tables.values())
    node.takeup.on = (not abandon and manifest.role != "local"
                      and any(t.abandoned is not None and not t.observer for t in tables.values()))
    if on_resumed is not None:
        on_resumed({"type": "resumed", "table": genesis.table_id.hex(), "game": genesis.game,
                    "role": manifest.role, "seats": sorted(tables), "seq": lead.seq,
                    "deals_done": lead.deals_done, "finished": finished, "taking_up": node.takeup.on})
    if on_table is not None:
        on_table(describe_table(genesis, sorted(tables)))
    if abandon and (manifest.role == "local" or not node.abandon()):
        raise ResumeError(f"table {genesis.table_id.hex()[:16]} cannot be abandoned now: only a table of two "
                          "playing seats can be, while it waits for the other seat (resume it to play on)")
    if finished and not abandon and not node.takeup.on:
        # it was killed after the end: say how it ended (history too), tidy its files
        node.tell_ended()
        node.close_files(finished=True)
        return node
    away = time.time() - max(p.stat().st_mtime for p in manifest_path.parent.glob("*.log"))
    if manifest.role == "local":  # every seat is here: the peers link up in memory again
        node.close_history()  # this node only checked the logs: the mesh's nodes record from now on
        task_status.started(("", 0))
        await _resume_local(genesis_raw, spec, seats, data_dir, on_event, manifest, recorder)
        return node
    listeners = await _listen(manifest)
    address = listeners[0].socket.getsockname()
    task_status.started((str(address[0]), int(address[1])))
    await _rejoin(node, manifest, manifest_path, listeners, away, abandon)
    return node


def _dial_targets(manifest: Manifest, mine: set[int]) -> list[tuple[str, int]]:
    """Where this process dials the other processes of the table again."""
    targets: list[tuple[str, int]] = []
    for proc in manifest.processes:
        if not proc.seats or set(proc.seats) & mine:
            continue
        if proc.addr is None or proc.port is None:  # the host's process: through the lobby address
            if manifest.dial is not None:
                targets.append(manifest.dial)
        else:
            targets.append((proc.addr, proc.port))
    return targets


async def _rejoin(node: Node, manifest: Manifest, manifest_path: Path, listeners: list[trio.SocketListener],
                  away: float, abandon: bool) -> None:
    """Listen again, dial every other process of the table, and play on; raise
    :class:`TableGone` or :class:`ConnectError` when nobody can be reached."""
    targets = _dial_targets(manifest, set(node.tables))
    failures: list[str] = []

    async def dial(addr: str, port: int, nursery: trio.Nursery) -> None:
        try:
            await dial_rejoin(node, addr, port, deadline=trio.current_time() + node.timeout, nursery=nursery)
        except NetError as exc:
            failures.append(str(exc))
            log.warning("could not reconnect to %s:%d: %s", addr, port, exc)

    async def play(nursery: trio.Nursery) -> None:
        await node.run()
        nursery.cancel_scope.cancel()

    table = node.table_id.hex()[:16]
    with single_error():
        async with trio.open_nursery() as nursery:
            await nursery.start(trio.serve_listeners, functools.partial(_serve, node=node), listeners)
            nursery.start_soon(play, nursery)
            async with trio.open_nursery() as dials:
                for addr, port in targets:
                    dials.start_soon(dial, addr, port, nursery)
            if targets and len(failures) == len(targets) and not node.linked and not abandon and not node.takeup.on:
                if away > 2 * node.timeout or any(t.voted_out for t in node.tables.values()):
                    node.set_aside_unconfirmed()
                    _close_unknown(manifest_path, manifest)
                    raise TableGone(f"the table went on without you: nobody of table {table} answers, and this "
                                    f"seat has been away for {away:.0f} s, longer than the others wait "
                                    f"({2 * node.timeout:g} s); its result is unknown here. The transcript is kept, "
                                    "closed, for `p2pcards audit`.")
                raise ConnectError(f"could not reach any other process of table {table}: " + "; ".join(failures))


async def _resume_local(genesis_raw: bytes, spec: GameSpec, seats: list[LocalSeat], data_dir: Path,
                        on_event: EventSink | None, manifest: Manifest, recorder: TableRecorder | None) -> None:
    """Play a ``local`` table on: each seat a node of its own again (the node that checked
    the logs only did that), linked in memory; each restored node asks the others for
    what it missed (its log may end before theirs)."""
    from p2pcards.net.memory import memory_mesh

    nodes = memory_mesh(genesis_raw, spec, [[s] for s in seats], data_dir=data_dir, on_event=on_event,
                        timeout=math.inf, manifest=manifest, recorder=recorder)
    with single_error():
        async with trio.open_nursery() as nursery:
            for n in nodes:
                nursery.start_soon(n.run)


def _close_unknown(manifest_path: Path, manifest: Manifest) -> None:
    """Mark a table this process cannot learn the end of as ended here, outcome unknown."""
    try:
        save_manifest(manifest_path.parent.parent.parent, replace(manifest, finished=True, ended="unknown"))
    except OSError as exc:
        log.warning("cannot write the table manifest: %s", exc)


async def _listen(manifest: Manifest) -> list[trio.SocketListener]:
    """Listen where this process listened: the host must get its port back (the joiners
    reach it there); a joiner whose port is taken listens on another and dials everyone."""
    if manifest.listen is None:
        raise ResumeError("the manifest does not say where this process listened")
    addr, port = manifest.listen
    try:
        listeners = await trio.open_tcp_listeners(port, host=addr)
    except OSError as exc:
        if manifest.role == "host":
            raise ListenError(f"cannot listen on {addr}:{port} again, where the joiners reach this table: "
                              f"{exc.strerror or exc}") from None
        log.warning("cannot listen on %s:%d again (%s); listening on another port", addr, port, exc.strerror or exc)
        try:
            listeners = await trio.open_tcp_listeners(0, host=addr)
        except OSError as exc2:
            raise ListenError(f"cannot listen on {addr}: {exc2.strerror or exc2}") from None
    for extra in listeners[1:]:
        await extra.aclose()
    return listeners[:1]


#: The gate of each resumed process's listener (:func:`_serve`), made with its first connection.
_GATES: Final[weakref.WeakKeyDictionary[Node, PreauthGate]] = weakref.WeakKeyDictionary()


async def _serve(stream: trio.SocketStream, node: Node) -> None:
    """A connection to a resumed process: only reconnections of the table's processes.

    Until its reconnection is proven it holds a slot of the listener's gate (none free:
    closed at once, not even greeted) and its frames are at most
    :data:`~p2pcards.net.link.PREAUTH_FRAME` bytes; the exchange is bounded by
    :data:`REJOIN_TIMEOUT`.
    """
    gate = _GATES.get(node)
    if gate is None:
        gate = _GATES[node] = PreauthGate("the listener of a resumed process")
    opened = await open_preauth(stream, gate)
    if opened is None:
        return
    link, slot, _ = opened
    name = link.name
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(link.run)
            nonce = os.urandom(NONCE_SIZE)
            with trio.move_on_after(REJOIN_TIMEOUT):
                try:
                    await link.send(make_greeting(nonce))
                    obj = decode(await link.receive())
                except (LinkClosed, LobbyProtocolError) as exc:
                    await link.aclose(str(exc))
                    return
                if obj.get("type") == "rejoin":
                    if not await answer_rejoin(node, link, obj, nonce):
                        await link.aclose("reconnection refused")
                        return
                    link.raise_limit()  # welcomed: the node reads the link; this nursery keeps its reader
                    slot.release()
                    return
                try:
                    await link.send(make_refused("full", "this table is in play: every seat is taken"))
                    await link.send_eof()
                except LinkClosed:
                    pass
            await link.aclose("closed")
    except Exception:  # noqa: BLE001 -- one connection never takes the process down
        log.exception("connection %s failed", name)
        await link.aclose("failed")
    finally:
        slot.release()  # on every way out before it was proven: refusal, timeout, error, cancellation
