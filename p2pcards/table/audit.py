"""The end-of-deal audit, live and offline.

:func:`audit_deal` is what every replica runs when a deal's seeds are in: the deck audit
(:func:`p2pcards.mental.audit`) and then the strict replay of the deal through the rules
with every card known.  :func:`replay_transcript` follows a whole saved transcript with no
private key -- signatures with each seat's key of the time (a seat voted out is verified
with its bot's keys from the next deal on), the hash chain, votes, and every deal's audit
-- and gives the match it leads to; :func:`audit_transcript` reports on it
(``p2pcards audit LOGFILE``), and a bot that takes a voted-out seat starts from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from p2pcards.core import DealState, Decision, End, GameRegistry, GameSpec, IllegalChoice, Match, OptionError
from p2pcards.mental import DealSetup, DeckFault, Group, Ristretto255, audit, verify_evidence
from p2pcards.mental.kdf import deal_id
from p2pcards.mental.messages import Commit, decode
from p2pcards.mental.party import LiveRecord
from p2pcards.table.transcript import (
    Envelope,
    Genesis,
    SeatInfo,
    TranscriptError,
    VoteBody,
    parse_message,
    vote_opener,
    vote_order,
)

__all__ = [
    "audit_deal",
    "audit_transcript",
    "replay_deal",
    "replay_transcript",
    "first_dealer",
    "vote_out_verdict",
    "Replacement",
    "Replayed",
    "Verdict",
    "CLEAN",
]

Verdict = dict[str, Any]
CLEAN: Verdict = {"verdict": "clean", "seat": None, "kind": None, "reason": None}


def first_dealer(the_deal_id: bytes, seats: int) -> int:
    """The match's first dealer, drawn by the shuffle itself: from the first deal's id
    (a hash of every seat's commitment), never chosen by one peer alone."""
    return the_deal_id[0] % seats


def replay_deal(match: Match, cards: Sequence[str], choices: Sequence[tuple[int, Any]]) -> DealState:
    """Replay the recorded choices over the known deck; raise ``IllegalChoice`` if they
    do not fit (a choice the rules refuse, or too few or too many choices)."""
    deal = match.new_deal(list(cards))
    pending = list(choices)
    pending.reverse()
    while True:
        step = deal.step()
        if isinstance(step, End):
            break
        if isinstance(step, Decision):
            if not pending:
                raise IllegalChoice("the transcript ends before the deal does")
            seat, choice = pending.pop()
            deal.apply(seat, choice)
        else:
            deal.complete()
    if pending:
        raise IllegalChoice(f"{len(pending)} choices recorded after the end of the deal")
    return deal


def audit_deal(
    setup: DealSetup,
    deck_msgs: Sequence[dict[str, Any]],
    seeds: dict[int, bytes],
    match: Match,
    choices: Sequence[tuple[int, Any]],
    trusted: int | None = None,
    *,
    live: LiveRecord | None = None,
) -> tuple[DealState | None, Verdict]:
    """Deck audit then rules replay: the replayed deal (None on a deck fault) and a verdict.

    ``trusted``: the seat of the replica auditing its own record; ``live``: what its party
    derived and checked while it played (see :func:`p2pcards.mental.audit`).  Both None
    offline, where everything is checked here.

    The verdict is ``clean``, ``renuncia`` (the replay found a seat breaking a play rule;
    the deal's result then carries the penalty) or ``fault`` (a deck fault: the deal is
    void and ``seat`` is to blame).
    """
    report = audit(setup, deck_msgs, seeds, trusted, live=live)
    if report.fault is not None:
        f = report.fault
        return None, {"verdict": "fault", "seat": f.seat, "kind": str(f.kind), "reason": f.reason}
    assert report.cards is not None
    try:
        replay = replay_deal(match, report.cards, choices)
    except IllegalChoice as exc:
        return None, {"verdict": "fault", "seat": None, "kind": "replay", "reason": str(exc)}
    if replay.renuncia is not None:
        return replay, {
            "verdict": "renuncia",
            "seat": replay.renuncia,
            "kind": "renuncia",
            "reason": f"seat {replay.renuncia} broke a must-follow or must-trump rule",
        }
    return replay, dict(CLEAN)


def _commit_deal_id(setup: DealSetup, msgs: Sequence[dict[str, Any]]) -> bytes | None:
    commits: dict[int, bytes] = {}
    for m in msgs:
        try:
            dec = decode(setup, m)
        except DeckFault:
            continue
        if isinstance(dec, Commit):
            commits.setdefault(dec.seat, dec.commitment)
    if len(commits) != setup.n_seats:
        return None
    return deal_id(setup.table_id, setup.deal_number, setup.group.name, setup.deck,
                   [commits[s] for s in range(setup.n_seats)])


def vote_out_verdict(seat: int, voters: Sequence[int]) -> Verdict:
    """The verdict of a deal interrupted by a vote: void, naming the seat voted out."""
    who = ", ".join(str(v) for v in voters)
    return {"verdict": "void", "seat": seat, "kind": "vote-out",
            "reason": f"seat {seat} was silent past the timeout and was voted out by seats {who}"}


@dataclass(frozen=True)
class Replacement:
    """A completed vote: seat ``seat`` is played by ``bot`` from deal ``deal`` + 1 on.

    ``slot`` is the seq of the opening vote, ``seq`` that of the last one; ``voters`` are
    the seats that voted, in order (the first opened the vote, and its process runs the
    bot); ``old_signing`` is the key the seat had until then.
    """

    seat: int
    deal: int
    slot: int
    seq: int
    voters: tuple[int, ...]
    bot: SeatInfo
    old_signing: bytes

    @property
    def opener(self) -> int:
        return self.voters[0]

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "deal": self.deal, "seq": self.slot, "voters": list(self.voters),
                "bot": {"name": self.bot.name, "fingerprint": self.bot.fingerprint, "bot": self.bot.bot,
                        "runs_on": self.bot.runs_on}}


