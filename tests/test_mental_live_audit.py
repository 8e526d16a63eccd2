"""A party's own audit (``audit(..., live=party.live_record())``) spares the work the party
did while it played, never a check: whatever was tampered with, it reaches the report the
offline audit reaches, and a record that is not of the transcript at hand spares nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from p2pcards.mental import FaultKind, Kind, LocalError, audit, seeds_from_messages
from p2pcards.mental.deck_audit import AuditReport
from p2pcards.mental.kdf import hpke_info
from p2pcards.mental.messages import Wire
from p2pcards.mental.party_state import LiveRecord
from p2pcards.mental.seal import hpke_open, hpke_seal
from tests.mental_helpers import Harness, Seats
from tests.test_mental_tamper import CASES, SEATS, _play, _tamper_nth


def _seeds(harness: Harness, author: int | None = None) -> dict[int, bytes]:
    """The seeds the transcript reveals, and the others' own (as in the tamper tests)."""
    seeds = seeds_from_messages(SEATS.setup, harness.transcript) | {
        s: SEATS.seeds[s] for s in range(3) if s != author
    }
    if author is not None:
        seeds.setdefault(author, SEATS.seeds[author])
    return seeds


def _live_reports(harness: Harness, seeds: dict[int, bytes], skip: int | None = None) -> dict[int, AuditReport]:
    """Each honest, live party's own audit of the transcript."""
    return {
        p.seat: audit(SEATS.setup, harness.transcript, seeds, live=p.live_record())
        for p in harness.parties
        if p.seat not in harness.errors and p.seat != skip
    }


def test_the_live_audit_of_a_clean_deal_is_the_offline_one() -> None:
    harness = _play(lambda seat, message: message)
    seeds = _seeds(harness)
    offline = audit(SEATS.setup, harness.transcript, seeds)
    assert offline.clean and offline.cards is not None
    reports = _live_reports(harness, seeds)
    assert len(reports) == 3 and all(r == offline for r in reports.values())


