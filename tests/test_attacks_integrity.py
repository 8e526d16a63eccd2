"""Integrity, round three, in memory (tests/attackers.py): attacks on what a replica
remembers of what it signed, on certificates taken in part, and on the first dealer.
Each attack runs against honest replicas and an observer, with a restart, a rebuild or a
resume in its schedule; every honest replica ends on the same transcript, no honest seat is
blamed or pushed out, and the right seat is named."""

from __future__ import annotations

import hashlib
import random
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.identity import Identity
from p2pcards.players import make_player
from p2pcards.table.audit import audit_transcript
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import Genesis, SeatInfo, make_certificate, make_genesis, message_hash, sign_message
from p2pcards.testing.table_mesh import OBSERVER
from tests import attackers
from tests.table_helpers import REGISTRY, Net, assert_agree, deals_of, header, kinds, make_net, mesh_of, step_until

ATTACKER, VOTER = 1, 2
#: A two-deal Copas table takes under a thousand steps of the mesh: far more is a loop.
STEPS = 5_000


def _until(mesh: Any, done: Any, what: str) -> None:
    step_until(mesh, done, what, STEPS)


def _restart(net: Any, mesh: Any, seat: int) -> Table:
    """Seat ``seat``'s process restarts: a fresh replica restored from its log and the
    votes and nays it kept on disk (what ``p2pcards resume`` does)."""
    old = net.tables[seat]
    fresh = Table(net.genesis, net.spec, net.ids[seat], net.secrets[seat])
    out = fresh.restore(list(old.log), list(mesh.signed.get(seat, [])))
    net.tables[seat] = mesh.tables[seat] = fresh
    mesh.send(seat, out.send)
    return fresh


def _voter_takes_the_entry_late(net: Any) -> tuple[Any, int]:
    """Seat 1's first play of deal 0 (at place ``k``) reaches every seat but seat 2; seat 2's
    clock runs out and it votes against seat 1; the others answer with a nay that carries
    the play, and seat 2 takes it.  Returns the mesh, run until seat 2 holds place k, and k."""
    held: dict[str, int] = {}

    def route(src: int, dst: int, raw: bytes) -> bytes | None:
        h = header(raw)
        if "k" not in held and src == ATTACKER and h["kind"] == "choice" and h["deal"] == 0:
            held["k"] = h["seq"]
        if dst == VOTER and held.get("k") == h["seq"] and h["author"] == ATTACKER and h["kind"] == "choice" \
                and not net.tables[VOTER].silence.voted(ATTACKER) and net.tables[VOTER].seq == held["k"]:
            return None  # (any copy, a sync's too, until seat 2 has voted)
        return raw

    mesh = mesh_of(net, route=route)
    mesh.start()
    _until(mesh, lambda: "k" in held and net.tables[VOTER].seq > held["k"], "seat 2 took seat 1's play")
    k = held["k"]
    assert any(header(v)["kind"] == "vote" and header(v)["seq"] == k for v in mesh.signed[VOTER]), "seat 2 voted"
    assert net.tables[VOTER].log[k] == net.tables[0].log[k], "and took the play from a nay"
    return mesh, k


def _late_vote(net: Any, k: int, voter: int = 3) -> bytes:
    """Seat ``voter``'s vote against seat 1 for place k: its clock ran out there too, and
    its vote arrives late (an honest message, delayed)."""
    t = net.tables[0]
    return sign_message(net.ids[voter], table=t.table_id, deal=t.chain.deals[k], seq=k, prev=t.hashes[k - 1],
                        author=voter, kind="vote", body={"against": ATTACKER})


def header_hash(raw: bytes) -> bytes:
    return message_hash(raw)


def _nays_of(mesh: Any, seat: int, k: int) -> list[bytes]:
    return [n for n in mesh.signed.get(seat, []) if header(n)["kind"] == "nay" and header(n)["seq"] == k]


