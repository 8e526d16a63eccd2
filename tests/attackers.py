"""Dishonest peers: subclasses of the real :class:`~p2pcards.table.table.Table` that try to
bend a table.  The in-memory tests (tests/test_attacks.py) run them over
:class:`~p2pcards.testing.table_mesh.LocalMesh`; the process tests run them as real peers over TCP
(``python -m tests.attackers``, see the bottom of this file) against honest processes.

Each attacker keeps what it tried in ``tried`` so that a test can check that the attack
happened (an attack that never ran proves nothing).
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from p2pcards.core import Deal
from p2pcards.mental.errors import UnattributedFault
from p2pcards.mental.kdf import commitment, deal_id, hpke_info
from p2pcards.mental.messages import Kind, kind_of
from p2pcards.mental.seal import KeyEntry, SealedPayload, hpke_seal, sign_payload
from p2pcards.table.dealrun import DealRun
from p2pcards.table.events import Output
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import (
    ENTRY_KINDS,
    TABLE,
    Decoded,
    TableKind,
    make_certificate,
    message_hash,
    parse_message,
    sign_message,
)
from p2pcards.table.wire import pack, unpack

__all__ = [
    "ATTACKERS",
    "Attacker",
    "RetroVoter",
    "InstantVoter",
    "LoneVoter",
    "Equivocator",
    "CrossWaitEquivocator",
    "Reencoder",
    "GarbledSealer",
    "BadHeaderSealer",
    "Substituter",
    "Copier",
    "BadElement",
    "Prober",
    "PatientProber",
    "FalseDisputer",
    "SeedWithholder",
    "PastClaimer",
    "Framer",
    "VoterFramer",
    "Sleeper",
    "ForgedCloser",
    "Abandoner",
    "Retaker",
    "TwoPlaceRetaker",
    "EarlyAbandoner",
    "TwoForker",
    "DealerGrinder",
    "OutOfTurn",
]


class Attacker(Table):
    """A table replica that also keeps a record of what it tried.  As a process
    (:func:`main`) it may also say where its attack stands (``say``: a JSON line, for a
    test that acts on it) and keep a message from some processes (:meth:`allows`)."""

    tried: list[str]

    @staticmethod
    def say(obj: dict[str, Any]) -> None:
        """Where the attack stands (a process prints it as a JSON line)."""

    def allows(self, raw: bytes, seats: frozenset[int]) -> bool:
        """Whether the process sends ``raw`` to the process of ``seats`` (an honest one always does)."""
        return True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.tried = []
        super().__init__(*args, **kwargs)

    def _adopt(self, fresh: Table) -> None:
        kept = {k: v for k, v in self.__dict__.items() if k in ("tried", "second", "say")}
        super()._adopt(fresh)
        self.__dict__.update(kept)

    @property
    def authors(self) -> list[int]:
        return self.chain.authors

    @property
    def deals(self) -> list[int]:
        return self.chain.deals

    def sign(self, kind: str, body: dict[str, Any], *, seq: int, prev: bytes, deal: int) -> bytes:
        assert self.me is not None and self.seat is not None
        return sign_message(self.me, table=self.table_id, deal=deal, seq=seq, prev=prev, author=self.seat, kind=kind,
                            body=body)

    def victim(self) -> int:
        """The next seat after this one."""
        assert self.seat is not None
        return (self.seat + 1) % self.n


class RetroVoter(Attacker):
    """In the second deal, votes against another seat for a place of the first deal (where
    that seat wrote), and sends a certificate of its own vote alone, to make the table go
    back and undo scored history."""

    def decide(self, choice: Any) -> Output:
        out = super().decide(choice)
        if self.deal_no >= 1 and not self.tried:
            target = self.victim()
            k = next(i for i in range(1, self.deal_start) if self.authors[i] == target and self.deals[i] == 0)
            vote = self.sign("vote", {"against": target}, seq=k, prev=self.hashes[k - 1], deal=0)
            others = [s for s in range(self.n) if s != target]
            cert = make_certificate(table=self.table_id, deal=0, seq=k, prev=self.hashes[k - 1], kind="outvote",
                                    body={"against": target, "voters": others}, proof=[vote])
            self.tried.append(f"vote against seat {target} at seq {k}")
            out.send += [vote, cert]
        return out


class InstantVoter(Attacker):
    """Votes against every other seat as soon as it is due, without waiting; and sends a
    certificate of its lone vote."""

    def receive(self, raw: bytes | Decoded) -> Output:
        out = super().receive(raw)
        for x in sorted(self.may_vote()):
            if len(self.tried) < 5:
                votes = self.vote(x)
                cert = make_certificate(table=self.table_id, deal=self.deal_no, seq=self.seq, prev=self.head,
                                        kind="outvote", body={"against": x, "voters": [self.seat]},
                                        proof=votes.send[:1])
                self.tried.append(f"instant vote against seat {x} at seq {self.seq}")
                out.signed += votes.signed
                out.events += votes.events
                out.send += [*votes.send, cert]
        return out


class LoneVoter(Attacker):
    """In a two-seat game: votes the other seat out the moment it is due, alone."""

    def receive(self, raw: bytes | Decoded) -> Output:
        out = super().receive(raw)
        x = self.victim()
        if x in self.due() and len(self.tried) < 3:
            vote = self.sign("vote", {"against": x}, seq=self.seq, prev=self.head, deal=self.deal_no)
            cert = make_certificate(table=self.table_id, deal=self.deal_no, seq=self.seq, prev=self.head,
                                    kind="outvote", body={"against": x, "voters": [self.seat]}, proof=[vote])
            self.tried.append(f"lone vote against seat {x} at seq {self.seq}")
            out.send += [vote, cert]
        return out


class OutOfTurn(Attacker):
    """The moment its victim must choose, writes a choice of its own for that place: a
    message out of turn, signed and on the chain, that every replica refuses and blames on
    it (a victim that takes its time, a person, gets it before writing its own)."""

    def receive(self, raw: bytes | Decoded) -> Output:
        out = super().receive(raw)
        self._jump(out)
        return out

    def decide(self, choice: Any) -> Output:
        out = super().decide(choice)
        self._jump(out)
        return out

    def _jump(self, out: Output) -> None:
        x = self.victim()
        if self.tried or self.finished or self.observer or self.due() != {x} or \
                self.run.waiting_kind() != TableKind.CHOICE:
            return
        self.tried.append(f"a choice out of turn at seq {self.seq}, where seat {x} must write")
        out.send.append(self.sign(TableKind.CHOICE, {"choice": None}, seq=self.seq, prev=self.head,
                                  deal=self.deal_no))


class Equivocator(Attacker):
    """At its first play, also signs a second, different play for the same place
    (``second``): a router sends it to some seats instead of the first."""

    second: bytes | None = None

    def decide(self, choice: Any) -> Output:
        if self.second is None and self.deal_no == 0:
            view = self.view()
            decision = self.decision()
            if view is not None and decision is not None and decision.kind == "play":
                others = [p for p in view.legal if p != choice]
                if others:  # an honest twin of this replica, there, plays another card
                    twin = Table(self.log[0], self.spec, self.me, self._secret, self.group)
                    twin.restore(self.log)
                    self.second = twin.decide(others[0]).send[0]
                    self.tried.append(f"two plays for seq {self.seq}")
        return super().decide(choice)


class CrossWaitEquivocator(Attacker):
    """Plays the last card of a trick of its first deal two ways: ``first`` (its own log, and what seat 0
    gets) lets a seat of ``b_side`` win the trick and lead; ``second`` (a router sends it to
    ``b_side``) wins the trick for the attacker.  Seat 0 waits for a seat of ``b_side``, which
    waits for the attacker, which follows the first branch and waits for that seat too:
    nobody writes on top of either, so the fork shows only in what the others hold for
    that last place."""

    second: bytes | None = None
    b_side: frozenset[int] = frozenset({2, 3})

    def _twin(self) -> Table:
        twin = Table(self.log[0], self.spec, self.me, self._secret, self.group)
        twin.restore(self.log)
        return twin

    def decide(self, choice: Any) -> Output:
        view, decision = self.view(), self.decision()
        if (self.second is None and self.deal_no == 0 and view is not None and decision is not None
                and decision.kind == "play" and len(view.trick) == len(view.active) - 1):
            leads = {}
            for card in view.legal:
                twin = self._twin()
                twin.decide(card)
                leads[card] = twin.expected()
            first = next((c for c in view.legal if leads[c] in self.b_side), None)
            second = next((c for c in view.legal if leads[c] == self.seat), None)
            if first is not None and second is not None:
                self.second = self._twin().decide(second).send[0]
                self.tried.append(f"two last cards of a trick for seq {self.seq}")
                choice = first
        return super().decide(choice)


class Reencoder(Attacker):
    """Sends its messages in another encoding of the same signed content (map keys in
    another order); the signature still verifies against the canonical bytes."""

    @staticmethod
    def reencode(raw: bytes) -> bytes:
        body, sig = unpack(raw)
        msg = unpack(body)
        return pack([pack(dict(reversed(list(msg.items())))), sig])


def _corrupt_sealed(table: Attacker, how: str) -> None:
    """Make ``table``'s party seal its first keys of deal 0 to its victim badly."""
    party = table.party
    honest = party._sealed
    victim = table.run.pi.get(table.victim())

    def sealed(step: int, kind: Kind, to: int, positions: tuple[int, ...], entries: tuple[KeyEntry, ...]) -> Any:
        wire = honest(step, kind, to, positions, entries)
        if table.deal_no != 0 or to != victim or table.tried:
            return wire
        table.tried.append(f"{how} keys sealed to party {to} in step {step}")
        if how == "garbled":
            data = bytearray(wire["sealed"])  # type: ignore[arg-type]
            data[-5] ^= 0x40
            return {**wire, "sealed": bytes(data)}
        # a payload whose header names another step, properly sealed and signed
        setup = party.setup
        assert party.deal_id is not None and party._signing_key is not None and party._kdf is not None
        payload = SealedPayload(kind=kind, table_id=setup.table_id, deal_number=setup.deal_number,
                                deal_id=party.deal_id, step=step + 1000, sender=party._own_seat(), recipient=to,
                                entries=entries)
        info = hpke_info(setup.table_id, setup.deal_number, kind, step, party._own_seat(), to)
        sealed = hpke_seal(setup.sealing_keys[to], info, sign_payload(party._signing_key, payload),
                           party._kdf.hpke_ikm(kind, step, to))
        return {**wire, "sealed": sealed}

    party._sealed = sealed  # type: ignore[method-assign]


