"""Voting a silent seat out, sans-IO: every replica agrees, the deal is void, a bot with
fresh keys takes the seat from the next deal, the offline audit follows the new keys, and
bad votes -- forged, out of order, against the wrong seat -- are refused."""

from __future__ import annotations

import os

import pytest

from p2pcards.identity import Identity
from p2pcards.table.audit import audit_transcript, replay_transcript
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import SeatInfo, VoteBody, parse_message, sign_message, vote_opener, vote_order
from p2pcards.table.wire import unpack
from tests.table_helpers import REGISTRY, VoteRun, make_net, run_with_silence


def _agree(vr: VoteRun) -> list[bytes]:
    logs = {tuple(t.log) for t in vr.tables.values() if t is not vr.silent}
    assert len(logs) == 1, "every live replica holds the same transcript"
    log = list(logs.pop())
    assert all(t.finished for t in vr.tables.values() if t is not vr.silent)
    return log


def _deals(events):
    return [e for e in events if e["type"] == "deal"]


def test_vote_rules_are_the_lowest_other_seat_then_everyone_in_order():
    assert vote_opener(0, 4) == 1 and vote_opener(2, 4) == 0 and vote_opener(1, 2) == 0
    assert vote_order(2, 4) == (0, 1, 3) and vote_order(0, 2) == (1,)


@pytest.mark.parametrize(("game", "silent", "after"), [("sueca", 2, 30), ("bisca", 0, 12), ("copas", 3, 5)])
def test_a_silent_seat_is_voted_out_and_a_bot_plays_on(game, silent, after):
    net = make_net(game, deals=2)
    vr = run_with_silence(net, silent, after)
    log = _agree(vr)
    assert set(vr.bots) == {silent}
    bot = vr.tables[silent]
    assert bot.me is vr.bots[silent] and bot.keys[silent] == vr.bots[silent].signing_public
    # the same events everywhere (but on the silent seat): a vote, the deal void, a deal with the bot
    live = [s for s in range(len(net.tables)) if s != silent]
    first = vr.events[live[0]]
    assert all(vr.events[s] == first for s in live)
    votes = [e for e in first if e["type"] == "vote_out"]
    assert len(votes) == 1 and votes[0]["against"] == silent
    assert votes[0]["voters"] == list(vote_order(silent, len(net.tables)))
    assert votes[0]["bot"]["fingerprint"] == vr.bots[silent].fingerprint
    deals = _deals(first)
    assert deals[0]["audit"]["verdict"] == "void" and deals[0]["audit"]["kind"] == "vote-out"
    assert deals[0]["audit"]["seat"] == silent and deals[0]["result"] is None
    assert deals[1]["audit"]["verdict"] == "clean" and first[-1]["type"] == "final"
    # the bot's own events start after the vote and end like everyone's
    assert vr.events[silent][-1] == first[-1]
    # the dealer rotated over the void deal as over any other
    assert deals[1]["dealer"] == (deals[0]["dealer"] + 1) % len(net.tables)
    # the silent replica never saw the vote: its transcript is everyone's up to the seq
    # where it was due, then (perhaps) messages of its own that never left it
    k = vr.tables[live[0]].replacements[0].slot
    c = next(i for i, (a, b) in enumerate(zip(vr.silent.log + [b""], log)) if a != b)
    assert c <= k and not vr.silent.finished
    assert all(parse_message(m, vr.silent.keys).author == silent for m in vr.silent.log[c:])
    # offline: the audit verifies the seat with the bot's keys from the next deal on
    report = audit_transcript(log, REGISTRY)
    assert report["ok"], report
    assert [d["verdict"] for d in report["deals"]] == ["void", "clean"]
    assert report["votes"][0]["seat"] == silent and report["votes"][0]["bot"]["fingerprint"] == bot.me.fingerprint
    assert report["totals"] == first[-1]["totals"] and report["transcript_hash"] == first[-1]["transcript_hash"]


def test_replicas_with_votes_are_restored_from_their_logs():
    net = make_net("sueca", deals=2)
    secrets = [os.urandom(32) for _ in range(4)]
    spec = REGISTRY.get("sueca")
    net.tables = [Table(net.genesis, spec, net.ids[s], secrets[s], on_event=net.events[s].append) for s in range(4)]
    vr = run_with_silence(net, 1, 40)
    log = _agree(vr)
    for s in (0, 2, 3):  # seat 0 opened the vote: its own opening vote comes out byte for byte
        fresh = Table(net.genesis, spec, net.ids[s], secrets[s])
        assert fresh.restore(log) == [] and fresh.finished and fresh.log == log
        assert fresh.results == vr.tables[s].results
    bot = vr.tables[1]
    fresh = Table(net.genesis, spec, bot.me, bot._secret, seat=1)
    assert fresh.restore(log) == [] and fresh.finished and fresh.log == log
    # the bot restored from the transcript as it stood when the vote ended plays on the same
    cut = bot.replacements[0].seq + 1
    again = Table(net.genesis, spec, bot.me, bot._secret, seat=1)
    again.restore(log[:cut])
    assert again.deal_no == 1 and again.keys == bot.keys and again.match.dealer == bot.results[1]["dealer"]
    assert again.results == bot.results[:1]
    with pytest.raises(Exception, match="does not give seat 1"):
        Table(net.genesis, spec, bot.me, bot._secret, seat=1).restore(log[: cut - 1])
    # the seat voted out cannot come back with its old log and its old keys
    old = Table(net.genesis, spec, net.ids[1], secrets[1])
    old.restore(vr.silent.log)
    with pytest.raises(Rejected):
        old.receive(log[len(vr.silent.log)])  # the transcript moved on without it
        old.receive(log[cut])