def test_a_voter_restarted_in_the_same_deal_never_nays_where_it_voted():
    """Attack 1: after seat 2 voted against seat 1 at place k (and took its play from a
    nay), seat 2's process restarts within the deal.  Then a vote against seat 1 for place
    k reaches it (seat 3's, late): were seat 2 to answer with a nay, seat 1 -- which holds
    seat 2's vote -- would pair them into a fork blaming honest seat 2.  Seat 2 remembers
    its vote (kept on disk and restored): it signs no nay, and the table plays on."""
    net = make_net("copas", deals=2, table_class={ATTACKER: attackers.Framer})
    mesh, k = _voter_takes_the_entry_late(net)
    _restart(net, mesh, VOTER)
    mesh.send(3, [_late_vote(net, k)])
    mesh.run(max_steps=STEPS)
    assert _nays_of(mesh, VOTER, k) == [], "seat 2 voted at k: it never nays there"
    framer = net.tables[ATTACKER]
    assert not framer.forks and framer.votes_against_me, "seat 1 held seat 2's vote, and got no nay to pair it with"
    log = assert_agree(net, [0, 2, 3])
    assert "fork" not in kinds(log)
    assert all(d["audit"]["verdict"] == "clean" for d in deals_of(net.observed))
    assert all(t.outvotes == [] for t in net.tables)


def test_a_vote_against_oneself_draws_no_nay():
    """Seat 1 signs a vote against itself for a place it wrote, to draw nays (a voter's vote
    and nay for one place make a fork): no replica answers it, restarted or not."""
    net = make_net("copas", deals=2, table_class={ATTACKER: attackers.Framer})
    mesh, k = _voter_takes_the_entry_late(net)
    _restart(net, mesh, VOTER)
    framer = net.tables[ATTACKER]
    before = {s: _nays_of(mesh, s, k) for s in (0, 2, 3)}  # (seats 0 and 3 answered seat 2's vote)
    mesh.send(ATTACKER, [framer.frame(k)])
    mesh.run(max_steps=STEPS)
    assert all(_nays_of(mesh, s, k) == before[s] for s in (0, 2, 3)), "nobody answered it"
    assert before[VOTER] == [] and framer.tried and not framer.forks
    assert_agree(net, [0, 2, 3])
    assert all(d["audit"]["verdict"] == "clean" for d in deals_of(net.observed))


def test_a_voter_rebuilt_by_a_later_fork_never_nays_where_it_voted():
    """Attack 1, without a restart: after seat 2's vote at place k, seat 1 signs a second
    message for a later place j of its own in the same deal -- a fork: every replica goes
    back to j and rebuilds its replica there.  Then seat 3's late vote against seat 1 at k
    arrives: the rebuilt seat 2 still remembers its vote at k and signs no nay; seat 1 is
    blamed for its fork, nobody else."""
    net = make_net("copas", deals=2, table_class={ATTACKER: attackers.Framer})
    mesh, k = _voter_takes_the_entry_late(net)
    framer = net.tables[ATTACKER]
    _until(mesh, lambda: any(a == ATTACKER for a in framer.chain.authors[k + 1:]), "a later place of seat 1's")
    j = next(i for i in range(k + 1, framer.seq) if framer.chain.authors[i] == ATTACKER)
    second = framer.sign("dispute", {"against": None, "reason": "a second message", "evidence": None}, seq=j,
                         prev=framer.hashes[j - 1], deal=framer.chain.deals[j])
    mesh.send(ATTACKER, [second])  # two messages of seat 1 for place j: a fork
    _until(mesh, lambda: all("fork" in kinds(net.tables[s].log) for s in (0, 2, 3)), "the fork everywhere")
    mesh.send(3, [_late_vote(net, k)])
    mesh.run(max_steps=STEPS)
    assert _nays_of(mesh, VOTER, k) == [], "seat 2 voted at k: it never nays there, even rebuilt"
    assert not framer.forks
    assert_agree(net, [0, 2, 3])
    first = deals_of(net.observed)[0]["audit"]
    assert first["seat"] == ATTACKER and first["kind"] == "equivocation", first


