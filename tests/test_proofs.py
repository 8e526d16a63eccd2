"""Property tests of the shuffle and lock proofs (``p2pcards.mental.proofs``) on ristretto255.

An honest proof always verifies; every tampering with the proof, the statement or the
context makes verification fail, and fail by returning False, never by raising.  Where a
cheat can be re-proved (the prover's algorithm run on a false statement), the re-proved
proof must fail as well: that is the soundness the proof is for, not just the binding of
the hash.  Honest cases are also cross-checked against the independent verifier and prover
of ``tests/proof_verifier.py``.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from functools import cached_property
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from p2pcards.mental.encoding import fields
from p2pcards.mental.group import Ristretto255
from p2pcards.mental.proofs import (
    LockProof,
    ShuffleProof,
    proof_context,
    prove_lock,
    prove_shuffle,
    verify_lock,
    verify_shuffle,
)
from tests import proof_verifier as pv

GROUP = Ristretto255()
ORDER = Ristretto255.ORDER
SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])

SHUFFLE_SCALARS = ("challenge", "responses", "hat", "prime")
SHUFFLE_ELEMENTS = ("S", "commitments", "chain")


def _scalar_from(*parts: bytes | str | int) -> bytes:
    """A nonzero scalar hashed from ``parts``."""
    counter = 0
    while True:
        scalar = GROUP.scalar_reduce(hashlib.sha512(fields("test-proofs", *parts, counter)).digest())
        if GROUP.scalar_is_valid(scalar):
            return scalar
        counter += 1


def _nonce(seed: bytes) -> Callable[[str, int], bytes]:
    def nonce(label: str, index: int) -> bytes:
        return _scalar_from("nonce", seed, label, index)

    return nonce


def _fresh_element(tag: bytes) -> bytes:
    return GROUP.hash_to_element(fields("test-proofs-fresh", tag))


class Case:
    """A shuffle step and the lock step after it, with their honest proofs (computed on demand)."""

    def __init__(self, n: int, input_seed: bytes, perm: list[int], s: bytes, exponents: list[bytes],
                 deal_id: bytes, seat: int, nonce_seed: bytes) -> None:
        self.n = n
        self.inputs = [GROUP.hash_to_element(fields("test-proofs-input", input_seed, i)) for i in range(n)]
        self.perm = perm
        self.s = s
        self.outputs = [GROUP.mult(s, self.inputs[perm[i]]) for i in range(n)]
        self.exponents = exponents
        # the lock: inputs[j] = x_j · locked[j]
        self.locked = [GROUP.mult(GROUP.scalar_invert(x), y) for x, y in zip(exponents, self.outputs, strict=True)]
        self.deal_id = deal_id
        self.seat = seat
        self.nonce = _nonce(nonce_seed)
        self.ctx = proof_context(deal_id, seat, "shuffle")
        self.lock_ctx = proof_context(deal_id, seat, "lock")

    @cached_property
    def shuffle(self) -> ShuffleProof:
        return prove_shuffle(GROUP, self.ctx, self.inputs, self.outputs, self.perm, self.s, self.nonce)

    @cached_property
    def lock(self) -> LockProof:
        return prove_lock(GROUP, self.lock_ctx, self.outputs, self.locked, self.exponents, self.nonce)

    def verify_shuffle(self, inputs: list[bytes] | None = None, outputs: list[bytes] | None = None,
                       proof: ShuffleProof | None = None, ctx: bytes | None = None) -> bool:
        return verify_shuffle(GROUP, self.ctx if ctx is None else ctx, self.inputs if inputs is None else inputs,
                              self.outputs if outputs is None else outputs, self.shuffle if proof is None else proof)

    def verify_lock(self, inputs: list[bytes] | None = None, outputs: list[bytes] | None = None,
                    proof: LockProof | None = None, ctx: bytes | None = None) -> bool:
        return verify_lock(GROUP, self.lock_ctx if ctx is None else ctx, self.outputs if inputs is None else inputs,
                           self.locked if outputs is None else outputs, self.lock if proof is None else proof)

    def reprove_shuffle(self, outputs: list[bytes], perm: list[int] | None = None,
                        s: bytes | None = None) -> ShuffleProof:
        """The prover's algorithm run on ``outputs`` (maybe a false statement)."""
        return prove_shuffle(GROUP, self.ctx, self.inputs, outputs, self.perm if perm is None else perm,
                             self.s if s is None else s, self.nonce)

    def reprove_lock(self, outputs: list[bytes], exponents: list[bytes] | None = None) -> LockProof:
        return prove_lock(GROUP, self.lock_ctx, self.outputs, outputs,
                          self.exponents if exponents is None else exponents, self.nonce)


