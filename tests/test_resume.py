"""Crashes over real processes: kill -9 of a joiner in the middle of a deal and the same
``join`` again (it resumes), a joiner that never comes back (voted out, a dummy from then
on), ``p2pcards resume`` refusing a tampered log, and the reconnection handshake."""

from __future__ import annotations

import io
import json
import os
import random
import signal
from pathlib import Path
from typing import Any

import pytest
import trio

from p2pcards.cli import main
from p2pcards.core import load_games
from p2pcards.identity import Identity, load_or_create
from p2pcards.net import LocalSeat, log_path, make_table, play_in_memory
from p2pcards.net.handshake import (
    DIALLER,
    LISTENER,
    LobbyProtocolError,
    Process,
    make_challenge,
    make_greeting,
    make_hello,
    make_mesh_hello,
    make_proof,
    make_rejoin,
    parse_challenge,
    parse_greeting,
    parse_hello,
    parse_mesh_hello,
    parse_proof,
    parse_rejoin,
)
from p2pcards.net.store import Manifest, PeerEntry, StoreError, TableLog, save_manifest
from p2pcards.players import make_player
from p2pcards.table.audit import audit_transcript
from p2pcards.table.transcript import Genesis, SeatInfo, parse_message
from p2pcards.table.wire import FrameDecoder, unpack
from tests.procs import LOOPBACK, Proc, frames, until
from tests.table_helpers import header

REGISTRY = load_games()
SEATS = "bot:random,remote,bot:random,remote"  # the host runs seats 0 and 2; joiners take 1 and 3


def _start(tmp: Path, deals: int, timeout: float, *extra: str) -> tuple[Proc, Proc, Proc, str, bytes]:
    host = Proc(tmp, "host", tmp / "host", "host", "sueca", "--bind", LOOPBACK, "--seats", SEATS, "--deals",
                 str(deals), "--timeout", str(timeout), "--json", "--no-announce", "--linger", "1", *extra)
    listening = until("the host to listen", lambda: host.lines()[:1])[0]
    address = f"{LOOPBACK}:{listening['port']}"
    one = Proc(tmp, "joiner1", tmp / "j1", "join", address, "--bot", "random", "--json", "--linger", "1")
    until("joiner 1 to be seated", lambda: one.lines()[:1])  # the first to come gets seat 1
    three = Proc(tmp, "joiner3", tmp / "j3", "join", address, "--bot", "random", "--json", "--linger", "1")
    table = until("the table to start", lambda: [x for x in host.lines() if x["type"] == "table"])[0]
    return host, one, three, address, bytes.fromhex(table["table"])


def _cleanup(*procs: Proc) -> None:
    for p in procs:
        p.kill()


def test_kill_9_in_the_middle_of_a_deal_then_the_same_join_resumes(tmp_path):
    """Joiner 1 is killed with SIGKILL in the middle of deal 1; the same join command finds
    its unfinished table and takes the seat again; the match ends and the four logs are
    byte-identical."""
    host, one, three, address, table_id = _start(tmp_path, deals=3, timeout=8)
    again = None
    try:
        path = log_path(tmp_path / "j1", table_id, 1)
        # deal 0 is about 70 messages: kill at 100, in the middle of deal 1
        until("joiner 1 to reach deal 1", lambda: len(frames(path)) >= 100)
        one.proc.send_signal(signal.SIGKILL)
        one.proc.wait(10)
        killed = frames(path)
        report = audit_transcript(killed, REGISTRY)
        # on a loaded machine the kill may land just after a deal's close: then nothing is torn
        assert report["ok"] and report["deals"][-1]["verdict"] in ("incomplete", "clean") and len(report["deals"]) >= 2
        again = Proc(tmp_path, "joiner1-again", tmp_path / "j1", "join", address, "--bot", "random", "--json")
        for proc in (again, host, three):
            assert proc.wait(60) == 0, proc.stderr
    finally:
        _cleanup(host, one, three, *([again] if again else []))
    lines = again.lines()
    assert lines[0]["type"] == "resumed" and lines[0]["seats"] == [1] and lines[0]["seq"] >= 100
    assert "taking its seat again" in again.stderr and "Traceback" not in again.stderr
    assert lines[-1]["type"] == "final" and lines[-1]["deals"] == 3
    hosted_logs = [log_path(tmp_path / "host", table_id, s).read_bytes() for s in (0, 2)]
    logs = [*hosted_logs, path.read_bytes(), log_path(tmp_path / "j3", table_id, 3).read_bytes()]
    assert len(set(logs)) == 1, "every log is the same, byte for byte"
    final = audit_transcript(FrameDecoder().feed(logs[0]), REGISTRY)
    assert final["ok"] and [d["verdict"] for d in final["deals"]] == ["clean"] * 3
    assert final["transcript_hash"] == lines[-1]["transcript_hash"]
    assert FrameDecoder().feed(logs[0])[: len(killed)] == killed, "nothing the dead process wrote was lost"
    hosted = [x for x in host.lines() if x["type"] == "final"][0]
    assert hosted["transcript_hash"] == final["transcript_hash"]


