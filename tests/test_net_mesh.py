"""Whole tables over the mesh runtime on in-memory streams: same transcripts everywhere,
messages that overtake each other, forged and garbage input, silent seats."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from p2pcards.core import GameSpec, load_games
from p2pcards.identity import Identity
from p2pcards.net import (
    Link,
    LocalSeat,
    Node,
    PeerSilent,
    log_path,
    make_table,
    memory_mesh,
    play_in_memory,
    single_error,
)
from p2pcards.net.mesh import Mesh
from p2pcards.players import make_player
from p2pcards.table.transcript import SeatInfo, message_hash, sign_message
from p2pcards.table.wire import frame, pack

REGISTRY = load_games()


def _table(game: str, deals: int, seed: int = 0, timeout: float = 60.0,
           options: dict[str, str] | None = None) -> tuple[GameSpec, bytes, list[LocalSeat]]:
    spec = REGISTRY.get(game)
    host = Identity.generate("host")
    ids = [Identity.generate(f"p{i}") for i in range(spec.seats)]
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids]
    raw = make_table(host, spec, infos, deals=deals, timeout=timeout, options=options)
    seats = [LocalSeat(ids[s], make_player("random", spec, random.Random(seed * 10 + s))) for s in range(spec.seats)]
    return spec, raw, seats


def _check_same_everywhere(nodes: Sequence[Node], data_dir: Path | None, deals: int) -> None:
    tables = [t for n in nodes for t in n.tables.values()]
    assert all(t.finished for t in tables)
    logs = {b"".join(t.log) for t in tables}
    assert len(logs) == 1, "the replicas disagree"
    assert len({t.transcript_hash for t in tables}) == 1
    # ``deals`` deals, or fewer when the match was won sooner (a capote ends a Sueca match at once)
    assert all(t.deals_done == deals or t.deals_done < deals and t.match.finished for t in tables)
    if data_dir is not None:
        expected = b"".join(frame(m) for m in tables[0].log)
        for n in nodes:
            for seat in n.tables:
                assert log_path(data_dir, n.table_id, seat).read_bytes() == expected


@pytest.mark.parametrize(("game", "groups"), [("sueca", [[0], [1], [2], [3]]), ("bisca", [[0], [1]])])
async def test_whole_table_in_memory_identical_transcripts(game, groups, tmp_path):
    spec, raw, seats = _table(game, deals=2)
    events: dict[int, list[dict[str, Any]]] = {s: [] for s in range(spec.seats)}
    with trio.fail_after(60):
        nodes = await play_in_memory(raw, spec, [[seats[s] for s in g] for g in groups], data_dir=tmp_path,
                                     on_event=lambda seat, ev: events[seat].append(ev.to_json()))
    _check_same_everywhere(nodes, tmp_path, 2)
    played = nodes[0].tables[0].deals_done
    for evs in events.values():
        assert [e["type"] for e in evs] == ["deal"] * played + ["final"]
        assert evs == events[0]  # every replica saw the same deals, verdicts and score
        assert all(e["audit"]["verdict"] == "clean" for e in evs[:-1])
    assert events[0][-1]["transcript_hash"] == nodes[0].tables[0].transcript_hash
    # the private table secret is kept next to the log, readable by the owner only
    secret = log_path(tmp_path, nodes[0].table_id, 0).with_suffix(".secret")
    assert secret.stat().st_mode & 0o777 == 0o600 and len(secret.read_bytes()) == 32
    assert all(not r for n in nodes for r in n.rejections.values())


async def test_several_local_peers_per_process(tmp_path):
    spec, raw, seats = _table("sobe-e-desce", deals=1, seed=3)
    with trio.fail_after(60):
        nodes = await play_in_memory(raw, spec, [[seats[0], seats[1], seats[2]], [seats[3]]], data_dir=tmp_path)
    _check_same_everywhere(nodes, tmp_path, 1)


class _Laggy(trio.abc.Stream):
    """A stream whose incoming bytes arrive late: later messages from others overtake them."""

    def __init__(self, inner: trio.abc.Stream, delay: float) -> None:
        self.inner = inner
        self.delay = delay

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        await trio.sleep(self.delay)
        return data

    async def send_eof(self) -> None:
        await self.inner.send_eof()  # type: ignore[attr-defined]

    async def aclose(self) -> None:
        await self.inner.aclose()


def _wire(nodes: Sequence[Node], wrap: Callable[[int, int, trio.abc.Stream], trio.abc.Stream]) -> None:
    """Join every pair of nodes; ``wrap(i, j, stream)`` may replace node i's end of its link to j."""
    for i, a in enumerate(nodes):
        for j in range(i + 1, len(nodes)):
            left, right = trio.testing.memory_stream_pair()
            a.attach(Link(wrap(i, j, left), f"node{j}"), set(nodes[j].peers))
            nodes[j].attach(Link(wrap(j, i, right), f"node{i}"), set(a.peers))


