"""One dishonest peer tries to bend a table (tests/attackers.py), in memory: for every attack
the honest replicas (and an observer) end with identical transcripts and verdicts, the
right seat is blamed -- or nobody, when the attack changes nothing --, no scored deal is
lost, no honest seat is pushed out, and nothing crashes or hangs."""

from __future__ import annotations

import pytest

from p2pcards.table.audit import audit_transcript
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import parse_message, sign_message
from tests import attackers
from tests.table_helpers import REGISTRY, assert_agree, deals_of, header, kinds, make_net, mesh_of, run


def _honest(net, attacker: int) -> list[int]:
    return [s for s in range(len(net.tables)) if s != attacker]


def _blamed(net, seat: int):
    """The deals of the table, every one blamed on ``seat`` or clean."""
    deals = deals_of(net.observed)
    assert deals, "the table played"
    return deals


def _audit_agrees(log, deals) -> dict:
    report = audit_transcript(log, REGISTRY)
    assert report["error"] is None
    assert [(d["verdict"], d["seat"]) for d in report["deals"]] == [
        (d["audit"]["verdict"], d["audit"]["seat"]) for d in deals]
    return report


def _nothing_changed(net, attacker: int) -> None:
    """The attack changed nothing: every deal clean, nobody voted out, the audit clean."""
    log = assert_agree(net, _honest(net, attacker))
    deals = deals_of(net.observed)
    assert deals and all(d["audit"]["verdict"] == "clean" for d in deals)
    assert all(t.outvotes == [] for t in net.tables) and net.observer.dummies == []
    report = _audit_agrees(log, deals)
    assert report["ok"]


def _cheat_blamed(net, attacker: int, kind: str | tuple[str, ...]) -> dict:
    """The attacker lost its deal: blamed by every replica, as for a renúncia."""
    log = assert_agree(net, _honest(net, attacker))
    deals = deals_of(net.observed)
    first = deals[0]["audit"]
    assert first["verdict"] in ("fault", "vote-out") and first["seat"] == attacker, first
    assert first["kind"] in ((kind,) if isinstance(kind, str) else kind), first
    assert deals[0]["result"]["renuncia"] == attacker
    assert all(d["audit"]["verdict"] == "clean" for d in deals[1:])
    assert all(v["seat"] == attacker for t in net.tables for v in t.outvotes), "no honest seat is pushed out"
    report = _audit_agrees(log, deals)
    assert not report["ok"] or first["verdict"] == "vote-out"
    return first


# ---------------------------------------------------------------- votes
def test_a_retroactive_vote_undoes_nothing():
    net = make_net("copas", deals=2, table_class={1: attackers.RetroVoter})
    run(net, tolerate=True)
    assert net.tables[1].tried
    _nothing_changed(net, 1)
    assert [len(deals_of(net.events[s])) for s in range(4)] == [2] * 4, "no scored deal is lost"
    refusals = [exc for _, exc in net.rejected]
    assert any("outvote" in exc.reason for exc in refusals)


def test_an_instant_vote_pushes_nobody_out():
    net = make_net("sueca", deals=2, options={"target": "8"}, table_class={0: attackers.InstantVoter})
    run(net, tolerate=True)
    assert net.tables[0].tried
    _nothing_changed(net, 0)
    assert any("outvote" in exc.reason for _, exc in net.rejected), "its lone certificates were refused"


def test_a_lone_vote_in_bisca_is_refused():
    net = make_net("bisca", deals=2, table_class={0: attackers.LoneVoter})
    run(net, tolerate=True)
    assert net.tables[0].tried
    _nothing_changed(net, 0)
    refused = [exc for _, exc in net.rejected]
    assert any("outvote" in exc.reason for exc in refused)
    # a vote that reaches the other seat while it is due is refused and blamed
    net = make_net("bisca", deals=1)
    mesh = mesh_of(net)
    mesh.start()
    while net.tables[0].due() != {1} or mesh._queue:
        assert mesh.step()
    assert net.tables[0].may_vote() == frozenset() and net.tables[0].may_abandon()
    t = net.tables[0]
    vote = sign_message(net.ids[0], table=t.table_id, deal=t.deal_no, seq=t.seq, prev=t.head, author=0, kind="vote",
                        body={"against": 1})
    with pytest.raises(Rejected, match="may not vote") as caught:
        net.tables[1].receive(vote)
    assert caught.value.blame == 0