def _until_due(game: str, silent: int, after: int):
    """Deliver messages in order until seat ``silent`` is due (after ``after`` messages)."""
    net = make_net(game, deals=2)
    tables = net.tables
    queue = [(s, m) for s, t in enumerate(tables) for m in t.start()]
    delivered = 0
    while True:
        if queue:
            src, raw = queue.pop(0)
            delivered += 1
            for s, t in enumerate(tables):
                if s != src:
                    queue += [(s, m) for m in t.receive(raw)]
            continue
        if delivered >= after and tables[0].expected() == silent:
            return net
        for s, t in enumerate(tables):
            d = t.decision()
            if d is not None:
                if delivered >= after and s == silent:
                    return net
                queue += [(s, m) for m in t.decide(net.players[s].choose(t.view(), d))]
                break
        else:
            raise AssertionError("the table ended before the seat was due")


def _bot(name: str = "bot") -> tuple[Identity, SeatInfo]:
    ident = Identity.generate(name)
    return ident, SeatInfo(name, ident.signing_public, ident.sealing_public, "random", None)


def _vote(net, author: int, table: Table, against: int, bot: SeatInfo | None, *, signer=None, seq=None, prev=None):
    return sign_message(signer or net.ids[author], table=table.table_id, deal=table.deal_no,
                        seq=table.seq if seq is None else seq, prev=table.head if prev is None else prev,
                        author=author, kind="vote", body=VoteBody(against, bot).to_body())


def test_forged_and_out_of_order_votes_are_refused():
    net = _until_due("sueca", 2, 30)
    t1, t3 = net.tables[1], net.tables[3]
    assert t1.expected() == 2 and t1.may_open_vote() is None and net.tables[0].may_open_vote() == 2
    _, info = _bot()
    before = [(t.seq, t.head) for t in net.tables]
    cases = {
        "forged": _vote(net, 0, t1, 2, info, signer=Identity.generate("mallory")),
        "not the opener": _vote(net, 3, t1, 2, info),
        "not the seat due": _vote(net, 0, t1, 3, info),
        "no bot": _vote(net, 0, t1, 2, None),
        "seated keys": _vote(net, 0, t1, 2, SeatInfo("x", net.ids[3].signing_public, net.ids[3].sealing_public)),
        "against itself": _vote(net, 2, t1, 2, info),
        "malformed": sign_message(net.ids[0], table=t1.table_id, deal=t1.deal_no, seq=t1.seq, prev=t1.head,
                                  author=0, kind="vote", body={"against": 2}),
    }
    reasons = {}
    for name, raw in cases.items():
        author = unpack(raw)["author"]
        for t in (t1, t3):
            if t.seat == author:
                continue
            with pytest.raises(Rejected) as info_:
                t.receive(raw)
            reasons[name] = str(info_.value)
    assert "bad signature" in reasons["forged"] and "unattributed" in reasons["forged"]
    assert "only seat 0 may open" in reasons["not the opener"]
    assert "waits for seat 2" in reasons["not the seat due"]
    assert "names the bot" in reasons["no bot"]
    assert "already seated" in reasons["seated keys"]
    assert "malformed vote" in reasons["malformed"]
    assert [(t.seq, t.head) for t in net.tables] == before
    # a genuine opening vote; then a second vote out of order and a vote naming another bot
    opening = net.tables[0].vote_out(info)
    assert len(opening) == 1
    for t in (t1, t3):
        assert t.receive(opening[0]) == ([] if t is t3 else t.log[-1:])
    second = t1.log[-1]
    t0 = net.tables[0]
    with pytest.raises(Rejected, match="out of turn: seat 1 votes next"):
        t0.receive(_vote(net, 3, t0, 2, None))
    with pytest.raises(Rejected, match="only the opening vote names a bot"):
        t3.receive(_vote(net, 1, t3, 2, _bot("other")[1]))
    with pytest.raises(Rejected, match="being voted out|out of turn"):
        t3.receive(sign_message(net.ids[2], table=t3.table_id, deal=t3.deal_no, seq=t3.seq, prev=t3.head,
                                author=2, kind="deck", body={"msgs": []}))
    assert t3.receive(second)[0] == t3.log[-1]  # seat 3 votes last: the vote is complete
    assert t3.replacements and t3.keys[2] == info.signing and t3.deals_done == 1
    # the offline audit refuses a transcript whose vote is out of order
    log = list(t3.log)
    swapped = _vote(net, 3, t1, 2, info, seq=opening_seq(log), prev=parse_message(log[opening_seq(log)], t1.keys).prev)
    bad = log[: opening_seq(log)] + [swapped]
    report = audit_transcript(bad, REGISTRY)
    assert not report["ok"] and "may not open a vote" in report["error"]["reason"]