# ---------------------------------------------------------------- attack 2: a forged close
def test_a_forged_close_does_not_pull_a_voter_off_the_table():
    """Attack 2: seat 0 is silent past the timeout; seats 1 and 2 vote against it, and its
    late play reaches them only after: each holds it aside.  Seat 3, the attacker, signs its
    own seed for the place after seat 0's play and wraps it as a ``close`` -- a certificate
    of one seed.  Shown to a voter as the proof that the table went on past the held play
    (:meth:`Table.take_held`), it is refused: a close holds every playing seat's seed for
    one head, or it is no close.  The attacker's vote then completes the outvote for both
    voters alike: they stay on one chain."""
    net = make_net("copas", deals=2)
    silent, cheat, voters = 0, 3, (1, 2)
    mesh = mesh_of(net)
    mesh.start()
    _until(mesh, lambda: net.tables[silent].decision() is not None and not mesh._queue, "seat 0 must decide")
    k = net.tables[1].seq
    mesh.silent |= {silent, cheat}
    _until(mesh, lambda: all(net.tables[v].silence.voted(silent) for v in voters) and not mesh._queue,
           "seats 1 and 2 voted")
    t = net.tables[silent]
    late = t.decide(net.players[silent].choose(t.view(), t.decision())).send[0]
    for v in voters:
        assert net.tables[v].receive(late).send == [late] and net.tables[v].holding
    attacker = net.tables[cheat]
    seed_msg = sign_message(net.ids[cheat], table=attacker.table_id, deal=attacker.deal_no, seq=k + 1,
                            prev=header_hash(late), author=cheat, kind="seed", body={"seed": attacker.party.seed})
    forged = make_certificate(table=attacker.table_id, deal=attacker.deal_no, seq=k + 1, prev=header_hash(late),
                              kind="close", body={"seats": [cheat], "seeds": [attacker.party.seed]},
                              proof=[seed_msg])
    v = net.tables[1]
    assert v.take_held({k + 1: [forged]}).send == [] and v.holding and v.seq == k, "a close of one seed proves nothing"
    with pytest.raises(Rejected):
        v.receive(forged)
    assert v.holding and v.seq == k
    # the attacker's vote completes the outvote, for both voters alike
    vote = sign_message(net.ids[cheat], table=v.table_id, deal=v.deal_no, seq=k, prev=v.head,
                        author=cheat, kind="vote", body={"against": silent})
    certs = [net.tables[x].receive(vote).send for x in voters]
    assert all(any(header(m)["kind"] == "outvote" for m in out) for out in certs)
    assert net.tables[1].head == net.tables[2].head and silent in net.tables[1].dummies


# ---------------------------------------------------------------- attack 3: a ground first dealer
def _fixed_net(game: str, index: int, table_class: dict[int, type[Table]]) -> Net:
    """A table of ``game`` whose keys, secrets and nonce are fixed by ``index`` (so that the
    same test draws the same dealers every run)."""
    spec = REGISTRY.get(game)

    def key(label: str) -> bytes:
        return hashlib.sha256(f"integrity/{index}/{label}".encode()).digest()

    ids = [Identity(Ed25519PrivateKey.from_private_bytes(key(f"ed{s}")),
                    X25519PrivateKey.from_private_bytes(key(f"x{s}")), f"peer{s}") for s in range(spec.seats)]
    host = Identity(Ed25519PrivateKey.from_private_bytes(key("host")), X25519PrivateKey.from_private_bytes(key("hx")),
                    "host")
    seats = tuple(SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids)
    genesis = Genesis(game, spec.rules_version, spec.resolve_options({}), seats, 1, host.signing_public, "host",
                      key("nonce")[:16], 60.0)
    raw = make_genesis(host, genesis)
    secrets = [key(f"secret{s}") for s in range(spec.seats)]
    tables = [table_class.get(s, Table)(raw, spec, ids[s], secrets[s]) for s in range(spec.seats)]
    players = [make_player("random", spec, random.Random(index * 10 + s)) for s in range(spec.seats)]
    return Net(tables, ids, players, raw, secrets, Table(raw, spec, None))


@pytest.mark.slow
def test_the_last_seat_to_commit_cannot_pick_the_first_dealer():
    """Attack 3: the last seat to commit sees every other commitment first, and tries seeds
    until the deal id draws it as the first dealer (the rule until now drew the dealer from
    the deal id: it won every time).  The dealer is drawn from the deck as the last seat
    locked it -- fixed by every committed seed, known to nobody before the lock -- so its
    tries are worth nothing: over twelve tables (fixed keys, so the outcome is the same
    every run) it deals first about as often as chance says (a quarter), not always.  Each
    deal audits clean (it shuffled as its ground seed says)."""
    cheat = 3
    won = 0
    for index in range(12):
        net = _fixed_net("copas", index, {cheat: attackers.DealerGrinder})
        mesh = mesh_of(net)
        mesh.start()
        _until(mesh, lambda net=net: all(t.match is not None for t in net.tables), "the first dealer")
        grinder = net.tables[cheat]
        assert grinder.tried, "it ground its seed"
        dealers = {t.match.dealer for t in [*net.tables, net.observer] if t.match is not None}
        assert len(dealers) == 1, "every replica draws the same dealer"
        won += dealers == {cheat}
        mesh.run(max_steps=STEPS)
        assert_agree(net)
        assert all(d["audit"]["verdict"] == "clean" for d in deals_of(net.observed))
    assert won <= 6, f"the last seat to commit dealt first at {won} tables of 12"


