"""With every seed good, the audit checks the final deck against the seeds (one
multiplication per position, none for a position the party opened itself) instead of
recomputing both rounds; anything else falls back to the recomputation, which names the
first seat at fault."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p2pcards.mental import FaultKind, Kind, audit
from p2pcards.mental.group import Ristretto255
from p2pcards.mental.messages import Wire
from tests.mental_helpers import Seats
from tests.test_mental_tamper import SEATS, _play

SCALE = (12345).to_bytes(32, "little")


@pytest.fixture
def mults(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the group multiplications made from now on."""
    count: list[int] = []
    mult = Ristretto255.mult

    def spy(self: Ristretto255, scalar: bytes, element: bytes) -> bytes:
        count.append(1)
        return mult(self, scalar, element)

    monkeypatch.setattr(Ristretto255, "mult", spy)
    return count


def test_a_clean_deal_is_audited_with_one_multiplication_per_position_at_most(mults: list[int]) -> None:
    harness = _play(lambda seat, message: message)
    size = SEATS.setup.deck_size
    mults.clear()
    offline = audit(SEATS.setup, harness.transcript, SEATS.seed_map())
    assert offline.clean and offline.cards is not None
    assert len(mults) == size  # recomputing the rounds would take 2 x 3 x 6
    for party in harness.parties:
        record = party.live_record()
        mults.clear()
        assert audit(SEATS.setup, harness.transcript, SEATS.seed_map(), live=record) == offline
        assert len(mults) == size - len(record.opened)  # what it opened is proven already


def _scaling(author: int, kind: Kind, scalar: bytes) -> Callable[[Wire], Wire]:
    """Every element of ``author``'s ``kind`` output multiplied by ``scalar``."""
    group = SEATS.setup.group

    def change(message: Wire) -> Wire:
        deck = message["deck"]
        assert isinstance(deck, list)
        return message | {"deck": [group.mult(scalar, e) for e in deck]}

    return change


def _intercept(changes: dict[tuple[int, str], Callable[[Wire], Wire]]) -> Callable[[int, Wire], Wire]:
    def intercept(seat: int, message: Wire) -> Wire:
        change = changes.get((seat, str(message["kind"])))
        return message if change is None else change(message)

    return intercept


def test_a_deviation_undone_before_the_final_deck_changes_nothing() -> None:
    """Without proofs (a deal set up so, as the benchmark's baseline): seat 1 scales its
    shuffle output and undoes it in its lock: every card, opening and hand is the honest
    deal's, so the audit is clean (only its author knew the factor).  With proofs the same
    deviation is refused at its shuffle, blamed on seat 1 by every other seat."""
    seats = Seats(3, 6, salt="tamper", proofs=False)
    honest = _play(lambda seat, message: message, seats)
    group = seats.setup.group
    undo = group.scalar_invert(SCALE)
    deviate = _intercept({(1, Kind.SHUFFLE): _scaling(1, Kind.SHUFFLE, SCALE),
                          (1, Kind.LOCK): _scaling(1, Kind.LOCK, undo)})
    harness = _play(deviate, seats)
    assert not harness.errors
    shuffled = [m for m in harness.transcript if m["kind"] == Kind.SHUFFLE]
    assert shuffled != [m for m in honest.transcript if m["kind"] == Kind.SHUFFLE]  # it did deviate
    report = audit(seats.setup, harness.transcript, seats.seed_map())
    assert report.clean and report.cards == audit(seats.setup, honest.transcript, seats.seed_map()).cards
    proved = _play(deviate)
    assert {s: (e.seat, e.kind) for s, e in proved.errors.items() if s != 1} == {  # type: ignore[attr-defined]
        0: (1, FaultKind.BAD_SHUFFLE), 2: (1, FaultKind.BAD_SHUFFLE)}


def test_a_deviation_left_in_the_final_deck_is_blamed_on_the_first_seat_at_fault() -> None:
    harness = _play(_intercept({(1, Kind.SHUFFLE): _scaling(1, Kind.SHUFFLE, SCALE)}))
    report = audit(SEATS.setup, harness.transcript, SEATS.seed_map())
    assert report.fault is not None and report.fault.seat == 1 and report.fault.kind is FaultKind.BAD_SHUFFLE
    # the same deviation, and a later seat's lock that does not follow from its seed either:
    # the first in order is named
    harness = _play(_intercept({(1, Kind.SHUFFLE): _scaling(1, Kind.SHUFFLE, SCALE),
                                (2, Kind.LOCK): _scaling(2, Kind.LOCK, SCALE)}))
    report = audit(SEATS.setup, harness.transcript, SEATS.seed_map())
    assert report.fault is not None and report.fault.seat == 1 and report.fault.kind is FaultKind.BAD_SHUFFLE


def test_key_commitments_are_checked_on_the_shortcut_too() -> None:
    """A lock whose deck is exact but whose key commitments do not follow from the seed."""
    def change(message: Wire) -> Wire:
        commitments = message["key_commitments"]
        assert isinstance(commitments, list)
        return message | {"key_commitments": [bytes(32), *commitments[1:]]}

    harness = _play(_intercept({(2, Kind.LOCK): change}))
    report = audit(SEATS.setup, harness.transcript, SEATS.seed_map())
    assert report.fault is not None and report.fault.seat == 2 and report.fault.kind is FaultKind.BAD_LOCK
