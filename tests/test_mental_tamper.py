"""Every message kind, tampered, is caught -- at once where possible, else by the audit --
and blamed on its author, never on anyone else."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.mental import (
    DeckFault,
    FaultKind,
    Kind,
    UnattributedFault,
    audit,
    seeds_from_messages,
    verify_evidence,
)
from p2pcards.mental.kdf import SeedKdf, hpke_info
from p2pcards.mental.messages import Sealed, Wire, decode
from p2pcards.mental.seal import KeyEntry, hpke_open, hpke_seal, sign_payload, verify_plaintext
from tests.mental_helpers import SCRIPT, Harness, Seats

SEATS = Seats(3, 6, salt="tamper")


def _play(intercept: Callable[[int, Wire], Wire], seats: Seats = SEATS) -> Harness:
    harness = Harness(seats, intercept)
    for step in SCRIPT:
        harness.everyone(step)
        if harness.errors:  # the table stops the deal (honest seats stop talking)
            break
    return harness


def _check_blame(harness: Harness, author: int) -> FaultKind:
    """Honest parties blame only ``author``; the audit blames ``author`` if they could not.

    Returns the kind of fault by which the tamper was caught.
    """
    caught: list[FaultKind] = []
    for seat, error in harness.errors.items():
        if seat == author:
            continue  # the cheat's own view does not count
        if isinstance(error, DeckFault):
            assert error.seat == author, error
            caught.append(error.kind)
        else:
            assert isinstance(error, UnattributedFault), error
    seeds = seeds_from_messages(SEATS.setup, harness.transcript) | {
        s: SEATS.seeds[s] for s in range(3) if s != author
    }
    seeds.setdefault(author, SEATS.seeds[author])
    report = audit(SEATS.setup, harness.transcript, seeds)
    if report.fault is not None:
        assert report.fault.seat == author, report.fault
        caught.append(report.fault.kind)
    assert caught, "the tamper went unnoticed"
    return caught[0]


def _tamper_nth(
    kind: Kind, author: int, change: Callable[[Wire], Wire]
) -> Callable[[int, Wire], Wire]:
    """An intercept that changes the first ``kind`` message sent by ``author``."""
    done: list[bool] = []

    def intercept(seat: int, message: Wire) -> Wire:
        if not done and seat == author and message["kind"] == kind:
            done.append(True)
            return change(dict(message))
        return message

    return intercept


def _flip(data: object, index: int = 0) -> bytes:
    assert isinstance(data, bytes)
    return data[:index] + bytes([data[index] ^ 1]) + data[index + 1 :]


def _other_element(message: Wire) -> Wire:
    deck = list(message["deck"])  # type: ignore[call-overload]
    deck[2] = SEATS.setup.group.hash_to_element(b"not a card of this deal")
    return message | {"deck": deck}


def _swap_elements(message: Wire) -> Wire:
    deck = list(message["deck"])  # type: ignore[call-overload]
    deck[0], deck[1] = deck[1], deck[0]
    return message | {"deck": deck}


def _wrong_signed_key(message: Wire) -> Wire:
    """Re-seal the payload, properly signed by its author, with one key replaced."""
    setup = SEATS.setup
    sender, to, step, kind = message["seat"], message["to"], message["step"], message["kind"]
    assert isinstance(sender, int) and isinstance(to, int) and isinstance(step, int)
    assert isinstance(kind, str) and isinstance(message["sealed"], bytes)
    info = hpke_info(setup.table_id, setup.deal_number, kind, step, sender, to)
    plaintext = hpke_open(SEATS.sealing[to], info, message["sealed"])
    assert plaintext is not None
    payload = verify_plaintext(plaintext, setup.signing_keys[sender])
    assert payload is not None
    first = payload.entries[0]
    wrong = KeyEntry(position=first.position, seat=first.seat, key=payload.entries[-1].key)
    if wrong.key == first.key:
        wrong = KeyEntry(position=first.position, seat=first.seat, key=(5).to_bytes(32, "little"))
    forged = type(payload)(**{**payload.__dict__, "entries": (wrong, *payload.entries[1:])})
    ikm = SeedKdf(
        setup.group, setup.table_id, setup.deal_number, sender, SEATS.seeds[sender]
    ).hpke_ikm(kind, step, to)
    sealed = hpke_seal(
        setup.sealing_keys[to], info, sign_payload(SEATS.signing[sender], forged), ikm
    )
    return message | {"sealed": sealed}


def _wrong_reveal_key(message: Wire) -> Wire:
    keys = [list(k) for k in message["keys"]]  # type: ignore[attr-defined]
    keys[0][0], keys[0][1] = keys[0][1], keys[0][0]
    return message | {"keys": keys}


def _wrong_share_key(message: Wire) -> Wire:
    return message | {"keys": [(7).to_bytes(32, "little")]}


CASES = [
    # kind, author, change, how it must be caught
    (Kind.COMMIT, 1, lambda m: m | {"commitment": _flip(m["commitment"])}, None),
    (Kind.SHUFFLE, 1, _other_element, None),
    (Kind.SHUFFLE, 1, _swap_elements, FaultKind.BAD_SHUFFLE),
    (
        Kind.SHUFFLE,
        2,
        lambda m: m | {"deck": [b"\xff" * 32, *m["deck"][1:]]},
        FaultKind.BAD_ELEMENT,
    ),
    (Kind.LOCK, 1, _other_element, FaultKind.BAD_LOCK),
    (Kind.LOCK, 0, _swap_elements, FaultKind.BAD_LOCK),
    (Kind.LOCK, 2, lambda m: m | {"key_commitments": [bytes(32), *m["key_commitments"][1:]]}, None),
    (Kind.KEYS, 2, _wrong_signed_key, FaultKind.BAD_KEY),
    (Kind.KEYS, 1, lambda m: m | {"sealed": _flip(m["sealed"], 40)}, FaultKind.BAD_SEAL),
    (Kind.TRANSFER, 1, _wrong_signed_key, FaultKind.BAD_KEY),
    (Kind.REVEAL, 0, _wrong_reveal_key, FaultKind.BAD_REVEAL),
    (Kind.SHARE, 2, _wrong_share_key, FaultKind.BAD_REVEAL),
    (Kind.SEED, 1, lambda m: m | {"seed": _flip(m["seed"])}, FaultKind.SEED_MISMATCH),
]


@pytest.mark.parametrize(
    ("kind", "author", "change", "expected"),
    CASES,
    ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)],
)
def test_each_tampered_kind_is_blamed_on_its_author(
    kind: Kind,
    author: int,
    change: Callable[[Wire], Wire],
    expected: FaultKind | None,
) -> None:
    harness = _play(_tamper_nth(kind, author, change))
    caught = _check_blame(harness, author)
    if expected is not None:
        assert caught is expected


def test_a_wrong_sealed_key_comes_with_evidence_anyone_can_check() -> None:
    harness = _play(_tamper_nth(Kind.KEYS, 2, _wrong_signed_key))
    fault = harness.errors[0]
    assert isinstance(fault, DeckFault) and fault.evidence is not None
    verdict = verify_evidence(SEATS.setup, harness.transcript, 2, fault.evidence)
    assert verdict is not None and verdict.seat == 2 and verdict.kind is FaultKind.BAD_KEY
    # Honest plaintexts prove nothing.
    clean = _play(lambda seat, message: message)
    sealed = next(
        m
        for m in map(partial(decode, SEATS.setup), clean.transcript)
        if isinstance(m, Sealed) and m.to == 0
    )
    assert isinstance(sealed, Sealed)
    setup = SEATS.setup
    info = hpke_info(setup.table_id, setup.deal_number, sealed.kind, sealed.step, sealed.seat, 0)
    plaintext = hpke_open(SEATS.sealing[0], info, sealed.sealed)
    assert plaintext is not None
    assert verify_evidence(setup, clean.transcript, sealed.seat, plaintext) is None


def test_the_untampered_script_is_clean() -> None:
    harness = _play(lambda seat, message: message)
    assert not harness.errors
    report = audit(SEATS.setup, harness.transcript, SEATS.seed_map())
    assert report.clean and report.cards is not None
    kinds = {m["kind"] for m in harness.transcript}
    assert kinds == {str(k) for k in Kind}


_CLEAN_LENGTH = len(_play(lambda seat, message: message).transcript)


def _mutate(value: object, data: st.DataObject) -> object:
    """A small random change to a wire value."""
    if isinstance(value, bytes):
        if not value:
            return b"\x00"
        i = data.draw(st.integers(0, len(value) - 1))
        return value[:i] + bytes([value[i] ^ (1 << data.draw(st.integers(0, 7)))]) + value[i + 1 :]
    if isinstance(value, bool | None):
        return 0
    if isinstance(value, int):
        return value + data.draw(st.sampled_from([1, -1, 1000]))
    if isinstance(value, str):
        return data.draw(
            st.sampled_from([str(k) for k in Kind] + ["x"]).filter(lambda k: k != value)
        )
    if isinstance(value, dict):  # a proof: one of its fields
        key = data.draw(st.sampled_from(sorted(value)))
        return value | {key: _mutate(value[key], data)}
    assert isinstance(value, list)
    how = data.draw(st.sampled_from(["item", "drop", "repeat"]))
    if how == "drop" or not value:
        return value[:-1]
    if how == "repeat":
        return [value[0], *value]
    i = data.draw(st.integers(0, len(value) - 1))
    return [*value[:i], _mutate(value[i], data), *value[i + 1 :]]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_tampered_field_of_any_message_is_blamed_on_its_author(data: st.DataObject) -> None:
    target = data.draw(st.integers(0, _CLEAN_LENGTH - 1), label="message")
    count = []
    authors = []

    def intercept(seat: int, message: Wire) -> Wire:
        count.append(1)
        if len(count) - 1 != target:
            return message
        authors.append(seat)
        name = data.draw(st.sampled_from(sorted(k for k in message if k != "seat")), label="field")
        return message | {name: _mutate(message[name], data)}

    harness = _play(intercept)
    assert authors, "the tampered message was never sent"
    _check_blame(harness, authors[0])