@dataclass
class Replayed:
    """Where a transcript leads, followed publicly (see :func:`replay_transcript`)."""

    genesis: Genesis | None = None
    spec: GameSpec | None = None
    #: Each seat's current keys and description (bots replace voted-out seats).
    keys: list[bytes] = field(default_factory=list)
    sealing: list[bytes] = field(default_factory=list)
    seats: list[SeatInfo] = field(default_factory=list)
    #: Messages taken (the genesis included) and the chain head after them.
    count: int = 0
    head: bytes = b""
    match: Match | None = None
    #: One audit entry per deal: ``{deal, verdict, seat, reason, result}``.
    deals: list[dict[str, Any]] = field(default_factory=list)
    #: One event per closed deal, as a live replica emits it (``type`` "deal").
    events: list[dict[str, Any]] = field(default_factory=list)
    replacements: list[Replacement] = field(default_factory=list)
    deals_done: int = 0
    #: The number of the deal the next message belongs to.
    next_deal: int = 0
    finished: bool = False
    #: The first message that breaks the transcript: ``{seq, seat or None, reason}``.
    error: dict[str, Any] | None = None
    #: True when ``until`` was reached (the seat's key was installed by a vote).
    installed: bool = False


class _Stop(Exception):
    pass


class _Follower:
    """The state of :func:`replay_transcript` while it reads the messages."""

    def __init__(self, out: Replayed, spec: GameSpec, options: dict[str, Any], group: Group) -> None:
        assert out.genesis is not None
        self.out = out
        self.genesis = out.genesis
        self.spec = spec
        self.options = options
        self.group = group
        self.deal = 0
        self.msgs: list[dict[str, Any]] = []
        self.choices: list[tuple[int, Any]] = []
        self.closed = False  # the current deal was closed by a vote
        self.vote: tuple[VoteBody, int, tuple[int, ...], int] | None = None  # body, slot, order, cast

    def setup(self) -> DealSetup:
        return DealSetup(group=self.group, table_id=self.genesis.table_id, deal_number=self.deal,
                         deck=self.spec.deck, signing_keys=self.out.keys, sealing_keys=self.out.sealing)

    def close(self, verdict: Verdict | None = None, *, last: bool = False) -> None:
        """Close the current deal: audit it, or void it (``verdict``: a vote)."""
        out = self.out
        setup = self.setup()
        if out.match is None:
            did = _commit_deal_id(setup, self.msgs)
            out.match = self.spec.new_match(self.options, first_dealer(did, self.spec.seats) if did else 0)
        match = out.match
        seeds = {m["seat"]: m["seed"] for m in self.msgs if m.get("kind") == "seed" and isinstance(m.get("seat"), int)}
        if verdict is None and last and (len(seeds) < self.spec.seats or out.error is not None):
            reason = ("the transcript stops before the seeds" if out.error is None
                      else "not checked: the transcript breaks inside this deal")
            if self.vote is not None and out.error is None:
                reason = f"a vote against seat {self.vote[0].against} is under way"
            out.deals.append({"deal": self.deal, "verdict": "incomplete", "seat": None, "reason": reason,
                              "result": None})
            return
        dealer = match.dealer
        replay: DealState | None = None
        if verdict is None:
            replay, verdict = audit_deal(setup, self.msgs, seeds, match, self.choices)
        if replay is not None:
            match.record(replay)
        else:
            match.void()
        out.deals_done += 1
        out.deals.append({"deal": self.deal, **{k: verdict[k] for k in ("verdict", "seat", "reason")},
                          "result": replay.result if replay is not None else None})
        out.events.append({
            "type": "deal", "deal": self.deal, "dealer": dealer,
            "trump": replay.trump if replay is not None else None,
            "result": replay.result if replay is not None else None,
            "audit": verdict, "totals": list(match.totals), "match_over": match.finished, "winner": match.winner,
        })
        limit = self.genesis.deals
        out.finished = match.finished or (limit is not None and out.deals_done >= limit)
        out.next_deal = self.deal + 1

    def fail(self, seq: int, seat: int | None, reason: str) -> NoReturn:
        self.out.error = {"seq": seq, "seat": seat, "reason": reason}
        raise _Stop

    def take(self, seq: int, e: Envelope, until: tuple[int, bytes] | None) -> None:
        """Take message ``seq`` (signature and chain already checked)."""
        out = self.out
        if e.deal != self.deal:
            if e.deal != self.deal + 1 or self.vote is not None:
                self.fail(seq, e.author, f"deal number {e.deal} out of order")
            if not self.closed:
                self.close()
            if out.finished:
                self.fail(seq, e.author, "a message after the end of the table")
            self.deal, self.msgs, self.choices, self.closed = e.deal, [], [], False
        elif self.closed:
            self.fail(seq, e.author, f"a message of deal {e.deal} after a vote ended it")
        if e.kind == "vote":
            self.take_vote(seq, e, until)
            return
        if e.kind == "fault":
            self.take_fault(seq, e)
            return
        if self.vote is not None:
            self.fail(seq, e.author, f"a {e.kind!r} message while a vote against seat "
                                     f"{self.vote[0].against} is under way")
        body = e.body
        if isinstance(body.get("msgs"), list):
            self.msgs.extend(m for m in body["msgs"] if isinstance(m, dict))
        if e.kind == "choice" and "choice" in body:
            self.choices.append((e.author, body["choice"]))

    def take_fault(self, seq: int, e: Envelope) -> None:
        """A claim that the previous message sealed a wrong key to its author: the deal
        ends, void, with the sender named -- if the evidence proves it."""
        body = e.body
        accused = body.get("against")
        evidence = body.get("evidence")
        if self.vote is not None or type(accused) is not int or type(evidence) is not bytes:
            self.fail(seq, e.author, "a malformed or misplaced fault claim")
        fault = verify_evidence(self.setup(), self.msgs, accused, evidence)
        if fault is None or fault.seat != accused:
            self.fail(seq, e.author, "a fault claim whose evidence proves nothing")
        self.close({"verdict": "fault", "seat": accused, "kind": "bad-key",
                    "reason": f"seat {accused} sealed a wrong key to seat {e.author}"})
        self.closed = True

    def take_vote(self, seq: int, e: Envelope, until: tuple[int, bytes] | None) -> None:
        out = self.out
        n = self.spec.seats
        try:
            vb = VoteBody.from_body(e.body, n)
        except TranscriptError as exc:
            self.fail(seq, e.author, f"malformed vote: {exc}")
        if self.vote is None:
            if vb.against == e.author or e.author != vote_opener(vb.against, n):
                self.fail(seq, e.author, f"seat {e.author} may not open a vote against seat {vb.against}")
            if vb.bot is None or vb.bot.signing in out.keys or vb.bot.sealing in out.sealing:
                self.fail(seq, e.author, "an opening vote names a bot with fresh keys")
            self.vote = (vb, seq, vote_order(vb.against, n), 0)
        body, slot, order, cast = self.vote
        if vb.against != body.against or e.author != order[cast] or (cast > 0 and vb.bot is not None):
            self.fail(seq, e.author, f"a vote out of order (seat {order[cast]} votes next)")
        cast += 1
        self.vote = (body, slot, order, cast)
        if cast < len(order):
            return
        x, bot = body.against, body.bot
        assert bot is not None
        self.vote = None
        self.close(vote_out_verdict(x, order))
        self.closed = True
        out.replacements.append(Replacement(x, self.deal, slot, seq, order, bot, out.keys[x]))
        out.keys[x], out.sealing[x], out.seats[x] = bot.signing, bot.sealing, bot
        if until is not None and until == (x, bot.signing):
            out.installed = True
            out.count, out.head = seq + 1, e.hash
            raise _Stop


