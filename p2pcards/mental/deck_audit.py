"""The audit of a finished (or abandoned) deal: a pure function of its public record.

:func:`audit` takes the deal's :class:`~p2pcards.mental.setup.DealSetup`, every message of
the deal in transcript order (commitments, both rounds, every operation message including
the sealed ones; ``seed`` messages are ignored) and the revealed seeds by seat (a missing
seat refused).  It needs no private key: with a sender's seed it re-derives the HPKE
ephemeral key of each sealed payload and opens it (:func:`~p2pcards.mental.seal.
hpke_open_as_sender`), then checks the sender's signature and every key.

It checks, in this order, and reports the first fault:

1. every message's shape (``malformed``), then one commitment per seat
   (``missing-commitment``);
2. the shuffle round in seat order: a seat with a good seed must output exactly
   ``s · input[π[i]]`` (``bad-shuffle``); the output of a seat without one must at least
   be valid, distinct elements (``bad-element``), as it is the next seat's input;
3. the lock round likewise (``bad-lock``), including the key commitments;

   (steps 2 and 3 first take a shortcut: with every seed good, the final deck is a
   function of the seeds, one multiplication per position; when it is exact, the rounds'
   outputs are not recomputed one by one, see ``_Auditor._final_deck_follows``; any
   difference falls back to the recomputation, so a fault is reported as above);
4. every operation message in transcript order: sealed payloads of seats with a good seed
   must open with the seed's ephemeral key and carry the sender's signature
   (``bad-seal``) over exactly the committed keys (``bad-key``); revealed and shared keys
   must be the committed ones (``bad-reveal``);
5. seeds: missing (``seed-refused``) or not matching the commitment (``seed-mismatch``).

Rounds out of order (a shuffle before the previous seat's, a lock before the shuffle round
ends, an operation before the lock round ends) are ``out-of-turn``.  Whether the
operations were the ones the game dictated, and complete, is for the rules replay and the
parties (which check turn and step at once).  A clean report carries the card at every
position, computed from the seeds' permutations, for that replay.

:func:`~p2pcards.mental.evidence.verify_evidence` checks the evidence a
:class:`~p2pcards.mental.errors.DeckFault` carries (a sealed plaintext signed by the
accused) without waiting for the seeds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from p2pcards.mental.errors import DeckFault, FaultKind, GroupError, LocalError
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
    Lock,
    Message,
    Sealed,
    SeedReveal,
    Share,
    Shuffle,
    decode,
)
from p2pcards.mental.party_keys import expected_entries
from p2pcards.mental.party_state import LiveRecord
from p2pcards.mental.seal import SealedPayload, ephemeral_public, hpke_open_as_sender, verify_plaintext
from p2pcards.mental.setup import DealSetup

__all__ = ["AuditReport", "Fault", "audit", "seeds_from_messages"]


_ENC_SIZE = 32
_NOT_SEED_EPHEMERAL = "sealed payload is not sealed with the seed's ephemeral key"


@dataclass(frozen=True, kw_only=True)
class Fault:
    """The first fault the audit found: who, what, and at which message (if any)."""

    seat: int
    kind: FaultKind
    reason: str
    message: int | None = None


@dataclass(frozen=True, kw_only=True)
class AuditReport:
    """Either a fault, or clean with the card at every position (``None`` if unshuffled)."""

    fault: Fault | None
    cards: tuple[str, ...] | None

    @property
    def clean(self) -> bool:
        """No fault was found."""
        return self.fault is None


class _Found(Exception):
    """Internal: carries the first fault out of the checks."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.reason)
        self.fault = fault


def _fail(seat: int, kind: FaultKind, reason: str, index: int | None = None) -> _Found:
    """The exception that reports a fault at message ``index``."""
    return _Found(Fault(seat=seat, kind=kind, reason=reason, message=index))


def seeds_from_messages(setup: DealSetup, messages: Sequence[object]) -> dict[int, bytes]:
    """The seeds found in well-formed ``seed`` messages (the first per seat)."""
    seeds: dict[int, bytes] = {}
    for wire in messages:
        try:
            message = decode(setup, wire)
        except DeckFault:
            continue
        if isinstance(message, SeedReveal):
            seeds.setdefault(message.seat, message.seed)
    return seeds