def test_a_joiner_that_never_comes_back_is_voted_out_and_played_as_a_dummy(tmp_path):
    host, one, three, _, table_id = _start(tmp_path, 2, 2, "-o", "target=8")
    try:
        dead = log_path(tmp_path / "j3", table_id, 3)
        until("joiner 3 to play", lambda: len(frames(dead)) >= 15)
        three.proc.send_signal(signal.SIGKILL)
        three.proc.wait(10)
        for proc in (host, one):
            assert proc.wait(60) == 0, proc.stderr
    finally:
        _cleanup(host, one, three)
    lines = host.lines()
    vote = [x for x in lines if x["type"] == "vote_out"]
    assert len(vote) == 1 and vote[0]["against"] == 3 and vote[0]["voters"] == [0, 1, 2]
    deals = [x for x in lines if x["type"] == "deal"]
    assert [d["audit"]["verdict"] for d in deals] == ["vote-out", "clean"]
    assert deals[0]["audit"]["seat"] == 3 and deals[0]["result"]["renuncia"] == 3
    assert lines[-1]["type"] == "final" and lines[-1]["deals"] == 2 and lines[-1]["voted_out"] is False
    assert [x["type"] for x in one.lines()].count("vote_out") == 1
    hosted_logs = [log_path(tmp_path / "host", table_id, s).read_bytes() for s in (0, 2)]
    logs = {*hosted_logs, log_path(tmp_path / "j1", table_id, 1).read_bytes()}
    assert len(logs) == 1, "every live log is the same, byte for byte"
    messages = FrameDecoder().feed(logs.pop())
    report = audit_transcript(messages, REGISTRY)
    assert report["ok"] and [d["verdict"] for d in report["deals"]] == ["vote-out", "clean"], report
    assert report["dummies"] == [3] and report["votes"][0]["voters"] == [0, 1, 2]
    # from the vote on, seat 3 writes nothing: every replica plays it
    genesis = Genesis.from_body(parse_message(messages[0], None).body)
    keys = [s.signing for s in genesis.seats]
    after = [parse_message(m, keys) for m in messages[report["votes"][0]["seq"] + 1:]]
    assert after and all(e.author != 3 for e in after)
    # the dead joiner's own log is a beginning of the table's transcript -- but for a tail of its
    # own messages that it wrote before it sent them (a log is written first) and never sent
    own = frames(dead)
    agree = next((i for i, (a, b) in enumerate(zip(own, messages)) if a != b), len(own))
    assert own[:agree] == messages[:agree] and agree >= 15
    assert all(parse_message(m, keys).author == 3 for m in own[agree:]), "only its own unsent messages differ"


