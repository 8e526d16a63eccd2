"""Prime-order groups for the commutative cipher: ristretto255 and the modp-2048 baseline.

A :class:`Group` handles elements and scalars as their canonical byte encodings, so what
the protocol computes is exactly what goes on the wire.  Every element that comes from
outside goes through :meth:`Group.validate` or :meth:`Group.mult`, which raise
:class:`~p2pcards.mental.errors.GroupError` for a non-canonical encoding, an element
outside the prime-order group, or the identity.

* :class:`Ristretto255` -- RFC 9496 through libsodium (the ``rbcl`` wheel).  Elements are
  32 bytes, scalars 32 bytes little-endian below the group order.  Hash to group is
  ``crypto_core_ristretto255_from_hash(SHA-512(message))``.
* :class:`Modp2048` -- the quadratic residues modulo the RFC 3526 2048-bit safe prime
  ``p`` (a subgroup of prime order ``q = (p - 1) / 2``), the textbook SRA setting, kept as
  the benchmark baseline.  Elements and scalars are 256 bytes big-endian.  Hash to group
  squares a 320-byte hash reduced mod ``p``; membership is checked with the Jacobi symbol.
* :class:`CountingGroup` wraps either and counts operations, for the benchmark.
"""

from __future__ import annotations

import hashlib
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final

import rbcl  # type: ignore[import-untyped]

from p2pcards.mental.errors import GroupError

__all__ = ["CountingGroup", "Group", "Modp2048", "Ristretto255", "group_by_name"]


class Group(ABC):
    """A cyclic group of prime order with hash-to-group, as the mental deck needs it."""

    name: str
    """Wire name, bound into every derivation (``"ristretto255"``, ``"modp2048"``)."""
    element_size: int
    """Length in bytes of an encoded element."""
    scalar_size: int
    """Length in bytes of an encoded scalar."""
    wide_size: int
    """Length of the uniform bytes :meth:`scalar_reduce` turns into a scalar."""

    @abstractmethod
    def hash_to_element(self, message: bytes) -> bytes:
        """Map ``message`` to an element with no known discrete log (never the identity)."""

    @abstractmethod
    def validate(self, element: bytes) -> None:
        """Raise :class:`GroupError` unless ``element`` is a canonical non-identity element."""

    @abstractmethod
    def mult(self, scalar: bytes, element: bytes) -> bytes:
        """Return ``scalar · element`` after validating ``element`` (as :meth:`validate`)."""

    @abstractmethod
    def scalar_reduce(self, wide: bytes) -> bytes:
        """Reduce ``wide_size`` uniform bytes modulo the group order (may give zero)."""

    @abstractmethod
    def scalar_is_valid(self, scalar: bytes) -> bool:
        """Whether ``scalar`` is a canonical encoding of a nonzero scalar."""

    @abstractmethod
    def scalar_mul(self, a: bytes, b: bytes) -> bytes:
        """Return the product of two scalars modulo the group order."""

    @abstractmethod
    def scalar_invert(self, a: bytes) -> bytes:
        """Return the inverse of a nonzero scalar modulo the group order."""

    # -- what the shuffle and lock proofs need besides (p2pcards.mental.proofs) --
    @abstractmethod
    def base_mult(self, scalar: bytes) -> bytes:
        """Return ``scalar · B`` for the group's fixed generator ``B``."""

    @abstractmethod
    def add(self, a: bytes, b: bytes) -> bytes:
        """Return ``a + b`` (the group operation) of two valid elements (maybe the identity)."""

    @abstractmethod
    def sub(self, a: bytes, b: bytes) -> bytes:
        """Return ``a - b`` of two valid elements (maybe the identity)."""

    @abstractmethod
    def scalar_add(self, a: bytes, b: bytes) -> bytes:
        """Return ``a + b`` modulo the group order (maybe zero)."""

    @abstractmethod
    def scalar_sub(self, a: bytes, b: bytes) -> bytes:
        """Return ``a - b`` modulo the group order (maybe zero)."""

    def scalar_product(self, scalars: Sequence[bytes]) -> bytes:
        """Return the product of one or more scalars."""
        if not scalars:
            raise GroupError("empty scalar product")
        product = scalars[0]
        for scalar in scalars[1:]:
            product = self.scalar_mul(product, scalar)
        return product

    def batch_invert(self, scalars: Sequence[bytes]) -> list[bytes]:
        """Invert nonzero scalars with one inversion (Montgomery's trick)."""
        if not scalars:
            return []
        prefix = [scalars[0]]
        for scalar in scalars[1:]:
            prefix.append(self.scalar_mul(prefix[-1], scalar))
        inverse = self.scalar_invert(prefix[-1])
        out = [b""] * len(scalars)
        for i in range(len(scalars) - 1, 0, -1):
            out[i] = self.scalar_mul(inverse, prefix[i - 1])
            inverse = self.scalar_mul(inverse, scalars[i])
        out[0] = inverse
        return out


