"""A table over links with delay, jitter and loss (in memory, on trio's mock clock): every
chunk a process sends arrives 50 +- 20 ms later, in order, and one chunk in twenty is
"lost" and comes 300 ms later still, as TCP's retransmission would bring it.  Nothing of
that is a silence: the table plays to its end, nobody is voted out, every log is the same
transcript and every deal is clean.  (The namespace LAN test does the same with the
kernel's netem where the kernel has it.)"""

from __future__ import annotations

import random
from collections import deque

import trio
import trio.testing

from p2pcards.net import Link, Node, log_path
from p2pcards.table.audit import audit_transcript
from tests.test_voteout_net import REGISTRY, _frames, _run, _table

DELAY, JITTER, LOSS, RESEND = 0.05, 0.02, 0.05, 0.3


class _DelayLine:
    """One direction of a link: chunks queued with the time they may be read."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.queue: deque[tuple[float, bytes]] = deque()
        self.ready = trio.Event()
        self.closed = False
        self.last = 0.0
        self.delayed = 0

    def push(self, data: bytes) -> None:
        delay = DELAY + self.rng.uniform(-JITTER, JITTER)
        if self.rng.random() < LOSS:
            delay += RESEND
            self.delayed += 1
        self.last = max(trio.current_time() + delay, self.last)  # in order, as TCP delivers
        self.queue.append((self.last, data))
        self.ready.set()

    def close(self) -> None:
        self.closed = True
        self.ready.set()

    async def pop(self, max_bytes: int | None) -> bytes:
        while not self.queue:
            if self.closed:
                await trio.lowlevel.checkpoint()
                return b""
            await self.ready.wait()
            self.ready = trio.Event()
        due, data = self.queue[0]
        await trio.sleep_until(due)
        if max_bytes is not None and len(data) > max_bytes:
            self.queue[0] = (due, data[max_bytes:])
            return data[:max_bytes]
        self.queue.popleft()
        return data


class _LaggyEnd(trio.abc.HalfCloseableStream):
    def __init__(self, inbox: _DelayLine, outbox: _DelayLine) -> None:
        self.inbox, self.outbox = inbox, outbox

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.outbox.closed:
            raise trio.ClosedResourceError("closed")
        self.outbox.push(bytes(data))
        await trio.lowlevel.checkpoint()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def send_eof(self) -> None:
        self.outbox.close()
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        return await self.inbox.pop(max_bytes)

    async def aclose(self) -> None:
        self.outbox.close()
        self.inbox.close()
        await trio.lowlevel.checkpoint()


async def test_a_table_over_links_with_delay_jitter_and_loss_plays_to_its_end(tmp_path, autojump_clock):
    spec, raw, seats = _table("copas", deals=2, timeout=3.0)
    nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"n{i}", linger=0) for i, s in enumerate(seats)]
    rng = random.Random(7)
    lines: list[_DelayLine] = []
    for i, a in enumerate(nodes):
        for j in range(i + 1, len(nodes)):
            to_a, to_b = _DelayLine(rng), _DelayLine(rng)
            lines += [to_a, to_b]
            a.attach(Link(_LaggyEnd(to_a, to_b), f"node{j}"), set(nodes[j].peers))
            nodes[j].attach(Link(_LaggyEnd(to_b, to_a), f"node{i}"), set(a.peers))
    start = trio.current_time()
    await _run(nodes)
    table_id = nodes[0].table_id
    logs = [_frames(log_path(tmp_path / f"n{s}", table_id, s)) for s in range(4)]
    assert all(x == logs[0] for x in logs), "one transcript"
    report = audit_transcript(logs[0], REGISTRY)
    assert report["ok"] and report["votes"] == [] and [d["verdict"] for d in report["deals"]] == ["clean", "clean"]
    assert sum(line.delayed for line in lines) > 10, "some chunks were 'lost' and came late"
    elapsed = trio.current_time() - start
    assert elapsed > len(logs[0]) * (DELAY - JITTER) / 2, ("the delays were real (on the mock clock)", elapsed)
