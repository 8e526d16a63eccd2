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

Message kinds (``body`` fields): ``genesis`` (the table), ``deck`` (``msgs``: deck
protocol messages), ``choice`` (``choice``, ``msgs``), ``locate`` (``position`` or null,
``msgs``).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
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
)
from p2pcards.table.audit import audit_deal, first_dealer
from p2pcards.table.transcript import (
    Envelope,
    Genesis,
    TranscriptError,
    parse_message,
    sign_message,
)
from p2pcards.table.wire import pack

__all__ = ["Table", "TableError", "Rejected", "SetupError", "seed_for"]

_MAX_MSGS = 64


class TableError(Exception):
    """Base of the table's errors."""


class SetupError(TableError):
    """The genesis cannot be played here (unknown game, bad options, not seated...)."""


@dataclass(frozen=True)
class Rejected(TableError):
    """A received message was refused and changed nothing.

    ``blame`` is the seat whose signed message broke a rule, or None when the message
    cannot be attributed (bad signature, garbage, a replay or a fork).
    """

    reason: str
    blame: int | None = None

    def __str__(self) -> str:
        who = "unattributed" if self.blame is None else f"seat {self.blame}"
        return f"rejected ({who}): {self.reason}"


def seed_for(secret: bytes, table_id: bytes, deal: int) -> bytes:
    """A deal's seed derived from a peer's private table secret (kept in its log)."""
    return hmac.new(secret, b"p2pcards/deal-seed/v1" + table_id + deal.to_bytes(8, "big"), hashlib.sha256).digest()


