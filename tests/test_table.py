"""The sans-IO table: distributed deals of every game over the mental deck, identical
transcripts everywhere (an observer's too), audits that pass, and bad messages refused or
blamed."""

from __future__ import annotations

import pytest

from p2pcards.core import Deal, Reveal
from p2pcards.table.audit import audit_transcript
from p2pcards.table.table import Rejected, SetupError, Table
from p2pcards.table.transcript import parse_message, sign_message
from p2pcards.table.wire import pack
from tests.table_helpers import (
    GAMES,
    REGISTRY,
    assert_agree,
    deals_of,
    header,
    inject,
    make_net,
    reencode,
    resign,
    run,
)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_whole_match_of_every_game(game):
    net = run(make_net(game, deals=None, levels=["heuristic"] * REGISTRY.get(game).seats))
    assert_agree(net)
    deals = [e for e in net.events[0] if e["type"] == "deal"]
    final = net.events[0][-1]
    assert final["type"] == "final" and final["winner"] is not None
    assert deals[-1]["match_over"] and not any(d["match_over"] for d in deals[:-1])
    assert all(d["audit"]["verdict"] == "clean" for d in deals)
    # the offline audit of the saved transcript agrees
    report = audit_transcript(net.tables[0].log, REGISTRY)
    assert report["ok"] and report["error"] is None
    assert report["totals"] == final["totals"] and report["winner"] == final["winner"]
    assert [d["result"] for d in report["deals"]] == [d["result"] for d in deals]
    assert report["transcript_hash"] == final["transcript_hash"]


def test_each_peer_sees_only_its_own_cards_during_play():
    net = make_net("sueca", deals=1)
    seen = []

    def spy(net, author, raw):
        for t in net.tables:
            if t.game is not None and t.stage == "play":
                known = {p for p, c in enumerate(t.game.deck.cards) if c is not None}
                mine = set(t.game.deck.hands[t.seat])
                public = t.game.shown
                seen.append(known <= mine | public | _played_or_passed(t))

    run(net, tamper=spy)
    assert seen and all(seen)


def _played_or_passed(t):
    from p2pcards.core import PLAYED

    return {p for p, o in enumerate(t.game.deck.owner) if o == PLAYED}


def test_variants_travel_in_the_genesis():
    net = run(make_net("bisca", deals=1, options={"hand": "9", "swap2": "on"}))
    assert_agree(net)
    assert net.tables[0].options["hand"] == 9
    assert len(net.tables[0].match.results[0]["tricks"]) == 2


# ---------------------------------------------------------------- bad messages
def test_bad_messages_are_refused_and_the_match_still_finishes():
    found = {}
    steps = [0]

    def tamper(net, author, raw):
        msg = header(raw)
        if msg["kind"] not in ("deck", "choice", "locate"):
            return
        steps[0] += 1
        n = steps[0]
        if n == 3:  # forged signature: another key signs in the author's name
            forged = sign_message(net.ids[(author + 1) % 4], table=msg["table"], deal=msg["deal"], seq=msg["seq"],
                                  prev=msg["prev"], author=author, kind=msg["kind"], body=msg["body"])
            found["forged"] = inject(net, forged, skip=author)
        elif n == 10:  # broken chain: a correctly signed message with the wrong prev
            found["chain"] = inject(net, resign(net.ids[author], raw, prev=bytes(32)), skip=author)
        elif n == 20:  # a replay of an earlier message
            found["replay"] = inject(net, net.tables[author].log[5], skip=None)
        elif n == 30:  # garbage, an old-version message and another encoding of the same one
            found["garbage"] = inject(net, b"\x93\x01\x02", skip=None) + inject(net, b"", skip=None)
            found["version"] = inject(net, pack({**msg, "v": 1, "sig": bytes(64)}), skip=None)
            found["noncanonical"] = inject(net, reencode(raw), skip=author)
        elif n == 40:  # another table's message
            found["table"] = inject(net, resign(net.ids[author], raw, table=bytes(32)), skip=author)
        elif n == 50:  # out of turn: a seat that is not the author writes the next message
            other = (author + 1) % 4
            bogus = sign_message(net.ids[other], table=msg["table"], deal=msg["deal"], seq=msg["seq"],
                                 prev=msg["prev"], author=other, kind=msg["kind"], body=msg["body"])
            found["turn"] = inject(net, bogus, skip=(author, other))

    net = run(make_net("sueca", deals=1), tamper=tamper)
    assert_agree(net)
    assert set(found) == {"forged", "chain", "replay", "garbage", "version", "noncanonical", "table", "turn"}
    assert all("bad signature" in e.reason and e.blame is None for e in found["forged"])
    assert all("chain mismatch" in e.reason for e in found["chain"])
    assert all("replayed" in e.reason or "stale" in e.reason for e in found["replay"])
    assert all("version 1" in e.reason for e in found["version"])
    assert all("canonical" in e.reason for e in found["noncanonical"])
    assert all(e.blame is None for e in found["garbage"] + found["noncanonical"] + found["version"])
    assert all("another table" in e.reason for e in found["table"])
    assert all("out of turn" in e.reason and e.blame is not None for e in found["turn"])
    assert deals_of(net.events[0])[0]["audit"]["verdict"] == "clean"


