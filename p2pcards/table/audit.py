"""The end-of-deal audit, live and offline.

:func:`audit_deal` is what a replica runs when a deal's seeds are in: the deck audit
(:func:`p2pcards.mental.audit`) and then the strict replay of the deal through the rules
with every card known.  :func:`replay_transcript` follows a whole saved transcript with no
private key -- it feeds it to an observer :class:`~p2pcards.table.table.Table`, which checks
what every seated replica checks: encodings and signatures, the chain, turns, the game's
public rules, the deck's public checks, every certificate, and every deal's audit -- and
:func:`audit_transcript` reports on it (``p2pcards audit LOGFILE``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p2pcards.core import DealState, Decision, End, GameRegistry, GameSpec, IllegalChoice, Match
from p2pcards.mental import DealSetup, Group, audit
from p2pcards.mental.party import LiveRecord
from p2pcards.table.transcript import Genesis, TranscriptError, VersionError, parse_message

if TYPE_CHECKING:
    from p2pcards.table.table import Table

__all__ = [
    "audit_deal",
    "audit_transcript",
    "replay_deal",
    "replay_transcript",
    "first_dealer",
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
    return replay, dict(CLEAN)


@dataclass
class Replayed:
    """Where a transcript leads, followed publicly (see :func:`replay_transcript`)."""

    genesis: Genesis | None = None
    spec: GameSpec | None = None
    #: The observer replica that followed it (None when the genesis itself is bad).
    table: Table | None = None
    #: Messages taken (the genesis included) and the chain head after them.
    count: int = 0
    head: bytes = b""
    #: One event per closed deal, as a live replica emits it (``type`` "deal").
    events: list[dict[str, Any]] = field(default_factory=list)
    finished: bool = False
    #: The first message that breaks the transcript: ``{seq, seat or None, reason}``.
    error: dict[str, Any] | None = None


def replay_transcript(
    messages: Sequence[bytes],
    registry: GameRegistry | None = None,
    *,
    spec: GameSpec | None = None,
    group: Group | None = None,
    table_class: type[Table] | None = None,
    on_event: Callable[[dict[str, Any]], None] | None = None,
) -> Replayed:
    """Follow a transcript publicly with an observer replica, message by message.

    ``spec`` is the game (else looked up in ``registry``).  Stops at the first message the
    observer refuses (``error``).  ``table_class`` is the replica's class (a subclass of
    :class:`Table` that reports more), ``on_event`` hears every event it emits.
    """
    from p2pcards.table.table import Rejected, SetupError, Table

    out = Replayed()
    if not messages:
        out.error = {"seq": 0, "seat": None, "reason": "empty transcript"}
        return out
    try:
        genesis = Genesis.from_body(parse_message(messages[0], None).body)
    except VersionError as exc:
        out.error = {"seq": 0, "seat": None, "reason": f"protocol version: {exc}"}
        return out
    except TranscriptError as exc:
        out.error = {"seq": 0, "seat": None, "reason": f"bad genesis: {exc}"}
        return out
    out.genesis = genesis
    try:
        if spec is None:
            if registry is None:
                raise KeyError("no game registry")
            spec = registry.get(genesis.game)
        table = (table_class or Table)(messages[0], spec, None, group=group, on_event=_collect(out, on_event))
    except (KeyError, SetupError) as exc:
        out.error = {"seq": 0, "seat": None, "reason": f"cannot replay this game here: {exc}"}
        return out
    out.spec, out.table = spec, table
    for seq in range(1, len(messages)):
        try:
            table.receive(messages[seq])
        except Rejected as exc:
            out.error = {"seq": seq, "seat": exc.blame, "reason": exc.reason}
            break
        if table.seq != seq + 1:
            out.error = {"seq": seq, "seat": None, "reason": "not the next message of the chain"}
            break
    out.count, out.head, out.finished = table.seq, table.head, table.finished
    return out


def _collect(out: Replayed, also: Callable[[dict[str, Any]], None] | None = None) -> Any:
    def on_event(event: dict[str, Any]) -> None:
        if event["type"] == "deal":
            out.events.append(event)
        if also is not None:
            also(event)

    return on_event


def audit_transcript(messages: Sequence[bytes], registry: GameRegistry, group: Group | None = None) -> dict[str, Any]:
    """Verify a saved transcript: what every seated replica checks (:func:`replay_transcript`).

    Returns ``{"ok", "game", "table", "deals": [{"deal", "verdict", "seat", "kind", "reason",
    "result"}], "error", "totals", "winner", "transcript_hash", "votes", "dummies",
    "finished", "abandoned"}``; ``error`` names the first message that breaks the transcript
    (``seq``, ``seat`` or null, ``reason``), after which nothing is checked.  A last deal the
    transcript stops in is ``incomplete``.  ``ok`` is true when nothing is broken and no
    deal names a cheat: every deal is ``clean``, ``vote-out`` (a silent seat, no cheat),
    ``void`` (nobody to blame) or ``incomplete``; a ``renuncia`` or a ``fault`` is not ok.
    """
    rep = replay_transcript(messages, registry, group=group)
    table = rep.table
    deals = [{"deal": e["deal"], **{k: e["audit"][k] for k in ("verdict", "seat", "kind", "reason")},
              "result": e["result"]} for e in rep.events]
    if table is not None and not table.finished and table.seq > table.deal_start:
        deals.append({"deal": table.deal_no, "verdict": "incomplete", "seat": None, "kind": None,
                      "reason": "the transcript stops before this deal closes", "result": None})
    match = table.match if table is not None else None
    out: dict[str, Any] = {
        "ok": False,
        "game": rep.genesis.game if rep.genesis else None,
        "table": rep.genesis.table_id.hex() if rep.genesis else None,
        "deals": deals,
        "error": rep.error,
        "totals": list(match.totals) if match is not None else None,
        "winner": match.winner if match is not None else None,
        "transcript_hash": rep.head.hex() if rep.head else None,
        "votes": list(table.outvotes) if table is not None else [],
        "dummies": table.dummies if table is not None else [],
        "finished": rep.finished,
        "abandoned": table.abandoned if table is not None else None,
    }
    out["ok"] = out["error"] is None and all(d["verdict"] in ("clean", "vote-out", "void", "incomplete")
                                             for d in deals)
    return out
