"""The golden proof vectors (``protocol/vectors/proofs.json``) against an independent reading of PROTOCOL.md.

``tests/proof_verifier.py`` re-implements the "Proofs" section without ``p2pcards``; here it
must accept the vector's proofs, refuse every ``invalid_*`` statement, and reproduce both
proofs byte for byte from the statement and the listed nonces.  The reference
``p2pcards.mental.proofs`` must give the same verdicts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import rbcl  # type: ignore[import-untyped]

from p2pcards.mental.group import Ristretto255
from p2pcards.mental.proofs import LockProof, ShuffleProof, generators, verify_lock, verify_shuffle
from tests import proof_verifier as pv

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors" / "proofs.json"
DATA: dict[str, Any] = json.loads(VECTORS.read_text())
GROUP = Ristretto255()


def _hexes(values: list[str]) -> list[bytes]:
    return [bytes.fromhex(v) for v in values]


def _wire(obj: dict[str, Any]) -> dict[str, Any]:
    """A proof as JSON (hex strings) -> its wire form (bytes, lists of bytes)."""
    return {key: _hexes(value) if isinstance(value, list) else bytes.fromhex(value) for key, value in obj.items()}


DEAL_ID = bytes.fromhex(DATA["deal_id"])
SH = DATA["shuffle"]
SH_CTX = bytes.fromhex(SH["context"])
SH_IN = _hexes(SH["inputs"])
SH_OUT = _hexes(SH["outputs"])
SH_PERM: list[int] = SH["permutation"]
SH_S = bytes.fromhex(SH["scalar"])
SH_PROOF = _wire(SH["proof"])
LK = DATA["lock"]
LK_CTX = bytes.fromhex(LK["context"])
LK_IN = _hexes(LK["inputs"])
LK_OUT = _hexes(LK["outputs"])
LK_EXP = _hexes(LK["exponents"])
LK_PROOF = _wire(LK["proof"])
N = len(SH_IN)
NONCES: dict[str, list[bytes]] = {label: _hexes(values) for label, values in DATA["nonces"].items()}

BAD_SHUFFLES = [(c["why"], bytes.fromhex(c["context"]), _hexes(c["inputs"]), _hexes(c["outputs"]))
                for c in DATA["invalid_shuffles"]]
BAD_LOCKS = [(c["why"], bytes.fromhex(c["context"]), _hexes(c["inputs"]), _hexes(c["outputs"]))
             for c in DATA["invalid_locks"]]


def _recording_nonce(used: set[tuple[str, int]]) -> Callable[[str, int], bytes]:
    def nonce(label: str, index: int) -> bytes:
        used.add((label, index))
        return NONCES[label][index]  # KeyError / IndexError: a nonce the vector does not list

    return nonce


def _ref_shuffle(ctx: bytes, inputs: list[bytes], outputs: list[bytes], wire: dict[str, Any]) -> bool:
    proof = ShuffleProof.from_wire(wire, GROUP, len(inputs))
    return proof is not None and verify_shuffle(GROUP, ctx, inputs, outputs, proof)


def _ref_lock(ctx: bytes, inputs: list[bytes], outputs: list[bytes], wire: dict[str, Any]) -> bool:
    proof = LockProof.from_wire(wire, GROUP, len(inputs))
    return proof is not None and verify_lock(GROUP, ctx, inputs, outputs, proof)


# --------------------------------------------------------------------------- the file itself
def test_vector_file_shape() -> None:
    assert DATA["group"] == "ristretto255"
    assert set(DATA) == {"group", "note", "deal_id", "shuffle", "lock", "nonces", "invalid_shuffles", "invalid_locks"}
    assert N >= 2 and len(SH_OUT) == N and sorted(SH_PERM) == list(range(N))
    assert set(SH["proof"]) == pv.SHUFFLE_KEYS and set(LK["proof"]) == pv.LOCK_KEYS
    assert len(BAD_SHUFFLES) >= 1 and len(BAD_LOCKS) >= 1
    # proof sizes from PROTOCOL.md "Cost": 32·(4n+6) bytes for a shuffle, 32·(2n+1) for a lock
    assert sum(len(v) if isinstance(v, bytes) else sum(map(len, v)) for v in SH_PROOF.values()) == 32 * (4 * N + 6)
    assert sum(len(v) if isinstance(v, bytes) else sum(map(len, v)) for v in LK_PROOF.values()) == 32 * (2 * N + 1)


def test_fields_example_from_the_spec() -> None:
    expected = "00000006 636f6d6d6974 00000008 0000000000000007 00000003 616263".replace(" ", "")
    assert pv.fields("commit", 7, b"abc").hex() == expected
    with pytest.raises(TypeError):
        pv.fields(True)


def test_reduce_matches_libsodium() -> None:
    for wide in (bytes(64), b"\xff" * 64, bytes(range(64)), pv.ORDER.to_bytes(64, "little")):
        assert pv.scalar_bytes(pv.reduce(wide)) == rbcl.crypto_core_ristretto255_scalar_reduce(wide)


def test_contexts_are_the_specified_field_lists() -> None:
    seat = next(t for t in range(4) if pv.context(DEAL_ID, t, "shuffle") == SH_CTX)
    assert LK_CTX == pv.context(DEAL_ID, seat, "lock")
    for why, ctx, _, _ in [*BAD_SHUFFLES, *BAD_LOCKS]:
        if "context" in why:
            assert ctx in {pv.context(DEAL_ID, t, k) for t in range(4) for k in ("shuffle", "lock")}


def test_statements_are_true() -> None:
    """The vector's statements hold: a permuted re-keyed deck, then a per-position lock of it."""
    s = pv.scalar_int(SH_S)
    assert pv.is_valid_scalar(SH_S)
    assert all(pv.is_valid_element(x) for x in (*SH_IN, *SH_OUT, *LK_OUT))
    assert [pv.mult(s, SH_IN[SH_PERM[i]]) for i in range(N)] == SH_OUT
    assert LK_IN == SH_OUT
    assert [pv.mult(pv.scalar_int(x), y) for x, y in zip(LK_EXP, LK_OUT, strict=True)] == LK_IN
    assert SH_PROOF["S"] == pv.base(s)
    assert LK_PROOF["keys"] == [pv.base(pv.scalar_int(x)) for x in LK_EXP]