def audit(
    setup: DealSetup,
    messages: Sequence[object],
    seeds: Mapping[int, bytes],
    trusted: int | None = None,
    *,
    live: LiveRecord | None = None,
) -> AuditReport:
    """Verify a deal's record against the revealed seeds (see the module docstring).

    ``trusted`` is the seat of the party running the audit on its own record: its own
    shuffle, lock and sealed keys came from its own seed, so they are not recomputed (every
    other seat's are, which is what the others check of ours).  An offline audit trusts
    nobody (the default).

    ``live`` (:meth:`Party.live_record <p2pcards.mental.party.Party.live_record>`, implies
    ``trusted=live.seat``): that party's own audit does not do again what the party already
    did while it played -- every check is still made once, live or here:

    * decoding: a message the party decoded (sent, or received and checked) is not decoded
      again (matched by identity of the wire object, never by equality);
    * the party's own secrets and the card encodings are taken from it, provided the seed
      revealed for its seat is its seed and the deal id computed here is its deal id;
    * the keys of a ``reveal`` or ``share`` message are not checked against the key
      commitments again if the party received that message (:meth:`Party.receive` checked
      every key against the same lock messages' commitments and the same deal id) or sent
      it (its own keys, and others' keys it only holds after checking them on receipt);
    * a sealed payload to the party's seat, which it opened and checked on receipt
      (signature, frame, every key against the commitments), is checked here only for what
      the party could not see: that its HPKE ``enc`` is the sender's seed-derived ephemeral
      key (with the same ``enc``, opening as sender gives the shared secret, hence the
      plaintext, that the party opened);
    * the elements of the last lock that the party opened to the right card with every
      seat's seed-derived keys are not recomputed: the opening proves them (see
      ``_Auditor._opened_right``).

    Only the messages the party itself sent are trusted as its own (a record that is not
    of this very transcript trusts nothing and spares nothing).  Everything else is
    checked here as offline; the offline audit (``live`` None) checks everything.

    Raises :class:`~p2pcards.mental.errors.MalformedMessage` for a message that names no
    seat of the deal (the transcript should never hold one).
    """
    if live is not None:
        if trusted is not None and trusted != live.seat:
            raise LocalError("trusted and live name different seats")
        trusted = live.seat
    try:
        return _Auditor(setup, messages, seeds, trusted, live).run()
    except _Found as found:
        return AuditReport(fault=found.fault, cards=None)


