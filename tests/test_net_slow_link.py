"""A slow link delays nobody else: each link has its own sender with a bounded queue
(p2pcards.net.sender), so a process whose peer stops reading for a while still sends to
every other peer at once -- and a peer that stops reading for good is cut off, not waited
for (the runtime issue behind a healthy seat being voted out on a busy machine)."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import trio
import trio.testing

from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.net import Link, LocalSeat, Node, log_path, make_table, single_error
from p2pcards.net.errors import PeerSilent
from p2pcards.net.sender import LinkSender
from p2pcards.net.store import FrameFile, side_path
from p2pcards.players import make_player
from p2pcards.table.transcript import SeatInfo
from p2pcards.table.wire import unpack

REGISTRY = load_games()
TIMEOUT = 5.0


class _Cable:
    """The cable of one process: once pulled, none of its links reads or sends anything."""

    def __init__(self, after: int) -> None:
        self.after = after
        self.read = 0
        self.pulled_at: float | None = None

    async def gate(self) -> None:
        if self.pulled_at is None and self.read >= self.after:
            self.pulled_at = trio.current_time()
        if self.pulled_at is not None:
            await trio.sleep_forever()


class _Plugged(trio.abc.Stream):
    """Either end of one of its links: with the cable pulled, nothing can be put on it nor
    read from it any more (as TCP once its buffers are full)."""

    def __init__(self, inner: trio.abc.Stream, cable: _Cable) -> None:
        self.inner, self.cable = inner, cable

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.cable.gate()
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        await self.cable.gate()
        data = await self.inner.receive_some(max_bytes)
        self.cable.read += len(data)
        return data

    async def send_eof(self) -> None:
        await self.cable.gate()
        await self.inner.send_eof()  # type: ignore[attr-defined]

    async def aclose(self) -> None:
        await self.inner.aclose()


async def _run_to_silence(node: Node) -> None:
    """Run the node whose cable is pulled: it gives the table up (to be resumed), as expected."""
    with contextlib.suppress(PeerSilent):
        await node.run()


async def test_a_cut_off_peer_delays_no_other_peer(autojump_clock, tmp_path):
    """Four processes of one seat each.  In the middle of the first deal node 3's cable is
    pulled: none of its links reads or sends anything more, and the others cannot put
    anything more on theirs to it.  Each healthy process goes on with the others at once:
    nobody ever votes against a healthy seat, seat 3 is voted out about one timeout after
    its cable was pulled, the deal after that takes no longer than a deal without a fault,
    and the three others end the table on one transcript."""
    spec = REGISTRY.get("copas")  # (in Sueca the seat voted out loses the match at once)
    host = Identity.generate("host")
    ids = [Identity.generate(f"p{i}") for i in range(4)]
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids]
    raw = make_table(host, spec, infos, deals=3, timeout=TIMEOUT)
    seats = [LocalSeat(ids[s], make_player("random", spec, random.Random(s))) for s in range(4)]
    events: list[tuple[float, int, dict[str, Any]]] = []
    nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"n{i}", linger=0,
                  on_event=lambda seat, ev: events.append((trio.current_time(), seat, ev.to_json())))
             for i, s in enumerate(seats)]
    cable = _Cable(after=40_000)
    for i in range(4):
        for j in range(i + 1, 4):
            if j == 3:
                left, right = trio.testing.memory_stream_pair()
                ends: tuple[trio.abc.Stream, trio.abc.Stream] = (_Plugged(left, cable), _Plugged(right, cable))
            else:
                ends = trio.testing.memory_stream_pair()
            nodes[i].attach(Link(ends[0], f"node{j}"), set(nodes[j].peers))
            nodes[j].attach(Link(ends[1], f"node{i}"), set(nodes[i].peers))
    with trio.fail_after(600):
        with single_error():
            async with trio.open_nursery() as nursery:
                for node in nodes[:3]:
                    nursery.start_soon(node.run)
                nursery.start_soon(_run_to_silence, nodes[3])
    assert cable.pulled_at is not None, "node 3's cable was never pulled"
    table_id = nodes[0].table_id
    for s in range(3):
        votes = [unpack(unpack(v)[0]) for v in FrameFile.read(side_path(log_path(tmp_path / f"n{s}", table_id, s),
                                                                        "side"))]
        against = {v["body"]["against"] for v in votes if v["kind"] == "vote"}
        assert against == {3}, f"seat {s} voted against {sorted(against)}"
    mine = [(t, ev) for t, seat, ev in events if seat == 0]
    outs = [t for t, ev in mine if ev["type"] == "vote_out"]
    assert [ev["against"] for _, ev in mine if ev["type"] == "vote_out"] == [3]
    waited = outs[0] - cable.pulled_at
    assert waited < 1.5 * TIMEOUT, f"seat 3 was voted out {waited:.1f} s after its cable was pulled"
    closed = [t for t, ev in mine if ev["type"] == "deal"]
    assert len(closed) == 3 and closed[0] >= outs[0], [(t, ev["type"], ev.get("deal")) for t, ev in mine]
    assert closed[1] - closed[0] < 1.0, f"the deal after the vote-out took {closed[1] - closed[0]:.1f} s"
    assert len({nodes[s].tables[s].transcript_hash for s in range(3)}) == 1
    assert all(nodes[s].tables[s].finished for s in range(3))


async def test_a_link_that_stops_reading_for_good_is_cut_off_not_waited_for(autojump_clock):
    """A sender whose link never reads closes the link after the timeout (one frame stuck)
    or as soon as its queue is full, and ``put`` never waits meanwhile."""
    left, _right = trio.testing.lockstep_stream_pair()
    link = Link(left, "deaf")
    sender = LinkSender(link, timeout=4.0, max_frames=8)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sender.run)
        assert sender.put(b"x" * 100)
        await trio.sleep(1.0)
        assert all(sender.put(b"y" * 10) for _ in range(7))
        assert sender.queued == 7
        started = trio.current_time()
        await sender.done.wait()
        assert trio.current_time() - started <= 4.0
    assert link.reason is not None and "more than 4 s" in link.reason
    assert not sender.put(b"z"), "a closed link takes nothing more"

    left, _right = trio.testing.lockstep_stream_pair()
    link = Link(left, "deaf")
    sender = LinkSender(link, timeout=60.0, max_frames=4)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(sender.run)
        results = [sender.put(b"f") for _ in range(6)]
        await sender.done.wait()
    assert results[:4] == [True] * 4 and results[-1] is False
    assert link.reason is not None and "stopped reading" in link.reason


class _Counting(trio.abc.Stream):
    """A stream that counts its writes and can be stopped (a peer that stops reading)."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.writes = 0
        self.stuck = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.writes += 1
        if self.stuck:
            await trio.sleep_forever()
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_frames_queued_together_leave_in_one_write_in_order():
    left, right = trio.testing.memory_stream_pair()
    counting = _Counting(left)
    sender = LinkSender(Link(counting, "out"), timeout=60.0)
    reader = Link(right, "in")
    async with trio.open_nursery() as nursery:
        nursery.start_soon(reader.run)
        for i in range(5):
            assert sender.put(b"frame %d" % i)
        nursery.start_soon(sender.run)
        got = [await reader.receive() for _ in range(5)]
        assert got == [b"frame %d" % i for i in range(5)]
        assert counting.writes == 1 and sender.sent == 5
        nursery.cancel_scope.cancel()