_IDENTITY: Final = bytes(32)


def _combine(op: Callable[[bytes, bytes], bytes], a: bytes, b: bytes) -> bytes:
    """``op`` (libsodium's ristretto255 add or sub) on two canonical encodings, as GroupErrors."""
    for element in (a, b):
        if type(element) is not bytes or len(element) != 32 or element[31] & 0x80:
            raise GroupError("element is not a canonical 32-byte encoding")
    try:
        return op(a, b)
    except RuntimeError as exc:
        raise GroupError("element is not a canonical ristretto255 encoding") from exc


class Ristretto255(Group):
    """ristretto255 (RFC 9496) through libsodium as bundled by ``rbcl``."""

    name = "ristretto255"
    element_size = 32
    scalar_size = 32
    wide_size = 64

    ORDER: Final = 2**252 + 27742317777372353535851937790883648493
    """The prime order ℓ of ristretto255."""

    def hash_to_element(self, message: bytes) -> bytes:
        """``crypto_core_ristretto255_from_hash(SHA-512(message))``."""
        element: bytes = rbcl.crypto_core_ristretto255_from_hash(hashlib.sha512(message).digest())
        if element == _IDENTITY:
            raise GroupError("hash to group gave the identity")
        return element

    @staticmethod
    def _check_encoding(element: bytes) -> None:
        """The checks libsodium leaves to us: 32 bytes, top bit clear, not the identity.

        The libsodium bundled by ``rbcl`` decodes an encoding with the top bit set as if the
        bit were clear (a second encoding of the same point), and accepts the identity.
        """
        if type(element) is not bytes or len(element) != 32:
            raise GroupError("element is not 32 bytes")
        if element[31] & 0x80:
            raise GroupError("element encoding has its top bit set (non-canonical)")
        if element == _IDENTITY:
            raise GroupError("element is the identity")

    def validate(self, element: bytes) -> None:
        """Canonical encoding of a point of the prime-order group, not the identity."""
        self._check_encoding(element)
        if not rbcl.crypto_core_ristretto255_is_valid_point(element):
            raise GroupError("element is not a canonical ristretto255 encoding")

    def mult(self, scalar: bytes, element: bytes) -> bytes:
        """libsodium's scalar multiplication, which decodes (validates) the element itself."""
        self._check_encoding(element)
        try:
            product: bytes = rbcl.crypto_scalarmult_ristretto255(scalar, element)
        except RuntimeError as exc:  # not a canonical encoding, or a zero product
            raise GroupError("element is not a canonical ristretto255 encoding") from exc
        return product

    def scalar_reduce(self, wide: bytes) -> bytes:
        """``crypto_core_ristretto255_scalar_reduce`` of 64 bytes (little-endian mod ℓ)."""
        reduced: bytes = rbcl.crypto_core_ristretto255_scalar_reduce(wide)
        return reduced

    def scalar_is_valid(self, scalar: bytes) -> bool:
        """32 bytes, little-endian value in 1..ℓ-1."""
        return (
            type(scalar) is bytes
            and len(scalar) == 32
            and 0 < int.from_bytes(scalar, "little") < self.ORDER
        )

    def scalar_mul(self, a: bytes, b: bytes) -> bytes:
        """``crypto_core_ristretto255_scalar_mul``."""
        product: bytes = rbcl.crypto_core_ristretto255_scalar_mul(a, b)
        return product

    def scalar_invert(self, a: bytes) -> bytes:
        """``crypto_core_ristretto255_scalar_invert``."""
        inverse: bytes = rbcl.crypto_core_ristretto255_scalar_invert(a)
        return inverse

    def base_mult(self, scalar: bytes) -> bytes:
        """``crypto_scalarmult_ristretto255_base`` (the RFC 9496 generator)."""
        try:
            product: bytes = rbcl.crypto_scalarmult_ristretto255_base(scalar)
        except RuntimeError as exc:  # a zero scalar
            raise GroupError("zero product") from exc
        return product

    def add(self, a: bytes, b: bytes) -> bytes:
        """``crypto_core_ristretto255_add`` (the identity is a valid result here)."""
        return _combine(rbcl.crypto_core_ristretto255_add, a, b)

    def sub(self, a: bytes, b: bytes) -> bytes:
        """``crypto_core_ristretto255_sub`` (the identity is a valid result here)."""
        return _combine(rbcl.crypto_core_ristretto255_sub, a, b)

    def scalar_add(self, a: bytes, b: bytes) -> bytes:
        """``crypto_core_ristretto255_scalar_add``."""
        total: bytes = rbcl.crypto_core_ristretto255_scalar_add(a, b)
        return total

    def scalar_sub(self, a: bytes, b: bytes) -> bytes:
        """``crypto_core_ristretto255_scalar_sub``."""
        difference: bytes = rbcl.crypto_core_ristretto255_scalar_sub(a, b)
        return difference