# ---------------------------------------------------------------- bounded replies
def test_a_held_entry_is_relayed_once_not_back_and_forth():
    """Seats 1 and 2 voted against silent seat 0 and then both get its late play: each holds
    it aside and relays it -- once.  (They used to send it to each other every time they got
    it back, hundreds of times, until a nay or the vote ended it.)"""
    net = make_net("copas", deals=2)
    silent, quiet, voters = 0, 3, (1, 2)
    mesh = mesh_of(net)
    mesh.start()
    _until(mesh, lambda: net.tables[silent].decision() is not None and not mesh._queue, "seat 0 must decide")
    mesh.silent |= {silent, quiet}
    _until(mesh, lambda: all(net.tables[v].silence.voted(silent) for v in voters) and not mesh._queue,
           "seats 1 and 2 voted")
    mesh.votes = False  # (seat 3 stays silent: the vote never completes)
    t = net.tables[silent]
    late = t.decide(net.players[silent].choose(t.view(), t.decision())).send[0]
    sent_before = len(mesh.sent)
    for v in voters:
        mesh.send(v, mesh.took(v, net.tables[v].receive(late)))
    for _ in range(2000):
        if not mesh.step():
            break
    relays = [src for src, raw in mesh.sent[sent_before:] if raw == late]
    assert sorted(relays) == list(voters), f"relayed {len(relays)} times"
    assert all(net.tables[v].holding for v in voters)


def test_a_vote_about_a_past_place_draws_one_answer():
    """A vote about a place already passed (of the current deal) is answered with a nay that
    carries the whole message there -- many times the vote's size --, so it is answered
    once per voter and place, however often it comes."""
    net = make_net("copas", deals=2)
    mesh = mesh_of(net)
    mesh.start()
    _until(mesh, lambda: net.tables[0].seq > net.tables[0].deal_start + 30, "the deal under way")
    t = net.tables[0]
    k = next(i for i in range(t.deal_start + 1, t.seq) if t.chain.authors[i] == 1)
    vote = sign_message(net.ids[2], table=t.table_id, deal=t.deal_no, seq=k, prev=t.hashes[k - 1], author=2,
                        kind="vote", body={"against": 1})
    answers = [t.receive(vote).send for _ in range(20)]
    assert len(answers[0]) == 1 and header(answers[0][0])["kind"] == "nay"
    assert all(a == [] for a in answers[1:]), "the same vote draws no second answer"