scalars = st.binary(min_size=64, max_size=64).map(GROUP.scalar_reduce).filter(GROUP.scalar_is_valid)


@st.composite
def cases(draw: st.DrawFn, min_n: int = 2, max_n: int = 8) -> Case:
    n = draw(st.integers(min_n, max_n))
    return Case(
        n=n,
        input_seed=draw(st.binary(min_size=1, max_size=16)),
        perm=list(draw(st.permutations(range(n)))),
        s=draw(scalars),
        exponents=draw(st.lists(scalars, min_size=n, max_size=n)),
        deal_id=draw(st.binary(min_size=32, max_size=32)),
        seat=draw(st.integers(0, 3)),
        nonce_seed=draw(st.binary(min_size=32, max_size=32)),
    )


def _two_positions(data: st.DataObject, n: int) -> tuple[int, int]:
    i = data.draw(st.integers(0, n - 1), label="i")
    j = data.draw(st.integers(0, n - 1).filter(lambda j: j != i), label="j")
    return i, j


def _replaced(values: list[bytes], i: int, value: bytes) -> list[bytes]:
    out = list(values)
    out[i] = value
    return out


def _shuffle_with(proof: ShuffleProof, key: str, values: list[bytes]) -> ShuffleProof:
    """``proof`` with the list ``key`` replaced (bypassing ``from_wire``, to test verify's own checks)."""
    if key == "commitments":
        return dataclasses.replace(proof, commitments=tuple(values))
    if key == "chain":
        return dataclasses.replace(proof, chain=tuple(values))
    if key == "responses":
        return dataclasses.replace(proof, responses=tuple(values))
    if key == "hat":
        return dataclasses.replace(proof, hat=tuple(values))
    if key == "prime":
        return dataclasses.replace(proof, prime=tuple(values))
    raise AssertionError(key)


def _swapped(values: list[bytes], i: int, j: int) -> list[bytes]:
    out = list(values)
    out[i], out[j] = out[j], out[i]
    return out


# --------------------------------------------------------------------------- honest proofs
@SETTINGS
@given(cases())
def test_honest_shuffle_verifies(case: Case) -> None:
    proof = case.shuffle
    assert proof.S == GROUP.base_mult(case.s)
    assert case.verify_shuffle() is True
    wire = proof.to_wire()
    assert ShuffleProof.from_wire(wire, GROUP, case.n) == proof
    # the proof is a function of the statement and the nonces (a replica re-signs the same one)
    assert case.reprove_shuffle(case.outputs) == proof
    # the independent reading of PROTOCOL.md accepts it, and computes the same proof
    assert pv.verify_shuffle(case.ctx, case.inputs, case.outputs, wire) is True
    assert pv.prove_shuffle(case.ctx, case.inputs, case.outputs, case.perm, case.s, case.nonce) == wire


@SETTINGS
@given(cases())
def test_honest_lock_verifies(case: Case) -> None:
    proof = case.lock
    assert proof.keys == tuple(GROUP.base_mult(x) for x in case.exponents)
    assert case.verify_lock() is True
    wire = proof.to_wire()
    assert LockProof.from_wire(wire, GROUP, case.n) == proof
    assert case.reprove_lock(case.locked) == proof
    assert pv.verify_lock(case.lock_ctx, case.outputs, case.locked, wire) is True
    assert pv.prove_lock(case.lock_ctx, case.outputs, case.locked, case.exponents, case.nonce) == wire


