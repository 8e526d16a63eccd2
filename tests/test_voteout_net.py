"""Votes and sync in the mesh runtime (in-memory streams, files on disk): a process that
misses messages gets them by a sync; a vote loses to a message the other processes hold
(they answer it with a nay); a seat nobody hears is voted out by every other process's own
clock, and its own process, told of the vote, keeps its late message apart and follows the
table to its end as an observer, with the same transcript as everyone."""

from __future__ import annotations

import hashlib
import logging
import os
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.net import Link, LocalSeat, Node, log_path, make_table, single_error
from p2pcards.net.store import FrameFile, side_path
from p2pcards.players import make_player
from p2pcards.table.audit import audit_transcript
from p2pcards.table.events import Output
from p2pcards.table.table import Table
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
        #: when the first message was dropped (trio time: when it arrived)
        self.first_drop: float | None = None

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
                if self.drops(payload):
                    self.dropped += 1
                    if self.first_drop is None:
                        self.first_drop = trio.current_time()
                    continue
                kept.append(frame(payload))
            if kept:
                return b"".join(kept)

    def drops(self, payload: bytes) -> bool:
        obj = _signed(payload)
        seq = obj.get("seq")
        return (obj.get("author") == self.author and obj.get("kind") in ("deck", "choice", "locate")
                and isinstance(seq, int) and seq >= self.from_seq and (self.until_seq is None or seq < self.until_seq))

    async def send_eof(self) -> None:
        await self.inner.send_eof()  # type: ignore[attr-defined]

    async def aclose(self) -> None:
        await self.inner.aclose()


def _signed(payload: bytes) -> dict[str, Any]:
    """The signed header of a table message (empty for anything else: control frames)."""
    obj = unpack(payload)
    if isinstance(obj, list) and len(obj) == 2 and isinstance(obj[0], bytes):
        inner = unpack(obj[0])
        return inner if isinstance(inner, dict) else {}
    return {}


def _table(game: str, deals: int, timeout: float, seed: int | None = None) -> tuple[Any, bytes, list[LocalSeat]]:
    """A table of random players; with ``seed``, every key, secret and nonce is derived from
    it (the same hands, run after run)."""
    spec = REGISTRY.get(game)

    def ident(label: str) -> Identity:
        if seed is None:
            return Identity.generate(label)
        key = hashlib.sha256(f"voteout-net/{seed}/{label}".encode()).digest()
        return Identity(Ed25519PrivateKey.from_private_bytes(key), X25519PrivateKey.from_private_bytes(key[::-1]),
                        label)

    host = ident("host")
    ids = [ident(f"p{i}") for i in range(spec.seats)]
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids]
    nonce = None if seed is None else hashlib.sha256(f"voteout-net/{seed}/nonce".encode()).digest()[:16]
    raw = make_table(host, spec, infos, deals=deals, timeout=timeout, nonce=nonce)
    secrets = [os.urandom(32) if seed is None else hashlib.sha256(f"voteout-net/{seed}/s{s}".encode()).digest()
               for s in range(spec.seats)]
    return spec, raw, [LocalSeat(ids[s], make_player("random", spec, random.Random(s)), secrets[s])
                       for s in range(spec.seats)]


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


async def test_a_process_that_missed_messages_catches_up_by_a_sync(tmp_path, autojump_clock):
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
    assert not any(t.outvotes for n in nodes for t in n.tables.values()), "no vote was needed"


async def _run(nodes: Sequence[Node]) -> None:
    with trio.fail_after(60):
        with single_error():
            async with trio.open_nursery() as nursery:
                for node in nodes:
                    nursery.start_soon(node.run)


class _DeafOnce(_Deaf):
    """Drops every copy (direct, or in a sync answer) of one message: ``author``'s first
    entry from ``from_seq`` on."""

    def __init__(self, shared: dict[str, int], author: int, from_seq: int) -> None:
        super().__init__(trio.testing.memory_stream_pair()[0], author, from_seq)
        self.shared = shared

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        while True:
            data = await self.inner.receive_some(max_bytes)
            if not data:
                return data
            kept = []
            for payload in self.decoder.feed(bytes(data)):
                obj = _signed(payload)
                seq = obj.get("seq")
                if obj.get("author") == self.author and obj.get("kind") in ("deck", "choice", "locate") and \
                        isinstance(seq, int) and seq >= self.from_seq and self.shared.setdefault("seq", seq) == seq:
                    self.dropped += 1
                    continue
                kept.append(frame(payload))
            if kept:
                return b"".join(kept)