def test_a_choice_out_of_turn_is_refused_and_blamed_on_its_author():
    """Seat 1 writes a choice where seat 2 must (here it reaches every replica before seat
    2's own): each refuses it and blames seat 1 (a screen says so), and nothing changes."""
    net = make_net("sueca", deals=1, table_class={1: attackers.OutOfTurn})
    run(net, tolerate=True)
    assert net.tables[1].tried
    blamed = {(seat, exc.blame) for seat, exc in net.rejected if "out of turn" in exc.reason}
    assert blamed == {(0, 1), (2, 1), (3, 1)}, net.rejected
    _nothing_changed(net, 1)


# ---------------------------------------------------------------- equivocation
def _route_second(net, attacker: int, to: set[int]):
    """Seats in ``to`` get the attacker's second message instead of its first."""

    def route(src, dst, raw):
        t = net.tables[attacker]
        if src == attacker and dst in to and t.second is not None and header(raw)["seq"] == header(t.second)["seq"]:
            if header(raw)["kind"] == "choice":
                return t.second
        return raw

    return route


def test_equivocation_by_content_is_proven_and_blamed_everywhere():
    net = make_net("sueca", deals=2, options={"target": "8"}, table_class={1: attackers.Equivocator})
    run(net, tolerate=True, route=_route_second(net, 1, {2, 3}))
    assert net.tables[1].tried
    first = _cheat_blamed(net, 1, "equivocation")
    log = net.observer.log
    forks = [parse_message(raw, None) for raw, k in zip(log, kinds(log), strict=True) if k == "fork"]
    assert len(forks) == 1 and forks[0].body == {"against": 1} and len(forks[0].proof) == 2
    assert "two different messages" in first["reason"]


def test_equivocation_at_the_last_place_where_each_side_waits_for_the_other_is_proven():
    """Seat 1 plays the last card of a trick one way to seat 0 (seat 2 or 3 wins it and
    leads) and another way to seats 2 and 3 (seat 1 wins it): nobody writes on top, each
    side waits for a seat of the other.  Comparing what the others hold for the last places,
    when nothing moves, finds the two messages; every honest replica blames seat 1."""
    for _ in range(24):  # the first deal's hands must offer two such cards at a trick's end (random deals)
        net = make_net("sueca", deals=2, options={"target": "8"}, table_class={1: attackers.CrossWaitEquivocator})
        run(net, tolerate=True, route=_route_second(net, 1, {2, 3}))
        if net.tables[1].tried:
            break
    assert net.tables[1].tried, "the attack happened"
    _cheat_blamed(net, 1, "equivocation")


def test_equivocation_relayed_by_a_third_seat_is_proven_too():
    """The second message reaches the honest seats only through a third seat that relays
    it (after they all took the first): the evidence is the same, whoever carries it."""
    net = make_net("copas", deals=2, table_class={3: attackers.Equivocator})
    relayed = []

    def after(mesh):
        t = net.tables[3]
        if t.second is not None and not relayed and net.tables[0].seq > header(t.second)["seq"] + 1:
            relayed.append(t.second)
            mesh.send(1, [t.second])  # seat 1 passes on what it was given

    run(net, tolerate=True, after=after)
    assert relayed
    _cheat_blamed(net, 3, "equivocation")


