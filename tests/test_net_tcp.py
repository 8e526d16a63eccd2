"""Tables over real TCP on loopback: the lobby, the mesh, four OS processes, and bad clients."""

from __future__ import annotations

import functools
import json
import logging
import os
import struct
import subprocess
import sys
import weakref
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pcards.core import load_games
from p2pcards.identity import Identity, data_dir, load_or_create
from p2pcards.net import (
    LobbyTimeout,
    MeshError,
    Refused,
    host_table,
    join_table,
    log_path,
    parse_seat_spec,
    single_error,
)
from p2pcards.net.handshake import PROTO, decode, make_hello, parse_greeting, parse_seated_or_refused
from p2pcards.table.wire import MAX_FRAME, FrameDecoder, frame, pack

REGISTRY = load_games()
LOOPBACK = "127.0.0.1"
ROOT = Path(__file__).resolve().parent.parent


async def _raw(port: int) -> trio.SocketStream:
    return await trio.open_tcp_stream(LOOPBACK, port)


#: Per raw connection: its decoder and the frames read but not yet returned (a sender
#: writes what it has queued together, so one read may hold several frames).
_READ: weakref.WeakKeyDictionary[trio.SocketStream, tuple[FrameDecoder, list[bytes]]] = weakref.WeakKeyDictionary()


async def _read_frame(stream: trio.SocketStream) -> bytes | None:
    """The next frame from a raw connection, or None when it is closed."""
    decoder, ready = _READ.setdefault(stream, (FrameDecoder(), []))
    while not ready:
        try:
            data = await stream.receive_some(65536)
        except trio.BrokenResourceError:
            return None
        if not data:
            return None
        ready.extend(decoder.feed(data))
    return ready.pop(0)


async def _closed_by_peer(stream: trio.SocketStream) -> bool:
    """Whether the other side hangs up (EOF or reset), reading and discarding anything first."""
    while True:
        try:
            data = await stream.receive_some(65536)
        except trio.BrokenResourceError:
            return True
        if not data:
            return True


async def _greeted(port: int) -> tuple[trio.SocketStream, bytes]:
    """A raw connection to a listener, and the nonce of its greeting."""
    stream = await _raw(port)
    greeting = await _read_frame(stream)
    assert greeting is not None
    return stream, parse_greeting(decode(greeting))


def _games() -> dict[str, str]:
    return {n: s.rules_version for n, s in REGISTRY.games.items()}


async def _hello(port: int, ident: Identity, games: dict[str, str] | None = None,
                 payload: bytes | None = None) -> tuple[trio.SocketStream, Any]:
    """Greeted, send a hello (``payload``, or ``ident``'s over this greeting's nonce), read the answer."""
    stream, nonce = await _greeted(port)
    await stream.send_all(frame(payload or make_hello(ident, nonce, 4000, _games() if games is None else games, None)))
    answer = await _read_frame(stream)
    assert answer is not None
    return stream, parse_seated_or_refused(decode(answer))


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "P2PCARDS_HOME": str(home), "PYTHONUNBUFFERED": "1"}


