"""Taking an abandoned two-seat match up again, in memory (tests/attackers.py's Retaker):
both seats write a ``takeup`` after the abandon and the match goes on to its end, the
abandoned deal void; a takeup where none may be is refused and blamed on its author by every
honest replica and the observer; a restart between the abandon and the takeups changes
nothing.  protocol/PROTOCOL.md, "Two seats: abandoning"."""

from __future__ import annotations

from typing import Any

import pytest

from p2pcards.identity import Identity
from p2pcards.table.audit import audit_transcript
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import VERSION, canonical, sign_message
from p2pcards.table.wire import pack, unpack
from tests import attackers
from tests.table_helpers import REGISTRY, assert_agree, deals_of, header, kinds, make_net, mesh_of, step_until

STEPS = 20_000


def _until(mesh: Any, done: Any, what: str) -> None:
    step_until(mesh, done, what, STEPS)


def _abandoned(table_class: dict[int, type[Table]] | None = None) -> tuple[Any, Any, int]:
    """A two-seat Bisca match to 8, abandoned by the seat behind after a deal: the net, its
    mesh (quiet) and the seat that abandoned."""
    net = make_net("bisca", deals=None, options={"target": "8"}, table_class=table_class)
    mesh = mesh_of(net)
    mesh.start()
    _until(mesh, lambda: net.tables[0].match is not None and net.tables[0].deals_done >= 1
           and len(set(net.tables[0].match.totals)) == 2 and not mesh._queue, "a deal that left one seat behind")
    totals = list(net.tables[0].match.totals)
    loser = totals.index(min(totals))
    t = net.tables[loser]
    _until(mesh, lambda: t.may_abandon() and not mesh._queue, "the other seat due")
    mesh.send(loser, mesh.took(loser, t.abandon()))
    mesh.run(max_steps=STEPS)
    assert all(x.finished and x.abandoned is not None for x in [*net.tables, net.observer])
    return net, mesh, loser


def _take_up(mesh: Any, seat: int) -> None:
    t = mesh.tables[seat]
    mesh.send(seat, mesh.took(seat, t.takeup()))


def _blamed(mesh: Any) -> set[int | None]:
    return {exc.blame for _, _, exc in mesh.rejected if exc.blame is not None}


def _played_to_its_end(net: Any, mesh: Any, abandoned_by: int, abandoned_deal: int) -> None:
    mesh.run(max_steps=200_000)
    log = assert_agree(net)
    assert kinds(log).count("takeup") == 2
    ends = [e for e in net.observed if e["type"] == "final"]  # (the abandon's end, then the match's)
    assert [e["abandoned"] is None for e in ends] == [False, True] and ends[-1]["winner"] is not None
    end = ends[-1]
    assert [(a["by"], a["deal"], a["taken_up"]) for a in end["abandons"]] == [(abandoned_by, abandoned_deal, True)]
    for s in range(2):
        assert [e for e in net.events[s] if e["type"] == "final"][-1]["abandons"] == end["abandons"]
    void = [d for d in deals_of(net.observed) if d["deal"] == abandoned_deal]
    assert len(void) == 1 and void[0]["audit"]["verdict"] == "void" and void[0]["audit"]["kind"] == "abandon"
    assert any(e["type"] == "taken_up" for e in net.observed)
    report = audit_transcript(log, REGISTRY)
    assert report["ok"] and report["finished"] and report["abandoned"] is None and report["winner"] is not None
    assert report["abandons"] == end["abandons"]
    assert {t.transcript_hash for t in [*net.tables, net.observer]} == {end["transcript_hash"]}


@pytest.mark.parametrize("order", ["together", "abandoner-first", "other-first"])
def test_both_seats_take_up_an_abandoned_match_and_it_is_played_to_its_end(order):
    """After an abandon, each seat writes its takeup (at once -- both at one place, where the
    lower seat's takes it -- or one after the other): the abandoned deal closes void, the
    next deal starts, and the match is played to a winner; every replica and the observer
    hold one transcript and the same verdicts, and the end still lists the abandon."""
    net, mesh, loser = _abandoned()
    deal = net.tables[0].deal_no
    first, second = (loser, 1 - loser) if order != "other-first" else (1 - loser, loser)
    _take_up(mesh, first)
    if order != "together":
        mesh.run(max_steps=STEPS)
        assert all(x.finished and x.awaiting_takeup() == {second} for x in [*net.tables, net.observer])
    _take_up(mesh, second)
    _played_to_its_end(net, mesh, loser, deal)
    assert not _blamed(mesh), "nobody is blamed"
    if order == "together":  # the higher seat's takeup lost its place, and was written again after the lower's
        assert mesh.superseded.get(1) and not mesh.superseded.get(0)


