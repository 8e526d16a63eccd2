"""Voting a silent seat out, sans-IO: every other playing seat votes from its own clock, the
seat loses the deal it was silent in, becomes a dummy whose cards are dealt face up and
whose plays every replica computes alike; a late message of the silent seat wins over an
incomplete vote and loses to a complete one; a table of two playing seats is never voted
out -- it waits, and can be abandoned."""

from __future__ import annotations

import pytest

from p2pcards.table.audit import audit_transcript
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import canonical, parse_message
from p2pcards.table.wire import pack, unpack
from p2pcards.testing.table_mesh import LocalMesh
from tests.table_helpers import REGISTRY, assert_agree, deals_of, header, kinds, make_net, mesh_of


def _silence(net, seat: int, after: int, **mesh_args) -> LocalMesh:
    """Run the table; seat ``seat`` hears and says nothing after ``after`` steps."""
    mesh = mesh_of(net, **mesh_args)
    mesh.start()
    n = 0
    while mesh.step():
        n += 1
        if n == after:
            mesh.silent.add(seat)
    return mesh


@pytest.mark.parametrize(("game", "silent", "after"), [("sueca", 2, 30), ("copas", 3, 40), ("sobe-e-desce", 1, 20)])
def test_a_silent_seat_is_voted_out_loses_the_deal_and_plays_on_as_a_dummy(game, silent, after):
    options = {"target": "8"} if game == "sueca" else None
    net = make_net(game, deals=3, options=options)
    mesh = _silence(net, silent, after)
    assert not mesh.rejected
    honest = [s for s in range(4) if s != silent]
    log = assert_agree(net, honest)
    deals = deals_of(net.events[honest[0]])
    first = deals[0]
    assert first["audit"]["verdict"] == "vote-out" and first["audit"]["seat"] == silent
    assert first["result"]["renuncia"] == silent, "a seat voted out loses the deal, as for a renúncia"
    # the others voted, each once, and the certificate names them
    outvote = [parse_message(raw, None) for raw in log[1:] if kinds([log[0], raw])[1] == "outvote"]
    assert len(outvote) == 1 and outvote[0].body == {"against": silent, "voters": honest}
    assert len(outvote[0].proof) == 3
    # from then on the seat is a dummy: it writes nothing, its plays are computed alike
    later = [parse_message(raw, net.tables[honest[0]].keys) for raw in log[outvote[0].seq + 1:]]
    assert all(e.author != silent for e in later)
    assert all(t.dummies == [silent] for t in (net.observer, *(net.tables[s] for s in honest)))
    assert [d["audit"]["verdict"] for d in deals[1:]] == ["clean"] * (len(deals) - 1) and len(deals) >= 2
    # every replica plays the dummy the same way; the offline audit agrees on everything
    report = audit_transcript(log, REGISTRY)
    assert report["ok"] and report["error"] is None and report["dummies"] == [silent]
    assert report["votes"] == [{"seat": silent, "deal": 0, "seq": outvote[0].seq, "voters": honest}]
    assert report["totals"] == deals[-1]["totals"]
    assert [d["verdict"] for d in report["deals"]] == [d["audit"]["verdict"] for d in deals]


def test_the_dummy_deals_face_up_and_nobody_sends_it_keys():
    net = make_net("copas", deals=2)
    _silence(net, 1, 40)
    log = assert_agree(net, [0, 2, 3])
    keys = net.tables[0].keys
    second = [parse_message(raw, keys) for raw in log[1:]]
    second = [e for e in second if e.deal == 1 and not e.certificate]
    msgs = [m for e in second for m in e.body.get("msgs", [])]
    # three parties in the deck: keys go to parties 0..2 (seats 0, 2, 3), never to a fourth
    assert {m.get("to") for m in msgs if m.get("kind") == "keys"} <= {0, 1, 2}
    assert any(m.get("kind") == "share" for m in msgs), "the dummy's hand is opened by shares"
    dummy_hand = net.observer.game.deck.hands[1] if net.observer.game else None
    assert dummy_hand is None or all(net.observer.game.deck.cards[p] is not None for p in dummy_hand)


def test_a_table_of_two_seats_is_never_voted_out_and_can_be_abandoned():
    net = make_net("bisca", deals=2)
    _silence(net, 1, 12)
    t = net.tables[0]
    assert not t.finished and t.may_vote() == frozenset() and t.due() == frozenset({1})
    assert t.outvotes == [] and t.may_abandon()
    net.mesh.silent.clear()  # it is back, but the other has had enough
    out = t.abandon()
    raw = out.send[0]
    assert t.finished and t.abandoned == {"by": 0, "waiting_for": [1], "deal": 0, "totals": [0, 0], "behind": 0}
    assert out.events[-1].type == "final" and out.events[-1].to_json()["winner"] is None
    report = audit_transcript(t.log, REGISTRY)
    assert report["error"] is None and report["abandoned"] == t.abandoned and report["winner"] is None
    # the seat that was silent learns it: its own last message, if any, is not history
    other = net.tables[1]
    for m in t.log[1:]:
        try:
            other.receive(m)
        except Rejected:
            pass
    assert other.finished and other.abandoned == t.abandoned and raw in other.log