async def test_flush_lets_every_link_write_before_the_caller_goes_on_but_waits_for_no_stuck_link():
    """What the node does after its replica sent: the frames leave before it checks the next
    message (a long proof check), and a link that stopped reading holds up nothing."""
    from p2pcards.net.mesh import Mesh

    streams = [trio.testing.memory_stream_pair() for _ in range(2)]
    counting = [_Counting(left) for left, _ in streams]
    counting[1].stuck = True  # its peer reads nothing
    mesh = Mesh.__new__(Mesh)
    mesh.senders = {Link(c, f"l{i}"): LinkSender(Link(c, f"l{i}"), timeout=60.0) for i, c in enumerate(counting)}
    senders = list(mesh.senders.values())
    async with trio.open_nursery() as nursery:
        for sender in senders:
            nursery.start_soon(sender.run)
        await trio.testing.wait_all_tasks_blocked()
        for sender in senders:
            assert sender.put(b"entry")
        assert all(sender.waiting for sender in senders)
        await mesh.flush()  # returns although link 1 never takes its frame
        assert counting[0].writes == 1 and counting[1].writes == 1
        assert not any(sender.waiting for sender in senders) and senders[1].sent == 0
        assert (await streams[0][1].receive_some()).endswith(b"entry")
        nursery.cancel_scope.cancel()


async def test_a_process_stopped_for_twice_the_timeout_keeps_its_links(autojump_clock):
    """A peer that reads nothing for twice the table's timeout (a process stopped for a
    while) is voted out meanwhile but not cut off: its link is still there when it wakes,
    to catch up and follow the table.  A link stuck past four timeouts is closed."""
    from p2pcards.net.mesh import STUCK_TIMEOUTS, Mesh

    async def deliver(frame: object) -> None:
        return None

    timeout = 1.0
    for stopped, kept in ((2 * timeout, True), ((STUCK_TIMEOUTS + 1) * timeout, False)):
        mesh = Mesh(timeout, frozenset({0}), deliver=deliver, control=lambda *a: None, over=lambda: False)
        left, right = trio.testing.memory_stream_pair()
        counting = _Counting(left)
        counting.stuck = True
        link = Link(counting, "stopped")
        mesh.attach(link, frozenset({1}))
        far = Link(right, "far")
        async with trio.open_nursery() as nursery:
            await nursery.start(far.run)
            await mesh.start(nursery)
            mesh.send(link, b"entry")
            await trio.sleep(stopped)
            assert (link.reason is None) is kept, (stopped, link.reason)
            nursery.cancel_scope.cancel()
