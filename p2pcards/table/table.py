"""One seated peer's replica of a table: transcript, game and mental deck together (sans-IO).

Feed it every message the other peers send (:meth:`Table.receive`); it validates the
message (shape, signature, table, sequence and chain link, author in turn, the game's
public rules, the deck's checks), applies it, and returns the messages this peer must
broadcast now.  When this peer's seat must decide, :meth:`Table.decision` says so and
:meth:`Table.decide` takes the choice.  Nothing here does I/O or keeps time.

**Turns.**  The transcript is strictly sequential: at every point exactly one seat may
author the next message, and every replica computes which from the state alone -- no
coordinator.  Phases where several seats act (commitments, the deal's keys, Copas passing,
the seed reveal) are taken in seat order.  A message names its place (``seq``) and the
hash of the message before it (``prev``), so a replayed or forked message is refused, and
a peer that told different peers different things is caught at its next message.

**A deal** runs: commitments, shuffle and lock rounds (the mental deck), then the game's
steps turned into deck operations -- a :class:`~p2pcards.core.game.Deal` is sealed keys
from every other seat (or a transfer), a :class:`~p2pcards.core.game.Reveal` the holder's
keys, a decision the deciding seat's ``choice`` (a play carries its reveal in the same
message), a :class:`~p2pcards.core.game.Locate` a round in seat order until the holder
claims the card.  At the end every seat reveals its seed; each replica audits the deck,
replays the deal through the rules with every card known, and commits the audited result
to the match (a renúncia found by the replay decides the deal as RULES.md says; a deck
fault voids it and names the seat).

**A silent seat is voted out.**  The runtime keeps time, not the Table: when the seat
the table waits for has been silent past the table timeout, the runtime asks
:meth:`Table.may_open_vote` and, if this peer's seat is the lowest other seat, opens a vote
with :meth:`Table.vote_out`, naming a bot with fresh keys.  Every other seat then votes
in seat order (each replica writes its vote as soon as its turn comes: the vote is part of
the transcript's turns, and nothing else may be written meanwhile).  The last vote voids
the deal (``Match.void``: no score, the dealer rotates) and from the next deal on the seat
is verified with the bot's keys.  A late message of the silent seat loses to the vote: the
opening vote takes the seq where the silent seat was due, and a replica that had accepted
the silent seat's message there (and whatever followed it) goes back to that seq and takes
the vote instead (:meth:`take_rewind` tells the runtime how far, so that it cuts its log
file).  The outcome depends only on which messages exist, never on the order they arrive
(save where the silent seat's message ended the table: a finished replica takes nothing
more).  The replica of the seat voted out stops (``voted_out``).

**Restore.**  :meth:`Table.restore` rebuilds a replica from its saved transcript and
secret; a replica that takes a voted-out seat (``seat=`` given, an identity not in the
genesis) follows the transcript publicly (:func:`~p2pcards.table.audit.replay_transcript`)
up to the vote that gives it the seat, then plays from the next deal.

**Nothing refused enters the log.**  :meth:`Table.receive` checks and applies in one step;
a refusal found after the message started to apply (or any failure of this code) puts the
replica back, rebuilt from its transcript without the message, before ``Rejected`` is
raised.

Message kinds (``body`` fields): ``genesis`` (the table), ``deck`` (``msgs``: deck
protocol messages), ``choice`` (``choice``, ``msgs``), ``locate`` (``position`` or null,
``msgs``), ``vote`` (``against``, ``bot``), ``fault`` (``against``, ``evidence``).

**A wrong key sealed to one seat** is seen by that seat alone.  It writes a ``fault``
message at once, right after the message that carried the key, with the sender's signed
plaintext as evidence (:func:`p2pcards.mental.verify_evidence`); a valid claim takes that
seq whatever else was written there (like a vote), and the deal is void with the sender
named.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

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
from p2pcards.identity import Identity
from p2pcards.mental import (
    DealSetup,
    DeckFault,
    Group,
    LocalError,
    Party,
    Phase,
    RemoteError,
    Ristretto255,
    verify_evidence,
)
from p2pcards.table.audit import (
    Replacement,
    audit_deal,
    first_dealer,
    replay_transcript,
    vote_out_verdict,
)
from p2pcards.table.transcript import (
    Envelope,
    Genesis,
    SeatInfo,
    TranscriptError,
    VoteBody,
    message_hash,
    parse_message,
    sign_message,
    vote_opener,
    vote_order,
)
from p2pcards.table.wire import FrameError, unpack

__all__ = ["Table", "TableError", "Rejected", "SetupError", "Replacement", "seed_for"]

_MAX_MSGS = 64


class TableError(Exception):
    """Base of the table's errors."""