def test_a_vote_that_cannot_complete_leaves_the_table_waiting():
    net = make_net("sueca", deals=1)
    mesh = mesh_of(net)
    mesh.start()
    for _ in range(30):
        mesh.step()
    mesh.silent |= {2, 3}  # two seats fall silent: a vote needs every other playing seat
    while mesh.step():
        pass
    t = net.tables[0]
    assert not t.finished and t.outvotes == [] and 2 in t.due()


def test_a_late_message_loses_to_a_complete_vote_and_its_author_keeps_it_apart():
    net = make_net("copas", deals=2)
    silent = 2
    mesh = mesh_of(net)
    mesh.start()
    for _ in range(60):
        mesh.step()
    # seat 2 must decide; the others' clocks run out before its choice arrives
    mesh.players[silent] = None  # the test decides for it
    while net.tables[silent].decision() is None or mesh._queue:
        assert mesh.step()
    mesh.silent.add(silent)
    while mesh.step():
        pass
    assert all(silent in net.tables[s].dummies for s in (0, 1, 3))
    t = net.tables[silent]
    late = mesh.took(silent, t.decide(net.players[silent].choose(t.view(), t.decision())))
    mesh.players[silent] = net.players[silent]
    mesh.silent.clear()
    mesh.send(silent, late)
    # seat 2 hears again: the others' transcript reaches it by a sync
    for raw in net.tables[0].log[net.tables[silent].deal_start:]:
        mesh._queue.append((0, silent, raw))
    while mesh.step():
        pass
    log = assert_agree(net, [0, 1, 3])
    assert net.tables[silent].log == log, "the seat voted out follows the table to its end"
    assert net.tables[silent].voted_out and net.tables[silent].finished
    superseded = mesh.superseded[silent]
    assert superseded == late[:1] and late[0] not in log
    assert all(e[2].blame is None or e[2].blame == silent for e in mesh.rejected)


def test_a_late_message_wins_over_an_incomplete_vote():
    """Two of the three voters voted; the message arrives: the third holds it and answers
    the votes with a nay, the two who voted take the message from it, and the game goes
    on as if nothing happened."""
    net = make_net("sueca", deals=1)
    silent = 1
    mesh = mesh_of(net)
    mesh.start()
    for _ in range(40):
        mesh.step()
    mesh.players[silent] = None  # the test decides for it
    while net.tables[silent].decision() is None or mesh._queue:
        assert mesh.step()
    mesh.silent.add(silent)
    mesh.votes = False
    # seats 0 and 2 vote (their clocks ran out), seat 3's has not yet
    votes = net.tables[0].vote(silent).send + net.tables[2].vote(silent).send
    mesh.silent.clear()
    t = net.tables[silent]
    late = t.decide(net.players[silent].choose(t.view(), t.decision())).send
    mesh.players[silent] = net.players[silent]
    # the late message reaches seat 3 first, then the votes, then everyone
    for raw in late:
        net.tables[3].receive(raw)
    answers = []
    for raw in votes:
        answers += net.tables[3].receive(raw).send
    nays = [a for a in answers if parse_message(a, net.tables[3].keys).kind == "nay"]
    assert nays, "seat 3 holds the message: it answers the votes with a nay"
    mesh.send(3, answers)
    mesh.send(silent, late)
    mesh.send(0, votes[:1])
    mesh.send(2, votes[1:])
    mesh.votes = True
    while mesh.step():
        pass
    assert_agree(net)
    assert all(t.outvotes == [] for t in net.tables)
    assert deals_of(net.events[0])[0]["audit"]["verdict"] == "clean"


def test_replicas_with_votes_are_restored_from_their_logs():
    net = make_net("copas", deals=2)
    _silence(net, 1, 40)
    log = assert_agree(net, [0, 2, 3])
    for s in (0, 2, 3):
        fresh = Table(net.genesis, net.spec, net.ids[s], net.secrets[s])
        assert fresh.restore(log).send == [] and fresh.finished and fresh.log == log
        assert fresh.results == net.tables[s].results
    # the seat voted out comes back with its own log: it learns the rest as an observer
    old = Table(net.genesis, net.spec, net.ids[1], net.secrets[1])
    old.restore(net.tables[1].log)
    for raw in log[old.seq:]:
        old.receive(raw)
    assert old.log == log and old.voted_out and old.finished