# ---------------------------------------------------------------- attack 5: two forks in one deal
def test_two_forks_in_one_deal_shown_in_different_orders_end_on_one_chain():
    """Attack 5: seat 1 signs a second message for two places of its own in the current deal,
    an early one and a late one, and shows seats 0 and 3 the late fork first, seat 2 the
    early one first.  Each replica takes the first fork it sees and reveals its seed on that
    branch.  The early fork is shown to the others (a replica that takes a fork sends it on),
    and seat 2's seed on the early branch -- a seat other than the accused -- proves that the
    late branch can never close: every replica goes back to the early fork.  Nobody honest is
    voted out; every honest replica and the observer end on one chain, blaming seat 1."""
    net = make_net("copas", deals=2)
    cheat = ATTACKER
    mesh = mesh_of(net)
    mesh.start()
    _until(mesh, lambda: sum(a == cheat for a in net.tables[0].chain.authors[net.tables[0].deal_start:]) >= 6
           and not mesh._queue, "seat 1's sixth message of the deal")
    t = net.tables[cheat]
    mine = [i for i in range(t.deal_start, t.seq) if t.chain.authors[i] == cheat]
    early, late = mine[1], mine[-1]

    def second(k: int) -> bytes:
        return sign_message(net.ids[cheat], table=t.table_id, deal=t.chain.deals[k], seq=k, prev=t.hashes[k - 1],
                            author=cheat, kind="dispute",
                            body={"against": None, "reason": f"a second message for {k}", "evidence": None})

    first_late, first_early = second(late), second(early)
    mesh.silent.add(cheat)  # from now on the attacker says nothing itself
    for dst in (0, 3):
        mesh._queue.append((cheat, dst, first_late))
    mesh._queue.append((cheat, 2, first_early))
    for _ in range(60):  # each takes the fork it was shown, and reveals its seed there
        mesh.step()
    for dst in (0, 3, OBSERVER):
        mesh._queue.append((cheat, dst, first_early))
    mesh._queue.append((cheat, 2, first_late))
    mesh._queue.append((cheat, OBSERVER, first_late))
    mesh.run(max_steps=STEPS)
    log = assert_agree(net, [0, 2, 3])
    forks = [i for i, k in enumerate(kinds(log)) if k == "fork"]
    assert forks == [early], f"the table went back to the early fork (at {early}), not {forks}"
    assert all(v["seat"] == cheat for t_ in net.tables for v in t_.outvotes), "no honest seat is pushed out"
    first = deals_of(net.observed)[0]["audit"]
    assert first["seat"] == cheat and first["kind"] == "equivocation", first


# ---------------------------------------------------------------- attack 4: leaving a losing two-seat match
def test_abandoning_a_losing_two_seat_match_does_not_hide_the_loss():
    """Attack 4: at a table of two nobody can vote the other out, so a seat may always end it
    while the other is due -- and the seat that is behind did so the instant it could, with
    "no winner" and nothing said of the standing.  The abandon now keeps it: who abandoned,
    in which deal, the totals and how far behind its side was; the audit reports the same,
    and the other seat's replica, told of it, says so too."""
    net = make_net("bisca", deals=None, options={"target": "8"})
    mesh = mesh_of(net)
    mesh.start()
    _until(mesh, lambda: net.tables[0].match is not None and net.tables[0].deals_done >= 1
           and len(set(net.tables[0].match.totals)) == 2 and not mesh._queue, "a deal that left one seat behind")
    totals = list(net.tables[0].match.totals)
    loser = totals.index(min(totals))
    t = net.tables[loser]
    _until(mesh, lambda: t.may_abandon() and not mesh._queue, "the other seat due")
    out = t.abandon()
    assert t.abandoned is not None and t.abandoned["by"] == loser and t.abandoned["deal"] == t.deal_no
    assert t.abandoned["totals"] == totals and t.abandoned["behind"] == max(totals) - min(totals) > 0
    ended = out.events[-1].to_json()
    assert ended["winner"] is None and ended["abandoned"] == t.abandoned
    other = net.tables[1 - loser]
    other.receive(out.send[0])
    assert other.finished and other.abandoned == t.abandoned, "the other seat's replica says the same"
    report = audit_transcript(t.log, REGISTRY)
    assert report["abandoned"] == t.abandoned and report["winner"] is None


# ---------------------------------------------------------------- two seats in league
def test_two_seats_in_league_cannot_push_an_honest_seat_out():
    """Seats 1 and 3 act together: each votes against every seat the instant it is due,
    and they pool their votes into one certificate against seat 0.  A vote needs every
    other playing seat, seat 2's too: their certificate is refused by every honest
    replica, nobody is voted out, and the table plays on (docs/security.md, "Two seats in
    league")."""
    pair = (1, 3)
    net = make_net("copas", deals=1, table_class={s: attackers.InstantVoter for s in pair})
    mesh = mesh_of(net)
    mesh.start()
    mesh.run(max_steps=STEPS)
    assert all(net.tables[s].tried for s in pair)
    assert_agree(net, [0, 2])
    assert all(t.outvotes == [] for t in net.tables) and net.observer.dummies == []
    votes = {s: [v for v in mesh.signed.get(s, []) if header(v)["body"].get("against") == 0] for s in pair}
    slots = {(header(v)["seq"], header(v)["prev"]) for v in votes[1]} & {(header(v)["seq"], header(v)["prev"])
                                                                         for v in votes[3]}
    assert slots, "they voted against seat 0 at the same place"
    seq, prev = sorted(slots)[0]
    pooled = [next(v for v in votes[s] if (header(v)["seq"], header(v)["prev"]) == (seq, prev)) for s in pair]
    cert = make_certificate(table=net.tables[0].table_id, deal=header(pooled[0])["deal"], seq=seq, prev=prev,
                            kind="outvote", body={"against": 0, "voters": list(pair)}, proof=pooled)
    for s in (0, 2):
        with pytest.raises(Rejected):
            net.tables[s].receive(cert)