def _refused_by_every_honest_replica(net: Any, raw: bytes, honest: int, blame: int | None) -> None:
    for t in (net.tables[honest], net.observer):
        before = (t.seq, t.head)
        with pytest.raises(Rejected) as caught:
            t.receive(raw)
        assert caught.value.blame == blame, caught.value.reason
        assert (t.seq, t.head) == before


def test_a_takeup_while_the_table_is_in_play_is_refused_and_blamed():
    """Seat 1 signs a takeup while the match is in play (nothing was abandoned): seat 0 and
    the observer refuse it and blame seat 1; the match is played on to its end."""
    net = make_net("bisca", deals=None, options={"target": "8"}, table_class={1: attackers.Retaker})
    mesh = mesh_of(net)
    mesh.start()
    _until(mesh, lambda: net.tables[0].seq > 12 and not mesh._queue, "the match under way")
    cheat = net.tables[1]
    assert isinstance(cheat, attackers.Retaker)
    raw = cheat.forged_takeup(after=5)
    _refused_by_every_honest_replica(net, raw, 0, 1)
    mesh.run(max_steps=200_000)
    assert_agree(net)
    assert "takeup" not in kinds(net.observer.log)


@pytest.mark.parametrize("attack", ["wrong-after", "twice"])
def test_a_bad_takeup_of_an_abandoned_table_is_refused_and_blamed(attack):
    """At an abandoned table, the seat that cheats signs a takeup naming another seq than
    the abandon's, or a second one after its own: the other seat and the observer refuse it
    and blame it; then both seats take the table up in earnest and the match ends."""
    net, mesh, loser = _abandoned(table_class={0: attackers.Retaker})
    cheat = net.tables[0]
    assert isinstance(cheat, attackers.Retaker)
    if attack == "twice":
        _take_up(mesh, 0)
        mesh.run(max_steps=STEPS)
        raw = cheat.forged_takeup()
    else:
        raw = cheat.forged_takeup(after=int(cheat.abandons[-1]["seq"]) - 1)
    assert cheat.tried
    _refused_by_every_honest_replica(net, raw, 1, 0)
    if attack != "twice":
        _take_up(mesh, 0)
    _take_up(mesh, 1)
    _played_to_its_end(net, mesh, loser, _abandoned_deal(net))
    assert _blamed(mesh) <= {0}


def _abandoned_deal(net: Any) -> int:
    return int(net.observer.abandons[-1]["deal"])


def test_a_takeup_signed_by_no_seat_is_refused():
    """A takeup in a seat's name signed by another key (a stranger's, the host's) is
    refused by every replica -- nobody can be blamed for it -- and the table still waits
    for its seats' own."""
    net, mesh, loser = _abandoned()
    t = net.tables[0]
    stranger = Identity.generate("stranger")
    after = t.abandons[-1]["seq"]
    for author in (0, 1, -1):
        raw = sign_message(stranger, table=t.table_id, deal=t.deal_no, seq=t.seq, prev=t.head, author=author,
                           kind="takeup", body={"after": after})
        for s in (0, 1):
            with pytest.raises(Rejected) as caught:
                net.tables[s].receive(raw)
            assert caught.value.blame is None
        with pytest.raises(Rejected):
            net.observer.receive(raw)
    assert all(x.finished and x.awaiting_takeup() == {0, 1} for x in [*net.tables, net.observer])
    _take_up(mesh, 1)
    _take_up(mesh, 0)
    _played_to_its_end(net, mesh, loser, _abandoned_deal(net))


def test_the_seat_that_abandoned_restarts_and_the_table_is_still_taken_up():
    """The seat that abandoned restarts from its saved log between the abandon and the
    takeups (what ``p2pcards resume`` does): its replica is the same, the takeups work,
    nobody is blamed; and again after its own takeup, before the other's."""
    net, mesh, loser = _abandoned()

    def restart() -> None:
        old = net.tables[loser]
        fresh = Table(net.genesis, net.spec, net.ids[loser], net.secrets[loser])
        out = fresh.restore(list(old.log), list(mesh.signed.get(loser, [])))
        assert fresh.log == old.log and fresh.abandoned == old.abandoned and fresh.takeups == old.takeups
        net.tables[loser] = mesh.tables[loser] = fresh
        mesh.send(loser, out.send)

    deal = _abandoned_deal(net)
    restart()
    _take_up(mesh, loser)
    mesh.run(max_steps=STEPS)
    restart()
    assert not net.tables[loser].may_take_up() and net.tables[loser].awaiting_takeup() == {1 - loser}
    _take_up(mesh, 1 - loser)
    _played_to_its_end(net, mesh, loser, deal)
    assert not _blamed(mesh)


