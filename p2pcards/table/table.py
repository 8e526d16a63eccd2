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

**Where it lives.**  This module holds the replica, its turns and its deals; votes, nays,
seeds and certificates (and a certificate about a place already passed) are in
:mod:`p2pcards.table.votes`, disputes and verdicts in :mod:`p2pcards.table.claims`, the
errors in :mod:`p2pcards.table.common`.

**Nothing refused enters the log**; a replica's own entries that the table did not
accept (a certificate took their place) are handed to the runtime in :attr:`superseded`.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Mapping, Sequence
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
    Group,
    LocalError,
    Party,
    Phase,
    RemoteError,
    Ristretto255,
)
from p2pcards.mental.kdf import commitment
from p2pcards.table import claims
from p2pcards.table import votes as voting
from p2pcards.table.audit import first_dealer
from p2pcards.table.common import MIN_VOTERS, Cause, Rejected, SetupError, TableError
from p2pcards.table.transcript import (
    ENTRY_KINDS,
    SIDE_KINDS,
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
#: How far past a held entry :meth:`Table.take_held` follows a chain to the deal's close.
_MAX_HELD_CHAIN: Final = 4096


def seed_for(secret: bytes, table_id: bytes, deal: int, head: bytes) -> bytes:
    """A deal's seed: from a peer's private table secret (kept with its log), the deal number
    and the chain head where the deal starts -- so a deal is never dealt twice with the same
    secrets, and a replica restored from its log derives the same seed again."""
    msg = b"p2pcards/deal-seed/v2" + table_id + deal.to_bytes(8, "big") + head
    return hmac.new(secret, msg, hashlib.sha256).digest()


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
                    if any(m.author != author for m in voting.seeds_of(self, nxt)):
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
        return [raw, *voting.maybe_outvote(self, against)]

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
                    out += voting.side(self, env)
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
            return voting.side(self, env)
        if env.seq < self.seq:
            return voting.past(self, env)
        if self.finished:
            raise Rejected("the table is over")
        if env.seq > self.seq or env.prev != self.head:
            proven = voting.seeds_of(self, env) if self._pending_cert is not None else []
            if proven:  # a close on a certificate this peer waits on: its seeds prove that chain
                return voting.side(self, proven[0])
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
            voting.restore_side(self, raw)
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
            return voting.certificate(self, env)
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
            claims.on_dispute(self, env)
        else:
            self._apply(env)
        # votes here: answer them with a nay that carries the message -- unless this seat voted
        # itself (it took the message from another's nay, which it relays instead)
        nay = [] if not votes or self.observer or self.seat in votes else [voting.sign_nay(self, env.seq, env.author)]
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
                raw = self._sign(TableKind.DISPUTE, claims.dispute_body(self.private, self._pi))
                env = own_envelope(raw)
                claims.on_dispute(self, env)
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
                self._halt(Cause("malformed", env.author, "a deck message in another seat's name", True))
                return
            try:
                self.outbox.extend(self.party.receive(m))
            except RemoteError as exc:
                if exc.private:  # only this seat sees it: it disputes the deal in its turn
                    if self.private is None:
                        self.private = exc
                    self.deck_msgs.append(m)
                    continue
                self._halt(claims.public_cause(self, exc, env.author))
                return
            self.deck_msgs.append(m)
            self._advance()
        self._advance()

    def _waiting_kind(self) -> str:
        if self.stage == "play":
            step = self._playing().step()
            if isinstance(step, Decision):
                return TableKind.CHOICE
            if isinstance(step, Locate) and not self._declared:
                return TableKind.LOCATE
        return TableKind.DECK

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
        self._cause: Cause | None = None
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
                    self._halt(Cause("locate", None, f"nobody claimed {step.card}", False))
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
                    self._halt(Cause("bad-locate", seat, f"seat {seat} claimed {step.card} and showed another card",
                                      True))
                    return
            self._declared = False
            try:
                game.complete()
            except IllegalChoice as exc:
                if self.private is not None:  # a card of this seat did not open: its dispute comes
                    return
                self._halt(Cause("unattributed", None, f"the deck did not open a card: {exc}", False))
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
    def _halt(self, cause: Cause | None) -> None:
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
            m = voting.side_env(self, raw)
            if m.kind != TableKind.SEED or m.author != seat or m.slot != env.slot or m.body != {"seed": seed}:
                raise Rejected(f"a close whose proof is not seat {seat}'s seed here")
            if not self._seed_ok(seat, seed):
                raise Rejected(f"a close with a seed of seat {seat} that does not match its commitment")

    def _close(self, env: Envelope) -> None:
        """Take the close: the deal's boundary; audit it, score it, start the next."""
        self._append(env)
        seeds = {self._pi[s]: seed for s, seed in zip(env.body["seats"], env.body["seeds"], strict=True)
                 if seed is not None}
        claims.verdict(self, seeds)

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

    # ------------------------------------------------------------------ internals: rebuilding
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


def _blame(env: Envelope) -> int | None:
    return None if env.certificate or env.author < 0 else env.author


def _is_side(raw: bytes) -> bool:
    return peek(raw)[0] in SIDE_KINDS


def _plain(choice: Any) -> Any:
    """A choice as msgpack gives it back (tuples become lists)."""
    if isinstance(choice, tuple):
        return [_plain(c) for c in choice]
    return choice
