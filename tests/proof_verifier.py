"""An independent verifier (and prover) of the shuffle and lock proofs, from PROTOCOL.md alone.

Written from ``protocol/PROTOCOL.md`` ("Group: ristretto255", "The fields encoding",
"Proofs"), for ristretto255 only, without importing anything from ``p2pcards``: the
``fields`` encoding, hash to group, hash to scalar and the generators are re-implemented
here, point arithmetic goes straight to libsodium (``rbcl``) and scalar arithmetic is
plain Python integers modulo ``ℓ``.  ``tests/test_proof_vectors.py`` checks the golden
vectors against it, so the reference implementation and this reading of the text must
agree byte for byte.

Where the text needed interpreting (see the notes in :func:`prove_shuffle` and
:func:`prove_lock`): the prover's randomness ``ρ(label, i)`` is indexed from 0 for every
label, ``"perm-r"`` and ``"lock-w"`` included; scalars received in a proof must be
canonical (``1 .. ℓ-1``, "Group: ristretto255"), and so must every element of the
statement (inputs and outputs) as well as of the proof.

Proofs are handled in their wire form: a dict of bytes and lists of bytes, with the keys
the spec lists (``S, commitments, chain, challenge, responses, hat, prime`` and ``keys,
challenge, responses``).  The verifiers return False for anything malformed; they never
raise.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, Final

import rbcl  # type: ignore[import-untyped]

__all__ = ["GROUP", "IDENTITY", "ORDER", "SHUFFLE_KEYS", "LOCK_KEYS", "add", "base", "context", "fields",
           "generators", "h2g", "hs", "is_valid_element", "is_valid_scalar", "mult", "prove_lock", "prove_shuffle",
           "reduce", "scalar_bytes", "scalar_int", "sub", "tag", "verify_lock", "verify_shuffle"]

GROUP: Final = "ristretto255"
#: ℓ, the order of ristretto255.
ORDER: Final = 2**252 + 27742317777372353535851937790883648493
IDENTITY: Final = bytes(32)

SHUFFLE_KEYS: Final = frozenset({"S", "commitments", "chain", "challenge", "responses", "hat", "prime"})
LOCK_KEYS: Final = frozenset({"keys", "challenge", "responses"})

Nonce = Callable[[str, int], bytes]
Field = bytes | str | int


# --------------------------------------------------------------------------- encodings
def fields(*parts: Field) -> bytes:
    """``u32(len(b1)) || b1 || u32(len(b2)) || b2 || …`` -- bytes as is, str as UTF-8, int as u64."""
    out = bytearray()
    for part in parts:
        if isinstance(part, bool):
            raise TypeError("a boolean is not a field")
        if isinstance(part, bytes):
            data = part
        elif isinstance(part, str):
            data = part.encode("utf-8")
        elif isinstance(part, int):
            if not 0 <= part < 2**64:
                raise ValueError("integer field out of u64 range")
            data = part.to_bytes(8, "big")
        else:
            raise TypeError(f"not a field: {part!r}")
        out += len(data).to_bytes(4, "big") + data
    return bytes(out)


def tag(name: str) -> bytes:
    """``p2pcards/proofs/v1/<name>``."""
    return f"p2pcards/proofs/v1/{name}".encode()


def context(deal_id: bytes, seat: int, kind: str) -> bytes:
    """``ctx = fields(tag("context"), deal_id, seat, kind)``."""
    return fields(tag("context"), deal_id, seat, kind)


# --------------------------------------------------------------------------- scalars
def scalar_int(data: bytes) -> int:
    return int.from_bytes(data, "little")


def scalar_bytes(value: int) -> bytes:
    """The canonical 32-byte little-endian encoding of ``value mod ℓ``."""
    return (value % ORDER).to_bytes(32, "little")


def is_valid_scalar(data: object) -> bool:
    """32 bytes, little-endian value in ``1 .. ℓ-1``."""
    return type(data) is bytes and len(data) == 32 and 0 < scalar_int(data) < ORDER


def reduce(wide: bytes) -> int:
    """``int_le(x) mod ℓ`` for 64 bytes ``x``."""
    if len(wide) != 64:
        raise ValueError("reduce takes 64 bytes")
    return int.from_bytes(wide, "little") % ORDER


def hs(*parts: Field) -> int:
    """``HS(x…)``: the first nonzero ``reduce(SHA-512(fields(tag("scalar"), x…, counter, 0)) || …)``."""
    counter = 0
    while True:
        wide = b""
        block = 0
        while len(wide) < 64:
            wide += hashlib.sha512(fields(tag("scalar"), *parts, counter, block)).digest()
            block += 1
        value = reduce(wide[:64])
        if value:
            return value
        counter += 1


# --------------------------------------------------------------------------- elements
def is_valid_element(data: object) -> bool:
    """32 bytes, top bit clear, not the identity, and a canonical RFC 9496 encoding."""
    return (type(data) is bytes and len(data) == 32 and not data[31] & 0x80 and data != IDENTITY
            and bool(rbcl.crypto_core_ristretto255_is_valid_point(data)))


def h2g(message: bytes) -> bytes:
    """``ristretto255_from_hash(SHA-512(msg))``; the identity counts as failure."""
    element: bytes = rbcl.crypto_core_ristretto255_from_hash(hashlib.sha512(message).digest())
    if element == IDENTITY:
        raise ValueError("hash to group gave the identity")
    return element


def mult(k: int, point: bytes) -> bytes:
    """``k · P`` for any integer ``k`` (a zero product is the identity, not an error)."""
    product: bytes = rbcl.crypto_scalarmult_ristretto255_allow_scalar_zero(scalar_bytes(k), point)
    return product


def base(k: int) -> bytes:
    """``k · B``."""
    product: bytes = rbcl.crypto_scalarmult_ristretto255_base_allow_scalar_zero(scalar_bytes(k))
    return product


def add(a: bytes, b: bytes) -> bytes:
    total: bytes = rbcl.crypto_core_ristretto255_add(a, b)
    return total


def sub(a: bytes, b: bytes) -> bytes:
    difference: bytes = rbcl.crypto_core_ristretto255_sub(a, b)
    return difference


def _sum(points: Sequence[bytes]) -> bytes:
    total = IDENTITY
    for point in points:
        total = add(total, point)
    return total


def _combination(scalars: Sequence[int], points: Sequence[bytes]) -> bytes:
    """``Σ scalars[i] · points[i]``."""
    if len(scalars) != len(points):
        raise ValueError("length mismatch")
    return _sum([mult(k, p) for k, p in zip(scalars, points)])


def generators(n: int) -> tuple[bytes, list[bytes]]:
    """``H = H2G(fields(tag("generator"), group, 0))`` and ``H_i`` for ``i = 1..n``."""
    h = h2g(fields(tag("generator"), GROUP, 0))
    return h, [h2g(fields(tag("generator"), GROUP, i)) for i in range(1, n + 1)]


def _product(values: Sequence[int]) -> int:
    total = 1
    for value in values:
        total = total * value % ORDER
    return total


# --------------------------------------------------------------------------- shuffle
def _shuffle_d(ctx: bytes, xs: Sequence[bytes], ys: Sequence[bytes], big_s: bytes,
               commitments: Sequence[bytes]) -> bytes:
    """``D = SHA-512(fields(tag("shuffle-u"), ctx, n, X_1…X_n, Y_1…Y_n, S, c_1…c_n))``."""
    return hashlib.sha512(fields(tag("shuffle-u"), ctx, len(xs), *xs, *ys, big_s, *commitments)).digest()


def _shuffle_c(d: bytes, chain: Sequence[bytes], ts: Sequence[bytes], t_hat: Sequence[bytes]) -> int:
    """``c = HS(SHA-512(fields(tag("shuffle-c"), D, ĉ_1…ĉ_n, t_1…t_5, t̂_1…t̂_n)))``."""
    return hs(hashlib.sha512(fields(tag("shuffle-c"), d, *chain, *ts, *t_hat)).digest())


def prove_shuffle(ctx: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], perm: Sequence[int], s: bytes,
                  nonce: Nonce) -> dict[str, Any]:
    """The wire proof that ``outputs[i] = s · inputs[perm[i]]`` (ψ = perm, indices from 0).

    Interpretation: ``r_j = ρ("perm-r", j)`` is read with ``j`` counted from 0 (that is
    ``j - 1`` in the spec's 1-based notation), like ``ρ("chain-r", i - 1)`` and the other
    labels, which spell the ``- 1`` out.  The statement itself is not checked (a prover of a
    false statement gets a proof that must not verify).
    """
    n = len(inputs)
    if len(outputs) != n or sorted(perm) != list(range(n)) or n == 0:
        raise ValueError("not a permutation of n > 0 elements")
    h, hs_ = generators(n)
    s_int = scalar_int(s)
    big_s = base(s_int)
    r = [scalar_int(nonce("perm-r", j)) for j in range(n)]
    commitments = [b""] * n
    for i in range(n):  # c_ψ(i) = r_ψ(i) · B + H_i
        commitments[perm[i]] = add(base(r[perm[i]]), hs_[i])
    d = _shuffle_d(ctx, inputs, outputs, big_s, commitments)
    u = [hs(d, j) for j in range(n)]
    u_tilde = [u[perm[i]] for i in range(n)]
    r_hat = [scalar_int(nonce("chain-r", i)) for i in range(n)]
    chain: list[bytes] = []
    previous = h
    for i in range(n):  # ĉ_i = r̂_i · B + ũ_i · ĉ_{i-1}
        previous = add(base(r_hat[i]), mult(u_tilde[i], previous))
        chain.append(previous)
    omega = [scalar_int(nonce("w", k)) for k in range(4)]
    omega_hat = [scalar_int(nonce("w-hat", i)) for i in range(n)]
    omega_prime = [scalar_int(nonce("w-prime", i)) for i in range(n)]
    big_e = _combination(u, inputs)
    t1 = base(omega[0])
    t2 = base(omega[1])
    t3 = add(base(omega[2]), _combination(omega_prime, hs_))
    t4 = sub(_combination(omega_prime, outputs), mult(omega[3], big_e))
    t5 = base(omega[3])
    t_hat = [add(base(omega_hat[i]), mult(omega_prime[i], h if i == 0 else chain[i - 1])) for i in range(n)]
    c = _shuffle_c(d, chain, [t1, t2, t3, t4, t5], t_hat)
    v = [1] * n  # v_n = 1; v_i = ũ_{i+1} · v_{i+1}
    for i in range(n - 2, -1, -1):
        v[i] = u_tilde[i + 1] * v[i + 1] % ORDER
    s1 = omega[0] - c * sum(r)
    s2 = omega[1] - c * sum(rh * vi for rh, vi in zip(r_hat, v))
    s3 = omega[2] - c * sum(rj * uj for rj, uj in zip(r, u))
    s4 = omega[3] - c * s_int
    return {
        "S": big_s,
        "commitments": commitments,
        "chain": chain,
        "challenge": scalar_bytes(c),
        "responses": [scalar_bytes(x) for x in (s1, s2, s3, s4)],
        "hat": [scalar_bytes(omega_hat[i] - c * r_hat[i]) for i in range(n)],
        "prime": [scalar_bytes(omega_prime[i] - c * u_tilde[i]) for i in range(n)],
    }


def _scalars(value: object, count: int) -> list[int] | None:
    if not isinstance(value, list) or len(value) != count or not all(is_valid_scalar(x) for x in value):
        return None
    return [scalar_int(x) for x in value]


def _elements(value: object, count: int) -> list[bytes] | None:
    if not isinstance(value, list) or len(value) != count or not all(is_valid_element(x) for x in value):
        return None
    return list(value)


def verify_shuffle(ctx: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], proof: object) -> bool:
    """Whether the wire ``proof`` shows ``outputs`` is ``inputs`` permuted and re-keyed by the scalar of ``S``."""
    n = len(inputs)
    if n == 0 or len(outputs) != n:
        return False
    if not all(is_valid_element(x) for x in (*inputs, *outputs)):
        return False
    if not isinstance(proof, dict) or set(proof) != SHUFFLE_KEYS:
        return False
    big_s = proof["S"]
    commitments = _elements(proof["commitments"], n)
    chain = _elements(proof["chain"], n)
    responses = _scalars(proof["responses"], 4)
    hat = _scalars(proof["hat"], n)
    prime = _scalars(proof["prime"], n)
    if (not is_valid_element(big_s) or not is_valid_scalar(proof["challenge"]) or commitments is None
            or chain is None or responses is None or hat is None or prime is None):
        return False
    c = scalar_int(proof["challenge"])
    s1, s2, s3, s4 = responses
    h, hs_ = generators(n)
    d = _shuffle_d(ctx, inputs, outputs, big_s, commitments)
    u = [hs(d, j) for j in range(n)]
    c_bar = sub(_sum(commitments), _sum(hs_))
    c_hat_prime = sub(chain[-1], mult(_product(u), h))
    c_tilde = _combination(u, commitments)
    big_e = _combination(u, inputs)
    t1 = add(mult(c, c_bar), base(s1))
    t2 = add(mult(c, c_hat_prime), base(s2))
    t3 = add(add(mult(c, c_tilde), base(s3)), _combination(prime, hs_))
    t4 = sub(_combination(prime, outputs), mult(s4, big_e))
    t5 = add(base(s4), mult(c, big_s))
    t_hat = [add(add(mult(c, chain[i]), base(hat[i])), mult(prime[i], h if i == 0 else chain[i - 1]))
             for i in range(n)]
    return _shuffle_c(d, chain, [t1, t2, t3, t4, t5], t_hat) == c


# --------------------------------------------------------------------------- lock
def _lock_e(ctx: bytes, xs: Sequence[bytes], ys: Sequence[bytes], keys: Sequence[bytes], a: Sequence[bytes],
            a2: Sequence[bytes]) -> int:
    """``e = HS(SHA-512(fields(tag("lock-c"), ctx, n, X…, Y…, P…, A…, A'…)))``."""
    return hs(hashlib.sha512(fields(tag("lock-c"), ctx, len(xs), *xs, *ys, *keys, *a, *a2)).digest())


def prove_lock(ctx: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], exponents: Sequence[bytes],
               nonce: Nonce) -> dict[str, Any]:
    """The wire proof that ``inputs[j] = exponents[j] · outputs[j]`` for every ``j``.

    Interpretation: ``w_j = ρ("lock-w", j)`` with ``j`` counted from 0.
    """
    n = len(inputs)
    if len(outputs) != n or len(exponents) != n or n == 0:
        raise ValueError("length mismatch")
    x = [scalar_int(e) for e in exponents]
    keys = [base(xj) for xj in x]
    w = [scalar_int(nonce("lock-w", j)) for j in range(n)]
    a = [base(wj) for wj in w]
    a2 = [mult(wj, y) for wj, y in zip(w, outputs)]
    e = _lock_e(ctx, inputs, outputs, keys, a, a2)
    return {"keys": keys, "challenge": scalar_bytes(e), "responses": [scalar_bytes(w[j] + e * x[j]) for j in range(n)]}


def verify_lock(ctx: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes], proof: object) -> bool:
    """Whether the wire ``proof`` shows every output is its own input re-keyed by the scalar of its key."""
    n = len(inputs)
    if n == 0 or len(outputs) != n:
        return False
    if not all(is_valid_element(x) for x in (*inputs, *outputs)):
        return False
    if not isinstance(proof, dict) or set(proof) != LOCK_KEYS:
        return False
    keys = _elements(proof["keys"], n)
    z = _scalars(proof["responses"], n)
    if keys is None or z is None or not is_valid_scalar(proof["challenge"]):
        return False
    e = scalar_int(proof["challenge"])
    a = [sub(base(z[j]), mult(e, keys[j])) for j in range(n)]
    a2 = [sub(mult(z[j], outputs[j]), mult(e, inputs[j])) for j in range(n)]
    return _lock_e(ctx, inputs, outputs, keys, a, a2) == e