MODP2048_PRIME: Final = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74"
    "020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437"
    "4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05"
    "98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB"
    "9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718"
    "3995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF",
    16,
)
"""The RFC 3526 2048-bit MODP group prime (group 14), a safe prime."""


def _jacobi(a: int, n: int) -> int:
    """The Jacobi symbol (a/n) for odd n > 0 (binary algorithm with reciprocity)."""
    a %= n
    sign = 1
    while a:
        while not a & 1:
            a >>= 1
            if n & 7 in (3, 5):
                sign = -sign
        a, n = n, a
        if a & 3 == 3 and n & 3 == 3:
            sign = -sign
        a %= n
    return sign if n == 1 else 0


class Modp2048(Group):
    """Quadratic residues modulo the RFC 3526 2048-bit safe prime (prime order q)."""

    name = "modp2048"
    element_size = 256
    scalar_size = 256
    wide_size = 320

    P: Final = MODP2048_PRIME
    ORDER: Final = (MODP2048_PRIME - 1) // 2
    """The prime order q = (p - 1) / 2 of the quadratic residues."""

    def _decode(self, element: bytes) -> int:
        """Decode and validate: 256 bytes, 1 < x < p, x a quadratic residue."""
        if type(element) is not bytes or len(element) != 256:
            raise GroupError("element is not 256 bytes")
        value = int.from_bytes(element, "big")
        if not 1 < value < self.P:
            raise GroupError("element out of range or the identity")
        if _jacobi(value, self.P) != 1:
            raise GroupError("element is not a quadratic residue")
        return value

    def hash_to_element(self, message: bytes) -> bytes:
        """Square of SHA-512(message || i) for i = 0..4, concatenated, reduced mod p."""
        wide = b"".join(hashlib.sha512(message + bytes([i])).digest() for i in range(5))
        root = int.from_bytes(wide, "big") % self.P
        value = root * root % self.P
        if value <= 1:
            raise GroupError("hash to group gave the identity")
        return value.to_bytes(256, "big")

    def validate(self, element: bytes) -> None:
        """See :meth:`_decode`."""
        self._decode(element)

    def mult(self, scalar: bytes, element: bytes) -> bytes:
        """``element ** scalar mod p`` after validation."""
        value = pow(self._decode(element), int.from_bytes(scalar, "big"), self.P)
        if value == 1:
            raise GroupError("zero product")
        return value.to_bytes(256, "big")

    def scalar_reduce(self, wide: bytes) -> bytes:
        """Big-endian value of 320 bytes mod q."""
        return (int.from_bytes(wide, "big") % self.ORDER).to_bytes(256, "big")

    def scalar_is_valid(self, scalar: bytes) -> bool:
        """256 bytes, big-endian value in 1..q-1."""
        return (
            type(scalar) is bytes
            and len(scalar) == 256
            and 0 < int.from_bytes(scalar, "big") < self.ORDER
        )

    def scalar_mul(self, a: bytes, b: bytes) -> bytes:
        """Product mod q."""
        product = int.from_bytes(a, "big") * int.from_bytes(b, "big") % self.ORDER
        return product.to_bytes(256, "big")

    def scalar_invert(self, a: bytes) -> bytes:
        """Inverse mod q."""
        return pow(int.from_bytes(a, "big"), -1, self.ORDER).to_bytes(256, "big")

    GENERATOR: Final = 4
    """``B`` = 2², a generator of the quadratic residues."""

    def base_mult(self, scalar: bytes) -> bytes:
        """``4 ** scalar mod p``."""
        value = pow(self.GENERATOR, int.from_bytes(scalar, "big"), self.P)
        if value == 1:
            raise GroupError("zero product")
        return value.to_bytes(256, "big")

    def _operand(self, element: bytes) -> int:
        """An operand of :meth:`add`/:meth:`sub`: a residue, the identity (1) allowed."""
        if type(element) is bytes and len(element) == 256 and int.from_bytes(element, "big") == 1:
            return 1
        return self._decode(element)

    def add(self, a: bytes, b: bytes) -> bytes:
        """The group operation: ``a · b mod p``."""
        return (self._operand(a) * self._operand(b) % self.P).to_bytes(256, "big")

    def sub(self, a: bytes, b: bytes) -> bytes:
        """``a · b⁻¹ mod p``."""
        return (self._operand(a) * pow(self._operand(b), -1, self.P) % self.P).to_bytes(256, "big")

    def scalar_add(self, a: bytes, b: bytes) -> bytes:
        """Sum mod q."""
        return ((int.from_bytes(a, "big") + int.from_bytes(b, "big")) % self.ORDER).to_bytes(256, "big")

    def scalar_sub(self, a: bytes, b: bytes) -> bytes:
        """Difference mod q."""
        return ((int.from_bytes(a, "big") - int.from_bytes(b, "big")) % self.ORDER).to_bytes(256, "big")