async def test_four_processes_play_over_tcp_and_bad_clients_disturb_nothing(tmp_path, monkeypatch, caplog):
    caplog.set_level(logging.INFO, logger="p2pcards.net")
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "host"))
    home = data_dir()
    host_id = load_or_create(home)
    spec = REGISTRY.get("sueca")
    seats = parse_seat_spec("bot,remote,remote,remote", 4)
    started = trio.Event()
    tables: list[dict[str, Any]] = []
    host_events: list[dict[str, Any]] = []
    results: dict[int, subprocess.CompletedProcess[bytes]] = {}
    attacks: dict[str, Any] = {}

    def on_table(info: dict[str, Any]) -> None:
        tables.append(info)
        started.set()

    async def joiner(i: int, port: int) -> None:
        cmd = [sys.executable, "-m", "p2pcards", "join", f"{LOOPBACK}:{port}", "--json", "--bot", "random"]
        results[i] = await trio.run_process(cmd, capture_stdout=True, capture_stderr=True, check=False,
                                            env=_env(tmp_path / f"joiner{i}"), cwd=ROOT)

    async def bad_clients(port: int) -> None:
        await started.wait()
        garbage = await _raw(port)
        await garbage.send_all(b"GET / HTTP/1.1\r\nHost: table\r\n\r\n")
        oversized = await _raw(port)
        await oversized.send_all(struct.pack(">I", MAX_FRAME + 1) + b"\x00" * 1000)
        late = Identity.generate("late")
        stream, answer = await _hello(port, late)
        attacks["late"] = answer
        attacks["garbage closed"] = await _closed_by_peer(garbage)
        attacks["oversized closed"] = await _closed_by_peer(oversized)
        attacks["late closed"] = await _closed_by_peer(stream)

    with trio.fail_after(60):
        with single_error():
            async with trio.open_nursery() as nursery:
                _, port = await nursery.start(lambda task_status: host_table(
                    spec, seats=seats, host=host_id, data_dir=home, deals=1, timeout=20, bind=LOOPBACK,
                    lobby_timeout=40, on_table=on_table, on_event=lambda s, e: host_events.append(e.to_json()),
                    task_status=task_status))
                nursery.start_soon(bad_clients, port)
                for i in (1, 2, 3):
                    nursery.start_soon(joiner, i, port)
    # every joiner finished cleanly
    for proc in results.values():
        assert proc.returncode == 0, proc.stderr.decode()
        assert b"Traceback" not in proc.stderr
    table = tables[0]
    table_id = bytes.fromhex(table["table"])
    assert [s["bot"] for s in table["seats"]] == ["heuristic", "random", "random", "random"]
    assert table["seats"][0]["runs_on"] == host_id.fingerprint
    # four log files, byte for byte the same
    logs = [log_path(home, table_id, 0).read_bytes()]
    lines: dict[int, list[dict[str, Any]]] = {}
    for i, proc in results.items():
        lines[i] = [json.loads(line) for line in proc.stdout.decode().splitlines()]
        seat = lines[i][0]["seat"]
        assert [obj["type"] for obj in lines[i]] == ["seated", "table", "deal", "final"]
        logs.append(log_path(tmp_path / f"joiner{i}", table_id, seat).read_bytes())
        assert lines[i][-1]["log"] == str(log_path(tmp_path / f"joiner{i}", table_id, seat))
    assert len(set(logs)) == 1
    audit = pytest.importorskip("p2pcards.table.audit", reason="needs p2pcards.table.audit")
    decoder = FrameDecoder()
    report = audit.audit_transcript(decoder.feed(logs[0]), REGISTRY)
    assert report["ok"] and [d["verdict"] for d in report["deals"]] == ["clean"], report
    assert sorted(obj[0]["seat"] for obj in lines.values()) == [1, 2, 3]
    # every deal clean, every process agreeing on the result and the transcript hash
    deals = [ls[2] for ls in lines.values()] + [host_events[0]]
    assert all(d["audit"]["verdict"] == "clean" for d in deals)
    assert len({json.dumps(d["result"], sort_keys=True) for d in deals}) == 1
    finals = {ls[-1]["transcript_hash"] for ls in lines.values()} | {host_events[-1]["transcript_hash"]}
    assert len(finals) == 1
    # the bad clients were turned away, the late one politely
    assert attacks["garbage closed"] and attacks["oversized closed"] and attacks["late closed"]
    assert attacks["late"][0] == "full"
    logged = [r.getMessage() for r in caplog.records]
    assert sum("framing error" in m for m in logged) >= 2, logged


async def test_lobby_refuses_clearly_frees_seats_and_times_out(tmp_path):
    spec = REGISTRY.get("sueca")
    seats = parse_seat_spec("bot,remote,remote,remote", 4)
    host_id = Identity.generate("host")
    answers: dict[str, Any] = {}
    keep: list[trio.SocketStream] = []  # connections that stay in the lobby

    async def clients(port: int) -> None:
        me = Identity.generate("alice")
        body = {"type": "hello", "proto": 99, "name": "future"}
        _, answers["version"] = await _hello(port, me, payload=pack(body))
        _, answers["game"] = await _hello(port, me, games={"bisca": "1"})
        _, answers["old rules"] = await _hello(port, me, games={"sueca": "0"})
        garbage, _ = await _greeted(port)
        await garbage.send_all(frame(b"\xc1 garbage"))
        answers["garbage"] = await _read_frame(garbage)
        first, answers["first"] = await _hello(port, me)
        await first.aclose()  # leaves the lobby: its seat is free again
        await trio.sleep(0.2)
        second, answers["again"] = await _hello(port, me)
        _, answers["twice"] = await _hello(port, me)
        bob, answers["bob"] = await _hello(port, Identity.generate("bob"))
        keep.extend([second, bob])
        # carol's hello to another connection's greeting, captured and sent here, takes no seat
        elsewhere, nonce = await _greeted(port)
        carol = Identity.generate("carol")
        _, answers["replayed"] = await _hello(port, carol, payload=make_hello(carol, nonce, 4000, _games(), None))
        await elsewhere.aclose()

    with trio.fail_after(20), pytest.raises(LobbyTimeout) as info:
        with single_error():
            async with trio.open_nursery() as nursery:
                _, port = await nursery.start(lambda task_status: host_table(
                    spec, seats=seats, host=host_id, data_dir=tmp_path, bind=LOOPBACK, lobby_timeout=3,
                    task_status=task_status))
                nursery.start_soon(clients, port)
    assert answers["version"][0] == "version" and f"protocol {PROTO}" in answers["version"][1]
    assert answers["game"][0] == "game" and "sueca" in answers["game"][1]
    assert answers["old rules"][0] == "game" and "version 0" in answers["old rules"][1]
    assert answers["garbage"] is not None and decode(answers["garbage"])["code"] == "protocol"
    assert answers["first"].seat == 1 and answers["again"].seat == 1
    assert answers["twice"][0] == "seated"
    assert answers["bob"].seat == 2
    assert answers["replayed"][0] == "hello" and "replayed" in answers["replayed"][1]
    assert answers["first"].host_signing == host_id.signing_public
    assert "seat(s) 3 still free" in str(info.value)