def test_the_chain_links_what_is_signed_not_the_signature():
    """A message's hash is that of its signed body: another signature of the same body
    (only its author could make one) would be the same message, never a fork."""
    from p2pcards.table.transcript import message_hash
    from p2pcards.table.wire import unpack

    net = run(make_net("bisca", deals=1))
    t = net.tables[0]
    raw = t.log[3]
    body, sig = unpack(raw)
    assert message_hash(pack([body, bytes(64)])) == message_hash(raw) == t.hashes[3]
    with pytest.raises(Rejected, match="replayed"):
        t.receive(raw)


def test_an_illegal_choice_in_turn_is_refused_and_blamed():
    net = make_net("sueca", deals=1)
    done = []

    def tamper(net, author, raw):
        env = parse_message(raw, net.tables[0].keys)
        if env.kind == "choice" and not done:
            done.append(1)
            nobody_holds = 10_000
            bad = resign(net.ids[author], raw, body={"choice": nobody_holds, "msgs": []})
            errors = inject(net, bad, skip=author)
            assert all(e.blame == author and "illegal choice" in e.reason for e in errors)
            wrong_kind = resign(net.ids[author], raw, kind="deck", body={"msgs": []})
            errors = inject(net, wrong_kind, skip=author)
            assert all(e.blame == author for e in errors)

    run(net, tamper=tamper)
    assert done and all(t.finished for t in net.tables)


# ---------------------------------------------------------------- cheating peers
class Revoker(Table):
    """A modified client that revokes (fails to follow suit) once, when it can."""

    cheated = False

    def decide(self, choice):
        view = self.view()
        if not Revoker.cheated and view.trick:
            led = view.trick[0][1][1]
            hand = view.hand
            if any(c[1] == led for _, c in hand):
                wrong = [p for p, c in hand if c[1] != led]
                if wrong:
                    Revoker.cheated = True
                    return super().decide(wrong[0])
        return super().decide(choice)


def test_a_hidden_renuncia_is_found_by_the_audit_and_penalised():
    Revoker.cheated = False
    net = run(make_net("sueca", deals=3, table_class={1: Revoker}))
    assert_agree(net)
    assert Revoker.cheated
    verdicts = [e["audit"] for e in net.events[0] if e["type"] == "deal"]
    bad = [v for v in verdicts if v["verdict"] == "renuncia"]
    assert len(bad) == 1 and bad[0]["seat"] == 1
    deal = next(e for e in net.events[0] if e["type"] == "deal" and e["audit"]["verdict"] == "renuncia")
    assert deal["result"]["game_points"] == [4, 0], "the opponents of the offending team score 4"
    report = audit_transcript(net.tables[2].log, REGISTRY)
    assert not report["ok"] and any(d["verdict"] == "renuncia" and d["seat"] == 1 for d in report["deals"])


class BadShuffler(Table):
    """A modified client whose shuffle is not the one its seed dictates."""

    def _start_deal(self):
        super()._start_deal()
        party = self.party
        honest = party._shuffled

        def rotated():
            deck = honest()
            return deck[1:] + deck[:1]

        party._shuffled = rotated