# ---------------------------------------------------------------- messages of another table or deal
def test_messages_of_another_table_or_an_earlier_deal_change_nothing():
    """A message of another table is refused (its table id, or its signer, is not this
    table's); a message of an earlier deal, replayed, is refused as held already (a
    duplicate) -- cheaply, with nobody blamed, and nothing changes."""
    net = make_net("copas", deals=2)
    other = make_net("copas", deals=2)
    run_to = mesh_of(net)
    run_to.start()
    _until(run_to, lambda: net.tables[0].deal_no == 1 and not run_to._queue, "the second deal")
    mesh = mesh_of(other)
    mesh.start()
    _until(mesh, lambda: other.tables[0].seq > 20, "the other table under way")
    t = net.tables[0]
    for raw in other.tables[0].log[1:6]:
        before = (t.seq, t.head)
        with pytest.raises(Rejected) as caught:
            t.receive(raw)
        assert (t.seq, t.head) == before and caught.value.blame is None
    old = [raw for i, raw in enumerate(t.log) if t.chain.deals[i] == 0 and t.chain.authors[i] == 1][:5]
    for raw in old:
        with pytest.raises(Rejected, match="replayed") as caught:
            net.tables[2].receive(raw)
        assert caught.value.blame is None


# ---------------------------------------------------------------- a restart at every step of a vote
def _vote_and_nay_pairs(signed: list[bytes]) -> list[tuple[int, int]]:
    """The places and seats for which these own messages hold both a vote and a nay."""
    kinds_at: dict[tuple[int, int], set[str]] = {}
    for raw in signed:
        h = header(raw)
        if h["kind"] in ("vote", "nay"):
            kinds_at.setdefault((h["seq"], h["body"]["against"]), set()).add(h["kind"])
    return sorted(slot for slot, ks in kinds_at.items() if ks == {"vote", "nay"})


