"""Away and back on a LAN of network namespaces (``tests/lan.py``; nothing leaves them): a
peer's link cut past the table's timeout then restored, a cut shorter than the timeout,
and a LAN with delay and loss.  Every log ends a beginning of (or equal to) the table's
transcript, audits agree, and nobody but the cut-off seat is voted out.  Needs root and
iproute2 (and the kernel's netem for delay and loss); skipped with the reason otherwise."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from p2pcards.core import load_games
from p2pcards.net import log_path
from p2pcards.table.wire import unpack
from tests.lan import Lan, Proc, built
from tests.procs import frames, one_transcript

REGISTRY = load_games()
#: Short, for a quick test, but not so short that four processes on a shared two-core machine
#: (each checking every shuffle proof) stall past it: at 3 s an honest seat was once voted out
#: in a full run of the suite.
TIMEOUT = 4.0


@pytest.fixture
def lan() -> Any:
    yield from built(4)


def _link(lan: Lan, i: int, state: str) -> None:
    """Set host ``i``'s port on the switch up or down (its cable, pulled or plugged)."""
    subprocess.run(["ip", "-n", lan.switch, "link", "set", f"port{i}", state], check=True, timeout=10)


def _table(lan: Lan, tmp: Path, deals: int, linger: float = 5) -> tuple[dict[int, Proc], bytes]:
    """A Copas table: host 1 runs the host process (a bot in seat 0), hosts 2..4 a joiner
    each (seats 1..3, in order)."""
    host = lan.spawn(1, "host", "copas", "--seats", "bot:random,remote,remote,remote", "--deals", str(deals),
                     "--timeout", str(TIMEOUT), "--linger", str(linger), "--json", "--no-announce", home=tmp / "h0")
    port = host.next_json(lambda o: o.get("type") == "listening")["port"]
    procs = {0: host}
    for seat in (1, 2, 3):
        procs[seat] = lan.spawn(seat + 1, "join", f"{lan.address(1)}:{port}", "--bot", "random", "--json",
                                "--linger", str(linger), home=tmp / f"h{seat}")
        procs[seat].next_json(lambda o: o.get("type") == "seated")
    table = host.next_json(lambda o: o.get("type") == "table")
    return procs, bytes.fromhex(table["table"])


def _until_logged(path: Path, n: int, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while len(frames(path)) < n:
        assert time.monotonic() < deadline, f"{path} did not reach {n} messages"
        time.sleep(0.05)


def _check(tmp: Path, table: bytes, absent: int | None) -> dict[str, Any]:
    """:func:`tests.procs.one_transcript` of the four seats' logs: the audit; and no healthy
    seat ever signed a vote against a seat other than ``absent`` (its side file keeps every
    vote it cast, whether or not the vote completed; the cut-off seat itself, hearing
    nobody, may vote against anyone: nobody gets its votes)."""
    for s in range(4):
        if s == absent:
            continue
        path = log_path(tmp / f"h{s}", table, s).with_suffix(".side")
        against = {unpack(unpack(v)[0])["body"]["against"] for v in (frames(path) if path.exists() else [])
                   if unpack(unpack(v)[0])["kind"] == "vote"}
        assert against <= ({absent} if absent is not None else set()), f"seat {s} voted against {sorted(against)}"
    return one_transcript({s: frames(log_path(tmp / f"h{s}", table, s)) for s in range(4)}, REGISTRY, absent)[1]


@pytest.mark.slow
def test_a_link_cut_shorter_than_the_timeout_changes_nothing(lan, tmp_path):
    procs, table = _table(lan, tmp_path, deals=6, linger=5)
    _until_logged(log_path(tmp_path / "h2", table, 2), 30)
    _link(lan, 3, "down")  # host 3 runs seat 2
    time.sleep(TIMEOUT / 3)
    _link(lan, 3, "up")
    codes = {s: p.wait(120) for s, p in procs.items()}
    assert all(c == 0 for c in codes.values()), {s: p.describe() for s, p in procs.items() if codes[s]}
    report = _check(tmp_path, table, None)
    assert report["votes"] == [], "a cut shorter than the timeout changes nothing"
    logs = {bytes(b"".join(frames(log_path(tmp_path / f"h{s}", table, s)))) for s in range(4)}
    assert len(logs) == 1
    finals = [p.next_json(lambda o: o.get("type") == "final", timeout=1) for p in procs.values()]
    assert len({f["transcript_hash"] for f in finals}) == 1


@pytest.mark.slow
def test_a_link_cut_past_the_timeout_then_resumed(lan, tmp_path):
    """The cut-off process gives up after twice the timeout (the table left to resume); the
    others vote its seat out and play on; plugged back in, ``p2pcards resume`` catches up
    and ends on the table's transcript."""
    procs, table = _table(lan, tmp_path, deals=12, linger=60)
    _until_logged(log_path(tmp_path / "h2", table, 2), 30)
    _link(lan, 3, "down")
    cut = procs[2]
    assert cut.wait(4 * TIMEOUT + 10) == 1, cut.describe()
    assert "silent" in "".join(cut.out + cut.err)
    _link(lan, 3, "up")
    again = lan.spawn(3, "resume", "--json", "--linger", "5", home=tmp_path / "h2")
    procs[2] = again
    codes = {s: p.wait(120) for s, p in procs.items()}
    assert all(c == 0 for c in codes.values()), {s: p.describe() for s, p in procs.items() if codes[s]}
    try:
        report = _check(tmp_path, table, 2)
    except AssertionError as exc:  # what each process said, to tell a stall from a bug
        raise AssertionError(f"{exc}\n" + "\n".join(p.describe() for p in procs.values())) from None
    assert [v["seat"] for v in report["votes"]] == [2], report["votes"]
    finals = [p.next_json(lambda o: o.get("type") == "final", timeout=1) for p in procs.values()]
    assert len({f["transcript_hash"] for f in finals}) == 1, "the resumed seat ends on the table's transcript"
    assert [f["voted_out"] for f in finals] == [False, False, True, False], finals


def test_a_table_on_a_lan_with_delay_and_loss(lan, tmp_path):
    for ns in lan.hosts:
        made = subprocess.run(["ip", "netns", "exec", ns, "tc", "qdisc", "add", "dev", "lan0", "root", "netem",
                               "delay", "50ms", "20ms", "loss", "5%"], capture_output=True, text=True, timeout=10)
        if made.returncode != 0:
            pytest.skip(f"no netem here (tc says: {made.stderr.strip()})")
    procs, table = _table(lan, tmp_path, deals=3)
    codes = {s: p.wait(180) for s, p in procs.items()}
    assert all(c == 0 for c in codes.values()), {s: p.describe() for s, p in procs.items() if codes[s]}
    report = _check(tmp_path, table, None)
    assert report["votes"] == [] and [d["verdict"] for d in report["deals"]] == ["clean"] * 3