def test_another_encoding_of_a_message_is_refused_and_forks_nothing():
    net = make_net("bisca", deals=1)
    reencoded = []

    def route(src, dst, raw):
        if src == 0 and dst == 1 and header(raw)["kind"] == "choice" and len(reencoded) < 3:
            reencoded.append(raw)
            return attackers.Reencoder.reencode(raw)
        return raw

    run(net, tolerate=True, route=route)
    assert len(reencoded) == 3
    _nothing_changed(net, -1)
    refused = [exc for s, exc in net.rejected if s == 1]
    assert len([e for e in refused if "canonical" in e.reason]) == 3
    assert all(e.blame is None for e in refused if "canonical" in e.reason), "anyone can re-encode: no blame"


# ---------------------------------------------------------------- faults one seat sees
@pytest.mark.parametrize(("cls", "kind"), [(attackers.GarbledSealer, "bad-seal"),
                                           (attackers.BadHeaderSealer, "malformed")])
def test_sealed_keys_only_their_recipient_can_check_are_disputed_and_blamed(cls, kind):
    net = make_net("sueca", deals=2, options={"target": "8"}, table_class={2: cls})
    run(net, tolerate=True)
    assert net.tables[2].tried
    _cheat_blamed(net, 2, kind)
    disputes = [parse_message(raw, net.tables[0].keys) for raw, k in zip(net.observer.log, kinds(net.observer.log),
                                                                          strict=True) if k == "dispute"]
    assert len(disputes) == 1 and disputes[0].author == 3, "the victim disputed in its turn"


def test_a_substituted_card_is_blamed_on_its_shuffler():
    net = make_net("sueca", deals=2, options={"target": "8"}, table_class={1: attackers.Substituter})
    run(net, tolerate=True)
    assert net.tables[1].tried
    _cheat_blamed(net, 1, "bad-shuffle")


def test_a_disguised_copy_of_another_seats_card_is_refused_at_the_shuffle():
    """The last shuffler copies a card its victim will be dealt into a position of its own,
    disguised by a factor its lock would take away.  Its shuffle's proof cannot hold: every
    replica refuses the shuffle when the lock round is complete (proofs are pipelined),
    blames the shuffler, and no card is dealt from that deck -- the cheat never sees its
    victim's card."""
    net = make_net("sueca", deals=2, options={"target": "8"}, table_class={3: attackers.Copier})
    copied = []

    def after(mesh):
        t = net.tables[3]
        if t.tried and t.game is not None and t.stage == "play":
            mine = [p for p in t.game.deck.hands[3] if t.game.deck.cards[p] is not None]
            victim = net.tables[0]
            theirs = {c for c in victim.game.deck.hand_cards(0) if c is not None} if victim.game else set()
            seen = {t.game.deck.cards[p] for p in mine} & theirs
            if seen:
                copied.append(seen)

    run(net, tolerate=True, after=after)
    assert net.tables[3].tried, "the attack happened"
    assert not copied, "the cheat never saw a card of its victim's hand"
    first = _cheat_blamed(net, 3, "bad-shuffle")
    assert "proof" in first["reason"]


def _restart(net, mesh, seat: int) -> None:
    """``seat``'s process starts again from its log (and the side messages it signed)."""
    old = net.tables[seat]
    fresh = Table(net.genesis, net.spec, net.ids[seat], net.secrets[seat])
    out = fresh.restore(list(old.log), list(mesh.signed.get(seat, [])))
    net.tables[seat] = mesh.tables[seat] = fresh
    mesh.send(seat, out.send)


def _deal_kinds(log: list[bytes], deal: int) -> list[str]:
    """The kinds of the deck messages of ``deal`` in ``log``, in order."""
    return [m["kind"] for raw in log if header(raw)["kind"] == "deck" and header(raw)["deal"] == deal
            for m in header(raw)["body"]["msgs"]]