def test_generators_match_reference() -> None:
    h, hs = pv.generators(N)
    assert (h, tuple(hs)) == generators(GROUP, N)
    assert len({h, *hs}) == N + 1


# --------------------------------------------------------------------------- verification
def test_shuffle_proof_verifies() -> None:
    assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, SH_PROOF) is True
    assert _ref_shuffle(SH_CTX, SH_IN, SH_OUT, SH_PROOF) is True


def test_lock_proof_verifies() -> None:
    assert pv.verify_lock(LK_CTX, LK_IN, LK_OUT, LK_PROOF) is True
    assert _ref_lock(LK_CTX, LK_IN, LK_OUT, LK_PROOF) is True


@pytest.mark.parametrize(("why", "ctx", "inputs", "outputs"), BAD_SHUFFLES, ids=[b[0] for b in BAD_SHUFFLES])
def test_invalid_shuffles_refused(why: str, ctx: bytes, inputs: list[bytes], outputs: list[bytes]) -> None:
    assert (ctx, inputs, outputs) != (SH_CTX, SH_IN, SH_OUT)
    assert pv.verify_shuffle(ctx, inputs, outputs, SH_PROOF) is False
    assert _ref_shuffle(ctx, inputs, outputs, SH_PROOF) is False


@pytest.mark.parametrize(("why", "ctx", "inputs", "outputs"), BAD_LOCKS, ids=[b[0] for b in BAD_LOCKS])
def test_invalid_locks_refused(why: str, ctx: bytes, inputs: list[bytes], outputs: list[bytes]) -> None:
    assert (ctx, inputs, outputs) != (LK_CTX, LK_IN, LK_OUT)
    assert pv.verify_lock(ctx, inputs, outputs, LK_PROOF) is False
    assert _ref_lock(ctx, inputs, outputs, LK_PROOF) is False


