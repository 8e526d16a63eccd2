"""Fault claims: what a table's replicas do when a seat disputes a deal (a fault only it
could see), when every replica sees a fault in the same message, and what the audit's
verdict of a deal is (protocol/PROTOCOL.md, "Faults and disputes" and "Verdicts").

Functions over a :class:`~p2pcards.table.table.Table`, called where a dispute arrives, a
public fault is found, or a deal's seeds are all in.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from p2pcards.core.game import DealState, Locate
from p2pcards.mental import DeckFault, MalformedMessage, RemoteError, UnattributedFault, audit, verify_evidence
from p2pcards.table.audit import audit_deal
from p2pcards.table.common import MAX_REASON, Cause, Rejected
from p2pcards.table.transcript import Envelope, TableKind

if TYPE_CHECKING:
    from p2pcards.table.table import Table


def public_cause(t: Table, exc: RemoteError, author: int) -> Cause:
    """The verdict of a fault every replica saw in the same message."""
    if isinstance(exc, DeckFault):
        return Cause(str(exc.kind), t._parties[exc.seat], exc.reason, True)
    if isinstance(exc, UnattributedFault):
        return Cause("unattributed", None, exc.reason, False)
    if isinstance(exc, MalformedMessage):
        return Cause("malformed", author, exc.reason, True)
    return Cause("malformed", author, str(exc), True)  # pragma: no cover


def on_dispute(t: Table, env: Envelope) -> None:
    """A seat disputes the deal in its turn: a fault only it could see.  With evidence
    of a wrong key the verdict is fixed at once; otherwise every seat reveals its seed
    and the audit decides (the seat it names, or the accuser when it finds nothing)."""
    body = env.body
    if set(body) != {"against", "reason", "evidence"} or type(body["reason"]) is not str or len(
        body["reason"]
    ) > MAX_REASON:
        raise Rejected("a dispute is {against, reason, evidence}", env.author)
    against, evidence = body["against"], body["evidence"]
    if against is not None and (type(against) is not int or not 0 <= against < t.n or not t.live[against]):
        raise Rejected("a dispute against a seat that does not play", env.author)
    if evidence is not None and type(evidence) is not bytes:
        raise Rejected("dispute evidence is bytes", env.author)
    t._append(env)
    t._emit({"type": "dispute", "accuser": env.author, "deal": t.deal_no, "against": against,
                "reason": body["reason"]})
    if against is not None and evidence is not None and t.party.deal_id is not None:
        fault = verify_evidence(t.setup, t.deck_msgs, t._pi[against], evidence)
        if fault is not None and fault.seat == t._pi[against]:
            t._halt(Cause(str(fault.kind), against, f"seat {against} sealed a wrong key to seat "
                              f"{env.author}", True))
            return
    t._halt(Cause("dispute", env.author, body["reason"], False))


def verdict(t: Table, seeds: dict[int, bytes]) -> None:
    cause = t._cause
    replay: DealState | None = None
    if cause is None:
        live = None
        if t.party.failure is None and t.private is None and not t.observer:
            live = t.party.live_record()
        replay, verdict = audit_deal(t.setup, t.deck_msgs, seeds, t._match(), t.choices, live=live)
        if verdict["seat"] is not None:
            verdict["seat"] = t._parties[verdict["seat"]] if verdict["verdict"] == "fault" else verdict["seat"]
        if verdict["verdict"] == "fault":
            replay = None
            if verdict["seat"] is None:  # the replay refused a choice: nobody to blame
                verdict["verdict"] = "void"
    elif cause.fixed:
        kind = "vote-out" if cause.kind == "vote-out" else cause.kind
        verdict = {"verdict": "vote-out" if cause.kind == "vote-out" else "fault", "seat": cause.seat,
                   "kind": kind, "reason": cause.reason}
    else:
        report = audit(t.setup, t.deck_msgs, seeds)
        if report.fault is not None:
            f = report.fault
            seat = t._parties[f.seat]
            verdict = {"verdict": "fault", "seat": seat, "kind": str(f.kind), "reason": f.reason}
        elif cause.kind == TableKind.DISPUTE:
            verdict = {"verdict": "fault", "seat": cause.seat, "kind": "false-dispute",
                       "reason": f"seat {cause.seat} disputed a deal the audit finds clean ({cause.reason})"}
        elif cause.kind == TableKind.LOCATE and report.cards is not None:
            holder = holder_of(t, report.cards)
            verdict = {"verdict": "fault" if holder is not None else "void", "seat": holder, "kind": "locate",
                       "reason": f"seat {holder} held the card it was asked to show and said it did not"}
        else:
            verdict = {"verdict": "void", "seat": None, "kind": cause.kind,
                       "reason": f"{cause.reason}; the audit finds nobody to blame"}
    t._finish_deal(replay, verdict)


def holder_of(t: Table, cards: Sequence[str]) -> int | None:
    step = t._playing().step() if t.game is not None else None
    if not isinstance(step, Locate):
        return None
    pos = list(cards).index(step.card)
    owner = t._playing().deck.owner[pos]
    return owner if owner >= 0 else None


def dispute_body(fault: RemoteError, pi: dict[int, int]) -> dict[str, Any]:
    parties = {i: s for s, i in pi.items()}
    against = parties.get(fault.seat) if isinstance(fault, DeckFault) else None
    evidence = fault.evidence if isinstance(fault, DeckFault) else None
    return {"against": against, "reason": str(fault)[:MAX_REASON], "evidence": evidence}