def test_a_transcript_of_protocol_version_3_is_refused_with_a_version_error():
    """Version 4 added the takeup: a message of version 3, correctly signed, is refused as
    of another protocol version (the audit says so), not as malformed."""
    assert VERSION == 4
    net, _, _ = _abandoned()
    log = net.tables[0].log
    body, sig = unpack(log[1])
    old = unpack(body)
    old["v"] = 3
    raw = pack([canonical(old), sig])
    with pytest.raises(Rejected, match="protocol version"):
        net.observer.receive(raw)
    genesis = unpack(unpack(log[0])[0])
    genesis["v"] = 3
    report = audit_transcript([pack([canonical(genesis), unpack(log[0])[1]])], REGISTRY)
    assert "protocol version" in report["error"]["reason"]


def test_only_the_abandon_that_ended_the_table_is_abandoned_at_its_end():
    """A table abandoned twice and taken up once ends abandoned by the second abandon, and
    its end lists both."""
    net, mesh, loser = _abandoned()
    _take_up(mesh, 0)
    _take_up(mesh, 1)
    _until(mesh, lambda: any(t.may_abandon() for t in net.tables) and not mesh._queue, "a seat due again")
    by = next(s for s, t in enumerate(net.tables) if t.may_abandon())
    mesh.send(by, mesh.took(by, net.tables[by].abandon()))
    mesh.run(max_steps=STEPS)
    ends = [e for e in net.observed if e["type"] == "final"]
    assert ends[-1]["abandoned"] is not None and ends[-1]["abandoned"]["by"] == by
    assert [a["taken_up"] for a in ends[-1]["abandons"]] == [True, False]
    assert {header(r)["kind"] for r in net.observer.log[1:]} >= {"abandon", "takeup"}
    assert not _blamed(mesh)


#: The seat that abandons in the tests of an abandon crossing the other seat's message, and the other.
LOSER, OTHER = 1, 0


def _abandoned_while_in_flight(kind: str, back: int, what: str) -> tuple[Any, Any]:
    """A Bisca match to 8 whose seat :data:`LOSER` abandons, once a deal has closed, the moment
    its own ``kind`` message for its seq minus ``back`` is the next to reach :data:`OTHER` (whose
    answer, due at once, crosses the abandon); run until quiet.  The net and its mesh."""
    net = make_net("bisca", deals=None, options={"target": "8"})
    mesh = mesh_of(net)
    mesh.start()
    t = net.tables[LOSER]

    def in_flight() -> bool:
        q = mesh._queue
        return bool(t.deals_done >= 1 and t.may_abandon() and q and q[0][0] == LOSER and q[0][1] == OTHER
                    and header(q[0][2])["kind"] == kind and header(q[0][2])["seq"] == t.seq - back)

    _until(mesh, in_flight, what)
    mesh.send(LOSER, mesh.took(LOSER, t.abandon()))
    mesh.run(max_steps=STEPS)
    return net, mesh


def _restart(net: Any, mesh: Any, seat: int) -> None:
    """``seat``'s replica restored from its log and what it signed, in its place: the same log."""
    old = net.tables[seat]
    fresh = Table(net.genesis, net.spec, net.ids[seat], net.secrets[seat])
    fresh.restore(list(old.log), list(mesh.signed.get(seat, [])))
    assert fresh.log == old.log and fresh.abandoned == old.abandoned
    net.tables[seat] = mesh.tables[seat] = fresh


def test_a_seat_whose_own_entry_the_abandon_took_the_place_of_restarts_and_takes_up():
    """The abandon takes the place of the other seat's own entry, written at once (a deck
    message in flight): that seat keeps its entry apart.  Restarted from its log, it writes
    nothing of its own where the abandon is -- the log is sound -- and the table is taken
    up and played to its end."""
    net, mesh = _abandoned_while_in_flight("deck", 1, "an entry of the abandoning seat in flight, the other's "
                                                      "answer due at once")
    assert mesh.superseded.get(OTHER), "the other seat's own entry lost its place to the abandon"
    _restart(net, mesh, OTHER)
    _take_up(mesh, 0)
    _take_up(mesh, 1)
    _played_to_its_end(net, mesh, LOSER, _abandoned_deal(net))
    assert not _blamed(mesh)


