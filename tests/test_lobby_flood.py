"""Work is bounded before it is done: listeners cap their unauthenticated connections and
what they buffer before a hello (``protocol/TRANSPORT.md``, "Framing" and "Greeting")."""

from __future__ import annotations

import functools
import logging
import struct
import tracemalloc
from pathlib import Path
from typing import Any, cast

import pytest
import trio
import trio.testing

import p2pcards.net.host as host_module
import p2pcards.net.resume as resume_module
from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.net import host_table, join_table, parse_seat_spec
from p2pcards.net.handshake import decode, make_hello, parse_greeting
from p2pcards.net.link import PREAUTH_CONNECTIONS, PREAUTH_FRAME, Link, LinkClosed, PreauthGate
from p2pcards.net.node import Node
from p2pcards.table.wire import MAX_FRAME, FrameDecoder, frame

REGISTRY = load_games()
LOOPBACK = "127.0.0.1"
FLOOD = 40
BODY = bytes(512 * 1024)  # made once: the clients share it, so the test process's own sends allocate nothing
HUGE = struct.pack(">I", MAX_FRAME)  # a header announcing a 1 MiB frame


# ---------------------------------------------------------------------- helpers
async def _read_frame(stream: trio.SocketStream) -> bytes | None:
    """The next frame from a raw connection, or None when it is closed (EOF or reset)."""
    decoder = FrameDecoder()
    while True:
        try:
            data = await stream.receive_some(4096)
        except trio.BrokenResourceError:
            return None
        if not data:
            return None
        frames = decoder.feed(data)
        if frames:
            return frames[0]


async def _closed_by_peer(stream: trio.SocketStream) -> int:
    """Wait until the other side hangs up (EOF or reset); the bytes it sent before."""
    got = 0
    while True:
        try:
            data = await stream.receive_some(4096)
        except trio.BrokenResourceError:
            return got
        if not data:
            return got
        got += len(data)


async def _send_quietly(stream: trio.SocketStream, *chunks: bytes) -> None:
    """Send, ignoring that the other side closed the connection under us."""
    try:
        for chunk in chunks:
            await stream.send_all(chunk)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def _idle(port: int) -> trio.SocketStream:
    """A connection that reads its greeting and then says nothing."""
    stream = await trio.open_tcp_stream(LOOPBACK, port)
    greeting = await _read_frame(stream)
    assert greeting is not None, "a connection within the cap is greeted"
    parse_greeting(decode(greeting))
    return stream


async def _turned_away(port: int) -> None:
    """A connection beyond the cap: closed at once, not even greeted."""
    stream = await trio.open_tcp_stream(LOOPBACK, port)
    with trio.fail_after(2):
        assert await _closed_by_peer(stream) == 0, "a connection beyond the cap gets no greeting"
    await stream.aclose()


async def _oversized(port: int, body: bytes = BODY) -> int:
    """Greeted, announce a 1 MiB frame and send ``body`` of it; what arrived before the hang-up."""
    stream = await trio.open_tcp_stream(LOOPBACK, port)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_send_quietly, stream, HUGE, body)
        got = await _closed_by_peer(stream)
        nursery.cancel_scope.cancel()  # a send still blocked on a full buffer
    await stream.aclose()
    return got


def _host(tmp_path: Path, seats: str, **kwargs: Any) -> Any:
    spec = REGISTRY.get("bisca")
    return lambda task_status: host_table(spec, seats=parse_seat_spec(seats, spec.seats),
                                          host=Identity.generate("host"), data_dir=tmp_path / "host", deals=1,
                                          timeout=20, bind=LOOPBACK, task_status=task_status, **kwargs)


async def _join(port: int, data_dir: Path, name: str, **kwargs: Any) -> Node:
    return await join_table(LOOPBACK, port, me=Identity.generate(name), registry=REGISTRY, data_dir=data_dir,
                            level="random", lobby_timeout=20, **kwargs)


def _finished(node: Node | None) -> bool:
    return node is not None and all(t.finished for t in node.tables.values())