@pytest.mark.parametrize(
    ("kind", "author", "change", "expected"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_the_live_audit_finds_what_the_offline_audit_finds(
    kind: Kind, author: int, change: Callable[[Wire], Wire], expected: FaultKind | None
) -> None:
    harness = _play(_tamper_nth(kind, author, change))
    seeds = _seeds(harness, author)
    offline = audit(SEATS.setup, harness.transcript, seeds)
    for seat, report in _live_reports(harness, seeds, skip=author).items():
        assert report == offline, seat


def _foreign_ephemeral(message: Wire) -> Wire:
    """The same signed keys, sealed to the same recipient, with an ephemeral key that is
    not the sender's seed-derived one: the recipient opens it without complaint."""
    setup = SEATS.setup
    sender, to, step, kind = message["seat"], message["to"], message["step"], message["kind"]
    assert isinstance(sender, int) and isinstance(to, int) and isinstance(step, int) and isinstance(kind, str)
    assert isinstance(message["sealed"], bytes)
    info = hpke_info(setup.table_id, setup.deal_number, kind, step, sender, to)
    plaintext = hpke_open(SEATS.sealing[to], info, message["sealed"])
    assert plaintext is not None
    return message | {"sealed": hpke_seal(setup.sealing_keys[to], info, plaintext, bytes(32))}


def test_keys_sealed_with_a_foreign_ephemeral_key_are_blamed_by_the_recipients_own_audit() -> None:
    harness = _play(_tamper_nth(Kind.KEYS, 1, _foreign_ephemeral))
    assert not harness.errors, "nobody can see it before the seeds"
    seeds = _seeds(harness)
    offline = audit(SEATS.setup, harness.transcript, seeds)
    assert offline.fault is not None and offline.fault.seat == 1 and offline.fault.kind is FaultKind.BAD_SEAL
    reports = _live_reports(harness, seeds, skip=1)
    assert set(reports) == {0, 2} and all(r == offline for r in reports.values())


def _last_lock_index(harness: Harness) -> int:
    return max(i for i, m in enumerate(harness.transcript) if m["kind"] == "lock")


def test_a_record_does_not_vouch_for_a_changed_last_lock() -> None:
    """Seat 0 opened positions 0 and 1 of the final deck; the same deck with those two
    elements swapped is a bad lock, record or not."""
    harness = _play(lambda seat, message: message)
    record = harness.parties[0].live_record()
    assert {0, 1} <= set(record.opened)
    seeds = _seeds(harness)
    transcript = list(harness.transcript)
    i = _last_lock_index(harness)
    deck = list(transcript[i]["deck"])  # type: ignore[call-overload]
    deck[0], deck[1] = deck[1], deck[0]
    transcript[i] = transcript[i] | {"deck": deck}
    offline = audit(SEATS.setup, transcript, seeds)
    assert offline.fault is not None and offline.fault.seat == 2 and offline.fault.kind is FaultKind.BAD_LOCK
    assert audit(SEATS.setup, transcript, seeds, live=record) == offline


def _records_of_another_deal() -> list[LiveRecord]:
    other = Seats(3, 6, salt="another deal")
    elsewhere = Harness(other, lambda seat, message: message)
    for step in (lambda p: p.start(), lambda p: p.deal([0, 1], 0), lambda p: p.reveal([0]), lambda p: p.reveal([5])):
        elsewhere.everyone(step)
    return [p.live_record() for p in elsewhere.parties]


@pytest.mark.parametrize(
    ("kind", "author", "change", "expected"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_a_record_of_another_deal_trusts_and_spares_nothing(
    kind: Kind, author: int, change: Callable[[Wire], Wire], expected: FaultKind | None
) -> None:
    """Not even the record of the cheating seat makes the audit take that seat's messages
    in this deal as its own."""
    cheat = _play(_tamper_nth(kind, author, change))
    seeds = _seeds(cheat, author)
    offline = audit(SEATS.setup, cheat.transcript, seeds)
    for record in _records_of_another_deal():
        assert audit(SEATS.setup, cheat.transcript, seeds, live=record) == offline


def test_trusted_and_live_name_one_seat() -> None:
    harness = _play(lambda seat, message: message)
    with pytest.raises(LocalError):
        audit(SEATS.setup, harness.transcript, _seeds(harness), 1, live=harness.parties[0].live_record())


def test_a_failed_party_has_no_record() -> None:
    harness = _play(_tamper_nth(Kind.REVEAL, 0, lambda m: m | {"keys": [[k[1], k[0], *k[2:]] for k in m["keys"]]}))
    assert harness.errors
    seat = next(iter(harness.errors))
    with pytest.raises(LocalError):
        harness.parties[seat].live_record()


def _lying_record(record: LiveRecord, transcript: list[Wire], **changes: object) -> tuple[LiveRecord, list[Wire]]:
    """The last lock with element 0 replaced, and a record that claims to have opened it
    (with the keys seat 0 really used) in that changed deck."""
    transcript = list(transcript)
    i = max(n for n, m in enumerate(transcript) if m["kind"] == "lock")
    deck = list(transcript[i]["deck"])  # type: ignore[call-overload]
    deck[0] = SEATS.setup.group.hash_to_element(b"not a card of this deal")
    transcript[i] = transcript[i] | {"deck": deck}
    keys, card = record.opened[0]
    opened = {**record.opened, 0: (changes.pop("keys", keys), changes.pop("card", card))}
    return dataclasses.replace(record, locked=tuple(deck), opened=opened, **changes), transcript  # type: ignore[arg-type]


@pytest.mark.parametrize("lie", ["card", "deal_id", "keys"])
def test_an_opening_proves_a_lock_element_only_with_the_right_card_keys_and_deal(lie: str) -> None:
    """What makes an opening a proof (the card the permutations put there, the seeds' keys,
    this deal's encodings) is checked, not assumed from the record."""
    harness = _play(lambda seat, message: message)
    record = harness.parties[0].live_record()
    seeds = _seeds(harness)
    offline = audit(SEATS.setup, harness.transcript, seeds)
    assert offline.cards is not None
    # the record is the party's own memory of its openings, trusted like its own outputs: the
    # same lie with the right card and this deal's id is believed, so the lie below is caught
    # by the checks of card and deal id alone
    fooled, transcript = _lying_record(record, harness.transcript, card=offline.cards[0])
    assert audit(SEATS.setup, transcript, seeds, live=fooled).clean
    if lie == "card":
        lying, transcript = _lying_record(record, harness.transcript, card=offline.cards[1])
    elif lie == "deal_id":
        lying, transcript = _lying_record(record, harness.transcript, card=offline.cards[0], deal_id=bytes(32))
    else:
        lying, transcript = _lying_record(record, harness.transcript, card=offline.cards[0], keys=record.opened[1][0])
    report = audit(SEATS.setup, transcript, seeds, live=lying)
    assert report.fault is not None and report.fault.seat == 2 and report.fault.kind is FaultKind.BAD_LOCK
    assert report == audit(SEATS.setup, transcript, seeds)


def test_encodings_of_another_deal_id_are_not_used() -> None:
    harness = _play(lambda seat, message: message)
    record = harness.parties[1].live_record()
    wrong = dataclasses.replace(record, deal_id=bytes(32), encodings=tuple(reversed(record.encodings)))
    seeds = _seeds(harness)
    assert audit(SEATS.setup, harness.transcript, seeds, live=wrong) == audit(SEATS.setup, harness.transcript, seeds)