def replay_transcript(
    messages: Sequence[bytes],
    registry: GameRegistry | None = None,
    *,
    spec: GameSpec | None = None,
    group: Group | None = None,
    until: tuple[int, bytes] | None = None,
) -> Replayed:
    """Follow a transcript publicly, deal by deal, with no private key.

    Checks every signature (with each seat's key of the time), the hash chain, the deal
    numbers, the votes (opened by the lowest other seat, then every other seat in order;
    nothing else is written while a vote is under way; a completed vote ends its deal, void,
    and installs the bot's keys), and audits every deal whose seeds are in.  ``spec`` is
    the game (else looked up in ``registry``).  With ``until=(seat, signing key)`` it stops
    right after the vote that gives ``seat`` to that key (``installed`` is then True).
    """
    group = group or Ristretto255()
    out = Replayed()
    if not messages:
        out.error = {"seq": 0, "seat": None, "reason": "empty transcript"}
        return out
    try:
        env = parse_message(messages[0], None)
        genesis = Genesis.from_body(env.body)
        if env.table != genesis.table_id or env.seq != 0:
            raise TranscriptError("the genesis does not carry its own table id")
    except TranscriptError as exc:
        out.error = {"seq": 0, "seat": None, "reason": f"bad genesis: {exc}"}
        return out
    out.genesis = genesis
    try:
        if spec is None:
            if registry is None:
                raise KeyError("no game registry")
            spec = registry.get(genesis.game)
        options = spec.resolve_options({k: str(v) for k, v in genesis.options.items()})
    except (KeyError, OptionError) as exc:
        out.error = {"seq": 0, "seat": None, "reason": f"cannot replay this game here: {exc}"}
        return out
    out.spec = spec
    out.keys = [s.signing for s in genesis.seats]
    out.sealing = [s.sealing for s in genesis.seats]
    out.seats = list(genesis.seats)
    out.count, out.head = 1, env.hash
    follower = _Follower(out, spec, options, group)
    try:
        for seq in range(1, len(messages)):
            try:
                e = parse_message(messages[seq], out.keys)
            except TranscriptError as exc:
                follower.fail(seq, None, str(exc))  # a bad signature blames nobody
            if e.table != genesis.table_id or e.seq != seq or e.prev != out.head:
                follower.fail(seq, e.author, "broken chain: wrong table, seq or prev")
            follower.take(seq, e, until)
            out.count, out.head = seq + 1, e.hash
    except _Stop:
        if out.installed:
            return out
    if until is not None:
        return out
    if (follower.msgs or follower.vote is not None) and not follower.closed:
        follower.close(last=True)
    return out


