"""What nobody may learn: a coalition of all other seats, and an eavesdropper."""

from __future__ import annotations

from p2pcards.mental import PORTUGUESE_DECK
from p2pcards.mental.kdf import SeedKdf, card_encodings
from p2pcards.testing.deck import InProcessDeal
from tests.mental_helpers import Pool, Seats


def _sueca_deal(seats: Seats) -> InProcessDeal:
    """Ten cards each, the trump card (position 39, seat 3's) shown, one trick, a pass."""
    table = seats.table()
    table.start()
    for s in range(4):
        table.deal(range(10 * s, 10 * s + 10), s, deliver=False)
    table.deliver()
    table.reveal([39])
    for s in range(4):
        table.reveal([10 * s])
    table.transfer([1, 2], 0, 2)  # seat 2 (the victim below) receives a pass
    table.transfer([21], 2, 3)  # and passes one on
    return table


def test_a_coalition_of_all_other_seats_cannot_open_the_last_seats_cards() -> None:
    seats = Seats(4, 40, salt="coalition", deck=PORTUGUESE_DECK)
    table = _sueca_deal(seats)
    victim = 2
    group = seats.setup.group
    coalition = [s for s in range(4) if s != victim]
    pool = Pool(seats, table, coalition)
    victim_hand = table.parties[victim].hand()
    # Its own cards, less the one it played and the one it passed on (cards passed to it
    # were the passer's: the coalition knows those).
    hidden = [p for p in victim_hand if p in range(20, 30) and not table.parties[0].is_public(p)]
    assert len(hidden) == 8
    for position in hidden:
        theirs = [pool.keys[(s, position)] for s in coalition]
        assert (victim, position) not in pool.keys
        for candidate in [None, *pool.scalars]:
            keys = theirs if candidate is None else [*theirs, candidate]
            assert pool.opens(position, keys, group) is None
    # The same method opens every card a coalition member holds: the check has teeth.
    for s in coalition:
        for position, card in table.parties[s].hand().items():
            keys = [pool.keys[(t, position)] for t in range(4)]
            assert pool.opens(position, keys, group) == card


def test_an_eavesdropper_sees_no_card_encoding_and_no_private_key() -> None:
    seats = Seats(4, 40, salt="eavesdrop", deck=PORTUGUESE_DECK)
    table = _sueca_deal(seats)
    wire = b"".join(sent.packed for sent in table.transcript)
    setup = seats.setup
    deal_id = table.parties[0].deal_id
    assert deal_id is not None
    for encoding in card_encodings(setup.group, deal_id, setup.deck):
        assert encoding not in wire
    public = {p for p in range(40) if table.parties[0].is_public(p)}
    for s in range(4):
        secrets = SeedKdf(
            setup.group, setup.table_id, setup.deal_number, s, seats.seeds[s]
        ).secrets(40)
        assert secrets.shuffle_scalar not in wire
        for position, key in enumerate(secrets.keys):
            holder = table.parties[0].holder(position)
            if position not in public and holder != s:
                assert key not in wire, (s, position)