def test_a_bad_shuffle_is_refused_at_once_by_its_proof_and_the_deal_lost():
    net = run(make_net("sueca", deals=2, table_class={2: BadShuffler}), tolerate=True)
    assert_agree(net, honest=[0, 1, 3])  # the cheater trusts its own shuffle
    (deal,) = deals_of(net.events[0])  # 4 game points end a Sueca match (a bandeira)
    assert deal["audit"]["verdict"] == "fault" and deal["audit"]["seat"] == 2
    assert "shuffle" in deal["audit"]["kind"] and deal["result"]["renuncia"] == 2
    assert "proof" in deal["audit"]["reason"], "found by the shuffle's proof, before any card was dealt"
    assert deal["result"]["game_points"] == [0, 4], "the cheat's team loses the deal, as for a renúncia"
    assert net.events[0][-1]["totals"] == [0, 4] and deal["match_over"]


def test_offline_audit_catches_a_flipped_byte():
    net = run(make_net("bisca", deals=1))
    log = list(net.tables[0].log)
    assert audit_transcript(log, REGISTRY)["ok"]
    for seq in (0, 7, len(log) - 1):
        raw = bytearray(log[seq])
        raw[len(raw) // 2] ^= 0x01
        bad = log[:seq] + [bytes(raw)] + log[seq + 1 :]
        report = audit_transcript(bad, REGISTRY)
        assert not report["ok"] and report["error"]["seq"] == seq


def test_offline_audit_reports_an_unfinished_last_deal():
    net = run(make_net("sueca", deals=1))
    log = net.tables[0].log
    report = audit_transcript(log[:40], REGISTRY)
    assert report["ok"] and report["deals"][-1]["verdict"] == "incomplete"
    assert audit_transcript([], REGISTRY)["error"]["reason"] == "empty transcript"
    assert "bad genesis" in audit_transcript([pack({"x": 1})], REGISTRY)["error"]["reason"]
    assert "protocol version" in audit_transcript([pack({"v": 1, "x": 1})], REGISTRY)["error"]["reason"]


@pytest.mark.parametrize("cut", [3, 17, 45, 70])
def test_a_replica_restored_from_its_log_carries_on(cut):
    """A peer that crashed rebuilds itself from its saved transcript and secret, then
    receives what it missed; the match ends with identical transcripts."""
    net = make_net("copas", deals=1)
    crashed = 2
    saved: list[bytes] = []

    def crash(mesh):
        if len(net.tables[crashed].log) >= cut and not saved:
            saved.extend(net.tables[crashed].log)

    run(net, after=crash)
    assert saved, "the crash point was reached"
    full = net.tables[crashed].log
    # rebuild the crashed seat from what it had saved, then give it what it missed
    fresh = Table(net.genesis, net.spec, net.ids[crashed], net.secrets[crashed])
    fresh.restore(saved)
    for raw in full[len(saved):]:
        env = parse_message(raw, fresh.keys)
        if env.author == crashed:
            if env.kind == "choice":
                fresh.decide(env.body["choice"])
            assert fresh.log[env.seq] == raw
        elif env.seq >= fresh.seq:
            fresh.receive(raw)
        for _, side in net.mesh.sent:  # the seeds of the deal it missed come again
            if env.seq + 1 == fresh.seq and fresh.stage == "seeds":
                try:
                    fresh.receive(side)
                except Rejected:
                    pass
    assert fresh.log == full and fresh.finished
    assert fresh.results == net.tables[crashed].results


def test_restore_refuses_a_tampered_log():
    net = run(make_net("bisca", deals=1))
    t0 = net.tables[0]
    fresh = Table(net.genesis, REGISTRY.get("bisca"), net.ids[0], b"another secret, 32 bytes long...")
    with pytest.raises(SetupError, match="not what this seat would write"):
        fresh.restore(t0.log)


class WrongKeySender(Table):
    """A modified client that seals one wrong key to another seat in the first deal."""

    def _start_deal(self):
        super()._start_deal()
        from p2pcards.mental.seal import KeyEntry

        party = self.party
        honest = party._sealed

        def corrupt(step, kind, to, positions, entries):
            if self.deal_no == 0 and not getattr(self, "cheated", False):
                self.cheated = True
                first = entries[0]
                entries = (KeyEntry(position=first.position, seat=first.seat, key=(5).to_bytes(32, "little")),
                           *entries[1:])
            return honest(step, kind, to, positions, entries)

        party._sealed = corrupt


def test_a_wrong_sealed_key_is_disputed_with_evidence_and_every_replica_agrees():
    net = run(make_net("sueca", deals=2, options={"target": "8"}, table_class={1: WrongKeySender}))
    assert net.tables[1].cheated
    log = assert_agree(net)
    deals = deals_of(net.events[0])
    assert deals[0]["audit"]["verdict"] == "fault" and deals[0]["audit"]["seat"] == 1
    assert deals[0]["audit"]["kind"] == "bad-key" and deals[0]["result"]["game_points"] == [4, 0]
    assert deals[1]["audit"]["verdict"] == "clean"
    disputes = [parse_message(raw, net.tables[0].keys) for raw in log[1:]]
    disputes = [e for e in disputes if e.kind == "dispute"]
    assert len(disputes) == 1 and disputes[0].body["against"] == 1 and disputes[0].author != 1
    assert disputes[0].body["evidence"] is not None
    report = audit_transcript(log, REGISTRY)
    assert report["error"] is None and not report["ok"]
    assert [d["verdict"] for d in report["deals"]] == ["fault", "clean"] and report["deals"][0]["seat"] == 1


def _keys_messages(table: Table, deal: int = 0) -> list[tuple[int, list[tuple[int, int]]]]:
    """Per table message of ``deal`` that carries sealed keys: its author and (step, to) of each."""
    keys = [s["signing"] for s in parse_message(table.log[0], None).body["seats"]]
    out = []
    for raw in table.log[1:]:
        env = parse_message(raw, keys)
        if env.certificate:
            continue
        sealed = [(m["step"], m["to"]) for m in env.body.get("msgs", []) if m.get("kind") == "keys"]
        if env.deal == deal and sealed:
            out.append((env.author, sealed))
    return out


@pytest.mark.parametrize(("game", "hands"), [("sueca", 4), ("copas", 4)])
def test_an_opening_deal_of_several_hands_is_one_round_of_keys(game, hands):
    """Each seat sends its keys for every hand in one message, in seat order: 4 hops, not 12."""
    net = run(make_net(game))
    assert_agree(net)
    opening = _keys_messages(net.tables[0])[:hands]
    assert [author for author, _ in opening] == list(range(hands))
    for author, sealed in opening:
        assert len(sealed) == hands - 1 and author not in {to for _, to in sealed}
        assert [step for step, _ in sealed] == sorted(step for step, _ in sealed)


def test_only_deals_that_do_not_depend_on_each_other_are_dealt_ahead():
    """DealState.deals_ahead: the stock deals queued after the pending one, up to the first
    other step, a pass, or a deal whose handler may change what follows."""
    spec = REGISTRY.get("sueca")
    state = spec.new_match(spec.resolve_options({}), 0).new_deal(None)
    opening = state.deals_ahead()
    assert len(opening) == 3 and all(isinstance(d, Deal) for d in opening)
    queue = state._queue
    cases = [
        ([(Deal(1, (0,)), None), (Deal(2, (1,)), "_on_draw"), (Deal(3, (2,)), None)], 2),
        ([(Deal(1, (0,)), None), (Deal(2, (1,)), "_on_dealt"), (Deal(3, (2,)), None)], 1),
        ([(Deal(1, (0,)), None), (Reveal((0,), 1), None), (Deal(3, (2,)), None)], 0),
        ([(Deal(1, (0,)), None), (Deal(2, (1,), source=1), None)], 0),
        ([(Deal(1, (0,)), "_on_dealt"), (Deal(2, (1,)), None)], 0),
        ([(Reveal((0,), 1), None), (Deal(2, (1,)), None)], 0),
    ]
    for steps, ahead in cases:
        queue.clear()
        queue.extend(steps)
        assert len(state.deals_ahead()) == ahead, steps
