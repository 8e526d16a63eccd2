"""One deal at a table, as one replica runs it: the mental deck and the game together
(protocol/PROTOCOL.md, "Turns").

A :class:`DealRun` owns everything a deal is made of -- the seats' deck (a
:class:`~p2pcards.mental.Party`, this seat's or an observer's), the game's state once the
deck is shuffled, the deck messages and choices of its transcript, a card being located,
the fault that will decide its verdict -- and answers what the replica asks of it: whose
turn it is (:meth:`expected`), what an entry in turn does (:meth:`take`), what this seat
owes (:meth:`own_entry`), when the deal goes to its seed round (:attr:`stage`).  It
knows nothing of the chain, signatures, votes or clocks: the
:class:`~p2pcards.table.table.Table` that holds it does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from typing import Final

from p2pcards.core import (
    Choice,
    Deal,
    DealState,
    Decision,
    End,
    GameSpec,
    IllegalChoice,
    Locate,
    Plain,
    Reveal,
    Step,
    from_wire,
)
from p2pcards.identity import Identity
from p2pcards.mental import DealSetup, DeckFault, Party, Phase, RemoteError, Wire
from p2pcards.mental.kdf import commitment
from p2pcards.players import dummy_choice
from p2pcards.table.common import Cause, Rejected, public_cause
from p2pcards.table.transcript import TableKind

__all__ = ["DealRun", "Stage", "MAX_MSGS"]

#: Most deck messages one entry carries.
MAX_MSGS: Final = 64


class Stage(StrEnum):
    """Where a deal stands: its deck being made, its game played, its seeds revealed."""

    SETUP = "setup"
    PLAY = "play"
    SEEDS = "seeds"


class DealRun:
    """Deal ``number`` among ``parties`` (the playing seats, in order) seen by ``seat``
    (None: an observer).  ``live`` says which seats of the table still play (the others
    are dummies: their cards are face up and every replica decides for them);
    ``new_game(deal_id, locked)`` gives the game's state once the deck is shuffled and
    locked (``locked``: the deck as the last seat locked it).
    """

    def __init__(self, setup: DealSetup, number: int, parties: tuple[int, ...], live: Sequence[bool],
                 spec: GameSpec, new_game: Callable[[bytes, tuple[bytes, ...]], DealState], *, seat: int | None,
                 me: Identity | None, seed: bytes | None, start: int) -> None:
        self.setup = setup
        self.number = number
        self.parties = parties
        #: seat -> its party in the deck
        self.pi = {s: i for i, s in enumerate(parties)}
        self.live = list(live)
        self.spec = spec
        self._new_game = new_game
        self.seat = seat
        #: the place of the deal's first entry
        self.start = start
        if seat is None:
            self.party = Party.observer(setup)
        else:
            assert me is not None and seed is not None
            self.party = Party(setup, self.pi[seat], seed, me.signing_key, me.sealing_key)
        self.stage = Stage.SETUP
        self.game: DealState | None = None
        #: every deck message of the transcript, in order
        self.deck_msgs: list[Wire] = []
        #: every decision taken, ``(seat, choice)``, in order (the transcript carries each
        #: choice's plain form, :meth:`~p2pcards.core.Play.to_wire`)
        self.choices: list[tuple[int, Choice]] = []
        #: this seat's deck messages not written yet
        self.outbox: list[Wire] = [] if seat is None else list(self.party.start())
        #: the first fault only this seat saw (it disputes it in its turn)
        self.private: RemoteError | None = None
        #: why the deal went to its seed round before its end (None: its end)
        self.cause: Cause | None = None
        self._declared = False
        self._declared_ahead = 0
        self._locate_turn = 0
        self._locate_claim: tuple[int, int] | None = None

    # ------------------------------------------------------------------ queries
    @property
    def playing(self) -> DealState:
        assert self.game is not None, "no game in play"
        return self.game

    def expected(self) -> int | None:
        """The seat that must write the next entry (None in the seed round)."""
        if self.stage == Stage.SEEDS:
            return None
        if self.stage == Stage.PLAY:
            step = self.playing.step()
            if isinstance(step, Decision):
                undecided = self.playing.undecided()
                return undecided[0] if undecided else None
            if isinstance(step, Locate) and not self._declared:
                return self._locate_seat()
        owing = self._owing()
        return min(owing) if owing else None

    def decision(self) -> Decision | None:
        """The decision this seat must make now, if any."""
        if self.seat is None or self.stage != Stage.PLAY or self.private is not None:
            return None
        step = self.playing.step()
        if isinstance(step, Decision) and self.playing.undecided()[:1] == (self.seat,):
            return step
        return None

    def closers(self) -> tuple[int, ...]:
        """The seats whose seeds close this deal: those of its deck still playing."""
        return tuple(s for s in self.parties if self.live[s])

    def waited_for(self, author: int) -> list[int]:
        """The seats an ``abandon`` by ``author`` names as waited for now, from the chain alone
        so that every replica names the same: the author of the next entry, or in the seed
        round every other seat whose seed closes the deal -- seeds travel beside the chain, so
        which ones the abandoning seat had is not on it (its own was sent, another's may have
        crossed the abandon)."""
        if self.stage == Stage.SEEDS:
            return sorted(s for s in self.closers() if s != author)
        x = self.expected()
        return [] if x is None or x == author else [x]

    def committed(self, seat: int) -> bytes | None:
        """The commitment ``seat`` wrote into this deal's transcript, if it did."""
        party = self.pi[seat]
        for m in self.deck_msgs:
            if m.get("kind") == "commit" and m.get("seat") == party:
                value = m.get("commitment")
                return value if type(value) is bytes else None
        return None

    def seed_ok(self, seat: int, seed: object) -> bool:
        """Whether ``seed`` is what ``seat`` must reveal: the seed of its commitment, or nil
        when it never committed in this deal."""
        committed = self.committed(seat)
        if committed is None:
            return seed is None
        return type(seed) is bytes and len(seed) == 32 and commitment(
            self.setup.table_id, self.number, self.pi[seat], self.setup.group.name, seed) == committed

    def own_seed(self) -> bytes | None:
        """What this seat reveals in the seed round (nil when it never committed)."""
        assert self.seat is not None
        return self.party.seed if self.committed(self.seat) is not None else None

    def locked_deck(self) -> tuple[bytes, ...]:
        """The deck as the last seat locked it (empty before the lock round is over)."""
        for m in reversed(self.deck_msgs):
            if m.get("kind") == "lock":
                deck = m.get("deck")  # a list of bytes: the party checked the lock
                return tuple(deck) if isinstance(deck, list) else ()
        return ()

    def waiting_kind(self) -> TableKind:
        """The kind of entry due now."""
        if self.stage == Stage.PLAY:
            step = self.playing.step()
            if isinstance(step, Decision):
                return TableKind.CHOICE
            if isinstance(step, Locate) and not self._declared:
                return TableKind.LOCATE
        return TableKind.DECK

    # ------------------------------------------------------------------ entries
    def take(self, kind: str, author: int, body: Mapping[str, object], head: bytes) -> list[object]:
        """Check a ``deck``, ``choice`` or ``locate`` entry in turn and apply its decision
        (:class:`Rejected`, with nothing changed, if it does not fit; ``head``: the chain
        head before it).  Returns its deck messages, for :meth:`deck_messages` once the
        entry has entered the transcript."""
        msgs = body.get("msgs")
        if not isinstance(msgs, list) or len(msgs) > MAX_MSGS:
            raise Rejected("a message carries a list of deck messages", author)
        waiting = self.waiting_kind()
        if kind != waiting:
            raise Rejected(f"a {waiting!r} message is due, not {kind!r}", author)
        if kind == TableKind.CHOICE:
            if set(body) != {"choice", "msgs"}:
                raise Rejected("malformed choice", author)
            game = self.playing
            try:
                choice = self._read(body["choice"])
                game.apply(author, choice)
            except IllegalChoice as exc:
                raise Rejected(f"illegal choice: {exc}", author) from None
            self.choices.append((author, choice))
            self.advance(head)
        elif kind == TableKind.LOCATE:
            self._take_locate(author, body, msgs)
        elif set(body) != {"msgs"} or not msgs:
            raise Rejected("a deck message carries deck messages", author)
        return msgs

    def _take_locate(self, author: int, body: Mapping[str, object], msgs: list[object]) -> None:
        if set(body) != {"position", "msgs"}:
            raise Rejected("malformed locate", author)
        pos = body["position"]
        if pos is None:
            if msgs:
                raise Rejected("a refusal to locate carries no keys", author)
            self._locate_turn += 1
            return
        deck = self.playing.deck
        if type(pos) is not int or not 0 <= pos < deck.size or deck.owner[pos] != author:
            raise Rejected(f"seat {author} does not hold position {pos!r}", author)
        self._declared = True
        self._locate_claim = (author, pos)
        self.party.reveal([pos])

    def deck_messages(self, author: int, msgs: Sequence[object], head: bytes) -> None:
        """The deck messages of an entry that entered the transcript (``head``: its hash)."""
        party = self.pi[author]
        for m in msgs:
            if not isinstance(m, dict) or m.get("seat") != party:
                self.halt(Cause("malformed", author, "a deck message in another seat's name", True))
                return
            try:
                self.outbox.extend(self.party.receive(m))
            except RemoteError as exc:
                if exc.private:  # only this seat sees it: it disputes the deal in its turn
                    if self.private is None:
                        self.private = exc
                    self.deck_msgs.append(m)
                    continue
                self.halt(public_cause(exc, author, self.parties))
                return
            self.deck_msgs.append(m)
            self.advance(head)
        self.advance(head)

    def _read(self, choice: object) -> Choice:
        """``choice`` (a value, its plain form, or anything off the wire) for the pending
        decision as a value (:class:`IllegalChoice` if malformed)."""
        step = self.playing.step()
        assert isinstance(step, Decision)
        return from_wire(step.kind, choice)

    def decide(self, choice: Choice | Plain, head: bytes) -> tuple[Plain, list[Wire]]:
        """This seat's ``choice``, a value or its plain form (:class:`IllegalChoice` if the
        rules refuse it): the choice as the wire carries it and the deck messages its entry
        carries."""
        assert self.seat is not None
        value = self._read(choice)
        self.playing.apply(self.seat, value)
        self.choices.append((self.seat, value))
        self.advance(head)
        msgs, self.outbox = self.outbox, []
        return value.to_wire(), msgs

    def own_entry(self) -> tuple[TableKind, dict[str, object]] | None:
        """The entry this seat writes now, in its turn, other than a choice or a dispute:
        its deck messages, or its answer to a card being located."""
        if self.stage == Stage.PLAY and isinstance(self.playing.step(), Locate) and not self._declared:
            return TableKind.LOCATE, self._claim_locate()
        if self.outbox:
            msgs, self.outbox = self.outbox, []
            return TableKind.DECK, {"msgs": msgs}
        return None

    def took_own(self, body: Mapping[str, object], head: bytes) -> None:
        """This seat's own entry (:meth:`decide`, :meth:`own_entry`) entered the transcript."""
        msgs = body.get("msgs")
        if isinstance(msgs, list):  # (this seat's own deck messages)
            self.deck_msgs.extend(msgs)
        self.advance(head)

    def _claim_locate(self) -> dict[str, object]:
        step = self.playing.step()
        assert isinstance(step, Locate) and self.seat is not None
        mine = [p for p, c in self.party.hand().items() if c == step.card]
        if not mine:
            self._locate_turn += 1
            return {"position": None, "msgs": []}
        pos = mine[0]
        self._declared = True
        self._locate_claim = (self.seat, pos)
        return {"position": pos, "msgs": self.party.reveal([pos])}

    def check_ahead(self) -> bool:
        """Work for spare time: check one proof of the rounds that arrived unchecked (see
        :mod:`p2pcards.mental.party_rounds`); True while some remain."""
        party = self.party
        try:
            return self.stage == Stage.SETUP and party.failure is None and party.check_proof()
        except Exception:  # noqa: BLE001 -- never seen; then the lock round's end checks it again, guarded
            return False

    # ------------------------------------------------------------------ driving
    def halt(self, cause: Cause | None) -> None:
        """The deal goes to its seed round: its end (``cause`` None) or a fault (a fixed
        verdict is not replaced by one that is not)."""
        if self.cause is None or (cause is not None and cause.fixed and not self.cause.fixed):
            self.cause = cause
        self.stage = Stage.SEEDS
        self.outbox = []

    def vote_out(self, seat: int) -> None:
        """``seat`` was voted out: it closes nothing more."""
        self.live[seat] = False

    def _owing(self) -> set[int]:
        """Seats whose message the current round or operation waits for (see PROTOCOL.md,
        "Turns"): this seat's own pending messages belong to the round its party has just
        completed locally, so they come first unless a lower seat still owes a message of
        that same round; operations declared together are one round."""
        seats = self.parties
        awaiting = self.party.awaiting()
        if not self.outbox:
            owing = {seats[a.seat] for a in awaiting}
            if self.private is not None and self.party.blocked():
                assert self.seat is not None
                owing.add(self.seat)
            return owing
        first = self.outbox[0]
        assert self.seat is not None
        if first.get("step") is not None:
            return {seats[a.seat] for a in awaiting if a.step is not None} | {self.seat}
        same_round = {seats[a.seat] for a in awaiting if a.kind == first["kind"] and a.step == first.get("step")}
        return same_round | {self.seat}

    def _locate_seat(self) -> int | None:
        """The playing seat whose turn it is to claim the located card (in seat order)."""
        return self.parties[self._locate_turn] if self._locate_turn < len(self.parties) else None

    def advance(self, head: bytes) -> None:
        """Drive the deal until it waits for a message or a decision (``head``: the chain
        head now, from which a dummy's choices draw their random stream)."""
        while self.stage != Stage.SEEDS:
            if self.stage == Stage.SETUP:
                if self.party.phase is not Phase.READY or self.outbox:
                    return
                try:  # the proofs of the rounds, checked late (pipelined): here on every replica alike
                    self.party.settle()
                except DeckFault as exc:  # (blames the step's author, whoever wrote the last lock)
                    self.halt(public_cause(exc, self.parties[exc.seat], self.parties))
                    return
                assert self.party.deal_id is not None
                self.game = self._new_game(self.party.deal_id, self.locked_deck())
                self.stage = Stage.PLAY
                continue
            if not self._step(head):
                return

    def _step(self, head: bytes) -> bool:
        """One step of the game in play; False when it waits."""
        game = self.playing
        step = game.step()
        if isinstance(step, Decision):
            undecided = game.undecided()
            if undecided and not self.live[undecided[0]]:  # a dummy: every replica plays it alike
                dummy = undecided[0]
                seed = head + len(self.choices).to_bytes(4, "big")
                choice = from_wire(step.kind, dummy_choice(self.spec, game, dummy, step, seed))
                game.apply(dummy, choice)
                self.choices.append((dummy, choice))
                return True
            return False
        if isinstance(step, End):
            self.halt(None)
            return False
        if isinstance(step, Locate) and not self._declared and not self._claimed(step):
            return False
        if not self._declared:
            if self._declared_ahead:  # the party has it already, with the deal before it
                self._declared_ahead -= 1
            else:
                self._declare(step)
            self._declared = True
        if self.party.awaiting() or self.outbox or self.party.blocked():
            return False
        for pos, card in self.party.known().items():
            if game.deck.cards[pos] is None:
                game.deck.learn(pos, card)
        if isinstance(step, Locate):
            assert self._locate_claim is not None
            seat, pos = self._locate_claim
            if game.deck.cards[pos] != step.card:
                self.halt(Cause("bad-locate", seat, f"seat {seat} claimed {step.card} and showed another card", True))
                return False
        self._declared = False
        try:
            game.complete()
        except IllegalChoice as exc:
            if self.private is not None:  # a card of this seat did not open: its dispute comes
                return False
            self.halt(Cause("unattributed", None, f"the deck did not open a card: {exc}", False))
            return False
        return True

    def _claimed(self, step: Locate) -> bool:
        """Whether the card ``step`` locates is claimed without a message: a dummy holds it
        (its cards are public).  Otherwise a seat must claim it (or, when every seat said it
        does not hold it, the deal goes to its seed round and the audit names the holder)."""
        held = self._dummy_holding(step.card)
        if held is not None:
            self._declared = True
            self._locate_claim = held
            return True
        if self._locate_seat() is None:
            self.halt(Cause("locate", None, f"nobody claimed {step.card}", False))
        return False

    def _dummy_holding(self, card: str) -> tuple[int, int] | None:
        game = self.playing
        for s in range(len(self.live)):
            if self.live[s]:
                continue
            for pos in game.deck.hands[s]:
                if game.deck.cards[pos] == card:
                    return s, pos
        return None

    def _declare(self, step: Step) -> None:
        """Declare the pending step to the party (positions of a dummy are dealt face up:
        a reveal instead of a deal, and a pass to a dummy is shown by its holder); a deal
        from the stock together with the deals queued after it that the game will carry out
        whatever the cards (:meth:`DealState.deals_ahead`): one round of messages."""
        party, live, pi = self.party, self.live, self.pi
        out = self.outbox
        if isinstance(step, Deal):
            if step.source < 0:
                ahead = self.playing.deals_ahead()
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

    def holder_of(self, cards: Sequence[str]) -> int | None:
        """Who held the card being located, from the deck the audit opened (``cards``)."""
        step = self.game.step() if self.game is not None else None
        if not isinstance(step, Locate):
            return None
        pos = list(cards).index(step.card)
        owner = self.playing.deck.owner[pos]
        return owner if owner >= 0 else None

