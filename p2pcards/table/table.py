"""One peer's replica of a table: transcript, game and mental deck together (sans-IO).

A :class:`Table` is a state machine in the manner of h11: every input -- a message another
peer sent (:meth:`Table.receive`), this seat's decision (:meth:`Table.decide`), a vote its
runtime's clock calls for (:meth:`Table.vote`), an abandon (:meth:`Table.abandon`), a
takeup of an abandoned table (:meth:`Table.takeup`), a restore from the saved log
(:meth:`Table.restore`) -- returns one
:class:`~p2pcards.table.events.Output`: the entries to persist, the rewind, the entries
superseded, its own signed votes and nays, the messages to send and the typed events, in
the order the runtime carries them out.  Nothing here does I/O or keeps time: the runtime
keeps the clocks and asks :meth:`Table.may_vote`.

The rules are in ``protocol/PROTOCOL.md`` ("Table messages").  The state and what every
input shares are :class:`~p2pcards.table.replica.Replica`'s; this module adds the inputs
(messages received -- side messages, places passed, a certificate in place of entries --
and restoring from a log).  The parts it owns keep their own state:

* :class:`~p2pcards.table.chain.Chain` -- the transcript, its hashes and authors;
* :class:`~p2pcards.table.dealrun.DealRun` -- the deal in play: its deck, its game, whose
  turn it is, what this seat owes;
* :class:`~p2pcards.table.silence.Silence` and :class:`~p2pcards.table.silence.SeedRound`
  -- votes, nays, late messages held aside, and the seeds of the seed round;
* :mod:`~p2pcards.table.certificates` -- ``close``, ``outvote`` and ``fork``, each checked
  whole by one function; :mod:`~p2pcards.table.claims` -- disputes and verdicts.

**Observers.**  A replica with no identity (``me`` None) follows a table publicly: every
signature, turn, public deck check and certificate, and every deal's audit.  The offline
audit (:func:`p2pcards.table.audit.replay_transcript`) is such a replica; a seat voted out
goes on as one.

**Nothing refused enters the log**: a refused message raises :class:`Rejected` and changes
nothing.  A replica's own entries that the table did not accept (a certificate took their
place) are handed back in :attr:`~p2pcards.table.events.Output.superseded`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Final

from p2pcards.core import Choice, Plain
from p2pcards.mental import LocalError
from p2pcards.table import certificates as certs
from p2pcards.table.common import MIN_VOTERS, Rejected, SetupError, TableError
from p2pcards.table.dealrun import Stage
from p2pcards.table.events import DealClosed, Output, TakenUp
from p2pcards.table.replica import Replica
from p2pcards.table.setup import seed_for
from p2pcards.table.transcript import (
    ENTRY_KINDS,
    SIDE_KINDS,
    Decoded,
    Envelope,
    TableKind,
    TranscriptError,
    VersionError,
    own_envelope,
    parse_message,
)

__all__ = ["Table", "TableError", "Rejected", "SetupError", "Stage", "seed_for", "MIN_VOTERS"]

#: How far past a held entry :meth:`Table.take_held` follows a chain to the deal's close.
_MAX_HELD_CHAIN: Final = 4096
#: Side messages kept for a place this replica has not reached yet.
_MAX_AHEAD_SIDE: Final = 64


class Table(Replica):
    """A peer's replica of one table (module docstring)."""

    # ------------------------------------------------------------------ inputs
    def start(self) -> Output:
        """What this peer can send right away (its commitment if it is first)."""
        return self._output(self._flush)

    def decide(self, choice: Choice | Plain) -> Output:
        """Apply this seat's choice."""
        return self._output(lambda: self._decide(choice))

    def vote(self, against: int) -> Output:
        """Vote seat ``against`` out: this peer's clock saw it silent past the timeout
        (:meth:`may_vote`).  The vote, and the certificate if it completes one."""
        return self._output(lambda: self._vote(against))

    def abandon(self) -> Output:
        """End the table here, with no winner (:meth:`may_abandon`)."""
        return self._output(self._abandon)

    def takeup(self) -> Output:
        """Take the abandoned table up again (:meth:`may_take_up`): this seat's ``takeup``;
        once the other playing seat's is in too, the abandoned deal closes void and the next
        deal starts."""
        return self._output(self._takeup)

    def receive(self, raw: bytes | Decoded) -> Output:
        """Check and apply another peer's message: what to persist and broadcast now (this
        peer's own messages, certificates it wrote, and messages it relays).

        ``raw`` may come decoded already (:func:`~p2pcards.table.transcript.decode`: the
        runtime decodes each frame once).  Raises :class:`Rejected` (nothing changed) for a
        message that is refused.
        """
        return self._output(lambda: self._receive_all(raw))

    def take_held(self, ahead: Mapping[int, Sequence[bytes]]) -> Output:
        """A voter left behind: take the entry it holds aside when the table went on past it.

        This replica voted against a seat at its current place and holds that seat's late
        entry until the vote completes or a nay shows it cannot -- but nobody answers a
        vote for a place in a deal they have closed, so a voter cut off from the table (its
        vote never reached the others) would wait for ever.  ``ahead`` holds entries for
        later places (by seq, as the runtime buffered them).  When they chain from the held
        entry up to a ``close`` whose seeds are signed by a seat other than this one and the
        held entry's author, that seat accepted the held entry and closed the deal on it:
        it never voted, the vote can never complete (a closed deal is never taken back), and
        this replica takes the entry as from a nay.  Only the close's seeds are checked by
        signature: the hashes that chain them to the held entry commit to every entry in
        between, which the replica then checks one by one as it takes them.
        """
        return self._output(lambda: self._take_held(ahead))

    def restore(self, log: Sequence[bytes], side: Sequence[bytes] = ()) -> Output:
        """Rebuild this replica from its saved transcript (after a crash).

        ``log`` starts with the genesis; ``side`` holds this peer's own saved votes and
        nays.  Other seats' entries and certificates are received again; this seat's own
        entries are produced again from the same secret and choices and must come out byte
        for byte as saved.  Its :attr:`~Output.send` is what this peer owes now that was not
        in the log (its pending entries, its seed in a seed round, its vote at this place),
        its :attr:`~Output.events` what the log told (for a history that may have missed
        it); the entries past the saved log come with the next output.  Raises
        :class:`SetupError` for a log that is not sound.
        """
        if not log or log[0] != self.log[0]:
            raise SetupError("the saved transcript is of another table")
        if len(self.log) != 1:
            raise LocalError("restore() must be called on a fresh replica")
        self._rebuild(log, side)
        again = list(self.log[len(log):])  # own entries the crash kept from the file
        own_seed = self.seeds.get(self.seat) if self.seat is not None else None
        if own_seed is not None:
            again.append(own_seed)
        if self.seat is not None:
            again += self.silence.own_votes(self.seat)
        events, self._out = self._out.events, Output()
        self._reported = len(log)  # (the runtime holds the saved log; what follows is new)
        return Output(send=list(dict.fromkeys(again)), events=events)

    def _receive_all(self, raw: bytes | Decoded) -> list[bytes]:
        return self._receive(raw) + self._drain_side()

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

    def _receive(self, raw: bytes | Decoded) -> list[bytes]:
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
        if self.finished and env.kind != TableKind.TAKEUP:
            raise Rejected("the table is over")
        if env.seq > self.seq or env.prev != self.head:
            proven = self._proven_by(env)
            if proven:  # a close on a certificate this peer waits on: its seeds prove that chain
                return self._side(proven[0])
            raise Rejected(f"chain mismatch at seq {env.seq} (this peer is at {self.seq})")
        if env.author == self.seat and not env.certificate:
            raise Rejected("a message in this seat's name that this peer did not write")
        if env.deal != self.deal_no:
            raise Rejected(f"message for deal {env.deal} during deal {self.deal_no}", _blame(env))
        return self._accept(env)

    def _take_held(self, ahead: Mapping[int, Sequence[bytes]]) -> list[bytes]:
        if not self.holding:
            return []
        for author, raw in self.silence.held():
            held = own_envelope(raw)
            if held.seq != self.seq or held.prev != self.head:
                continue  # (a seed held in a seed round: its close comes in turn)
            if self._closed_past(held, ahead):
                self.silence.release(author)
                return self._receive_all(raw)
        return []

    def _closed_past(self, held: Envelope, ahead: Mapping[int, Sequence[bytes]]) -> bool:
        """Whether ``ahead`` holds the table's chain from ``held`` to the close of its deal:
        entries linked by their hashes, every certificate among them whole -- each outvote
        with the votes of every other seat playing then, the close with the seed of every
        seat still playing, none of them this seat's (it never revealed one there).  The
        seats that signed them accepted ``held`` and built on it."""
        live, head, seq = list(self.live), held.hash, held.seq + 1
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
            if nxt is None or (nxt.certificate and nxt.kind == TableKind.FORK):
                return False
            if nxt.certificate and nxt.kind == TableKind.OUTVOTE:
                try:
                    against, _ = certs.check_outvote(nxt, self.keys, self.table_id, live, lambda x: True)
                except Rejected:
                    return False
                live[against] = False
            elif nxt.certificate:  # the close
                closers = tuple(s for s in self.run.parties if live[s])
                if self.seat in closers or held.author not in range(len(live)):
                    return False
                try:
                    certs.check_close(nxt, self.keys, self.table_id, closers, self.run.seed_ok)
                except Rejected:
                    return False
                return True
            head, seq = nxt.hash, seq + 1
        return False

    # ------------------------------------------------------------------ side messages
    def _side(self, env: Envelope) -> list[bytes]:
        """A vote, nay or seed (signed, for a place of the chain)."""
        if env.author < 0 or not 0 <= env.author < self.n:
            raise Rejected("a side message from no seat")
        other_chain = env.seq <= self.seq and not self.chain.on_chain(env.seq, env.prev)
        if env.seq > self.seq or (other_chain and (env.seq == self.seq or env.kind == TableKind.SEED)):
            # ahead of this replica, or a seed on another branch: perhaps the proof that a
            # certificate there is the table's (_branch_proven)
            if len(self._ahead_side) >= _MAX_AHEAD_SIDE:
                self._ahead_side.pop(0)
            self._ahead_side.append(env)
            pending = self._pending_cert
            if pending is not None and env.kind == TableKind.SEED:
                self._pending_cert = None
                return self._receive_all(pending)
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
        if self.stage != Stage.SEEDS:
            raise Rejected("a seed before the deal's seed round", env.author)
        if not self.live[env.author] or set(env.body) != {"seed"} or not self.run.seed_ok(env.author,
                                                                                        env.body["seed"]):
            raise Rejected(f"seat {env.author} revealed a seed that is not its commitment's", env.author)
        if self.silence.voted(env.author):  # this peer voted against it here: held, as a late entry is
            return [env.raw] if self.silence.hold(env.author, env.raw) else []
        self.seeds.add(env.author, env.raw)
        return self._maybe_close()

    def _on_vote(self, env: Envelope) -> list[bytes]:
        body = env.body
        if set(body) != {"against"} or type(body["against"]) is not int:
            raise Rejected("a vote is {against}", env.author)
        against = body["against"]
        if against == env.author:
            raise Rejected(f"seat {env.author} votes against itself", env.author)
        seed = self.seeds.get(against) if self.stage == Stage.SEEDS and against != self.seat else None
        if seed is not None and self.live[env.author] and not self.observer and not self.silence.voted(against):
            # this peer holds the seed the vote says is missing: it answers with a nay
            nay = self._sign_nay(env.seq, against, seed)
            return [nay] if nay is not None else []
        if not self.live[env.author] or against == env.author or against not in self.due() or sum(
            self.live
        ) < MIN_VOTERS + 1:
            raise Rejected(f"seat {env.author} may not vote against seat {against} now", env.author)
        if against == self.seat and self.stage != Stage.SEEDS:
            return []  # this seat has not written its message yet: nothing to show
        self.silence.add_vote(env.author, against, env.raw)
        mine = self.seeds.get(against) if self.seat == against and self.stage == Stage.SEEDS else None
        if mine is not None:
            return [mine]
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
        mine = self.silence.vote_of(env.author, against)
        if mine is not None:  # the same voter voted and nayed: evidence
            return self._equivocation(env.seq, env.author, mine, env.raw)
        if not self.silence.relay_once(env.raw):
            return []  # relayed once already: relaying it again would echo it round the table for ever
        self.silence.release(against)
        self.silence.keep_nay(env.seq, env.raw)
        try:
            return [env.raw, *self._receive_all(msg.raw)]
        except Rejected:
            return [env.raw]

    def _side_past(self, env: Envelope) -> list[bytes]:
        """A vote or nay for a place this replica has passed (cheap: no replay)."""
        k = env.seq
        if not self.chain.on_chain(k, env.prev) or env.kind == TableKind.SEED:
            return []  # stale
        if self.chain.certificate_at(k, TableKind.CLOSE) and env.kind == TableKind.VOTE:
            # the deal closed here: show the close (it holds every seed), once
            return [self.log[k]] if self.silence.answer_once(env.author, k, -1) else []
        if not self._current_deal(k):
            return []
        against = env.body.get("against")
        if against == env.author:
            return []  # (a seat does not vote against itself, nor nay its own silence)
        if env.kind == TableKind.NAY and self.chain.certificate_at(k, TableKind.OUTVOTE):
            for vote in parse_message(self.log[k], self.keys).proof:
                v = certs.proof_message(vote, self.keys, self.table_id)
                if v.author == env.author and certs.conflict(v, env, env.author):
                    return self._equivocation(k, env.author, vote, env.raw)
            return []
        if self.chain.authors[k] != against:
            return []
        if env.kind == TableKind.VOTE:
            if not self.silence.answer_once(env.author, k, against):
                return []  # answered once already
            if self.seat == against:  # this seat's message holds the place: show it
                return [self.log[k]]
            nay = self.silence.nay_at(k)
            if nay is None and not self.observer and env.author != self.seat:
                nay = self._sign_nay(k, against)
            return [nay] if nay is not None else []
        return []

    def _equivocation(self, k: int, author: int, one: bytes, two: bytes) -> list[bytes]:
        if not self._current_deal(k):
            return []
        cert = self._fork_cert(k, author, one, two)
        env = own_envelope(cert)
        if k == self.seq:
            self._take_fork(env, author)
            return [cert, *self._flush()]
        return [cert, *self._supersede(env, lambda fresh: fresh._take_fork(env, author))]

    # ------------------------------------------------------------------ places passed
    def _own_close_at(self, k: int) -> bool:
        """Whether entry ``k`` is a close this replica wrote with its own seed, that nobody
        but this seat can hold: every entry after it is its own.  (A voter that voted holds
        a late seed aside, so if the others completed a vote against this seat, no other
        replica closed with its seed; such a close is this seat's alone.)"""
        if self.seat is None or not self.chain.certificate_at(k, TableKind.CLOSE):
            return False
        seats = own_envelope(self.log[k]).body.get("seats", [])
        return self.seat in seats and self.chain.only_by(self.seat, k + 1)

    def _close_crossed_by(self, k: int, author: int) -> bool:
        """Whether entry ``k`` is a close that an abandon by ``author`` for place ``k`` crossed
        (``author`` wrote nothing after it): a seat that revealed its seed and waits for the
        other's may abandon while that seed, and the close written with it, are on their way.
        The abandon takes the place on every replica (the one that closed relays it)."""
        return self.chain.certificate_at(k, TableKind.CLOSE) and author not in self.chain.authors[k + 1:]

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
                if not self._current_deal(k):
                    raise Rejected(f"a fork for seq {k}, in a deal that is closed")
                against = certs.check_fork(env, self.keys, self.table_id)
                out = self._supersede(env, lambda fresh: fresh._take_fork(env, against))
                return [env.raw, *out]  # shown to every seat: one may not have it
            if env.kind == TableKind.OUTVOTE and (self.chain.only_by(self.seat, k) or self._own_close_at(k)):
                # the others voted this seat out where its own message (or its close) was: it lost the place
                return self._supersede(env, lambda fresh: fresh._certificate(env))
            raise Rejected(f"a {env.kind} for seq {k}, which this peer has passed")
        if env.kind == TableKind.ABANDON and self.chain.only_by(self.seat, k) and self._current_deal(k):
            # the other seat gave up waiting where this seat's own message was: it lost the place
            return self._supersede(env, lambda fresh: fresh._apply_entry(env))
        if env.kind == TableKind.ABANDON and self._close_crossed_by(k, env.author):
            # the abandon crossed the last seed on its way: the close loses the place, everywhere
            return [env.raw, *self._supersede(env, lambda fresh: fresh._apply_entry(env))]
        if env.kind == TableKind.TAKEUP and self._takeup_loses_to(env):
            # both seats took the table up at one place: the lower seat's takes it (this seat's goes
            # after it), and is relayed: a replica that holds the higher seat's there may not have it
            told, deal = len(self._out.events), self.left.records[-1]["deal"] if self.left.ended is None else None
            out = self._supersede(env, lambda fresh: fresh._apply_entry(env), seeds_shown=False)
            out = [env.raw, *out, *(self._takeup() if self.may_take_up() else [])]
            if deal is not None:  # taken up on the chain it left too: the void close and the takeup were told
                self._out.events[told:] = [e for e in self._out.events[told:] if not isinstance(e, TakenUp)
                                           and not (isinstance(e, DealClosed) and e.deal == deal)]
            return out
        if env.kind == TableKind.TAKEUP and self._takeup_loses_to(own_envelope(self.log[k]), env):
            # the lower seat's takeup this replica holds there wins the place: shown once to whoever holds env
            if env.hash in self.left.answered:
                raise Rejected(f"a takeup for seq {k}, where the lower seat's is (sent to its author already)")
            self.left.answered.add(env.hash)
            return [self.log[k]]
        if self.chain.authors[k] == env.author and env.kind in ENTRY_KINDS:
            if not self._current_deal(k):
                raise Rejected(f"seat {env.author} signed two messages for seq {k}, in a deal that is closed",
                               env.author)
            cert = own_envelope(self._fork_cert(k, env.author, self.log[k], env.raw))
            out = self._supersede(cert, lambda fresh: fresh._take_fork(cert, env.author))
            return [cert.raw, *out]
        raise Rejected(f"replayed or stale message (seq {k}; this peer is at {self.seq})")

    def _takeup_loses_to(self, env: Envelope, held: Envelope | None = None) -> bool:
        """Whether the ``takeup`` at ``env``'s place (``held``; None: the one this replica
        holds there) loses it to ``env``: a takeup of a lower seat, naming the last abandon,
        while the takeups may still change -- until the deal after them closes (checked
        cheaply first: no rebuild for a takeup that is not one)."""
        k, after = env.seq, self.abandon_seq()
        author = self.chain.authors[k] if held is None else held.author
        kind = self.chain.kind_of(self.log[k]) if held is None else held.kind
        return (after is not None and k > after and self.left.open_at(self.deal_no)
                and kind == TableKind.TAKEUP and 0 <= env.author < author
                and self.live[env.author] and env.body == {"after": after} and type(env.body["after"]) is int
                and env.author not in self.chain.authors[after + 1:k])

    def _branch_proven(self, cert: Envelope) -> bool:
        """Whether a seed revealed on the chain of ``cert`` (for the place after it) shows
        that the table went on with it: one signed by a seat other than this one and the seat
        the certificate accuses (who may present any proof it likes of its own)."""
        accused = cert.body.get("against")
        return any(m.prev == cert.hash and m.seq == cert.seq + 1 and m.author not in (self.seat, accused)
                   for m in self._ahead_side if m.kind == TableKind.SEED)

    def _proven_by(self, close: Envelope) -> list[Envelope]:
        """The seeds of ``close`` that prove the chain of the certificate this replica waits
        on (it revealed its seed on its own chain): none unless the close is whole -- the
        seed of every seat playing on that chain -- and right after that certificate."""
        pending = own_envelope(self._pending_cert) if self._pending_cert is not None else None
        if pending is None or close.prev != pending.hash or close.seq != pending.seq + 1:
            return []
        accused = pending.body.get("against")
        gone = accused if pending.kind == TableKind.OUTVOTE else None
        closers = tuple(s for s in self.run.parties if self.live[s] and s != gone)
        try:
            certs.check_close(close, self.keys, self.table_id, closers, self.run.seed_ok)
        except Rejected:
            return []
        return [m for m in certs.close_seeds(close, self.keys, self.table_id) if m.author not in (self.seat, accused)]

    def _supersede(self, env: Envelope, take: Callable[[Table], object], seeds_shown: bool = True) -> list[bytes]:
        """Go back to ``env.seq`` (within the current deal) and take the certificate there.

        A replica that has revealed its seed for this deal goes back only when another
        playing seat has revealed its seed after the certificate (proof that the chain this
        replica is on can never close).  So does an observer (no seed of its own) that has
        seen the deal reach its seed round: the seated replicas may all have revealed theirs
        on this chain, which then closes without the certificate.  (``seeds_shown`` False: a
        takeup in place of this seat's own, where no seed can be at stake.)"""
        k = env.seq
        revealed = seeds_shown and (self.seeds.sent or (self.observer and self.stage == Stage.SEEDS))
        if revealed and not self._branch_proven(env):
            self._pending_cert = env.raw
            raise Rejected(f"a certificate for seq {k}; this peer revealed its seed on another chain and waits "
                           "for proof that it cannot close")
        fresh = self._fresh()
        fresh._hold_from = k  # this seat's own entry at k, if any, is what the certificate replaces
        fresh._rebuild(self.log[:k], self.silence.signed_messages())  # (what it signed, it remembers)
        if fresh.seq != k:  # pragma: no cover -- the rebuild stops at k
            raise Rejected(f"cannot go back to seq {k}")
        fresh._hold_from = None
        fresh._ahead_side = list(self._ahead_side)  # (seeds of the certificate's chain among them)
        fresh._out = Output()
        take(fresh)
        out = fresh._flush()
        mine = [raw for raw, author in zip(self.log[k:], self.chain.authors[k:], strict=True) if author == self.seat]
        kept = self._out
        kept.rewind = k if kept.rewind is None else min(kept.rewind, k)
        kept.superseded += mine
        kept.signed += fresh._out.signed
        kept.events += fresh._out.events
        reported = min(self._reported, k)
        self._adopt(fresh)
        self._out, self._reported = kept, reported
        return out

    # ------------------------------------------------------------------ rebuilding
    def _rebuild(self, log: Sequence[bytes], side: Sequence[bytes] = ()) -> None:
        """Take ``log`` again into this fresh replica (module docstring of :meth:`restore`).
        Where the log holds an abandon, or an outvote against this seat, this seat writes
        nothing of its own: that took the place (an entry of this seat's that was there was
        kept apart)."""
        taken = {k for k in range(1, len(log)) if self._took_my_place(log[k])}
        self._hold_at = 1 if 1 in taken else None
        self._flush()
        for seq in range(1, len(log)):
            raw = log[seq]
            self._hold_at = seq + 1 if seq + 1 in taken else None
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
                            self._decide(env.body["choice"])
                        elif env.kind == TableKind.ABANDON:
                            self._abandon()
                        elif env.kind == TableKind.TAKEUP:
                            self._takeup()
                    except (LocalError, KeyError) as exc:
                        raise SetupError(f"saved message {seq} is not what this seat would write: {exc}") from None
                else:
                    try:
                        self._receive_all(raw)
                    except Rejected as exc:
                        raise SetupError(f"saved message {seq} does not verify: {exc.reason}") from None
            if seq >= self.seq or self.log[seq] != raw:
                raise SetupError(f"saved message {seq} is not what this seat would write")
        self._hold_at = None
        for raw in side:
            self._restore_side(raw)

    def _took_my_place(self, raw: bytes) -> bool:
        """Whether the saved entry ``raw`` stands where this seat may have written its own:
        an abandon, or the outvote against this seat (voted out where its entry was due)."""
        kind = self.chain.kind_of(raw)
        if kind != TableKind.OUTVOTE or self.seat is None:
            return kind == TableKind.ABANDON
        try:
            return parse_message(raw, self.keys).body.get("against") == self.seat
        except TranscriptError:
            return False

    def _restore_side(self, raw: bytes) -> None:
        """Put back this peer's own saved vote or nay (so that it never does both)."""
        try:
            env = parse_message(raw, self.keys)
        except TranscriptError:
            return
        if env.author != self.seat or env.kind not in (TableKind.VOTE, TableKind.NAY):
            return
        against = env.body.get("against")
        if isinstance(against, int) and self.chain.on_chain(env.seq, env.prev) and self._current_deal(env.seq):
            self.silence.remember(env.seq, against, env.kind, raw)  # what it signed, it remembers
        if env.kind == TableKind.VOTE and env.slot == (self.seq, self.head):
            against = env.body.get("against")
            if isinstance(against, int):
                self.silence.add_own_vote(env.author, against, raw)
        elif env.kind == TableKind.NAY and env.seq < self.seq and self._current_deal(env.seq):
            self.silence.keep_nay(env.seq, raw)

    def _fresh(self) -> Table:
        """A fresh replica of the same seat (and class) at the genesis."""
        return type(self)(self.log[0], self.spec, self.me, self._secret or None, self.group)

    def _adopt(self, fresh: Table) -> None:
        """Become ``fresh`` (rebuilt): every part of the state is its."""
        self.__dict__.clear()
        self.__dict__.update(fresh.__dict__)

    def _reset(self, n: int) -> None:
        """Go back to the first ``n`` entries (an entry refused after it entered the log)."""
        fresh = self._fresh()
        fresh._rebuild(self.log[:n], self.silence.signed_messages())
        kept, reported = self._out, min(self._reported, n)
        self._adopt(fresh)
        self._out, self._reported = kept, reported


def _blame(env: Envelope) -> int | None:
    return None if env.certificate or env.author < 0 else env.author