async def _run_all(nodes: Sequence[Node]) -> None:
    with single_error():
        async with trio.open_nursery() as nursery:
            for node in nodes:
                nursery.start_soon(node.run)


async def test_messages_that_overtake_others_wait_for_their_turn(tmp_path):
    spec, raw, seats = _table("sueca", deals=1, seed=5)
    nodes = [Node(raw, spec, [s], data_dir=tmp_path) for s in seats]
    # seat 3 hears seat 0 late, so seats 1 and 2 answer seat 0 before seat 3 has its message
    _wire(nodes, lambda i, j, s: _Laggy(s, 0.02) if (i, j) == (3, 0) else s)
    with trio.fail_after(60):
        await _run_all(nodes)
    _check_same_everywhere(nodes, tmp_path, 1)
    assert nodes[3].peers[3].reorder.overtaken > 0
    assert not nodes[3].rejections[3]


def _forged(table_id: bytes, seq: int, prev: bytes, author: int) -> bytes:
    mallory = Identity.generate("mallory")
    return sign_message(mallory, table=table_id, deal=0, seq=seq, prev=prev, author=author, kind="deck",
                        body={"msgs": []})


async def test_forged_and_garbage_messages_are_rejected_and_the_table_finishes(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    spec, raw, seats = _table("bisca", deals=1, seed=7)
    nodes = memory_mesh(raw, spec, [[seats[0]], [seats[1]]], data_dir=tmp_path)
    table_id = nodes[0].table_id
    # an intruder with a link to seat 1's process (it holds no seat: nothing is sent to it)
    intruder, inside = trio.testing.memory_stream_pair()
    nodes[1].attach(Link(inside, "intruder"), set())
    forged_now = _forged(table_id, 1, message_hash(raw), author=0)   # the very next message
    forged_later = _forged(table_id, 9, bytes(32), author=0)         # one that must wait its turn
    not_a_message = pack({"hello": "world"})
    await intruder.send_all(b"".join(frame(m) for m in (forged_now, forged_later, not_a_message, forged_now)))
    # a second intruder sends garbage: its link is closed, nothing else happens
    garbage, inside2 = trio.testing.memory_stream_pair()
    nodes[0].attach(Link(inside2, "garbage"), set())
    await garbage.send_all(frame(b"\xc1\xc1\xc1 not msgpack"))
    with trio.fail_after(60):
        await _run_all(nodes)
    _check_same_everywhere(nodes, tmp_path, 1)
    reasons = [str(r) for _, r in nodes[1].rejections[1]]
    assert sum("bad signature" in r for r in reasons) >= 2, reasons
    assert any("not a table message" in r for r in reasons), reasons
    assert all("unattributed" in r for r in reasons)
    logged = [r.getMessage() for r in caplog.records]
    assert any("seat 1 rejected a message" in m and "bad signature" in m for m in logged), logged
    assert any("garbage frame" in m for m in logged), logged
    from p2pcards.net.node import REFUSED_RECORD

    tagged = {getattr(r, REFUSED_RECORD) for r in caplog.records if hasattr(r, REFUSED_RECORD)}
    assert tagged == {(1, None)}, tagged  # for a screen: seat 1's replica refused, nobody to blame
    assert not nodes[0].rejections[0]


async def test_a_silent_seat_is_voted_out_and_played_as_a_dummy(autojump_clock):
    """Copas: seat 1's process never says a word.  Each of the other seats (three peers of
    this process, each with its own clock) votes it out at the timeout; seat 1 loses the
    deal and is a dummy from then on, played alike by every replica."""
    spec, raw, seats = _table("copas", deals=2, timeout=30.0)
    events: list[tuple[int, dict[str, Any]]] = []
    node = Node(raw, spec, [seats[0], seats[2], seats[3]], data_dir=None,
                on_event=lambda s, e: events.append((s, e.to_json())), linger=0)
    mine, theirs = trio.testing.memory_stream_pair()  # seat 1's process never reads nor writes
    node.attach(Link(mine, "seat 1"), {1})
    start = trio.current_time()
    with trio.fail_after(200):
        await node.run()
    assert 30 <= trio.current_time() - start < 40
    assert set(node.tables) == {0, 2, 3} and all(t.finished for t in node.tables.values())
    assert len({tuple(t.log) for t in node.tables.values()}) == 1
    assert all(t.dummies == [1] for t in node.tables.values())
    mine_events = [e for s, e in events if s == 0]
    assert [e["type"] for e in mine_events] == ["vote_out", "deal", "deal", "final"]
    assert mine_events[1]["audit"]["verdict"] == "vote-out" and mine_events[1]["result"]["renuncia"] == 1
    assert mine_events[2]["audit"]["verdict"] == "clean"
    del theirs


async def test_a_two_seat_table_is_never_voted_out_and_stops_at_twice_the_timeout(autojump_clock):
    """Bisca: seat 1's process never says a word.  Nobody can be voted out of a table of
    two: at twice the timeout the node stops, naming seat 1, and the table can be resumed."""
    spec, raw, seats = _table("bisca", deals=1, timeout=30.0)
    node = Node(raw, spec, [seats[0]], data_dir=None)
    mine, theirs = trio.testing.memory_stream_pair()
    node.attach(Link(mine, "seat 1"), {1})
    start = trio.current_time()
    with trio.fail_after(300), pytest.raises(PeerSilent) as info:
        await node.run()
    assert info.value.seat == 1 and "silent for 60 s" in str(info.value)
    assert 60 <= trio.current_time() - start < 70
    assert node.tables[0].outvotes == [] and node.tables[0].may_abandon()
    del theirs


async def test_a_table_that_cannot_vote_stops_with_the_silent_seat_named(autojump_clock):
    """Sueca with three silent processes: seat 0 votes against seat 1, but the others never
    do (a vote needs every other playing seat); at twice the timeout the node stops."""
    spec, raw, seats = _table("sueca", deals=1, timeout=30.0)
    node = Node(raw, spec, [seats[0]], data_dir=None)
    keep = []
    for s in (1, 2, 3):
        mine, theirs = trio.testing.memory_stream_pair()
        node.attach(Link(mine, f"seat {s}"), {s})
        keep.append(theirs)
    start = trio.current_time()
    with trio.fail_after(300), pytest.raises(PeerSilent) as info:
        await node.run()
    assert info.value.seat == 1
    assert "seat 1 (p1" in str(info.value) and "silent for 60 s" in str(info.value)
    assert "no vote replaced it" in str(info.value)
    assert 60 <= trio.current_time() - start < 70
    assert node.tables[0].outvotes == [] and node.tables[0].silence.voted_against == {1}


async def test_a_wrong_sealed_key_is_disputed_over_the_mesh(tmp_path):
    """A peer seals a wrong key to another: the victim disputes the deal in its turn, with
    the signed plaintext as evidence; every replica blames the cheat, which loses the deal;
    logs on disk stay identical."""
    from p2pcards.table.table import Table
    from tests.test_table import WrongKeySender

    spec, raw, seats = _table("sueca", deals=2, seed=5, options={"target": "8"})
    cheater = seats[2].identity.signing_public

    def table_class(genesis, spec_, me, secret, **kwargs):
        cls = WrongKeySender if me.signing_public == cheater else Table
        return cls(genesis, spec_, me, secret, **kwargs)

    events: dict[int, list[dict[str, Any]]] = {s: [] for s in range(4)}
    with trio.fail_after(60):
        nodes = await play_in_memory(raw, spec, [[s] for s in seats], data_dir=tmp_path,
                                     on_event=lambda seat, ev: events[seat].append(ev.to_json()),
                                     table_class=table_class)
    _check_same_everywhere(nodes, tmp_path, 2)
    for evs in events.values():
        deals = [e for e in evs if e["type"] == "deal"]
        assert deals == [e for e in events[0] if e["type"] == "deal"]
        assert deals[0]["audit"]["verdict"] == "fault" and deals[0]["audit"]["seat"] == 2
        assert deals[0]["audit"]["kind"] == "bad-key" and deals[1]["audit"]["verdict"] == "clean"
    assert any(e["type"] == "dispute" for e in events[0])


class _SlowThinker:
    """A computer player that says it ``thinks``: the node must run it off the trio thread."""

    thinks = True

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.threads: set[str] = set()

    def choose(self, view: Any, decision: Any) -> Any:
        import threading

        self.threads.add(threading.current_thread().name)
        return self.inner.choose(view, decision)


async def test_a_thinking_bot_decides_in_a_worker_thread(tmp_path):
    import threading

    spec, raw, seats = _table("sueca", deals=1, seed=3)
    thinker = _SlowThinker(seats[1].player)
    seats[1].player = thinker
    with trio.fail_after(60):
        nodes = await play_in_memory(raw, spec, [[s] for s in seats], data_dir=tmp_path)
    _check_same_everywhere(nodes, tmp_path, 1)
    assert thinker.threads, "the thinking bot was never asked"
    assert threading.current_thread().name not in thinker.threads


def _over_here() -> Mesh:
    """The mesh of seat 0's process, whose tables are over (nothing to deliver)."""

    async def deliver(frame: object) -> None:
        return None

    return Mesh(5.0, frozenset({0}), deliver=deliver, control=lambda *a: None, over=lambda: True)


def _hang_up_in(nursery: trio.Nursery, mesh: Mesh, missing: set[int]) -> trio.Event:
    """Start ``mesh.hang_up`` (lingering 60 s for ``missing``); the event is set when it returns."""
    hung_up = trio.Event()

    async def end_here() -> None:
        await mesh.hang_up(missing, set(), linger=60.0)
        hung_up.set()

    nursery.start_soon(end_here)
    return hung_up


async def test_at_the_end_a_voted_out_seat_still_linked_keeps_its_link_until_it_hangs_up(autojump_clock):
    """The table is over here while the process of a voted-out seat -- never disconnected,
    perhaps stopped for a while and catching up -- may still ask for what it missed: its
    link stays open (its sync answers can still reach it) until it hangs up itself.  A
    healthy process's link is ended at once."""
    from p2pcards.net.link import LinkClosed
    mesh = _over_here()
    pairs = {seat: trio.testing.memory_stream_pair() for seat in (1, 2)}
    far = {seat: Link(pair[1], f"far{seat}") for seat, pair in pairs.items()}
    for seat, pair in pairs.items():
        mesh.attach(Link(pair[0], f"seat{seat}"), frozenset({seat}))
    ended: dict[int, float] = {}

    async def watch(seat: int) -> None:
        try:
            while True:
                await far[seat].receive()
        except LinkClosed:
            ended[seat] = trio.current_time()
            if seat == 1:
                await far[1].send_eof()  # a healthy process hangs up too

    async with trio.open_nursery() as nursery:
        for link in far.values():
            await nursery.start(link.run)
        for seat in far:
            nursery.start_soon(watch, seat)
        await mesh.start(nursery)
        hung_up = _hang_up_in(nursery, mesh, {2})
        await trio.sleep(10.0)
        assert 1 in ended and 2 not in ended, "the voted-out seat's process still gets what it asks for"
        await far[2].send_eof()  # it has caught up and hangs up: its link is ended then
        await trio.testing.wait_all_tasks_blocked()
        await hung_up.wait()  # (after the linger: a killed process closes its end cleanly too)
        await mesh.close()  # as the node does next
        await trio.testing.wait_all_tasks_blocked()
        assert 2 in ended
        nursery.cancel_scope.cancel()


async def test_at_the_end_a_voted_out_seat_that_caught_up_is_not_waited_for_once_it_hangs_up(
        autojump_clock):
    """A voted-out seat's process that said it holds all this process has (it asks so at its
    own end: :meth:`Mesh.caught_up`) has learned the outcome: its hanging up ends the linger
    at once.  Its hanging up without that does not (the test above: a process killed closes
    cleanly too)."""
    from p2pcards.net.link import LinkClosed
    mesh = _over_here()
    near, far_stream = trio.testing.memory_stream_pair()
    link = Link(near, "seat1")
    far = Link(far_stream, "far1")
    mesh.attach(link, frozenset({1}))
    got: list[bytes] = []

    async def follower() -> None:
        try:
            while True:
                got.append(await far.receive())
        except LinkClosed:
            await far.send_eof()  # it has it all and hangs up

    async with trio.open_nursery() as nursery:
        await nursery.start(far.run)
        nursery.start_soon(follower)
        await mesh.start(nursery)
        hung_up = _hang_up_in(nursery, mesh, {1})
        await trio.sleep(5.0)
        assert not hung_up.is_set(), "it lingers for the voted-out seat's process"
        mesh.send(link, b"\x91\x01")  # (what a sync answer would hold)
        mesh.caught_up(link)
        mesh.end(link)
        started = trio.current_time()
        await hung_up.wait()
        assert trio.current_time() - started < 2.0, "its hanging up, once told everything, ends the linger"
        assert got == [b"\x91\x01"]
        await mesh.close()
        nursery.cancel_scope.cancel()


async def test_a_table_whose_other_processes_all_hung_up_stops_saying_nobody_is_linked(autojump_clock):
    """Every other process hangs up (as processes that finished while this one was away
    do): at twice the timeout the node stops, and says that nobody is linked any more, not
    that a vote failed."""
    spec, raw, seats = _table("sueca", deals=1, timeout=30.0)
    node = Node(raw, spec, [seats[0]], data_dir=None)
    far = []
    for s in (1, 2, 3):
        mine, theirs = trio.testing.memory_stream_pair()
        node.attach(Link(mine, f"seat {s}"), {s})
        far.append(theirs)
    for stream in far:
        await stream.send_eof()
    with trio.fail_after(300), pytest.raises(PeerSilent) as info:
        await node.run()
    assert info.value.alone and "no other process of this table is linked" in str(info.value)
    assert "no vote replaced it" not in str(info.value)
