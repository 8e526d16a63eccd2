"""One seat's side of the mental deck: a sans-IO state machine (in the manner of h11).

Drive it like this (every seat does the same, in the same order)::

    party = Party(setup, seat, seed, signing_key, sealing_key)
    send(party.start())                    # the commitment
    for msg in incoming:                   # in transcript order, never our own
        send(party.receive(msg))           # shuffle and lock rounds answer by themselves
    # once party.phase is Phase.READY, the game's operations, identically on every seat:
    send(party.deal([0, 1, 2], to_seat=1))
    send(party.reveal([39]))
    send(party.transfer([4, 9], from_seat=1, to_seat=2))
    ...
    send(party.reveal_seed())              # at the end, for the audit

Every method returns the list of wire messages (plain dicts, see
:mod:`p2pcards.mental.messages`) this seat must broadcast now; sealed ones travel to
every seat too, only their recipient can open them.  Feed every other seat's message to
:meth:`Party.receive` in the order of the table's transcript (the hash chain gives all
peers the same order); the party trusts the table layer for the author's identity (the
``seat`` field) and checks everything else.

**Rounds.**  Commitments (any order, before anyone shuffles; the deal id is the hash of
all of them and fixes the card encodings), then the shuffle round (seat 0, 1, …), then the
lock round (same order).  Then the operations, each numbered by a *step* counted by every
seat alike:

* :meth:`Party.deal` -- stock positions go to a seat: every other seat seals its keys for
  them to it.  Public positions and positions already held by that seat are no-ops.
* :meth:`Party.reveal` -- held positions are opened by their holder publishing every
  seat's key (``reveal``); stock positions by every seat publishing its own key
  (``share``).  Already public positions are no-ops.
* :meth:`Party.transfer` -- held positions pass to another seat: the old holder seals the
  keys the new holder lacks.  The old holder still knows the cards; nobody else learns
  them.  Draws from the stock are plain deals.

A holder that has not yet received its keys when it must reveal or transfer sends its
message as soon as they arrive (from :meth:`Party.receive`).

**Checks on receipt** (each failure raises a :class:`~p2pcards.mental.errors.DeckFault`
naming the author, except where noted): shape, table and deal; phase, turn and step
(out-of-turn); every group element canonical, not the identity and distinct within its
deck; sealed keys open, carry the sender's valid signature and match the key commitments
the sender published in its lock (else ``bad-key`` with the signed plaintext as evidence);
revealed and shared keys match their seats' key commitments; a seed matches its
commitment.  If every key matches and a position still does not open to a card (or a card
shows up twice) some lock was wrong: :class:`~p2pcards.mental.errors.UnattributedFault`;
the audit names the seat.  After any remote error the party is dead.

**Knowledge.**  :meth:`Party.known` gives the card at every position this seat has
opened (its hand, cards it passed on, public cards) and nothing else;
:meth:`Party.hand` the ones it holds now.  :meth:`Party.awaiting` lists the messages the
deal waits for (for timeouts), :attr:`Party.failure` the error that stopped the party.

**Determinism.**  Everything a party sends is a function of its seed, its keys and what it
received (HPKE ephemeral keys too).  A peer that crashed rebuilds its party from the seed
it logged, feeds it the transcript again and re-declares the operations: it sends exactly
the same messages again, so the others can drop them as duplicates.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.mental.errors import (
    DeckFault,
    FaultKind,
    GroupError,
    LocalError,
    RemoteError,
    UnattributedFault,
)
from p2pcards.mental.kdf import (
    SeatSecrets,
    SeedKdf,
    card_encodings,
    commitment,
    deal_id,
    hpke_info,
    key_commitment,
)
from p2pcards.mental.messages import (
    Commit,
    KeyReveal,
    Kind,
    Lock,
    Message,
    Sealed,
    SeedReveal,
    Share,
    Shuffle,
    Wire,
    decode,
    encode,
)
from p2pcards.mental.proofs import (
    LockProof,
    ShuffleProof,
    proof_context,
    prove_lock,
    prove_shuffle,
    verify_lock,
    verify_shuffle,
)
from p2pcards.mental.seal import (
    KeyEntry,
    SealedPayload,
    hpke_open,
    hpke_seal,
    sign_payload,
    verify_plaintext,
)
from p2pcards.mental.setup import DealSetup

__all__ = ["Awaited", "LiveRecord", "Party", "Phase", "expected_entries"]


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
class _Emission:
    """A message this seat owes for an operation."""

    kind: Kind
    positions: tuple[int, ...]
    to: int | None = None


@dataclass(kw_only=True)
class _Operation:
    """One declared operation: what it still awaits and what this seat still owes."""

    step: int
    awaiting: dict[tuple[int, Kind], Awaited] = field(default_factory=dict)
    owed: list[_Emission] = field(default_factory=list)
    shares: dict[int, dict[int, bytes]] = field(default_factory=dict)


class Party:
    """One seat's state machine for one deal (see the module docstring)."""

    seat: int | None
    _seed: bytes | None
    _kdf: SeedKdf | None
    _secrets: SeatSecrets | None
    _signing_key: Ed25519PrivateKey | None
    _sealing_key: X25519PrivateKey | None

    def __init__(
        self,
        setup: DealSetup,
        seat: int,
        seed: bytes,
        signing_key: Ed25519PrivateKey,
        sealing_key: X25519PrivateKey,
    ) -> None:
        """Derive this seat's secrets from ``seed``; check the keys are the seat's own."""
        if type(seat) is not int or not 0 <= seat < setup.n_seats:
            raise LocalError(f"seat {seat!r} is not a seat of this deal")
        if signing_key.public_key().public_bytes_raw() != setup.signing_keys[seat]:
            raise LocalError("the signing key is not this seat's")
        if sealing_key.public_key().public_bytes_raw() != setup.sealing_keys[seat]:
            raise LocalError("the sealing key is not this seat's")
        self._init_state(setup, seat)
        self._seed = seed
        self._kdf = SeedKdf(setup.group, setup.table_id, setup.deal_number, seat, seed)
        self._secrets = self._kdf.secrets(setup.deck_size)
        self._signing_key = signing_key
        self._sealing_key = sealing_key

    @classmethod
    def observer(cls, setup: DealSetup) -> Party:
        """A party with no seat: it follows the deal as a seat would -- every public check
        (shapes, turns, elements, revealed and shared keys against their commitments, seeds)
        and every public opening (reveals, stock shares) -- but holds no secret, opens no
        sealed payload and never sends anything.  :meth:`known` is then exactly the public
        cards.  A table follows a deal with it when it has no seat (the offline audit, or a
        seat voted out that stays to watch)."""
        self = cls.__new__(cls)
        self._init_state(setup, None)
        self._started = True  # it commits nothing: the rounds start with the others' commitments
        return self

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

        size = setup.deck_size
        self._holder: list[int | None] = [None] * size
        self._public = [False] * size
        self._keys: dict[int, dict[int, bytes]] = {}
        self._known: dict[int, str] = {}
        self._positions_of_card: dict[str, int] = {}
        self._operations: list[_Operation] = []
        self._encodings: tuple[bytes, ...] = ()
        self._opened: dict[int, tuple[tuple[bytes, ...], str]] = {}
        #: every message sent, or received and checked, with its decoded form (LiveRecord)
        self._record: list[tuple[object, Message]] = []

    def _mine(self) -> SeatSecrets:
        """This seat's secrets (an observer has none)."""
        if self._secrets is None:
            raise LocalError("an observer holds no secret and sends nothing")
        return self._secrets

    @classmethod
    def with_random_seed(
        cls,
        setup: DealSetup,
        seat: int,
        signing_key: Ed25519PrivateKey,
        sealing_key: X25519PrivateKey,
    ) -> Party:
        """A party with a fresh seed from the operating system."""
        return cls(setup, seat, os.urandom(32), signing_key, sealing_key)

    # ----------------------------------------------------------------- queries

    @property
    def phase(self) -> Phase:
        """The current round (``READY`` once the lock round is complete)."""
        return self._phase

    @property
    def deal_id(self) -> bytes | None:
        """The deal id, once every seat has committed."""
        return self._deal_id

    @property
    def failure(self) -> RemoteError | None:
        """The remote error that killed this party, if one did."""
        return self._failure

    @property
    def seed(self) -> bytes:
        """This seat's seed (keep it secret until :meth:`reveal_seed`)."""
        if self._seed is None:
            raise LocalError("an observer has no seed")
        return self._seed

    @property
    def is_observer(self) -> bool:
        """True for a party with no seat (:meth:`observer`)."""
        return self.seat is None

    @property
    def private_fault(self) -> RemoteError | None:
        """The first fault that this seat alone could see, if any: keys sealed to it that
        do not open, are not signed, do not match their message or are not the committed
        ones (a :class:`DeckFault` naming the sender, with ``evidence`` for a wrong key), or
        a position of its own that does not open to a card or opens to a card it has seen
        elsewhere (an :class:`UnattributedFault`).  The party carried on: the keys of that
        message count as missing.  Nobody else can check the claim until the seeds are out
        (or, for a wrong key, with the evidence), so the table raises a dispute."""
        return self._private

    def blocked(self) -> bool:
        """Whether this seat owes a message it cannot build: it lacks keys it would need,
        and they will not come (they were in a message with a private fault)."""
        return self._private is not None and any(op.owed for op in self._operations)

    def known(self) -> dict[int, str]:
        """Card by position for every position this seat has opened."""
        return dict(self._known)

    def hand(self) -> dict[int, str]:
        """Card by position for the positions this seat holds and has opened."""
        if self.seat is None:
            return {}
        return {p: c for p, c in self._known.items() if self._holder[p] == self.seat}

    def holder(self, position: int) -> int | None:
        """The seat a position was last dealt or transferred to (``None``: the stock)."""
        return self._holder[position]

    def is_public(self, position: int) -> bool:
        """Whether a reveal of ``position`` has been declared."""
        return self._public[position]

    def commitments(self) -> dict[int, bytes]:
        """Seed commitments received so far, by seat."""
        return dict(self._commitments)

    def revealed_seeds(self) -> dict[int, bytes]:
        """Seeds revealed so far (checked against their commitments), by seat."""
        return dict(self._seeds)

    def live_record(self) -> LiveRecord:
        """What this party derived and checked so far, for its own audit (:class:`LiveRecord`).

        Refused once a remote error stopped the party, or after a private fault: the checks
        did not all pass.  An observer has none.
        """
        self._check_alive()
        if self._private is not None:
            raise LocalError(f"a fault was seen earlier: {self._private}")
        secrets = self._mine()
        assert self.seat is not None and self._seed is not None
        return LiveRecord(
            seat=self.seat,
            seed=self._seed,
            secrets=secrets,
            deal_id=self._deal_id,
            encodings=self._encodings,
            messages=tuple(self._record),
            locked=self._deck if self._phase is Phase.READY else (),
            opened=dict(self._opened),
        )

    def awaiting(self) -> tuple[Awaited, ...]:
        """Every message from another seat that the deal is still waiting for."""
        if self._phase is Phase.COMMIT:
            return tuple(
                Awaited(seat=s, kind=Kind.COMMIT)
                for s in self._others
                if s not in self._commitments
            )
        if self._phase in (Phase.SHUFFLE, Phase.LOCK) and self._turn != self.seat:
            kind = Kind.SHUFFLE if self._phase is Phase.SHUFFLE else Kind.LOCK
            return (Awaited(seat=self._turn, kind=kind),)
        return tuple(awaited for op in self._operations for awaited in op.awaiting.values())

    # --------------------------------------------------------------- phases

    def start(self) -> list[Wire]:
        """Commit to the seed; returns the ``commit`` message (and the shuffle if due)."""
        self._check_alive()
        if self._started:
            raise LocalError("start() was already called")
        seat, seed = self._own_seat(), self.seed
        self._started = True
        own = commitment(self.setup.table_id, self.setup.deal_number, seat, self._group.name, seed)
        self._commitments[seat] = own
        out = [self._wire(Commit(seat=seat, commitment=own))]
        return out + self._guarded(self._advance)

    def receive(self, wire: object) -> list[Wire]:
        """Check and apply another seat's message; return what this seat must send now."""
        self._check_alive()
        try:
            message = decode(self.setup, wire)
        except RemoteError as exc:
            self._failure = exc
            raise
        if message.seat == self.seat:
            raise LocalError("receive() got a message authored by this seat")
        out = self._guarded(lambda: self._apply(message))
        self._record.append((wire, message))
        return out

    def deal(self, positions: Iterable[int], to_seat: int) -> list[Wire]:
        """Deal stock ``positions`` to ``to_seat``; returns this seat's sealed keys, if any."""
        chosen = self._operation_positions(positions)
        self._check_seat(to_seat)
        stock: list[int] = []
        for p in chosen:
            holder = self._holder[p]
            if self._public[p] or holder == to_seat:
                continue
            if holder is not None:
                raise LocalError(f"position {p} is held by seat {holder}: use transfer()")
            stock.append(p)
        for p in chosen:
            self._holder[p] = to_seat
        op = self._new_operation()
        if stock:
            spots = tuple(stock)
            for s in self._others:
                if s != to_seat:
                    op.awaiting[(s, Kind.KEYS)] = Awaited(
                        seat=s, kind=Kind.KEYS, step=op.step, to=to_seat, positions=spots
                    )
            if self.seat is not None and self.seat != to_seat:
                op.owed.append(_Emission(kind=Kind.KEYS, positions=spots, to=to_seat))
        return self._guarded(self._pump)

    def reveal(self, positions: Iterable[int]) -> list[Wire]:
        """Open ``positions`` to every seat (holder's ``reveal``, or everyone's ``share``)."""
        chosen = self._operation_positions(positions)
        by_holder: dict[int, list[int]] = {}
        stock: list[int] = []
        for p in chosen:
            if self._public[p]:
                continue
            holder = self._holder[p]
            if holder is None:
                stock.append(p)
            else:
                by_holder.setdefault(holder, []).append(p)
            self._public[p] = True
        op = self._new_operation()
        for holder, held in sorted(by_holder.items()):
            spots = tuple(held)
            if holder == self.seat:
                op.owed.append(_Emission(kind=Kind.REVEAL, positions=spots))
            else:
                op.awaiting[(holder, Kind.REVEAL)] = Awaited(
                    seat=holder, kind=Kind.REVEAL, step=op.step, positions=spots
                )
        if stock:
            spots = tuple(stock)
            if self.seat is not None:
                op.owed.append(_Emission(kind=Kind.SHARE, positions=spots))
            for s in self._others:
                op.awaiting[(s, Kind.SHARE)] = Awaited(
                    seat=s, kind=Kind.SHARE, step=op.step, positions=spots
                )
        return self._guarded(self._pump)

    def transfer(self, positions: Iterable[int], from_seat: int, to_seat: int) -> list[Wire]:
        """Pass ``positions`` held by ``from_seat`` to ``to_seat`` (the old holder seals keys)."""
        chosen = self._operation_positions(positions)
        self._check_seat(from_seat)
        self._check_seat(to_seat)
        if from_seat == to_seat:
            raise LocalError("a transfer goes to another seat")
        for p in chosen:
            if self._holder[p] != from_seat:
                raise LocalError(f"position {p} is not held by seat {from_seat}")
        hidden = tuple(p for p in chosen if not self._public[p])
        for p in chosen:
            self._holder[p] = to_seat
        op = self._new_operation()
        if hidden:
            if self.seat == from_seat:
                op.owed.append(_Emission(kind=Kind.TRANSFER, positions=hidden, to=to_seat))
            else:
                op.awaiting[(from_seat, Kind.TRANSFER)] = Awaited(
                    seat=from_seat, kind=Kind.TRANSFER, step=op.step, to=to_seat, positions=hidden
                )
        return self._guarded(self._pump)

    def reveal_seed(self) -> list[Wire]:
        """Reveal the seed for the audit; no operation may be declared afterwards."""
        self._check_alive()
        seat, seed = self._own_seat(), self.seed
        if not self._started:
            raise LocalError("start() first")
        if self._seed_revealed:
            raise LocalError("the seed was already revealed")
        self._seed_revealed = True
        self._seeds[seat] = seed
        return [self._wire(SeedReveal(seat=seat, seed=seed))]

    # ----------------------------------------------------------- internals

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

    def _operation_positions(self, positions: Iterable[int]) -> tuple[int, ...]:
        """Validate the call and its positions (distinct, in range); return them sorted."""
        self._check_alive()
        if self._phase is not Phase.READY:
            raise LocalError("operations start once the lock round is complete")
        if self._seed_revealed:
            raise LocalError("the seed was revealed: the deal is over")
        chosen = list(positions)
        for p in chosen:
            if type(p) is not int or not 0 <= p < self.setup.deck_size:
                raise LocalError(f"{p!r} is not a position of the deck")
        if len(set(chosen)) != len(chosen):
            raise LocalError("a position is named twice")
        return tuple(sorted(chosen))

    def _new_operation(self) -> _Operation:
        """Declare the next step."""
        op = _Operation(step=len(self._operations))
        self._operations.append(op)
        return op

    def _guarded(self, action: Callable[[], list[Wire]]) -> list[Wire]:
        """Run a state transition; a remote error kills the party before propagating."""
        try:
            return action()
        except RemoteError as exc:
            if exc.private:
                if self._private is None:
                    self._private = exc
            else:
                self._failure = exc
            raise

    # rounds

    def _advance(self) -> list[Wire]:
        """Move through commit, shuffle and lock rounds as far as messages allow."""
        out: list[Wire] = []
        if self._phase is Phase.COMMIT:
            if not self._started or len(self._commitments) < self.setup.n_seats:
                return out
            self._begin_shuffle()
        seat = self.seat
        while seat is not None and self._phase in (Phase.SHUFFLE, Phase.LOCK) and self._turn == seat:
            if self._phase is Phase.SHUFFLE:
                deck = self._shuffled()
                out.append(self._wire(Shuffle(seat=seat, deck=deck, proof=self._shuffle_proof(deck))))
                self._next_turn(deck, seat)
            else:
                deck, commitments = self._locked()
                out.append(self._wire(Lock(seat=seat, deck=deck, key_commitments=commitments,
                                           proof=self._lock_proof(deck))))
                self._key_commitments[seat] = commitments
                self._next_turn(deck, seat)
        return out

    def _nonce(self, kind: str) -> Callable[[str, int], bytes]:
        """The prover's random values of this seat's ``kind`` step, from its seed."""
        assert self._kdf is not None
        return self._kdf.proof_nonce(kind)

    def _context(self, seat: int, kind: str) -> bytes:
        assert self._deal_id is not None
        return proof_context(self._deal_id, seat, kind)

    def _shuffle_proof(self, deck: tuple[bytes, ...]) -> ShuffleProof | None:
        """The proof of this seat's shuffle of the current deck into ``deck``."""
        if not self.setup.proofs:
            return None
        secrets = self._mine()
        return prove_shuffle(self._group, self._context(self._own_seat(), "shuffle"), self._deck, deck,
                             secrets.permutation, secrets.shuffle_scalar, self._nonce("shuffle"))

    def _lock_proof(self, deck: tuple[bytes, ...]) -> LockProof | None:
        """The proof of this seat's lock of the current deck into ``deck``."""
        if not self.setup.proofs:
            return None
        secrets = self._mine()
        group = self._group
        exponents = [group.scalar_mul(secrets.shuffle_scalar, key) for key in secrets.keys]
        return prove_lock(group, self._context(self._own_seat(), "lock"), self._deck, deck, exponents,
                          self._nonce("lock"))

    def _begin_shuffle(self) -> None:
        """All commitments are in: fix the deal id and the card encodings."""
        setup = self.setup
        self._deal_id = deal_id(
            setup.table_id,
            setup.deal_number,
            self._group.name,
            setup.deck,
            [self._commitments[s] for s in range(setup.n_seats)],
        )
        try:
            encodings = card_encodings(self._group, self._deal_id, setup.deck)
        except GroupError as exc:
            raise UnattributedFault(f"card encodings unusable: {exc}") from exc
        self._cards_by_element = dict(zip(encodings, setup.deck, strict=True))
        self._encodings = encodings
        self._deck = encodings
        self._phase = Phase.SHUFFLE
        self._turn = 0

    def _next_turn(self, deck: tuple[bytes, ...], author: int) -> None:
        """Record a round's output and pass the turn (to the next round after the last)."""
        self._deck = deck
        self._deck_author = author
        self._turn += 1
        if self._turn == self.setup.n_seats:
            self._turn = 0
            self._phase = Phase.LOCK if self._phase is Phase.SHUFFLE else Phase.READY

    def _multiply(self, scalars: Sequence[bytes], indexes: Iterable[int]) -> tuple[bytes, ...]:
        """``scalars[i] · deck[indexes[i]]`` over the current deck.

        :meth:`Group.mult` validates each element, so the deck this seat multiplies is not
        validated separately: an invalid element is blamed on the deck's author here.
        """
        mult = self._group.mult
        deck = self._deck
        out = []
        for scalar, index in zip(scalars, indexes, strict=True):
            try:
                out.append(mult(scalar, deck[index]))
            except GroupError as exc:
                assert self._deck_author is not None  # card encodings are valid
                raise DeckFault(
                    self._deck_author, FaultKind.BAD_ELEMENT, f"element {index}: {exc}"
                ) from exc
        return tuple(out)

    def _shuffled(self) -> tuple[bytes, ...]:
        """This seat's shuffle: ``out[i] = s · deck[π[i]]``."""
        secrets = self._mine()
        scalars = [secrets.shuffle_scalar] * len(secrets.permutation)
        return self._multiply(scalars, secrets.permutation)

    def _locked(self) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
        """This seat's lock: ``out[j] = (s · k_j)⁻¹ · deck[j]`` and its key commitments."""
        assert self._deal_id is not None
        secrets = self._mine()
        locked = self._multiply(secrets.lock_factors, range(len(secrets.lock_factors)))
        seat = self._own_seat()
        commitments = tuple(
            key_commitment(self._deal_id, seat, j, k) for j, k in enumerate(secrets.keys)
        )
        return locked, commitments

    # receiving

    def _apply(self, message: Message) -> list[Wire]:
        """Dispatch a decoded message; returns what becomes due."""
        match message:
            case Commit():
                self._on_commit(message)
            case Shuffle() | Lock():
                self._on_round(message)
            case Sealed():
                self._on_sealed(message)
            case KeyReveal():
                self._on_reveal(message)
            case Share():
                self._on_share(message)
            case SeedReveal():
                self._on_seed(message)
        return self._advance() + self._pump()

    def _on_commit(self, message: Commit) -> None:
        """A commitment: only before the shuffle round, once per seat."""
        if self._phase is not Phase.COMMIT or message.seat in self._commitments:
            raise DeckFault(message.seat, FaultKind.OUT_OF_TURN, "commitment out of phase")
        self._commitments[message.seat] = message.commitment

    def _on_round(self, message: Shuffle | Lock) -> None:
        """A shuffle or lock output: in turn, every element valid and distinct."""
        expected = Phase.SHUFFLE if isinstance(message, Shuffle) else Phase.LOCK
        if self._phase is not expected or self._turn != message.seat:
            raise DeckFault(message.seat, FaultKind.OUT_OF_TURN, f"{expected} out of turn")
        if len(set(message.deck)) != len(message.deck):
            raise DeckFault(message.seat, FaultKind.BAD_ELEMENT, "an element repeats in the deck")
        if self.setup.proofs:  # every element valid (a precise blame), then the proof
            self._check_elements(message.seat, message.deck)
            self._check_proof(message)
        if isinstance(message, Lock):
            self._key_commitments[message.seat] = message.key_commitments
        self._next_turn(message.deck, message.seat)
        if not self.setup.proofs and (self._phase not in (Phase.SHUFFLE, Phase.LOCK) or self._turn != self.seat):
            self._check_elements(message.seat, message.deck)

    def _check_proof(self, message: Shuffle | Lock) -> None:
        """A shuffle or lock's proof against the deck it took (public: every replica sees
        the same, so the author is blamed by all)."""
        if not self.setup.proofs:
            return
        if isinstance(message, Shuffle):
            assert message.proof is not None  # decode requires it when the deal has proofs
            if not verify_shuffle(self._group, self._context(message.seat, "shuffle"), self._deck, message.deck,
                                  message.proof):
                raise DeckFault(message.seat, FaultKind.BAD_SHUFFLE,
                                "the shuffle's proof does not verify: its deck is not the deck it took, permuted "
                                "and re-keyed")
        else:
            assert message.proof is not None
            if not verify_lock(self._group, self._context(message.seat, "lock"), self._deck, message.deck,
                               message.proof):
                raise DeckFault(message.seat, FaultKind.BAD_LOCK,
                                "the lock's proof does not verify: a position is not its own input re-keyed")

    def _check_elements(self, seat: int, deck: tuple[bytes, ...]) -> None:
        """Validate every element of a deck this seat will not multiply in full itself."""
        for i, element in enumerate(deck):
            try:
                self._group.validate(element)
            except GroupError as exc:
                raise DeckFault(seat, FaultKind.BAD_ELEMENT, f"element {i}: {exc}") from exc

    def _expected(self, seat: int, kind: Kind, step: int) -> tuple[_Operation, Awaited]:
        """The operation a message belongs to and what it must look like."""
        if self._phase is not Phase.READY or step >= len(self._operations):
            raise DeckFault(seat, FaultKind.OUT_OF_TURN, f"{kind} for an undeclared step {step}")
        op = self._operations[step]
        awaited = op.awaiting.pop((seat, kind), None)
        if awaited is None:
            raise DeckFault(seat, FaultKind.OUT_OF_TURN, f"unexpected {kind} in step {step}")
        return op, awaited

    def _key_matches(self, seat: int, position: int, key: bytes) -> bool:
        """Whether ``key`` is canonical and is ``seat``'s committed key for ``position``."""
        assert self._deal_id is not None
        return (
            self._group.scalar_is_valid(key)
            and key_commitment(self._deal_id, seat, position, key)
            == self._key_commitments[seat][position]
        )

    def _on_sealed(self, message: Sealed) -> None:
        """Keys sealed to a seat: the recipient opens and checks them, others only note them.

        What the recipient finds wrong inside is a *private* fault (nobody else can see
        it): the message still counts as received, its keys as missing."""
        _, awaited = self._expected(message.seat, message.kind, message.step)
        if message.positions != awaited.positions or message.to != awaited.to:
            raise DeckFault(message.seat, FaultKind.MALFORMED, "does not match the operation")
        if message.to != self.seat or self._sealing_key is None:
            return
        sender = message.seat
        info = hpke_info(
            self.setup.table_id,
            self.setup.deal_number,
            message.kind,
            message.step,
            sender,
            message.to,
        )
        plaintext = hpke_open(self._sealing_key, info, message.sealed)
        if plaintext is None:
            raise DeckFault(sender, FaultKind.BAD_SEAL, "sealed keys do not open", private=True)
        payload = verify_plaintext(plaintext, self.setup.signing_keys[sender])
        if payload is None:
            raise DeckFault(
                sender, FaultKind.BAD_SEAL, "sealed keys are not signed by the sender", private=True
            )
        if payload != self._payload_frame(message, payload.entries) or [
            (e.position, e.seat) for e in payload.entries
        ] != expected_entries(message, self.setup.n_seats):
            raise DeckFault(
                sender, FaultKind.MALFORMED, "sealed keys do not match the message", private=True
            )
        for entry in payload.entries:
            if not self._key_matches(entry.seat, entry.position, entry.key):
                raise DeckFault(
                    sender,
                    FaultKind.BAD_KEY,
                    f"key of seat {entry.seat} for position {entry.position} is not committed",
                    plaintext,
                    private=True,
                )
        for entry in payload.entries:
            self._keys.setdefault(entry.position, {})[entry.seat] = entry.key
        for p in message.positions:
            if p not in self._known:
                self._open(p, self._held_keys(p), private=True)

    def _payload_frame(self, message: Sealed, entries: tuple[KeyEntry, ...]) -> SealedPayload:
        """The payload ``message`` must carry, with the given entries."""
        assert self._deal_id is not None
        return SealedPayload(
            kind=message.kind,
            table_id=self.setup.table_id,
            deal_number=self.setup.deal_number,
            deal_id=self._deal_id,
            step=message.step,
            sender=message.seat,
            recipient=message.to,
            entries=entries,
        )

    def _on_reveal(self, message: KeyReveal) -> None:
        """A holder's reveal: every key must be its seat's committed key."""
        _, awaited = self._expected(message.seat, Kind.REVEAL, message.step)
        if message.positions != awaited.positions:
            raise DeckFault(message.seat, FaultKind.MALFORMED, "does not match the operation")
        for p, keys in zip(message.positions, message.keys, strict=True):
            for s, key in enumerate(keys):
                if not self._key_matches(s, p, key):
                    raise DeckFault(
                        message.seat,
                        FaultKind.BAD_REVEAL,
                        f"revealed key of seat {s} for position {p} is not the committed one",
                    )
        for p, keys in zip(message.positions, message.keys, strict=True):
            if p not in self._known:
                self._open(p, keys)

    def _on_share(self, message: Share) -> None:
        """A seat's own keys for stock positions being revealed."""
        op, awaited = self._expected(message.seat, Kind.SHARE, message.step)
        if message.positions != awaited.positions:
            raise DeckFault(message.seat, FaultKind.MALFORMED, "does not match the operation")
        for p, key in zip(message.positions, message.keys, strict=True):
            if not self._key_matches(message.seat, p, key):
                raise DeckFault(
                    message.seat,
                    FaultKind.BAD_REVEAL,
                    f"shared key for position {p} is not the committed one",
                )
        for p, key in zip(message.positions, message.keys, strict=True):
            op.shares.setdefault(p, {})[message.seat] = key
        self._open_shared(op, message.positions)

    def _on_seed(self, message: SeedReveal) -> None:
        """A revealed seed: once, after the seat's commitment, and matching it."""
        seat = message.seat
        if seat not in self._commitments or seat in self._seeds:
            raise DeckFault(seat, FaultKind.OUT_OF_TURN, "seed out of phase")
        expected = commitment(
            self.setup.table_id, self.setup.deal_number, seat, self._group.name, message.seed
        )
        if expected != self._commitments[seat]:
            raise DeckFault(seat, FaultKind.SEED_MISMATCH, "seed does not match the commitment")
        self._seeds[seat] = message.seed

    # opening

    def _held_keys(self, position: int) -> list[bytes] | None:
        """Every seat's key for a position, if this seat has them all."""
        received = self._keys.get(position, {})
        keys = []
        for s in range(self.setup.n_seats):
            key = self._mine().keys[position] if s == self.seat else received.get(s)
            if key is None:
                return None
            keys.append(key)
        return keys

    def _open_shared(self, op: _Operation, positions: Sequence[int]) -> None:
        """Open the stock positions whose shares from every seat are in."""
        for p in positions:
            shares = op.shares.get(p, {})
            if len(shares) == self.setup.n_seats:
                self._open(p, [shares[s] for s in range(self.setup.n_seats)])

    def _open(self, position: int, keys: Sequence[bytes] | None, *, private: bool = False) -> None:
        """Multiply the product of all keys into the locked card and look it up.

        ``private``: the keys were sealed to this seat, so only it opens the position; a
        failure is then a private fault.  A card seen twice is private when either of the
        two positions is not public (only this seat knows that card is there)."""
        if keys is None:
            return
        group = self._group
        try:
            element = group.mult(group.scalar_product(keys), self._deck[position])
        except GroupError as exc:
            raise UnattributedFault(f"position {position} does not open: {exc}", private=private) from exc
        card = self._cards_by_element.get(element)
        if card is None:
            raise UnattributedFault(
                f"position {position} does not open to a card although every key is the "
                "committed one: a lock is wrong (run the audit)",
                private=private,
            )
        elsewhere = self._positions_of_card.get(card)
        if elsewhere is not None and elsewhere != position:
            private = private or not self._public[elsewhere]
            if private:  # the position did open: take the card, so the deal can go on to the dispute
                self._known[position] = card
                self._opened[position] = (tuple(keys), card)
            raise UnattributedFault(
                f"card {card} opens at positions {elsewhere} and {position} (run the audit)", private=private
            )
        self._positions_of_card[card] = position
        self._known[position] = card
        self._opened[position] = (tuple(keys), card)

    # sending

    def _pump(self) -> list[Wire]:
        """Send every owed message that can be sent now."""
        out: list[Wire] = []
        for op in self._operations:
            if not op.owed:
                continue
            still_owed = []
            for emission in op.owed:
                message = self._emit(op, emission)
                if message is None:
                    still_owed.append(emission)
                else:
                    out.append(message)
            op.owed = still_owed
        return out

    def _emit(self, op: _Operation, emission: _Emission) -> Wire | None:
        """Build an owed message, or ``None`` if this seat lacks keys for it yet."""
        secrets = self._mine()
        seat = self._own_seat()
        positions = emission.positions
        if emission.kind is Kind.SHARE:
            keys = tuple(secrets.keys[p] for p in positions)
            for p, key in zip(positions, keys, strict=True):
                op.shares.setdefault(p, {})[seat] = key
            self._open_shared(op, positions)
            return self._wire(Share(seat=seat, step=op.step, positions=positions, keys=keys))
        if emission.kind is Kind.KEYS:
            entries = tuple(
                KeyEntry(position=p, seat=seat, key=secrets.keys[p]) for p in positions
            )
            assert emission.to is not None
            return self._sealed(op.step, Kind.KEYS, emission.to, positions, entries)
        held = {p: self._held_keys(p) for p in positions}
        full = {p: keys for p, keys in held.items() if keys is not None}
        if len(full) != len(positions):
            return None
        if emission.kind is Kind.REVEAL:
            return self._wire(
                KeyReveal(
                    seat=seat,
                    step=op.step,
                    positions=positions,
                    keys=tuple(tuple(full[p]) for p in positions),
                )
            )
        assert emission.to is not None
        to = emission.to
        entries = tuple(
            KeyEntry(position=p, seat=s, key=full[p][s])
            for p in positions
            for s in range(self.setup.n_seats)
            if s != to
        )
        return self._sealed(op.step, Kind.TRANSFER, to, positions, entries)

    def _sealed(
        self,
        step: int,
        kind: Kind,
        to: int,
        positions: tuple[int, ...],
        entries: tuple[KeyEntry, ...],
    ) -> Wire:
        """Sign the payload, seal it to ``to`` with the seed-derived ephemeral key."""
        setup = self.setup
        seat = self._own_seat()
        assert self._deal_id is not None and self._signing_key is not None and self._kdf is not None
        payload = SealedPayload(
            kind=kind,
            table_id=setup.table_id,
            deal_number=setup.deal_number,
            deal_id=self._deal_id,
            step=step,
            sender=seat,
            recipient=to,
            entries=entries,
        )
        sealed = hpke_seal(
            setup.sealing_keys[to],
            hpke_info(setup.table_id, setup.deal_number, kind, step, seat, to),
            sign_payload(self._signing_key, payload),
            self._kdf.hpke_ikm(kind, step, to),
        )
        return self._wire(
            Sealed(kind=kind, seat=seat, step=step, to=to, positions=positions, sealed=sealed)
        )


def expected_entries(message: Sealed, n_seats: int) -> list[tuple[int, int]]:
    """The (position, key seat) pairs a sealed message must carry, in order.

    A ``keys`` message carries the sender's key for each position; a ``transfer`` carries
    every seat's key except the recipient's, for each position, in seat order.
    """
    if message.kind is Kind.KEYS:
        return [(p, message.seat) for p in message.positions]
    return [(p, s) for p in message.positions for s in range(n_seats) if s != message.to]