def audit_transcript(messages: Sequence[bytes], registry: GameRegistry, group: Group | None = None) -> dict[str, Any]:
    """Verify a saved transcript: signatures, the hash chain, votes, and every deal's audit.

    Returns ``{"ok", "game", "table", "deals": [{"deal", "verdict", "seat", "reason",
    "result"}], "error", "totals", "winner", "transcript_hash", "votes"}``; ``error`` names
    the first message that breaks the transcript itself (``seq``, ``seat`` or null,
    ``reason``), after which nothing is checked.  The last deal is ``incomplete`` when the
    transcript stops before its seeds are revealed; a deal ended by a vote is ``void``
    (``kind`` vote-out, ``seat`` the seat voted out), and ``votes`` lists the completed votes
    (``{seat, deal, seq, voters, bot: {name, fingerprint, bot, runs_on}}``).  ``ok`` is true
    when nothing is broken and every deal is clean, void by a vote, or incomplete.
    """
    rep = replay_transcript(messages, registry, group=group)
    out: dict[str, Any] = {
        "ok": False,
        "game": rep.genesis.game if rep.genesis else None,
        "table": rep.genesis.table_id.hex() if rep.genesis else None,
        "deals": rep.deals,
        "error": rep.error,
        "totals": list(rep.match.totals) if rep.match is not None else None,
        "winner": rep.match.winner if rep.match is not None else None,
        "transcript_hash": rep.head.hex() if rep.head else None,
        "votes": [r.to_json() for r in rep.replacements],
    }
    out["ok"] = out["error"] is None and all(d["verdict"] in ("clean", "incomplete", "void") for d in rep.deals)
    return out
