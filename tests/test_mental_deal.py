"""Whole deals: every seat ends with exactly its cards; operations, no-ops and misuse."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p2pcards.mental import (
    FRENCH_DECK,
    PORTUGUESE_DECK,
    DeckFault,
    FaultKind,
    Kind,
    LocalError,
    Phase,
    audit,
)
from p2pcards.mental.messages import Wire
from tests.mental_helpers import Pool, Seats, ready_table


@pytest.mark.parametrize(
    ("n", "deck"),
    [(2, PORTUGUESE_DECK), (2, FRENCH_DECK), (4, PORTUGUESE_DECK), (4, FRENCH_DECK)],
    ids=["2x40", "2x52", "4x40", "4x52"],
)
def test_full_deal_every_seat_gets_exactly_its_cards(n: int, deck: tuple[str, ...]) -> None:
    seats = Seats(n, len(deck), salt=f"full {n} {len(deck)}", deck=deck)
    table = seats.table()
    table.start()
    assert all(p.phase is Phase.READY for p in table.parties)
    size = len(deck) // n
    for s in range(n):
        table.deal(range(s * size, (s + 1) * size), s, deliver=False)
    table.deliver()
    report = audit(seats.setup, table.messages(), seats.seed_map())
    assert report.clean and report.cards is not None
    assert sorted(report.cards) == sorted(deck)
    for party in table.parties:
        mine = range(party.seat * size, (party.seat + 1) * size)
        expected = {p: report.cards[p] for p in mine}
        assert party.hand() == expected
        assert party.known() == expected
        assert not party.awaiting()


def test_reveals_transfers_draws_and_knowledge() -> None:
    seats, table = ready_table(3, 9, salt="ops")
    a, b, c = table.parties
    table.deal([0, 1, 2], 0)
    table.deal([3, 4, 5], 1)
    assert a.hand().keys() == {0, 1, 2} and b.hand().keys() == {3, 4, 5}
    assert c.known() == {}
    table.reveal([8])  # a stock card: every seat shares its key
    table.reveal([0])  # a held card: its holder shows it
    assert all(p.known().keys() >= {0, 8} for p in table.parties)
    table.transfer([4], 1, 2)  # a pass
    assert c.hand().keys() == {4} and 4 in b.known() and 4 not in a.known()
    assert b.holder(4) == 2 and not b.is_public(4)
    table.deal([6], 2)  # a draw from the stock
    table.reveal([4])  # the new holder can show the passed card
    table.reveal_seeds()
    assert a.revealed_seeds() == seats.seed_map()
    assert a.commitments().keys() == {0, 1, 2}
    report = audit(seats.setup, table.messages(), a.revealed_seeds())
    assert report.clean and report.cards is not None
    for party in table.parties:
        for position, card in party.known().items():
            assert report.cards[position] == card
    assert a.known().keys() == {0, 1, 2, 8, 4}
    assert b.known().keys() == {0, 3, 4, 5, 8}
    assert c.known().keys() == {0, 4, 6, 8}
    assert all(7 not in p.known() for p in table.parties)  # never opened


def test_public_positions_cost_nothing() -> None:
    _, table = ready_table(2, 6, salt="noop")
    table.deal([0, 1], 0)
    table.reveal([0, 5])
    before = len(table.transcript)
    table.reveal([0, 5])  # already public
    table.deal([5], 1)  # a public card changes hands without keys
    table.deal([1], 0)  # already held by that seat
    table.transfer([5], 1, 0)  # public: no keys either
    assert len(table.transcript) == before
    assert table.parties[0].holder(5) == 0
    assert table.parties[1].known().keys() == {0, 5}


def test_operations_pipeline_before_keys_arrive() -> None:
    seats, table = ready_table(3, 6, salt="pipeline")
    table.deal([0, 1], 1, deliver=False)
    table.transfer([1], 1, 2, deliver=False)
    table.reveal([0], deliver=False)
    waiting = table.parties[0].awaiting()
    assert {(w.seat, w.kind, w.step) for w in waiting} == {
        (2, Kind.KEYS, 0),
        (1, Kind.TRANSFER, 1),
        (1, Kind.REVEAL, 2),
    }
    table.deliver()
    assert all(not p.awaiting() for p in table.parties)
    assert table.parties[2].hand().keys() == {1}
    assert all(0 in p.known() for p in table.parties)
    assert audit(seats.setup, table.messages(), seats.seed_map()).clean


def test_a_holder_cannot_show_a_card_it_does_not_hold() -> None:
    seats, table = ready_table(2, 6, salt="cheat")
    table.deal([0, 1, 2], 0)
    holder, other = table.parties
    group = seats.setup.group
    pool = Pool(seats, table, [0])  # every scalar seat 0 knows
    for position in (0, 1, 2):
        true_keys = [pool.keys[(0, position)], pool.keys[(1, position)]]
        assert pool.opens(position, true_keys, group) == holder.known()[position]
        for slot in (0, 1):
            for candidate in pool.scalars:
                if candidate == true_keys[slot]:
                    continue
                keys = list(true_keys)
                keys[slot] = candidate
                assert pool.opens(position, keys, group) is None
    # On the wire: a reveal of position 0 carrying another position's key is refused.
    forged: Wire = {
        "kind": "reveal",
        "table": seats.setup.table_id,
        "deal": seats.setup.deal_number,
        "seat": 0,
        "step": 1,
        "positions": [0],
        "keys": [[pool.keys[(0, 1)], pool.keys[(1, 0)]]],
    }
    other.reveal([0])
    with pytest.raises(DeckFault) as caught:
        other.receive(forged)
    assert caught.value.seat == 0 and caught.value.kind is FaultKind.BAD_REVEAL
    # Nor can a seat reveal a position it does not hold, even with the right keys.
    _, table2 = ready_table(2, 6, salt="cheat")
    table2.deal([0], 0)
    table2.parties[0].reveal([0])
    forged |= {"seat": 1, "keys": [[pool.keys[(0, 0)], pool.keys[(1, 0)]]]}
    with pytest.raises(DeckFault) as caught:
        table2.parties[0].receive(forged)
    assert caught.value.seat == 1 and caught.value.kind is FaultKind.OUT_OF_TURN


def test_misuse_raises_local_error_and_changes_nothing() -> None:
    seats = Seats(2, 6, salt="misuse")
    party = seats.party(0)
    with pytest.raises(LocalError):
        party.deal([0], 1)  # before the rounds
    own = party.start()
    with pytest.raises(LocalError):
        party.receive(own[0])  # its own message fed back
    with pytest.raises(LocalError):
        type(party)(seats.setup, 1, seats.seeds[1], seats.signing[0], seats.sealing[1])
    with pytest.raises(LocalError):
        type(party)(seats.setup, 5, seats.seeds[1], seats.signing[1], seats.sealing[1])

    _, table = ready_table(2, 6, salt="misuse")
    a = table.parties[0]
    table.deal([0], 0)
    bad_calls: list[Callable[[], object]] = [
        lambda: a.deal([0], 1),  # held by seat 0: that is a transfer
        lambda: a.deal([9], 1),
        lambda: a.deal([1, 1], 1),
        lambda: a.deal([1], 7),
        lambda: a.transfer([1], 0, 1),  # not held by seat 0
        lambda: a.transfer([0], 0, 0),
        a.start,
    ]
    for bad_call in bad_calls:
        with pytest.raises(LocalError):
            bad_call()
    assert len(a.awaiting()) == 0
    table.reveal_seeds()
    with pytest.raises(LocalError):
        a.reveal([0])
    with pytest.raises(LocalError):
        a.reveal_seed()


def test_a_party_is_dead_after_a_remote_error() -> None:
    _, table = ready_table(2, 6, salt="dead")
    a = table.parties[0]
    with pytest.raises(DeckFault):
        a.receive({"kind": "seed", "table": b"x", "deal": 0, "seat": 1, "seed": bytes(32)})
    with pytest.raises(LocalError):
        a.deal([0], 0)
    with pytest.raises(LocalError):
        a.receive({})


def test_a_rebuilt_party_sends_exactly_the_same_messages() -> None:
    """Crash recovery: the same seed and transcript give the same bytes (HPKE included)."""
    seats, table = ready_table(3, 9, salt="replay")
    rounds_end = len(table.transcript)
    table.deal([0, 1, 2], 1, deliver=False)
    table.deal([3, 4], 0, deliver=False)
    table.reveal([8, 0], deliver=False)
    table.transfer([1], 1, 2, deliver=False)
    table.deliver()
    original = [m for m in table.messages() if m["seat"] == 1]

    rebuilt = seats.party(1)
    sent = rebuilt.start()
    for index, message in enumerate(table.messages()):
        if index == rounds_end:  # the rounds are over: the game declares the same operations
            sent += rebuilt.deal([0, 1, 2], 1) + rebuilt.deal([3, 4], 0)
            sent += rebuilt.reveal([8, 0]) + rebuilt.transfer([1], 1, 2)
        if message["seat"] != 1:
            sent += rebuilt.receive(message)
    assert sent == original
    assert rebuilt.known() == table.parties[1].known()
