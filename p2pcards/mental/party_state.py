"""One seat's state in a deal of the mental deck, which the parts of
:class:`~p2pcards.mental.party.Party` share: where the deal stands (:class:`Phase`), what it
waits for (:class:`Awaited`), what a party derived and checked for its own audit
(:class:`LiveRecord`), the operations declared, and :class:`PartyState`, the state itself
with the few helpers every part uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.mental.errors import DeckFault, LocalError, RemoteError
from p2pcards.mental.kdf import SeatSecrets, SeedKdf
from p2pcards.mental.messages import Kind, Lock, Message, Shuffle, Wire, encode
from p2pcards.mental.setup import DealSetup

__all__ = ["Awaited", "Emission", "LiveRecord", "Operation", "PartyState", "Phase"]


class Phase(StrEnum):
    """Where the deal stands, as seen by one party."""

    COMMIT = "commit"
    SHUFFLE = "shuffle"
    LOCK = "lock"
    READY = "ready"


@dataclass(frozen=True, kw_only=True)
class Awaited:
    """A message the deal is waiting for (for timeouts and progress display).

    ``step`` is ``None`` for the commitment, shuffle and lock rounds.
    """

    seat: int
    kind: Kind
    step: int | None = None
    to: int | None = None
    positions: tuple[int, ...] = ()


@dataclass(frozen=True, kw_only=True)
class LiveRecord:
    """What a party derived and checked while it played its deal (:meth:`Party.live_record`).

    Its own audit (:func:`p2pcards.mental.deck_audit` with ``live=``) takes these instead of
    doing the work again: ``secrets`` (derived from ``seed``), ``deal_id`` and
    ``encodings`` (the card encodings of that deal id), ``messages``: every wire message
    this party sent, or received and checked on receipt, each with its decoded form, and
    its openings of the final deck.  The audit uses a message entry only for the very wire
    object it holds (identity, not equality), and the derivations only when the seed and
    the deal id it computes itself are the same.
    """

    seat: int
    seed: bytes
    secrets: SeatSecrets
    deal_id: bytes | None
    encodings: tuple[bytes, ...]
    messages: tuple[tuple[object, Message], ...]
    #: the deck after the lock round (empty before), which the positions were opened in
    locked: tuple[bytes, ...] = ()
    #: by position opened: the keys (in seat order) whose product times ``locked[p]`` gave
    #: the encoding of the card, and the card
    opened: Mapping[int, tuple[tuple[bytes, ...], str]] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class Emission:
    """A message this seat owes for an operation."""

    kind: Kind
    positions: tuple[int, ...]
    to: int | None = None


@dataclass(kw_only=True)
class Operation:
    """One declared operation: what it still awaits and what this seat still owes."""

    step: int
    awaiting: dict[tuple[int, Kind], Awaited] = field(default_factory=dict)
    owed: list[Emission] = field(default_factory=list)
    shares: dict[int, dict[int, bytes]] = field(default_factory=dict)


class PartyState:
    """One seat's state for one deal (set up by :meth:`_init_state`), under the parts of
    :class:`~p2pcards.mental.party.Party`: :class:`~p2pcards.mental.party_rounds.PartyRounds`
    and :class:`~p2pcards.mental.party_keys.PartyKeys`."""

    seat: int | None
    _seed: bytes | None
    _kdf: SeedKdf | None
    _secrets: SeatSecrets | None
    _signing_key: Ed25519PrivateKey | None
    _sealing_key: X25519PrivateKey | None

    def _init_state(self, setup: DealSetup, seat: int | None) -> None:
        self.setup = setup
        self.seat = seat
        self._group = setup.group
        self._seed = None
        self._kdf = None
        self._secrets = None
        self._signing_key = None
        self._sealing_key = None
        self._others = tuple(s for s in range(setup.n_seats) if s != seat)

        self._phase = Phase.COMMIT
        self._started = False
        self._seed_revealed = False
        self._failure: RemoteError | None = None
        #: the first fault seen by this seat alone (see :attr:`private_fault`)
        self._private: RemoteError | None = None
        self._commitments: dict[int, bytes] = {}
        self._seeds: dict[int, bytes] = {}
        self._deal_id: bytes | None = None
        self._cards_by_element: dict[bytes, str] = {}
        self._turn = 0
        self._deck: tuple[bytes, ...] = ()
        self._deck_author: int | None = None
        self._key_commitments: dict[int, tuple[bytes, ...]] = {}
        #: shuffles and locks whose proofs are not checked yet, each with the deck it took
        self._unchecked: list[tuple[Shuffle | Lock, tuple[bytes, ...]]] = []
        #: the first of them whose proof failed
        self._proof_fault: DeckFault | None = None

        size = setup.deck_size
        self._holder: list[int | None] = [None] * size
        self._public = [False] * size
        self._keys: dict[int, dict[int, bytes]] = {}
        self._known: dict[int, str] = {}
        self._positions_of_card: dict[str, int] = {}
        self._operations: list[Operation] = []
        self._encodings: tuple[bytes, ...] = ()
        self._opened: dict[int, tuple[tuple[bytes, ...], str]] = {}
        #: every message sent, or received and checked, with its decoded form (LiveRecord)
        self._record: list[tuple[object, Message]] = []

    def _mine(self) -> SeatSecrets:
        """This seat's secrets (an observer has none)."""
        if self._secrets is None:
            raise LocalError("an observer holds no secret and sends nothing")
        return self._secrets

    def _wire(self, message: Message) -> Wire:
        """The wire form of one of our messages."""
        wire = encode(self.setup, message)
        self._record.append((wire, message))
        return wire

    def _own_seat(self) -> int:
        """This party's seat; an observer has none and sends nothing."""
        if self.seat is None:
            raise LocalError("an observer holds no seat and sends nothing")
        return self.seat

    def _check_alive(self) -> None:
        """Refuse every call once a remote error killed the party."""
        if self._failure is not None:
            raise LocalError(f"the party failed earlier: {self._failure}")

    def _check_seat(self, seat: int) -> None:
        """Refuse an argument that is not a seat of this deal."""
        if type(seat) is not int or not 0 <= seat < self.setup.n_seats:
            raise LocalError(f"{seat!r} is not a seat of this deal")