class GarbledSealer(Attacker):
    """Seals its first keys to its victim so that they do not open (only the victim sees it)."""

    def _start_deal(self) -> None:
        super()._start_deal()
        if not self.observer:
            _corrupt_sealed(self, "garbled")


class BadHeaderSealer(Attacker):
    """Seals its first keys to its victim under a payload header of another step."""

    def _start_deal(self) -> None:
        super()._start_deal()
        if not self.observer:
            _corrupt_sealed(self, "bad-header")


def _positions_dealt(table: Table, dealer: int) -> dict[int, list[int]]:
    """Which positions the opening deal gives to which seat (public: the game's steps)."""
    state = table.spec.new_match(table.options, dealer).new_deal(None)
    out: dict[int, list[int]] = {}
    for step, _ in list(state._queue):
        if isinstance(step, Deal) and step.source < 0:
            out.setdefault(step.seat, []).extend(step.positions)
    return out


class Substituter(Attacker):
    """Shuffles honestly but puts a group element that is no card at one position of its
    output (valid and distinct, so nothing shows until that position opens)."""

    def _start_deal(self) -> None:
        super()._start_deal()
        if self.observer or self.deal_no != 0:
            return
        party = self.party
        honest = party._shuffled

        def shuffled() -> tuple[bytes, ...]:
            deck = list(honest())
            deck[0] = self.group.hash_to_element(b"not a card" + self._secret)  # (the same again after a rebuild)
            self.tried.append("a non-card element at position 0 of its shuffle")
            return tuple(deck)

        party._shuffled = shuffled  # type: ignore[method-assign]