@pytest.mark.parametrize("restart", [False, True], ids=["straight", "neighbour-restarted"])
def test_a_made_up_deck_gives_the_next_shuffler_away_but_no_card(restart):
    """Proofs are pipelined: seat 1 shuffles the deck seat 0 made up before it checks seat
    0's proof, so the prober learns seat 1's permutation of that deal -- and nothing more.
    Every replica (seat 2 too, started again from its log in the middle of the rounds)
    blames seat 0 at the end of the lock round, no key of the deal is ever sent, and the
    seeds revealed then make that permutation public anyway."""
    net = make_net("sueca", deals=2, options={"target": "8"}, table_class={0: attackers.Prober})
    permutation = {}
    restarted = []

    def after(mesh):
        victim = net.tables[1]
        if victim.deal_no == 0 and not permutation:
            permutation[1] = list(victim.party._mine().permutation)
        two = net.tables[2]
        if (restart and not restarted and two.deal_no == 0 and two.party._unchecked
                and two.party.phase == "lock"):
            restarted.append(two.seq)
            _restart(net, mesh, 2)

    run(net, tolerate=True, after=after)
    prober = net.tables[0]
    assert prober.learned == {"seat": 1, "permutation": permutation[1]}, "the next shuffler used the made-up deck"
    assert bool(restarted) == restart
    _cheat_blamed(net, 0, "bad-shuffle")
    sent = _deal_kinds(net.observer.log, 0)
    assert sent.count("shuffle") == 4 and sent.count("lock") == 4, "the rounds went on past the bad proof"
    assert set(sent) <= {"commit", "shuffle", "lock"}, "no key of that deal left any seat"


def test_a_bad_proof_is_blamed_before_a_later_seats_bad_element():
    """Two cheats in one chain: seat 1's shuffle proof fails, then seat 2 sends an invalid
    element.  Found first, the element does not hide the proof: every replica blames seat
    1, the step a check of every proof on arrival would have blamed."""
    net = make_net("sueca", deals=2, options={"target": "8"},
                   table_class={1: attackers.Substituter, 2: attackers.BadElement})
    run(net, tolerate=True)
    assert net.tables[1].tried and net.tables[2].tried
    log = assert_agree(net, [0, 3])
    first = deals_of(net.observed)[0]["audit"]
    assert (first["verdict"], first["seat"], first["kind"]) == ("fault", 1, "bad-shuffle"), first
    assert _deal_kinds(log, 0).count("lock") == 0, "refused at seat 2's shuffle, before any lock"


def test_a_false_dispute_is_blamed_on_the_accuser():
    net = make_net("sueca", deals=2, options={"target": "8"}, table_class={2: attackers.FalseDisputer})
    run(net, tolerate=True)
    assert net.tables[2].tried
    first = _cheat_blamed(net, 2, "false-dispute")
    assert "audit finds clean" in first["reason"]


def test_a_seat_that_will_not_reveal_its_seed_for_a_dispute_is_blamed():
    net = make_net("copas", deals=2, table_class={0: attackers.SeedWithholder})
    run(net, tolerate=True)
    assert "withheld" in net.tables[0].tried
    log = assert_agree(net, [1, 2, 3])
    deals = deals_of(net.observed)
    assert deals[0]["audit"]["verdict"] == "vote-out" and deals[0]["audit"]["seat"] == 0
    assert deals[0]["result"]["renuncia"] == 0
    assert net.observer.dummies == [0]
    _audit_agrees(log, deals)


# ---------------------------------------------------------------- cheap refusals
def test_claims_about_places_long_past_are_refused_without_a_replay(monkeypatch):
    rebuilds = []
    restore = Table.restore

    def counting(self, *args, **kwargs):
        rebuilds.append(1)
        return restore(self, *args, **kwargs)

    net = make_net("sueca", deals=2, options={"target": "8"}, table_class={0: attackers.PastClaimer})
    monkeypatch.setattr(Table, "restore", counting)
    run(net, tolerate=True)
    assert net.tables[0].tried
    _nothing_changed(net, 0)
    assert rebuilds == [], "no claim made a replica rebuild itself"
    refused = [exc for s, exc in net.rejected if s != 0]
    assert len(refused) >= 2 * 3 * 20
    assert all(isinstance(exc, Rejected) for exc in refused)