@pytest.mark.parametrize("n", [40, 52])
def test_full_decks(n: int) -> None:
    """A Sueca and a French deck, without hypothesis: both proofs verify, a swap and a copy do not."""
    case = Case(n, b"full", [(7 * i + 3) % n for i in range(n)], _scalar_from("s", n),
                [_scalar_from("x", n, j) for j in range(n)], hashlib.sha256(b"deal").digest(), 2, b"seed")
    assert sorted(case.perm) == list(range(n))
    assert case.verify_shuffle() is True
    assert case.verify_lock() is True
    assert pv.verify_shuffle(case.ctx, case.inputs, case.outputs, case.shuffle.to_wire()) is True
    assert pv.prove_lock(case.lock_ctx, case.outputs, case.locked, case.exponents, case.nonce) == case.lock.to_wire()
    assert case.verify_shuffle(outputs=_swapped(case.outputs, 0, n - 1)) is False
    assert case.verify_shuffle(outputs=_replaced(case.outputs, n // 2, case.outputs[0])) is False
    assert case.verify_lock(outputs=_swapped(case.locked, 0, n - 1)) is False
    rekeyed = GROUP.mult(_scalar_from("r"), case.locked[1])
    assert case.verify_lock(outputs=_replaced(case.locked, n - 1, rekeyed)) is False


# --------------------------------------------------------------------------- tampered proofs
def _flip(value: bytes, offset: int, mask: int) -> bytes:
    return value[:offset] + bytes([value[offset] ^ mask]) + value[offset + 1:]


def _draw_flip(data: st.DataObject, wire: dict[str, Any], scalar_keys: tuple[str, ...]) -> dict[str, Any]:
    """``wire`` with one byte of one element or scalar XORed with a nonzero mask."""
    key = data.draw(st.sampled_from(sorted(wire)), label="key")
    value = wire[key]
    index = data.draw(st.integers(0, len(value) - 1), label="index") if isinstance(value, list) else None
    offset = data.draw(st.integers(0, 31), label="offset")
    mask = data.draw(st.integers(1, 255), label="mask")
    out = {k: list(v) if isinstance(v, list) else v for k, v in wire.items()}
    if index is None:
        out[key] = _flip(value, offset, mask)
    else:
        out[key][index] = _flip(value[index], offset, mask)
    return out


@SETTINGS
@given(cases(), st.data())
def test_shuffle_proof_with_a_flipped_byte_is_refused(case: Case, data: st.DataObject) -> None:
    wire = _draw_flip(data, case.shuffle.to_wire(), SHUFFLE_SCALARS)
    assert pv.verify_shuffle(case.ctx, case.inputs, case.outputs, wire) is False
    proof = ShuffleProof.from_wire(wire, GROUP, case.n)
    if proof is None:  # a scalar flipped out of the canonical range: refused as it is read
        return
    assert case.verify_shuffle(proof=proof) is False  # False, not an exception, for undecodable elements too


@SETTINGS
@given(cases(), st.data())
def test_lock_proof_with_a_flipped_byte_is_refused(case: Case, data: st.DataObject) -> None:
    wire = _draw_flip(data, case.lock.to_wire(), ("challenge", "responses"))
    assert pv.verify_lock(case.lock_ctx, case.outputs, case.locked, wire) is False
    proof = LockProof.from_wire(wire, GROUP, case.n)
    if proof is None:  # a scalar flipped out of the canonical range: refused as it is read
        return
    assert case.verify_lock(proof=proof) is False


@FEW
@given(cases(), st.data())
def test_fresh_random_element_in_the_proof_is_refused(case: Case, data: st.DataObject) -> None:
    fresh = _fresh_element(data.draw(st.binary(min_size=8, max_size=8), label="fresh"))
    key = data.draw(st.sampled_from(SHUFFLE_ELEMENTS), label="key")
    i = data.draw(st.integers(0, case.n - 1), label="i")
    proof = case.shuffle
    bad = dataclasses.replace(proof, S=fresh) if key == "S" else _shuffle_with(
        proof, key, _replaced(list(getattr(proof, key)), i, fresh))
    assert case.verify_shuffle(proof=bad) is False
    keys = _replaced(list(case.lock.keys), i, fresh)
    assert case.verify_lock(proof=dataclasses.replace(case.lock, keys=tuple(keys))) is False


# --------------------------------------------------------------------------- false shuffle statements
@SETTINGS
@given(cases(), st.data())
def test_swapped_shuffle_outputs_are_refused(case: Case, data: st.DataObject) -> None:
    i, j = _two_positions(data, case.n)
    swapped = _swapped(case.outputs, i, j)
    assert case.verify_shuffle(outputs=swapped) is False
    assert case.verify_shuffle(inputs=_swapped(case.inputs, i, j)) is False
    assert case.verify_shuffle(outputs=swapped, proof=case.reprove_shuffle(swapped)) is False
    # a swap is still a shuffle: proved with the matching permutation it verifies (the proof binds ψ)
    proof = case.reprove_shuffle(swapped, _swapped_perm(case.perm, i, j))
    assert case.verify_shuffle(outputs=swapped, proof=proof) is True


def _swapped_perm(perm: list[int], i: int, j: int) -> list[int]:
    out = list(perm)
    out[i], out[j] = out[j], out[i]
    return out


@SETTINGS
@given(cases(), st.data(), scalars)
def test_rekeyed_copy_of_another_output_is_refused(case: Case, data: st.DataObject, r: bytes) -> None:
    i, j = _two_positions(data, case.n)
    copied = _replaced(case.outputs, i, GROUP.mult(r, case.outputs[j]))
    assert case.verify_shuffle(outputs=copied) is False
    assert case.verify_shuffle(outputs=copied, proof=case.reprove_shuffle(copied)) is False


@SETTINGS
@given(cases(), st.data())
def test_plain_copy_of_another_output_is_refused(case: Case, data: st.DataObject) -> None:
    i, j = _two_positions(data, case.n)
    copied = _replaced(case.outputs, i, case.outputs[j])
    assert case.verify_shuffle(outputs=copied) is False
    assert case.verify_shuffle(outputs=copied, proof=case.reprove_shuffle(copied)) is False


@SETTINGS
@given(cases(), st.data())
def test_dropped_or_duplicated_output_is_refused(case: Case, data: st.DataObject) -> None:
    i, j = _two_positions(data, case.n)
    dropped = case.outputs[:i] + case.outputs[i + 1:]
    assert case.verify_shuffle(outputs=dropped) is False
    assert case.verify_shuffle(outputs=[*case.outputs, case.outputs[j]]) is False
    # dropping a card from both lists: the n-element proof does not fit n-1 elements
    assert case.verify_shuffle(inputs=case.inputs[:i] + case.inputs[i + 1:], outputs=dropped) is False
    assert case.verify_shuffle(inputs=[], outputs=[]) is False


@SETTINGS
@given(cases(), st.data())
def test_fresh_random_output_or_input_is_refused(case: Case, data: st.DataObject) -> None:
    i = data.draw(st.integers(0, case.n - 1), label="i")
    fresh = _fresh_element(data.draw(st.binary(min_size=8, max_size=8), label="fresh"))
    substituted = _replaced(case.outputs, i, fresh)
    assert case.verify_shuffle(outputs=substituted) is False
    assert case.verify_shuffle(outputs=substituted, proof=case.reprove_shuffle(substituted)) is False
    assert case.verify_shuffle(inputs=_replaced(case.inputs, i, fresh)) is False


@SETTINGS
@given(cases(), scalars)
def test_shuffle_with_another_scalar_is_refused(case: Case, other: bytes) -> None:
    """Outputs re-keyed by a scalar other than the one of ``S``: the proof (made with ``s``) fails."""
    assume(other != case.s)
    outputs = [GROUP.mult(other, case.inputs[case.perm[i]]) for i in range(case.n)]
    assert case.verify_shuffle(outputs=outputs, proof=case.reprove_shuffle(outputs)) is False
    # honest for ``other`` it verifies
    assert case.verify_shuffle(outputs=outputs, proof=case.reprove_shuffle(outputs, s=other)) is True


@SETTINGS
@given(cases(), st.data())
def test_shuffle_in_another_context_is_refused(case: Case, data: st.DataObject) -> None:
    other_seat = data.draw(st.integers(0, 3).filter(lambda t: t != case.seat), label="seat")
    other_deal = data.draw(st.binary(min_size=32, max_size=32).filter(lambda d: d != case.deal_id), label="deal")
    for ctx in (proof_context(case.deal_id, other_seat, "shuffle"), proof_context(case.deal_id, case.seat, "lock"),
                proof_context(other_deal, case.seat, "shuffle")):
        assert case.verify_shuffle(ctx=ctx) is False


# --------------------------------------------------------------------------- false lock statements
@SETTINGS
@given(cases(), st.data())
def test_swapped_lock_outputs_are_refused(case: Case, data: st.DataObject) -> None:
    i, j = _two_positions(data, case.n)
    swapped = _swapped(case.locked, i, j)
    assert case.verify_lock(outputs=swapped) is False
    assert case.verify_lock(inputs=_swapped(case.outputs, i, j)) is False
    assert case.verify_lock(outputs=swapped, proof=case.reprove_lock(swapped)) is False
    assert case.verify_lock(outputs=swapped, proof=case.reprove_lock(swapped, _swapped(case.exponents, i, j))) is False


@SETTINGS
@given(cases(), st.data(), scalars)
def test_lock_output_from_another_position_is_refused(case: Case, data: st.DataObject, r: bytes) -> None:
    """Position ``i`` locked to ``r ·`` another position's output: even the exponent that
    relates it to *that* position's input (``x_j · r⁻¹``) does not prove it for ``i``."""
    i, j = _two_positions(data, case.n)
    moved = _replaced(case.locked, i, GROUP.mult(r, case.locked[j]))
    assert case.verify_lock(outputs=moved) is False
    cheat = _replaced(case.exponents, i, GROUP.scalar_mul(case.exponents[j], GROUP.scalar_invert(r)))
    assert GROUP.mult(cheat[i], moved[i]) == case.outputs[j]  # the relation the cheater does know
    assert case.verify_lock(outputs=moved, proof=case.reprove_lock(moved, cheat)) is False
    copied = _replaced(case.locked, i, case.locked[j])
    assert case.verify_lock(outputs=copied) is False
    assert case.verify_lock(outputs=copied, proof=case.reprove_lock(copied)) is False


@SETTINGS
@given(cases(), st.data())
def test_lock_dropped_duplicated_or_fresh_output_is_refused(case: Case, data: st.DataObject) -> None:
    i, j = _two_positions(data, case.n)
    assert case.verify_lock(outputs=case.locked[:i] + case.locked[i + 1:]) is False
    assert case.verify_lock(outputs=[*case.locked, case.locked[j]]) is False
    assert case.verify_lock(inputs=case.outputs[:i] + case.outputs[i + 1:],
                            outputs=case.locked[:i] + case.locked[i + 1:]) is False
    fresh = _replaced(case.locked, i, _fresh_element(data.draw(st.binary(min_size=8, max_size=8), label="fresh")))
    assert case.verify_lock(outputs=fresh) is False
    assert case.verify_lock(outputs=fresh, proof=case.reprove_lock(fresh)) is False


@SETTINGS
@given(cases(), st.data())
def test_lock_in_another_context_is_refused(case: Case, data: st.DataObject) -> None:
    other_seat = data.draw(st.integers(0, 3).filter(lambda t: t != case.seat), label="seat")
    other_deal = data.draw(st.binary(min_size=32, max_size=32).filter(lambda d: d != case.deal_id), label="deal")
    for ctx in (proof_context(case.deal_id, other_seat, "lock"), proof_context(case.deal_id, case.seat, "shuffle"),
                proof_context(other_deal, case.seat, "lock")):
        assert case.verify_lock(ctx=ctx) is False


# --------------------------------------------------------------------------- wire form
MALFORMATIONS = ["missing key", "extra key", "short list", "long list", "element 31 bytes", "element 33 bytes",
                 "scalar 31 bytes", "scalar 33 bytes", "str value", "bytearray value", "int value", "none value",
                 "list for bytes", "bytes for list", "not a dict", "other n"]


def _malformed(wire: dict[str, Any], how: str, element_key: str, scalar_key: str, data: st.DataObject) -> Any:
    out: dict[str, Any] = {k: list(v) if isinstance(v, list) else v for k, v in wire.items()}
    lists = sorted(k for k, v in wire.items() if isinstance(v, list))
    key = data.draw(st.sampled_from(sorted(wire)), label="key")

    def set_one(k: str, value: Any) -> None:
        if isinstance(out[k], list):
            out[k][data.draw(st.integers(0, len(out[k]) - 1), label="index")] = value
        else:
            out[k] = value

    if how == "missing key":
        del out[key]
    elif how == "extra key":
        out[data.draw(st.sampled_from(["extra", "proof", "s", "Challenge"]), label="extra")] = b""
    elif how in ("short list", "long list"):
        k = data.draw(st.sampled_from(lists), label="list")
        out[k] = out[k][:-1] if how == "short list" else [*out[k], out[k][0]]
    elif how.startswith("element"):
        size = int(how.split()[1])
        set_one(element_key, (bytes(out[element_key][0]) if isinstance(out[element_key], list)
                              else out[element_key]).ljust(size, b"\x01")[:size])
    elif how.startswith("scalar"):
        size = int(how.split()[1])
        set_one(scalar_key, bytes([1]) * size)
    elif how == "str value":
        set_one(key, "00" * 32)
    elif how == "bytearray value":
        set_one(key, bytearray(32))
    elif how == "int value":
        set_one(key, 7)
    elif how == "none value":
        set_one(key, None)
    elif how == "list for bytes":
        out["challenge"] = [out["challenge"]]
    elif how == "bytes for list":
        out[data.draw(st.sampled_from(lists), label="list")] = b"\x01" * 32 * 2
    elif how == "not a dict":
        return data.draw(st.sampled_from([list(wire.items()), list(wire.values()), None, b"", "proof"]), label="obj")
    return out


@SETTINGS
@given(cases(), st.data())
def test_shuffle_from_wire_refuses_malformed(case: Case, data: st.DataObject) -> None:
    wire = case.shuffle.to_wire()
    how = data.draw(st.sampled_from(MALFORMATIONS), label="how")
    element_key = data.draw(st.sampled_from(SHUFFLE_ELEMENTS), label="element_key")
    scalar_key = data.draw(st.sampled_from(SHUFFLE_SCALARS), label="scalar_key")
    n = case.n + data.draw(st.sampled_from([-1, 1]), label="dn") if how == "other n" else case.n
    bad = _malformed(wire, how, element_key, scalar_key, data)
    assert bad != wire or n != case.n
    assert ShuffleProof.from_wire(bad, GROUP, n) is None
    assert ShuffleProof.from_wire(wire, GROUP, case.n) == case.shuffle  # the good one still parses


@SETTINGS
@given(cases(), st.data())
def test_lock_from_wire_refuses_malformed(case: Case, data: st.DataObject) -> None:
    wire = case.lock.to_wire()
    how = data.draw(st.sampled_from(MALFORMATIONS), label="how")
    scalar_key = data.draw(st.sampled_from(["challenge", "responses"]), label="scalar_key")
    n = case.n + data.draw(st.sampled_from([-1, 1]), label="dn") if how == "other n" else case.n
    bad = _malformed(wire, how, "keys", scalar_key, data)
    assert bad != wire or n != case.n
    assert LockProof.from_wire(bad, GROUP, n) is None
    assert LockProof.from_wire(wire, GROUP, case.n) == case.lock


@FEW
@given(cases())
def test_wire_round_trip(case: Case) -> None:
    shuffle_wire = case.shuffle.to_wire()
    assert set(shuffle_wire) == pv.SHUFFLE_KEYS
    parsed = ShuffleProof.from_wire(shuffle_wire, GROUP, case.n)
    assert parsed is not None and parsed.to_wire() == shuffle_wire
    lock_wire = case.lock.to_wire()
    assert set(lock_wire) == pv.LOCK_KEYS
    parsed_lock = LockProof.from_wire(lock_wire, GROUP, case.n)
    assert parsed_lock is not None and parsed_lock.to_wire() == lock_wire


# --------------------------------------------------------------------------- non-canonical encodings
BAD_ELEMENTS: dict[str, Callable[[bytes], bytes]] = {
    "top bit set": lambda e: e[:31] + bytes([e[31] | 0x80]),
    "identity": lambda e: bytes(32),
    "31 bytes": lambda e: e[:31],
    "33 bytes": lambda e: e + b"\x00",
    "s not below p": lambda e: b"\xed" + b"\xff" * 30 + b"\x7f",
    "odd s": lambda e: b"\x01" + bytes(31),
}
FIXED = Case(5, b"fixed", [2, 4, 0, 1, 3], _scalar_from("s"), [_scalar_from("x", j) for j in range(5)],
             hashlib.sha256(b"fixed").digest(), 1, b"fixed-nonces")


@pytest.mark.parametrize("bad", sorted(BAD_ELEMENTS))
@pytest.mark.parametrize("where", ["input", "output", "S", "commitments", "chain"])
def test_shuffle_refuses_noncanonical_elements(where: str, bad: str) -> None:
    case, i = FIXED, 3
    proof = case.shuffle
    if where in ("input", "output"):
        values = case.inputs if where == "input" else case.outputs
        changed = _replaced(values, i, BAD_ELEMENTS[bad](values[i]))
        if where == "input":
            assert case.verify_shuffle(inputs=changed) is False
        else:
            assert case.verify_shuffle(outputs=changed) is False
        return
    if where == "S":
        tampered = dataclasses.replace(proof, S=BAD_ELEMENTS[bad](proof.S))
    else:
        old: tuple[bytes, ...] = getattr(proof, where)
        tampered = _shuffle_with(proof, where, _replaced(list(old), i, BAD_ELEMENTS[bad](old[i])))
    assert case.verify_shuffle(proof=tampered) is False
    if bad in ("31 bytes", "33 bytes"):
        assert ShuffleProof.from_wire(tampered.to_wire(), GROUP, case.n) is None


@pytest.mark.parametrize("bad", sorted(BAD_ELEMENTS))
@pytest.mark.parametrize("where", ["input", "output", "keys"])
def test_lock_refuses_noncanonical_elements(where: str, bad: str) -> None:
    case, i = FIXED, 2
    if where == "input":
        assert case.verify_lock(inputs=_replaced(case.outputs, i, BAD_ELEMENTS[bad](case.outputs[i]))) is False
    elif where == "output":
        assert case.verify_lock(outputs=_replaced(case.locked, i, BAD_ELEMENTS[bad](case.locked[i]))) is False
    else:
        keys = _replaced(list(case.lock.keys), i, BAD_ELEMENTS[bad](case.lock.keys[i]))
        assert case.verify_lock(proof=dataclasses.replace(case.lock, keys=tuple(keys))) is False


def test_fixed_case_is_honest() -> None:
    """The base of the two tests above verifies, so their refusals come from the bad element."""
    assert FIXED.verify_shuffle() is True
    assert FIXED.verify_lock() is True


def _noncanonical_scalar(value: bytes, how: str) -> bytes:
    if how == "top bit":
        return value[:31] + bytes([value[31] | 0x80])
    return (int.from_bytes(value, "little") + ORDER).to_bytes(32, "little")


@pytest.mark.parametrize("how", ["top bit", "plus order"])
@pytest.mark.parametrize("where", ["responses", "hat", "prime", "lock responses"])
def test_noncanonical_response_scalars_are_refused(where: str, how: str) -> None:
    case, i = FIXED, 1
    if where == "lock responses":
        responses = _replaced(list(case.lock.responses), i, _noncanonical_scalar(case.lock.responses[i], how))
        assert case.verify_lock(proof=dataclasses.replace(case.lock, responses=tuple(responses))) is False
    else:
        old: tuple[bytes, ...] = getattr(case.shuffle, where)
        changed = _replaced(list(old), i, _noncanonical_scalar(old[i], how))
        assert case.verify_shuffle(proof=_shuffle_with(case.shuffle, where, changed)) is False
