"""Dishonest peers as real processes over TCP on loopback (``python -m tests.attackers``)
against honest ``p2pcards host`` and ``p2pcards join`` processes: a retroactive vote, an
instant vote, a lone vote in Bisca, an equivocation, a card copied in a shuffle, a made-up
deck sent to learn the next step's secrets, a ground first dealer; and integrity, round
three: a voter framed after its process was killed and resumed, a forged close shown to
one voter, a losing two-seat match abandoned, two forks in
one deal shown in two orders, the lower playing seat's takeup signed at two places.  For
each: the honest processes end with byte-identical logs and the same verdicts, the right
seat is blamed (or nobody when the attack changes nothing), no scored deal is lost, no
honest seat is pushed out, and every process exits."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from p2pcards.core import load_games
from p2pcards.net import log_path
from p2pcards.table.audit import audit_transcript
from p2pcards.table.transcript import message_hash
from p2pcards.table.wire import FrameDecoder
from tests.procs import LOOPBACK, Proc, frames, until
from tests.table_helpers import header

REGISTRY = load_games()


def _table(tmp: Path, game: str, kind: str, deals: int, *options: str) -> dict[str, Any]:
    """A host (a random bot in seat 0), honest joiners and the attacker in the last seat;
    every process run to its end (``deals`` 0: the match to its end).  Returns what each printed and the table id."""
    seats = 4 if game != "bisca" else 2
    spec = ",".join(["bot:random"] + ["remote"] * (seats - 1))
    host = Proc(tmp, "host", tmp / "host", "host", game, "--bind", LOOPBACK, "--seats", spec,
                 *(["--deals", str(deals)] if deals else []), "--timeout", "4", "--linger", "1", "--json",
                 "--no-announce", *options)
    procs = [host]
    try:
        port = until("the host to listen", lambda: host.lines()[:1])[0]["port"]
        address = f"{LOOPBACK}:{port}"
        procs += _joiners(tmp, address, range(1, seats - 1))
        attacker = Proc(tmp, "attacker", tmp / "attacker", kind, address, module="tests.attackers")
        procs.append(attacker)
        codes = [p.wait(120) for p in procs]
    finally:
        for p in procs:
            p.kill()
    for p in procs:
        assert "Traceback" not in p.err_path.read_text(), p.err_path.read_text()[-3000:]
    table = next(x for x in host.lines() if x["type"] == "table")
    return {"procs": procs, "codes": codes, "table": bytes.fromhex(table["table"]), "seats": seats}


def _joiners(tmp: Path, address: str, seats: Iterable[int]) -> list[Proc]:
    """Honest ``p2pcards join --bot random`` processes for ``seats``, each seated in turn."""
    out = []
    for s in seats:
        joiner = Proc(tmp, f"join{s}", tmp / f"j{s}", "join", address, "--bot", "random", "--json", "--linger", "1")
        out.append(joiner)
        until(f"joiner {s} to be seated", lambda j=joiner: j.lines()[:1])
    return out


def _honest_logs(tmp: Path, run: dict[str, Any]) -> list[bytes]:
    table_id, seats = run["table"], run["seats"]
    logs = [log_path(tmp / "host", table_id, 0).read_bytes()]
    logs += [log_path(tmp / f"j{s}", table_id, s).read_bytes() for s in range(1, seats - 1)]
    return logs


def _check(tmp: Path, run: dict[str, Any], blamed: int | None, pushed: int | None = None) -> dict[str, Any]:
    """The honest processes agree; ``blamed`` lost the first deal (None: all clean); nobody
    is voted out but ``pushed`` (the cheat, when it cannot follow the table it cheated)."""
    procs, codes = run["procs"], run["codes"]
    attacker = procs[-1]
    tried = next(x for x in attacker.lines() if x["type"] == "tried")["tried"]
    assert tried, "the attack happened"
    assert all(code == 0 for code in codes[:-1]), [p.err_path.read_text()[-2000:] for p in procs]
    logs = _honest_logs(tmp, run)
    assert len(set(logs)) == 1, "the honest processes hold the same transcript, byte for byte"
    finals = [next(x for x in p.lines() if x["type"] == "final") for p in procs[:-1]]
    assert len({f["transcript_hash"] for f in finals}) == 1
    deals = [[x for x in p.lines() if x["type"] == "deal"] for p in procs[:-1]]
    assert all([d["audit"] for d in ds] == [d["audit"] for d in deals[0]] for ds in deals)
    report = audit_transcript(FrameDecoder().feed(logs[0]), REGISTRY)
    assert report["error"] is None and all(v["seat"] == pushed for v in report["votes"]), "no honest seat pushed out"
    assert set(report["dummies"]) <= ({pushed} if pushed is not None else set())
    verdicts = [(d["verdict"], d["seat"]) for d in report["deals"]]
    if blamed is None:
        assert report["ok"] and all(v == ("clean", None) for v in verdicts), verdicts
    else:
        assert verdicts[0][1] == blamed and verdicts[0][0] == "fault", verdicts
    assert len(report["deals"]) == finals[0]["deals"], "no scored deal was lost"
    return report


def test_a_retroactive_vote_by_a_process_undoes_nothing(tmp_path):
    run = _table(tmp_path, "sueca", "retro-vote", 2, "-o", "target=8")
    _check(tmp_path, run, None)


def test_an_instant_vote_by_a_process_pushes_nobody_out(tmp_path):
    run = _table(tmp_path, "sueca", "instant-vote", 1)
    _check(tmp_path, run, None)


def test_a_lone_vote_in_bisca_by_a_process_is_refused(tmp_path):
    run = _table(tmp_path, "bisca", "lone-vote", 1)
    _check(tmp_path, run, None)


def test_an_equivocating_process_is_blamed_by_every_honest_one(tmp_path):
    run = _table(tmp_path, "sueca", "equivocate-loud", 2, "-o", "target=8")
    report = _check(tmp_path, run, 3)
    assert report["deals"][0]["kind"] == "equivocation"


def test_a_process_that_copies_a_card_in_its_shuffle_is_refused_before_any_card_is_dealt(tmp_path):
    run = _table(tmp_path, "sueca", "copy", 2, "-o", "target=8")
    report = _check(tmp_path, run, 3, pushed=3)
    first = report["deals"][0]
    assert first["kind"] == "bad-shuffle" and "proof" in first["reason"], first
    log = FrameDecoder().feed(_honest_logs(tmp_path, run)[0])
    sent = [m["kind"] for raw in log if header(raw)["kind"] == "deck" and header(raw)["deal"] == 0
            for m in header(raw)["body"]["msgs"]]
    assert "shuffle" in sent and "keys" not in sent, "no card of that deal was ever dealt: the cheat saw none"


def test_a_process_that_sends_a_made_up_deck_learns_no_card(tmp_path):
    """The last shuffler sends a deck of its own making; seat 0 locks it before it checks
    the shuffle's proof (pipelined proofs), so the prober learns seat 0's lock factors times
    the base -- and nothing more: every honest process blames it at the end of the lock
    round and no key of that deal ever leaves a process."""
    run = _table(tmp_path, "sueca", "probe", 2, "-o", "target=8")
    report = _check(tmp_path, run, 3, pushed=3)
    first = report["deals"][0]
    assert first["kind"] == "bad-shuffle" and "proof" in first["reason"], first
    tried = next(x for x in run["procs"][-1].lines() if x["type"] == "tried")["tried"]
    assert "learned seat 0's lock factors times the base" in tried, tried
    log = FrameDecoder().feed(_honest_logs(tmp_path, run)[0])
    sent = [m["kind"] for raw in log if header(raw)["kind"] == "deck" and header(raw)["deal"] == 0
            for m in header(raw)["body"]["msgs"]]
    assert sent.count("lock") == 4 and set(sent) <= {"commit", "shuffle", "lock"}, sent


def test_a_made_up_deck_is_blamed_by_a_process_killed_and_resumed_in_the_rounds(tmp_path):
    """The prober (seat 3) says when it is about to send its made-up deck; seat 1's process
    is killed (SIGKILL) then, after its own shuffle and before any lock, and taken up again
    with ``p2pcards resume``: rebuilt from its log, it locks the deck it is given like the
    others and blames the prober at the end of the lock round with them."""
    host = Proc(tmp_path, "host", tmp_path / "host", "host", "sueca", "--bind", LOOPBACK, "--seats",
                "bot:random,remote,remote,remote", "--deals", "2", "-o", "target=8", "--timeout", "10",
                "--linger", "1", "--json", "--no-announce")
    procs = [host]
    again = None
    live: list[Proc] = []
    try:
        port = until("the host to listen", lambda: host.lines()[:1])[0]["port"]
        address = f"{LOOPBACK}:{port}"
        procs += _joiners(tmp_path, address, (1, 2))
        attacker = Proc(tmp_path, "attacker", tmp_path / "attacker", "probe-after-a-pause", address,
                        module="tests.attackers")
        procs.append(attacker)
        until("the prober to be about to send its deck", lambda: _attack_line(attacker, "probing"), 60)
        procs[1].proc.send_signal(signal.SIGKILL)
        procs[1].proc.wait(10)
        again = Proc(tmp_path, "join1-again", tmp_path / "j1", "resume", "--json", "--linger", "1")
        live = [host, again, procs[2], attacker]
        codes = [p.wait(120) for p in live]
    finally:
        for p in [*procs, *([again] if again else [])]:
            p.kill()
    for p in live:
        assert "Traceback" not in p.stderr, p.stderr[-3000:]
    table_id = bytes.fromhex(next(x for x in host.lines() if x["type"] == "table")["table"])
    run = {"procs": live, "codes": codes, "table": table_id, "seats": 4}
    report = _check(tmp_path, run, 3, pushed=3)
    assert again.lines()[0]["type"] == "resumed", again.lines()[:1]
    assert report["deals"][0]["kind"] == "bad-shuffle", report["deals"][0]
    log = FrameDecoder().feed(_honest_logs(tmp_path, run)[0])
    sent = [m["kind"] for raw in log if header(raw)["kind"] == "deck" and header(raw)["deal"] == 0
            for m in header(raw)["body"]["msgs"]]
    assert sent.count("lock") == 4 and set(sent) <= {"commit", "shuffle", "lock"}, sent



    """The last seat to commit, a process of its own, tries seeds until the deal id would
    draw it as the first dealer: the dealer is drawn from the locked deck, the same at every
    process; the deals audit clean and nobody is blamed (what it tried is in-memory's
    tests/test_attacks_integrity.py, over many tables)."""
    run = _table(tmp_path, "copas", "grind-dealer", 1)
    _check(tmp_path, run, None)
    dealers = {next(x for x in p.lines() if x["type"] == "deal")["dealer"] for p in run["procs"]}
    assert len(dealers) == 1, "every process, the attacker's too, draws the same dealer"


# ---------------------------------------------------------------- integrity, round three, as processes
def _attack_line(attacker: Proc, step: str) -> dict[str, Any] | None:
    return next((x for x in attacker.lines() if x.get("type") == "attack" and x.get("step") == step), None)


def test_a_voter_killed_and_resumed_in_the_deal_is_never_framed_for_equivocation(tmp_path):
    """Attack 1 as processes: the attacker (seat 3) holds its first play back until seats 1
    and 2 have voted against it -- the host's process (seat 0) is stopped meanwhile, so it
    neither votes nor answers -- then sends it; let go, the host answers the votes with a
    nay that carries the play, and the voters take it.  Seat 1's process is then killed
    (SIGKILL) and taken up again with ``p2pcards resume`` within the deal, and the attacker
    sends it seat 2's vote for that place again and again: a restarted voter that forgot its
    own vote would answer with a nay, and its vote and nay would blame it for a fork.  It
    remembers (its votes and nays are on disk): nobody honest is blamed or pushed out, the
    honest processes end on one transcript."""
    seats = 4
    host = Proc(tmp_path, "host", tmp_path / "host", "host", "copas", "--bind", LOOPBACK, "--seats",
                "bot:random,remote,remote,remote", "--deals", "1", "--timeout", "4", "--linger", "1", "--json",
                "--no-announce")
    procs = [host]
    again = None
    try:
        port = until("the host to listen", lambda: host.lines()[:1])[0]["port"]
        address = f"{LOOPBACK}:{port}"
        procs += _joiners(tmp_path, address, (1, 2))
        attacker = Proc(tmp_path, "attacker", tmp_path / "attacker", "frame-voters", address,
                        module="tests.attackers")
        procs.append(attacker)
        k = until("the attacker to hold its play back", lambda: _attack_line(attacker, "holding"), 60)["seq"]
        host.signal(signal.SIGSTOP)  # (its clock has not run out: the attacker was due for less than the timeout)
        until("the attacker to send its play", lambda: _attack_line(attacker, "released"), 30)
        host.signal(signal.SIGCONT)
        table_id = bytes.fromhex(next(x for x in host.lines() if x["type"] == "table")["table"])
        one = log_path(tmp_path / "j1", table_id, 1)
        until("seat 1 to take the play from a nay", lambda: len(frames(one)) > k + 1)
        procs[1].proc.send_signal(signal.SIGKILL)
        procs[1].proc.wait(10)
        side = FrameDecoder().feed(one.with_suffix(".side").read_bytes())
        assert any(header(v)["kind"] == "vote" and header(v)["seq"] == k for v in side), "seat 1 voted at k"
        again = Proc(tmp_path, "join1-again", tmp_path / "j1", "resume", "--json", "--linger", "1")
        live = [host, again, procs[2], attacker]
        codes = [p.wait(120) for p in live]
    finally:
        for p in [*procs, *([again] if again else [])]:
            p.kill()
    for p in live:
        assert "Traceback" not in p.stderr, p.stderr[-3000:]
    run = {"procs": live, "codes": codes, "table": table_id, "seats": seats}
    report = _check(tmp_path, run, None)
    assert again.lines()[0]["type"] == "resumed", again.lines()[:1]
    log = FrameDecoder().feed(_honest_logs(tmp_path, run)[0])
    assert "fork" not in [header(raw)["kind"] for raw in log], "no voter was framed"
    nays = [header(raw) for raw in FrameDecoder().feed(one.with_suffix(".side").read_bytes())]
    assert not [n for n in nays if n["kind"] == "nay" and n["seq"] == k], "seat 1 never nayed where it voted"
    tried = next(x for x in attacker.lines() if x["type"] == "tried")["tried"]
    assert not any("fork of seat" in t for t in tried), tried
    assert report["votes"] == []


@pytest.mark.slow
def test_a_forged_close_shown_to_one_voter_does_not_split_the_voters(tmp_path):
    """Attack 2 as processes: seat 1 (an honest process, slow once: it thinks past the
    timeout) is voted against by seats 0 and 2; the attacker (seat 3) withholds its vote.
    When seat 1's late play comes, the attacker signs its own seed for the place after it,
    wraps it as a ``close`` and shows it to seat 0 alone -- as proof that the table went on
    past the play seat 0 holds aside -- then votes, which completes the outvote.  A close of
    one seed proves nothing (a close seat 0 may take holds the seed of every seat playing,
    and seat 0 never revealed its own there: either check alone refuses it; with both gone
    seat 0 takes the play and the voters part): seat 0 takes the outvote as seat 2 does, the
    two voters stay on one chain, and seat 1 -- silent past the timeout, so voted out by the
    rules -- follows the table to its end as the others do."""
    host = Proc(tmp_path, "host", tmp_path / "host", "host", "copas", "--bind", LOOPBACK, "--seats",
                "bot:random,remote,remote,remote", "--deals", "1", "--timeout", "5", "--linger", "1", "--json",
                "--no-announce")
    procs = [host]
    try:
        port = until("the host to listen", lambda: host.lines()[:1])[0]["port"]
        address = f"{LOOPBACK}:{port}"
        slow = Proc(tmp_path, "slow", tmp_path / "j1", "slow", address, module="tests.attackers")
        procs.append(slow)
        until("seat 1 to be seated", lambda: slow.lines()[:1])
        two = Proc(tmp_path, "join2", tmp_path / "j2", "join", address, "--bot", "random", "--json", "--linger", "1")
        procs.append(two)
        until("seat 2 to be seated", lambda: two.lines()[:1])
        attacker = Proc(tmp_path, "attacker", tmp_path / "attacker", "forge-close", address,
                        module="tests.attackers")
        procs.append(attacker)
        codes = [p.wait(120) for p in procs]
    finally:
        for p in procs:
            p.kill()
    for p in procs:
        assert "Traceback" not in p.stderr, p.stderr[-3000:]
    assert codes[:3] == [0, 0, 0], [p.stderr[-2000:] for p in procs]
    k = next(x for x in attacker.lines() if x.get("step") == "forged")["seq"]
    assert next(x for x in slow.lines() if x.get("step") == "asleep")["seq"] == k
    table_id = bytes.fromhex(next(x for x in host.lines() if x["type"] == "table")["table"])
    logs = [log_path(tmp_path / "host", table_id, 0).read_bytes(), log_path(tmp_path / "j2", table_id, 2).read_bytes()]
    assert logs[0] == logs[1], "the two voters hold the same transcript, byte for byte"
    finals = [next(x for x in p.lines() if x["type"] == "final") for p in procs]
    assert len({f["transcript_hash"] for f in finals[:3]}) == 1, "seat 1 followed the table to its end too"
    log = FrameDecoder().feed(logs[0])
    outvote = header(log[k])
    assert outvote["kind"] == "outvote" and outvote["body"]["against"] == 1, outvote
    assert sorted(outvote["body"]["voters"]) == [0, 2, 3], "the attacker's vote completed it"
    report = audit_transcript(log, REGISTRY)
    assert report["error"] is None and [v["seat"] for v in report["votes"]] == [1]
    assert report["dummies"] == [1], "nobody but the seat silent past the timeout is out"
    assert [(d["verdict"], d["seat"]) for d in report["deals"]] == [("vote-out", 1)]
    tried = next(x for x in attacker.lines() if x["type"] == "tried")["tried"]
    assert any("a close of its seed alone" in t for t in tried), tried


def test_a_process_that_abandons_a_losing_two_seat_match_has_the_loss_recorded(tmp_path):
    """Attack 4 as processes: at a Bisca table of two, the attacker abandons the match the
    moment a closed deal has left it behind (and the other seat is due).  It may -- nobody can
    vote at a table of two -- but the loss stays: the transcript's abandon, the audit, both
    processes' final lines and the host's history (``p2pcards history --json``) say the
    match was abandoned, with no winner, by whom, in which deal and with which totals."""
    run = _table(tmp_path, "bisca", "abandon-losing", 0, "-o", "target=8")
    procs, codes = run["procs"], run["codes"]
    attacker = procs[-1]
    tried = next(x for x in attacker.lines() if x["type"] == "tried")["tried"]
    assert tried and "abandoned" in tried[-1], "the attack happened"
    assert codes == [0, 0], [p.stderr[-2000:] for p in procs]
    table_id = run["table"]
    logs = [log_path(tmp_path / "host", table_id, 0).read_bytes(),
            log_path(tmp_path / "attacker", table_id, 1).read_bytes()]
    assert logs[0] == logs[1], "both replicas hold the same transcript, the abandon last"
    log = FrameDecoder().feed(logs[0])
    assert header(log[-1])["kind"] == "abandon" and header(log[-1])["author"] == 1
    report = audit_transcript(log, REGISTRY)
    abandoned = report["abandoned"]
    assert report["winner"] is None and abandoned["by"] == 1, report
    totals = abandoned["totals"]
    assert totals[1] < totals[0] and abandoned["behind"] == totals[0] - totals[1]
    assert abandoned["deal"] == len(report["deals"]) - (report["deals"][-1]["verdict"] == "incomplete")
    assert report["votes"] == [] and report["dummies"] == [], "nobody was voted out"
    assert all(d["seat"] in (None, 1) for d in report["deals"]), "no verdict against the honest seat"
    finals = [next(x for x in p.lines() if x["type"] == "final") for p in procs]
    assert finals[0]["abandoned"] == finals[1]["abandoned"] == abandoned
    assert finals[0]["transcript_hash"] == finals[1]["transcript_hash"] == report["transcript_hash"]
    history = Proc(tmp_path, "history", tmp_path / "host", "history", "--json")
    assert history.wait(60) == 0, history.stderr
    match = json.loads(history.out_path.read_text())["matches"][0]
    assert match["ended"] == "abandoned" and match["winner"] is None and match["totals"] == totals, match
    assert match["abandoned"] == abandoned, "the history says who abandoned, in which deal, how far behind"
    rebuilt = Proc(tmp_path, "rebuilt", tmp_path / "host", "history", "--rebuild", "--json")
    assert rebuilt.wait(60) == 0, rebuilt.stderr
    assert json.loads(rebuilt.out_path.read_text())["matches"][0]["abandoned"] == abandoned, "and so do its transcripts"


def test_two_forks_in_one_deal_by_a_process_shown_in_two_orders_end_on_one_chain(tmp_path):
    """Attack 5 as processes: the attacker (seat 3) signs a second message for two places of
    its own in deal 0, an early one and a late one, and shows seats 0 and 1 the late fork
    first, seat 2 the early one; once each has taken the fork it saw (and revealed its seed
    there) it shows each the other.  Every honest process goes back to the early fork and
    ends on one transcript, the deal's fault on the attacker, nobody honest voted out."""
    run = _table(tmp_path, "copas", "two-forks", 2)
    report = _check(tmp_path, run, 3)
    assert report["deals"][0]["kind"] == "equivocation", report["deals"][0]
    forked = next(x for x in run["procs"][-1].lines() if x.get("step") == "forked")
    log = FrameDecoder().feed(_honest_logs(tmp_path, run)[0])
    forks = [i for i, raw in enumerate(log) if header(raw)["kind"] == "fork"]
    assert forks == [forked["early"]], f"the table went back to the early fork ({forked}), not {forks}"
    tried = next(x for x in run["procs"][-1].lines() if x["type"] == "tried")["tried"]
    assert any("the other one" in t for t in tried), tried


