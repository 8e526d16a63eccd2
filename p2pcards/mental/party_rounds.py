"""The rounds before the operations, one part of :class:`~p2pcards.mental.party.Party`:
the commitments, the shuffle round and the lock round in seat order -- this seat's own
shuffle and lock with their proofs, and the checks of every other seat's (turn, elements,
proof).

**Pipelined proofs.**  A shuffle or lock is checked for its turn and its elements when it
arrives, and this seat makes its own step from it at once; the step's proof is checked
later -- whenever the driver has time (:meth:`PartyRounds.check_proof`), and in any case,
all of them in seat order, before the first operation (:meth:`Party.settle`).  The
first step whose proof fails is blamed there, at the same place on every replica (the end
of the lock round), and before any key that would open a card is sent: what a seat's own
step gives away about a deck that was not a shuffle of the cards is nothing the seeds it
reveals after the fault would not.  A fault found at a message during the rounds (out of
turn, a bad element) blames an earlier step whose proof fails first, so the seat blamed is
the one a check of every proof on arrival would blame.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from p2pcards.mental.errors import DeckFault, FaultKind, GroupError, UnattributedFault
from p2pcards.mental.kdf import card_encodings, deal_id, key_commitment
from p2pcards.mental.messages import Commit, Lock, Shuffle, Wire
from p2pcards.mental.party_state import PartyState, Phase
from p2pcards.mental.proofs import (
    LockProof,
    ShuffleProof,
    proof_context,
    prove_lock,
    prove_shuffle,
    verify_lock,
    verify_shuffle,
)

__all__ = ["PartyRounds"]


class PartyRounds(PartyState):
    """Commitments, shuffle and lock rounds (module docstring)."""

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
        if self.setup.proofs:  # every element valid (a precise blame); the proof waits (module docstring)
            self._check_elements(message.seat, message.deck)
            self._unchecked.append((message, self._deck))
        if isinstance(message, Lock):
            self._key_commitments[message.seat] = message.key_commitments
        self._next_turn(message.deck, message.seat)
        if not self.setup.proofs and (self._phase not in (Phase.SHUFFLE, Phase.LOCK) or self._turn != self.seat):
            self._check_elements(message.seat, message.deck)

    def check_proof(self) -> bool:
        """Check the proof of the earliest shuffle or lock not checked yet, if any; True
        while some remain.  Work for spare time: a failure is only recorded here, and
        :meth:`settle` acts on it (module docstring)."""
        if not self._unchecked:
            return False
        message, taken = self._unchecked[0]
        holds = self._proof_holds(message, taken)
        self._unchecked.pop(0)  # (only once checked: whatever happens, no step goes unchecked)
        if not holds:
            self._unchecked.clear()  # the first failure is the one blamed
            kind = "shuffle" if isinstance(message, Shuffle) else "lock"
            why = ("its deck is not the deck it took, permuted and re-keyed" if kind == "shuffle"
                   else "a position is not its own input re-keyed")
            self._proof_fault = DeckFault(message.seat, FaultKind.BAD_SHUFFLE if kind == "shuffle"
                                          else FaultKind.BAD_LOCK, f"the {kind}'s proof does not verify: {why}")
        return bool(self._unchecked)

    def _settle(self) -> list[Wire]:
        """Check every proof still unchecked; raise the first failure (public: every replica
        sees the same steps, so the author is blamed by all)."""
        while self.check_proof():
            pass
        if self._proof_fault is not None:
            raise self._proof_fault
        return []

    def _proof_holds(self, message: Shuffle | Lock, taken: tuple[bytes, ...]) -> bool:
        """Whether a shuffle or lock's proof holds against ``taken``, the deck it took."""
        assert message.proof is not None  # decode requires it when the deal has proofs
        if isinstance(message, Shuffle):
            return verify_shuffle(self._group, self._context(message.seat, "shuffle"), taken, message.deck,
                                  message.proof)
        return verify_lock(self._group, self._context(message.seat, "lock"), taken, message.deck, message.proof)

    def _check_elements(self, seat: int, deck: tuple[bytes, ...]) -> None:
        """Validate every element of a deck this seat will not multiply in full itself."""
        for i, element in enumerate(deck):
            try:
                self._group.validate(element)
            except GroupError as exc:
                raise DeckFault(seat, FaultKind.BAD_ELEMENT, f"element {i}: {exc}") from exc