class BadElement(Attacker):
    """Shuffles honestly, proves it, then sends the shuffle with an invalid element in
    place of its first: caught at once, as it arrives (``bad-element``)."""

    def _start_deal(self) -> None:
        super()._start_deal()
        if self.observer or self.deal_no != 0:
            return
        party = self.party
        honest_shuffle, honest_proof = party._shuffled, party._shuffle_proof
        made: list[tuple[bytes, ...]] = []

        def shuffled() -> tuple[bytes, ...]:
            made.append(honest_shuffle())
            self.tried.append("an invalid element at position 0 of its shuffle")
            return (b"\xff" * 32, *made[-1][1:])

        party._shuffled = shuffled  # type: ignore[method-assign]
        party._shuffle_proof = lambda deck: honest_proof(made[-1])  # type: ignore[method-assign]


class Copier(Attacker):
    """The last shuffler copies one of its victim's (encrypted) cards into a position of its
    own, disguised by a random factor that its lock step takes away again: its copy opens
    to the victim's card."""

    def _start_deal(self) -> None:
        super()._start_deal()
        if self.observer or self.deal_no != 0 or self.seat != self.run.parties[-1]:
            return
        party, group = self.party, self.group
        honest_shuffle, honest_lock = party._shuffled, party._locked
        r = group.scalar_reduce(hashlib.sha512(b"disguise" + self._secret).digest())  # the same after a rebuild
        chosen: dict[str, int] = {}

        def shuffled() -> tuple[bytes, ...]:
            deck = list(honest_shuffle())
            assert party.deal_id is not None
            # (the dealer is drawn from the locked deck: unknown while it shuffles, so it guesses)
            dealt = _positions_dealt(self, 0)
            mine, theirs = dealt[self._me_seat()][0], dealt[self.victim()][0]
            chosen.update(mine=mine, theirs=theirs)
            deck[mine] = group.mult(r, deck[theirs])
            self.tried.append(f"copied position {theirs} of seat {self.victim()} into its own position {mine}")
            return tuple(deck)

        def locked() -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
            deck, commitments = honest_lock()
            if chosen:
                out = list(deck)
                out[chosen["mine"]] = group.mult(group.scalar_invert(r), out[chosen["mine"]])
                deck = tuple(out)
            return deck, commitments

        honest_open = party._open

        def open_quietly(position: int, keys: Any, *, private: bool = False) -> None:
            try:
                honest_open(position, keys, private=private)
            except UnattributedFault as exc:  # a cheat does not complain about its own copy...
                if not exc.private:  # ...but sees what everyone sees
                    raise

        party._shuffled = shuffled  # type: ignore[method-assign]
        party._locked = locked  # type: ignore[method-assign]
        party._open = open_quietly  # type: ignore[method-assign]