@pytest.mark.parametrize("seats", ["bot,remote", "remote,remote"])
async def test_in_process_joiners_over_tcp(seats, tmp_path):
    """The same runtime, host and joiners in one process; with no bot seat the host only seats."""
    spec = REGISTRY.get("bisca")
    host_id = Identity.generate("host")
    spec_seats = parse_seat_spec(seats, 2)
    nodes: dict[str, Any] = {}
    remote = seats.count("remote")

    async def joiner(i: int, port: int) -> None:
        me = Identity.generate(f"joiner{i}")
        nodes[f"j{i}"] = await join_table(LOOPBACK, port, me=me, registry=REGISTRY, data_dir=tmp_path / f"j{i}",
                                          level="random", lobby_timeout=20)

    async def host(task_status: trio.TaskStatus[tuple[str, int]]) -> None:
        nodes["host"] = await host_table(spec, seats=spec_seats, host=host_id, data_dir=tmp_path / "host",
                                         deals=1, timeout=20, bind=LOOPBACK, task_status=task_status)

    with trio.fail_after(40):
        with single_error():
            async with trio.open_nursery() as nursery:
                _, port = await nursery.start(host)
                for i in range(remote):
                    nursery.start_soon(joiner, i, port)
    tables = [t for n in nodes.values() if n is not None for t in n.tables.values()]
    assert len(tables) == 2 and all(t.finished for t in tables)
    assert tables[0].log == tables[1].log
    assert (nodes["host"] is None) == (remote == 2)


async def test_joining_a_full_table_is_refused(tmp_path):
    spec = REGISTRY.get("bisca")
    host_id = Identity.generate("host")
    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            _, port = await nursery.start(lambda task_status: host_table(
                spec, seats=parse_seat_spec("bot,remote", 2), host=host_id, data_dir=tmp_path / "host", deals=1,
                bind=LOOPBACK, timeout=20, task_status=task_status))
            # a peer takes the only remote seat (and then never plays)
            first, seated = await _hello(port, Identity.generate("a"))
            assert seated.seat == 1
            start = decode(await _read_frame(first) or b"")
            assert start["type"] == "start"
            with pytest.raises(Refused) as info:
                await join_table(LOOPBACK, port, me=Identity.generate("b"), registry=REGISTRY,
                                 data_dir=tmp_path / "b")
            assert info.value.code == "full"
            assert "every seat at this table is taken" in str(info.value)
            nursery.cancel_scope.cancel()


@pytest.mark.parametrize(("first", "said"), [
    ({"type": "greeting", "proto": 1, "nonce": bytes(32)}, "speaks lobby protocol 2, the listener 1"),
    ({"type": "seated", "seat": 1}, "expected the listener's greeting, got a 'seated'"),
])
async def test_a_joiner_says_when_the_host_speaks_another_protocol(first, said, tmp_path):
    assert PROTO == 2  # the cases are written for version 2

    async def other_version(stream: trio.SocketStream) -> None:
        await stream.send_all(frame(pack(first)))
        await trio.sleep(10)

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            listeners = await nursery.start(functools.partial(trio.serve_tcp, other_version, 0, host=LOOPBACK))
            port = listeners[0].socket.getsockname()[1]
            with pytest.raises(MeshError) as info:
                await join_table(LOOPBACK, port, me=Identity.generate("a"), registry=REGISTRY, data_dir=tmp_path)
            assert "does not speak this peer's protocol" in str(info.value) and said in str(info.value)
            nursery.cancel_scope.cancel()
