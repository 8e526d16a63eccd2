"""One peer's replica of a table: transcript, game and mental deck together (sans-IO).

Feed it every message the other peers send (:meth:`Table.receive`); it checks the message
(encoding, signature, table, place in the chain, author in turn, the game's public rules,
the deck's checks), applies it, and returns what this peer must send now.  When this
peer's seat must decide, :meth:`Table.decision` says so and :meth:`Table.decide` takes the
choice.  Nothing here does I/O or keeps time: the runtime keeps the clocks and asks
:meth:`Table.may_vote` / :meth:`Table.vote`.  The rules are in ``protocol/PROTOCOL.md``
("Table messages"); in short:

**Turns.**  The transcript is strictly sequential: at every point every replica computes,
from the state alone, which seat may write the next entry -- no coordinator.  A deal runs:
commitments, shuffle and lock rounds (the mental deck, among the seats still playing),
then the game's steps turned into deck operations, then the **seed round**: every playing
seat reveals its seed in a side message bound to the chain head, and the deal is closed by
a ``close`` certificate that holds every seed.  The close is the only deal boundary: it
needs every playing seat's signed consent to one chain, so nothing that crossed it is ever
undone.  Each replica then audits the deal and scores it.

**Certificates** are entries written by the table itself from the seats' signed messages:
``close`` (the seeds), ``outvote`` (the votes against a silent seat), ``fork`` (two
different messages one author signed for one place in the chain).  Every replica that
holds the same signed messages writes the same certificate.

**Faults.**  A fault every replica sees in a message (a reveal that does not open, a bad
element, a malformed deck message) fixes the verdict at once and ends the deal (seed
round).  A fault only this seat can see (keys sealed to it that do not open or are wrong,
a card of its own that does not open) is raised as a ``dispute`` in this seat's next turn;
every seat then reveals its seed and every replica runs the same audit: the seat it names
is blamed, or the accuser when it finds nothing.  A position that opens to no card in
public ends the deal the same way (the audit names the seat).  **A seat blamed loses the
deal** by its game's renúncia rule (:meth:`~p2pcards.core.game.DealState.forfeit`).

**Equivocation.**  Two different signed entries by one author at one place of the chain
(same ``seq`` and ``prev``), or a vote and a "nay" by one voter for one slot, are
evidence: whoever holds both writes a ``fork`` certificate at that place; every replica
takes it (going back to it within the deal, which cannot have closed) and the author
loses the deal.

**Silence.**  The runtime asks :meth:`may_vote` whom this seat may vote against (a seat due
now, in a table of at least three playing seats) and calls :meth:`vote` when its own clock
has seen that seat silent for the timeout.  A replica that holds the silent seat's message
for that place never votes: it answers a vote with a ``nay`` carrying the message; a voter
that voted holds a late message aside until the vote is complete (``outvote``
certificate: every other playing seat voted) or a nay shows it cannot be (for a voter
left behind, the chain from that message to the close of its deal: :meth:`take_held`).  A seat voted
out becomes a **dummy**: it loses the deal it was silent in, its cards are dealt face up
from then on, it takes no part in the deck, and every replica plays it with the same
deterministic bot (:func:`~p2pcards.core.players.dummy_choice`).  In a table of two
playing seats nobody can be voted out: the other may :meth:`abandon` (no winner).

**Fresh secrets.**  A deal's seed is derived from this peer's secret *and the chain head
where the deal starts* (:func:`seed_for`), so no deal is dealt twice with the same secrets.

**Observers.**  A replica with no identity (``me`` None) follows a table publicly: every
signature, turn, public deck check and certificate, and every deal's audit.  The offline
audit (:func:`p2pcards.table.audit.replay_transcript`) is such a replica; a seat voted out
goes on as one.

**Nothing refused enters the log**; a replica's own entries that the table did not
accept (a certificate took their place) are handed to the runtime in :attr:`superseded`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from p2pcards.core import (
    Deal,
    DealState,
    Decision,
    End,
    GameSpec,
    IllegalChoice,
    Locate,
    Match,
    OptionError,
    Reveal,
    SeatView,
)
from p2pcards.core.players import dummy_choice
from p2pcards.identity import Identity
from p2pcards.mental import (
    DealSetup,
    DeckFault,
    Group,
    LocalError,
    MalformedMessage,
    Party,
    Phase,
    RemoteError,
    Ristretto255,
    UnattributedFault,
    audit,
    verify_evidence,
)
from p2pcards.mental.kdf import commitment
from p2pcards.table.audit import audit_deal, first_dealer
from p2pcards.table.transcript import (
    ENTRY_KINDS,
    SIDE_KINDS,
    TABLE,
    Envelope,
    Genesis,
    TableKind,
    TranscriptError,
    VersionError,
    make_certificate,
    own_envelope,
    parse_message,
    peek,
    sign_message,
)

__all__ = ["Table", "TableError", "Rejected", "SetupError", "seed_for", "MIN_VOTERS"]

_MAX_MSGS: Final = 64
#: A vote needs at least this many voters (so at least three playing seats).
MIN_VOTERS: Final = 2
#: Side messages kept for a place this replica has not reached yet.
_MAX_AHEAD_SIDE: Final = 64
#: How far past a held entry :meth:`Table.take_held` follows a chain to the deal's close.
_MAX_HELD_CHAIN: Final = 4096
_MAX_REASON: Final = 200


class TableError(Exception):
    """Base of the table's errors."""


class SetupError(TableError):
    """The genesis cannot be played here (unknown game, bad options, not seated...)."""


class Rejected(TableError):
    """A received message was refused and changed nothing.

    ``blame`` is the seat whose signed message broke a rule, or None when the message
    cannot be attributed (bad signature, garbage, a replay, another branch of the chain).
    """

    def __init__(self, reason: str, blame: int | None = None) -> None:
        super().__init__(reason, blame)
        self.reason = reason
        self.blame = blame

    def __repr__(self) -> str:
        return f"Rejected(reason={self.reason!r}, blame={self.blame!r})"

    def __str__(self) -> str:
        who = "unattributed" if self.blame is None else f"seat {self.blame}"
        return f"rejected ({who}): {self.reason}"


def seed_for(secret: bytes, table_id: bytes, deal: int, head: bytes) -> bytes:
    """A deal's seed: from a peer's private table secret (kept with its log), the deal number
    and the chain head where the deal starts -- so a deal is never dealt twice with the same
    secrets, and a replica restored from its log derives the same seed again."""
    msg = b"p2pcards/deal-seed/v2" + table_id + deal.to_bytes(8, "big") + head
    return hmac.new(secret, msg, hashlib.sha256).digest()


@dataclass(frozen=True)
class _Cause:
    """Why a deal went to its seed round before its end, and what decides its verdict.

    ``kind``: ``dispute`` (audit; the accuser if clean), ``unattributed`` (audit), or a
    fixed verdict against ``seat``: ``vote-out``, ``equivocation``, or a deck fault's kind.
    """

    kind: str
    seat: int | None
    reason: str
    fixed: bool


