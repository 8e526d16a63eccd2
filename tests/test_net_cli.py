"""The host, join and audit commands: help, clear errors, the --json contract."""

from __future__ import annotations

import json
import random
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from p2pcards.cli import main
from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.net import LocalSeat, log_path, make_table, play_in_memory
from p2pcards.players import make_player
from p2pcards.table.transcript import SeatInfo
from p2pcards.table.wire import frame

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    import os

    env = {**os.environ, "P2PCARDS_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], capture_output=True, text=True, env=env,
                          timeout=60, cwd=ROOT)


pytestmark = pytest.mark.usefixtures("home")  # every test has a fresh data directory (conftest)


@pytest.mark.parametrize("cmd", ["host", "join", "audit", "resume"])
def test_help_documents_the_json_contract(cmd, capsys):
    with pytest.raises(SystemExit) as exc:
        main([cmd, "--help"])
    assert exc.value.code == 0
    text = capsys.readouterr().out
    assert "usage: p2pcards" in text and "JSON output (--json)" in text and "Exit status" in text


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["host", "chess"], "unknown game 'chess'"),
        (["host", "sueca", "--seats", "bot,remote"], "the game has 4 seats; --seats names 2"),
        (["host", "sueca", "--seats", "bot,human,remote,remote"], "bad seat 'human' in --seats"),
        (["host", "sueca", "--seats", "bot:genius,remote,remote,remote"], "unknown bot level 'genius'"),
        (["host", "sueca", "-o", "target=9"], "sueca: target must be 4 or 8"),
        (["host", "sueca", "--deals", "0"], "--deals must be at least 1"),
        (["host", "sueca", "--timeout", "0"], "--timeout must be more than 0"),
        (["host", "sueca", "--port", "70000"], "--port must be between 0 and 65535"),
        (["join", ""], "expected a table name or HOST:PORT"),  # a bare name is a LAN table's name
        (["join", "localhost:99999"], "expected HOST:PORT"),
        (["join", ":4000"], "expected HOST:PORT"),
        (["join", "127.0.0.1:4000", "--bot", "genius"], "unknown bot level 'genius'"),
        (["audit", "/nonexistent/seat0.log"], "cannot read /nonexistent/seat0.log"),
        (["host", "sueca", "--seats", "me,remote,remote,remote"], "a 'me' seat is played on the screen"),
        (["play", "sueca", "--host", "--seats", "me,me,remote,remote"], "--seats names 'me' twice"),
        (["play", "sueca", "--host", "--seats", "bot,remote,remote,remote"], "--seats must name one 'me' seat"),
        (["play", "sueca", "--host", "--seats", "me,human,remote,remote"], "each seat is bot, bot:LEVEL, remote or me"),
        (["play", "--host", "--join", "127.0.0.1:4000"], "--host and --join: choose one"),
        (["play", "--join", "localhost:99999"], "expected HOST:PORT"),
        (["play", "sueca", "--host", "--timeout", "0"], "--timeout must be more than 0"),
        (["play", "sueca", "--host"], "a LAN table is played on the full-screen table"),
        (["play", "--join", "127.0.0.1:4000", "--text"], "a LAN table is played on the full-screen table"),
    ],
)
def test_bad_options_exit_2_with_one_clear_line(args, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1, err


def test_a_port_in_use_and_an_unreachable_host_have_clear_errors(home):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = run("host", "sueca", "--bind", "127.0.0.1", "--port", str(port), home=home)
    assert proc.returncode == 2
    assert f"p2pcards: error: cannot listen on 127.0.0.1:{port}" in proc.stderr and "Traceback" not in proc.stderr
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # bound, never listening: connections are refused
        proc = run("join", f"127.0.0.1:{port}", home=home)
    assert proc.returncode == 1
    assert f"p2pcards: error: cannot connect to 127.0.0.1:{port}" in proc.stderr and "Traceback" not in proc.stderr


def test_host_with_only_bots_plays_locally_and_prints_the_contract(cli, home):
    code, out = cli("host", "bisca", "--seats", "bot:random,bot", "--deals", "1", "--bind", "127.0.0.1", "--json")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [obj["type"] for obj in lines] == ["listening", "table", "deal", "final"]
    listening, table, deal, final = lines
    assert listening["address"] == "127.0.0.1" and listening["port"] > 0 and listening["game"] == "bisca"
    assert table["game"] == "bisca" and table["local_seats"] == [0, 1] and table["deals"] == 1
    assert [s["bot"] for s in table["seats"]] == ["random", "heuristic"]
    assert [s["name"] for s in table["seats"]] == ["bot1", "bot2"]  # named as people count seats, from 1
    assert table["seats"][0]["runs_on"] == table["host"]["fingerprint"]
    for key in ("deal", "dealer", "trump", "result", "audit", "totals", "match_over", "winner", "table", "seat"):
        assert key in deal
    assert deal["audit"]["verdict"] == "clean" and deal["seat"] == 0
    assert set(final) >= {"winner", "totals", "transcript_hash", "deals", "log", "table", "seat"}
    log = Path(final["log"])
    assert log.is_file() and log.parent.name == table["table"] and log.is_relative_to(home)


def test_human_output_of_host(cli, home):
    code, out = cli("host", "bisca", "--seats", "bot,bot", "--deals", "1", "--bind", "127.0.0.1")
    assert code == 0
    assert "table for bisca open on 127.0.0.1:" in out and "deal 1: dealer seat " in out and "audit clean" in out
    assert "table over after 1 deal" in out and "deal(s)" not in out and "deal 0:" not in out
    # --deals 1 stops the match before its end: no "over ... no winner yet"
    assert ("stopped before the match's end, no winner" in out or "won by seat" in out) and "no winner yet" not in out
    assert "starts; seats 1: " in out and "; 2: " in out  # seats as people count them


def test_a_host_on_every_interface_names_the_addresses_to_join_and_who_joins_how(monkeypatch):
    import io

    import p2pcards.discovery.interfaces as interfaces
    from p2pcards.cli.printer import _TablePrinter

    for lan, want in ((["192.168.1.20", "10.0.0.5"],
                       "people join with: p2pcards play --join 192.168.1.20:4000 (or 10.0.0.5:4000) (127.0.0.1:4000 "
                       "on this machine); a computer player with: p2pcards join 192.168.1.20:4000"),
                      ([], "people join with: p2pcards play --join 127.0.0.1:4000; a computer player with: "
                           "p2pcards join 127.0.0.1:4000")):
        monkeypatch.setattr(interfaces, "local_addresses", lambda lan=lan: list(lan))
        out = io.StringIO()
        _TablePrinter(out, False).listening("0.0.0.0", 4000, "sueca")
        assert out.getvalue() == f"table for sueca open on 0.0.0.0:4000; {want}\n"
        assert "ADDRESS" not in out.getvalue()


@pytest.mark.parametrize(
    ("content", "message"),
    [(b"", "the file is empty"), (b"\x00\x00\x00\x05abc", "do not make a whole frame"),
     (b"hello world, this is text", "outside 1.."), (frame(b"\x93\x01\x02\x03"), "not a table's genesis")],
)
def test_audit_of_a_file_that_is_not_a_log_exits_2(content, message, tmp_path, capsys):
    path = tmp_path / "seat0.log"
    path.write_bytes(content)
    with pytest.raises(SystemExit) as exc:
        main(["audit", str(path)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "is not a p2pcards transcript log" in err and message in err


def _played_log(tmp_path: Path) -> Path:
    registry = load_games()
    spec = registry.get("bisca")
    host = Identity.generate("host")
    ids = [Identity.generate(f"p{i}") for i in range(2)]
    raw = make_table(host, spec, [SeatInfo(i.name, i.signing_public, i.sealing_public, "random", None) for i in ids],
                     deals=1)
    seats = [LocalSeat(i, make_player("random", spec, random.Random(n))) for n, i in enumerate(ids)]

    async def play() -> None:
        with trio.fail_after(30):
            await play_in_memory(raw, spec, [[seats[0]], [seats[1]]], data_dir=tmp_path)

    trio.run(play)
    from p2pcards.table.transcript import Genesis, parse_message

    table_id = Genesis.from_body(parse_message(raw, None).body).table_id
    return log_path(tmp_path, table_id, 0)


def test_audit_of_a_played_log_and_of_a_flipped_byte(cli, tmp_path):
    pytest.importorskip("p2pcards.table.audit", reason="needs p2pcards.table.audit")
    path = _played_log(tmp_path)
    code, out = cli("audit", str(path), "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True, report
    assert report["game"] == "bisca" and [d["verdict"] for d in report["deals"]] == ["clean"]
    code, text = cli("audit", str(path))
    assert code == 0 and "deal 1: clean" in text and "deal 0" not in text
    data = bytearray(path.read_bytes())
    data[-10] ^= 0x01  # one flipped bit in the last message's signature
    path.write_bytes(bytes(data))
    code, out = cli("audit", str(path), "--json")
    report = json.loads(out)
    assert code == 1 and report["ok"] is False and report["error"] is not None, report
    assert "signature" in report["error"]["reason"]
    code, text = cli("audit", str(path))
    assert code == 1 and f"error at message seq {report['error']['seq']}" in text and "FAULT" in text


def test_audit_of_several_logs_says_whether_they_are_one_transcript(cli, tmp_path):
    one = _played_log(tmp_path / "a")
    other_seat = one.with_name("seat1.log")
    beginning = tmp_path / "beginning.log"
    beginning.write_bytes(b"".join(frame(m) for m in _frames(one)[:5]))
    code, out = cli("audit", str(one), str(other_seat), str(beginning), "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] and report["agree"] and report["disagreements"] == [], report
    assert [[d["verdict"] for d in r["deals"]] for r in report["logs"][:2]] == [["clean"], ["clean"]]
    stranger = _played_log(tmp_path / "b")  # another table: its genesis differs
    code, out = cli("audit", str(one), str(stranger), "--json")
    report = json.loads(out)
    assert code == 1 and not report["ok"] and not report["agree"]
    assert report["disagreements"] == [{"path": str(stranger), "with": str(one), "seq": 0}] or (
        report["disagreements"] == [{"path": str(one), "with": str(stranger), "seq": 0}])
    code, text = cli("audit", str(one), str(stranger))
    assert code == 1 and "DISAGREE" in text and "at seq 0" in text


def test_audit_of_a_log_cut_short_by_a_crash_audits_what_is_there_and_warns(cli, tmp_path):
    """The torn last frame `resume` cuts off is a warning to `audit`, not a refusal."""
    path = _played_log(tmp_path)
    frames = _frames(path)
    data = path.read_bytes()
    last = frame(frames[-1])
    path.write_bytes(data[: len(data) - len(last) // 2])  # the last write, cut in half
    cut = len(last) - len(last) // 2
    code, out = cli("audit", str(path), "--json")
    report = json.loads(out)
    assert code == 0 and report["ok"] is True, report
    assert report["torn_tail"] == {"bytes": cut, "seq": len(frames) - 1}
    assert report["error"] is None and [d["verdict"] for d in report["deals"]] in (["clean"], ["incomplete"])
    code, text = cli("audit", str(path))
    assert code == 0 and "OK: totals" in text
    assert f"WARNING: the last {cut} bytes do not make a whole frame: message seq {len(frames) - 1}" in text
    # several logs: the torn one is a beginning of the whole one, and each report says whether it is torn
    whole = path.with_name("seat1.log")
    code, out = cli("audit", str(path), str(whole), "--json")
    report = json.loads(out)
    assert code == 0 and report["agree"], report
    assert report["logs"][0]["torn_tail"]["bytes"] == cut and report["logs"][1]["torn_tail"] is None
    # a sound log says it is not torn
    code, out = cli("audit", str(whole), "--json")
    assert code == 0 and json.loads(out)["torn_tail"] is None


def test_audit_refuses_a_log_damaged_before_its_end(tmp_path, capsys):
    path = _played_log(tmp_path)
    frames = _frames(path)
    garbage = tmp_path / "garbage.log"  # garbage, then good data
    garbage.write_bytes(b"".join(frame(m) for m in frames[:20]) + b"\xff" * 8 + b"".join(frame(m) for m in frames[20:]))
    with pytest.raises(SystemExit) as exc:
        main(["audit", str(garbage)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"{garbage} is damaged after its first 20 message(s)" in err and "Traceback" not in err
    assert err.count("\n") == 1
    torn = tmp_path / "torn-inside.log"  # a frame cut in half in the middle, the rest after it
    torn.write_bytes(b"".join(frame(m) for m in frames[:20]) + frame(frames[20])[:40]
                     + b"".join(frame(m) for m in frames[21:]))
    proc = run("audit", str(torn), home=tmp_path)
    assert proc.returncode in (1, 2) and "Traceback" not in proc.stderr
    assert "damaged after its first" in proc.stderr or "FAULT" in proc.stdout, (proc.stdout, proc.stderr)


def test_audit_of_a_log_whose_genesis_does_not_verify_says_so(cli, tmp_path):
    """No "table None of None": a genesis that parses but does not verify names no table."""
    from p2pcards.table.transcript import HOST, ZERO_HASH, sign_message

    host = Identity.generate("host")
    raw = sign_message(host, table=bytes(32), deal=0, seq=0, prev=ZERO_HASH, author=HOST, kind="genesis",
                       body={"host": {"signing": host.signing_public, "name": "host"}, "game": "bisca"})
    path = tmp_path / "seat0.log"
    path.write_bytes(frame(raw))
    code, text = cli("audit", str(path))
    assert code == 1 and "None" not in text, text
    assert "a transcript of 1 message whose genesis" in text and "does not verify" in text
    assert "error at message seq 0 (unattributed): bad genesis" in text and "FAULT" in text


def _frames(path: Path) -> list[bytes]:
    from p2pcards.net.store import FrameFile

    return FrameFile.read(path)


def test_resume_says_that_tables_of_an_older_version_cannot_be_resumed(cli, home, capsys):
    from p2pcards.table.wire import pack

    old = home / "tables" / ("ab" * 32)
    old.mkdir(parents=True)
    (old / "join.mesh").write_bytes(pack({"v": 1, "role": "join", "table": bytes(32)}))
    code, _ = cli("resume")
    assert code == 1
    err = capsys.readouterr().err
    assert "no unfinished table" in err and "1 table(s) there were saved by an older p2pcards" in err
    code, out = cli("resume", "--list")
    assert code == 0 and "saved by an older p2pcards" in out and "cannot be resumed" in out
