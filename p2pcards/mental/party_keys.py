"""The keys of the operations, one part of :class:`~p2pcards.mental.party.Party`: what
this seat owes (sealed keys for a deal or a transfer, revealed and shared keys) and what it
receives -- each key checked against its seat's key commitment, sealed payloads opened and
their signatures checked -- and the positions those keys open.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.mental.errors import DeckFault, FaultKind, GroupError, UnattributedFault
from p2pcards.mental.kdf import commitment, hpke_info, key_commitment
from p2pcards.mental.messages import KeyReveal, Kind, Sealed, SeedReveal, Share, Wire
from p2pcards.mental.party_state import Awaited, Emission, Operation, PartyState, Phase
from p2pcards.mental.seal import KeyEntry, SealedPayload, hpke_open, hpke_seal, sign_payload, verify_plaintext

__all__ = ["PartyKeys", "expected_entries"]


class PartyKeys(PartyState):
    """Keys owed, received and opened (module docstring)."""

    def _expected(self, seat: int, kind: Kind, step: int) -> tuple[Operation, Awaited]:
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

    def _open_shared(self, op: Operation, positions: Sequence[int]) -> None:
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

    def _emit(self, op: Operation, emission: Emission) -> Wire | None:
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
