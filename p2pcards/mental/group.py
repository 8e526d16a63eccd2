"""The prime-order group of the commutative cipher: ristretto255.

A :class:`Group` handles elements and scalars as their canonical byte encodings, so what
the protocol computes is exactly what goes on the wire.  Every element that comes from
outside goes through :meth:`Group.validate` or :meth:`Group.mult`, which raise
:class:`~p2pcards.mental.errors.GroupError` for a non-canonical encoding, an element
outside the prime-order group, or the identity.

* :class:`Ristretto255` -- RFC 9496 through libsodium (the ``rbcl`` wheel).  Elements are
  32 bytes, scalars 32 bytes little-endian below the group order.  Hash to group is
  ``crypto_core_ristretto255_from_hash(SHA-512(message))``.
* :class:`CountingGroup` wraps a group and counts operations, for the benchmark (whose
  baseline, the textbook modp-2048 group, lives with the benchmark, among the tools:
  :mod:`p2pcards.tools.bench_deck`).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final

import rbcl  # type: ignore[import-untyped]

from p2pcards.mental.errors import GroupError

__all__ = ["CountingGroup", "Group", "Ristretto255", "group_by_name"]


def _release_rbcl_loader() -> None:
    """Give back what ``rbcl`` keeps once its libsodium is loaded.

    At every import ``rbcl`` writes the libsodium it bundles (2.8 MB, kept in its loader
    module as bytes) to a new temporary file, loads it from there and leaves both behind:
    each process would add a file to the temporary directory for good, and hold the bytes
    for nothing.  Once the library is loaded it is mapped, and the file can go (where it
    cannot, as on Windows while loaded, it stays); the bytes are never read again.
    """
    for name in ("rbcl._sodium", "_sodium"):
        loader = sys.modules.get(name)
        if loader is None or not hasattr(loader, "sodium_bs"):
            continue
        path = getattr(loader, "lib_path", None)
        if isinstance(path, str):
            with contextlib.suppress(OSError):
                os.unlink(path)
        vars(loader)["sodium_bs"] = b""


_release_rbcl_loader()


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
    """Return a fresh group by its wire name (``ristretto255``, the only one on the wire)."""
    if name == Ristretto255.name:
        return Ristretto255()
    raise GroupError(f"unknown group {name!r}")