class CountingGroup(Group):
    """Wraps a group and counts its operations in :attr:`counts`.

    Keys of :attr:`counts`: ``mult`` (scalar multiplications / exponentiations),
    ``hash`` (hash to group), ``validate`` (stand-alone element validations) and
    ``scalar`` (scalar-field multiplications and inversions).
    """

    def __init__(self, inner: Group) -> None:
        self.inner = inner
        self.name = inner.name
        self.element_size = inner.element_size
        self.scalar_size = inner.scalar_size
        self.wide_size = inner.wide_size
        self.counts: Counter[str] = Counter()

    def hash_to_element(self, message: bytes) -> bytes:
        """Counted :meth:`Group.hash_to_element`."""
        self.counts["hash"] += 1
        return self.inner.hash_to_element(message)

    def validate(self, element: bytes) -> None:
        """Counted :meth:`Group.validate`."""
        self.counts["validate"] += 1
        self.inner.validate(element)

    def mult(self, scalar: bytes, element: bytes) -> bytes:
        """Counted :meth:`Group.mult`."""
        self.counts["mult"] += 1
        return self.inner.mult(scalar, element)

    def scalar_reduce(self, wide: bytes) -> bytes:
        """Uncounted: a reduction is as cheap as a hash."""
        return self.inner.scalar_reduce(wide)

    def scalar_is_valid(self, scalar: bytes) -> bool:
        """Uncounted: a range check."""
        return self.inner.scalar_is_valid(scalar)

    def scalar_mul(self, a: bytes, b: bytes) -> bytes:
        """Counted :meth:`Group.scalar_mul`."""
        self.counts["scalar"] += 1
        return self.inner.scalar_mul(a, b)

    def scalar_invert(self, a: bytes) -> bytes:
        """Counted :meth:`Group.scalar_invert`."""
        self.counts["scalar"] += 1
        return self.inner.scalar_invert(a)

    def base_mult(self, scalar: bytes) -> bytes:
        """Counted (as ``base``) :meth:`Group.base_mult`."""
        self.counts["base"] += 1
        return self.inner.base_mult(scalar)

    def add(self, a: bytes, b: bytes) -> bytes:
        """Counted (as ``add``) :meth:`Group.add`."""
        self.counts["add"] += 1
        return self.inner.add(a, b)

    def sub(self, a: bytes, b: bytes) -> bytes:
        """Counted (as ``add``) :meth:`Group.sub`."""
        self.counts["add"] += 1
        return self.inner.sub(a, b)

    def scalar_add(self, a: bytes, b: bytes) -> bytes:
        """Uncounted: as cheap as a reduction."""
        return self.inner.scalar_add(a, b)

    def scalar_sub(self, a: bytes, b: bytes) -> bytes:
        """Uncounted: as cheap as a reduction."""
        return self.inner.scalar_sub(a, b)


def group_by_name(name: str) -> Group:
    """Return a fresh group by its wire name (``ristretto255`` or ``modp2048``)."""
    if name == Ristretto255.name:
        return Ristretto255()
    if name == Modp2048.name:
        return Modp2048()
    raise GroupError(f"unknown group {name!r}")