class Table:
    """A peer's replica of one table (module docstring)."""

    #: This peer's deck messages not sent yet (set for each deal).
    outbox: list[dict[str, Any]]
    #: the first fault only this seat saw in the current deal (it disputes it in its turn)
    private: RemoteError | None
    _locate_turn: int
    _locate_claim: tuple[int, int] | None

    def __init__(
        self,
        genesis_raw: bytes,
        spec: GameSpec,
        me: Identity | None,
        secret: bytes | None = None,
        group: Group | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
        """A replica for ``me`` (None: an observer, see the module docstring)."""
        try:
            env = parse_message(genesis_raw, None)
            genesis = Genesis.from_body(env.body)
        except VersionError as exc:
            raise SetupError(f"this transcript is of another protocol version: {exc}") from None
        except TranscriptError as exc:
            raise SetupError(f"bad genesis: {exc}") from None
        if env.table != genesis.table_id or env.seq != 0 or env.kind != TableKind.GENESIS:
            raise SetupError("the genesis does not carry its own table id")
        if spec.name != genesis.game:
            raise SetupError(f"the table plays {genesis.game!r}, not {spec.name!r}")
        if spec.rules_version != genesis.rules_version:
            raise SetupError(
                f"{spec.name}: the table uses rules version {genesis.rules_version}, this peer has {spec.rules_version}"
            )
        if len(genesis.seats) != spec.seats:
            raise SetupError(f"{spec.name} needs {spec.seats} seats, the table has {len(genesis.seats)}")
        try:
            self.options = spec.resolve_options({k: str(v) for k, v in genesis.options.items()})
        except OptionError as exc:
            raise SetupError(str(exc)) from None
        keys = [s.signing for s in genesis.seats]
        self.seat: int | None = None
        if me is not None:
            if me.signing_public not in keys:
                raise SetupError("this identity has no seat at the table")
            self.seat = keys.index(me.signing_public)
            if genesis.seats[self.seat].sealing != me.sealing_public:
                raise SetupError("the table lists another sealing key for this seat")
            if secret is None or len(secret) != 32:
                raise SetupError("a seated replica needs its 32-byte table secret")
        self.genesis = genesis
        self.table_id = genesis.table_id
        self.spec = spec
        self.me = me
        self.n = spec.seats
        self.keys = keys
        self.sealing = [s.sealing for s in genesis.seats]
        self.seat_info = list(genesis.seats)
        self.group = group or Ristretto255()
        self._secret = secret or b""
        self._emit = on_event or (lambda ev: None)
        self.log: list[bytes] = [genesis_raw]
        #: per entry: its hash, author and deal number
        self.hashes: list[bytes] = [env.hash]
        self._authors: list[int] = [env.author]
        self._deals: list[int] = [0]
        self.head = env.hash
        #: seats still playing (a seat voted out is a dummy)
        self.live = [True] * self.n
        self.match: Match | None = None
        self.deal_no = 0
        self.deals_done = 0
        self.finished = False
        #: how the table ended when it did not end by its rules: ``{"by": seat, "waiting_for": seats}``
        self.abandoned: dict[str, Any] | None = None
        self.results: list[dict[str, Any]] = []
        #: completed votes: ``{"seat", "deal", "seq", "voters"}``
        self.outvotes: list[dict[str, Any]] = []
        self.game: DealState | None = None
        #: this replica's own entries that a certificate superseded (the runtime keeps them
        #: apart, as not accepted); taken with :meth:`take_superseded`
        self.superseded: list[bytes] = []
        #: this replica's own votes and nays since the last :meth:`take_own_side` (the
        #: runtime keeps them on disk before sending: a voter never votes and nays both)
        self.own_side: list[bytes] = []
        self._rewound: int | None = None
        #: side messages for a place this replica has not reached (or of another chain)
        self._ahead_side: list[Envelope] = []
        #: a certificate waiting for proof that this replica's chain cannot close
        self._pending_cert: bytes | None = None
        #: while rebuilding to take a certificate at this seq: write nothing of our own there
        self._hold_from: int | None = None
        self._start_deal()

    # ------------------------------------------------------------------ queries
    @property
    def seq(self) -> int:
        """The sequence number of the next entry."""
        return len(self.log)

    @property
    def observer(self) -> bool:
        """True for a replica that holds no seat (or whose seat was voted out)."""
        return self.seat is None or not self.live[self.seat]

    @property
    def voted_out(self) -> bool:
        """True once this replica's own seat was voted out (it then only watches)."""
        return self.seat is not None and not self.live[self.seat]

    @property
    def dummies(self) -> list[int]:
        """Seats voted out: their cards are dealt face up and every replica plays them."""
        return [s for s in range(self.n) if not self.live[s]]

    @property
    def transcript_hash(self) -> str:
        return self.head.hex()

    def expected(self) -> int | None:
        """The seat that must write the next entry (None in the seed round and at the end)."""
        if self.finished or self.stage == "seeds":
            return None
        if self.stage == "play":
            game = self._playing()
            step = game.step()
            if isinstance(step, Decision):
                undecided = game.undecided()
                return undecided[0] if undecided else None
            if isinstance(step, Locate) and not self._declared:
                return self._locate_seat()
        owing = self._owing()
        return min(owing) if owing else None

    def due(self) -> frozenset[int]:
        """The seats the table waits for now: the author of the next entry, or in the seed
        round every playing seat whose seed is not in."""
        if self.finished:
            return frozenset()
        if self.stage == "seeds":
            return frozenset(s for s in self._closers() if s not in self._seed_msgs)
        x = self.expected()
        return frozenset() if x is None else frozenset({x})

    def decision(self) -> Decision | None:
        """The decision this peer's seat must make now, if any."""
        if self.finished or self.observer or self.stage != "play" or self.private is not None:
            return None
        game = self._playing()
        step = game.step()
        if isinstance(step, Decision) and game.undecided()[:1] == (self.seat,):
            return step
        return None

    def view(self) -> SeatView | None:
        """This seat's view of the current deal (None between deals or for an observer)."""
        if self.game is None or self.seat is None:
            return None
        return SeatView(self.game, self.seat, self.match.totals if self.match else ())

    def may_vote(self) -> frozenset[int]:
        """The seats this peer may vote against now, if its clock has seen them silent for
        the table's timeout: seats due now, other than its own, in a table where enough
        seats play for a vote (:data:`MIN_VOTERS` voters), that it has not voted against at
        this place yet."""
        if self.finished or self.observer or sum(self.live) < MIN_VOTERS + 1:
            return frozenset()
        return frozenset(x for x in self.due() if x != self.seat and x not in self._voted)

    def may_abandon(self) -> bool:
        """Whether this peer may end the table with no winner now: in a table where nobody
        can be voted out (two playing seats), while the other seat is due."""
        if self.finished or self.observer or sum(self.live) >= MIN_VOTERS + 1:
            return False
        return any(x != self.seat for x in self.due())

    @property
    def holding(self) -> bool:
        """Whether this replica holds a late entry aside (it voted against its author here)."""
        return bool(self._held) and not self.finished

    def take_held(self, ahead: Mapping[int, Sequence[bytes]]) -> list[bytes]:
        """A voter left behind: take the entry it holds aside when the table went on past it.

        This replica voted against a seat at its current place and holds that seat's late
        entry until the vote completes or a nay shows it cannot -- but nobody answers a
        vote for a place in a deal they have closed, so a voter cut off from the table (its
        vote never reached the others) would wait for ever.  ``ahead`` holds entries for
        later places (by seq, as the runtime buffered them).  When they chain from the held
        entry up to a ``close`` whose seeds are signed by a seat other than this one and the
        held entry's author, that seat accepted the held entry and closed the deal on it:
        it never voted, the vote can never complete (a closed deal is never taken back), and
        this replica takes the entry as from a nay.  Returns what to broadcast ([] when
        ``ahead`` proves nothing).  Only the close's seeds are checked by signature: the
        hashes that chain them to the held entry commit to every entry in between, which
        the replica then checks one by one as it takes them.
        """
        if not self.holding:
            return []
        for author, raw in list(self._held.items()):
            held = own_envelope(raw)
            if held.seq != self.seq or held.prev != self.head:
                continue  # (a seed held in a seed round: its close comes in turn)
            head, seq = held.hash, held.seq + 1
            while seq - held.seq <= _MAX_HELD_CHAIN:
                nxt = None
                for cand in ahead.get(seq, ()):
                    try:
                        env = parse_message(cand, self.keys)
                    except TranscriptError:
                        continue
                    if env.table == self.table_id and env.prev == head:
                        nxt = env
                        break
                if nxt is None:
                    break
                if nxt.certificate and nxt.kind == TableKind.CLOSE:
                    if any(m.author != author for m in self._seeds_of(nxt)):
                        self._voted.discard(author)
                        self._held.pop(author, None)
                        return self.receive(raw)
                    break
                head, seq = nxt.hash, seq + 1
        return []

    def side_messages(self) -> list[bytes]:
        """The signed side messages of this replica's current place that it holds (seeds,
        votes, a silent seat's message held aside): a sync answer carries them, so that a
        peer that missed one can still close the deal or complete a vote."""
        out = list(self._seed_msgs.values())
        for votes in self._votes.values():
            out += votes.values()
        return out + list(self._held.values())

    def take_rewind(self) -> int | None:
        """The lowest seq this replica went back to since the last call (a certificate took
        the place of entries it held), or None: the runtime cuts its log file there."""
        rewound, self._rewound = self._rewound, None
        return rewound

    def take_superseded(self) -> list[bytes]:
        """This replica's own entries that the table did not accept, since the last call."""
        out, self.superseded = self.superseded, []
        return out

    def take_own_side(self) -> list[bytes]:
        """This replica's own votes and nays since the last call (to keep on disk)."""
        out, self.own_side = self.own_side, []
        return out

    # ------------------------------------------------------------------ driving
    def start(self) -> list[bytes]:
        """Messages this peer can send right away (its commitment if it is first)."""
        return self._flush()

    def decide(self, choice: Any) -> list[bytes]:
        """Apply this seat's choice; returns the messages to broadcast."""
        if self.decision() is None:
            raise LocalError("this seat has no decision to make now")
        assert self.seat is not None
        try:
            self._playing().apply(self.seat, choice)
        except IllegalChoice as exc:
            raise LocalError(f"illegal choice: {exc}") from None
        self.choices.append((self.seat, _plain(choice)))
        self._advance()
        msgs, self.outbox = self.outbox, []
        raw = self._sign(TableKind.CHOICE, {"choice": _plain(choice), "msgs": msgs})
        self._append_own(raw, msgs)
        return [raw, *self._flush(), *self._drain_side()]

    def vote(self, against: int) -> list[bytes]:
        """Vote seat ``against`` out: this peer's clock saw it silent past the timeout
        (:meth:`may_vote`).  Returns the vote (and the certificate if it completes one)."""
        if against not in self.may_vote():
            raise LocalError(f"this peer may not vote against seat {against} now")
        raw = self._sign(TableKind.VOTE, {"against": against})
        self.own_side.append(raw)
        self._voted.add(against)
        self._votes.setdefault(against, {})[self.seat] = raw  # type: ignore[index]
        return [raw, *self._maybe_outvote(against)]

    def abandon(self) -> list[bytes]:
        """End the table here, with no winner (:meth:`may_abandon`)."""
        if not self.may_abandon():
            raise LocalError("this table cannot be abandoned now")
        waiting = sorted(x for x in self.due() if x != self.seat)
        raw = self._sign(TableKind.ABANDON, {"waiting_for": waiting})
        self._append(own_envelope(raw))
        self._finish_abandoned(self.seat, waiting)
        return [raw]

    def receive(self, raw: bytes) -> list[bytes]:
        """Check and apply another peer's message; return what to broadcast now (this
        peer's own messages, certificates it wrote, and messages it relays).

        Raises :class:`Rejected` (nothing changed) for a message that is refused.
        """
        out = self._receive(raw)
        return out + self._drain_side()

    def _drain_side(self) -> list[bytes]:
        """Side messages that arrived before this replica reached their place, now due."""
        out: list[bytes] = []
        while not self.finished:
            ready = [e for e in self._ahead_side if e.slot == (self.seq, self.head)]
            if not ready:
                break
            self._ahead_side = [e for e in self._ahead_side if e.slot != (self.seq, self.head)]
            for env in ready:
                try:
                    out += self._side(env)
                except Rejected:
                    pass
        return out

    def _receive(self, raw: bytes) -> list[bytes]:
        try:
            env = parse_message(raw, self.keys)
        except TranscriptError as exc:
            raise Rejected(str(exc)) from None
        if env.table != self.table_id:
            raise Rejected("message of another table")
        if env.kind in SIDE_KINDS:
            return self._side(env)
        if env.seq < self.seq:
            return self._past(env)
        if self.finished:
            raise Rejected("the table is over")
        if env.seq > self.seq or env.prev != self.head:
            proven = self._seeds_of(env) if self._pending_cert is not None else []
            if proven:  # a close on a certificate this peer waits on: its seeds prove that chain
                return self._side(proven[0])
            raise Rejected(f"chain mismatch at seq {env.seq} (this peer is at {self.seq})")
        if env.author == self.seat and not env.certificate:
            raise Rejected("a message in this seat's name that this peer did not write")
        if env.deal != self.deal_no:
            raise Rejected(f"message for deal {env.deal} during deal {self.deal_no}", _blame(env))
        return self._accept(env)

    def restore(self, log: Sequence[bytes], side: Sequence[bytes] = ()) -> list[bytes]:
        """Rebuild this replica from its saved transcript (after a crash).

        ``log`` starts with the genesis; ``side`` holds this peer's own saved votes and
        nays.  Other seats' entries and certificates are received again; this seat's own
        entries are produced again from the same secret and choices and must come out byte
        for byte as saved.  Returns what this peer owes now that was not in the log (to
        send again: its pending entries, its seed in a seed round, its vote at this place).
        Raises :class:`SetupError` for a log that is not sound.
        """
        if not log or log[0] != self.log[0]:
            raise SetupError("the saved transcript is of another table")
        if len(self.log) != 1:
            raise LocalError("restore() must be called on a fresh replica")
        self.start()
        for seq in range(1, len(log)):
            raw = log[seq]
            if seq >= self.seq:
                try:
                    env = parse_message(raw, self.keys)
                except VersionError as exc:
                    raise SetupError(f"saved message {seq} is of another protocol version: {exc}") from None
                except TranscriptError as exc:
                    raise SetupError(f"saved message {seq} is corrupt: {exc}") from None
                if env.author == self.seat:  # a decision of this seat's (its other entries come by themselves)
                    try:
                        if env.kind == TableKind.CHOICE:
                            self.decide(env.body["choice"])
                        elif env.kind == TableKind.ABANDON:
                            self.abandon()
                    except (LocalError, KeyError) as exc:
                        raise SetupError(f"saved message {seq} is not what this seat would write: {exc}") from None
                else:
                    try:
                        self.receive(raw)
                    except Rejected as exc:
                        raise SetupError(f"saved message {seq} does not verify: {exc.reason}") from None
            if seq >= self.seq or self.log[seq] != raw:
                raise SetupError(f"saved message {seq} is not what this seat would write")
        for raw in side:
            self._restore_side(raw)
        again = list(self.log[len(log):])  # own entries the crash kept from the file
        if self.seat is not None and self.seat in self._seed_msgs:
            again.append(self._seed_msgs[self.seat])
        again += [votes[self.seat] for votes in self._votes.values() if self.seat in votes]
        return list(dict.fromkeys(again))

    # ------------------------------------------------------------------ internals: entries
    def _playing(self) -> DealState:
        assert self.game is not None, "no deal in play"
        return self.game

    def _accept(self, env: Envelope) -> list[bytes]:
        """Apply an entry for this replica's next place, all or nothing."""
        size = len(self.log)
        try:
            return self._apply_entry(env)
        except Rejected:
            if len(self.log) > size:  # refused after it entered the log: never keep it
                self._reset(size)
            raise
        except Exception as exc:  # noqa: BLE001 -- a failure here must not leave half a message applied
            self._reset(size)
            raise Rejected(f"internal error on this message: {exc!r}") from exc

    def _apply_entry(self, env: Envelope) -> list[bytes]:
        if env.certificate:
            return self._certificate(env)
        if env.kind == TableKind.ABANDON:
            return self._on_abandon(env)
        if env.kind not in ENTRY_KINDS or env.kind == TableKind.GENESIS:
            raise Rejected(f"a {env.kind!r} message is not a transcript entry", env.author)
        if not self.live[env.author]:
            raise Rejected(f"seat {env.author} was voted out: it writes nothing more", env.author)
        if self.stage == "seeds":
            raise Rejected("the deal is in its seed round: only its close comes next", env.author)
        expected = self.expected()
        if env.author != expected:
            raise Rejected(f"out of turn: seat {expected} must write the next message", env.author)
        if env.author in self._voted:
            # this peer voted against the author at this place: hold its message until the
            # vote is complete (it loses) or a nay shows it cannot be (it wins); relay it
            self._held[env.author] = env.raw
            return [env.raw]
        votes = self._votes.get(env.author)  # votes against the author here, which its message now answers
        if env.kind == TableKind.DISPUTE:
            self._on_dispute(env)
        else:
            self._apply(env)
        # votes here: answer them with a nay that carries the message -- unless this seat voted
        # itself (it took the message from another's nay, which it relays instead)
        nay = [] if not votes or self.observer or self.seat in votes else [self._sign_nay(env.seq, env.author)]
        return nay + self._flush()

    def _append(self, env: Envelope) -> None:
        self.log.append(env.raw)
        self.hashes.append(env.hash)
        self._authors.append(env.author)
        self._deals.append(env.deal)
        self.head = env.hash
        self._new_slot()

    def _append_own(self, raw: bytes, msgs: list[dict[str, Any]]) -> None:
        self._append(own_envelope(raw))
        self.deck_msgs.extend(msgs)
        self._advance()

    def _new_slot(self) -> None:
        """The chain moved on: votes, held messages and seeds of the old place are moot."""
        self._votes: dict[int, dict[int, bytes]] = {}
        self._voted: set[int] = set()
        self._held: dict[int, bytes] = {}
        self._seed_msgs: dict[int, bytes] = {}

    def _sign(self, kind: str, body: dict[str, Any]) -> bytes:
        assert self.me is not None and self.seat is not None
        return sign_message(self.me, table=self.table_id, deal=self.deal_no, seq=self.seq, prev=self.head,
                            author=self.seat, kind=kind, body=body)

    def _may_write(self) -> bool:
        return not self.finished and not self.observer and (self._hold_from is None or self.seq < self._hold_from)

    def _flush(self) -> list[bytes]:
        """Every message this peer must send now, in order: its entries in turn, then its
        seed when the deal is in its seed round."""
        out: list[bytes] = []
        while self._may_write() and self.stage != "seeds" and self.expected() == self.seat:
            if self.private is not None:  # a fault only this seat can see: dispute it now
                raw = self._sign(TableKind.DISPUTE, _dispute_body(self.private, self._pi))
                env = own_envelope(raw)
                self._on_dispute(env)
                out.append(raw)
                break
            if self.decision() is not None:
                break
            if self.stage == "play" and isinstance(self._playing().step(), Locate) and not self._declared:
                raw = self._claim_locate()
            elif self.outbox:
                msgs, self.outbox = self.outbox, []
                raw = self._sign(TableKind.DECK, {"msgs": msgs})
                self._append_own(raw, msgs)
            else:  # pragma: no cover -- expected() names us only when we owe something
                break
            out.append(raw)
        if self.stage == "seeds" and not self.finished:
            out += self._reveal_seed()
        return out

    def _claim_locate(self) -> bytes:
        step = self._playing().step()
        assert isinstance(step, Locate)
        mine = [p for p, c in self.party.hand().items() if c == step.card]
        if not mine:
            raw = self._sign(TableKind.LOCATE, {"position": None, "msgs": []})
            self._append(own_envelope(raw))
            self._locate_turn += 1
            self._advance()
            return raw
        pos = mine[0]
        self._declared = True
        self._locate_claim = (self._me_seat(), pos)
        msgs = self.party.reveal([pos])
        raw = self._sign(TableKind.LOCATE, {"position": pos, "msgs": msgs})
        self._append_own(raw, msgs)
        return raw

    def _me_seat(self) -> int:
        assert self.seat is not None
        return self.seat

    def _apply(self, env: Envelope) -> None:
        """A ``deck``, ``choice`` or ``locate`` entry in turn."""
        body = env.body
        msgs = body.get("msgs")
        if not isinstance(msgs, list) or len(msgs) > _MAX_MSGS:
            raise Rejected("a message carries a list of deck messages", env.author)
        waiting = self._waiting_kind()
        if env.kind != waiting:
            raise Rejected(f"a {waiting!r} message is due, not {env.kind!r}", env.author)
        if env.kind == TableKind.CHOICE:
            if set(body) != {"choice", "msgs"}:
                raise Rejected("malformed choice", env.author)
            try:
                self._playing().apply(env.author, body["choice"])
            except IllegalChoice as exc:
                raise Rejected(f"illegal choice: {exc}", env.author) from None
            self.choices.append((env.author, body["choice"]))
            self._advance()
        elif env.kind == TableKind.LOCATE:
            if set(body) != {"position", "msgs"}:
                raise Rejected("malformed locate", env.author)
            pos = body["position"]
            if pos is None:
                if msgs:
                    raise Rejected("a refusal to locate carries no keys", env.author)
                self._locate_turn += 1
            else:
                deck = self._playing().deck
                if type(pos) is not int or not 0 <= pos < deck.size or deck.owner[pos] != env.author:
                    raise Rejected(f"seat {env.author} does not hold position {pos!r}", env.author)
                self._declared = True
                self._locate_claim = (env.author, pos)
                self.party.reveal([pos])
        elif set(body) != {"msgs"} or not msgs:
            raise Rejected("a deck message carries deck messages", env.author)
        # from here on the message is in turn and well-formed: it enters the transcript
        self._append(env)
        author = self._pi[env.author]
        for m in msgs:
            if not isinstance(m, dict) or m.get("seat") != author:
                self._halt(_Cause("malformed", env.author, "a deck message in another seat's name", True))
                return
            try:
                self.outbox.extend(self.party.receive(m))
            except RemoteError as exc:
                if exc.private:  # only this seat sees it: it disputes the deal in its turn
                    if self.private is None:
                        self.private = exc
                    self.deck_msgs.append(m)
                    continue
                self._halt(self._public_cause(exc, env.author))
                return
            self.deck_msgs.append(m)
            self._advance()
        self._advance()

    def _public_cause(self, exc: RemoteError, author: int) -> _Cause:
        """The verdict of a fault every replica saw in the same message."""
        if isinstance(exc, DeckFault):
            return _Cause(str(exc.kind), self._parties[exc.seat], exc.reason, True)
        if isinstance(exc, UnattributedFault):
            return _Cause("unattributed", None, exc.reason, False)
        if isinstance(exc, MalformedMessage):
            return _Cause("malformed", author, exc.reason, True)
        return _Cause("malformed", author, str(exc), True)  # pragma: no cover

    def _waiting_kind(self) -> str:
        if self.stage == "play":
            step = self._playing().step()
            if isinstance(step, Decision):
                return TableKind.CHOICE
            if isinstance(step, Locate) and not self._declared:
                return TableKind.LOCATE
        return TableKind.DECK

    def _on_dispute(self, env: Envelope) -> None:
        """A seat disputes the deal in its turn: a fault only it could see.  With evidence
        of a wrong key the verdict is fixed at once; otherwise every seat reveals its seed
        and the audit decides (the seat it names, or the accuser when it finds nothing)."""
        body = env.body
        if set(body) != {"against", "reason", "evidence"} or type(body["reason"]) is not str or len(
            body["reason"]
        ) > _MAX_REASON:
            raise Rejected("a dispute is {against, reason, evidence}", env.author)
        against, evidence = body["against"], body["evidence"]
        if against is not None and (type(against) is not int or not 0 <= against < self.n or not self.live[against]):
            raise Rejected("a dispute against a seat that does not play", env.author)
        if evidence is not None and type(evidence) is not bytes:
            raise Rejected("dispute evidence is bytes", env.author)
        self._append(env)
        self._emit({"type": "dispute", "accuser": env.author, "deal": self.deal_no, "against": against,
                    "reason": body["reason"]})
        if against is not None and evidence is not None and self.party.deal_id is not None:
            fault = verify_evidence(self.setup, self.deck_msgs, self._pi[against], evidence)
            if fault is not None and fault.seat == self._pi[against]:
                self._halt(_Cause(str(fault.kind), against, f"seat {against} sealed a wrong key to seat "
                                  f"{env.author}", True))
                return
        self._halt(_Cause("dispute", env.author, body["reason"], False))

    def _on_abandon(self, env: Envelope) -> list[bytes]:
        if not self.live[env.author] or sum(self.live) >= MIN_VOTERS + 1:
            raise Rejected("only a table of two playing seats can be abandoned", env.author)
        waiting = [x for x in self.due() if x != env.author]
        if not waiting:
            raise Rejected(f"seat {env.author} abandons while nobody else is due", env.author)
        if env.body != {"waiting_for": sorted(waiting)}:
            raise Rejected("malformed abandon", env.author)
        self._append(env)
        self._finish_abandoned(env.author, sorted(waiting))
        return []

    def _finish_abandoned(self, by: int | None, waiting: list[int]) -> None:
        self.finished = True
        self.abandoned = {"by": by, "waiting_for": waiting, "deal": self.deal_no}
        self._emit({"type": "final", "winner": None, "totals": list(self.match.totals) if self.match else [],
                    "deals": self.deals_done, "transcript_hash": self.transcript_hash,
                    "abandoned": dict(self.abandoned), "voted_out": self.voted_out})

    # ------------------------------------------------------------------ internals: the deal
    def _start_deal(self) -> None:
        self._parties = tuple(s for s in range(self.n) if self.live[s])
        self._pi = {s: i for i, s in enumerate(self._parties)}
        setup = DealSetup(
            group=self.group,
            table_id=self.table_id,
            deal_number=self.deal_no,
            deck=self.spec.deck,
            signing_keys=[self.keys[s] for s in self._parties],
            sealing_keys=[self.sealing[s] for s in self._parties],
        )
        self.setup = setup
        self.deal_start = self.seq
        if self.observer:
            self.party = Party.observer(setup)
        else:
            assert self.me is not None and self.seat is not None
            seed = seed_for(self._secret, self.table_id, self.deal_no, self.head)
            self.party = Party(setup, self._pi[self.seat], seed, self.me.signing_key, self.me.sealing_key)
        self.stage = "setup"
        self.game = None
        self.deck_msgs: list[dict[str, Any]] = []
        self.choices: list[tuple[int, Any]] = []
        self._declared = False
        self._declared_ahead = 0
        self._locate_turn = 0
        self._locate_claim = None
        self.private = None
        self._cause: _Cause | None = None
        self._seed_sent = False
        #: nays (own or relayed) for places of this deal passed after a vote, by seq
        self._nays: dict[int, bytes] = {}
        #: every nay this replica took and relayed in this deal (each is relayed once)
        self._relayed: set[bytes] = set()
        self._new_slot()
        self.outbox = [] if self.observer else list(self.party.start())

    def _owing(self) -> set[int]:
        """Seats whose message the current round or operation waits for (see
        PROTOCOL.md, "Turns"): this peer's own pending messages belong to the round its
        party has just completed locally, so they come first unless a lower seat still owes
        a message of that same round; operations declared together are one round."""
        seats = self._parties
        awaiting = self.party.awaiting()
        if not self.outbox:
            owing = {seats[a.seat] for a in awaiting}
            if self.private is not None and self.party.blocked():
                owing.add(self._me_seat())
            return owing
        first = self.outbox[0]
        me = self._me_seat()
        if first.get("step") is not None:
            return {seats[a.seat] for a in awaiting if a.step is not None} | {me}
        same_round = {seats[a.seat] for a in awaiting if a.kind == first["kind"] and a.step == first.get("step")}
        return same_round | {me}

    def _locate_seat(self) -> int | None:
        """The playing seat whose turn it is to claim the located card (in seat order)."""
        players = self._parties
        return players[self._locate_turn] if self._locate_turn < len(players) else None

    def _advance(self) -> None:
        """Drive the deal until it waits for a message or a decision."""
        while not self.finished and self.stage != "seeds":
            if self.stage == "setup":
                if self.party.phase is not Phase.READY or self.outbox:
                    return
                if self.match is None:
                    assert self.party.deal_id is not None
                    self.match = self.spec.new_match(self.options, first_dealer(self.party.deal_id, self.n))
                self.game = self.match.new_deal(None)
                self.stage = "play"
                continue
            game = self._playing()
            step = game.step()
            if isinstance(step, Decision):
                undecided = game.undecided()
                if undecided and not self.live[undecided[0]]:  # a dummy: every replica plays it alike
                    dummy = undecided[0]
                    seed = self.head + len(self.choices).to_bytes(4, "big")
                    choice = _plain(dummy_choice(self.spec, game, dummy, step, seed))
                    game.apply(dummy, choice)
                    self.choices.append((dummy, choice))
                    continue
                return
            if isinstance(step, End):
                self._halt(None)
                return
            if isinstance(step, Locate) and not self._declared:
                held = self._dummy_holding(step.card)
                if held is not None:  # a dummy's cards are public: no claim needed
                    self._declared = True
                    self._locate_claim = held
                elif self._locate_seat() is None:
                    self._halt(_Cause("locate", None, f"nobody claimed {step.card}", False))
                    return
                else:
                    return
            if not self._declared:
                if self._declared_ahead:  # the party has it already, with the deal before it
                    self._declared_ahead -= 1
                else:
                    self._declare(step)
                self._declared = True
            if self.party.awaiting() or self.outbox or self.party.blocked():
                return
            for pos, card in self.party.known().items():
                if game.deck.cards[pos] is None:
                    game.deck.learn(pos, card)
            if isinstance(step, Locate):
                assert self._locate_claim is not None
                seat, pos = self._locate_claim
                if game.deck.cards[pos] != step.card:
                    self._halt(_Cause("bad-locate", seat, f"seat {seat} claimed {step.card} and showed another card",
                                      True))
                    return
            self._declared = False
            try:
                game.complete()
            except IllegalChoice as exc:
                if self.private is not None:  # a card of this seat did not open: its dispute comes
                    return
                self._halt(_Cause("unattributed", None, f"the deck did not open a card: {exc}", False))
                return

    def _dummy_holding(self, card: str) -> tuple[int, int] | None:
        game = self._playing()
        for s in self.dummies:
            for pos in game.deck.hands[s]:
                if game.deck.cards[pos] == card:
                    return s, pos
        return None

    def _declare(self, step: Any) -> None:
        """Declare the pending step to the party (positions of a dummy are dealt face up:
        a reveal instead of a deal, and a pass to a dummy is shown by its holder); a deal
        from the stock together with the deals queued after it that the game will carry out
        whatever the cards (:meth:`DealState.deals_ahead`): one round of messages."""
        party, live, pi = self.party, self.live, self._pi
        out = self.outbox
        if isinstance(step, Deal):
            if step.source < 0:
                ahead = self._playing().deals_ahead()
                for d in (step, *ahead):
                    out.extend(party.deal(d.positions, pi[d.seat]) if live[d.seat] else party.reveal(d.positions))
                self._declared_ahead = len(ahead)
            elif live[step.source] and live[step.seat]:
                out.extend(party.transfer(step.positions, pi[step.source], pi[step.seat]))
            elif live[step.source]:  # to a dummy: its holder shows the cards
                out.extend(party.reveal(step.positions))
            # from a dummy: the cards are public already
        elif isinstance(step, Reveal):
            out.extend(party.reveal(step.positions))

    # ------------------------------------------------------------------ internals: seeds and verdicts
    def _halt(self, cause: _Cause | None) -> None:
        """The deal goes to its seed round: its end (``cause`` None) or a fault."""
        if self._cause is None or (cause is not None and cause.fixed and not self._cause.fixed):
            self._cause = cause
        self.stage = "seeds"
        self.outbox = []

    def _reveal_seed(self) -> list[bytes]:
        """This seat's seed for the seed round at the current place (once per place)."""
        if self.observer or self.seat in self._seed_msgs:
            return []
        self._seed_sent = True
        seed = self.party.seed if self._committed(self._me_seat()) is not None else None
        raw = self._sign(TableKind.SEED, {"seed": seed})
        self._seed_msgs[self._me_seat()] = raw
        return [raw, *self._maybe_close()]

    def _seed_ok(self, seat: int, seed: Any) -> bool:
        """Whether ``seed`` is what ``seat`` must reveal: the seed of its commitment, or nil
        when it never committed in this deal."""
        committed = self._committed(seat)
        if committed is None:
            return seed is None
        return type(seed) is bytes and len(seed) == 32 and commitment(
            self.table_id, self.deal_no, self._pi[seat], self.group.name, seed) == committed

    def _committed(self, seat: int) -> bytes | None:
        """The commitment ``seat`` wrote into this deal's transcript, if it did."""
        party = self._pi[seat]
        for m in self.deck_msgs:
            if m.get("kind") == "commit" and m.get("seat") == party:
                commitment = m.get("commitment")
                return commitment if type(commitment) is bytes else None
        return None

    def _closers(self) -> tuple[int, ...]:
        """The seats whose seeds close this deal: those of its deck still playing."""
        return tuple(s for s in self._parties if self.live[s])

    def _maybe_close(self) -> list[bytes]:
        closers = self._closers()
        if self.stage != "seeds" or any(s not in self._seed_msgs for s in closers):
            return []
        proof = [self._seed_msgs[s] for s in closers]
        seeds = [own_envelope(m).body["seed"] for m in proof]
        raw = make_certificate(table=self.table_id, deal=self.deal_no, seq=self.seq, prev=self.head,
                               kind=TableKind.CLOSE,
                               body={"seats": list(closers), "seeds": seeds}, proof=proof)
        self._close(own_envelope(raw))
        return self._flush()  # every replica writes its own close: only the next deal's messages go out

    def _check_close(self, env: Envelope) -> None:
        if self.stage != "seeds":
            raise Rejected("a close before the deal's seed round")
        body = env.body
        closers = self._closers()
        if set(body) != {"seats", "seeds"} or body["seats"] != list(closers) or not isinstance(
            body["seeds"], list
        ) or len(env.proof) != len(closers) or len(body["seeds"]) != len(closers):
            raise Rejected("a close names every playing seat and its seed")
        for seat, seed, raw in zip(closers, body["seeds"], env.proof, strict=True):
            m = self._side_env(raw)
            if m.kind != TableKind.SEED or m.author != seat or m.slot != env.slot or m.body != {"seed": seed}:
                raise Rejected(f"a close whose proof is not seat {seat}'s seed here")
            if not self._seed_ok(seat, seed):
                raise Rejected(f"a close with a seed of seat {seat} that does not match its commitment")

    def _close(self, env: Envelope) -> None:
        """Take the close: the deal's boundary; audit it, score it, start the next."""
        self._append(env)
        seeds = {self._pi[s]: seed for s, seed in zip(env.body["seats"], env.body["seeds"], strict=True)
                 if seed is not None}
        self._verdict(seeds)

    def _verdict(self, seeds: dict[int, bytes]) -> None:
        cause = self._cause
        replay: DealState | None = None
        if cause is None:
            live = None
            if self.party.failure is None and self.private is None and not self.observer:
                live = self.party.live_record()
            replay, verdict = audit_deal(self.setup, self.deck_msgs, seeds, self._match(), self.choices, live=live)
            if verdict["seat"] is not None:
                verdict["seat"] = self._parties[verdict["seat"]] if verdict["verdict"] == "fault" else verdict["seat"]
            if verdict["verdict"] == "fault":
                replay = None
                if verdict["seat"] is None:  # the replay refused a choice: nobody to blame
                    verdict["verdict"] = "void"
        elif cause.fixed:
            kind = "vote-out" if cause.kind == "vote-out" else cause.kind
            verdict = {"verdict": "vote-out" if cause.kind == "vote-out" else "fault", "seat": cause.seat,
                       "kind": kind, "reason": cause.reason}
        else:
            report = audit(self.setup, self.deck_msgs, seeds)
            if report.fault is not None:
                f = report.fault
                seat = self._parties[f.seat]
                verdict = {"verdict": "fault", "seat": seat, "kind": str(f.kind), "reason": f.reason}
            elif cause.kind == TableKind.DISPUTE:
                verdict = {"verdict": "fault", "seat": cause.seat, "kind": "false-dispute",
                           "reason": f"seat {cause.seat} disputed a deal the audit finds clean ({cause.reason})"}
            elif cause.kind == TableKind.LOCATE and report.cards is not None:
                holder = self._holder_of(report.cards)
                verdict = {"verdict": "fault" if holder is not None else "void", "seat": holder, "kind": "locate",
                           "reason": f"seat {holder} held the card it was asked to show and said it did not"}
            else:
                verdict = {"verdict": "void", "seat": None, "kind": cause.kind,
                           "reason": f"{cause.reason}; the audit finds nobody to blame"}
        self._finish_deal(replay, verdict)

    def _holder_of(self, cards: Sequence[str]) -> int | None:
        step = self._playing().step() if self.game is not None else None
        if not isinstance(step, Locate):
            return None
        pos = list(cards).index(step.card)
        owner = self._playing().deck.owner[pos]
        return owner if owner >= 0 else None

    def _match(self) -> Match:
        if self.match is None:  # the deal ended before the first dealer was drawn
            did = self.party.deal_id
            self.match = self.spec.new_match(self.options, first_dealer(did, self.n) if did is not None else 0)
        return self.match

    def _finish_deal(self, replay: DealState | None, verdict: dict[str, Any]) -> None:
        match = self._match()
        dealer = match.dealer
        if replay is not None:
            game: DealState | None = replay
            match.record(replay)
        elif verdict["seat"] is not None:  # the seat to blame loses the deal (its renúncia rule)
            game = self.game if self.game is not None else match.new_deal(None)
            game.forfeit(verdict["seat"])
            match.record(game)
        else:
            game = None
            match.void()
        self.deals_done += 1
        over = match.finished or (self.genesis.deals is not None and self.deals_done >= self.genesis.deals)
        event = {
            "type": "deal",
            "deal": self.deal_no,
            "dealer": dealer,
            "trump": game.trump if game is not None else None,
            "result": game.result if game is not None else None,
            "audit": verdict,
            "totals": list(match.totals),
            "match_over": match.finished,
            "winner": match.winner,
        }
        self.results.append(event)
        self._emit(event)
        if over:
            self.finished = True
            self._emit({"type": "final", "winner": match.winner, "totals": list(match.totals),
                        "deals": self.deals_done, "transcript_hash": self.transcript_hash, "abandoned": None,
                        "voted_out": self.voted_out})
            return
        self.deal_no += 1
        self._start_deal()

    # ------------------------------------------------------------------ internals: certificates
    def _certificate(self, env: Envelope) -> list[bytes]:
        """A certificate for this replica's next place."""
        if env.kind == TableKind.CLOSE:
            self._check_close(env)
            self._close(env)
            return self._flush()
        if env.kind == TableKind.OUTVOTE:
            against, voters = self._check_outvote(env)
            self._take_outvote(env, against, voters)
            return self._flush()
        against = self._check_fork(env)
        self._take_fork(env, against)
        return self._flush()

    def _side_env(self, raw: bytes) -> Envelope:
        try:
            m = parse_message(raw, self.keys)
        except TranscriptError as exc:
            raise Rejected(f"a certificate whose proof does not verify: {exc}") from None
        if m.table != self.table_id or m.certificate:
            raise Rejected("a certificate whose proof is not of this table")
        return m

    def _check_outvote(self, env: Envelope) -> tuple[int, tuple[int, ...]]:
        body = env.body
        if set(body) != {"against", "voters"} or type(body["against"]) is not int:
            raise Rejected("an outvote is {against, voters}")
        against = body["against"]
        voters = tuple(s for s in range(self.n) if self.live[s] and s != against)
        if body["voters"] != list(voters) or len(voters) < MIN_VOTERS or len(env.proof) != len(voters):
            raise Rejected("an outvote needs the votes of every other playing seat")
        if against not in self.due() and against != self.seat:  # (this seat cannot argue with the others' clocks)
            raise Rejected(f"an outvote against seat {against}, which the table does not wait for")
        for voter, raw in zip(voters, env.proof, strict=True):
            m = self._side_env(raw)
            if m.kind != TableKind.VOTE or m.author != voter or m.slot != env.slot or m.body != {"against": against}:
                raise Rejected(f"an outvote whose proof is not seat {voter}'s vote here")
        return against, voters

    def _take_outvote(self, env: Envelope, against: int, voters: tuple[int, ...]) -> None:
        self._append(env)
        self.live[against] = False
        record = {"seat": against, "deal": self.deal_no, "seq": env.seq, "voters": list(voters)}
        self.outvotes.append(record)
        self._emit({"type": "vote_out", "against": against, "deal": self.deal_no, "seq": env.seq,
                    "voters": list(voters)})
        if against == self.seat:
            self._emit({"type": "voted_out", "deal": self.deal_no, "seq": env.seq})
        self._halt(_Cause("vote-out", against, f"seat {against} was silent past the timeout and was voted out "
                          f"by seats {', '.join(map(str, voters))}", True))

    def _maybe_outvote(self, against: int) -> list[bytes]:
        votes = self._votes.get(against, {})
        voters = tuple(s for s in range(self.n) if self.live[s] and s != against)
        if len(voters) < MIN_VOTERS or any(v not in votes for v in voters) or against not in self.due():
            return []
        raw = make_certificate(table=self.table_id, deal=self.deal_no, seq=self.seq, prev=self.head,
                               kind=TableKind.OUTVOTE,
                               body={"against": against, "voters": list(voters)},
                               proof=[votes[v] for v in voters])
        self._take_outvote(own_envelope(raw), against, voters)
        return [raw, *self._flush()]

    def _check_fork(self, env: Envelope) -> int:
        """A fork certificate: two conflicting messages of one author for one place."""
        body = env.body
        if set(body) != {"against"} or type(body["against"]) is not int or len(env.proof) != 2:
            raise Rejected("a fork is {against} with two messages")
        against = body["against"]
        a, b = (self._side_env(r) for r in env.proof)
        if not _conflict(a, b, against) or a.slot != env.slot:
            raise Rejected("a fork certificate whose two messages do not conflict at its place")
        return against

    def _take_fork(self, env: Envelope, against: int) -> None:
        self._append(env)
        self._emit({"type": "fork", "against": against, "deal": self.deal_no, "seq": env.seq})
        self._halt(_Cause("equivocation", against, f"seat {against} signed two different messages for seq "
                          f"{env.seq}", True))

    def _fork_cert(self, k: int, against: int, one: bytes, two: bytes) -> bytes:
        return make_certificate(table=self.table_id, deal=self._deals[k] if k < self.seq else self.deal_no, seq=k,
                                prev=self.hashes[k - 1], kind=TableKind.FORK, body={"against": against},
                                proof=sorted([one, two]))

    # ------------------------------------------------------------------ internals: the past
    def _past(self, env: Envelope) -> list[bytes]:
        """A message for a place this replica has passed: a duplicate, evidence of an
        equivocation, a certificate that takes the place of entries of the current deal, or
        stale (refused cheaply: one signature check, no replay)."""
        k = env.seq
        if env.hash == self.hashes[k]:  # (the same message signed again is the same message)
            raise Rejected(f"replayed message (seq {k}: this peer holds it already)")
        if k == 0 or env.prev != self.hashes[k - 1]:
            raise Rejected(f"a message for seq {k} on another chain (this peer is at {self.seq})")
        if env.certificate:
            if env.kind == TableKind.FORK:
                against = self._check_fork_past(env)
                return self._supersede(env, lambda fresh: fresh._take_fork(env, against))
            if env.kind == TableKind.OUTVOTE and (self._only_mine_from(k) or self._own_close_at(k)):
                # the others voted this seat out where its own message (or its close) was: it lost the place
                return self._supersede(env, lambda fresh: fresh._certificate(env))
            raise Rejected(f"a {env.kind} for seq {k}, which this peer has passed")
        if env.kind == TableKind.ABANDON and self._only_mine_from(k) and self._current_deal(k):
            # the other seat gave up waiting where this seat's own message was: it lost the place
            return self._supersede(env, lambda fresh: fresh._apply_entry(env))
        if self._authors[k] == env.author and env.kind in ENTRY_KINDS:
            if not self._current_deal(k):
                raise Rejected(f"seat {env.author} signed two messages for seq {k}, in a deal that is closed",
                               env.author)
            cert = self._fork_cert(k, env.author, self.log[k], env.raw)
            out = self._supersede(own_envelope(cert),
                                  lambda fresh: fresh._take_fork(own_envelope(cert), env.author))
            return [cert, *out]
        raise Rejected(f"replayed or stale message (seq {k}; this peer is at {self.seq})")

    def _own_close_at(self, k: int) -> bool:
        """Whether entry ``k`` is a close this replica wrote with its own seed, that nobody
        but this seat can hold: every entry after it is its own.  (A voter that voted holds
        a late seed aside, so if the others completed a vote against this seat, no other
        replica closed with its seed; such a close is this seat's alone.)"""
        if self.seat is None or self._authors[k] != TABLE or peek(self.log[k])[0] != TableKind.CLOSE:
            return False
        seats = own_envelope(self.log[k]).body.get("seats", [])
        return self.seat in seats and all(a == self.seat for a in self._authors[k + 1:])

    def _only_mine_from(self, k: int) -> bool:
        """Whether every entry from ``k`` on is this seat's own (only those can lose their place)."""
        return self.seat is not None and all(a == self.seat for a in self._authors[k:])

    def _current_deal(self, k: int) -> bool:
        return k >= self.deal_start and not self.finished

    def _check_fork_past(self, env: Envelope) -> int:
        if not self._current_deal(env.seq):
            raise Rejected(f"a fork for seq {env.seq}, in a deal that is closed")
        return self._check_fork(env)

    def _supersede(self, env: Envelope, take: Callable[[Table], Any]) -> list[bytes]:
        """Go back to ``env.seq`` (within the current deal) and take the certificate there.

        A replica that has revealed its seed for this deal goes back only when another
        playing seat has revealed its seed after the certificate (proof that the chain this
        replica is on can never close)."""
        k = env.seq
        if self._seed_sent and not self._branch_proven(env):
            self._pending_cert = env.raw
            raise Rejected(f"a certificate for seq {k}; this peer revealed its seed on another chain and waits "
                           "for proof that it cannot close")
        fresh = type(self)(self.log[0], self.spec, self.me, self._secret or None, self.group, None)
        fresh._hold_from = k  # this seat's own entry at k, if any, is what the certificate replaces
        fresh.restore(self.log[:k])
        if fresh.seq != k:  # pragma: no cover -- restore stops at k
            raise Rejected(f"cannot go back to seq {k}")
        fresh._hold_from = None
        fresh._ahead_side = list(self._ahead_side)  # (seeds of the certificate's chain among them)
        take(fresh)
        mine = [raw for raw, author in zip(self.log[k:], self._authors[k:], strict=True) if author == self.seat]
        fresh._emit = self._emit
        out = fresh._flush()
        rewound = k if self._rewound is None else min(self._rewound, k)
        superseded = self.superseded + mine
        self._adopt(fresh)
        self._rewound = rewound
        self.superseded = superseded
        return out

    def _seeds_of(self, env: Envelope) -> list[Envelope]:
        """The seeds in a close's proof, as side messages (checked), for another place."""
        if env.kind != TableKind.CLOSE or not env.certificate:
            return []
        out = []
        for raw in env.proof:
            try:
                m = self._side_env(raw)
            except Rejected:
                return []
            if m.kind == TableKind.SEED and m.slot == env.slot and m.author != self.seat:
                out.append(m)
        return out

    def _branch_proven(self, env: Envelope) -> bool:
        return any(m.prev == env.hash and m.seq == env.seq + 1 and m.author != self.seat
                   for m in self._ahead_side if m.kind == TableKind.SEED)

    def _adopt(self, fresh: Table) -> None:
        emit, rewound, superseded, own = self._emit, self._rewound, self.superseded, self.own_side
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        self._emit, self._rewound, self.superseded, self.own_side = emit, rewound, superseded, own

    def _rebuilt(self, n: int) -> Table:
        fresh = type(self)(self.log[0], self.spec, self.me, self._secret or None, self.group, None)
        fresh.restore(self.log[:n])
        return fresh

    def _reset(self, n: int) -> None:
        self._adopt(self._rebuilt(n))

    # ------------------------------------------------------------------ internals: side messages
    def _side(self, env: Envelope) -> list[bytes]:
        """A vote, nay or seed (signed, for a place of the chain)."""
        if env.author < 0 or not 0 <= env.author < self.n:
            raise Rejected("a side message from no seat")
        if env.seq > self.seq or (env.seq == self.seq and env.prev != self.head):
            if len(self._ahead_side) >= _MAX_AHEAD_SIDE:
                self._ahead_side.pop(0)
            self._ahead_side.append(env)
            pending = self._pending_cert
            if pending is not None and env.kind == TableKind.SEED:
                self._pending_cert = None
                return self.receive(pending)
            return []
        if env.seq < self.seq:
            return self._side_past(env)
        if self.finished:
            return []
        if env.kind == TableKind.SEED:
            return self._on_seed(env)
        if env.kind == TableKind.VOTE:
            return self._on_vote(env)
        return self._on_nay(env)

    def _on_seed(self, env: Envelope) -> list[bytes]:
        if self.stage != "seeds":
            raise Rejected("a seed before the deal's seed round", env.author)
        if not self.live[env.author] or set(env.body) != {"seed"} or not self._seed_ok(env.author, env.body["seed"]):
            raise Rejected(f"seat {env.author} revealed a seed that is not its commitment's", env.author)
        if env.author in self._voted:  # this peer voted against it here: held, as a late entry is
            self._held[env.author] = env.raw
            return [env.raw]
        old = self._seed_msgs.get(env.author)
        if old is None:
            self._seed_msgs[env.author] = env.raw
        return self._maybe_close()

    def _on_vote(self, env: Envelope) -> list[bytes]:
        body = env.body
        if set(body) != {"against"} or type(body["against"]) is not int:
            raise Rejected("a vote is {against}", env.author)
        against = body["against"]
        seed = self._seed_msgs.get(against) if self.stage == "seeds" and against != self.seat else None
        if seed is not None and self.live[env.author] and not self.observer and against not in self._voted:
            # this peer holds the seed the vote says is missing: it answers with a nay
            return [self._sign_nay(env.seq, against, seed)]
        if not self.live[env.author] or against == env.author or against not in self.due() or sum(
            self.live
        ) < MIN_VOTERS + 1:
            raise Rejected(f"seat {env.author} may not vote against seat {against} now", env.author)
        if against == self.seat and self.stage != "seeds":
            return []  # this seat has not written its message yet: nothing to show
        votes = self._votes.setdefault(against, {})
        votes.setdefault(env.author, env.raw)
        if self.seat == against and self.stage == "seeds" and self._me_seat() in self._seed_msgs:
            return [self._seed_msgs[self._me_seat()]]
        return self._maybe_outvote(against)

    def _on_nay(self, env: Envelope) -> list[bytes]:
        """A voter holds the silent seat's message for this place: the vote cannot complete;
        a peer that voted takes the message now."""
        body = env.body
        if set(body) != {"against", "message"} or type(body["message"]) is not bytes:
            raise Rejected("a nay is {against, message}", env.author)
        against = body["against"]
        try:
            msg = parse_message(body["message"], self.keys)
        except TranscriptError as exc:
            raise Rejected(f"a nay whose message does not verify: {exc}", env.author) from None
        if msg.author != against or msg.slot != env.slot or msg.table != self.table_id or against == env.author:
            raise Rejected("a nay whose message is not the silent seat's for this place", env.author)
        mine = self._votes.get(against, {}).get(env.author)
        if mine is not None:  # the same voter voted and nayed: evidence
            return self._equivocation(env.seq, env.author, mine, env.raw)
        if env.raw in self._relayed:
            return []  # relayed once already: relaying it again would echo it round the table for ever
        self._relayed.add(env.raw)
        self._voted.discard(against)
        self._held.pop(against, None)
        self._nays[env.seq] = env.raw
        try:
            return [env.raw, *self.receive(msg.raw)]
        except Rejected:
            return [env.raw]

    def _side_past(self, env: Envelope) -> list[bytes]:
        """A vote or nay for a place this replica has passed (cheap: no replay)."""
        k = env.seq
        if k == 0 or env.prev != self.hashes[k - 1] or env.kind == TableKind.SEED:
            return []  # stale
        if self._authors[k] == TABLE and peek(self.log[k])[0] == TableKind.CLOSE and env.kind == TableKind.VOTE:
            return [self.log[k]]  # the deal closed here: show the close (it holds every seed)
        if not self._current_deal(k):
            return []
        against = env.body.get("against")
        if env.kind == TableKind.NAY and self._authors[k] == TABLE and peek(self.log[k])[0] == TableKind.OUTVOTE:
            for vote in parse_message(self.log[k], self.keys).proof:
                v = self._side_env(vote)
                if v.author == env.author and _conflict(v, env, env.author):
                    return self._equivocation(k, env.author, vote, env.raw)
            return []
        if self._authors[k] != against:
            return []
        if env.kind == TableKind.VOTE:
            if self.seat == against:  # this seat's message holds the place: show it
                return [self.log[k]]
            nay = self._nays.get(k)
            if nay is None and not self.observer and env.author != self.seat:
                nay = self._sign_nay(k, against)
            return [nay] if nay is not None else []
        return []

    def _sign_nay(self, k: int, against: int, message: bytes | None = None) -> bytes:
        """A nay for place ``k``: ``message`` (the silent seat's message there: by default its
        entry at ``k``; in a seed round, its seed) shows that it was not silent."""
        assert self.me is not None and self.seat is not None
        prev, deal = (self.head, self.deal_no) if k == self.seq else (self.hashes[k - 1], self._deals[k])
        raw = sign_message(self.me, table=self.table_id, deal=deal, seq=k, prev=prev, author=self.seat,
                           kind=TableKind.NAY,
                           body={"against": against, "message": self.log[k] if message is None else message})
        self._nays[k] = raw
        self.own_side.append(raw)
        return raw

    def _equivocation(self, k: int, author: int, one: bytes, two: bytes) -> list[bytes]:
        if not self._current_deal(k):
            return []
        cert = self._fork_cert(k, author, one, two)
        env = own_envelope(cert)
        if k == self.seq:
            self._take_fork(env, author)
            return [cert, *self._flush()]
        return [cert, *self._supersede(env, lambda fresh: fresh._take_fork(own_envelope(cert), author))]

    def _restore_side(self, raw: bytes) -> None:
        """Put back this peer's own saved vote or nay (so that it never does both)."""
        try:
            env = parse_message(raw, self.keys)
        except TranscriptError:
            return
        if env.author != self.seat:
            return
        if env.kind == TableKind.VOTE and env.slot == (self.seq, self.head):
            against = env.body.get("against")
            if isinstance(against, int):
                self._voted.add(against)
                self._votes.setdefault(against, {})[env.author] = raw
        elif env.kind == TableKind.NAY and env.seq < self.seq and self._current_deal(env.seq):
            self._nays[env.seq] = raw


def _blame(env: Envelope) -> int | None:
    return None if env.certificate or env.author < 0 else env.author


def _is_side(raw: bytes) -> bool:
    return peek(raw)[0] in SIDE_KINDS


def _conflict(a: Envelope, b: Envelope, author: int) -> bool:
    """Whether two messages prove that ``author`` equivocated: both its, for one place,
    different; two entries, or a vote and a nay against the same seat."""
    if a.author != author or b.author != author or a.slot != b.slot or a.hash == b.hash or a.certificate:
        return False
    if a.kind in ENTRY_KINDS and b.kind in ENTRY_KINDS:
        return True
    kinds = {a.kind, b.kind}
    return kinds == {TableKind.VOTE, TableKind.NAY} and a.body.get("against") == b.body.get("against")


def _dispute_body(fault: RemoteError, pi: dict[int, int]) -> dict[str, Any]:
    parties = {i: s for s, i in pi.items()}
    against = parties.get(fault.seat) if isinstance(fault, DeckFault) else None
    evidence = fault.evidence if isinstance(fault, DeckFault) else None
    return {"against": against, "reason": str(fault)[:_MAX_REASON], "evidence": evidence}


def _plain(choice: Any) -> Any:
    """A choice as msgpack gives it back (tuples become lists)."""
    if isinstance(choice, tuple):
        return [_plain(c) for c in choice]
    return choice
