"""The replica's core: one peer's copy of a table's transcript and deals (sans-IO).

:class:`Replica` holds the state a :class:`~p2pcards.table.table.Table` decides on -- the
chain, the seats still playing, the match, the deal in play, the votes and seeds of the
current place -- and what every input shares: the one output it assembles, the entries it
takes in turn and writes in this seat's turn, the certificates it takes whole, the seed
round, the close and the start of the next deal.  :class:`~p2pcards.table.table.Table`
adds the inputs themselves: messages received (side messages, places passed, a
certificate in place of entries), restoring from a log, and this seat's decisions.
The rules are ``protocol/PROTOCOL.md``'s, "Table messages".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from p2pcards.core import Choice, DealState, Decision, GameSpec, IllegalChoice, Match, Plain, SeatView
from p2pcards.identity import Identity
from p2pcards.mental import DealSetup, Group, LocalError, Party, Ristretto255
from p2pcards.table import certificates as certs
from p2pcards.table import claims
from p2pcards.table.abandons import Abandons, behind, check_abandon
from p2pcards.table.chain import Chain
from p2pcards.table.claims import dealer_draw, first_dealer, seeds_draw
from p2pcards.table.common import MIN_VOTERS, Cause, Rejected
from p2pcards.table.dealrun import DealRun, Stage
from p2pcards.table.events import DealClosed, Dispute, Ended, Fork, Output, TableEvent, TakenUp, VotedOut, VoteOut
from p2pcards.table.setup import open_genesis, seed_for
from p2pcards.table.silence import SeedRound, Silence
from p2pcards.table.transcript import ENTRY_KINDS, Envelope, TableKind, own_envelope, sign_message

__all__ = ["Replica"]


class Replica:
    """A peer's replica of one table: its state and what every input shares (module docstring)."""

    #: the deal in play
    run: DealRun

    def __init__(
        self,
        genesis_raw: bytes,
        spec: GameSpec,
        me: Identity | None,
        secret: bytes | None = None,
        group: Group | None = None,
    ) -> None:
        """A replica for ``me`` (None: an observer, see the module docstring)."""
        opened = open_genesis(genesis_raw, spec, me, secret)
        env, genesis = opened.env, opened.genesis
        self.options = opened.options
        self.seat: int | None = opened.seat
        keys = [s.signing for s in genesis.seats]
        self.genesis = genesis
        self.table_id = genesis.table_id
        self.spec = spec
        self.me = me
        self.n = spec.seats
        self.keys = keys
        self.sealing = [s.sealing for s in genesis.seats]
        self.group = group or Ristretto255()
        self._secret = secret or b""
        self.chain = Chain(env)
        #: seats still playing (a seat voted out is a dummy)
        self.live = [True] * self.n
        self.match: Match | None = None
        self.deal_no = 0
        self.deals_done = 0
        self.finished = False
        #: the abandons of a table of two and their takeups (``abandoned``, ``abandons``, ``takeups``)
        self.left = Abandons()
        #: one :class:`DealClosed` per closed deal
        self.results: list[DealClosed] = []
        #: completed votes: ``{"seat", "deal", "seq", "voters"}``
        self.outvotes: list[dict[str, object]] = []
        self.silence = Silence()
        self.seeds = SeedRound()
        self._out = Output()
        self._reported = 0  # entries handed to the runtime in an Output's entries
        #: side messages for a place this replica has not reached (or of another chain)
        self._ahead_side: list[Envelope] = []
        #: a certificate waiting for proof that this replica's chain cannot close
        self._pending_cert: bytes | None = None
        #: while rebuilding to take a certificate at this seq: write nothing of our own there
        self._hold_from: int | None = None
        #: while rebuilding from a log whose next entry is an abandon: write nothing of our own at its place
        self._hold_at: int | None = None
        self._start_deal()

    # ------------------------------------------------------------------ queries
    @property
    def log(self) -> list[bytes]:
        """The transcript from the genesis on."""
        return self.chain.log

    @property
    def hashes(self) -> list[bytes]:
        return self.chain.hashes

    @property
    def head(self) -> bytes:
        return self.chain.head

    @property
    def seq(self) -> int:
        """The sequence number of the next entry."""
        return self.chain.seq

    @property
    def stage(self) -> Stage:
        return self.run.stage

    @property
    def game(self) -> DealState | None:
        """The current deal's game (None until its deck is shuffled)."""
        return self.run.game

    @property
    def choices(self) -> list[tuple[int, Choice]]:
        """The decisions of the current deal."""
        return self.run.choices

    @property
    def deal_start(self) -> int:
        return self.run.start

    @property
    def party(self) -> Party:
        """This replica's side of the current deal's deck."""
        return self.run.party

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
        return None if self.finished else self.run.expected()

    def due(self) -> frozenset[int]:
        """The seats the table waits for now: the author of the next entry, or in the seed
        round every playing seat whose seed is not in."""
        if self.finished:
            return frozenset()
        if self.stage == Stage.SEEDS:
            return frozenset(self.seeds.missing(self.run.closers()))
        x = self.expected()
        return frozenset() if x is None else frozenset({x})

    def decision(self) -> Decision | None:
        """The decision this peer's seat must make now, if any."""
        if self.finished or self.observer:
            return None
        return self.run.decision()

    def view(self) -> SeatView | None:
        """This seat's view of the current deal (None between deals or for an observer)."""
        if self.game is None or self.seat is None:
            return None
        return SeatView(self.game, self.seat, self.match.totals if self.match else ())

    def may_vote(self) -> frozenset[int]:
        """The seats this peer may vote against now, if its clock has seen them silent for
        the table's timeout: seats due now but its own, where enough seats play for a vote
        (:data:`MIN_VOTERS` voters), about which it has signed nothing here (vote or nay)."""
        if self.finished or self.observer or sum(self.live) < MIN_VOTERS + 1:
            return frozenset()
        return frozenset(x for x in self.due() if x != self.seat and self.silence.signed(self.seq, x) is None)

    def may_abandon(self) -> bool:
        """Whether this peer may end the table with no winner now: two playing seats, the other due."""
        if self.finished or self.observer or sum(self.live) >= MIN_VOTERS + 1:
            return False
        return any(x != self.seat for x in self.due())

    def may_take_up(self) -> bool:
        """Whether this peer may write its ``takeup`` now: the table ended by an abandon (two
        playing seats), this seat plays and has not taken it up yet."""
        return (self.abandoned is not None and not self.observer and sum(self.live) < MIN_VOTERS + 1
                and self.seat not in self.takeups)

    @property
    def abandoned(self) -> dict[str, object] | None:
        """The abandon that ended the table, if one did (:attr:`~p2pcards.table.abandons.Abandons.ended`)."""
        return self.left.ended

    @property
    def abandons(self) -> list[dict[str, object]]:
        """Every abandon of the table, in order, with its ``seq`` and whether it was ``taken_up``."""
        return self.left.records

    @property
    def takeups(self) -> list[int]:
        """The seats whose ``takeup`` answers the abandon that ended the table, in order."""
        return self.left.takeups

    def abandon_seq(self) -> int | None:
        """The seq of the table's last ``abandon`` (None: never abandoned)."""
        return self.left.after

    def awaiting_takeup(self) -> frozenset[int]:
        """The playing seats whose ``takeup`` the abandoned table still waits for (or none)."""
        return self.left.awaiting(self.live)

    @property
    def holding(self) -> bool:
        """Whether this replica holds a late entry aside (it voted against its author here)."""
        return self.silence.holding and not self.finished

    def side_messages(self) -> list[bytes]:
        """The signed side messages of this replica's current place that it holds (seeds, votes,
        a message held aside): a sync answer carries them, for a peer that missed one."""
        return self.seeds.messages() + self.silence.side_messages()

    def check_ahead(self) -> bool:
        """Spare-time work: one proof of the rounds checked (:meth:`DealRun.check_ahead`)."""
        return self.run.check_ahead()

    # ------------------------------------------------------------------ the one output
    def _output(self, step: Callable[[], list[bytes]]) -> Output:
        """Run one input; everything it did, in one :class:`Output`."""
        try:
            send = step()
        except BaseException:
            self._out.send = []
            raise
        out, self._out = self._out, Output()
        out.send = send
        if out.rewind is not None:
            self._reported = min(self._reported, out.rewind)
        out.entries = self.log[self._reported:]
        self._reported = len(self.log)
        return out

    def _tell(self, event: TableEvent) -> None:
        self._out.events.append(event)

    def _signed(self, raw: bytes) -> None:
        self._out.signed.append(raw)

    # ------------------------------------------------------------------ driving
    def _decide(self, choice: Choice | Plain) -> list[bytes]:
        if self.decision() is None:
            raise LocalError("this seat has no decision to make now")
        try:
            plain, msgs = self.run.decide(choice, self.head)
        except IllegalChoice as exc:
            raise LocalError(f"illegal choice: {exc}") from None
        raw = self._sign(TableKind.CHOICE, {"choice": plain, "msgs": msgs})
        self._append_own(raw)
        return [raw, *self._flush(), *self._drain_side()]

    def _vote(self, against: int) -> list[bytes]:
        if against not in self.may_vote():
            raise LocalError(f"this peer may not vote against seat {against} now")
        assert self.seat is not None
        raw = self._sign(TableKind.VOTE, {"against": against})
        self._signed(raw)
        self.silence.remember(self.seq, against, TableKind.VOTE, raw)
        self.silence.add_own_vote(self.seat, against, raw)
        return [raw, *self._maybe_outvote(against)]

    def _abandon(self) -> list[bytes]:
        if not self.may_abandon():
            raise LocalError("this table cannot be abandoned now")
        waiting = self.run.waited_for(self._me_seat())
        raw = self._sign(TableKind.ABANDON, {"waiting_for": waiting})
        self._append(own_envelope(raw))
        self._finish_abandoned(self.seat, waiting)
        return [raw]

    def _takeup(self) -> list[bytes]:
        if not self.may_take_up():
            raise LocalError("this table cannot be taken up now")
        raw = self._sign(TableKind.TAKEUP, {"after": self.abandon_seq()})
        self._append(own_envelope(raw))
        self.takeups.append(self._me_seat())
        return [raw, *self._maybe_taken_up()]

    # ------------------------------------------------------------------ entries
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
        if env.kind == TableKind.TAKEUP:
            return self._on_takeup(env)
        if env.kind not in ENTRY_KINDS or env.kind == TableKind.GENESIS:
            raise Rejected(f"a {env.kind!r} message is not a transcript entry", env.author)
        if not self.live[env.author]:
            raise Rejected(f"seat {env.author} was voted out: it writes nothing more", env.author)
        if self.stage == Stage.SEEDS:
            raise Rejected("the deal is in its seed round: only its close comes next", env.author)
        expected = self.expected()
        if env.author != expected:
            raise Rejected(f"out of turn: seat {expected} must write the next message", env.author)
        if self.silence.voted(env.author):
            # this peer voted against the author at this place: hold its message until the
            # vote is complete (it loses) or a nay shows it cannot be (it wins); relay it (once)
            return [env.raw] if self.silence.hold(env.author, env.raw) else []
        votes = self.silence.votes_against(env.author)  # votes here, which its message now answers
        i_voted = self.seat is not None and self.silence.vote_of(self.seat, env.author) is not None
        if env.kind == TableKind.DISPUTE:
            self._on_dispute(env)
        else:
            msgs = self.run.take(env.kind, env.author, dict(env.body), self.head)
            self._append(env)  # from here on the message is in turn and well-formed: it is in the transcript
            self.run.deck_messages(env.author, msgs, self.head)
        # votes here: answer them with a nay that carries the message -- unless this seat voted
        # itself (it took the message from another's nay, which it relays instead)
        nay = None if not votes or self.observer or i_voted else self._sign_nay(env.seq, env.author)
        return ([nay] if nay is not None else []) + self._flush()

    def _append(self, env: Envelope) -> None:
        self.chain.append(env)
        self.silence.new_place()
        self.seeds.new_place()

    def _append_own(self, raw: bytes) -> None:
        env = own_envelope(raw)
        self._append(env)
        self.run.took_own(dict(env.body), self.head)

    def _sign(self, kind: str, body: dict[str, object], k: int | None = None) -> bytes:
        assert self.me is not None and self.seat is not None
        k = self.seq if k is None else k
        return sign_message(self.me, table=self.table_id, deal=self.chain.deal_at(k, self.deal_no), seq=k,
                            prev=self.chain.prev(k), author=self.seat, kind=kind, body=body)

    def _may_write(self) -> bool:
        return (not self.finished and not self.observer and (self._hold_from is None or self.seq < self._hold_from)
                and self.seq != self._hold_at)

    def _flush(self) -> list[bytes]:
        """Every message this peer must send now, in order: its entries in turn, then its
        seed when the deal is in its seed round."""
        out: list[bytes] = []
        while self._may_write() and self.stage != Stage.SEEDS and self.expected() == self.seat:
            if self.run.private is not None:  # a fault only this seat can see: dispute it now
                raw = self._sign(TableKind.DISPUTE, claims.dispute_body(self.run.private, self.run.pi))
                self._on_dispute(own_envelope(raw))
                out.append(raw)
                break
            if self.decision() is not None:
                break
            own = self.run.own_entry()
            if own is None:  # pragma: no cover -- expected() names us only when we owe something
                break
            raw = self._sign(*own)
            self._append_own(raw)
            out.append(raw)
        if self.stage == Stage.SEEDS and not self.finished:
            out += self._reveal_seed()
        return out

    def _on_dispute(self, env: Envelope) -> None:
        """A seat disputes the deal in its turn: a fault only it could see (claims)."""
        against, evidence, reason = claims.check_dispute(env.body, env.author, self.live)
        self._append(env)
        self._tell(Dispute(accuser=env.author, deal=self.deal_no, against=against, reason=reason))
        self.run.halt(claims.dispute_cause(self.run, env.author, against, evidence, reason))

    def _on_abandon(self, env: Envelope) -> list[bytes]:
        waiting = check_abandon(env.author, env.body, self.run.waited_for(env.author),
                                self.live[env.author] and sum(self.live) < MIN_VOTERS + 1)
        self._append(env)
        self._finish_abandoned(env.author, waiting)
        return []

    def _finish_abandoned(self, by: int | None, waiting: list[int]) -> None:
        """The table ends with no winner; what it says keeps the standing it ended in (an
        abandon never hides a loss): who abandoned, in which deal, the totals, and by how
        much the abandoning seat's side was behind (0: level or ahead)."""
        self.finished = True
        totals = list(self.match.totals) if self.match else []
        teams = self.spec.teams or tuple((s,) for s in range(self.n))
        lost = behind(by, totals, teams, self.match.lower_is_better) if self.match else 0
        ended = self.left.record(by, waiting, self.deal_no, totals, lost, self.seq - 1)
        self._tell(Ended(winner=None, totals=totals, deals=self.deals_done, transcript_hash=self.transcript_hash,
                         abandoned=ended, voted_out=self.voted_out, abandons=self.left.copies()))

    def _on_takeup(self, env: Envelope) -> list[bytes]:
        """A seat takes the abandoned table up again (both must: then play goes on)."""
        self.left.check_takeup(env.author, env.body, self.live[env.author] and sum(self.live) < MIN_VOTERS + 1)
        self._append(env)
        self.takeups.append(env.author)
        return self._maybe_taken_up()

    def _maybe_taken_up(self) -> list[bytes]:
        """Once every playing seat took the abandoned table up, the abandoned deal closes
        ``void`` (no score, the dealer rotates) and the next deal starts."""
        record = self.left.complete(self.live)
        if record is None:
            return []
        self._tell(TakenUp(deal=self.deal_no, seq=self.seq - 1, abandon=record))
        self.finished = False
        if self.match is None:  # the first deal was abandoned before its deck was locked: no seed was shown
            self._match(dict.fromkeys(self.run.parties))
        why = f"seat {record['by']} abandoned the deal; both seats took the table up again"
        self._finish_deal(None, {"verdict": "void", "seat": None, "kind": "abandon", "reason": why})
        return self._flush()

    # ------------------------------------------------------------------ certificates
    def _certificate(self, env: Envelope) -> list[bytes]:
        """A certificate for this replica's next place, checked whole, then taken."""
        if env.kind == TableKind.CLOSE:
            if self.stage != Stage.SEEDS:
                raise Rejected("a close before the deal's seed round")
            seeds = certs.check_close(env, self.keys, self.table_id, self.run.closers(), self.run.seed_ok)
            self._close(env, seeds)
        elif env.kind == TableKind.OUTVOTE:
            against, voters = certs.check_outvote(env, self.keys, self.table_id, self.live,
                                                  lambda x: x in self.due() or x == self.seat)
            self._take_outvote(env, against, voters)
        else:
            self._take_fork(env, certs.check_fork(env, self.keys, self.table_id))
            return [env.raw, *self._flush()]  # shown to every seat: the seat that forked may not show it to all
        return self._flush()

    def _take_outvote(self, env: Envelope, against: int, voters: tuple[int, ...]) -> None:
        self._append(env)
        self.live[against] = False
        self.run.vote_out(against)
        self.outvotes.append({"seat": against, "deal": self.deal_no, "seq": env.seq, "voters": list(voters)})
        self._tell(VoteOut(against=against, deal=self.deal_no, seq=env.seq, voters=list(voters)))
        if against == self.seat:
            self._tell(VotedOut(deal=self.deal_no, seq=env.seq))
        self.run.halt(Cause("vote-out", against, f"seat {against} was silent past the timeout and was voted out "
                                                 f"by seats {', '.join(map(str, voters))}", True))

    def _maybe_outvote(self, against: int) -> list[bytes]:
        done = self.silence.complete(against, self.live)
        if done is None or against not in self.due():
            return []
        voters, votes = done
        raw = certs.make_outvote(self.table_id, self.deal_no, self.seq, self.head, against, voters, votes)
        self._take_outvote(own_envelope(raw), against, voters)
        return [raw, *self._flush()]

    def _take_fork(self, env: Envelope, against: int) -> None:
        self._append(env)
        self._tell(Fork(against=against, deal=self.deal_no, seq=env.seq))
        self.run.halt(Cause("equivocation", against, f"seat {against} signed two different messages for seq "
                                                     f"{env.seq}", True))

    def _fork_cert(self, k: int, against: int, one: bytes, two: bytes) -> bytes:
        return certs.make_fork(self.table_id, self.chain.deal_at(k, self.deal_no), k, self.chain.prev(k), against,
                               one, two)

    def _seeds_of(self, env: Envelope) -> list[Envelope]:
        """The seeds of a close, other than this seat's own."""
        return [m for m in certs.close_seeds(env, self.keys, self.table_id) if m.author != self.seat]

    # ------------------------------------------------------------------ the seed round and the close
    def _reveal_seed(self) -> list[bytes]:
        """This seat's seed for the seed round at the current place (once per place)."""
        if self.observer or self.seeds.has(self._me_seat()):
            return []
        raw = self._sign(TableKind.SEED, {"seed": self.run.own_seed()})
        self.seeds.add(self._me_seat(), raw, own=True)
        return [raw, *self._maybe_close()]

    def _maybe_close(self) -> list[bytes]:
        closers = self.run.closers()
        if self.stage != Stage.SEEDS or self.seeds.missing(closers):
            return []
        raw = certs.make_close(self.table_id, self.deal_no, self.seq, self.head, closers, self.seeds.proof(closers))
        env = own_envelope(raw)
        self._close(env, dict(zip(closers, env.body["seeds"], strict=True)))
        return self._flush()  # every replica writes its own close: only the next deal's messages go out

    def _close(self, env: Envelope, seeds: dict[int, bytes | None]) -> None:
        """Take the close: the deal's boundary; audit it, score it, start the next."""
        self._append(env)
        by_party = {self.run.pi[s]: seed for s, seed in seeds.items() if seed is not None}
        replay, verdict = claims.verdict(self.run, by_party, self._match(seeds), self.observer)
        self._finish_deal(replay, verdict)

    def _me_seat(self) -> int:
        assert self.seat is not None
        return self.seat

    # ------------------------------------------------------------------ deals
    def _start_deal(self) -> None:
        parties = tuple(s for s in range(self.n) if self.live[s])
        setup = DealSetup(
            group=self.group,
            table_id=self.table_id,
            deal_number=self.deal_no,
            deck=self.spec.deck,
            signing_keys=[self.keys[s] for s in parties],
            sealing_keys=[self.sealing[s] for s in parties],
        )
        seated = not self.observer
        seed = seed_for(self._secret, self.table_id, self.deal_no, self.head) if seated else None
        self.run = DealRun(setup, self.deal_no, parties, self.live, self.spec, self._new_game,
                           seat=self.seat if seated else None, me=self.me if seated else None, seed=seed,
                           start=self.seq)
        self.silence.new_deal()
        self.seeds.new_deal()

    def _new_game(self, deal_id: bytes, locked: tuple[bytes, ...]) -> DealState:
        if self.match is None:
            self.match = self.spec.new_match(self.options, first_dealer(dealer_draw(deal_id, locked), self.n))
        return self.match.new_deal(None)

    def _match(self, seeds: Mapping[int, bytes | None]) -> Match:
        if self.match is None:  # the first deal closed before its deck was locked: the dealer from its seeds
            self.match = self.spec.new_match(self.options, first_dealer(seeds_draw(self.table_id, seeds), self.n))
        return self.match

    def _finish_deal(self, replay: DealState | None, verdict: claims.Verdict) -> None:
        match = self.match
        assert match is not None
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
        event = DealClosed(deal=self.deal_no, dealer=dealer, trump=game.trump if game is not None else None,
                           result=game.result if game is not None else None, audit=verdict,
                           totals=list(match.totals), match_over=match.finished, winner=match.winner,
                           replay=replay, choices=list(self.run.choices))
        self.results.append(event)
        self._tell(event)
        if over:
            self.finished = True
            self._tell(Ended(winner=match.winner, totals=list(match.totals), deals=self.deals_done,
                             transcript_hash=self.transcript_hash, abandoned=None, voted_out=self.voted_out,
                             abandons=self.left.copies()))
            return
        self.deal_no += 1
        self._start_deal()

    def _sign_nay(self, k: int, against: int, message: bytes | None = None) -> bytes | None:
        """A nay for place ``k``: ``message`` (the silent seat's message there: by default its
        entry at ``k``; in a seed round, its seed) shows that it was not silent.  None where
        this replica voted against that seat there: an honest replica never signs both (and
        the nay it signed already, if it did)."""
        mine = self.silence.signed(k, against)
        if mine is not None:
            kind, signed = mine
            return signed if kind == TableKind.NAY else None
        raw = self._sign(TableKind.NAY, {"against": against, "message": self.log[k] if message is None else message},
                         k)
        self.silence.remember(k, against, TableKind.NAY, raw)
        self.silence.keep_nay(k, raw)
        self._signed(raw)
        return raw


    # ------------------------------------------------------------------ what the Table adds
    def _drain_side(self) -> list[bytes]:
        """Side messages that arrived before this replica reached their place, now due."""
        raise NotImplementedError

    def _reset(self, n: int) -> None:
        """Go back to the first ``n`` entries (an entry refused after it entered the log)."""
        raise NotImplementedError

    def _current_deal(self, k: int) -> bool:
        """Whether place ``k`` is in the current deal, which has not closed."""
        return k >= self.deal_start and not self.finished