@pytest.mark.parametrize("when", ["before-the-vote-leaves", "after-the-vote", "after-a-nay", "after-a-fork"])
def test_a_restart_at_every_step_of_a_vote_keeps_the_voter_honest(when):
    """Seat 2 votes against seat 1 at place k (seat 1's play reached every seat but seat 2)
    and its process restarts -- a fresh replica restored from its log and the votes and nays
    it kept on disk -- at one step of the vote: after signing the vote but before it left,
    right after it left, after it took the play from the others' nay, or after a fork later
    in the deal made every replica go back (after the nay, seat 0, which signed it, restarts
    too).  Then seat 3's late vote against seat 1 at k, and its own vote again, reach it (a
    restarted voter that forgot its vote would answer with a nay: a fork of its own).  Over
    every restart no honest seat signs both a vote and a nay for one place and seat, and
    each ends on the table's chain.  (With the saved votes and nays not put back, every
    case fails.)"""
    net = make_net("copas", deals=2, table_class={ATTACKER: attackers.Framer})
    held: dict[str, int] = {}

    def route(src: int, dst: int, raw: bytes) -> bytes | None:
        h = header(raw)
        if "k" not in held and src == ATTACKER and h["kind"] == "choice" and h["deal"] == 0:
            held["k"] = h["seq"]
        if dst == VOTER and held.get("k") == h["seq"] and h["author"] == ATTACKER and h["kind"] == "choice" \
                and "sent" not in held:
            return None  # (any copy, a sync's too, until seat 2's vote has left)
        return raw

    mesh = mesh_of(net, route=route)
    mesh.start()
    _until(mesh, lambda: "k" in held and net.tables[VOTER].seq == held["k"] and not mesh._queue
           and all(t.decision() is None for t in net.tables), "seat 1's play held from seat 2")
    k = held["k"]
    voter = net.tables[VOTER]
    assert ATTACKER in voter.may_vote()
    out = voter.vote(ATTACKER)
    vote = out.send[0]
    if when == "before-the-vote-leaves":
        mesh.took(VOTER, out)  # on disk, never sent: the restart sends it
        assert _restart(net, mesh, VOTER).silence.voted(ATTACKER), "the restored voter remembers its vote"
        assert any(raw == vote for _, raw in mesh.sent)
    else:
        mesh.send(VOTER, mesh.took(VOTER, out))
    held["sent"] = k
    if when == "after-the-vote":
        _restart(net, mesh, VOTER)
        # seat 1's play, relayed, reaches it before any nay: a voter holds it aside
        mesh._queue.appendleft((0, VOTER, net.tables[0].log[k]))
    _until(mesh, lambda: net.tables[VOTER].seq > k, "seat 2 took seat 1's play")
    assert net.tables[VOTER].log[k] == net.tables[0].log[k], "from a nay"
    if when == "after-a-nay":  # (seat 0, whose nay carried the play, restarts too)
        assert _nays_of(mesh, 0, k)
        _restart(net, mesh, VOTER)
        _restart(net, mesh, 0)
    if when == "after-a-fork":
        framer = net.tables[ATTACKER]
        _until(mesh, lambda: any(a == ATTACKER for a in framer.chain.authors[k + 1:]), "a later place of seat 1's")
        j = next(i for i in range(k + 1, framer.seq) if framer.chain.authors[i] == ATTACKER)
        second = framer.sign("dispute", {"against": None, "reason": "a second message", "evidence": None}, seq=j,
                             prev=framer.hashes[j - 1], deal=framer.chain.deals[j])
        mesh.send(ATTACKER, [second])
        _until(mesh, lambda: all("fork" in kinds(net.tables[s].log) for s in (0, 2, 3)), "the fork everywhere")
        _restart(net, mesh, VOTER)
    mesh._queue.extend([(3, VOTER, _late_vote(net, k)), (ATTACKER, VOTER, vote)])
    mesh.run(max_steps=STEPS)
    assert all(_vote_and_nay_pairs(mesh.signed.get(s, [])) == [] for s in (0, 2, 3)), \
        "no honest seat ever signed both a vote and a nay for one place"
    assert _nays_of(mesh, VOTER, k) == []
    assert not net.tables[ATTACKER].forks, "seat 1 got nothing to frame seat 2 with"
    log = assert_agree(net, [0, 2, 3])
    assert kinds(log).count("fork") == (when == "after-a-fork")
    assert all(v["seat"] == ATTACKER for t in net.tables for v in t.outvotes), "no honest seat is pushed out"
    assert all(d["audit"]["seat"] in (None, ATTACKER) for d in deals_of(net.observed))