class SetupError(TableError):
    """The genesis cannot be played here (unknown game, bad options, not seated...)."""


class Rejected(TableError):
    """A received message was refused and changed nothing.

    ``blame`` is the seat whose signed message broke a rule, or None when the message
    cannot be attributed (bad signature, garbage, a replay or a fork).
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


@dataclass
class _Vote:
    """A vote under way: against whom, from which seq, the bot it names, who votes."""

    against: int
    slot: int
    bot: SeatInfo
    voters: tuple[int, ...]
    cast: int = 0

    @property
    def next_voter(self) -> int:
        return self.voters[self.cast]


def seed_for(secret: bytes, table_id: bytes, deal: int) -> bytes:
    """A deal's seed derived from a peer's private table secret (kept in its log)."""
    return hmac.new(secret, b"p2pcards/deal-seed/v1" + table_id + deal.to_bytes(8, "big"), hashlib.sha256).digest()


class Table:
    """A peer's replica of one table (module docstring)."""

    #: This peer's deck messages not sent yet (set for each deal by :meth:`_start_deal`).
    outbox: list[dict[str, Any]]

    def __init__(
        self,
        genesis_raw: bytes,
        spec: GameSpec,
        me: Identity,
        secret: bytes,
        group: Group | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        *,
        seat: int | None = None,
    ) -> None:
        """A replica for ``me``.  ``seat`` is needed only for a bot that takes a voted-out
        seat (its identity is not in the genesis): such a replica starts with
        :meth:`restore` of a transcript that gives it the seat."""
        try:
            env = parse_message(genesis_raw, None)
            genesis = Genesis.from_body(env.body)
        except TranscriptError as exc:
            raise SetupError(f"bad genesis: {exc}") from None
        if env.table != genesis.table_id or env.seq != 0:
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
        if me.signing_public in keys:
            self.seat = keys.index(me.signing_public)
            if seat is not None and seat != self.seat:
                raise SetupError(f"this identity holds seat {self.seat}, not seat {seat}")
            if genesis.seats[self.seat].sealing != me.sealing_public:
                raise SetupError("the table lists another sealing key for this seat")
            self._takeover = False
        elif seat is not None:
            if type(seat) is not int or not 0 <= seat < spec.seats:
                raise SetupError(f"seat {seat!r} is not a seat of this table")
            self.seat = seat
            self._takeover = True
        else:
            raise SetupError("this identity has no seat at the table")
        self.genesis = genesis
        self.table_id = genesis.table_id
        self.spec = spec
        self.me = me
        self.n = spec.seats
        #: Each seat's current keys and description (a bot's once the seat is voted out).
        self.keys = keys
        self.sealing = [s.sealing for s in genesis.seats]
        self.seat_info = list(genesis.seats)
        self.group = group or Ristretto255()
        self._secret = secret
        self._emit = on_event or (lambda ev: None)
        self.log: list[bytes] = [genesis_raw]
        self.head = env.hash
        self.match: Match | None = None
        self.deal_no = 0
        self.deals_done = 0
        self.finished = False
        self.results: list[dict[str, Any]] = []
        self.vote: _Vote | None = None
        #: Completed votes, in order.
        self.replacements: list[Replacement] = []
        #: True once this seat has been voted out (the replica then stops).
        self.voted_out = False
        self._rewound: int | None = None
        #: fault claims this replica wrote and has not handed out yet (see _claim_fault)
        self._claims: list[bytes] = []
        #: while rebuilding for a fault claim: write no message of our own from this seq on
        self._hold_from: int | None = None
        self.game: DealState | None = None
        self.stage = "takeover"
        if not self._takeover:
            self._start_deal()

    # ------------------------------------------------------------------ queries
    @property
    def seq(self) -> int:
        """The sequence number of the next message."""
        return len(self.log)

    def expected(self) -> int | None:
        """The seat that must author the next message (None once the table is over)."""
        if self.finished or self._takeover:
            return None
        if self.vote is not None:
            return self.vote.next_voter
        if self.stage == "play":
            game = self._playing()
            step = game.step()
            if isinstance(step, Decision):
                return game.undecided()[0]
            if isinstance(step, Locate) and not self._declared:
                return self._locate_turn
        authors = self._owing()
        return min(authors) if authors else None

    def decision(self) -> Decision | None:
        """The decision this peer's seat must make now, if any (none while a vote is under way)."""
        if self.finished or self.stage != "play" or self.vote is not None:
            return None
        game = self._playing()
        step = game.step()
        if isinstance(step, Decision) and game.undecided()[:1] == (self.seat,):
            return step
        return None

    def view(self) -> SeatView | None:
        """This seat's view of the current deal (None between deals)."""
        if self.game is None:
            return None
        return SeatView(self.game, self.seat, self.match.totals if self.match else ())

    @property
    def transcript_hash(self) -> str:
        return self.head.hex()

    def may_open_vote(self) -> int | None:
        """The seat this peer may vote out now, if the runtime finds it silent: the seat the
        table waits for, when it is another seat and this seat is the lowest other one."""
        if self.finished or self._takeover or self.vote is not None:
            return None
        x = self.expected()
        if x is None or x == self.seat or vote_opener(x, self.n) != self.seat:
            return None
        return x

    @property
    def rewound_to(self) -> int | None:
        """The lowest seq this replica went back to since :meth:`take_rewind` was last called."""
        return self._rewound

    def take_rewind(self) -> int | None:
        """The lowest seq this replica went back to since the last call (a late message of a
        seat voted out was superseded), or None: the runtime cuts its log file there."""
        rewound, self._rewound = self._rewound, None
        return rewound

    # ------------------------------------------------------------------ driving
    def start(self) -> list[bytes]:
        """Messages this peer can send right away (its commitment if it is seat 0)."""
        self._check_ready()
        return self._flush()

    def vote_out(self, bot: SeatInfo) -> list[bytes]:
        """Open a vote against the silent seat (:meth:`may_open_vote`); ``bot`` is the new
        peer that will take the seat, with fresh keys.  Returns the messages to broadcast."""
        self._check_ready()
        x = self.may_open_vote()
        if x is None:
            raise LocalError("this peer may not open a vote now")
        if not isinstance(bot, SeatInfo) or bot.signing in self.keys or bot.sealing in self.sealing:
            raise LocalError("the bot that takes the seat needs keys of its own")
        raw = self._sign("vote", VoteBody(x, bot).to_body())
        self._record_vote(raw, x, bot)
        return [raw] + self._flush()

    def decide(self, choice: Any) -> list[bytes]:
        """Apply this seat's choice; returns the messages to broadcast."""
        if self.decision() is None:
            raise LocalError("this seat has no decision to make now")
        try:
            self._playing().apply(self.seat, choice)
        except IllegalChoice as exc:
            raise LocalError(f"illegal choice: {exc}") from None
        self.choices.append((self.seat, _plain(choice)))
        self._advance()
        msgs, self.outbox = self.outbox, []
        out = [self._sign("choice", {"choice": _plain(choice), "msgs": msgs})]
        self._after_own(out[0], msgs)
        return out + self._flush()

    def receive(self, raw: bytes) -> list[bytes]:
        """Validate and apply another peer's message; return what to broadcast now.

        Raises :class:`Rejected` (nothing changed) for a message that must not enter the
        transcript.  An opening vote for a seq this replica has already filled with the
        silent seat's message supersedes it (module docstring).
        """
        self._check_ready()
        if self.finished:
            raise Rejected("the table is over")
        try:
            env = parse_message(raw, self.keys)
        except TranscriptError as exc:
            raise Rejected(str(exc)) from None
        if env.table != self.table_id:
            raise Rejected("message of another table")
        if env.kind == "vote" and 0 < env.seq < self.seq and env.raw != self.log[env.seq]:
            return self._supersede(env)
        if env.kind == "fault" and 0 < env.seq < self.seq and env.raw != self.log[env.seq]:
            return self._supersede_by_claim(env)
        if env.seq != self.seq or env.prev != self.head:
            if env.seq < self.seq and env.raw in self.log:
                raise Rejected(f"replayed message (seq {env.seq})")
            raise Rejected(f"chain mismatch at seq {env.seq} (this peer is at {self.seq})")
        if env.author == self.seat:
            raise Rejected("a message in this seat's name that this peer did not write")
        vote: VoteBody | None = None
        if env.kind == "fault":
            if env.deal != self.deal_no:
                raise Rejected(f"a fault claim for deal {env.deal} during deal {self.deal_no}", env.author)
            accused = self._check_fault(env)
            self.log.append(env.raw)
            self.head = env.hash
            self._finish_deal(None, _bad_key_verdict(accused, env.author))
            return self._flush()
        if env.kind == "vote":
            vote = self._check_vote(env)
        else:
            expected = self.expected()
            if env.author != expected:
                if self.vote is not None and env.author == self.vote.against:
                    raise Rejected(f"seat {env.author} is being voted out; its message comes too late", env.author)
                raise Rejected(f"out of turn: seat {expected} must write the next message", env.author)
        if env.deal != self.deal_no:
            raise Rejected(f"message for deal {env.deal} during deal {self.deal_no}", env.author)
        return self._accept(env, vote)

    def restore(self, log: Sequence[bytes]) -> list[bytes]:
        """Rebuild this replica from its saved transcript (after a crash).

        ``log`` starts with the genesis.  Other seats' messages are received again; this
        seat's own messages are produced again from the same secret and choices (and, for
        an opening vote, the same bot) and must come out byte for byte as saved (the deck is
        deterministic given the seed, and so are Ed25519 signatures).  A replica that takes
        a voted-out seat first follows the transcript publicly up to the vote that gives it
        the seat.  Returns the messages this peer owes now that were not in the log (to
        send).  Raises :class:`SetupError` for a log that is not sound.
        """
        if not log or log[0] != self.log[0]:
            raise SetupError("the saved transcript is of another table")
        if len(self.log) != 1:
            raise LocalError("restore() must be called on a fresh replica")
        start = 1
        if self._takeover:
            start = self._take_over(log)
            owed = [] if self.finished else self._flush()
        else:
            owed = self.start()
        for seq in range(start, len(log)):
            raw = log[seq]
            if self.finished and not (owed and owed[0] == raw):
                raise SetupError(f"saved message {seq} comes after the end of the table")
            try:
                env = parse_message(raw, self.keys)
            except TranscriptError as exc:
                raise SetupError(f"saved message {seq} is corrupt: {exc}") from None
            if env.author != self.seat:
                try:
                    owed = self.receive(raw)
                except Rejected as exc:
                    raise SetupError(f"saved message {seq} does not verify: {exc.reason}") from None
                continue
            if not owed:
                try:
                    if env.kind == "choice":
                        owed = self.decide(env.body["choice"])
                    elif env.kind == "vote" and self.vote is None:
                        bot = VoteBody.from_body(env.body, self.n).bot
                        if bot is None:
                            raise LocalError("an opening vote without a bot")
                        owed = self.vote_out(bot)
                except (LocalError, TranscriptError, KeyError) as exc:
                    raise SetupError(f"saved message {seq} is not what this seat would write: {exc}") from None
            if not owed or owed[0] != raw:
                raise SetupError(f"saved message {seq} is not what this seat would write")
            owed = owed[1:]
        return owed

    # ------------------------------------------------------------------ internals
    def _check_ready(self) -> None:
        if self._takeover:
            raise LocalError("a replica that takes a voted-out seat starts with restore()")

    def _playing(self) -> DealState:
        """The deal in play: called only while ``stage`` is "play", when ``game`` is set."""
        assert self.game is not None, "no deal in play"
        return self.game

    def _accept(self, env: Envelope, vote: VoteBody | None) -> list[bytes]:
        """Apply a message that passed the envelope and turn checks, all or nothing."""
        size = len(self.log)
        try:
            if vote is not None:
                self._record_vote(env.raw, vote.against, vote.bot)
            else:
                self._apply(env)
            return self._flush()
        except Rejected:
            if len(self.log) > size:  # refused after it entered the log: never keep it
                self._reset(size)
            raise
        except Exception as exc:  # noqa: BLE001 -- a failure here must not leave half a message applied
            self._reset(size)
            raise Rejected(f"internal error on this message: {exc!r}") from exc

    def _check_vote(self, env: Envelope) -> VoteBody:
        """The checks of a vote at this replica's next seq (PROTOCOL.md, "Voting a silent seat out")."""
        try:
            vote = VoteBody.from_body(env.body, self.n)
        except TranscriptError as exc:
            raise Rejected(f"malformed vote: {exc}", env.author) from None
        if self.vote is None:
            x = self.expected()
            if vote.against != x:
                raise Rejected(f"a vote against seat {vote.against}, but the table waits for seat {x}", env.author)
            opener = vote_opener(x, self.n)
            if env.author != opener:
                raise Rejected(f"only seat {opener} may open a vote against seat {x}", env.author)
            if vote.bot is None:
                raise Rejected("an opening vote names the bot that takes the seat", env.author)
            if vote.bot.signing in self.keys or vote.bot.sealing in self.sealing:
                raise Rejected("the bot's keys are already seated", env.author)
            return vote
        if vote.against != self.vote.against:
            raise Rejected(f"a vote against seat {vote.against} while seat {self.vote.against} is voted on",
                           env.author)
        if env.author != self.vote.next_voter:
            raise Rejected(f"out of turn: seat {self.vote.next_voter} votes next", env.author)
        if vote.bot is not None:
            raise Rejected("only the opening vote names a bot", env.author)
        return vote

    def _record_vote(self, raw: bytes, against: int, bot: SeatInfo | None) -> None:
        """Put a checked vote (received or our own) in the transcript."""
        self.log.append(raw)
        self.head = message_hash(raw)
        if self.vote is None:
            assert bot is not None
            self.vote = _Vote(against, len(self.log) - 1, bot, vote_order(against, self.n))
        self.vote.cast += 1
        if self.vote.cast == len(self.vote.voters):
            self._complete_vote(len(self.log) - 1)

    def _complete_vote(self, seq: int) -> None:
        """Every other seat has voted: the seat goes to the bot, the deal is void."""
        vote = self.vote
        assert vote is not None
        self.vote = None
        x = vote.against
        rep = Replacement(x, self.deal_no, vote.slot, seq, vote.voters, vote.bot, self.keys[x])
        self.replacements.append(rep)
        self.keys[x], self.sealing[x], self.seat_info[x] = vote.bot.signing, vote.bot.sealing, vote.bot
        info = rep.to_json()
        self._emit({"type": "vote_out", "against": x, **{k: v for k, v in info.items() if k != "seat"}})
        if x == self.seat and rep.old_signing == self.me.signing_public:
            self.voted_out = True
            self.finished = True
            self._emit({"type": "voted_out", "deal": self.deal_no, "seq": vote.slot})
            return
        self._finish_deal(None, vote_out_verdict(x, vote.voters))

    def _supersede(self, env: Envelope) -> list[bytes]:
        """An opening vote for a seq this replica filled with the silent seat's message."""
        k = env.seq
        if env.prev != message_hash(self.log[k - 1]):
            raise Rejected(f"chain mismatch at seq {k} (this peer is at {self.seq})")
        try:
            vote = VoteBody.from_body(env.body, self.n)
            held = unpack(self.log[k])
        except (TranscriptError, FrameError) as exc:
            raise Rejected(f"malformed vote: {exc}", env.author) from None
        if not isinstance(held, dict) or held.get("kind") == "vote" or held.get("author") != vote.against:
            raise Rejected(f"a vote at seq {k}, where this peer holds another seat's message")
        if env.author != vote_opener(vote.against, self.n) or vote.bot is None or vote.against == env.author:
            raise Rejected(f"seat {env.author} may not open a vote against seat {vote.against}", env.author)
        if vote.against == self.seat:
            # the others vote this seat out where its own message was due: it stops here
            self.voted_out = True
            self.finished = True
            self._emit({"type": "voted_out", "deal": env.deal, "seq": k})
            return []
        try:
            fresh = self._rebuilt(k)
        except SetupError as exc:
            raise Rejected(f"cannot go back to seq {k}: {exc}") from None
        if fresh.seq != k:
            raise Rejected(f"a vote against seat {vote.against} at seq {k}, where this seat was due", env.author)
        return self._take_on(fresh, env)

    def _supersede_by_claim(self, env: Envelope) -> list[bytes]:
        """A fault claim for a seq this replica filled with another message: a valid claim
        about the message before it takes that seq."""
        k = env.seq
        if env.prev != message_hash(self.log[k - 1]):
            raise Rejected(f"chain mismatch at seq {k} (this peer is at {self.seq})")
        fresh = type(self)(self.log[0], self.spec, self.me, self._secret, self.group, None, seat=self.seat)
        fresh._hold_from = k  # this seat's own message at seq k, if any, is what the claim replaces
        try:
            fresh.restore(self.log[:k])
        except SetupError as exc:
            raise Rejected(f"cannot go back to seq {k}: {exc}") from None
        if fresh.seq != k:  # pragma: no cover -- restore stops at k
            raise Rejected(f"cannot go back to seq {k}")
        fresh._hold_from = None
        return self._take_on(fresh, env)

    def _take_on(self, fresh: Table, env: Envelope) -> list[bytes]:
        """Take ``env`` on ``fresh`` (this replica gone back to its seq) and become it."""
        k = env.seq
        fresh._emit = self._emit
        out = fresh.receive(env.raw)  # Rejected: this replica is left as it was
        rewound = k if self._rewound is None else min(self._rewound, k)
        self._adopt(fresh)
        self._rewound = rewound
        return out

    def _rebuilt(self, n: int) -> Table:
        """A fresh replica restored from the first ``n`` messages of this one's transcript
        (its events are not emitted again)."""
        fresh = type(self)(self.log[0], self.spec, self.me, self._secret, self.group, None, seat=self.seat)
        fresh.restore(self.log[:n])
        return fresh

    def _adopt(self, fresh: Table) -> None:
        emit, rewound = self._emit, self._rewound
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)
        self._emit, self._rewound = emit, rewound

    def _reset(self, n: int) -> None:
        """Put this replica back to its first ``n`` messages."""
        fresh = self._rebuilt(n)
        self._adopt(fresh)

    def _take_over(self, log: Sequence[bytes]) -> int:
        """Follow ``log`` publicly up to the vote that gives this seat to this identity;
        start the next deal.  Returns how many messages were taken."""
        rep = replay_transcript(log, spec=self.spec, group=self.group, until=(self.seat, self.me.signing_public))
        if rep.error is not None:
            raise SetupError(f"saved message {rep.error['seq']} does not verify: {rep.error['reason']}")
        if not rep.installed:
            raise SetupError(f"the transcript does not give seat {self.seat} to this identity")
        if rep.sealing[self.seat] != self.me.sealing_public:
            raise SetupError("the vote names another sealing key for this seat")
        assert rep.match is not None
        self.log = list(log[: rep.count])
        self.head = rep.head
        self.keys, self.sealing, self.seat_info = list(rep.keys), list(rep.sealing), list(rep.seats)
        self.replacements = list(rep.replacements)
        self.match = rep.match
        self.deals_done = rep.deals_done
        self.deal_no = rep.next_deal
        self.results = list(rep.events)
        self._takeover = False
        if rep.finished:
            self.finished = True
        else:
            self._start_deal()
        return rep.count

    def _start_deal(self) -> None:
        setup = DealSetup(
            group=self.group,
            table_id=self.table_id,
            deal_number=self.deal_no,
            deck=self.spec.deck,
            signing_keys=self.keys,
            sealing_keys=self.sealing,
        )
        self.setup = setup
        self.party = Party(setup, self.seat, seed_for(self._secret, self.table_id, self.deal_no),
                           self.me.signing_key, self.me.sealing_key)
        self.stage = "setup"
        self.game = None
        self.deck_msgs: list[dict[str, Any]] = []
        self.choices: list[tuple[int, Any]] = []
        self._declared = False
        #: deals declared to the party ahead of the pending one (DealState.deals_ahead)
        self._declared_ahead = 0
        self._locate_turn = 0
        self._locate_claim: tuple[int, int] | None = None
        self.outbox = list(self.party.start())

    def _owing(self) -> set[int]:
        """Seats whose message the current round or operation waits for.

        This peer's own pending messages (its outbox) belong to the round the party has
        just completed locally, so they come first unless a lower seat still owes a
        message of that same round.  The operations declared together (:meth:`_declare`)
        are one round.
        """
        if self.stage == "seeds":
            have = self.party.revealed_seeds()
            return {s for s in range(self.n) if s not in have} | ({self.seat} if self.outbox else set())
        awaiting = self.party.awaiting()
        if not self.outbox:
            return {a.seat for a in awaiting}
        first = self.outbox[0]
        if first.get("step") is not None:  # operations declared together are one round
            return {a.seat for a in awaiting if a.step is not None} | {self.seat}
        same_round = {a.seat for a in awaiting if a.kind == first["kind"] and a.step == first.get("step")}
        return same_round | {self.seat}

    def _sign(self, kind: str, body: dict[str, Any]) -> bytes:
        return sign_message(self.me, table=self.table_id, deal=self.deal_no, seq=self.seq, prev=self.head,
                            author=self.seat, kind=kind, body=body)

    def _after_own(self, raw: bytes, msgs: list[dict[str, Any]]) -> None:
        """Record one of our own messages in the transcript."""
        self.log.append(raw)
        self.head = hashlib.sha256(raw).digest()
        self.deck_msgs.extend(msgs)
        self._advance()

    def _flush(self) -> list[bytes]:
        """Every message this peer must send now, in order."""
        out, self._claims = self._claims, []
        while self._may_write() and self.expected() == self.seat and self.decision() is None:
            if self.vote is not None:  # this seat's turn to vote
                raw = self._sign("vote", VoteBody(self.vote.against, None).to_body())
                self._record_vote(raw, self.vote.against, None)
            elif self.stage == "play" and isinstance(self._playing().step(), Locate) and not self._declared:
                raw = self._claim_locate()
            elif self.outbox:
                msgs, self.outbox = self.outbox, []
                raw = self._sign("deck", {"msgs": msgs})
                self._after_own(raw, msgs)
            else:  # pragma: no cover -- expected() names us only when we owe something
                break
            out.append(raw)
        return out

    def _may_write(self) -> bool:
        """Whether this replica may write its own messages now (not over, not held back)."""
        return not self.finished and (self._hold_from is None or self.seq < self._hold_from)

    def _claim_locate(self) -> bytes:
        step = self._playing().step()
        assert isinstance(step, Locate)
        mine = [p for p, c in self.party.hand().items() if c == step.card]
        if not mine:
            raw = self._sign("locate", {"position": None, "msgs": []})
            self.log.append(raw)
            self.head = hashlib.sha256(raw).digest()
            self._locate_turn += 1
            self._advance()
            return raw
        pos = mine[0]
        self._declared = True
        self._locate_claim = (self.seat, pos)
        msgs = self.party.reveal([pos])
        raw = self._sign("locate", {"position": pos, "msgs": msgs})
        self._after_own(raw, msgs)
        return raw

    def _apply(self, env: Envelope) -> None:
        body = env.body
        msgs = body.get("msgs")
        if not isinstance(msgs, list) or len(msgs) > _MAX_MSGS:
            raise Rejected("a message carries a list of deck messages", env.author)
        waiting = self._waiting_kind()
        if env.kind != waiting:
            raise Rejected(f"a {waiting!r} message is due, not {env.kind!r}", env.author)
        if env.kind == "choice":
            if set(body) != {"choice", "msgs"}:
                raise Rejected("malformed choice", env.author)
            try:
                self._playing().apply(env.author, body["choice"])
            except IllegalChoice as exc:
                raise Rejected(f"illegal choice: {exc}", env.author) from None
            self.choices.append((env.author, body["choice"]))
            self._advance()
        elif env.kind == "locate":
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
        self.log.append(env.raw)
        self.head = env.hash
        for m in msgs:
            if not isinstance(m, dict) or m.get("seat") != env.author:
                self._deck_fault(env.author, "a deck message in another seat's name")
                return
            try:
                self.outbox.extend(self.party.receive(m))
            except DeckFault as exc:
                if exc.evidence is not None and exc.seat == env.author:
                    self._claim_fault(exc.seat, exc.evidence)
                else:
                    self._deck_fault(exc.seat, f"{exc.kind}: {exc.reason}")
                return
            except RemoteError as exc:
                self._deck_fault(env.author, str(exc))
                return
            self.deck_msgs.append(m)
            self._advance()
        self._advance()

    def _waiting_kind(self) -> str:
        """The kind of message the transcript expects next."""
        if self.stage == "play":
            step = self._playing().step()
            if isinstance(step, Decision):
                return "choice"
            if isinstance(step, Locate) and not self._declared:
                return "locate"
        return "deck"

    def _claim_fault(self, accused: int, evidence: bytes) -> None:
        """A key sealed to this seat is wrong: only this seat can see it, so it writes a
        ``fault`` message with the signed plaintext as evidence, right after the message
        that carried the key (a valid claim takes that seq, whatever else was written
        there), and the deal is void."""
        raw = self._sign("fault", {"against": accused, "evidence": evidence})
        self.log.append(raw)
        self.head = message_hash(raw)
        self._claims.append(raw)
        self._finish_deal(None, _bad_key_verdict(accused, self.seat))

    def _check_fault(self, env: Envelope) -> int:
        """A received fault claim: about the message just before it, by the accused, which
        sealed keys to the claimant; the evidence must prove a wrong key.  Returns the
        accused seat."""
        body = env.body
        if set(body) != {"against", "evidence"} or type(body["against"]) is not int or type(
            body["evidence"]
        ) is not bytes:
            raise Rejected("a fault claim is {against, evidence}", env.author)
        accused = body["against"]
        try:
            prev = parse_message(self.log[-1], self.keys)
        except TranscriptError:  # pragma: no cover -- our own log verifies
            raise Rejected("the message before the claim does not verify") from None
        carried = prev.body.get("msgs")
        sealed_to_claimant = isinstance(carried, list) and any(
            isinstance(m, dict) and m.get("kind") in ("keys", "transfer") and m.get("to") == env.author
            for m in carried
        )
        if prev.author != accused or prev.deal != self.deal_no or not sealed_to_claimant:
            raise Rejected(f"a fault claim against seat {accused} that does not follow its keys to seat "
                           f"{env.author}", env.author)
        fault = verify_evidence(self.setup, self.deck_msgs, accused, body["evidence"])
        if fault is None or fault.seat != accused:
            raise Rejected("a fault claim whose evidence proves nothing", env.author)
        return accused

    def _deck_fault(self, seat: int | None, reason: str) -> None:
        """A fault seen at once in an accepted message: the deal is void, the seat named."""
        self._finish_deal(None, {"verdict": "fault", "seat": seat, "kind": "at-once", "reason": reason})

    def _advance(self) -> None:
        """Drive the deal until it waits for a message or a decision."""
        while not self.finished:
            if self.stage == "setup":
                if self.party.phase is not Phase.READY or self.outbox:
                    return
                if self.match is None:
                    assert self.party.deal_id is not None
                    self.match = self.spec.new_match(self.options, first_dealer(self.party.deal_id, self.n))
                self.game = self.match.new_deal(None)
                self.stage = "play"
                continue
            if self.stage == "seeds":
                if self._owing():
                    return
                self._audit()
                continue
            game = self._playing()
            step = game.step()
            if isinstance(step, Decision):
                return
            if isinstance(step, End):
                self.stage = "seeds"
                self.outbox.extend(self.party.reveal_seed())
                continue
            if isinstance(step, Locate) and not self._declared:
                if self._locate_turn >= self.n:
                    self._deck_fault(None, f"nobody claimed {step.card}")
                return
            if not self._declared:
                if self._declared_ahead:  # the party has it already, with the deal before it
                    self._declared_ahead -= 1
                else:
                    self._declare(step)
                self._declared = True
            if self.party.awaiting() or self.outbox:
                return
            for pos, card in self.party.known().items():
                if game.deck.cards[pos] is None:
                    game.deck.learn(pos, card)
            if isinstance(step, Locate):
                assert self._locate_claim is not None
                seat, pos = self._locate_claim
                if game.deck.cards[pos] != step.card:
                    self._deck_fault(seat, f"seat {seat} claimed {step.card} and showed another card")
                    return
            self._declared = False
            try:
                game.complete()
            except IllegalChoice as exc:
                self._deck_fault(None, f"the deck did not open a card: {exc}")
                return

    def _declare(self, step: Any) -> None:
        """Declare the pending step to the party; a deal from the stock together with the
        deals queued after it that the game will carry out whatever the cards
        (:meth:`DealState.deals_ahead`): each seat owes its keys for all of them in one
        message, in seat order, so the opening deal takes one message per seat."""
        party = self.party
        if isinstance(step, Deal):
            if step.source < 0:
                self.outbox.extend(party.deal(step.positions, step.seat))
                ahead = self._playing().deals_ahead()
                for later in ahead:
                    self.outbox.extend(party.deal(later.positions, later.seat))
                self._declared_ahead = len(ahead)
            else:
                self.outbox.extend(party.transfer(step.positions, step.source, step.seat))
        elif isinstance(step, Reveal):
            self.outbox.extend(party.reveal(step.positions))

    def _audit(self) -> None:
        assert self.match is not None
        # the live audit: what the party derived and checked on receipt is not done again
        # (p2pcards.mental.audit, ``live``); the offline audit (replay_transcript) does it all
        replay, verdict = audit_deal(self.setup, self.deck_msgs, self.party.revealed_seeds(), self.match,
                                     self.choices, live=self.party.live_record())
        self._finish_deal(replay, verdict)

    def _finish_deal(self, replay: DealState | None, verdict: dict[str, Any]) -> None:
        assert self.match is not None or replay is None
        if self.match is None:  # the deal ends before the first dealer was drawn (as the audit does)
            did = self.party.deal_id
            self.match = self.spec.new_match(self.options, first_dealer(did, self.n) if did is not None else 0)
        dealer = self.match.dealer
        if replay is not None:
            self.match.record(replay)
        else:
            self.match.void()
        self.deals_done += 1
        over = self.match.finished or (self.genesis.deals is not None and self.deals_done >= self.genesis.deals)
        event = {
            "type": "deal",
            "deal": self.deal_no,
            "dealer": dealer,
            "trump": replay.trump if replay is not None else None,
            "result": replay.result if replay is not None else None,
            "audit": verdict,
            "totals": list(self.match.totals),
            "match_over": self.match.finished,
            "winner": self.match.winner,
        }
        self.results.append(event)
        self._emit(event)
        if over:
            self.finished = True
            self._emit({"type": "final", "winner": self.match.winner, "totals": list(self.match.totals),
                        "deals": self.deals_done, "transcript_hash": self.transcript_hash})
            return
        self.deal_no += 1
        self._start_deal()


def _bad_key_verdict(accused: int, claimant: int) -> dict[str, Any]:
    """The verdict of a deal ended by a proven fault claim (the same at every replica)."""
    return {"verdict": "fault", "seat": accused, "kind": "bad-key",
            "reason": f"seat {accused} sealed a wrong key to seat {claimant}"}


def _plain(choice: Any) -> Any:
    """A choice as msgpack gives it back (tuples become lists)."""
    if isinstance(choice, tuple):
        return [_plain(c) for c in choice]
    return choice
