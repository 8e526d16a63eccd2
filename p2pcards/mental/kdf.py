"""Every value of a deal that is derived rather than chosen: hashes and the seed KDF.

Public derivations (anyone can compute them):

* :func:`commitment` -- ``SHA-256(fields("…/commit", table, deal, seat, group, seed))``.
* :func:`deal_id` -- ``SHA-256(fields("…/deal-id", table, deal, group, n, M, cards…,
  commitments…))``: fixes the card encodings only once every seat has committed.
* :func:`card_encodings` -- ``hash_to_element(fields("…/card", deal_id, card))`` per card,
  checked pairwise distinct.
* :func:`key_commitment` -- ``SHA-256(fields("…/key-commit", deal_id, seat, position, key))``.
* :func:`hpke_info` -- ``fields("…/hpke-info", table, deal, kind, step, from, to)``.

Secret derivations (:class:`SeedKdf`, everything a seat does is a function of its seed):
``PRF(label, x…) = HMAC-SHA512(seed, fields("…/kdf", table, deal, seat, group, label,
x…))``.  A scalar is ``scalar_reduce`` of ``PRF(label, x…, attempt, 0) || PRF(…, attempt,
1) || …`` cut to the group's ``wide_size``, taking the first ``attempt = 0, 1, …`` that is
nonzero.  The permutation is Fisher–Yates over ``0..M-1`` driven by 4-byte big-endian
draws read from ``PRF("permutation", 0) || PRF("permutation", 1) || …`` with rejection
sampling, so it has no modulo bias.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import count

from p2pcards.mental.encoding import TAGS, fields
from p2pcards.mental.errors import GroupError, LocalError
from p2pcards.mental.group import Group

__all__ = [
    "SeatSecrets",
    "SeedKdf",
    "card_encodings",
    "commitment",
    "deal_id",
    "hpke_info",
    "key_commitment",
]

SEED_SIZE = 32


def commitment(table_id: bytes, deal_number: int, seat: int, group_name: str, seed: bytes) -> bytes:
    """A seat's binding, hiding commitment to its 32-byte seed for this deal."""
    return hashlib.sha256(
        fields(TAGS["commit"], table_id, deal_number, seat, group_name, seed)
    ).digest()


def deal_id(
    table_id: bytes,
    deal_number: int,
    group_name: str,
    deck: Sequence[str],
    commitments: Sequence[bytes],
) -> bytes:
    """The deal id: a hash of the context, the deck and all seats' commitments in seat order."""
    return hashlib.sha256(
        fields(
            TAGS["deal-id"],
            table_id,
            deal_number,
            group_name,
            len(commitments),
            len(deck),
            *deck,
            *commitments,
        )
    ).digest()


def card_encodings(group: Group, the_deal_id: bytes, deck: Sequence[str]) -> tuple[bytes, ...]:
    """Hash every card of the deck to the group for this deal; all must be distinct."""
    encodings = tuple(
        group.hash_to_element(fields(TAGS["card"], the_deal_id, card)) for card in deck
    )
    if len(set(encodings)) != len(encodings):
        raise GroupError("two cards hash to the same element")
    return encodings


def key_commitment(the_deal_id: bytes, seat: int, position: int, key: bytes) -> bytes:
    """The public commitment to ``seat``'s key for ``position``, published in its lock."""
    return hashlib.sha256(fields(TAGS["key-commit"], the_deal_id, seat, position, key)).digest()


def hpke_info(
    table_id: bytes, deal_number: int, kind: str, step: int, sender: int, recipient: int
) -> bytes:
    """HPKE ``info`` binding table, deal, message kind, step and both seats."""
    return fields(TAGS["hpke-info"], table_id, deal_number, kind, step, sender, recipient)


