"""Fault claims and verdicts: what a dispute says, what a closed deal's audit finds, and
what its verdict is (protocol/PROTOCOL.md, "Faults and disputes" and "Verdicts").

:func:`audit_deal` is what a replica runs when a deal's seeds are in: the deck audit
(:func:`p2pcards.mental.deck_audit`) and then the strict replay of the deal through the rules
with every card known; :func:`verdict` turns it, or the fault that ended the deal early,
into the deal's verdict.  Pure functions of what the replica holds: a
:class:`~p2pcards.table.dealrun.DealRun` gives the deal, the caller acts on the answer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Final, Literal, TypedDict

from p2pcards.core import Choice, DealState, Decision, End, IllegalChoice, Match
from p2pcards.mental import DealSetup, DeckFault, RemoteError, Wire, audit, verify_evidence
from p2pcards.mental.party_state import LiveRecord
from p2pcards.table.common import MAX_REASON, Cause, Rejected
from p2pcards.table.dealrun import DealRun
from p2pcards.table.transcript import TableKind

__all__ = [
    "first_dealer", "dealer_draw", "seeds_draw", "replay_deal", "audit_deal", "Verdict", "CLEAN",
    "check_dispute", "dispute_cause", "dispute_body", "verdict",
]


class Verdict(TypedDict):
    """A closed deal's verdict (protocol/PROTOCOL.md, "Verdicts"): ``clean``; ``renuncia``
    or ``fault`` against ``seat`` (a game seat; None: nobody to blame); ``void`` (nobody to
    blame, the deal does not count); ``vote-out`` (``seat`` was voted out).  ``kind`` says
    which fault (a deck fault's kind, ``renuncia``, ``replay``, ``locate``...), ``reason`` in
    words."""

    verdict: Literal["clean", "renuncia", "fault", "void", "vote-out"]
    seat: int | None
    kind: str | None
    reason: str | None


CLEAN: Verdict = {"verdict": "clean", "seat": None, "kind": None, "reason": None}


#: Domain tag of the first dealer's draw (protocol/PROTOCOL.md, "The first dealer").
FIRST_DEALER_DOMAIN: Final = b"p2pcards/table/v3/first-dealer\x00"


def first_dealer(draw: bytes, seats: int) -> int:
    """The match's first dealer from ``draw`` (:func:`dealer_draw`)."""
    return int.from_bytes(hashlib.sha256(FIRST_DEALER_DOMAIN + draw).digest()[:8], "big") % seats


def dealer_draw(deal_id: bytes, locked: Sequence[bytes]) -> bytes:
    """What the first dealer is drawn from: the first deal's id and its deck as the last
    seat locked it -- a value every seat's committed seed fixes and that no seat knows
    before the last lock, so that the last seat to commit cannot pick the dealer by
    trying seeds (it would need the others' seeds); a seat that does not shuffle or lock
    as its seed says is blamed by the deal's audit."""
    return deal_id + b"".join(locked)


def seeds_draw(table_id: bytes, seeds: Mapping[int, bytes | None]) -> bytes:
    """What the first dealer is drawn from when the first deal closed before its deck was
    locked: the seeds it revealed, by seat (each was committed before any was shown)."""
    return table_id + b"".join(seeds[s] or b"" for s in sorted(seeds))


def replay_deal(match: Match, cards: Sequence[str], choices: Sequence[tuple[int, Choice]]) -> DealState:
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
    deck_msgs: Sequence[Wire],
    seeds: dict[int, bytes],
    match: Match,
    choices: Sequence[tuple[int, Choice]],
    trusted: int | None = None,
    *,
    live: LiveRecord | None = None,
) -> tuple[DealState | None, Verdict]:
    """Deck audit then rules replay: the replayed deal (None on a deck fault) and a verdict.

    ``trusted``: the seat of the replica auditing its own record; ``live``: what its party
    derived and checked while it played (see :func:`p2pcards.mental.deck_audit`).  Both None
    offline, where everything is checked here.

    The verdict is ``clean``, ``renuncia`` (the replay found a seat breaking a play rule;
    ``seat`` is the game seat and the deal's result carries the penalty) or ``fault`` (a
    deck fault: ``seat`` is the deck party to blame; or, with ``seat`` None, the recorded
    choices do not fit the cards).
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
    return replay, CLEAN.copy()


def check_dispute(body: Mapping[str, object], author: int, live: list[bool]) -> tuple[int | None, bytes | None, str]:
    """A dispute's ``(against, evidence, reason)``; :class:`Rejected` if it is malformed."""
    if set(body) != {"against", "reason", "evidence"} or type(body["reason"]) is not str or len(
        body["reason"]
    ) > MAX_REASON:
        raise Rejected("a dispute is {against, reason, evidence}", author)
    against, evidence = body["against"], body["evidence"]
    if against is not None and (type(against) is not int or not 0 <= against < len(live) or not live[against]):
        raise Rejected("a dispute against a seat that does not play", author)
    if evidence is not None and type(evidence) is not bytes:
        raise Rejected("dispute evidence is bytes", author)
    return against, evidence, body["reason"]


