"""The deck protocol's messages: typed values and their plain-data wire form.

On the wire a message is a ``dict`` with ``str`` keys whose values are ``bytes``, ``int``,
``str`` or lists of them -- ready for msgpack.  Every message has ``kind``, ``table``
(table id), ``deal`` (deal number) and ``seat`` (author); the other fields depend on the
kind (see protocol/PROTOCOL.md, "Messages"):

============  =====================================================================
kind          fields
============  =====================================================================
``commit``    ``commitment``: 32 bytes
``shuffle``   ``deck``: M elements; ``proof``: a shuffle proof
``lock``      ``deck``: M elements; ``key_commitments``: M × 32 bytes; ``proof``: a lock proof
``keys``      ``step``, ``to``, ``positions``, ``sealed``: HPKE ``enc || ct``
``transfer``  ``step``, ``to``, ``positions``, ``sealed``
``reveal``    ``step``, ``positions``, ``keys``: per position the N keys in seat order
``share``     ``step``, ``positions``, ``keys``: per position the author's own key
``seed``      ``seed``: 32 bytes
============  =====================================================================

:func:`decode` checks the shape (exact field set, types, sizes, table and deal, position
ranges in strictly increasing order, a proof's shape) and raises :class:`~p2pcards.mental.errors.DeckFault`
of kind ``malformed`` naming the author, or
:class:`~p2pcards.mental.errors.MalformedMessage` when not even the author is readable.
Group elements and keys are checked by whoever uses them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from p2pcards.mental.errors import DeckFault, FaultKind, MalformedMessage
from p2pcards.mental.proofs import LockProof, ShuffleProof
from p2pcards.mental.setup import DealSetup

__all__ = [
    "Commit",
    "Kind",
    "Lock",
    "Message",
    "KeyReveal",
    "Sealed",
    "SeedReveal",
    "Share",
    "Shuffle",
    "Wire",
    "decode",
    "encode",
    "kind_of",
]

Wire = dict[str, object]
"""A message in its wire form: plain data ready for msgpack."""

_MAX_STEP: Final = 1 << 32
_MAX_SEALED: Final = 1 << 20
_HPKE_OVERHEAD: Final = 32 + 16
_HASH_SIZE: Final = 32


class Kind(StrEnum):
    """Message kinds, in the order they appear in a deal."""

    COMMIT = "commit"
    SHUFFLE = "shuffle"
    LOCK = "lock"
    KEYS = "keys"
    TRANSFER = "transfer"
    REVEAL = "reveal"
    SHARE = "share"
    SEED = "seed"


@dataclass(frozen=True, kw_only=True)
class Commit:
    """A seat's commitment to its seed."""

    seat: int
    commitment: bytes


@dataclass(frozen=True, kw_only=True)
class Shuffle:
    """A seat's shuffle-round output: the deck times its scalar, permuted (and its proof;
    None in a deal set up without proofs)."""

    seat: int
    deck: tuple[bytes, ...]
    proof: ShuffleProof | None = None


@dataclass(frozen=True, kw_only=True)
class Lock:
    """A seat's lock-round output and its commitments to its position keys."""

    seat: int
    deck: tuple[bytes, ...]
    key_commitments: tuple[bytes, ...]
    proof: LockProof | None = None


@dataclass(frozen=True, kw_only=True)
class Sealed:
    """Keys sealed to one seat: ``kind`` is ``keys`` (a deal) or ``transfer``."""

    kind: Kind
    seat: int
    step: int
    to: int
    positions: tuple[int, ...]
    sealed: bytes


@dataclass(frozen=True, kw_only=True)
class KeyReveal:
    """A holder opening positions to all: every seat's key for each position."""

    seat: int
    step: int
    positions: tuple[int, ...]
    keys: tuple[tuple[bytes, ...], ...]


@dataclass(frozen=True, kw_only=True)
class Share:
    """A seat's own keys for stock positions being revealed."""

    seat: int
    step: int
    positions: tuple[int, ...]
    keys: tuple[bytes, ...]


@dataclass(frozen=True, kw_only=True)
class SeedReveal:
    """A seat's seed, revealed for the audit."""

    seat: int
    seed: bytes


Message = Commit | Shuffle | Lock | Sealed | KeyReveal | Share | SeedReveal
"""Any decoded deck-protocol message."""


def kind_of(message: Message) -> Kind:
    """The wire kind of a typed message."""
    if isinstance(message, Sealed):
        return message.kind
    return _KINDS[type(message)]