# ---------------------------------------------------------------- tampered logs
def _saved_table(home: Path, name: str | None = None) -> tuple[Path, bytes]:
    """A Bisca table played in memory by this home's identity (seat 1) and a bot (seat 0),
    with the manifest a joiner writes (``name``: joined by that LAN name); returns seat 1's
    log path and the table id."""
    me = load_or_create(home)
    spec = REGISTRY.get("bisca")
    host = Identity.generate("host")
    other = Identity.generate("other")
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, "random", None) for i in (other, me)]
    raw = make_table(host, spec, infos, deals=1)
    seats = [LocalSeat(i, make_player("random", spec, random.Random(n))) for n, i in enumerate((other, me))]

    async def play() -> None:
        with trio.fail_after(30):
            await play_in_memory(raw, spec, [[seats[0]], [seats[1]]], data_dir=home)

    trio.run(play)
    table_id = Genesis.from_body(parse_message(raw, None).body).table_id
    manifest = Manifest("join", table_id, me.fingerprint, "bisca", (Process((0,), None, None),
                        Process((1,), LOOPBACK, 9)), (PeerEntry(1, "seat1", "user", "random"),),
                        listen=(LOOPBACK, 0), dial=(LOOPBACK, 9), name=name)
    save_manifest(home, manifest)
    return log_path(home, table_id, 1), table_id


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(args), out)
    return code, out.getvalue()


