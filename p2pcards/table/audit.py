"""The offline audit of a saved transcript (``p2pcards audit LOGFILE``).

:func:`replay_transcript` follows a whole saved transcript with no private key -- it feeds
it to an observer :class:`~p2pcards.table.table.Table`, which checks what every seated
replica checks: encodings and signatures, the chain, turns, the game's public rules, the
deck's public checks, every certificate, and every deal's audit (the one a live replica
runs when a deal closes: :func:`~p2pcards.table.claims.audit_deal`) -- and
:func:`audit_transcript` reports on it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2pcards.core import GameRegistry, GameSpec
from p2pcards.mental import Group
from p2pcards.table.claims import CLEAN, Verdict, audit_deal, first_dealer, replay_deal
from p2pcards.table.common import Rejected, SetupError
from p2pcards.table.events import DealClosed, TableEvent
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, TranscriptError, VersionError, parse_message

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
    #: One event per closed deal, as a live replica tells it.
    events: list[DealClosed] = field(default_factory=list)
    finished: bool = False
    #: The first message that breaks the transcript: ``{seq, seat or None, reason}``.
    error: dict[str, object] | None = None


def replay_transcript(
    messages: Sequence[bytes],
    registry: GameRegistry | None = None,
    *,
    spec: GameSpec | None = None,
    group: Group | None = None,
    table_class: type[Table] | None = None,
    on_event: Callable[[TableEvent], None] | None = None,
) -> Replayed:
    """Follow a transcript publicly with an observer replica, message by message.

    ``spec`` is the game (else looked up in ``registry``).  Stops at the first message the
    observer refuses (``error``).  ``table_class`` is the replica's class (a subclass of
    :class:`Table` that keeps more), ``on_event`` hears every event it tells.
    """
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
        table = (table_class or Table)(messages[0], spec, None, group=group)
    except (KeyError, SetupError) as exc:
        out.error = {"seq": 0, "seat": None, "reason": f"cannot replay this game here: {exc}"}
        return out
    out.spec, out.table = spec, table
    for seq in range(1, len(messages)):
        try:
            events = table.receive(messages[seq]).events
        except Rejected as exc:
            out.error = {"seq": seq, "seat": exc.blame, "reason": exc.reason}
            break
        for event in events:
            if isinstance(event, DealClosed):
                out.events.append(event)
            if on_event is not None:
                on_event(event)
        if table.seq != seq + 1:
            out.error = {"seq": seq, "seat": None, "reason": "not the next message of the chain"}
            break
    out.count, out.head, out.finished = table.seq, table.head, table.finished
    return out


def audit_transcript(messages: Sequence[bytes], registry: GameRegistry,
                     group: Group | None = None) -> dict[str, object]:
    """Verify a saved transcript: what every seated replica checks (:func:`replay_transcript`).

    Returns ``{"ok", "game", "table", "deals": [{"deal", "verdict", "seat", "kind", "reason",
    "result"}], "error", "totals", "winner", "transcript_hash", "votes", "dummies",
    "finished", "abandoned", "abandons"}`` (``abandoned``: the abandon that ended the table, else
    null; ``abandons``: every abandon, each with its ``seq`` and whether it was ``taken_up``);
    ``error`` names the first message that breaks the transcript (``seq``, ``seat`` or null,
    ``reason``), after which nothing is checked.  A last deal the
    transcript stops in is ``incomplete``.  ``ok`` is true when nothing is broken and no
    deal names a cheat: every deal is ``clean``, ``vote-out`` (a silent seat, no cheat),
    ``void`` (nobody to blame) or ``incomplete``; a ``renuncia`` or a ``fault`` is not ok.
    """
    rep = replay_transcript(messages, registry, group=group)
    table = rep.table
    deals = [{"deal": e.deal, **{k: e.audit[k] for k in ("verdict", "seat", "kind", "reason")},
              "result": e.result} for e in rep.events]
    if table is not None and not table.finished and table.seq > table.deal_start:
        deals.append({"deal": table.deal_no, "verdict": "incomplete", "seat": None, "kind": None,
                      "reason": "the transcript stops before this deal closes", "result": None})
    match = table.match if table is not None else None
    out: dict[str, object] = {
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
        "abandons": [dict(a) for a in table.abandons] if table is not None else [],
    }
    out["ok"] = out["error"] is None and all(d["verdict"] in ("clean", "vote-out", "void", "incomplete")
                                             for d in deals)
    return out