# ---------------------------------------------------------------- dispute spam
class _Counts:
    """Calls of the replica's costly checks, counted (monkeypatched in place)."""

    NAMES = (("p2pcards.mental.party_rounds", "verify_shuffle"), ("p2pcards.mental.party_rounds", "verify_lock"),
             ("p2pcards.table.claims", "verify_evidence"), ("p2pcards.table.claims", "audit"),
             ("p2pcards.table.transcript", "verify"))

    def __init__(self, monkeypatch: Any) -> None:
        import importlib

        self.calls: dict[str, int] = {}
        for module, name in self.NAMES:
            mod = importlib.import_module(module)
            self.calls[name] = 0
            monkeypatch.setattr(mod, name, self._counted(name, getattr(mod, name)))
        self.calls["rebuild"] = 0
        rebuild = Table._rebuild

        def counted_rebuild(table: Table, *args: Any, **kwargs: Any) -> Any:
            self.calls["rebuild"] += 1
            return rebuild(table, *args, **kwargs)

        monkeypatch.setattr(Table, "_rebuild", counted_rebuild)

    def _counted(self, name: str, f: Any) -> Any:
        def counted(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            return f(*args, **kwargs)

        return counted

    def take(self) -> dict[str, int]:
        out = dict(self.calls)
        for name in self.calls:
            self.calls[name] = 0
        return out


def test_dispute_spam_costs_one_signature_check_each_and_draws_no_answer(monkeypatch):
    """A seat floods an honest replica with bogus disputes -- out of its turn, for places
    long past and places ahead, in another seat's name where it is its turn (not its key),
    each with 20 KB of junk evidence -- and then disputes in its turn, and sends that
    dispute again and again, and variants of it.  Every bogus one costs the replica one
    signature check at most (no proof, no evidence check, no replay, no rebuild) and draws
    no answer; the one in turn is checked once (its evidence once, the deal's audit once,
    at its close) and costs its author the deal; its copies and variants (a variant is a
    second message for the place: a fork, which a replica that has revealed its seed takes
    only on proof that its chain cannot close) cost one signature check each and draw no
    answer.  Every replica ends on one chain -- the observer's too, which sees the dispute
    and the spammer's own play for that place after the deal reached its seed round (it
    used to take that fork at once, with every seat's seed already on the dispute's chain:
    left on a chain that never closes)."""
    net = make_net("copas", deals=2)
    spammer, honest = 1, 0
    mesh = mesh_of(net)
    mesh.start()
    _until(mesh, lambda: net.tables[honest].expected() == spammer and not mesh._queue
           and net.tables[honest].seq > net.tables[honest].deal_start + 20, "seat 1's turn, the deal under way")
    counts = _Counts(monkeypatch)
    t = net.tables[honest]
    seq, head = t.seq, t.head
    junk = random.Random(1).randbytes(20_000)

    def dispute(author: int, k: int, prev: bytes, reason: str = "bogus", against: int | None = 0) -> bytes:
        return sign_message(net.ids[author], table=t.table_id, deal=t.deal_no, seq=k, prev=prev, author=author,
                            kind="dispute", body={"against": against, "reason": reason, "evidence": junk})

    bogus = [dispute(spammer, k, t.hashes[k - 1]) for k in range(t.deal_start + 1, seq)
             if t.chain.authors[k] != spammer]
    bogus += [dispute(spammer, seq + d, bytes(32)) for d in range(1, 20)]  # ahead, on no chain
    bogus += [dispute(3, seq, head, f"in seat 1's turn {i}") for i in range(20)]  # another seat, out of turn
    bogus += [dispute(spammer, seq, bytes(32), f"another chain {i}") for i in range(20)]
    answers = []
    for raw in bogus:
        try:
            answers += t.receive(raw).send
        except Rejected:
            pass
    spent = counts.take()
    assert answers == [] and (t.seq, t.head) == (seq, head), "nothing answered, nothing changed"
    assert spent["verify"] <= len(bogus), spent
    assert {k: v for k, v in spent.items() if k != "verify"} == {
        "verify_shuffle": 0, "verify_lock": 0, "verify_evidence": 0, "audit": 0, "rebuild": 0}, spent
    # the one in turn: its evidence checked once, and the deal halted
    real = dispute(spammer, seq, head, "in turn")
    first = t.receive(real)
    assert [e.type for e in first.events] == ["dispute"]
    spent = counts.take()
    assert spent["verify_evidence"] == 1 and spent["rebuild"] == 0, spent
    again = []
    for i in range(20):
        for raw in (real, dispute(spammer, seq, head, f"in turn, variant {i}")):
            try:
                again += t.receive(raw).send
            except Rejected:
                pass
    spent = counts.take()
    assert again == [], "copies and variants draw no answer"
    assert spent == {"verify_shuffle": 0, "verify_lock": 0, "verify_evidence": 0, "audit": 0, "verify": 40,
                     "rebuild": 0}, "one signature check each: no evidence check, no replay, no rebuild"
    mesh.send(honest, first.send)  # (its seed: the deal is in its seed round)
    mesh.send(spammer, [real])  # (and its own replica plays a card there: two messages for one place)
    mesh.run(max_steps=STEPS)
    assert_agree(net, [0, 2, 3])  # the observer's too: it saw both, after the deal reached its seed round
    audit = deals_of(net.observed)[0]["audit"]
    assert audit["seat"] == spammer and all(d["audit"]["seat"] in (None, spammer) for d in deals_of(net.observed))
    assert all(v["seat"] == spammer for t_ in net.tables for v in t_.outvotes), "no honest seat is pushed out"
    assert counts.take()["audit"] <= 2 * (len(net.tables) + 1), "each replica audits each deal once"
