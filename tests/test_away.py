"""Away and back, in process (trio's mock clock): a process's clocks measure the other
seats' silence, not its own sleep -- after a gap in its own progress it catches up first
and votes only after a full timeout of real silence."""

from __future__ import annotations

import random

import trio
import trio.testing

from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.net import Link, LocalSeat, Node, make_table
from p2pcards.players import make_player
from p2pcards.table.events import TableEvent
from p2pcards.table.transcript import SeatInfo

REGISTRY = load_games()


def _copas(timeout: float) -> tuple[object, bytes, list[LocalSeat]]:
    spec = REGISTRY.get("copas")
    host = Identity.generate("host")
    ids = [Identity.generate(f"p{i}") for i in range(4)]
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids]
    raw = make_table(host, spec, infos, deals=1, timeout=timeout)
    return spec, raw, [LocalSeat(ids[s], make_player("random", spec, random.Random(s))) for s in range(4)]


async def test_a_process_that_was_away_does_not_vote_at_once_when_it_wakes(autojump_clock):
    """Seat 1's process is silent.  Before the timeout, this process is frozen for longer
    than the timeout (the clock jumps); when it wakes its clocks restart: it votes only a
    full timeout later, never at once."""
    clock = autojump_clock
    spec, raw, seats = _copas(timeout=10.0)
    votes: list[float] = []
    node = Node(raw, spec, [seats[0], seats[2], seats[3]], data_dir=None, linger=0)
    mine, theirs = trio.testing.memory_stream_pair()
    node.attach(Link(mine, "seat 1"), {1})

    async def watch() -> None:
        while not votes:
            if any(t.silence.voted(1) or t.outvotes for t in node.tables.values()):
                votes.append(trio.current_time())
            await trio.sleep(0.05)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(node.run)
        nursery.start_soon(watch)
        await trio.sleep(5)  # seat 1 is due (its commitment) and silent for 5 s
        assert not votes
        clock.jump(30)  # frozen for 30 s: past the timeout
        woke = trio.current_time()
        await trio.sleep(9)
        assert not votes, "nobody votes in the first timeout after waking"
        await trio.sleep(3)
        assert votes and woke + 10 - 0.5 <= votes[0] <= woke + 10 + 1.5
        nursery.cancel_scope.cancel()
    del theirs


async def test_a_process_that_was_away_asks_for_what_it_missed_first(autojump_clock):
    """A process that wakes from a gap asks every other process for the transcript from
    where it is, before any clock of its own may act."""
    spec, raw, seats = _copas(timeout=10.0)
    node = Node(raw, spec, [seats[0]], data_dir=None, linger=0)
    asked: list[float] = []
    ends = []
    for s in (1, 2, 3):
        mine, theirs = trio.testing.memory_stream_pair()
        node.attach(Link(mine, f"seat {s}"), {s})
        ends.append(theirs)
    sync = node.request_sync
    node.request_sync = lambda start, links=None: (asked.append(trio.current_time()), sync(start, links))[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(node.run)
        await trio.sleep(1)
        asked.clear()
        autojump_clock.jump(25)
        await trio.sleep(0.5)
        assert asked, "the first heartbeat after the gap asked for a sync"
        nursery.cancel_scope.cancel()


async def test_a_vote_comes_one_timeout_after_the_silence_began(tmp_path, autojump_clock):
    """Nobody hears seat 2 from seq 20 on: each other process votes one timeout after the
    seat's message would have come (within a heartbeat or two), not seconds late."""
    from p2pcards.net.clocks import HEARTBEAT
    from tests.test_voteout_net import _Deaf, _run, _wire

    timeout = 4.0
    spec, raw, seats = _copas(timeout=timeout)
    voted: dict[int, float] = {}
    nodes = []
    for i, s in enumerate(seats):
        def on_event(seat: int, event: TableEvent, i: int = i) -> None:
            if event.type == "vote_out":
                voted.setdefault(i, trio.current_time())

        nodes.append(Node(raw, spec, [s], data_dir=tmp_path / f"n{i}", linger=0, on_event=on_event))
    deaf = {(j, 2): _Deaf(trio.testing.memory_stream_pair()[0], author=2, from_seq=20) for j in (0, 1, 3)}
    _wire(nodes, deaf)
    await _run(nodes)
    silent_since = min(d.first_drop for d in deaf.values() if d.first_drop is not None)
    assert set(voted) >= {0, 1, 3}
    for i in (0, 1, 3):
        assert silent_since + timeout <= voted[i] + HEARTBEAT, (i, voted[i] - silent_since)
        assert voted[i] <= silent_since + timeout + 3 * HEARTBEAT, (i, voted[i] - silent_since)


async def test_a_peer_woken_after_a_gap_before_the_heartbeat_does_not_vote(autojump_clock, monkeypatch):
    """After a gap, whichever task looks at the time first must see it: here a peer's task,
    woken by what arrived while the process was frozen, runs before any heartbeat (the
    heartbeat is kept from looking), and still votes against nobody."""
    from p2pcards.net.inbox import POKE

    async def quiet_heartbeat(self: Node) -> None:
        self.away.start(trio.current_time())
        await trio.sleep_forever()

    monkeypatch.setattr(Node, "_heartbeat", quiet_heartbeat)
    spec, raw, seats = _copas(timeout=10.0)
    node = Node(raw, spec, [seats[0], seats[2], seats[3]], data_dir=None, linger=0)
    mine, theirs = trio.testing.memory_stream_pair()
    node.attach(Link(mine, "seat 1"), {1})
    async with trio.open_nursery() as nursery:
        nursery.start_soon(node.run)
        await trio.sleep(5)  # seat 1 is due and silent
        autojump_clock.jump(30)  # frozen past the timeout; then something wakes every peer
        for peer in node.peers.values():
            peer.inbox.put_local(POKE)
        await trio.sleep(1)
        assert not any(t.silence.voted(1) or t.outvotes for t in node.tables.values()), "a peer voted on waking"
        nursery.cancel_scope.cancel()
    del theirs


async def test_a_peer_stopped_while_its_messages_leave_neither_votes_nor_gives_up_on_waking(
        autojump_clock, monkeypatch):
    """The process is stopped just as a peer's messages begin to leave (the flush after a
    commit): on waking, that peer dates its progress from after the gap, not before -- it
    neither votes against the silent seat at once nor gives the table up as stalled."""
    from p2pcards.net.mesh import Mesh

    spec, raw, seats = _copas(timeout=10.0)
    node = Node(raw, spec, [seats[0], seats[2], seats[3]], data_dir=None, linger=0)
    mine, theirs = trio.testing.memory_stream_pair()
    node.attach(Link(mine, "seat 1"), {1})
    real_flush = Mesh.flush
    stopped: list[float] = []

    async def flush(self: Mesh) -> None:
        if not stopped:
            stopped.append(trio.current_time())
            autojump_clock.jump(30)  # stopped here, past the timeout and twice it
        await real_flush(self)

    monkeypatch.setattr(Mesh, "flush", flush)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(node.run)  # (a PeerSilent out of it fails the test)
        while not stopped:
            await trio.sleep(0.1)
        await trio.sleep(8)  # (from the wake: less than the timeout)
        assert not any(t.silence.voted(1) or t.outvotes for t in node.tables.values()), "a peer voted on waking"
        nursery.cancel_scope.cancel()
    del theirs