def test_resume_refuses_a_tampered_log_and_cuts_a_torn_write(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    monkeypatch.setenv("P2PCARDS_HOME", str(home))
    path, table_id = _saved_table(home)
    good = path.read_bytes()
    # one flipped bit in another seat's message, then in one of this seat's own
    messages = FrameDecoder().feed(good)
    authors = [header(m)["author"] for m in messages]
    for seat in (0, 1):
        seq = authors.index(seat, 5)
        frames = list(messages)
        body = bytearray(frames[seq])
        body[len(body) // 3] ^= 0x01
        frames[seq] = bytes(body)
        path.write_bytes(b"".join(len(f).to_bytes(4, "big") + f for f in frames))
        code, out = _cli("resume", table_id.hex()[:8])
        err = capsys.readouterr().err
        assert code == 1 and "is not sound" in err and f"saved message {seq}" in err, err
        assert "Traceback" not in err and err.count("\n") == 1
    # a process still playing the seat holds its log: nobody else takes the seat meanwhile
    path.write_bytes(good)
    held = TableLog.reopen(path, messages)
    try:
        code, _ = _cli("resume")
        err = capsys.readouterr().err
        assert code == 1 and "another process is playing seat 1 of this table right now" in err, err
    finally:
        held.close()
    # a write cut short by the crash (a partial frame) is cut off; this table was over
    path.write_bytes(good + b"\x00\x00\x01")
    code, out = _cli("resume", "--json")
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and lines[0]["type"] == "resumed" and lines[0]["finished"] is True
    assert lines[-1]["type"] == "final" and path.read_bytes() == good
    capsys.readouterr()
    code, _ = _cli("resume", "abcdef")
    assert code == 1 and "no unfinished table whose id starts with abcdef" in capsys.readouterr().err
    code, _ = _cli("resume")  # the table is marked over now
    assert code == 1 and "no unfinished table in" in capsys.readouterr().err


# ---------------------------------------------------------------- the handshake
def test_hellos_are_bound_to_the_greeting_of_their_connection():
    """A hello or mesh hello recorded on one connection answers no other; a listener's
    mesh signatures do not pass for a dialler's."""
    table = os.urandom(32)
    ids = [Identity.generate(f"p{i}") for i in range(3)]
    keys = [i.signing_public for i in ids]
    n_l = parse_greeting(unpack(make_greeting(os.urandom(32))))
    hello = unpack(make_hello(ids[1], n_l, 4000, {"sueca": "1"}, None))
    assert parse_hello(hello, n_l).signing == keys[1]
    with pytest.raises(LobbyProtocolError) as info:
        parse_hello(hello, os.urandom(32))  # another connection's greeting
    assert info.value.code == "hello"
    changed = os.urandom(32)
    with pytest.raises(LobbyProtocolError) as info:  # the nonce changed to match: the signature no longer does
        parse_hello(hello | {"nonce": changed}, changed)
    assert info.value.code == "hello"
    # the mesh: seat 2's process dials seat 1's, greeted with n_l
    n_d = os.urandom(32)
    dialled = unpack(make_mesh_hello(DIALLER, table, {2: ids[2]}, n_l, n_d))
    assert parse_mesh_hello(dialled, DIALLER, table, keys, n_l).seats == (2,)
    answer = unpack(make_mesh_hello(LISTENER, table, {1: ids[1]}, n_d, n_l))
    assert parse_mesh_hello(answer, LISTENER, table, keys, n_d, n_l).nonce == n_l
    with pytest.raises(LobbyProtocolError) as info:  # replayed to a listener that greeted with another nonce
        parse_mesh_hello(dialled, DIALLER, table, keys, os.urandom(32))
    assert info.value.code == "signature"
    with pytest.raises(LobbyProtocolError):  # an answer recorded for another dialler's nonce
        parse_mesh_hello(answer, LISTENER, table, keys, os.urandom(32), n_l)
    with pytest.raises(LobbyProtocolError):  # an answer that is not of the greeting's listener
        parse_mesh_hello(answer, LISTENER, table, keys, n_d, os.urandom(32))
    reflected = unpack(make_mesh_hello(LISTENER, table, {2: ids[2]}, n_l, n_d))
    with pytest.raises(LobbyProtocolError):  # seat 2's signature as a listener, offered as a dialler's
        parse_mesh_hello(reflected, DIALLER, table, keys, n_l)


def test_the_reconnection_handshake_resists_replays_and_names_a_voted_out_seat():
    table = os.urandom(32)
    ids = [Identity.generate(f"p{i}") for i in range(4)]
    keys = [i.signing_public for i in ids]
    n_d, n_l = os.urandom(32), os.urandom(32)
    rejoin = parse_rejoin(unpack(make_rejoin(table, [1], n_d)), table, 4)
    challenge = parse_challenge(unpack(make_challenge(table, {0: ids[0], 2: ids[2]}, n_d, n_l)), table, keys, n_d,
                                n_l)
    assert challenge.seats == (0, 2) and rejoin.seats == (1,)
    proof = unpack(make_proof(table, {1: ids[1]}, n_d, n_l))
    parse_proof(proof, table, rejoin, keys, n_l)
    # a recorded proof does not answer a new challenge
    with pytest.raises(LobbyProtocolError) as info:
        parse_proof(proof, table, rejoin, keys, os.urandom(32))
    assert info.value.code == "signature"
    # nor does the listener's signature serve as a dialler's (each signs its own role)
    forged = {"type": "proof", "seats": [0], "sigs": [unpack(make_challenge(table, {0: ids[0]}, n_d, n_l))["sigs"][0]]}
    with pytest.raises(LobbyProtocolError):
        parse_proof(forged, table, parse_rejoin(unpack(make_rejoin(table, [0], n_d)), table, 4), keys, n_l)
    # a challenge for another dialler nonce or with another nonce than the greeting's, and a
    # rejoin of another table, are refused
    with pytest.raises(LobbyProtocolError):
        parse_challenge(unpack(make_challenge(table, {0: ids[0]}, os.urandom(32), n_l)), table, keys, n_d, n_l)
    with pytest.raises(LobbyProtocolError) as info:
        parse_challenge(unpack(make_challenge(table, {0: ids[0]}, n_d, n_l)), table, keys, n_d, os.urandom(32))
    assert info.value.code == "signature"
    with pytest.raises(LobbyProtocolError) as info:
        parse_rejoin(unpack(make_rejoin(os.urandom(32), [1], n_d)), table, 4)
    assert info.value.code == "table"
    # a seat whose key a vote replaced: its old key is recognised and named
    bot = Identity.generate("bot")
    now = [keys[0], bot.signing_public, keys[2], keys[3]]
    with pytest.raises(LobbyProtocolError) as info:
        parse_proof(proof, table, rejoin, now, n_l, {1: [keys[1]]})
    assert info.value.code == "voted-out"


# ---------------------------------------------------------------- a returning player
def test_joining_again_by_the_same_name_takes_the_seat_up_again(tmp_path, monkeypatch, capsys):
    """`join NAME` after a crash resumes the table joined by that name (its announcement is
    gone once the table started); another name, or --new, does not."""
    home = tmp_path / "home"
    monkeypatch.setenv("P2PCARDS_HOME", str(home))
    _saved_table(home, name="cafe-table")
    code, out = _cli("join", "cafe-table", "--json")
    err = capsys.readouterr().err
    lines = [json.loads(line) for line in out.splitlines()]
    assert code == 0, err
    assert "taking its seat again" in err and lines[0]["type"] == "resumed" and lines[-1]["type"] == "final"
    from p2pcards.net import unfinished_tables

    assert not unfinished_tables(home, load_or_create(home)), "the table is marked over now"


def test_the_name_a_table_was_joined_by_is_kept_and_old_manifests_still_load(tmp_path):
    from p2pcards.net import unfinished_tables
    from p2pcards.net.store import load_manifest, pack, unpack

    home = tmp_path / "home"
    _saved_table(home, name="cafe-table")
    me = load_or_create(home)
    (found,) = unfinished_tables(home, me, name="cafe-table")
    assert found.manifest.name == "cafe-table" and not unfinished_tables(home, me, name="other")
    assert unfinished_tables(home, me, dial=(LOOPBACK, 9)) == [found]
    older = unpack(found.path.read_bytes())
    del older["name"]  # as written by the previous release
    found.path.write_bytes(pack(older))
    assert load_manifest(found.path).name is None
    older["name"] = 7
    found.path.write_bytes(pack(older))
    with pytest.raises(StoreError, match="bad table name"):
        load_manifest(found.path)


def test_play_join_at_the_same_address_takes_the_persons_seat_up_again(tmp_path, monkeypatch):
    """`play --join ADDR` (the person's command) finds the unfinished table joined there and
    puts it on the screen again instead of asking the host for a new seat."""
    import p2pcards.cli.play as cli  # where `play` looks the names patched below up

    home = tmp_path / "home"
    monkeypatch.setenv("P2PCARDS_HOME", str(home))
    _saved_table(home)
    resumed: list[Any] = []
    monkeypatch.setattr(cli, "_is_terminal", lambda out: True)
    monkeypatch.setattr(cli, "_resume_on_screen", lambda found, *a, **k: resumed.append(found) or 0)
    assert _cli("play", "bisca", "--join", f"{LOOPBACK}:9")[0] == 0
    assert len(resumed) == 1 and resumed[0].manifest.dial == (LOOPBACK, 9)


def test_the_start_screen_joins_a_table_it_left_by_taking_the_seat_up_again(tmp_path):
    from p2pcards.tui.start import _joined_before

    home = tmp_path / "home"
    _, table_id = _saved_table(home)
    me = load_or_create(home)
    back = _joined_before(home, me, LOOPBACK, 9)
    assert back is not None and table_id.hex() in str(back)
    assert _joined_before(home, me, LOOPBACK, 10) is None and _joined_before(None, me, LOOPBACK, 9) is None


def test_a_seated_player_knocking_at_the_lobby_again_is_told_how_to_get_back():
    from types import SimpleNamespace

    from p2pcards.net.handshake import SeatSpec
    from p2pcards.net.host import _Joiner, _Lobby

    spec = REGISTRY.get("bisca")
    lobby = _Lobby(spec, [SeatSpec("bot", "random"), SeatSpec("remote")], set(), Identity.generate("host"), {},
                   None, 30.0)
    games = {"bisca": spec.rules_version}
    player = SimpleNamespace(games=games, signing=b"p" * 32)
    stranger = SimpleNamespace(games=games, signing=b"s" * 32)
    lobby.joiners[1] = _Joiner(1, player, LOOPBACK, None)  # type: ignore[arg-type]
    lobby.free.clear()
    lobby.started = True
    code, reason = lobby.refusal(player)  # type: ignore[arg-type, misc]
    assert code == "seated" and "holds seat 2 of this table" in reason and "p2pcards resume" in reason
    assert lobby.refusal(stranger) == ("full", "every seat at this table is taken")  # type: ignore[arg-type]


def test_play_mentions_an_unfinished_table(tmp_path, monkeypatch, capsys):
    import p2pcards.cli.play as cli  # where `play` looks _is_terminal up
    import p2pcards.tui.app as app

    home = tmp_path / "home"
    monkeypatch.setenv("P2PCARDS_HOME", str(home))
    _, table_id = _saved_table(home)
    monkeypatch.setattr(cli, "_is_terminal", lambda out: True)
    monkeypatch.setattr(app, "play_local", lambda *a, **k: 0)
    assert _cli("play", "sueca")[0] == 0
    err = capsys.readouterr().err
    assert f"unfinished table {table_id.hex()[:8]}" in err and f"`p2pcards resume {table_id.hex()[:8]}`" in err