def test_a_seat_voted_out_restarts_from_a_log_that_holds_the_vote_against_it():
    """The seat voted out comes back, takes the outvote in place of its own entry and
    follows the table as a dummy; its process restarts: its replica is restored from that
    log (the outvote stands where it would have written: it writes nothing there) and
    goes on following the table."""
    net = make_net("copas", deals=3)
    mesh = mesh_of(net, silent={3})
    mesh.start()
    while net.tables[0].dummies != [3]:
        assert mesh.step()
    mesh.silent.discard(3)
    for _ in range(400):  # it catches up, and the table goes on a little
        assert mesh.step()
    back = net.tables[3]
    assert back.voted_out and "outvote" in kinds(back.log)
    again = Table(net.genesis, net.spec, net.ids[3], net.secrets[3])
    again.restore(back.log, back.silence.signed_messages())
    assert again.log == back.log and again.voted_out
    mesh.tables[3] = net.tables[3] = again
    mesh.run()
    assert_agree(net)


def test_a_seat_voted_out_where_its_own_message_ended_the_deal_takes_the_vote_once_proven():
    """Seat 1's message that ends deal 0 (and its seed) never leaves its process, which has
    revealed its seed on its own chain.  The others vote it out at that place and close the
    deal there.  Seat 1 holds the certificate back until the others' close proves that its
    own chain can never close (their seeds are bound to the certificate), then takes it and
    keeps its own message apart."""
    net = make_net("copas", deals=2)
    x = 1
    cut: dict[str, int] = {}

    def route(src, dst, raw):
        t = net.tables[x]
        if src == x and t.deal_no == 0 and t.stage == "seeds" and "seq" not in cut:
            cut["seq"] = t.seq - 1  # x's own last entry: it ended the deal
        if src == x and "seq" in cut and (net.tables[0].deal_no == 0 or header(raw)["deal"] == 0):
            if header(raw)["seq"] >= cut["seq"]:
                return None
        return raw

    mesh = mesh_of(net, route=route)
    mesh.start()
    while mesh.step():
        pass
    assert "seq" in cut
    log = assert_agree(net, [0, 2, 3])
    t = net.tables[x]
    assert t.log == log, "it took the certificate in place of its own message"
    assert t.voted_out and t.finished
    for superseded in mesh.superseded[x]:  # its own last entry, when that was what ended the deal
        assert superseded not in log and header(superseded)["author"] == x
    deals = deals_of(net.events[0])
    assert deals[0]["audit"]["verdict"] == "vote-out" and deals[0]["audit"]["seat"] == x


def test_a_voter_cut_off_takes_the_entry_it_held_once_the_deal_closed_on_it():
    """Seat 2 votes against seat 1 and is cut off before its vote leaves; seat 1's message
    reaches the others, who play on, vote seat 2 out and close the deal.  Nobody answers a
    vote for a closed deal, so seat 2 would hold seat 1's message for ever: the chain from
    that message to the close (whose seeds other seats signed) shows the vote can never
    complete, and seat 2 takes the message and follows the table to its end."""
    net = make_net("copas", deals=2)
    late_seat, voter = 1, 2
    mesh = mesh_of(net)
    mesh.start()
    for _ in range(60):
        mesh.step()
    mesh.players[late_seat] = None  # the test decides for it
    while net.tables[late_seat].decision() is None or mesh._queue:
        assert mesh.step()
    k = net.tables[voter].seq
    net.tables[voter].vote(late_seat)  # its clock ran out; the vote never leaves (it is cut off)
    mesh.silent.add(voter)
    t = net.tables[late_seat]
    late = mesh.took(late_seat, t.decide(net.players[late_seat].choose(t.view(), t.decision())))
    mesh.players[late_seat] = net.players[late_seat]
    mesh.send(late_seat, late)
    while mesh.step():
        pass
    log = assert_agree(net, [0, 1, 3])
    assert all(voter in net.tables[s].dummies for s in (0, 1, 3)) and net.tables[0].finished
    v = net.tables[voter]
    assert v.receive(late[0]).send == [late[0]] and v.holding and v.seq == k, "it voted: it holds the message aside"
    close = next(i for i in range(k + 1, len(log)) if kinds(log)[i] == "close")
    assert v.take_held({i: [log[i]] for i in range(k + 1, close)}).send == [] and v.holding, "no close: no proof"
    gap = {i: [log[i]] for i in range(k + 1, close + 1) if i != k + 2}
    assert v.take_held(gap).send == [] and v.holding, "a chain with a hole proves nothing"
    first, second = unpack(log[k + 1])
    changed = unpack(first)
    changed["deal"] += 1  # another statement for that place: it hashes otherwise (a signature, if any, breaks)
    forged = {i: [log[i]] for i in range(k + 1, close + 1)}
    forged[k + 1] = [pack([canonical(changed), second])]
    assert v.take_held(forged).send == [] and v.holding, "a chain with another entry in it proves nothing"
    v.take_held({i: [log[i]] for i in range(k + 1, close + 1)})
    assert not v.holding and v.seq == k + 1 and v.log == log[: k + 1]
    for raw in log[k + 1:]:
        v.receive(raw)
    assert v.log == log and v.voted_out and v.finished
