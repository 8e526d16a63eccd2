"""Framed links over in-memory streams: fragmentation, limits, garbage, clean close."""

from __future__ import annotations

import logging
import struct

import pytest
import trio
import trio.testing

from p2pcards.net.link import Link, LinkClosed
from p2pcards.table.wire import MAX_FRAME, FrameError, frame


async def _pair(nursery: trio.Nursery, limit: int = MAX_FRAME) -> tuple[trio.abc.Stream, Link]:
    """A raw stream end and a running Link on the other end."""
    raw, other = trio.testing.memory_stream_pair()
    link = Link(other, "test", limit=limit)
    await nursery.start(link.run)
    return raw, link


async def test_frames_cut_anywhere_arrive_whole():
    payloads = [b"a", b"hello" * 100, bytes(range(256)) * 40, b"z"]
    data = b"".join(frame(p) for p in payloads)
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            raw, link = await _pair(nursery)
            # byte by byte for the first frames, then in odd-sized pieces
            for i in range(0, 20):
                await raw.send_all(data[i : i + 1])
            for i in range(20, len(data), 333):
                await raw.send_all(data[i : i + 333])
            got = [await link.receive() for _ in payloads]
            assert got == payloads
            await raw.aclose()
            with pytest.raises(LinkClosed):
                await link.receive()
            assert link.clean_eof and link.frames_in == len(payloads)


async def test_two_links_talk_both_ways_and_sends_never_interleave():
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            a_stream, b_stream = trio.testing.memory_stream_pair()
            a, b = Link(a_stream, "a"), Link(b_stream, "b")
            await nursery.start(a.run)
            await nursery.start(b.run)
            big = [bytes([i]) * 5000 for i in range(20)]

            async def sender(items: list[bytes]) -> None:
                for item in items:
                    await a.send(item)

            nursery.start_soon(sender, big[:10])
            nursery.start_soon(sender, big[10:])
            got = {await b.receive() for _ in big}
            assert got == set(big)  # every frame whole, whichever order the two tasks won
            await b.send(b"back")
            assert await a.receive() == b"back"
            await a.send_eof()
            with pytest.raises(LinkClosed):
                await b.receive()
            assert b.clean_eof
            await b.aclose()
            await a.aclose()


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        (struct.pack(">I", MAX_FRAME + 1) + b"x" * 10, "outside 1.."),
        (struct.pack(">I", 0), "outside 1.."),
        (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "outside 1.."),
    ],
    ids=["oversized", "zero-length", "garbage"],
)
async def test_framing_error_closes_only_that_link(bad, reason, caplog):
    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            raw_bad, bad_link = await _pair(nursery)
            raw_good, good_link = await _pair(nursery)
            await raw_bad.send_all(frame(b"before"))
            assert await bad_link.receive() == b"before"
            await raw_bad.send_all(bad)
            with pytest.raises(LinkClosed, match="framing error"):
                await bad_link.receive()
            assert "framing error" in (bad_link.reason or "") and reason in bad_link.reason
            # the remote side sees the connection closed
            with pytest.raises(trio.BrokenResourceError):
                for _ in range(3):
                    await raw_bad.send_all(b"more")
                    await trio.sleep(0)
            # the other link is untouched
            await raw_good.send_all(frame(b"still fine"))
            assert await good_link.receive() == b"still fine"
            await good_link.send(b"reply")
            assert await raw_good.receive_some(100) == frame(b"reply")
            await good_link.aclose()
    assert any("framing error" in r.getMessage() for r in caplog.records)


async def test_a_small_limit_and_sending_too_much():
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            raw, link = await _pair(nursery, limit=10)
            with pytest.raises(FrameError):
                await link.send(b"x" * 11)  # our own bug: refused before anything is sent
            await raw.send_all(frame(b"x" * 11))
            with pytest.raises(LinkClosed):
                await link.receive()


async def test_eof_in_the_middle_of_a_frame():
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            raw, link = await _pair(nursery)
            await raw.send_all(frame(b"complete") + frame(b"cut short")[:6])
            await raw.aclose()
            assert await link.receive() == b"complete"
            with pytest.raises(LinkClosed, match="middle of a frame"):
                await link.receive()
            assert not link.clean_eof


async def test_local_close_frees_a_reader_blocked_on_a_full_channel():
    with trio.fail_after(5):
        async with trio.open_nursery() as nursery:
            raw, other = trio.testing.memory_stream_pair()
            link = Link(other, "slow consumer", capacity=1)
            await nursery.start(link.run)
            await raw.send_all(b"".join(frame(b"m%d" % i) for i in range(10)))
            await trio.testing.wait_all_tasks_blocked()
            await link.aclose()
            await link.finished.wait()
            with pytest.raises(LinkClosed):
                await link.send(b"after close")