@pytest.mark.slow  # a match, a resume that waits 8 s for nobody, and the match again: some 25 s
def test_an_abandoned_two_seat_match_is_taken_up_again_when_both_processes_resume_it(tmp_path):
    """After an abandon (the attacker's, once a deal has closed), both processes run
    `p2pcards resume ID`: each writes its takeup once linked, the abandoned deal closes void,
    and the match is played on to a winner -- one transcript, both takeups in it, the audit
    clean, the abandon still listed with the end.  Before, `resume --list` says the table
    can be taken up again; resumed alone first, it waits twice the timeout for the other seat
    and gives up, and the table stays abandoned."""
    run = _table(tmp_path, "bisca", "abandon-after-a-deal", 0, "-o", "target=8")
    assert run["codes"] == [0, 0], [p.stderr[-2000:] for p in run["procs"]]
    assert next(x for x in run["procs"][-1].lines() if x["type"] == "tried")["tried"], "the abandon happened"
    table_hex = run["table"].hex()
    listed = Proc(tmp_path, "list", tmp_path / "host", "resume", "--list", "--json")
    assert listed.wait(60) == 0, listed.stderr
    saved = next(x for x in listed.lines() if x["table"] == table_hex)
    assert saved["state"] == "abandoned" and saved["may_take_up"], saved
    said = Proc(tmp_path, "list-text", tmp_path / "host", "resume", "--list")
    assert said.wait(60) == 0 and f"p2pcards resume {table_hex[:8]}" in said.wait_output(5)
    alone = Proc(tmp_path, "alone", tmp_path / "host", "resume", table_hex[:16], "--json", "--linger", "1")
    assert alone.wait(60) == 1, "nobody came to take it up: resume gives up"
    assert "was not taken up again" in alone.stderr and "It stays abandoned" in alone.stderr, alone.stderr
    still = Proc(tmp_path, "still", tmp_path / "host", "resume", "--list", "--json")
    assert still.wait(60) == 0
    assert next(x for x in still.lines() if x["table"] == table_hex)["may_take_up"], "and it can be taken up later"
    homes = {"host": tmp_path / "host", "attacker": tmp_path / "attacker"}
    procs = [Proc(tmp_path, f"{name}-resume", home, "resume", table_hex[:16], "--json", "--linger", "1")
             for name, home in homes.items()]
    try:
        codes = [p.wait(120) for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert codes == [0, 0], [p.stderr[-3000:] for p in procs]
    for p in procs:
        assert "Traceback" not in p.err_path.read_text(), p.err_path.read_text()[-3000:]
        assert next(x for x in p.lines() if x["type"] == "resumed")["taking_up"]
    logs = [log_path(tmp_path / "host", run["table"], 0).read_bytes(),
            log_path(tmp_path / "attacker", run["table"], 1).read_bytes()]
    assert logs[0] == logs[1], "both processes hold the same transcript"
    log = FrameDecoder().feed(logs[0])
    assert sorted(header(raw)["author"] for raw in log if header(raw)["kind"] == "takeup") == [0, 1]
    report = audit_transcript(log, REGISTRY)
    assert report["ok"] and report["finished"] and report["winner"] is not None, report
    assert report["abandoned"] is None and [a["by"] for a in report["abandons"]] == [1]
    assert report["abandons"][0]["taken_up"]
    void = report["deals"][report["abandons"][0]["deal"]]
    assert void["verdict"] == "void" and void["kind"] == "abandon", void
    finals = [[x for x in p.lines() if x["type"] == "final"][-1] for p in procs]
    assert finals[0]["transcript_hash"] == finals[1]["transcript_hash"] == report["transcript_hash"]
    assert finals[0]["winner"] == report["winner"] and finals[0]["abandons"] == report["abandons"]
    assert all(any(x["type"] == "taken_up" for x in p.lines()) for p in procs)
    audit = Proc(tmp_path, "audit", tmp_path / "host", "audit", str(log_path(tmp_path / "host", run["table"], 0)))
    assert audit.wait(60) == 0 and "taken up again" in audit.wait_output(5), audit.stderr
    history = Proc(tmp_path, "history", tmp_path / "host", "history")
    assert history.wait(60) == 0 and "taken up again" in history.wait_output(5), history.stderr
    again = Proc(tmp_path, "list-again", tmp_path / "host", "resume", "--list", "--json")
    assert again.wait(60) == 0
    assert next(x for x in again.lines() if x["table"] == table_hex)["state"] == "finished"


@pytest.mark.slow  # two seats waited out, an abandon, two resumes and the match's end: some 30 s
def test_the_lower_seat_s_takeup_signed_at_two_places_by_a_process_ends_on_one_chain(tmp_path):
    """Attack 6 as processes: at a Copas table of four, seats 1 and 0 are killed one after
    the other and voted out; the attacker (seat 2, now the lower of the two playing seats)
    abandons.  Both playing seats' processes then resume the table: the attacker holds its
    takeup back until seat 3's is in, writes its own after it -- sent first -- and signs
    another for the place seat 3's took, sent after it.  The lower seat's takeup takes the
    first place: seat 3 takes it in place of its own, writes its own after it, and the match is
    played on to its end -- both processes on one transcript, nobody honest blamed."""
    host = Proc(tmp_path, "host", tmp_path / "host", "host", "copas", "--bind", LOOPBACK, "--seats",
                "bot:random,remote,remote,remote", "--deals", "4", "--timeout", "4", "--linger", "1", "--json",
                "--no-announce")
    procs = [host]
    resumed: list[Proc] = []
    try:
        address = f"{LOOPBACK}:{until('the host to listen', lambda: host.lines()[:1])[0]['port']}"

        def join(seat: int) -> Proc:
            joiner = Proc(tmp_path, f"join{seat}", tmp_path / f"j{seat}", "join", address, "--bot", "random",
                          "--json", "--linger", "1")
            procs.append(joiner)
            until(f"joiner {seat} to be seated", lambda: joiner.lines()[:1])
            return joiner

        one = join(1)
        attacker = Proc(tmp_path, "attacker", tmp_path / "attacker", "takeup-twice", address,
                        module="tests.attackers")
        procs.append(attacker)
        until("the attacker to be seated", lambda: attacker.lines()[:1])
        three = join(3)
        until("a deal to close", lambda: three.first("deal"), 60)
        for victim, seat in ((one, 1), (host, 0)):  # one at a time: the others vote each out
            victim.kill()
            until(f"seat {seat} voted out", lambda s=seat: [x for x in three.lines()
                                                           if x["type"] == "vote_out" and x["against"] == s], 60)
        assert [p.wait(60) for p in (attacker, three)] == [0, 0], [p.stderr[-2000:] for p in (attacker, three)]
        table_hex = next(x for x in three.lines() if x["type"] == "table")["table"]
        assert next(x for x in three.lines() if x["type"] == "final")["abandoned"]["by"] == 2, "the attacker abandoned"
        resumed = [Proc(tmp_path, "attacker-resume", tmp_path / "attacker", "takeup-twice", "--resume", table_hex,
                        module="tests.attackers"),
                   Proc(tmp_path, "join3-resume", tmp_path / "j3", "resume", table_hex[:16], "--json", "--linger", "1")]
        codes = [p.wait(120) for p in resumed]
    finally:
        for p in [*procs, *resumed]:
            p.kill()
    for p in [*procs, *resumed]:
        assert "Traceback" not in p.stderr, p.stderr[-3000:]
    assert codes[1] == 0, resumed[1].stderr[-3000:]
    two = next((x for x in resumed[0].lines() if x.get("step") == "two takeups"), None)
    assert two is not None, "the attack happened"
    log = FrameDecoder().feed(log_path(tmp_path / "j3", bytes.fromhex(table_hex), 3).read_bytes())
    after = two["early"] - 1
    assert two["late"] == after + 2, "the one sent first was written after seat 3's"
    assert header(log[after])["kind"] == "abandon" and header(log[after])["author"] == 2
    assert [(header(raw)["kind"], header(raw)["author"]) for raw in log[after + 1:after + 3]] == \
        [("takeup", 2), ("takeup", 3)], "the lower seat's takeup first, seat 3's after it"
    assert message_hash(log[after + 1]).hex() == two["hash"], "the one sent second took the first place"
    assert sum(header(raw)["kind"] == "takeup" for raw in log) == 2, "the one sent first was let go"
    report = audit_transcript(log, REGISTRY)
    assert report["error"] is None and report["ok"] and report["finished"], report
    assert report["abandoned"] is None and report["abandons"][0]["taken_up"]
    assert sorted(v["seat"] for v in report["votes"]) == [0, 1], "only the killed seats were voted out"
    assert all(d["seat"] in (None, 0, 1, 2) for d in report["deals"]), "no verdict against the honest seat"
    assert codes[0] == 0, resumed[0].stderr[-3000:]
    final = resumed[1].first("final")
    assert final is not None and final["transcript_hash"] == report["transcript_hash"]
    mine = log_path(tmp_path / "attacker", bytes.fromhex(table_hex), 2).read_bytes()
    assert FrameDecoder().feed(mine) == log, "the attacker's replica ends on the same chain"