def test_an_abandon_takes_the_place_of_the_close_the_other_seat_wrote_with_the_last_seed():
    """The seat that abandons has revealed its seed at a deal's end and waits for the
    other's; the other takes that seed and writes the close -- at the place of the abandon,
    which crossed it.  The abandon keeps the place on every replica, the observer's too (the
    seat that closed relays it: PROTOCOL.md), not a close on one and an abandon on the
    other, each waiting for the other seat for ever; the seat that closed restarts from its
    log, and the table is taken up and played to its end, nobody blamed."""
    net, mesh = _abandoned_while_in_flight("seed", 0, "the abandoning seat's seed in flight, the other's seed "
                                                      "(and the close) due")
    t, other = net.tables[LOSER], net.tables[OTHER]
    assert mesh.superseded.get(OTHER), "the other seat's close lost its place to the abandon"
    assert other.log == t.log == net.observer.log and t.abandoned is not None
    assert other.abandoned == net.observer.abandoned == t.abandoned
    _restart(net, mesh, OTHER)  # it writes no close where the abandon is
    deal = _abandoned_deal(net)
    _take_up(mesh, 0)
    _take_up(mesh, 1)
    mesh.run(max_steps=200_000)
    assert len({b"".join(x.log) for x in [*net.tables, net.observer]}) == 1
    report = audit_transcript(net.observer.log, REGISTRY)
    assert report["ok"] and report["finished"] and report["winner"] is not None
    assert [(a["by"], a["deal"], a["taken_up"]) for a in report["abandons"]] == [(LOSER, deal, True)]
    assert report["deals"][deal]["verdict"] == "void"
    # the seat that closed (and the observer) told the deal's close, then the void: the later word holds
    last = [{d["deal"]: d for d in deals_of(events)} for events in [*net.events, net.observed]]
    assert all(words == last[0] for words in last) and last[0][deal]["audit"]["verdict"] == "void"
    assert not _blamed(mesh)


def test_the_history_of_a_taken_up_match_says_it_finished_and_keeps_the_abandon(tmp_path):
    """The history hears the abandon's end, the takeup and the match's end, in that order
    (as a live process tells them): the match is "finished", with its winner, and its line
    still says who abandoned and that the table was taken up again; told again (a resumed
    process tells its past), nothing changes."""
    from p2pcards.history.db import History, table_facts
    from p2pcards.history.stats import history_line
    from p2pcards.table.transcript import Genesis, parse_message
    from p2pcards.words import Text

    net, mesh, loser = _abandoned()
    _take_up(mesh, 0)
    _take_up(mesh, 1)
    mesh.run(max_steps=200_000)
    genesis = Genesis.from_body(parse_message(net.genesis, None).body)
    facts = table_facts(genesis, net.spec, 0)
    with History(tmp_path / "h.sqlite") as history:
        for _ in range(2):
            for event in net.observed:
                history.record(facts, event)
            match = history.matches()[0]
            assert match["ended"] == "finished" and match["winner"] is not None and match["abandoned"] is None
            assert [(a["by"], a["taken_up"]) for a in match["abandons"]] == [(loser, True)]
    line = history_line(match, Text("en"))
    assert f"abandoned by seat {loser + 1}" in line and "taken up again" in line, line


def test_your_tables_takes_an_abandoned_lan_table_up_again(tmp_path):
    """On the start screen, Enter on an abandoned LAN table resumes it (which takes it up);
    a table against the computer that was thrown away stays over."""
    from p2pcards.tui.start_model import SavedEntry, StartModel
    from p2pcards.words import Text

    chosen: list[Any] = []
    model = StartModel([REGISTRY.get("bisca")], Text("en"))
    model.on_exit = chosen.append
    model._enter_saved(SavedEntry("ab" * 32, "bisca", "host", "4000", "abandoned", tmp_path / "m.json"))
    assert [c.kind for c in chosen] == ["resume"]
    model._enter_saved(SavedEntry("cd" * 32, "bisca", "local", "", "abandoned", tmp_path / "l.json"))
    assert len(chosen) == 1 and model.error