class Prober(Attacker):
    """Sends, in place of its shuffle, a deck of its own making -- ``(1·B, 2·B, …, M·B)``,
    every element valid and distinct, so that only its proof shows it -- to learn what the
    next step of the chain does with it.  Proofs are pipelined: the next seat makes its
    step before it checks this one's proof, so a next shuffler gives its permutation away
    (``learned``), a first locker its lock factors times ``B``.  The defence: no key of the
    deal leaves any seat before every proof holds, and a deal that ends on a fault reveals
    every seed anyway -- what it learns was about to be public."""

    learned: dict[str, object]
    #: seconds it thinks (its process blocked) before it sends that deck, the first time
    pause = 0.0

    def _start_deal(self) -> None:
        super()._start_deal()
        if self.observer or self.deal_no != 0:
            return
        party, group = self.party, self.group
        logs = [group.scalar_reduce(k.to_bytes(64, "little")) for k in range(1, party.setup.deck_size + 1)]
        crafted = tuple(group.base_mult(x) for x in logs)
        me = party.seat

        def shuffled() -> tuple[bytes, ...]:
            if self.pause and not self.tried:
                self.say({"type": "attack", "step": "probing", "seq": self.seq})
                time.sleep(self.pause)
            self.tried.append("a deck of known logarithms in place of its shuffle")
            return crafted

        honest_round = party._on_round

        def on_round(message: Any) -> None:
            took = party._deck
            honest_round(message)
            if took == crafted and message.seat != me:  # the step after ours, made from our deck
                self._learn(message.seat, message.deck, logs, kind=str(kind_of(message)))

        party._shuffled = shuffled  # type: ignore[method-assign]
        party._on_round = on_round  # type: ignore[method-assign]

    def _learn(self, seat: int, deck: tuple[bytes, ...], logs: list[bytes], kind: str) -> None:
        group = self.group
        if kind == "lock":  # deck[j] = f_j · (j+1)·B: f_j·B
            self.learned = {"seat": seat, "factors_times_base": [group.mult(group.scalar_invert(x), e)
                                                                  for x, e in zip(logs, deck, strict=True)]}
            self.tried.append(f"learned seat {seat}'s lock factors times the base")
            return
        # deck[i] = s·(π[i]+1)·B: find s·B among deck[0]/(k+1), then read π off
        outs = set(deck)
        for k in range(len(logs)):
            base = group.mult(group.scalar_invert(logs[k]), deck[0])
            if base in outs and group.mult(logs[1], base) in outs:
                where = {group.mult(x, base): j for j, x in enumerate(logs)}
                if set(where) == outs:
                    self.learned = {"seat": seat, "permutation": [where[e] for e in deck]}
                    self.tried.append(f"learned seat {seat}'s permutation")
                    return


class PatientProber(Prober):
    """A :class:`Prober` that says when it is about to send its deck ("probing") and waits
    three seconds first: time for a test to kill an honest process in the middle of the
    rounds and resume it."""

    pause = 3.0


class FalseDisputer(Attacker):
    """Disputes a clean deal at its first play, claiming its keys did not open."""

    def decide(self, choice: Any) -> Output:
        decision = self.decision()
        if decision is not None and self.deal_no == 0 and not self.tried and decision.kind == "play":
            self.run.private = UnattributedFault("made up: my cards do not open", private=True)
            self.tried.append(f"a false dispute at seq {self.seq}")
            return self._output(self._flush)
        return super().decide(choice)


class SeedWithholder(GarbledSealer):
    """Garbles keys to its victim (who disputes), then never reveals its seed."""

    def _reveal_seed(self) -> list[bytes]:
        if self.stage == "seeds" and self.deal_no == 0:
            if "withheld" not in self.tried:
                self.tried.append("withheld")
            return []
        return super()._reveal_seed()


class PastClaimer(Attacker):
    """Sends cheap-to-make claims about places long past: a dispute and a fork certificate
    whose proof does not hold, for every place of the first deal it did not write."""

    def decide(self, choice: Any) -> Output:
        out = super().decide(choice)
        if self.deal_no >= 1 and not self.tried:
            extra = []
            for k in range(2, self.deal_start):
                if self.authors[k] in (self.seat, TABLE):
                    continue
                extra.append(self.sign("dispute", {"against": self.authors[k], "reason": "bogus", "evidence": None},
                                       seq=k, prev=self.hashes[k - 1], deal=self.deals[k]))
                extra.append(make_certificate(table=self.table_id, deal=self.deals[k], seq=k, prev=self.hashes[k - 1],
                                              kind="fork", body={"against": self.authors[k]},
                                              proof=[self.log[k], self.log[k]]))
            self.tried.append(f"{len(extra)} claims about the first deal")
            out.send += extra
        return out