# --------------------------------------------------------------------------- proving
def test_independent_prover_reproduces_shuffle_proof() -> None:
    used: set[tuple[str, int]] = set()
    proof = pv.prove_shuffle(SH_CTX, SH_IN, SH_OUT, SH_PERM, SH_S, _recording_nonce(used))
    assert proof == SH_PROOF
    # every listed shuffle nonce, and nothing else, went into the proof
    assert used == {(label, i) for label in ("perm-r", "chain-r", "w", "w-hat", "w-prime")
                    for i in range(len(NONCES[label]))}


def test_independent_prover_reproduces_lock_proof() -> None:
    used: set[tuple[str, int]] = set()
    proof = pv.prove_lock(LK_CTX, LK_IN, LK_OUT, LK_EXP, _recording_nonce(used))
    assert proof == LK_PROOF
    assert used == {("lock-w", j) for j in range(N)}


def test_independent_prover_of_a_false_statement_is_refused() -> None:
    """Proving the swapped deck with the vector's permutation gives a proof both verifiers refuse."""
    used: set[tuple[str, int]] = set()
    swapped = [SH_OUT[1], SH_OUT[0], *SH_OUT[2:]]
    proof = pv.prove_shuffle(SH_CTX, SH_IN, swapped, SH_PERM, SH_S, _recording_nonce(used))
    assert pv.verify_shuffle(SH_CTX, SH_IN, swapped, proof) is False
    assert _ref_shuffle(SH_CTX, SH_IN, swapped, proof) is False
    lock = pv.prove_lock(LK_CTX, LK_IN, [LK_OUT[1], LK_OUT[0], *LK_OUT[2:]], LK_EXP, _recording_nonce(used))
    assert pv.verify_lock(LK_CTX, LK_IN, [LK_OUT[1], LK_OUT[0], *LK_OUT[2:]], lock) is False


# --------------------------------------------------------------------------- tampered proofs
def _tampered(wire: dict[str, Any], key: str, index: int | None, offset: int, mask: int) -> dict[str, Any]:
    out = {k: list(v) if isinstance(v, list) else v for k, v in wire.items()}
    value = out[key][index] if index is not None else out[key]
    assert isinstance(value, bytes)
    changed = value[:offset] + bytes([value[offset] ^ mask]) + value[offset + 1:]
    if index is None:
        out[key] = changed
    else:
        out[key][index] = changed
    return out


def _spots(wire: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(key, None) if isinstance(value, bytes) else (key, i)
            for key, value in sorted(wire.items()) for i in (range(len(value)) if isinstance(value, list) else [0])]


@pytest.mark.parametrize("offset", [0, 13, 31])
def test_every_tampered_value_is_refused_by_both(offset: int) -> None:
    """Inverting one byte of any element or scalar of either proof: both verifiers refuse."""
    for key, index in _spots(SH_PROOF):
        bad = _tampered(SH_PROOF, key, index, offset, 0xFF)
        assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, bad) is False, (key, index)
        assert _ref_shuffle(SH_CTX, SH_IN, SH_OUT, bad) is False, (key, index)
    for key, index in _spots(LK_PROOF):
        bad = _tampered(LK_PROOF, key, index, offset, 0xFF)
        assert pv.verify_lock(LK_CTX, LK_IN, LK_OUT, bad) is False, (key, index)
        assert _ref_lock(LK_CTX, LK_IN, LK_OUT, bad) is False, (key, index)


def _noncanonical(value: bytes, how: str) -> bytes:
    if how == "top bit":
        return value[:31] + bytes([value[31] | 0x80])
    return (pv.scalar_int(value) + pv.ORDER).to_bytes(32, "little")  # "+ℓ": same residue, not reduced


