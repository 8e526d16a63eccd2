"""The rounds before the operations, one part of :class:`~p2pcards.mental.party.Party`:
the commitments, the shuffle round and the lock round in seat order -- this seat's own
shuffle and lock with their proofs, and the checks of every other seat's (turn, elements,
proof).
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