def test_a_takeup_by_a_seat_voted_out_is_refused_and_blamed():
    """At a table of four whose seats 2 and 3 were voted out (dummies), seats 0 and 1 play
    on as a table of two; seat 0 abandons.  Seat 2 -- a seat, but no playing one -- signs
    a takeup: seats 0 and 1 and the observer refuse it and blame seat 2."""
    net = make_net("copas", deals=3)
    mesh = mesh_of(net, silent={3})
    mesh.start()
    t = net.tables[0]
    _until(mesh, lambda: t.dummies == [3], "seat 3 voted out")
    mesh.silent.add(2)
    _until(mesh, lambda: t.dummies == [2, 3] and t.may_abandon() and not mesh._queue, "seat 2 voted out too")
    mesh.send(0, mesh.took(0, t.abandon()))
    mesh.run(max_steps=STEPS)
    assert net.tables[1].abandoned is not None and net.observer.abandoned is not None
    raw = sign_message(net.ids[2], table=t.table_id, deal=t.deal_no, seq=t.seq, prev=t.head, author=2,
                       kind="takeup", body={"after": t.abandon_seq()})
    for x in (net.tables[0], net.tables[1], net.observer):
        with pytest.raises(Rejected) as caught:
            x.receive(raw)
        assert caught.value.blame == 2, caught.value.reason
    assert net.tables[1].awaiting_takeup() == {0, 1}


def test_a_first_deal_abandoned_before_its_deck_was_locked_is_taken_up():
    """Seat 1 abandons before anything is dealt (seat 0 owes its first commitment): there
    is no match yet, so no first dealer.  Taken up, the first dealer is drawn as from a
    close with no seeds, the same at every replica, and the match is played to its end."""
    net = make_net("bisca", deals=None, options={"target": "8"})
    t = net.tables[1]
    assert t.may_abandon() and t.match is None
    mesh = mesh_of(net)
    mesh.send(1, mesh.took(1, t.abandon()))
    mesh.run(max_steps=STEPS)
    assert all(x.abandoned is not None and x.match is None for x in [*net.tables, net.observer])
    _take_up(mesh, 0)
    _take_up(mesh, 1)
    _played_to_its_end(net, mesh, 1, 0)
    assert not _blamed(mesh)


@pytest.mark.parametrize("early_first", [True, False], ids=["shown-before-the-other-s", "shown-after-the-other-s"])
def test_a_lower_seat_s_takeup_signed_at_two_places_and_shown_apart_ends_on_one_chain(early_first):
    """At a table of four whose seats 2 and 3 were voted out (their replicas watch, linked
    again), seat 0 -- the lower playing seat, dishonest -- abandons, then signs its takeup
    twice: at the first place after the abandon, shown to the watching seats 2 and 3 only
    (before or after seat 1's own takeup reaches them), and after seat 1's takeup, shown to
    seat 1 only.  The lower seat's takeup takes the first place (PROTOCOL.md): whoever holds
    it relays it to whoever holds the other, so seat 1 takes it in place of its own and
    writes its takeup again after it, and every replica -- seated, watching, the observer --
    ends on one chain; nobody honest is blamed."""
    net = make_net("copas", deals=5, table_class={0: attackers.Retaker})
    mesh = mesh_of(net, silent={3})
    mesh.start()
    liar = net.tables[0]
    assert isinstance(liar, attackers.Retaker)
    _until(mesh, lambda: liar.dummies == [3], "seat 3 voted out")
    mesh.silent.add(2)
    _until(mesh, lambda: liar.dummies == [2, 3] and liar.may_abandon() and not mesh._queue, "seat 2 voted out too")
    mesh.send(0, mesh.took(0, liar.abandon()))
    mesh.silent -= {2, 3}  # the voted-out seats' processes come back, and watch
    mesh.run(max_steps=STEPS)
    assert all(x.abandoned is not None for x in [*net.tables, net.observer])
    after = liar.abandon_seq()
    assert after is not None
    early = liar.sign("takeup", {"after": after}, seq=after + 1, prev=liar.hashes[after],
                      deal=liar.chain.deal_at(after + 1, liar.deal_no))
    honest = net.tables[1].takeup()
    shown = [(0, watcher, early) for watcher in (2, 3)]
    if early_first:  # the watchers hold the liar's first takeup when seat 1's reaches them
        mesh._queue.extend(shown)
    mesh.send(1, mesh.took(1, honest))
    while liar.seq == after + 1:  # seat 1's takeup reaches the liar
        assert mesh.step()
    late = mesh.took(0, liar.takeup())  # the liar's takeup after seat 1's, for seat 1 only
    mesh._queue.extend((0, 1, raw) for raw in late)
    if not early_first:  # seat 1 took the liar's second takeup when the watchers see its first
        mesh._queue.extend(shown)
    mesh.run(max_steps=200_000)
    log = assert_agree(net, honest=[1, 2, 3])
    assert log[after + 1] == early and kinds(log)[after + 1:after + 3] == ["takeup", "takeup"]
    assert not _blamed(mesh) - {0}, "nobody honest is blamed"