class Framer(Attacker):
    """Tries to frame an honest voter for equivocation.  It keeps every vote against itself;
    :meth:`frame` signs a vote against itself for a place it wrote (``k``), and a nay for
    that place by a seat whose vote against it there it holds -- the voter answering the
    framer's vote -- is made into a ``fork`` certificate (vote and nay of one voter for
    one place and seat) and sent to everyone."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.votes_against_me: dict[tuple[int, int], bytes] = {}
        self.forks: list[bytes] = []

    def _adopt(self, fresh: Table) -> None:
        kept = {k: v for k, v in self.__dict__.items() if k in ("votes_against_me", "forks")}
        super()._adopt(fresh)
        self.__dict__.update(kept)

    def frame(self, k: int) -> bytes:
        """A vote against this seat for place ``k`` (of the current deal), signed by itself."""
        self.tried.append(f"a vote against itself for seq {k}")
        return self.sign("vote", {"against": self.seat}, seq=k, prev=self.hashes[k - 1], deal=self.deals[k])

    def receive(self, raw: bytes | Decoded) -> Output:
        try:
            env = parse_message(raw, self.keys)
        except Exception:  # noqa: BLE001 -- not its business: the real replica says why
            env = None
        extra: list[bytes] = []
        if env is not None and env.kind in ("vote", "nay") and env.body.get("against") == self.seat:
            slot = (env.seq, env.author)
            if env.kind == "vote":
                self.votes_against_me.setdefault(slot, env.raw)
            elif slot in self.votes_against_me:
                vote = self.votes_against_me[slot]
                fork = make_certificate(table=self.table_id, deal=env.deal, seq=env.seq, prev=env.prev, kind="fork",
                                        body={"against": env.author}, proof=sorted([vote, env.raw]))
                self.forks.append(fork)
                self.tried.append(f"a fork of seat {env.author}'s vote and nay for seq {env.seq}")
                extra.append(fork)
        try:
            out = super().receive(raw)
        except Rejected:
            if not extra:
                raise
            out = Output()
        out.send += extra
        return out


class VoterFramer(Framer):
    """Attack 1 as a process (seat 3, say): it holds its first play of deal 0 (place ``k``)
    back from every process until every seat but ``relay`` has voted against it there --
    the test stops ``relay``'s process meanwhile, so that seat neither votes nor nays --
    then sends it to everyone: the voters hold it until ``relay`` (let go again) answers
    their votes with a nay that carries it.  From then on, each time a voter's entry comes,
    it sends every vote against itself at ``k`` again (at most ``MAX_REPLAYS`` times), so
    that a voter whose process was restarted meanwhile gets the other voters' votes for a
    place where it voted: were it to answer one with a nay, its vote and nay make a fork
    (:class:`Framer`).  It says ``holding`` and ``released`` (with ``k``) as it goes."""

    relay = 0
    MAX_REPLAYS = 40

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held: bytes | None = None
        self.released = False
        self.replays = 0

    def _adopt(self, fresh: Table) -> None:
        kept = {k: v for k, v in self.__dict__.items() if k in ("held", "released", "replays", "say")}
        super()._adopt(fresh)
        self.__dict__.update(kept)

    def allows(self, raw: bytes, seats: frozenset[int]) -> bool:
        return self.released or raw != self.held

    def _voters(self) -> set[int]:
        assert self.seat is not None
        return {s for s in range(self.n) if s not in (self.seat, self.relay)}

    def decide(self, choice: Any) -> Output:
        decision = self.decision()
        out = super().decide(choice)
        if self.held is None and self.deal_no == 0 and decision is not None and decision.kind == "play":
            self.held = out.send[0]
            self.tried.append(f"held its play at seq {header_of(self.held)['seq']} back")
            self.say({"type": "attack", "step": "holding", "seq": header_of(self.held)["seq"]})
        return out

    def receive(self, raw: bytes | Decoded) -> Output:
        out = super().receive(raw)
        if self.held is None:
            return out
        k = header_of(self.held)["seq"]
        voted = {a for (seq, a) in self.votes_against_me if seq == k}
        if not self.released and voted >= self._voters():
            self.released = True
            self.tried.append(f"sent its play at seq {k} once seats {sorted(voted)} had voted against it")
            self.say({"type": "attack", "step": "released", "seq": k})
            out.send.append(self.held)
        elif self.released and self.replays < self.MAX_REPLAYS:
            h = header_of(raw if isinstance(raw, bytes) else raw.raw)
            if h.get("author") in voted and h.get("kind") in ("choice", "deck") and h.get("deal") == 0 \
                    and h.get("seq", 0) > k:
                votes = [v for (seq, _), v in sorted(self.votes_against_me.items()) if seq == k]
                self.replays += 1
                out.send += votes
        return out


class Sleeper(Attacker):
    """No attacker: an honest seat that is slow once -- at its second play of deal 0 it
    thinks (its process blocked, as if stopped) for ``pause`` seconds, past the timeout, and
    then plays: a late message (the table's voters hold it aside)."""

    pause = 7.0

    def decide(self, choice: Any) -> Output:
        decision = self.decision()
        if self.deal_no == 0 and decision is not None and decision.kind == "play" and not self.tried \
                and any(a == self.seat for a in self.authors[self.deal_start:]):
            self.tried.append(f"thought for {self.pause:g} s at seq {self.seq}")
            self.say({"type": "attack", "step": "asleep", "seq": self.seq})
            time.sleep(self.pause)
        return super().decide(choice)


class ForgedCloser(Attacker):
    """Attack 2 as a process: it never votes until seat ``silent`` (an honest seat, slow
    past the timeout: :class:`Sleeper`) has been voted against by every other seat; when
    that seat's late message comes it does not take it, signs its own seed for the place
    after it and wraps that as a ``close`` -- one seed, no close -- and shows it to seat
    ``shown`` alone, as the proof that the table went on past the message that seat holds
    aside (were it taken, that seat would take the message while the others take the
    outvote).  ``wait`` seconds later it votes, which completes the outvote."""

    silent, shown = 1, 0
    wait = 1.5

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.late: bytes | None = None
        self.forged: bytes | None = None
        self.at = 0.0

    def _adopt(self, fresh: Table) -> None:
        kept = {k: v for k, v in self.__dict__.items() if k in ("late", "forged", "at", "say")}
        super()._adopt(fresh)
        self.__dict__.update(kept)

    def allows(self, raw: bytes, seats: frozenset[int]) -> bool:
        return raw != self.forged or self.shown in seats

    def may_vote(self) -> frozenset[int]:
        if self.forged is None or time.monotonic() < self.at + self.wait:
            return frozenset()
        return super().may_vote()

    def receive(self, raw: bytes | Decoded) -> Output:
        data = raw if isinstance(raw, bytes) else raw.raw
        if self.late is not None and data == self.late:
            return Output()  # (relayed copies: it never takes it)
        h = header_of(data)
        others = [s for s in range(self.n) if s not in (self.seat, self.silent)]
        if self.late is None and self.deal_no == 0 and h.get("author") == self.silent and h.get("seq") == self.seq \
                and h.get("kind") in ENTRY_KINDS and all(self.silence.vote_of(v, self.silent) for v in others):
            self.late = data
            seq, prev, seed = self.seq + 1, message_hash(data), self.party.seed
            seed_msg = self.sign("seed", {"seed": seed}, seq=seq, prev=prev, deal=self.deal_no)
            self.forged = make_certificate(table=self.table_id, deal=self.deal_no, seq=seq, prev=prev, kind="close",
                                           body={"seats": [self.seat], "seeds": [seed]}, proof=[seed_msg])
            self.at = time.monotonic()
            self.tried.append(f"a close of its seed alone after seat {self.silent}'s late message at seq {self.seq},"
                              f" shown to seat {self.shown}")
            self.say({"type": "attack", "step": "forged", "seq": self.seq})
            return Output(send=[self.forged])
        return super().receive(raw)


class Abandoner(Attacker):
    """Attack 4: at a table of two, it abandons the match the moment it may (the other seat
    due) once a closed deal has left it behind.  To fall behind soon it revokes when it can
    (a card of another suit while it holds the suit led: a renúncia, which costs it the
    deal once the audit finds it)."""

    revoked: int = -1

    def decide(self, choice: Any) -> Output:
        view = self.view()
        if view is not None and view.trick and self.revoked != self.deal_no:
            led = view.trick[0][1][1]
            if any(c[1] == led for _, c in view.hand):
                wrong = [p for p, c in view.hand if c[1] != led and p not in view.legal]
                if wrong:
                    self.revoked = self.deal_no
                    choice = wrong[0]
        return super().decide(choice)

    def _flush(self) -> list[bytes]:
        out = super()._flush()
        if self.match is not None and self.deals_done >= 1 and not self.finished and self.seat is not None \
                and self.match.totals[self.seat] < max(self.match.totals) and self.may_abandon():
            self.tried.append(f"abandoned at seq {self.seq}, deal {self.deal_no}, totals {list(self.match.totals)}")
            out += self._abandon()
        return out


class EarlyAbandoner(Attacker):
    """At a table of two, it abandons the match the moment it may once a deal has closed,
    ahead or behind (a table to take up again: tests/test_attacks_tcp.py)."""

    def _flush(self) -> list[bytes]:
        out = super()._flush()
        if self.deals_done >= 1 and not self.abandons and self.may_abandon():
            self.tried.append(f"abandoned at seq {self.seq}, deal {self.deal_no}")
            out += self._abandon()
        return out


class Retaker(Attacker):
    """Takes an abandoned table up where it may not: it signs a ``takeup`` for its replica's
    place that its replica does not take -- while the table is in play, naming another seq
    than the abandon's, or a second one after its own (:meth:`forged_takeup`)."""

    def forged_takeup(self, after: int | None = None) -> bytes:
        """A takeup at this replica's place, ``after`` the last abandon's seq by default."""
        if after is None:
            after = self.abandon_seq() or 0
        self.tried.append(f"a takeup at seq {self.seq} after seq {after} (abandoned: {self.abandoned is not None})")
        return self.sign(TableKind.TAKEUP, {"after": after}, seq=self.seq, prev=self.head,
                         deal=self.chain.deal_at(self.seq, self.deal_no))


class TwoPlaceRetaker(EarlyAbandoner):
    """Attack 6 as a process: the lower playing seat's takeup signed at two places.  It
    abandons once it may (:class:`EarlyAbandoner`); resumed to take the table up, it holds its
    takeup back until the other playing seat's is in, then writes its own after it -- sent
    first -- and signs another for the place the other seat's took, sent after it.  The lower
    seat's takeup takes the first place: the other replica must take it there, in place of its
    own, write its own again after it, and let the one sent first go."""

    holding: bool = True

    def _adopt(self, fresh: Table) -> None:
        holding = self.holding
        super()._adopt(fresh)
        self.holding = holding

    def may_take_up(self) -> bool:
        return super().may_take_up() and not (self.holding and not self.takeups)

    def takeup(self) -> Output:
        after, late = self.abandon_seq(), self.seq
        out = super().takeup()
        if self.holding and after is not None:
            self.holding = False
            early = self.sign(TableKind.TAKEUP, {"after": after}, seq=after + 1, prev=self.hashes[after],
                              deal=self.chain.deal_at(after + 1, self.deal_no))
            out.send.append(early)
            self.tried.append(f"takeups at seq {after + 1} and {late} after seq {after}, the second sent first")
            self.say({"type": "attack", "step": "two takeups", "early": after + 1, "late": late,
                      "hash": message_hash(early).hex()})
        return out


class TwoForker(Attacker):
    """Attack 5 as a process: at its sixth message of deal 0 it signs a second message for
    that place (``late``) and for its second message of the deal (``early``), and shows
    seats ``late_first`` the late one, the others the early one; once each replica has had
    time to take the fork it was shown (a seed from every other seat, or
    ``PHASE_AFTER`` messages later) it shows each the other one."""

    late_first = frozenset({0, 1})
    PHASE_AFTER = 30

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.plan: dict[bytes, list[frozenset[int]]] = {}
        self.counts: dict[tuple[bytes, frozenset[int]], int] = {}
        self.pending: list[bytes] = []
        self.since = 0
        self.seeds_seen: set[int] = set()

    def _adopt(self, fresh: Table) -> None:
        kept = {k: v for k, v in self.__dict__.items()
                if k in ("plan", "counts", "pending", "since", "seeds_seen", "say")}
        super()._adopt(fresh)
        self.__dict__.update(kept)

    def allows(self, raw: bytes, seats: frozenset[int]) -> bool:
        phases = self.plan.get(raw)
        if phases is None:
            return True
        n = self.counts.get((raw, seats), 0)
        self.counts[(raw, seats)] = n + 1
        return n >= len(phases) or bool(seats & phases[n])

    def _second(self, k: int) -> bytes:
        return self.sign("dispute", {"against": None, "reason": f"a second message for {k}", "evidence": None},
                         seq=k, prev=self.hashes[k - 1], deal=self.deals[k])

    def decide(self, choice: Any) -> Output:
        out = super().decide(choice)
        assert self.seat is not None
        mine = [i for i in range(self.deal_start, self.seq) if self.authors[i] == self.seat]
        if not self.plan and self.deal_no == 0 and len(mine) >= 6:
            early, late = mine[1], mine[-1]
            one, two = self._second(late), self._second(early)
            rest = frozenset(range(self.n)) - self.late_first - {self.seat}
            self.plan = {one: [self.late_first, rest], two: [rest, self.late_first]}
            self.pending = [one, two]
            self.tried.append(f"second messages for seq {early} and {late}, shown in two orders")
            self.say({"type": "attack", "step": "forked", "early": early, "late": late})
            out.send += [one, two]
        return out

    def receive(self, raw: bytes | Decoded) -> Output:
        try:
            out = super().receive(raw)
        except Rejected:
            out = Output()
            if not self.pending:
                raise
        if self.pending:
            h = header_of(raw if isinstance(raw, bytes) else raw.raw)
            if h.get("kind") == "seed":
                self.seeds_seen.add(h["author"])
            self.since += 1
            if self.seeds_seen >= set(range(self.n)) - {self.seat} or self.since >= self.PHASE_AFTER:
                self.tried.append(f"showed each seat the other one ({len(self.seeds_seen)} seeds seen)")
                out.send += self.pending
                self.pending = []
        return out


def header_of(raw: bytes) -> dict[str, Any]:
    """The header of a table message, unchecked."""
    header: dict[str, Any] = unpack(unpack(raw)[0])
    return header


class DealerGrinder(Attacker):
    """The last seat to commit in the first deal tries to pick the match's first dealer:
    it waits for every other seat's commitment, then tries seeds until the first deal's id
    (a hash of every commitment) would draw itself as the dealer -- all it can compute
    before it commits.  (When the dealer was drawn from the deal id alone, that was the
    dealer; it is drawn from the deck as the last seat locked it now, which no seat knows
    before everyone has committed, shuffled and locked.)"""

    def _flush(self) -> list[bytes]:
        run = self.run
        if self.deal_no == 0 and not self.tried and self.seat == run.parties[-1] and self.outbox_commit(run) \
                and len(set(run.party.commitments()) - {run.pi[self._me_seat()]}) == len(run.parties) - 1:
            self._grind(run)
        return super()._flush()

    @staticmethod
    def outbox_commit(run: DealRun) -> bool:
        return any(m.get("kind") == "commit" for m in run.outbox)

    def _grind(self, run: DealRun) -> None:
        setup, me = run.setup, run.pi[self._me_seat()]
        theirs = run.party.commitments()
        for i in range(4096):
            seed = hashlib.sha256(b"grind" + self._secret + i.to_bytes(4, "big")).digest()
            mine = commitment(setup.table_id, 0, me, setup.group.name, seed)
            ids = deal_id(setup.table_id, 0, setup.group.name, setup.deck,
                          [mine if p == me else theirs[p] for p in range(len(run.parties))])
            if ids[0] % self.n == self.seat:
                break
        fresh = DealRun(setup, 0, run.parties, self.live, self.spec, self._new_game, seat=self.seat, me=self.me,
                        seed=seed, start=run.start)
        for m in run.deck_msgs:
            fresh.outbox.extend(fresh.party.receive(m))
            fresh.deck_msgs.append(m)
        self.run = fresh
        self.tried.append(f"ground its seed {i + 1} times for the dealer")


ATTACKERS: dict[str, type[Attacker]] = {
    "retro-vote": RetroVoter,
    "instant-vote": InstantVoter,
    "lone-vote": LoneVoter,
    "equivocate": Equivocator,
    "reencode": Reencoder,
    "garbled-keys": GarbledSealer,
    "bad-header": BadHeaderSealer,
    "substitute": Substituter,
    "copy": Copier,
    "probe": Prober,
    "probe-after-a-pause": PatientProber,
    "false-dispute": FalseDisputer,
    "withhold-seed": SeedWithholder,
    "past-claims": PastClaimer,
    "grind-dealer": DealerGrinder,
    "out-of-turn": OutOfTurn,
    "frame-voters": VoterFramer,
    "slow": Sleeper,
    "forge-close": ForgedCloser,
    "abandon-losing": Abandoner,
    "abandon-after-a-deal": EarlyAbandoner,
    "two-forks": TwoForker,
    "takeup-twice": TwoPlaceRetaker,
}



class LoudEquivocator(Equivocator):
    """An equivocator as a process would be: it sends both of its plays to everyone."""

    def decide(self, choice: Any) -> Output:
        had = self.second
        out = super().decide(choice)
        if had is None and self.second is not None:
            out.send.append(self.second)
        return out


ATTACKERS["equivocate-loud"] = LoudEquivocator


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.attackers KIND HOST:PORT``: join the table at HOST:PORT as a
    dishonest peer of KIND (a random player otherwise), printing the join's JSON lines;
    ``python -m tests.attackers KIND --resume TABLE``: take this process's seat of TABLE (an
    id prefix) again, as ``p2pcards resume TABLE`` does, the replica a dishonest one of KIND.
    The data directory is $P2PCARDS_HOME, as for ``p2pcards join``."""
    import argparse
    import json
    import sys

    import trio

    from p2pcards.core import load_games
    from p2pcards.identity import data_dir, load_or_create
    from p2pcards.net import NetError, join_table, resume_table, single_error, unfinished_tables
    from p2pcards.net.mesh import Mesh

    parser = argparse.ArgumentParser(prog="python -m tests.attackers")
    parser.add_argument("kind", choices=sorted(ATTACKERS))
    parser.add_argument("address", nargs="?", help="HOST:PORT of the table to join")
    parser.add_argument("--resume", metavar="TABLE", help="take this table up again instead (an id prefix)")
    parser.add_argument("--linger", type=float, default=1.0)
    args = parser.parse_args(argv)
    if (args.address is None) == (args.resume is None):
        parser.error("give either HOST:PORT or --resume TABLE")
    me = load_or_create(data_dir())

    def line(obj: dict[str, Any]) -> None:
        print(json.dumps(obj), flush=True)

    tried: list[str] = []
    tables: list[Attacker] = []

    def table_class(*a: Any, **kw: Any) -> Table:
        table = ATTACKERS[args.kind](*a, **kw)
        table.tried = tried
        table.say = line  # type: ignore[method-assign]
        tables.append(table)
        return table

    honest_send = Mesh.send

    def send(mesh: Mesh, link: Any, payload: bytes) -> None:  # what the attacker keeps from whom
        seats = next((s for lk, s in mesh.links if lk is link), frozenset())
        if all(t.allows(payload, seats) for t in tables):
            honest_send(mesh, link, payload)

    Mesh.send = send  # type: ignore[method-assign]

    def event(seat: int, ev: Any) -> None:
        line({**ev.to_json(), "seat": seat})

    async def run() -> None:
        if args.resume is not None:
            found = unfinished_tables(data_dir(), me, prefix=args.resume, abandoned=True)
            if len(found) != 1:
                raise NetError(f"{len(found)} tables here match {args.resume!r}")
            await resume_table(found[0].path, me=me, registry=load_games(), data_dir=data_dir(), on_resumed=line,
                               on_table=line, on_event=event, linger=args.linger, table_class=table_class)
            return
        host, _, port = args.address.rpartition(":")
        await join_table(host, int(port), me=me, registry=load_games(), data_dir=data_dir(), level="random",
                         on_seated=line, on_table=line, on_event=event, linger=args.linger, table_class=table_class)

    try:
        with single_error():
            trio.run(run)
    except NetError as exc:
        print(f"attacker: {exc}", file=sys.stderr)
        line({"type": "tried", "tried": tried, "error": str(exc)})
        return 1
    line({"type": "tried", "tried": tried, "error": None})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
