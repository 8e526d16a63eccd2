"""Pipelined proofs at the party (p2pcards/mental/party_rounds.py): a seat answers a
shuffle or lock before it checks its proof; every proof is checked before the first
operation, and the first that fails is blamed there."""

from __future__ import annotations

import pytest

from p2pcards.mental import DeckFault
from p2pcards.mental.errors import FaultKind
from p2pcards.mental.messages import Wire
from tests.mental_helpers import Seats

N, CARDS = 3, 6


def _swap_first_shuffle_of(author: int):
    done: list[bool] = []

    def intercept(seat: int, message: Wire) -> Wire:
        if not done and seat == author and message["kind"] == "shuffle":
            done.append(True)
            deck = list(message["deck"])  # type: ignore[call-overload]
            deck[0], deck[1] = deck[1], deck[0]
            return message | {"deck": deck}
        return message

    return intercept


def test_the_rounds_run_to_their_end_before_any_proof_is_checked():
    seats = Seats(N, CARDS, salt="pipelined")
    table = seats.table()
    table.start()
    for party in table.parties:
        assert str(party.phase) == "ready"
        assert len(party._unchecked) == 2 * (N - 1), "every other seat's shuffle and lock, unchecked"
    first = table.parties[0]
    assert first.check_proof() and len(first._unchecked) == 2 * (N - 1) - 1  # one at a time
    for party in table.parties:
        party.settle()
        assert party._unchecked == []
    table.deal([0, 1], to_seat=1)  # the operations go on as before


def test_a_bad_shuffle_is_blamed_when_the_lock_round_is_complete_before_any_key():
    seats = Seats(N, CARDS, salt="pipelined")
    table = seats.table(_swap_first_shuffle_of(1))
    table.start()  # seat 2 shuffles the bad deck, every seat locks: nothing raised yet
    kinds = [sent.message["kind"] for sent in table.transcript]
    assert kinds.count("shuffle") == N and kinds.count("lock") == N
    for seat in (0, 2):
        party = table.parties[seat]
        with pytest.raises(DeckFault) as caught:
            party.deal([0], to_seat=seat)  # the first operation checks first: no key leaves
        assert (caught.value.seat, caught.value.kind) == (1, FaultKind.BAD_SHUFFLE)
        assert party.failure is caught.value
    assert not any(sent.message["kind"] == "keys" for sent in table.transcript)


def test_a_check_that_fails_to_run_leaves_the_step_to_the_end_of_the_rounds():
    """Spare-time checking never loses a step: a check that raises leaves it unchecked,
    and settle checks it again (and blames the bad shuffle)."""
    seats = Seats(N, CARDS, salt="pipelined")
    table = seats.table(_swap_first_shuffle_of(1))
    table.start()
    party = table.parties[0]
    honest = party._proof_holds
    calls: list[int] = []

    def once_broken(message, taken):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("interrupted")
        return honest(message, taken)

    party._proof_holds = once_broken  # type: ignore[method-assign]
    left = len(party._unchecked)
    with pytest.raises(RuntimeError):
        party.check_proof()
    assert len(party._unchecked) == left
    with pytest.raises(DeckFault) as caught:
        party.settle()
    assert caught.value.seat == 1 and caught.value.kind is FaultKind.BAD_SHUFFLE


async def test_spare_work_runs_while_the_inbox_is_empty_and_gives_way_to_a_frame():
    """The node checks proofs while it waits (Inbox.get's spare work): a piece at a time,
    and a frame that comes in the meantime is taken before the next piece."""
    from p2pcards.net.inbox import POKE, Inbox

    inbox = Inbox()
    pieces: list[int] = []

    def spare() -> bool:
        pieces.append(1)
        if len(pieces) == 3:
            inbox.put_local(POKE)
        return len(pieces) < 10

    assert await inbox.get(spare) is POKE
    assert len(pieces) == 3, "the frame came first once it was there"
    done: list[int] = []
    inbox.put_local(POKE)
    assert await inbox.get(lambda: bool(done.append(1))) is POKE
    assert done == [], "no spare work while a frame waits"