_KINDS: Final[dict[type, Kind]] = {
    Commit: Kind.COMMIT,
    Shuffle: Kind.SHUFFLE,
    Lock: Kind.LOCK,
    KeyReveal: Kind.REVEAL,
    Share: Kind.SHARE,
    SeedReveal: Kind.SEED,
}


def encode(setup: DealSetup, message: Message) -> Wire:
    """The plain-data wire form of ``message`` for the deal ``setup``."""
    wire: Wire = {
        "kind": str(kind_of(message)),
        "table": setup.table_id,
        "deal": setup.deal_number,
        "seat": message.seat,
    }
    match message:
        case Commit():
            wire["commitment"] = message.commitment
        case Shuffle():
            wire["deck"] = list(message.deck)
            if message.proof is not None:
                wire["proof"] = message.proof.to_wire()
        case Lock():
            wire["deck"] = list(message.deck)
            wire["key_commitments"] = list(message.key_commitments)
            if message.proof is not None:
                wire["proof"] = message.proof.to_wire()
        case Sealed():
            wire |= {
                "step": message.step,
                "to": message.to,
                "positions": list(message.positions),
                "sealed": message.sealed,
            }
        case KeyReveal():
            wire |= {
                "step": message.step,
                "positions": list(message.positions),
                "keys": [list(keys) for keys in message.keys],
            }
        case Share():
            wire |= {
                "step": message.step,
                "positions": list(message.positions),
                "keys": list(message.keys),
            }
        case SeedReveal():
            wire["seed"] = message.seed
    return wire


_FIELDS: Final[dict[Kind, frozenset[str]]] = {
    Kind.COMMIT: frozenset({"commitment"}),
    Kind.SHUFFLE: frozenset({"deck"}),
    Kind.LOCK: frozenset({"deck", "key_commitments"}),
    Kind.KEYS: frozenset({"step", "to", "positions", "sealed"}),
    Kind.TRANSFER: frozenset({"step", "to", "positions", "sealed"}),
    Kind.REVEAL: frozenset({"step", "positions", "keys"}),
    Kind.SHARE: frozenset({"step", "positions", "keys"}),
    Kind.SEED: frozenset({"seed"}),
}
_HEADER: Final = frozenset({"kind", "table", "deal", "seat"})
_PROVED: Final = frozenset({"proof"})
_PROVED_KINDS: Final = frozenset({Kind.SHUFFLE, Kind.LOCK})
_KIND_NAMES: Final = frozenset(str(kind) for kind in Kind)


class _Reader:
    """Field access for one wire message that blames its author on any defect."""

    setup: DealSetup
    wire: Mapping[str, object]
    seat: int

    def __init__(self, setup: DealSetup, wire: Mapping[str, object], seat: int) -> None:
        self.setup = setup
        self.wire = wire
        self.seat = seat

    def fail(self, reason: str) -> DeckFault:
        """A ``malformed`` fault naming the author."""
        return DeckFault(self.seat, FaultKind.MALFORMED, reason)

    def blob(self, name: str, size: int) -> bytes:
        """Field ``name``: exactly ``size`` bytes."""
        value = self.wire[name]
        if type(value) is not bytes or len(value) != size:
            raise self.fail(f"{name} is not {size} bytes")
        return value

    def blobs(self, value: object, name: str, count: int, size: int) -> tuple[bytes, ...]:
        """``value``: a list of ``count`` byte strings of ``size`` bytes."""
        if type(value) is not list or len(value) != count:
            raise self.fail(f"{name} is not a list of {count}")
        for item in value:
            if type(item) is not bytes or len(item) != size:
                raise self.fail(f"an item of {name} is not {size} bytes")
        return tuple(value)

    def integer(self, name: str, limit: int) -> int:
        """Field ``name``: an integer in ``0 .. limit-1`` (not a boolean)."""
        value = self.wire[name]
        if type(value) is not int or not 0 <= value < limit:
            raise self.fail(f"{name} is not an integer below {limit}")
        return value

    def positions(self) -> tuple[int, ...]:
        """Field ``positions``: non-empty, strictly increasing positions of the deck."""
        value = self.wire["positions"]
        if type(value) is not list or not value:
            raise self.fail("positions is not a non-empty list")
        previous = -1
        for item in value:
            if type(item) is not int or not previous < item < self.setup.deck_size:
                raise self.fail("positions are not increasing positions of the deck")
            previous = item
        return tuple(value)

    def recipient(self) -> int:
        """Field ``to``: a seat other than the author."""
        to = self.integer("to", self.setup.n_seats)
        if to == self.seat:
            raise self.fail("a seat cannot send sealed keys to itself")
        return to