def dispute_cause(run: DealRun, accuser: int, against: int | None, evidence: bytes | None, reason: str) -> Cause:
    """What a dispute decides: with evidence of a wrong key, a fixed verdict against the
    accused at once; otherwise the audit decides (the seat it names, or the accuser)."""
    if against is not None and evidence is not None and run.party.deal_id is not None:
        fault = verify_evidence(run.setup, run.deck_msgs, run.pi[against], evidence)
        if fault is not None and fault.seat == run.pi[against]:
            return Cause(str(fault.kind), against, f"seat {against} sealed a wrong key to seat {accuser}", True)
    return Cause("dispute", accuser, reason, False)


def dispute_body(fault: RemoteError, pi: Mapping[int, int]) -> dict[str, object]:
    """The body of this seat's dispute of a fault only it saw."""
    parties = {i: s for s, i in pi.items()}
    against = parties.get(fault.seat) if isinstance(fault, DeckFault) else None
    evidence = fault.evidence if isinstance(fault, DeckFault) else None
    return {"against": against, "reason": str(fault)[:MAX_REASON], "evidence": evidence}


def verdict(run: DealRun, seeds: dict[int, bytes], match: Match, observer: bool) -> tuple[DealState | None, Verdict]:
    """A closed deal's replay (None when it cannot be opened) and verdict, from its
    revealed ``seeds`` (by deck party)."""
    cause = run.cause
    if cause is None:
        return _audited(run, seeds, match, observer)
    if cause.fixed:
        kind = "vote-out" if cause.kind == "vote-out" else cause.kind
        return None, {"verdict": "vote-out" if cause.kind == "vote-out" else "fault", "seat": cause.seat,
                      "kind": kind, "reason": cause.reason}
    report = audit(run.setup, run.deck_msgs, seeds)
    if report.fault is not None:
        f = report.fault
        return None, {"verdict": "fault", "seat": run.parties[f.seat], "kind": str(f.kind), "reason": f.reason}
    if cause.kind == TableKind.DISPUTE:
        return None, {"verdict": "fault", "seat": cause.seat, "kind": "false-dispute",
                      "reason": f"seat {cause.seat} disputed a deal the audit finds clean ({cause.reason})"}
    if cause.kind == TableKind.LOCATE and report.cards is not None:
        holder = run.holder_of(report.cards)
        return None, {"verdict": "fault" if holder is not None else "void", "seat": holder, "kind": "locate",
                      "reason": f"seat {holder} held the card it was asked to show and said it did not"}
    return None, {"verdict": "void", "seat": None, "kind": cause.kind,
                  "reason": f"{cause.reason}; the audit finds nobody to blame"}


def _audited(run: DealRun, seeds: dict[int, bytes], match: Match, observer: bool) -> tuple[DealState | None, Verdict]:
    """A deal that reached its end: the deck audit and the rules replay."""
    live = None
    if run.party.failure is None and run.private is None and not observer:
        live = run.party.live_record()
    replay, found = audit_deal(run.setup, run.deck_msgs, seeds, match, run.choices, live=live)
    if found["seat"] is not None:
        found["seat"] = run.parties[found["seat"]] if found["verdict"] == "fault" else found["seat"]
    if found["verdict"] == "fault":
        replay = None
        if found["seat"] is None:  # the replay refused a choice: nobody to blame
            found["verdict"] = "void"
    return replay, found
