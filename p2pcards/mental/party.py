"""One seat's side of the mental deck: a sans-IO state machine (in the manner of h11).

Drive it like this (every seat does the same, in the same order)::

    party = Party(setup, seat, seed, signing_key, sealing_key)
    send(party.start())                    # the commitment
    for msg in incoming:                   # in transcript order, never our own
        send(party.receive(msg))           # shuffle and lock rounds answer by themselves
    # once party.phase is Phase.READY: every proof of the rounds (else a DeckFault)
    party.settle()
    # then the game's operations, identically on every seat:
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
commitment.  A shuffle's or lock's proof is checked later (this seat makes its own step
first), all of them before the first operation: :meth:`Party.settle`, and
:meth:`Party.check_proof` for spare time (:mod:`~p2pcards.mental.party_rounds`).  If
every key matches and a position still does not open to a card (or a card shows up
twice) some lock was wrong: :class:`~p2pcards.mental.errors.UnattributedFault`;
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
from collections.abc import Callable, Iterable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.mental.errors import LocalError, RemoteError
from p2pcards.mental.kdf import SeedKdf, commitment
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
)
from p2pcards.mental.party_keys import PartyKeys
from p2pcards.mental.party_rounds import PartyRounds
from p2pcards.mental.party_state import Awaited, Emission, LiveRecord, Operation, Phase
from p2pcards.mental.setup import DealSetup

__all__ = ["Party"]


class Party(PartyRounds, PartyKeys):
    """One seat's state machine for one deal (see the module docstring).  Its parts: the
    state (:mod:`p2pcards.mental.party_state`), the rounds before the operations
    (:mod:`p2pcards.mental.party_rounds`) and the operations' keys
    (:mod:`p2pcards.mental.party_keys`)."""

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
            self._failure = self._first_fault(exc)
            if self._failure is exc:
                raise
            raise self._failure from exc
        if message.seat == self.seat:
            raise LocalError("receive() got a message authored by this seat")
        out = self._guarded(lambda: self._apply(message))
        self._record.append((wire, message))
        return out

    def settle(self) -> None:
        """Check every shuffle and lock proof not checked yet and raise the first failure
        (a :class:`~p2pcards.mental.errors.DeckFault` of its author): call it once the
        phase is ``READY``, before the first operation, which calls it anyway.
        :meth:`check_proof` does the same work a step at a time, in spare time."""
        self._check_alive()
        self._guarded(self._settle)

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
                op.owed.append(Emission(kind=Kind.KEYS, positions=spots, to=to_seat))
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
                op.owed.append(Emission(kind=Kind.REVEAL, positions=spots))
            else:
                op.awaiting[(holder, Kind.REVEAL)] = Awaited(
                    seat=holder, kind=Kind.REVEAL, step=op.step, positions=spots
                )
        if stock:
            spots = tuple(stock)
            if self.seat is not None:
                op.owed.append(Emission(kind=Kind.SHARE, positions=spots))
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
                op.owed.append(Emission(kind=Kind.TRANSFER, positions=hidden, to=to_seat))
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
    def _operation_positions(self, positions: Iterable[int]) -> tuple[int, ...]:
        """Validate the call and its positions (distinct, in range); return them sorted."""
        self._check_alive()
        if self._phase is not Phase.READY:
            raise LocalError("operations start once the lock round is complete")
        if self._seed_revealed:
            raise LocalError("the seed was revealed: the deal is over")
        self._guarded(self._settle)  # no key goes out before every proof of the rounds holds
        chosen = list(positions)
        for p in chosen:
            if type(p) is not int or not 0 <= p < self.setup.deck_size:
                raise LocalError(f"{p!r} is not a position of the deck")
        if len(set(chosen)) != len(chosen):
            raise LocalError("a position is named twice")
        return tuple(sorted(chosen))

    def _new_operation(self) -> Operation:
        """Declare the next step."""
        op = Operation(step=len(self._operations))
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
                raise
            self._failure = self._first_fault(exc)
            if self._failure is exc:
                raise
            raise self._failure from exc

    def _first_fault(self, exc: RemoteError) -> RemoteError:
        """The fault to blame for ``exc``, a public one found at a message: an earlier
        shuffle or lock whose proof fails, if any (they are checked late: party_rounds),
        else ``exc`` itself."""
        if not exc.private and exc is not self._proof_fault:
            while self.check_proof():
                pass
            if self._proof_fault is not None:
                return self._proof_fault
        return exc

    # rounds

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