NONCANONICAL = [("responses", 0), ("responses", 3), ("hat", 0), ("prime", N - 1)]


@pytest.mark.parametrize("how", ["top bit", "plus order"])
@pytest.mark.parametrize(("key", "index"), NONCANONICAL)
def test_independent_verifier_refuses_noncanonical_response_scalars(key: str, index: int, how: str) -> None:
    """PROTOCOL.md "Group": a scalar is 32 bytes, value in 1 .. ℓ-1 (canonical).  Multiplication
    alone would accept these (libsodium ignores bit 255 and reduces the rest modulo ℓ)."""
    bad = {k: list(v) if isinstance(v, list) else v for k, v in SH_PROOF.items()}
    bad[key][index] = _noncanonical(SH_PROOF[key][index], how)
    assert bad != SH_PROOF
    assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, bad) is False
    bad_lock = {**LK_PROOF, "responses": list(LK_PROOF["responses"])}
    bad_lock["responses"][index % N] = _noncanonical(LK_PROOF["responses"][index % N], how)
    assert pv.verify_lock(LK_CTX, LK_IN, LK_OUT, bad_lock) is False


@pytest.mark.parametrize("how", ["top bit", "plus order"])
def test_reference_agrees_on_noncanonical_response_scalars(how: str) -> None:
    bad = {**SH_PROOF, "responses": [_noncanonical(SH_PROOF["responses"][0], how), *SH_PROOF["responses"][1:]]}
    assert _ref_shuffle(SH_CTX, SH_IN, SH_OUT, bad) is False


def test_malformed_wire_refused_by_independent_verifier() -> None:
    assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, {**SH_PROOF, "extra": b""}) is False
    assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, {k: v for k, v in SH_PROOF.items() if k != "hat"}) is False
    assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, {**SH_PROOF, "hat": SH_PROOF["hat"][:-1]}) is False
    assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, {**SH_PROOF, "S": pv.IDENTITY}) is False
    assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, {**SH_PROOF, "challenge": "00" * 32}) is False
    assert pv.verify_shuffle(SH_CTX, SH_IN, SH_OUT, None) is False
    assert pv.verify_shuffle(SH_CTX, SH_IN[:-1], SH_OUT[:-1], SH_PROOF) is False
    assert pv.verify_lock(LK_CTX, LK_IN, LK_OUT, {**LK_PROOF, "keys": LK_PROOF["keys"][:-1]}) is False
    assert pv.verify_lock(LK_CTX, LK_IN, LK_OUT, {**LK_PROOF, "challenge": bytes(32)}) is False
    assert pv.verify_lock(LK_CTX, [pv.IDENTITY, *LK_IN[1:]], LK_OUT, LK_PROOF) is False


@pytest.mark.parametrize("name", ["deal-2x6.json", "deal-4x40.json"])
def test_every_proof_of_the_deal_vectors_verifies_independently(name: str) -> None:
    """The whole-deal vectors: each shuffle's and lock's proof, checked by the independent
    verifier against the deck it took (the card encodings, then each step's output)."""
    data = json.loads((VECTORS.parent / name).read_text())
    deal_id = bytes.fromhex(data["deal_id"])
    deck = _hexes(data["encodings"])
    steps = [m for m in data["transcript"] if m["kind"] in ("shuffle", "lock")]
    assert [m["kind"] for m in steps] == ["shuffle"] * len(data["seats"]) + ["lock"] * len(data["seats"])
    for message in steps:
        out = _hexes(message["deck"])
        ctx = pv.context(deal_id, message["seat"], message["kind"])
        check = pv.verify_shuffle if message["kind"] == "shuffle" else pv.verify_lock
        assert check(ctx, deck, out, _wire(message["proof"])), (name, message["kind"], message["seat"])
        assert not check(ctx, out, deck, _wire(message["proof"])), "a proof is bound to its own decks"
        deck = out