async def test_a_vote_loses_to_a_message_the_others_hold(tmp_path, autojump_clock):
    """Node 0 never hears one message of seat 2 (from seq 20), on any link, nor in a sync
    answer; seats 1 and 3 do.  At its timeout (shorter than theirs) seat 0 votes seat 2
    out; the others, who hold the message, answer with a nay that carries it; seat 0 takes
    it, and nobody is voted out."""
    spec, raw, seats = _table("sueca", deals=1, timeout=5.0)
    nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"n{i}", linger=0, timeout=1.0 if i == 0 else 5.0)
             for i, s in enumerate(seats)]
    shared: dict[str, int] = {}
    deaf = {(0, j): _DeafOnce(shared, author=2, from_seq=20) for j in (1, 2, 3)}
    _wire(nodes, deaf)
    await _run(nodes)
    assert sum(d.dropped for d in deaf.values()) > 0
    table_id = nodes[0].table_id
    logs = [_frames(log_path(tmp_path / f"n{s}", table_id, s)) for s in range(4)]
    assert all(x == logs[0] for x in logs)
    assert not any(t.outvotes for n in nodes for t in n.tables.values())
    own = FrameFile.read(side_path(log_path(tmp_path / "n0", table_id, 0), "side"))
    assert own and all(_signed(v)["kind"] == "vote" for v in own), "seat 0 voted, and kept its vote on disk"
    nays = [FrameFile.read(side_path(log_path(tmp_path / f"n{s}", table_id, s), "side")) for s in (1, 3)]
    assert any(_signed(n)["kind"] == "nay" for ns in nays for n in ns), "the others answered with a nay"


async def test_a_seat_nobody_hears_is_voted_out_and_its_process_follows_as_an_observer(tmp_path, caplog,
                                                                                        autojump_clock):
    """Nobody hears seat 2's messages from seq 20 on.  At the timeout seats 0, 1 and 3 vote,
    each from its own clock; seat 2 loses the deal and is a dummy from then on.  Its own
    process, which still hears the others, takes the certificate where its own message
    stood: that message is cut from its log and kept apart, and it follows the table to
    its end, with the same transcript as everyone."""
    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    spec, raw, seats = _table("copas", deals=2, timeout=1.0)
    nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"n{i}", linger=0) for i, s in enumerate(seats)]
    deaf = {(j, 2): _Deaf(trio.testing.memory_stream_pair()[0], author=2, from_seq=20) for j in (0, 1, 3)}
    _wire(nodes, deaf)
    await _run(nodes)
    table_id = nodes[0].table_id
    logs = [_frames(log_path(tmp_path / f"n{s}", table_id, s)) for s in range(4)]
    assert all(x == logs[0] for x in logs), "every log, the silent seat's too, is the table's transcript"
    report = audit_transcript(logs[0], REGISTRY)
    assert report["ok"] and [d["verdict"] for d in report["deals"]] == ["vote-out", "clean"]
    assert report["votes"][0]["seat"] == 2 and report["votes"][0]["voters"] == [0, 1, 3]
    silent = nodes[2].tables[2]
    assert silent.voted_out and silent.finished and nodes[2].voted_out == [2]
    kept = FrameFile.read(side_path(log_path(tmp_path / "n2", table_id, 2), "rejected"))
    assert kept and all(_signed(m)["author"] == 2 and m not in logs[0] for m in kept)
    assert any("superseded by a certificate" in r.getMessage() for r in caplog.records)


class _Flooder(Table):
    """A dishonest peer that follows each of its plays with a burst of forged copies (one
    flipped signature bit each): cheap to send, each one a refusal at every other process."""

    sent = 0

    def decide(self, choice: Any) -> Output:
        out = super().decide(choice)
        junk = [m[:-1] + bytes([m[-1] ^ (1 + i % 255)]) for m in out.send for i in range(200)]
        _Flooder.sent += len(junk)
        out.send += junk
        return out


async def test_a_peer_that_floods_refusals_is_throttled_and_the_table_plays_on(tmp_path, caplog, autojump_clock):
    """Every link may cause a burst of refusals, then a few a second; past that, what it
    sends is dropped unread (its real messages too: they come again by a sync, or its seat
    falls silent and is voted out).  The honest processes refuse a bounded number of
    messages, nobody honest is voted out, and the table ends with one transcript."""
    from p2pcards.net.inbox import REFUSAL_BURST, REFUSALS_PER_SECOND

    caplog.set_level(logging.WARNING, logger="p2pcards.net")
    spec, raw, seats = _table("copas", deals=2, timeout=1.0)
    _Flooder.sent = 0
    nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"n{i}", linger=0,
                  table_class=_Flooder if i == 1 else Table) for i, s in enumerate(seats)]
    _wire(nodes, {})
    start = trio.current_time()
    await _run(nodes)
    elapsed = trio.current_time() - start
    table_id = nodes[0].table_id
    logs = [_frames(log_path(tmp_path / f"n{s}", table_id, s)) for s in (0, 2, 3)]
    assert all(x == logs[0] for x in logs)
    report = audit_transcript(logs[0], REGISTRY)
    assert report["ok"] and all(v["seat"] == 1 for v in report["votes"]), report["votes"]
    assert nodes[0].tables[0].finished
    assert any("too many refused messages" in r.getMessage() for r in caplog.records)
    bound = REFUSAL_BURST + REFUSALS_PER_SECOND * elapsed + 8
    for s in (0, 2, 3):
        refused = sum(1 for _, exc in nodes[s].peers[s].rejected if "signature" in exc.reason)  # the junk
        assert refused <= bound < _Flooder.sent, (s, refused, bound, _Flooder.sent)