@dataclass(frozen=True, kw_only=True)
class SeatSecrets:
    """A seat's secrets for one deal, all derived from its seed by :class:`SeedKdf`.

    ``keys[j]`` opens position ``j``: the final card is ``(∏_seats keys[j])⁻¹ · E``.
    ``lock_factors[j] = (shuffle_scalar · keys[j])⁻¹`` is what the lock round multiplies
    in (it replaces the shuffle scalar by the per-position lock ``keys[j]⁻¹``).
    """

    shuffle_scalar: bytes
    permutation: tuple[int, ...]
    keys: tuple[bytes, ...]
    lock_factors: tuple[bytes, ...]


class SeedKdf:
    """The KDF of one seat's seed, bound to table, deal, seat and group."""

    def __init__(
        self, group: Group, table_id: bytes, deal_number: int, seat: int, seed: bytes
    ) -> None:
        if type(seed) is not bytes or len(seed) != SEED_SIZE:
            raise LocalError("a seed is 32 bytes")
        self.group = group
        self._seed = seed
        self._prefix = fields(TAGS["kdf"], table_id, deal_number, seat, group.name)

    def prf(self, label: str, *extra: bytes | str | int) -> bytes:
        """``HMAC-SHA512(seed, fields("…/kdf", table, deal, seat, group, label, extra…))``."""
        return hmac.digest(self._seed, self._prefix + fields(label, *extra), "sha512")

    def scalar(self, label: str, *extra: bytes | str | int) -> bytes:
        """A uniform nonzero scalar (first nonzero attempt of the wide reduction)."""
        size = self.group.wide_size
        for attempt in count():
            wide = b"".join(
                self.prf(label, *extra, attempt, block) for block in range(-(-size // 64))
            )
            scalar = self.group.scalar_reduce(wide[:size])
            if self.group.scalar_is_valid(scalar):
                return scalar
        raise AssertionError("unreachable")  # pragma: no cover

    def _draws(self) -> Iterator[int]:
        """4-byte big-endian integers read from the permutation PRF stream."""
        for block in count():
            data = self.prf("permutation", block)
            for offset in range(0, 64, 4):
                yield int.from_bytes(data[offset : offset + 4], "big")

    def permutation(self, size: int) -> tuple[int, ...]:
        """Fisher–Yates over ``range(size)``: for i = size-1 … 1 swap a[i] with a[r], r ≤ i.

        ``r`` is uniform in ``0..i``: a draw ``v`` is rejected unless
        ``v < 2³² − (2³² mod (i+1))``, and then ``r = v mod (i+1)``.
        """
        order = list(range(size))
        draws = self._draws()
        for i in range(size - 1, 0, -1):
            bound = i + 1
            limit = (1 << 32) - (1 << 32) % bound
            value = next(draws)
            while value >= limit:
                value = next(draws)
            j = value % bound
            order[i], order[j] = order[j], order[i]
        return tuple(order)

    def proof_nonce(self, kind: str) -> Callable[[str, int], bytes]:
        """The prover's random values for this seat's ``kind`` step (``"shuffle"``,
        ``"lock"``): ``scalar("proof-" + label, kind, index)`` (``PROTOCOL.md``, "Proofs")."""
        return lambda label, index: self.scalar("proof-" + label, kind, index)

    def secrets(self, deck_size: int) -> SeatSecrets:
        """Derive the shuffle scalar, permutation, position keys and lock factors."""
        group = self.group
        shuffle_scalar = self.scalar("shuffle-scalar")
        keys = tuple(self.scalar("position-key", j) for j in range(deck_size))
        lock_factors = tuple(
            group.batch_invert([group.scalar_mul(shuffle_scalar, key) for key in keys])
        )
        return SeatSecrets(
            shuffle_scalar=shuffle_scalar,
            permutation=self.permutation(deck_size),
            keys=keys,
            lock_factors=lock_factors,
        )

    def hpke_ikm(self, kind: str, step: int, recipient: int) -> bytes:
        """The 32-byte input keying material of the HPKE ephemeral key for one message."""
        return self.prf("hpke-ephemeral", kind, step, recipient)[:32]