# ---------------------------------------------------------------------- the host's lobby
async def test_a_flood_of_announced_megabytes_is_cut_on_the_length_and_the_table_still_plays(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    nodes: dict[str, Node | None] = {}
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            _, port = await nursery.start(_host(tmp_path, "bot,remote"))

            received: list[int] = []

            async def flooder() -> None:
                received.append(await _oversized(port))

            tracemalloc.start()
            try:
                with trio.fail_after(10):  # today's host keeps them open, reading the megabyte
                    async with trio.open_nursery() as flood:
                        for _ in range(FLOOD):
                            flood.start_soon(flooder)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            # every one was cut: nobody's half megabyte was kept (40 x 512 KiB = 20 MiB)
            assert len(received) == FLOOD
            assert peak < 4 * 1024 * 1024, f"{peak} bytes allocated while {FLOOD} connections sent 512 KiB each"
            # each got its greeting at most (those beyond the cap not even that)
            assert all(n < 200 for n in received), received
            logged = [r.getMessage() for r in caplog.records]
            assert any(f"outside 1..{PREAUTH_FRAME}" in m for m in logged), logged

            # a legitimate joiner still takes its seat, and the table plays to its end
            nodes["joiner"] = await _join(port, tmp_path / "joiner", "joiner")
    assert _finished(nodes["joiner"])


async def test_idle_connections_beyond_the_cap_are_closed_at_once_and_timed_out_ones_free_their_place(
        tmp_path, monkeypatch):
    monkeypatch.setattr(host_module, "HELLO_TIMEOUT", 1.5)
    nodes: dict[str, Node | None] = {}

    async def host(task_status: trio.TaskStatus[tuple[str, int]]) -> None:
        nodes["host"] = await _host(tmp_path, "bot,remote")(task_status)

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            _, port = await nursery.start(host)
            idle = [await _idle(port) for _ in range(PREAUTH_CONNECTIONS)]
            for _ in range(4):
                await _turned_away(port)
            # one that leaves frees its place at once
            await idle.pop().aclose()
            with trio.fail_after(2):
                while True:  # the host notices the EOF a moment later
                    stream = await trio.open_tcp_stream(LOOPBACK, port)
                    greeting = await _read_frame(stream)
                    if greeting is not None:
                        idle.append(stream)
                        break
                    await stream.aclose()
                    await trio.sleep(0.05)
            await _turned_away(port)
            # the silent ones are closed after the hello timeout, and their places are free again
            with trio.fail_after(5):
                for stream in idle:
                    await _closed_by_peer(stream)
                    await stream.aclose()
            nodes["joiner"] = await _join(port, tmp_path / "joiner", "joiner")
    assert _finished(nodes["joiner"]) and _finished(nodes["host"])


# ---------------------------------------------------------------------- a joiner's mesh listener
async def test_a_joiners_mesh_listener_cuts_oversized_frames_and_caps_idle_connections(tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    nodes: dict[str, Node | None] = {}
    mesh_port: list[int] = []
    seated = trio.Event()

    def on_seated(info: dict[str, Any]) -> None:
        mesh_port.append(info["port"])
        seated.set()

    async def first(port: int) -> None:
        nodes["first"] = await _join(port, tmp_path / "first", "first", on_seated=on_seated)

    async def host(task_status: trio.TaskStatus[tuple[str, int]]) -> None:
        nodes["host"] = await _host(tmp_path, "remote,remote")(task_status)

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            _, port = await nursery.start(host)
            nursery.start_soon(first, port)
            await seated.wait()
            mine = mesh_port[0]  # seat 0's mesh listener: the table has not started, no genesis yet
            with trio.fail_after(3):  # today's listener waits 10 s for the genesis, reading the megabyte
                assert await _oversized(mine, BODY[:65536]) < 200
            assert any(f"outside 1..{PREAUTH_FRAME}" in r.getMessage() for r in caplog.records)
            idle = [await _idle(mine) for _ in range(PREAUTH_CONNECTIONS)]
            await _turned_away(mine)
            for stream in idle:  # they leave: their places are free for seat 1, which dials seat 0
                await stream.aclose()
            # the second joiner takes its seat, dials seat 0's listener, and the table plays
            nodes["second"] = await _join(port, tmp_path / "second", "second")
    assert _finished(nodes["first"]) and _finished(nodes["second"]) and nodes["host"] is None


# ---------------------------------------------------------------------- a resumed process's listener
class _NoNode:
    """Stands for the node: these connections never get as far as touching it."""


async def test_a_resumed_process_listener_cuts_oversized_frames_caps_idle_ones_and_frees_every_place(caplog):
    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    node = cast(Node, _NoNode())
    with trio.fail_after(15):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(functools.partial(trio.serve_tcp, functools.partial(resume_module._serve,
                                                                                                node=node),
                                                              0, host=LOOPBACK))
            port = listeners[0].socket.getsockname()[1]
            with trio.fail_after(3):  # today's listener reads the megabyte for 10 s
                assert await _oversized(port, BODY[:65536]) < 200
            assert any(f"outside 1..{PREAUTH_FRAME}" in r.getMessage() for r in caplog.records)
            idle = [await _idle(port) for _ in range(PREAUTH_CONNECTIONS)]
            await _turned_away(port)
            gate = resume_module._GATES[node]
            assert gate.open == PREAUTH_CONNECTIONS and gate.turned_away == 1
            # a hello on a table in play is refused, and that place is free again too
            await idle.pop().aclose()
            with trio.fail_after(2):
                while gate.open == PREAUTH_CONNECTIONS:
                    await trio.sleep(0.01)
            stream = await trio.open_tcp_stream(LOOPBACK, port)
            greeting = await _read_frame(stream)
            assert greeting is not None
            nonce = parse_greeting(decode(greeting))
            late = Identity.generate("late")
            await stream.send_all(frame(make_hello(late, nonce, 4000, {"bisca": "1"}, None)))
            answer = await _read_frame(stream)
            assert answer is not None and decode(answer)["code"] == "full"
            assert await _closed_by_peer(stream) == 0
            await stream.aclose()
            for s in idle:
                await s.aclose()
            with trio.fail_after(2):
                while gate.open:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()


# ---------------------------------------------------------------------- the link itself
class _Counting(trio.abc.Stream):
    """A stream that counts what its reader took from it."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.taken = 0

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        data = await self.inner.receive_some(max_bytes)
        self.taken += len(data)
        return bytes(data)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_a_link_reads_no_further_than_its_limit_allows():
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            raw, other = trio.testing.memory_stream_pair()
            counted = _Counting(other)
            link = Link(counted, "pre-auth", limit=PREAUTH_FRAME)
            await nursery.start(link.run)
            nursery.start_soon(_send_quietly, raw, HUGE + BODY)  # all there at once: the reader may take any amount
            with pytest.raises(LinkClosed, match=f"outside 1..{PREAUTH_FRAME}"):
                await link.receive()
            # refused on the 4 length bytes: at most limit + 4 bytes were ever taken in
            assert counted.taken <= PREAUTH_FRAME + 4
            assert link.pending <= PREAUTH_FRAME + 4
            nursery.cancel_scope.cancel()


async def test_after_raising_the_limit_frames_up_to_max_frame_pass_on_the_same_link():
    big = bytes(range(256)) * (MAX_FRAME // 256)
    assert len(big) == MAX_FRAME
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            listener_end, dialler_end = trio.testing.memory_stream_pair()
            listener = Link(listener_end, "listener", limit=PREAUTH_FRAME)
            dialler = Link(dialler_end, "dialler")  # a dialler keeps the full limit
            await nursery.start(listener.run)
            await nursery.start(dialler.run)
            await dialler.send(b"h" * PREAUTH_FRAME)  # the largest hello there may be
            assert await listener.receive() == b"h" * PREAUTH_FRAME
            with pytest.raises(ValueError):
                listener.raise_limit(1024)  # it only goes up
            listener.raise_limit()
            assert listener.limit == MAX_FRAME
            await listener.send(b"seated")
            assert await dialler.receive() == b"seated"
            nursery.start_soon(dialler.send, big)
            assert await listener.receive() == big
            await listener.send(big)
            assert await dialler.receive() == big
            await dialler.send(b"after")
            assert await listener.receive() == b"after"
            await listener.aclose()
            await dialler.aclose()


async def test_frames_sent_before_the_answer_are_held_to_the_small_limit():
    """A dialler that does not wait for the answer: its big frame (within MAX_FRAME) arrived
    before the raise, and is a framing error."""
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            raw, other = trio.testing.memory_stream_pair()
            link = Link(other, "eager", limit=PREAUTH_FRAME)
            await nursery.start(link.run)
            await raw.send_all(frame(b"hello"))
            assert await link.receive() == b"hello"
            await raw.send_all(frame(b"y" * (PREAUTH_FRAME + 1), MAX_FRAME))
            await trio.testing.wait_all_tasks_blocked()  # the reader has seen its length
            link.raise_limit()
            with pytest.raises(LinkClosed, match="framing error"):
                await link.receive()


# ---------------------------------------------------------------------- the gate
async def test_the_gate_caps_releases_on_every_way_out_and_logs_sparingly(autojump_clock, caplog):
    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    gate = PreauthGate("test listener", cap=2)
    a, b = gate.enter(), gate.enter()
    assert a is not None and b is not None and gate.open == 2
    assert [gate.enter() for _ in range(10)] == [None] * 10
    a.release()
    a.release()  # idempotent
    assert gate.open == 1
    c = gate.enter()
    assert c is not None and gate.open == 2
    with pytest.raises(RuntimeError), c:  # an error
        raise RuntimeError
    with trio.move_on_after(1), b:  # a timeout (cancellation)
        await trio.sleep(5)
    assert gate.open == 0 and gate.turned_away == 10
    lines = [r.getMessage() for r in caplog.records if "test listener" in r.getMessage()]
    assert len(lines) == 1, lines  # ten turned away in a burst: one line
    slots = [gate.enter(), gate.enter()]
    assert all(slots)
    await trio.sleep(6)
    assert gate.enter() is None
    lines = [r.getMessage() for r in caplog.records if "test listener" in r.getMessage()]
    assert len(lines) == 2 and "10 new connection(s) closed" in lines[1], lines  # 9 unlogged + 1
