"""Votes and sync in the mesh runtime (in-memory streams, files on disk): a process that
misses messages gets them by a sync; a seat whose messages one process never hears is
voted out, the processes that had them go back to the vote's seq and cut their log
files, and every log ends the same."""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from p2pcards.core import load_games
from p2pcards.core.players import make_player
from p2pcards.identity import Identity
from p2pcards.net import Link, LocalSeat, Node, VotedOut, log_path, make_table, single_error
from p2pcards.table.audit import audit_transcript
from p2pcards.table.transcript import SeatInfo
from p2pcards.table.wire import FrameDecoder, frame, unpack

REGISTRY = load_games()


class _Deaf(trio.abc.Stream):
    """One end of a link that drops, from some seq on, the table messages of one author
    (and only those: votes, syncs and everyone else's messages pass)."""

    def __init__(self, inner: trio.abc.Stream, author: int, from_seq: int, until_seq: int | None = None) -> None:
        self.inner, self.author, self.from_seq, self.until_seq = inner, author, from_seq, until_seq
        self.decoder = FrameDecoder()
        self.dropped = 0

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        while True:
            data = await self.inner.receive_some(max_bytes)
            if not data:
                return data
            kept = []
            for payload in self.decoder.feed(bytes(data)):
                obj = unpack(payload)
                seq = obj.get("seq") if isinstance(obj, dict) else None
                if (isinstance(obj, dict) and obj.get("author") == self.author and obj.get("kind") != "vote"
                        and isinstance(seq, int) and seq >= self.from_seq
                        and (self.until_seq is None or seq < self.until_seq)):
                    self.dropped += 1
                    continue
                kept.append(frame(payload))
            if kept:
                return b"".join(kept)

    async def send_eof(self) -> None:
        await self.inner.send_eof()  # type: ignore[attr-defined]

    async def aclose(self) -> None:
        await self.inner.aclose()


def _table(game: str, deals: int, timeout: float) -> tuple[Any, bytes, list[LocalSeat]]:
    spec = REGISTRY.get(game)
    host = Identity.generate("host")
    ids = [Identity.generate(f"p{i}") for i in range(spec.seats)]
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids]
    raw = make_table(host, spec, infos, deals=deals, timeout=timeout)
    return spec, raw, [LocalSeat(ids[s], make_player("random", spec, random.Random(s))) for s in range(spec.seats)]


def _wire(nodes: Sequence[Node], deaf: dict[tuple[int, int], _Deaf]) -> None:
    for i, a in enumerate(nodes):
        for j in range(i + 1, len(nodes)):
            left, right = trio.testing.memory_stream_pair()
            ends: dict[int, trio.abc.Stream] = {i: left, j: right}
            for (me, other), wrapper in deaf.items():
                if {me, other} == {i, j}:
                    wrapper.inner = ends[me]
                    ends[me] = wrapper
            a.attach(Link(ends[i], f"node{j}"), set(nodes[j].peers))
            nodes[j].attach(Link(ends[j], f"node{i}"), set(a.peers))


def _frames(path: Path) -> list[bytes]:
    return FrameDecoder().feed(path.read_bytes())


async def test_a_process_that_missed_messages_catches_up_by_a_sync(tmp_path):
    """Node 0 never hears seat 2's messages 20..29 on the direct link: at half the timeout
    it asks the others, gets them from seats 1 and 3, and the table goes on without a vote."""
    spec, raw, seats = _table("sueca", deals=1, timeout=1.0)
    nodes = [Node(raw, spec, [s], data_dir=tmp_path) for s in seats]
    deaf = _Deaf(trio.testing.memory_stream_pair()[0], author=2, from_seq=20, until_seq=30)
    _wire(nodes, {(0, 2): deaf})
    with trio.fail_after(30):
        with single_error():
            async with trio.open_nursery() as nursery:
                for node in nodes:
                    nursery.start_soon(node.run)
    assert deaf.dropped > 0
    logs = {log_path(tmp_path, nodes[0].table_id, s).read_bytes() for s in range(4)}
    assert len(logs) == 1
    assert not any(t.replacements for n in nodes for t in n.tables.values()), "no vote was needed"


async def test_the_vote_wins_over_a_message_some_processes_had(tmp_path, caplog):
    """Node 0 (the opener) hears nothing of seat 2 from seq 20 on, on any link (not even
    in sync answers); seats 1 and 3 do.  At
    the timeout seat 0 votes seat 2 out: seats 1 and 3 go back to the vote's seq (their log
    files are cut there), seat 2's own process stops (voted out), a bot of node 0 plays on,
    and every live log is the same."""
    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    spec, raw, seats = _table("sueca", deals=2, timeout=1.0)
    nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"n{i}") for i, s in enumerate(seats)]
    deaf = {(0, j): _Deaf(trio.testing.memory_stream_pair()[0], author=2, from_seq=20) for j in (1, 2, 3)}
    _wire(nodes, deaf)
    outcome: dict[str, Any] = {}

    async def run_silent() -> None:
        with pytest.raises(VotedOut) as info:
            await nodes[2].run()
        outcome["voted out"] = str(info.value)

    with trio.fail_after(60):
        with single_error():
            async with trio.open_nursery() as nursery:
                for i in (0, 1, 3):
                    nursery.start_soon(nodes[i].run)
                nursery.start_soon(run_silent)
    assert "voted out" in outcome["voted out"]
    table_id = nodes[0].table_id
    assert set(nodes[0].tables) == {0, 2}, "node 0 runs the bot of seat 2"
    bot = nodes[0].tables[2]
    rep = bot.replacements[0]
    assert rep.seat == 2 and rep.voters == (0, 1, 3)
    live = [_frames(log_path(tmp_path / "n0", table_id, 0)), _frames(log_path(tmp_path / "n1", table_id, 1)),
            _frames(log_path(tmp_path / "n3", table_id, 3)),
            _frames(next((tmp_path / "n0" / "tables" / table_id.hex()).glob("seat2-*.log")))]
    assert all(x == live[0] for x in live)
    report = audit_transcript(live[0], REGISTRY)
    assert report["ok"] and [d["verdict"] for d in report["deals"]] == ["void", "clean"]
    # seat 2's own process had written (and perhaps others had taken) a message where the
    # vote now stands: it is not in anyone's transcript
    own = _frames(log_path(tmp_path / "n2", table_id, 2))
    assert own[: rep.slot] == live[0][: rep.slot] and (len(own) <= rep.slot or own[rep.slot] != live[0][rep.slot])
    assert nodes[2].tables[2].voted_out
    cut = [r.getMessage() for r in caplog.records if "superseded by a vote; the log is cut" in r.getMessage()]
    assert {m.split(":")[0] for m in cut} >= {"seat 1", "seat 3"}, cut