class _Auditor:
    """One run of :func:`audit`."""

    def __init__(
        self,
        setup: DealSetup,
        messages: Sequence[object],
        seeds: Mapping[int, bytes],
        trusted: int | None = None,
        live: LiveRecord | None = None,
    ) -> None:
        self.setup = setup
        self.trusted = trusted
        self.live = live
        self.group = setup.group
        self.n = setup.n_seats
        self.decoded: list[Message] = []
        #: indexes of the messages the live party checked on receipt or sent (see audit())
        self.checked_live: set[int] = set()
        known = {} if live is None else {id(wire): (wire, message) for wire, message in live.messages}
        for index, wire in enumerate(messages):
            hit = known.get(id(wire))
            if hit is not None and hit[0] is wire:
                self.decoded.append(hit[1])
                self.checked_live.add(index)
                continue
            try:
                self.decoded.append(decode(setup, wire))
            except DeckFault as exc:
                raise _fail(exc.seat, exc.kind, exc.reason, index) from exc
        self.seeds = seeds
        self.kdfs: dict[int, SeedKdf] = {}
        self.secrets: dict[int, SeatSecrets] = {}
        self.the_deal_id = b""
        self.key_commitments: dict[int, tuple[bytes, ...]] = {}

    def run(self) -> AuditReport:
        """Run every check in order; return a clean report or raise :class:`_Found`."""
        commits = self._commitments()
        setup = self.setup
        self.the_deal_id = deal_id(
            setup.table_id,
            setup.deal_number,
            self.group.name,
            setup.deck,
            [commits[s] for s in range(self.n)],
        )
        live = self.live
        for s in range(self.n):
            seed = self.seeds.get(s)
            if seed is not None and self._seed_matches(s, seed, commits[s]):
                kdf = SeedKdf(self.group, setup.table_id, setup.deal_number, s, seed)
                self.kdfs[s] = kdf
                if live is not None and s == live.seat and seed == live.seed:
                    self.secrets[s] = live.secrets  # derived by the party from this very seed
                else:
                    self.secrets[s] = kdf.secrets(setup.deck_size)
        if live is not None and live.deal_id == self.the_deal_id and live.encodings:
            encodings = live.encodings  # the party's, for this very deal id
        else:
            try:
                encodings = card_encodings(self.group, self.the_deal_id, setup.deck)
            except GroupError as exc:  # pragma: no cover - a 2^-250 event
                raise _fail(0, FaultKind.MALFORMED, f"card encodings unusable: {exc}") from exc
        shuffles = self._round_messages(Shuffle, after=0)
        locks = self._final_deck_follows(shuffles, encodings)
        if locks is None:  # recompute seat by seat, to name the first seat at fault
            shuffled = self._check_round(shuffles, encodings)
            locks = self._round_messages(Lock, after=shuffles[-1][0] if shuffled is not None else None)
            locked = self._check_round(locks, shuffled)
        else:
            shuffled = locked = locks[-1][1].deck
        self._operations(after=locks[-1][0] if locked is not None else None)
        for s in range(self.n):
            if s not in self.seeds:
                raise _fail(s, FaultKind.SEED_REFUSED, "the seed was not revealed")
            if s not in self.kdfs:
                raise _fail(s, FaultKind.SEED_MISMATCH, "the seed does not match the commitment")
        return AuditReport(fault=None, cards=self._cards() if shuffled is not None else None)

    def _seed_matches(self, seat: int, seed: object, committed: bytes) -> bool:
        """Whether a revealed seed is 32 bytes and opens the seat's commitment."""
        setup = self.setup
        return (
            type(seed) is bytes
            and len(seed) == 32
            and commitment(setup.table_id, setup.deal_number, seat, self.group.name, seed)
            == committed
        )

    def _commitments(self) -> dict[int, bytes]:
        """Exactly one commitment per seat, by seat."""
        commits: dict[int, bytes] = {}
        for index, message in enumerate(self.decoded):
            if isinstance(message, Commit):
                if message.seat in commits:
                    raise _fail(message.seat, FaultKind.OUT_OF_TURN, "second commitment", index)
                commits[message.seat] = message.commitment
        for s in range(self.n):
            if s not in commits:
                raise _fail(s, FaultKind.MISSING_COMMITMENT, "the seat never committed")
        return commits

    def _mine(self, message: Message, index: int) -> bool:
        """Whether message ``index`` is the trusted seat's own (not recomputed).

        With a live record, only the very messages its party sent count: a record that is
        not this transcript's trusts nothing.
        """
        return message.seat == self.trusted and (self.live is None or index in self.checked_live)

    def _round_messages(
        self, kind: type[Shuffle] | type[Lock], after: int | None
    ) -> list[tuple[int, Shuffle | Lock]]:
        """A round's messages with their indexes: in seat order, none before ``after``.

        ``after`` is ``None`` when the previous round is incomplete: then the round must be
        empty.
        """
        outputs: list[tuple[int, Shuffle | Lock]] = [
            (i, m) for i, m in enumerate(self.decoded) if isinstance(m, kind)
        ]
        for position, (index, message) in enumerate(outputs):
            if message.seat != position or after is None or index < after:
                raise _fail(
                    message.seat, FaultKind.OUT_OF_TURN, f"{kind.__name__} out of turn", index
                )
        return outputs

    def _check_round(
        self, outputs: list[tuple[int, Shuffle | Lock]], deck: tuple[bytes, ...] | None
    ) -> tuple[bytes, ...] | None:
        """Check a round's outputs in turn; return its final deck, ``None`` if incomplete."""
        for index, message in outputs:
            assert deck is not None  # a round is non-empty only after a complete one
            if self._mine(message, index):
                pass  # our own output, computed from our own seed
            elif message.seat in self.secrets:
                self._check_output(message, deck, index)
            else:
                self._check_elements(message, index)
            if isinstance(message, Lock):
                self.key_commitments[message.seat] = message.key_commitments
            deck = message.deck
        return deck if len(outputs) == self.n else None

    def _final_deck_follows(
        self, shuffles: list[tuple[int, Shuffle | Lock]], encodings: Sequence[bytes]
    ) -> list[tuple[int, Shuffle | Lock]] | None:
        """The lock round's messages if the final deck is exactly what the seeds give;
        ``None`` (recompute round by round) otherwise.

        With every seed good, the final deck is determined: position ``j`` holds
        ``(∏_s k_s[j])⁻¹ · E(c_j)``, ``c_j`` being the card the permutations put there.
        One multiplication per position (none for a position the live party opened to that
        card with those keys, see :meth:`_opened_right`) replaces the recomputation of
        every output of both rounds.  What the rounds must still satisfy is checked as
        there: the order of the lock round and the key commitments following from the
        seeds.  An output in between that differs from its recomputation yet leaves the
        final deck exact can only be undone by seats that know the factor (a scaling of
        the whole deck, or of one position in the lock round): it changes no card, no
        opening and nothing an honest seat could learn, so it is not looked for.  Any
        difference, or any fault found here, falls back to the recomputation, which
        reports the first fault in order exactly as before.
        """
        n = self.n
        if len(self.secrets) != n or len(shuffles) != n:
            return None
        try:
            locks = self._round_messages(Lock, after=shuffles[-1][0])
        except _Found:
            return None
        if len(locks) != n:
            return None
        for index, message in locks:
            assert isinstance(message, Lock)
            if self._mine(message, index):
                continue
            keys = self.secrets[message.seat].keys
            for j, key in enumerate(keys):
                if message.key_commitments[j] != key_commitment(self.the_deal_id, message.seat, j, key):
                    return None
        final = locks[-1][1]
        assert isinstance(final, Lock)
        proven = self._opened_right(final)
        origins = self._origins
        group = self.group
        todo = [j for j in range(len(origins)) if j not in proven]
        if todo:
            inverses = group.batch_invert(
                [group.scalar_product([self.secrets[s].keys[j] for s in range(n)]) for j in todo]
            )
            for j, inverse in zip(todo, inverses, strict=True):
                if final.deck[j] != group.mult(inverse, encodings[origins[j]]):
                    return None
        for _, message in locks:
            assert isinstance(message, Lock)
            self.key_commitments[message.seat] = message.key_commitments
        return locks

    def _check_elements(self, message: Shuffle | Lock, index: int) -> None:
        """Without the seed: the output must still be valid, distinct elements."""
        for i, element in enumerate(message.deck):
            try:
                self.group.validate(element)
            except GroupError as exc:
                raise _fail(
                    message.seat, FaultKind.BAD_ELEMENT, f"element {i}: {exc}", index
                ) from exc
        if len(set(message.deck)) != len(message.deck):
            raise _fail(message.seat, FaultKind.BAD_ELEMENT, "an element repeats", index)

    def _check_output(self, message: Shuffle | Lock, deck: tuple[bytes, ...], index: int) -> None:
        """With the seed: recompute the seat's output from its input and compare.

        The elements of the last lock that the live party opened (see :meth:`_opened_right`)
        are not recomputed: the opening proved them.
        """
        secrets = self.secrets[message.seat]
        mult = self.group.mult
        expected: list[bytes | None]
        if isinstance(message, Shuffle):
            expected = [mult(secrets.shuffle_scalar, deck[i]) for i in secrets.permutation]
            kind = FaultKind.BAD_SHUFFLE
        else:
            kind = FaultKind.BAD_LOCK
            for j, key in enumerate(secrets.keys):
                if message.key_commitments[j] != key_commitment(
                    self.the_deal_id, message.seat, j, key
                ):
                    raise _fail(
                        message.seat,
                        kind,
                        f"key commitment {j} does not follow from the seed",
                        index,
                    )
            proven = self._opened_right(message)
            expected = [
                None if j in proven else mult(f, e)
                for j, (f, e) in enumerate(zip(secrets.lock_factors, deck, strict=True))
            ]
        for i, (got, want) in enumerate(zip(message.deck, expected, strict=True)):
            if want is not None and got != want:
                raise _fail(
                    message.seat, kind, f"output element {i} does not follow from the seed", index
                )

    def _opened_right(self, message: Lock) -> set[int]:
        """Positions of the last lock whose element the live party's openings prove right.

        The live party opened position ``j`` of the final deck ``L`` (this very message's
        deck) by checking ``K · L[j] = E(c)`` with ``K`` the product of the keys it held
        and ``E`` the card encodings of this deal id.  When those keys are every seat's
        seed-derived ``k_s[j]`` and ``c`` is the card the permutations put at ``j``, then
        ``L[j] = (∏ k_s[j])⁻¹ · E(c)``: the very check of :meth:`_final_deck_follows`; and,
        when the rounds are recomputed, exactly ``f · input[j]`` for the seat's lock factor
        ``f``: every earlier output was checked equal to its recomputation (the checks run
        in order and stop at the first fault), so ``input[j] = (∏_{s<last} f_s[j]) ·
        (∏_s σ_s) · E(c)``, and ``f_s[j] = (σ_s · k_s[j])⁻¹``.  Other positions are
        computed.
        """
        live = self.live
        if (
            live is None
            or message.seat != self.n - 1
            or live.deal_id != self.the_deal_id
            or live.locked != message.deck
            or len(self.secrets) != self.n
        ):
            return set()
        cards = self._cards()
        keys = [self.secrets[s].keys for s in range(self.n)]
        return {
            j
            for j, (held, card) in live.opened.items()
            if 0 <= j < len(cards) and card == cards[j] and held == tuple(k[j] for k in keys)
        }

    def _operations(self, after: int | None) -> None:
        """Check every operation message in transcript order."""
        for index, message in enumerate(self.decoded):
            if not isinstance(message, Sealed | KeyReveal | Share):
                continue
            if after is None or index < after:
                raise _fail(
                    message.seat,
                    FaultKind.OUT_OF_TURN,
                    "operation before the lock round ended",
                    index,
                )
            if isinstance(message, Sealed):
                self._check_sealed(message, index)
            elif index in self.checked_live:
                pass  # every key was checked against the commitments live (see audit())
            elif isinstance(message, KeyReveal):
                for p, keys in zip(message.positions, message.keys, strict=True):
                    for s, key in enumerate(keys):
                        if not self._committed(s, p, key):
                            raise _fail(
                                message.seat,
                                FaultKind.BAD_REVEAL,
                                f"key of seat {s} for position {p} is not the committed one",
                                index,
                            )
            else:
                for p, key in zip(message.positions, message.keys, strict=True):
                    if not self._committed(message.seat, p, key):
                        raise _fail(
                            message.seat,
                            FaultKind.BAD_REVEAL,
                            f"shared key for position {p} is not the committed one",
                            index,
                        )

    def _committed(self, seat: int, position: int, key: bytes) -> bool:
        """Whether ``key`` is a valid scalar matching ``seat``'s key commitment."""
        return self.group.scalar_is_valid(key) and (
            key_commitment(self.the_deal_id, seat, position, key)
            == self.key_commitments[seat][position]
        )

    def _check_sealed(self, message: Sealed, index: int) -> None:
        """Open a sealed payload with the sender's seed and check it (skipped without seed)."""
        sender = message.seat
        kdf = self.kdfs.get(sender)
        if kdf is None or self._mine(message, index):
            return  # no seed to open it with, or sealed by ourselves
        setup = self.setup
        ikm = kdf.hpke_ikm(message.kind, message.step, message.to)
        if self.live is not None and message.to == self.live.seat and index in self.checked_live:
            # the party opened and checked it on receipt; what it could not see is the enc
            if message.sealed[:_ENC_SIZE] != ephemeral_public(ikm):
                raise _fail(sender, FaultKind.BAD_SEAL, _NOT_SEED_EPHEMERAL, index)
            return
        plaintext = hpke_open_as_sender(
            ikm,
            setup.sealing_keys[message.to],
            hpke_info(
                setup.table_id, setup.deal_number, message.kind, message.step, sender, message.to
            ),
            message.sealed,
        )
        if plaintext is None:
            raise _fail(sender, FaultKind.BAD_SEAL, _NOT_SEED_EPHEMERAL, index)
        payload = verify_plaintext(plaintext, setup.signing_keys[sender])
        if payload is None:
            raise _fail(
                sender, FaultKind.BAD_SEAL, "sealed payload is not signed by the sender", index
            )
        frame = SealedPayload(
            kind=message.kind,
            table_id=setup.table_id,
            deal_number=setup.deal_number,
            deal_id=self.the_deal_id,
            step=message.step,
            sender=sender,
            recipient=message.to,
            entries=payload.entries,
        )
        if payload != frame or [(e.position, e.seat) for e in payload.entries] != expected_entries(
            message, self.n
        ):
            raise _fail(
                sender, FaultKind.MALFORMED, "sealed payload does not match its message", index
            )
        for entry in payload.entries:
            if not self._committed(entry.seat, entry.position, entry.key):
                raise _fail(
                    sender,
                    FaultKind.BAD_KEY,
                    f"sent a wrong key of seat {entry.seat} for position {entry.position}",
                    index,
                )

    @cached_property
    def _origins(self) -> tuple[int, ...]:
        """The deck index of the card at every final position, following every seat's
        permutation back (asked for once every seed is known)."""
        origins = []
        for j in range(self.setup.deck_size):
            index = j
            for s in range(self.n - 1, -1, -1):
                index = self.secrets[s].permutation[index]
            origins.append(index)
        return tuple(origins)

    def _cards(self) -> tuple[str, ...]:
        """The card at every final position."""
        deck = self.setup.deck
        return tuple(deck[i] for i in self._origins)