def opening_seq(log: list[bytes]) -> int:
    return next(i for i, raw in enumerate(log) if i and unpack(raw)["kind"] == "vote")


def test_a_late_message_of_the_silent_seat_loses_to_the_vote_everywhere():
    """The silent seat's message reaches seat 1 before the opening vote and seat 3 after
    it: seat 1 goes back and takes the vote, seat 3 refuses the late message, and the
    silent seat's own replica stops when it sees the vote; all end with one transcript."""
    net = _until_due("sueca", 2, 30)
    t0, t1, t2, t3 = net.tables
    k = t0.seq
    # the silent seat's message (a decision or a deck message of its own, due now)
    d = t2.decision()
    late = t2.decide(net.players[2].choose(t2.view(), d)) if d is not None else t2.start()
    assert late and parse_message(late[0], t2.keys).seq == k
    follow = t1.receive(late[0])  # seat 1 accepts it (and perhaps answers on top of it)
    for m in late[1:]:
        follow += t1.receive(m)
    assert t1.seq > k
    _, info = _bot()
    opening = t0.vote_out(info)
    # seat 1: the vote supersedes what it held from seq k on; it votes next
    second = t1.receive(opening[0])
    assert t1.take_rewind() == k and t1.take_rewind() is None
    assert t1.log[k] == opening[0] and len(second) == 1
    # seat 3 got the vote first; the late message is refused
    assert t3.receive(opening[0]) == []
    with pytest.raises(Rejected):
        t3.receive(late[0])
    for m in follow:
        with pytest.raises(Rejected):
            t3.receive(m)
    third = t3.receive(second[0])
    assert t0.receive(second[0]) == [] and t0.receive(third[0])[:0] == []
    t1.receive(third[0])
    assert t0.log[: k + 3] == t1.log[: k + 3] == t3.log[: k + 3]
    assert all(t.keys[2] == info.signing for t in (t0, t1, t3))
    # the silent seat sees the vote where its own message stood: it stops, voted out
    assert t2.receive(opening[0]) == [] and t2.voted_out and t2.finished
    # a vote for a seq held by another seat's message supersedes nothing
    other = _until_due("sueca", 2, 30)
    u0, u1 = other.tables[0], other.tables[1]
    last = parse_message(u1.log[-1], u1.keys)
    assert last.author != 2
    stale = _vote(other, 0, u1, 2, info, seq=last.seq, prev=last.prev)
    with pytest.raises(Rejected, match="holds another seat's message"):
        u1.receive(stale)
    assert u0.may_open_vote() == 2


class _Fragile(Table):
    """A replica whose deck code fails once, after the message entered its log."""

    broken = False

    def _apply(self, env):
        super()._apply(env)
        if not _Fragile.broken and self.stage == "play" and len(self.log) > 30:
            _Fragile.broken = True
            raise RuntimeError("a bug in this peer")


def test_a_message_the_table_refused_never_stays_in_its_log():
    _Fragile.broken = False
    net = make_net("sueca", deals=1, table_class={3: _Fragile})
    errors: list[Rejected] = []
    t3 = net.tables[3]
    original = t3.receive

    def receive(raw: bytes) -> list[bytes]:
        before = list(t3.log)
        try:
            return original(raw)
        except Rejected as exc:
            errors.append(exc)
            assert t3.log == before, "the refused message was taken out again"
            return original(raw)  # the same message, offered again, is taken

    t3.receive = receive  # type: ignore[method-assign]
    from tests.table_helpers import run

    run(net)
    assert _Fragile.broken and errors and "internal error" in errors[0].reason
    assert len({tuple(t.log) for t in net.tables}) == 1 and all(t.finished for t in net.tables)


def test_replay_transcript_stops_where_the_seat_changes_hands():
    net = make_net("bisca", deals=3)
    vr = run_with_silence(net, 1, 20)
    log = _agree(vr)
    bot = vr.tables[1]
    rep = replay_transcript(log, REGISTRY, until=(1, bot.me.signing_public))
    assert rep.installed and rep.next_deal == 1 and rep.keys[1] == bot.me.signing_public
    assert rep.count == bot.replacements[0].seq + 1 and not rep.finished
    full = replay_transcript(log, REGISTRY)
    assert full.deals_done == 3 and full.finished and full.error is None
