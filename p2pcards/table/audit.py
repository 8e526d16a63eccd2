"""The end-of-deal audit, live and offline.

:func:`audit_deal` is what every replica runs when a deal's seeds are in: the deck audit
(:func:`p2pcards.mental.audit`) and then the strict replay of the deal through the rules
with every card known.  :func:`audit_transcript` verifies a whole saved transcript the
same way, deal by deal, with no private key (``p2pcards audit LOGFILE``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from p2pcards.core import DealState, Decision, End, GameRegistry, IllegalChoice, Match, OptionError
from p2pcards.mental import DealSetup, DeckFault, Group, Ristretto255, audit
from p2pcards.mental.kdf import deal_id
from p2pcards.mental.messages import Commit, decode
from p2pcards.table.transcript import Genesis, TranscriptError, parse_message

__all__ = ["audit_deal", "audit_transcript", "replay_deal", "first_dealer", "Verdict", "CLEAN"]

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
) -> tuple[DealState | None, Verdict]:
    """Deck audit then rules replay: the replayed deal (None on a deck fault) and a verdict.

    The verdict is ``clean``, ``renuncia`` (the replay found a seat breaking a play rule;
    the deal's result then carries the penalty) or ``fault`` (a deck fault: the deal is
    void and ``seat`` is to blame).
    """
    report = audit(setup, deck_msgs, seeds)
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


def audit_transcript(messages: Sequence[bytes], registry: GameRegistry, group: Group | None = None) -> dict[str, Any]:
    """Verify a saved transcript: signatures, the hash chain, and every deal's audit.

    Returns ``{"ok", "game", "table", "deals": [{"deal", "verdict", "seat", "reason",
    "result"}], "error", "totals", "winner", "transcript_hash"}``; ``error`` names the
    first message that breaks the transcript itself (``seq``, ``seat`` or null,
    ``reason``), after which nothing is checked.  The last deal is ``incomplete`` when
    the transcript stops before its seeds are revealed.
    """
    group = group or Ristretto255()
    out: dict[str, Any] = {"ok": False, "game": None, "table": None, "deals": [], "error": None,
                           "totals": None, "winner": None, "transcript_hash": None}
    if not messages:
        out["error"] = {"seq": 0, "seat": None, "reason": "empty transcript"}
        return out
    try:
        env = parse_message(messages[0], None)
        genesis = Genesis.from_body(env.body)
        if env.table != genesis.table_id or env.seq != 0:
            raise TranscriptError("the genesis does not carry its own table id")
    except TranscriptError as exc:
        out["error"] = {"seq": 0, "seat": None, "reason": f"bad genesis: {exc}"}
        return out
    out["game"], out["table"] = genesis.game, genesis.table_id.hex()
    try:
        spec = registry.get(genesis.game)
        options = spec.resolve_options({k: str(v) for k, v in genesis.options.items()})
    except (KeyError, OptionError) as exc:
        out["error"] = {"seq": 0, "seat": None, "reason": f"cannot replay this game here: {exc}"}
        return out
    keys = [s.signing for s in genesis.seats]
    sealing = [s.sealing for s in genesis.seats]
    head = env.hash
    # messages per deal: (deck msgs, choices)
    deals: list[tuple[list[dict[str, Any]], list[tuple[int, Any]]]] = []
    for seq in range(1, len(messages)):
        try:
            e = parse_message(messages[seq], keys)
        except TranscriptError as exc:
            out["error"] = {"seq": seq, "seat": None, "reason": str(exc)}
            break
        if e.table != genesis.table_id or e.seq != seq or e.prev != head:
            out["error"] = {"seq": seq, "seat": e.author, "reason": "broken chain: wrong table, seq or prev"}
            break
        if e.deal != len(deals) - 1:
            if e.deal != len(deals):
                out["error"] = {"seq": seq, "seat": e.author, "reason": f"deal number {e.deal} out of order"}
                break
            deals.append(([], []))
        msgs, choices = deals[-1]
        body = e.body
        if isinstance(body.get("msgs"), list):
            msgs.extend(m for m in body["msgs"] if isinstance(m, dict))
        if e.kind == "choice" and "choice" in body:
            choices.append((e.author, body["choice"]))
        head = e.hash
    out["transcript_hash"] = head.hex()
    match: Match | None = None
    for number, (msgs, choices) in enumerate(deals):
        setup = DealSetup(group=group, table_id=genesis.table_id, deal_number=number, deck=spec.deck,
                          signing_keys=keys, sealing_keys=sealing)
        if match is None:
            did = _commit_deal_id(setup, msgs)
            match = spec.new_match(options, first_dealer(did, spec.seats) if did else 0)
        seeds = {m["seat"]: m["seed"] for m in msgs if m.get("kind") == "seed" and isinstance(m.get("seat"), int)}
        last = number == len(deals) - 1
        if last and (len(seeds) < spec.seats or out["error"] is not None):
            reason = ("the transcript stops before the seeds" if out["error"] is None
                      else "not checked: the transcript breaks inside this deal")
            out["deals"].append({"deal": number, "verdict": "incomplete", "seat": None, "reason": reason,
                                 "result": None})
            break
        replay, verdict = audit_deal(setup, msgs, seeds, match, choices)
        if replay is not None:
            match.record(replay)
        else:
            match.void()
        out["deals"].append({"deal": number, **{k: verdict[k] for k in ("verdict", "seat", "reason")},
                             "result": replay.result if replay is not None else None})
    if match is not None:
        out["totals"], out["winner"] = list(match.totals), match.winner
    out["ok"] = out["error"] is None and all(d["verdict"] in ("clean", "incomplete") for d in out["deals"])
    return out
