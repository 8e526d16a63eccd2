"""Zero-knowledge proofs that a shuffle step and a lock step are honest (sans-IO).

A **shuffle step** turns the deck ``X_1..X_n`` into ``Y_i = s · X_ψ(i)``: a permutation ``ψ``
of the input, every element multiplied by the seat's shuffle scalar ``s``.  Its proof
(:func:`prove_shuffle`) shows, without revealing ``ψ`` or ``s``, that the output is exactly
that for the ``s`` of the published ``S = s · B`` -- so no element is copied, dropped,
duplicated or replaced by another card.  It is the proof of a shuffle of Terelius and
Wikström ("Proofs of Restricted Shuffles", AFRICACRYPT 2010), in the form of Haenni,
Locher, Koenig and Dubuis ("Pseudo-Code Algorithms for Verifiable Re-Encryption
Mix-Nets", FC 2017, algorithms 8.44-8.48), with the re-encryption relation replaced by the
re-keying one: ``Σ u_ψ(i) · Y_i = s · Σ u_j · X_j`` for the verifier's challenges ``u``.

A **lock step** turns ``X_j`` into ``Y_j`` with ``X_j = x_j · Y_j`` position by position
(``x_j = s · k_j``, the inverse of the lock factor).  Its proof (:func:`prove_lock`) is a
Chaum-Pedersen proof per position that ``log_B P_j = log_{Y_j} X_j`` for the published
``P_j = x_j · B``: every output is its own input re-keyed, never another position's.

Both are made non-interactive with Fiat-Shamir: every challenge is a hash, under its own
domain tag, of ``context`` (the caller binds the protocol version, table, deal, seat and
step into it) and of the whole input and output lists and everything the proof commits to.
Challenges are full scalars (252 bits for ristretto255), so grinding challenges offline
gains nothing: the soundness error stays below ``n / ℓ`` per attempt.  The prover's random
values come from ``nonce(label, index)`` (the caller derives them from the seat's seed, so
that a replica rebuilt from its log signs the same proof again).

Everything is in the group's canonical encodings; a proof that does not parse, holds an
invalid element or a non-canonical scalar (libsodium would read ``s + ℓ`` as ``s``: a second
encoding of the same proof), or does not verify makes :func:`verify_shuffle` / :func:`verify_lock` return
False (they never raise for what a remote seat sends).  See ``protocol/PROTOCOL.md``,
"Proofs".
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from p2pcards.mental.encoding import fields
from p2pcards.mental.errors import GroupError
from p2pcards.mental.group import Group

__all__ = ["LockProof", "Nonce", "PROOF_TAGS", "ShuffleProof", "generators", "proof_context", "prove_lock",
           "prove_shuffle", "verify_lock", "verify_shuffle"]

#: Domain tags of the proofs (``PROTOCOL.md``, "Proofs").
PROOF_TAGS: Final = {name: f"p2pcards/proofs/v1/{name}".encode() for name in (
    "context", "generator", "scalar", "shuffle-u", "shuffle-c", "lock-c")}

#: ``nonce(label, index)``: the prover's secret random scalar for that label and index.
Nonce = Callable[[str, int], bytes]


def proof_context(deal_id: bytes, seat: int, kind: str) -> bytes:
    """What a step's proof is bound to: the deal (its id binds the table, deal number,
    group, deck and every seat's commitment), the author and the step's kind."""
    return fields(PROOF_TAGS["context"], deal_id, seat, kind)


_GENERATORS: dict[tuple[str, int], tuple[bytes, tuple[bytes, ...]]] = {}


def generators(group: Group, n: int) -> tuple[bytes, tuple[bytes, ...]]:
    """``H`` and ``H_1..H_n``: elements hashed to the group, whose discrete logs (to ``B``
    and to each other) nobody knows.  The same for every deal: computed once per process."""
    key = (group.name, n)
    cached = _GENERATORS.get(key)
    if cached is None:
        h = group.hash_to_element(fields(PROOF_TAGS["generator"], group.name, 0))
        hs = tuple(group.hash_to_element(fields(PROOF_TAGS["generator"], group.name, i)) for i in range(1, n + 1))
        cached = _GENERATORS[key] = (h, hs)
    return cached


_GENERATOR_SUMS: dict[tuple[str, int], bytes] = {}


def _generator_sum(group: Group, n: int) -> bytes:
    """``H_1 + … + H_n`` (the verifier's ``c̄`` subtracts it): the same for every deal."""
    key = (group.name, n)
    total = _GENERATOR_SUMS.get(key)
    if total is None:
        total = _GENERATOR_SUMS[key] = _sum(group, generators(group, n)[1])
    return total


def _to_scalar(group: Group, *parts: bytes | str | int) -> bytes:
    """A nonzero scalar hashed from ``parts`` (SHA-512 in counter mode, reduced)."""
    counter = 0
    while True:
        wide = b""
        block = 0
        while len(wide) < group.wide_size:
            wide += hashlib.sha512(fields(PROOF_TAGS["scalar"], *parts, counter, block)).digest()
            block += 1
        scalar = group.scalar_reduce(wide[: group.wide_size])
        if group.scalar_is_valid(scalar):
            return scalar
        counter += 1


def _sum(group: Group, elements: Sequence[bytes]) -> bytes:
    total = elements[0]
    for element in elements[1:]:
        total = group.add(total, element)
    return total


def _combination(group: Group, scalars: Sequence[bytes], elements: Sequence[bytes]) -> bytes:
    """``Σ scalars[i] · elements[i]``."""
    return _sum(group, [group.mult(a, x) for a, x in zip(scalars, elements, strict=True)])


# --------------------------------------------------------------------------- shuffle
@dataclass(frozen=True)
class ShuffleProof:
    """A shuffle step's proof (wire form: :meth:`to_wire`).

    ``S`` = s·B; ``commitments`` c_j (by input position) commit to the permutation;
    ``chain`` ĉ_1..ĉ_n chain its permuted challenges; ``challenge`` is c; ``responses``
    s_1..s_4; ``hat`` ŝ_1..ŝ_n; ``prime`` s'_1..s'_n.
    """

    S: bytes
    commitments: tuple[bytes, ...]
    chain: tuple[bytes, ...]
    challenge: bytes
    responses: tuple[bytes, ...]
    hat: tuple[bytes, ...]
    prime: tuple[bytes, ...]

    def to_wire(self) -> dict[str, object]:
        return {"S": self.S, "commitments": list(self.commitments), "chain": list(self.chain),
                "challenge": self.challenge, "responses": list(self.responses), "hat": list(self.hat),
                "prime": list(self.prime)}

    @classmethod
    def from_wire(cls, obj: object, group: Group, n: int) -> ShuffleProof | None:
        """The proof in ``obj``, or None when it is not a well-formed proof for ``n`` elements."""
        try:
            if not isinstance(obj, dict) or set(obj) != {"S", "commitments", "chain", "challenge", "responses",
                                                         "hat", "prime"}:
                return None
            proof = cls(obj["S"], tuple(obj["commitments"]), tuple(obj["chain"]), obj["challenge"],
                        tuple(obj["responses"]), tuple(obj["hat"]), tuple(obj["prime"]))
        except TypeError:
            return None
        elements = [proof.S, *proof.commitments, *proof.chain]
        scalars = [proof.challenge, *proof.responses, *proof.hat, *proof.prime]
        if (len(proof.commitments), len(proof.chain), len(proof.responses), len(proof.hat), len(proof.prime)) != (
                n, n, 4, n, n):
            return None
        if not all(type(e) is bytes and len(e) == group.element_size for e in elements):
            return None
        if not all(group.scalar_is_valid(x) for x in scalars):
            return None
        return proof

    def well_formed(self, group: Group, n: int) -> bool:
        """Whether the proof has the shape of one for ``n`` elements, every scalar canonical."""
        return self.from_wire(self.to_wire(), group, n) == self


def _shuffle_u(group: Group, context: bytes, xs: Sequence[bytes], ys: Sequence[bytes], big_s: bytes,
               commitments: Sequence[bytes]) -> tuple[bytes, list[bytes]]:
    digest = hashlib.sha512(fields(PROOF_TAGS["shuffle-u"], context, len(xs), *xs, *ys, big_s,
                                   *commitments)).digest()
    return digest, [_to_scalar(group, digest, j) for j in range(len(xs))]


def _shuffle_c(group: Group, digest: bytes, chain: Sequence[bytes], ts: Sequence[bytes],
               t_hat: Sequence[bytes]) -> bytes:
    return _to_scalar(group, hashlib.sha512(fields(PROOF_TAGS["shuffle-c"], digest, *chain, *ts,
                                                   *t_hat)).digest())


def prove_shuffle(group: Group, context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
                  perm: Sequence[int], s: bytes, nonce: Nonce) -> ShuffleProof:
    """The proof that ``outputs[i] == s · inputs[perm[i]]`` for every ``i``."""
    n = len(inputs)
    h, hs = generators(group, n)
    base = group.base_mult
    big_s = base(s)
    # permutation commitments, by input position: c_ψ(i) = r_ψ(i)·B + H_i
    r = [nonce("perm-r", j) for j in range(n)]
    commitments = [b""] * n
    for i, j in enumerate(perm):
        commitments[j] = group.add(base(r[j]), hs[i])
    digest, u = _shuffle_u(group, context, inputs, outputs, big_s, commitments)
    u_perm = [u[perm[i]] for i in range(n)]
    # commitment chain: ĉ_0 = H, ĉ_i = r̂_i·B + ũ_i·ĉ_{i-1}
    r_hat = [nonce("chain-r", i) for i in range(n)]
    chain: list[bytes] = []
    previous = h
    for i in range(n):
        previous = group.add(base(r_hat[i]), group.mult(u_perm[i], previous))
        chain.append(previous)
    w = [nonce("w", k) for k in range(4)]
    w_hat = [nonce("w-hat", i) for i in range(n)]
    w_prime = [nonce("w-prime", i) for i in range(n)]
    big_e = _combination(group, u, inputs)
    t1 = base(w[0])
    t2 = base(w[1])
    t3 = group.add(base(w[2]), _combination(group, w_prime, hs))
    t4 = group.sub(_combination(group, w_prime, outputs), group.mult(w[3], big_e))
    t5 = base(w[3])
    t_hat = [group.add(base(w_hat[i]), group.mult(w_prime[i], h if i == 0 else chain[i - 1])) for i in range(n)]
    c = _shuffle_c(group, digest, chain, [t1, t2, t3, t4, t5], t_hat)
    # responses
    r_bar = r[0]
    for x in r[1:]:
        r_bar = group.scalar_add(r_bar, x)
    v = [b""] * n  # v_i = ũ_{i+1} · … · ũ_n (v_n = 1)
    one = _one(group)
    v[n - 1] = one
    for i in range(n - 2, -1, -1):
        v[i] = group.scalar_mul(u_perm[i + 1], v[i + 1])
    r_hat_sum = _dot(group, r_hat, v)
    r_tilde = _dot(group, r, u)

    def response(omega: bytes, secret: bytes) -> bytes:
        return group.scalar_sub(omega, group.scalar_mul(c, secret))

    responses = (response(w[0], r_bar), response(w[1], r_hat_sum), response(w[2], r_tilde), response(w[3], s))
    hat = tuple(response(w_hat[i], r_hat[i]) for i in range(n))
    prime = tuple(response(w_prime[i], u_perm[i]) for i in range(n))
    return ShuffleProof(big_s, tuple(commitments), tuple(chain), c, responses, hat, prime)


def verify_shuffle(group: Group, context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
                   proof: ShuffleProof) -> bool:
    """Whether ``proof`` shows that ``outputs`` is ``inputs`` permuted and re-keyed by the
    scalar of ``proof.S`` (False for anything that does not verify)."""
    n = len(inputs)
    if n == 0 or len(outputs) != n or not proof.well_formed(group, n):
        return False
    try:
        for element in (proof.S, *proof.commitments, *proof.chain):
            group.validate(element)
        h, hs = generators(group, n)
        base = group.base_mult
        c = proof.challenge
        s1, s2, s3, s4 = proof.responses
        digest, u = _shuffle_u(group, context, inputs, outputs, proof.S, proof.commitments)
        u_prod = u[0]
        for x in u[1:]:
            u_prod = group.scalar_mul(u_prod, x)
        c_bar = group.sub(_sum(group, proof.commitments), _generator_sum(group, n))
        c_prime = group.sub(proof.chain[-1], group.mult(u_prod, h))
        c_tilde = _combination(group, u, proof.commitments)
        big_e = _combination(group, u, inputs)
        t1 = group.add(group.mult(c, c_bar), base(s1))
        t2 = group.add(group.mult(c, c_prime), base(s2))
        t3 = group.add(group.add(group.mult(c, c_tilde), base(s3)), _combination(group, proof.prime, hs))
        t4 = group.sub(_combination(group, proof.prime, outputs), group.mult(s4, big_e))
        t5 = group.add(base(s4), group.mult(c, proof.S))
        t_hat = [group.add(group.add(group.mult(c, proof.chain[i]), base(proof.hat[i])),
                           group.mult(proof.prime[i], h if i == 0 else proof.chain[i - 1])) for i in range(n)]
    except (GroupError, ValueError):
        return False
    return _shuffle_c(group, digest, proof.chain, [t1, t2, t3, t4, t5], t_hat) == c


# --------------------------------------------------------------------------- lock
@dataclass(frozen=True)
class LockProof:
    """A lock step's proof: ``keys`` P_j = x_j·B, one ``challenge`` e and ``responses`` z_j."""

    keys: tuple[bytes, ...]
    challenge: bytes
    responses: tuple[bytes, ...]

    def to_wire(self) -> dict[str, object]:
        return {"keys": list(self.keys), "challenge": self.challenge, "responses": list(self.responses)}

    @classmethod
    def from_wire(cls, obj: object, group: Group, n: int) -> LockProof | None:
        """The proof in ``obj``, or None when it is not a well-formed proof for ``n`` positions."""
        try:
            if not isinstance(obj, dict) or set(obj) != {"keys", "challenge", "responses"}:
                return None
            proof = cls(tuple(obj["keys"]), obj["challenge"], tuple(obj["responses"]))
        except TypeError:
            return None
        if len(proof.keys) != n or len(proof.responses) != n:
            return None
        if not all(type(e) is bytes and len(e) == group.element_size for e in proof.keys):
            return None
        if not all(group.scalar_is_valid(x) for x in (proof.challenge, *proof.responses)):
            return None
        return proof

    def well_formed(self, group: Group, n: int) -> bool:
        """Whether the proof has the shape of one for ``n`` positions, every scalar canonical."""
        return self.from_wire(self.to_wire(), group, n) == self


def _lock_c(group: Group, context: bytes, xs: Sequence[bytes], ys: Sequence[bytes], keys: Sequence[bytes],
            a: Sequence[bytes], a2: Sequence[bytes]) -> bytes:
    return _to_scalar(group, hashlib.sha512(fields(PROOF_TAGS["lock-c"], context, len(xs), *xs, *ys, *keys, *a,
                                                   *a2)).digest())


def prove_lock(group: Group, context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
               exponents: Sequence[bytes], nonce: Nonce) -> LockProof:
    """The proof that ``inputs[j] == exponents[j] · outputs[j]`` for every ``j``."""
    n = len(inputs)
    keys = [group.base_mult(x) for x in exponents]
    w = [nonce("lock-w", j) for j in range(n)]
    a = [group.base_mult(wj) for wj in w]
    a2 = [group.mult(wj, y) for wj, y in zip(w, outputs, strict=True)]
    e = _lock_c(group, context, inputs, outputs, keys, a, a2)
    z = tuple(group.scalar_add(w[j], group.scalar_mul(e, exponents[j])) for j in range(n))
    return LockProof(tuple(keys), e, z)


def verify_lock(group: Group, context: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
                proof: LockProof) -> bool:
    """Whether ``proof`` shows every output is its own input re-keyed by the scalar of its key."""
    n = len(inputs)
    if n == 0 or len(outputs) != n or not proof.well_formed(group, n):
        return False
    e = proof.challenge
    try:
        a = [group.sub(group.base_mult(z), group.mult(e, p)) for z, p in zip(proof.responses, proof.keys, strict=True)]
        a2 = [group.sub(group.mult(z, y), group.mult(e, x))
              for z, x, y in zip(proof.responses, inputs, outputs, strict=True)]
    except (GroupError, ValueError):
        return False
    return _lock_c(group, context, inputs, outputs, proof.keys, a, a2) == e


# --------------------------------------------------------------------------- scalars
def _one(group: Group) -> bytes:
    size = group.scalar_size
    return (1).to_bytes(size, "little") if group.name == "ristretto255" else (1).to_bytes(size, "big")


def _dot(group: Group, a: Sequence[bytes], b: Sequence[bytes]) -> bytes:
    total = group.scalar_mul(a[0], b[0])
    for x, y in zip(a[1:], b[1:], strict=True):
        total = group.scalar_add(total, group.scalar_mul(x, y))
    return total