def decode(setup: DealSetup, wire: object) -> Message:
    """Check the shape of a wire message and return its typed form (see module docstring)."""
    if not isinstance(wire, Mapping) or not all(type(key) is str for key in wire):
        raise MalformedMessage("a message is a map with string keys")
    seat = wire.get("seat")
    if type(seat) is not int or not 0 <= seat < setup.n_seats:
        raise MalformedMessage("the message does not name a seat of this deal")
    read = _Reader(setup, wire, seat)
    name = wire.get("kind")
    if type(name) is not str or name not in _KIND_NAMES:
        raise read.fail("unknown message kind")
    kind = Kind(name)
    expected = _HEADER | _FIELDS[kind] | (_PROVED if kind in _PROVED_KINDS and setup.proofs else frozenset())
    if set(wire) != expected:
        raise read.fail(f"a {kind} message has exactly the fields {sorted(expected)}")
    if type(wire["table"]) is not bytes or wire["table"] != setup.table_id:
        raise read.fail("message for another table")
    if type(wire["deal"]) is not int or wire["deal"] != setup.deal_number:
        raise read.fail("message for another deal")
    return _BODIES[kind](setup, wire, seat, read, kind)


def _commit(setup: DealSetup, wire: Mapping[str, object], seat: int, read: _Reader, kind: Kind) -> Message:
    return Commit(seat=seat, commitment=read.blob("commitment", _HASH_SIZE))


def _shuffle(setup: DealSetup, wire: Mapping[str, object], seat: int, read: _Reader, kind: Kind) -> Message:
    proof = None
    if setup.proofs:
        proof = ShuffleProof.from_wire(wire["proof"], setup.group, setup.deck_size)
        if proof is None:
            raise read.fail("proof is not a shuffle proof of this deck's size")
    return Shuffle(seat=seat, deck=read.blobs(wire["deck"], "deck", setup.deck_size, setup.group.element_size),
                   proof=proof)


def _lock(setup: DealSetup, wire: Mapping[str, object], seat: int, read: _Reader, kind: Kind) -> Message:
    size = setup.deck_size
    proof = None
    if setup.proofs:
        proof = LockProof.from_wire(wire["proof"], setup.group, size)
        if proof is None:
            raise read.fail("proof is not a lock proof of this deck's size")
    return Lock(seat=seat, deck=read.blobs(wire["deck"], "deck", size, setup.group.element_size),
                key_commitments=read.blobs(wire["key_commitments"], "key_commitments", size, _HASH_SIZE),
                proof=proof)


def _sealed(setup: DealSetup, wire: Mapping[str, object], seat: int, read: _Reader, kind: Kind) -> Message:
    sealed = wire["sealed"]
    if type(sealed) is not bytes or not _HPKE_OVERHEAD < len(sealed) <= _MAX_SEALED:
        raise read.fail("sealed is not an HPKE payload")
    return Sealed(kind=kind, seat=seat, step=read.integer("step", _MAX_STEP), to=read.recipient(),
                  positions=read.positions(), sealed=sealed)


def _reveal(setup: DealSetup, wire: Mapping[str, object], seat: int, read: _Reader, kind: Kind) -> Message:
    positions = read.positions()
    keys = wire["keys"]
    if type(keys) is not list or len(keys) != len(positions):
        raise read.fail("keys is not one list per position")
    scalar = setup.group.scalar_size
    return KeyReveal(seat=seat, step=read.integer("step", _MAX_STEP), positions=positions,
                     keys=tuple(read.blobs(item, "keys", setup.n_seats, scalar) for item in keys))


def _share(setup: DealSetup, wire: Mapping[str, object], seat: int, read: _Reader, kind: Kind) -> Message:
    positions = read.positions()
    return Share(seat=seat, step=read.integer("step", _MAX_STEP), positions=positions,
                 keys=read.blobs(wire["keys"], "keys", len(positions), setup.group.scalar_size))


def _seed(setup: DealSetup, wire: Mapping[str, object], seat: int, read: _Reader, kind: Kind) -> Message:
    return SeedReveal(seat=seat, seed=read.blob("seed", 32))


#: The body of each kind of message, read and checked.
_BODIES: Final[dict[Kind, Callable[[DealSetup, Mapping[str, object], int, _Reader, Kind], Message]]] = {
    Kind.COMMIT: _commit,
    Kind.SHUFFLE: _shuffle,
    Kind.LOCK: _lock,
    Kind.KEYS: _sealed,
    Kind.TRANSFER: _sealed,
    Kind.REVEAL: _reveal,
    Kind.SHARE: _share,
    Kind.SEED: _seed,
}