class Table:
    """A peer's replica of one table (module docstring)."""

    def __init__(
        self,
        genesis_raw: bytes,
        spec: GameSpec,
        me: Identity,
        secret: bytes,
        group: Group | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
    ) -> None:
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
        if me.signing_public not in keys:
            raise SetupError("this identity has no seat at the table")
        self.seat = keys.index(me.signing_public)
        if genesis.seats[self.seat].sealing != me.sealing_public:
            raise SetupError("the table lists another sealing key for this seat")
        self.genesis = genesis
        self.table_id = genesis.table_id
        self.spec = spec
        self.me = me
        self.n = spec.seats
        self.keys = keys
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
        self._start_deal()

    # ------------------------------------------------------------------ queries
    @property
    def seq(self) -> int:
        """The sequence number of the next message."""
        return len(self.log)

    def expected(self) -> int | None:
        """The seat that must author the next message (None once the table is over)."""
        if self.finished:
            return None
        if self.stage == "play":
            step = self.game.step()
            if isinstance(step, Decision):
                return self.game.undecided()[0]
            if isinstance(step, Locate) and not self._declared:
                return self._locate_turn
        authors = self._owing()
        return min(authors) if authors else None

    def decision(self) -> Decision | None:
        """The decision this peer's seat must make now, if any."""
        if self.finished or self.stage != "play":
            return None
        step = self.game.step()
        if isinstance(step, Decision) and self.game.undecided()[:1] == (self.seat,):
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

    # ------------------------------------------------------------------ driving
    def start(self) -> list[bytes]:
        """Messages this peer can send right away (its commitment if it is seat 0)."""
        return self._flush()

    def decide(self, choice: Any) -> list[bytes]:
        """Apply this seat's choice; returns the messages to broadcast."""
        if self.decision() is None:
            raise LocalError("this seat has no decision to make now")
        try:
            self.game.apply(self.seat, choice)
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
        transcript.
        """
        if self.finished:
            raise Rejected("the table is over")
        try:
            env = parse_message(raw, self.keys)
        except TranscriptError as exc:
            raise Rejected(str(exc)) from None
        if env.table != self.table_id:
            raise Rejected("message of another table")
        if env.seq != self.seq or env.prev != self.head:
            if env.seq < self.seq and env.raw in self.log:
                raise Rejected(f"replayed message (seq {env.seq})")
            raise Rejected(f"chain mismatch at seq {env.seq} (this peer is at {self.seq})")
        if env.author == self.seat:
            raise Rejected("a message in this seat's name that this peer did not write")
        expected = self.expected()
        if env.author != expected:
            raise Rejected(f"out of turn: seat {expected} must write the next message", env.author)
        if env.deal != self.deal_no:
            raise Rejected(f"message for deal {env.deal} during deal {self.deal_no}", env.author)
        self._apply(env)
        return self._flush()

    def restore(self, log: list[bytes]) -> list[bytes]:
        """Rebuild this replica from its saved transcript (after a crash).

        ``log`` starts with the genesis.  Other seats' messages are received again; this
        seat's own messages are produced again from the same secret and choices and must
        come out byte for byte as saved (the deck is deterministic given the seed).
        Returns the messages this peer owes now that were not in the log (to send).
        """
        if not log or log[0] != self.log[0]:
            raise SetupError("the saved transcript is of another table")
        if len(self.log) != 1:
            raise LocalError("restore() must be called on a fresh replica")
        owed: list[bytes] = self.start()
        for seq in range(1, len(log)):
            raw = log[seq]
            try:
                env = parse_message(raw, self.keys)
            except TranscriptError as exc:
                raise SetupError(f"saved message {seq} is corrupt: {exc}") from None
            if env.author != self.seat:
                owed = self.receive(raw)
                continue
            if not owed and env.kind == "choice":
                owed = self.decide(env.body["choice"])
            if not owed or owed[0] != raw:
                raise SetupError(f"saved message {seq} is not what this seat would write")
            owed = owed[1:]
        return owed

    # ------------------------------------------------------------------ internals
    def _start_deal(self) -> None:
        setup = DealSetup(
            group=self.group,
            table_id=self.table_id,
            deal_number=self.deal_no,
            deck=self.spec.deck,
            signing_keys=self.keys,
            sealing_keys=[s.sealing for s in self.genesis.seats],
        )
        self.setup = setup
        self.party = Party(setup, self.seat, seed_for(self._secret, self.table_id, self.deal_no),
                           self.me.signing_key, self.me.sealing_key)
        self.stage = "setup"
        self.game: DealState | None = None
        self.deck_msgs: list[dict[str, Any]] = []
        self.choices: list[tuple[int, Any]] = []
        self._declared = False
        self._locate_turn = 0
        self._locate_claim: tuple[int, int] | None = None
        self.outbox: list[dict[str, Any]] = list(self.party.start())

    def _owing(self) -> set[int]:
        """Seats whose message the current round or operation waits for.

        This peer's own pending messages (its outbox) belong to the round the party has
        just completed locally, so they come first unless a lower seat still owes a
        message of that same round.
        """
        if self.stage == "seeds":
            have = self.party.revealed_seeds()
            return {s for s in range(self.n) if s not in have} | ({self.seat} if self.outbox else set())
        awaiting = self.party.awaiting()
        if not self.outbox:
            return {a.seat for a in awaiting}
        first = self.outbox[0]
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
        out: list[bytes] = []
        while not self.finished and self.expected() == self.seat and self.decision() is None:
            if self.stage == "play" and isinstance(self.game.step(), Locate) and not self._declared:
                raw = self._claim_locate()
            elif self.outbox:
                msgs, self.outbox = self.outbox, []
                raw = self._sign("deck", {"msgs": msgs})
                self._after_own(raw, msgs)
            else:  # pragma: no cover -- expected() names us only when we owe something
                break
            out.append(raw)
        return out

    def _claim_locate(self) -> bytes:
        step = self.game.step()
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
                self.game.apply(env.author, body["choice"])
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
                deck = self.game.deck
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
            step = self.game.step()
            if isinstance(step, Decision):
                return "choice"
            if isinstance(step, Locate) and not self._declared:
                return "locate"
        return "deck"

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
            step = self.game.step()
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
                self._declare(step)
                self._declared = True
            if self.party.awaiting() or self.outbox:
                return
            for pos, card in self.party.known().items():
                if self.game.deck.cards[pos] is None:
                    self.game.deck.learn(pos, card)
            if isinstance(step, Locate):
                assert self._locate_claim is not None
                seat, pos = self._locate_claim
                if self.game.deck.cards[pos] != step.card:
                    self._deck_fault(seat, f"seat {seat} claimed {step.card} and showed another card")
                    return
            self._declared = False
            try:
                self.game.complete()
            except IllegalChoice as exc:
                self._deck_fault(None, f"the deck did not open a card: {exc}")
                return

    def _declare(self, step: Any) -> None:
        party = self.party
        if isinstance(step, Deal):
            if step.source < 0:
                self.outbox.extend(party.deal(step.positions, step.seat))
            else:
                self.outbox.extend(party.transfer(step.positions, step.source, step.seat))
        elif isinstance(step, Reveal):
            self.outbox.extend(party.reveal(step.positions))

    def _audit(self) -> None:
        assert self.match is not None
        replay, verdict = audit_deal(self.setup, self.deck_msgs, self.party.revealed_seeds(), self.match,
                                     self.choices)
        self._finish_deal(replay, verdict)

    def _finish_deal(self, replay: DealState | None, verdict: dict[str, Any]) -> None:
        assert self.match is not None or replay is None
        if self.match is None:  # a fault before the first dealer was drawn
            self.match = self.spec.new_match(self.options, 0)
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


def _plain(choice: Any) -> Any:
    """A choice as msgpack gives it back (tuples become lists)."""
    if isinstance(choice, tuple):
        return [_plain(c) for c in choice]
    return choice


def encode_log(log: list[bytes]) -> bytes:
    """A transcript as one msgpack array of messages (for files)."""
    return pack(log)
