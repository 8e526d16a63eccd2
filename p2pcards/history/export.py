"""``p2pcards export LOG``: each deal of a transcript that the audit opened, in the format of
``p2pcards arena --json``, so that whatever reads arena records reads real games too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from p2pcards.core import GameRegistry, GameSpec, load_games, pretty
from p2pcards.history.opened import Opened, open_transcript, read_transcript
from p2pcards.words import Text, summary_text

__all__ = ["EXPORT_EPILOG", "export_records", "run_export"]

EXPORT_EPILOG = """\
Reads a transcript log (DATA/tables/TABLE/seatN.log, or a copy from another machine),
follows it as `p2pcards audit` does, and prints every deal whose cards the audit opened:
the hands dealt, every decision, the tricks and the result, exactly as `p2pcards arena
--json` prints a deal (see `p2pcards arena --help`), so that anything that reads arena
records reads real games.  A deal that was never opened (voided, or forfeited for a fault
before its cards could be replayed) is named but has no record.

A log whose last frame is cut short (a process killed while it wrote it) is exported up to
there, with a warning.  A log that breaks at a message (a signature or a rule that does not
hold) is exported up to that message, and the command says where it stops (exit status 1).

JSON output (--json): one object per line.  For each opened deal, an arena deal record:
  {"type": "deal", "game": NAME, "match": 0, "deal": N (the table's deal), "match_deal": K,
   "dealer": SEAT, "trump": SUIT-LETTER or null, "hands": [[CARD, ...] per seat],
   "events": [...], "tricks": [{"leader", "seats", "cards", "winner"}], "result": RESULT,
   "totals": [...], "match_over": BOOL, "winner": SIDE or null}
then one summary line, arena's summary with what the log adds:
  {"type": "summary", "game": NAME, "options": {...}, "players": [NAME per seat], "seed": null,
   "deals": N (records printed), "matches_finished": 0|1, "wins": [per side],
   "table": HEX, "not_opened": [{"deal": N, "verdict": TEXT, "seat": SEAT or null,
   "reason": TEXT or null}], "finished": BOOL,
   "torn_tail": null or {"bytes": N, "seq": N},
   "error": null or {"seq": N, "seat": SEAT or null, "reason": TEXT}}
Exit status: 0 when the whole log was read; 1 when it breaks before its end (what comes
before is exported); 2 for a file that is not a transcript.
"""


def export_records(opened: Opened) -> tuple[list[dict[str, object]], list[dict[str, object]]]:
    """The arena records of the deals ``opened`` holds, in order, and the deals it could not
    open (``{deal, verdict, seat, reason}``)."""
    records, missing = [], []
    for event in opened.events:
        record = opened.records.get(event["deal"])
        if record is not None:
            records.append(record)
        else:
            a = event["audit"]
            missing.append({"deal": event["deal"], "verdict": a["verdict"], "seat": a["seat"], "reason": a["reason"]})
    return records, missing


def run_export(path: str | Path, json_out: bool, out: TextIO, registry: GameRegistry | None = None,
               text: Text | None = None) -> int:
    """Print the deals of the transcript at ``path`` (module docstring; ``EXPORT_EPILOG``),
    for people in ``text``'s language (default English).

    Returns the exit status (0 or 1); raises :class:`~p2pcards.history.HistoryError` for a
    file that is not a transcript or a game not installed here."""
    path = Path(path)
    messages, torn = read_transcript(path)
    opened = open_transcript(messages, registry if registry is not None else load_games())
    records, missing = export_records(opened)
    spec, genesis = opened.spec, opened.genesis
    names = [s.name for s in genesis.seats]
    torn_tail = {"bytes": torn, "seq": len(messages)} if torn else None
    if json_out:
        for record in records:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
        final = opened.final
        wins = [0] * spec.sides
        if final is not None and final["winner"] is not None:
            wins[final["winner"]] = 1
        summary = {
            "type": "summary", "game": spec.name, "options": dict(genesis.options), "players": names, "seed": None,
            "deals": len(records), "matches_finished": sum(wins), "wins": wins, "table": opened.table_id.hex(),
            "not_opened": missing, "finished": final is not None, "torn_tail": torn_tail, "error": opened.error,
        }
        out.write(json.dumps(summary, separators=(",", ":")) + "\n")
        return 0 if opened.error is None else 1
    t = text or Text("en")
    print(t("export_head", table=opened.table_id.hex()[:16], game=spec.name, n=len(messages),
            deals=t.plural("export_deals", len(records))), file=out)
    if torn_tail:
        print(t("export_torn", bytes=torn, path=path, seq=len(messages)), file=out)
    shown = {r["deal"]: r for r in records}
    for event in opened.events:
        opened_deal = shown.get(event["deal"])
        if opened_deal is None:
            a = event["audit"]
            why = f": {a['reason']}" if a.get("reason") else ""
            verdict = t(f"audit_verdict_{a['verdict']}") if f"audit_verdict_{a['verdict']}" in t else a["verdict"]
            print(t("export_not_opened", deal=event["deal"] + 1, verdict=verdict, why=why), file=out)
            continue
        for line in describe_record(opened_deal, spec, names, t):
            print(line, file=out)
    if opened.error is not None:
        e = opened.error
        who = t("export_breaks_who", seat=e["seat"] + 1, name=names[e["seat"]]) if e.get("seat") is not None else ""
        print(t("export_breaks", seq=e["seq"], who=who, reason=e["reason"]), file=out)
        return 1
    if opened.final is None:
        print(t("export_stops"), file=out)
    return 0


def describe_record(record: dict[str, Any], spec: GameSpec, names: list[str], text: Text | None = None) -> list[str]:
    """An arena deal record for people, in ``text``'s language (default English): seats by
    name and counted from 1, cards with their suits."""
    t = text or Text("en")

    def who(seat: int) -> str:
        return t("export_who", name=names[seat], n=seat + 1) if seat < len(names) else t("audit_seat_of", n=seat + 1)

    trump = t("export_trumps", suit=pretty("A" + record["trump"])[1:]) if record.get("trump") else ""
    lines = [t("export_deal", deal=record["deal"] + 1, dealer=who(record["dealer"]), trump=trump)]
    for seat, hand in enumerate(record["hands"]):
        lines.append(f"  {who(seat)}: {' '.join(pretty(c) for c in hand)}")
    for i, trick in enumerate(record["tricks"]):
        plays = ", ".join(f"{names[s]} {pretty(c)}" for s, c in zip(trick["seats"], trick["cards"]))
        lines.append(t("export_trick", n=i + 1, plays=plays, winner=names[trick["winner"]]))
    teams = spec.teams

    def side(index: int) -> str:
        seats = teams[index] if teams else (index,)
        return " & ".join(names[s] if s < len(names) else t("audit_seat_of", n=s + 1) for s in seats)

    summary = summary_text(spec, t.lang, spec.deal_summary(record["result"]), side, lambda seat, first: who(seat))
    lines += [f"  {line}" for line in summary]
    totals = spec.match_summary(record["totals"], record.get("winner"), {})
    lines += [t("export_match", line=line) for line in summary_text(spec, t.lang, totals, side,
                                                                     lambda seat, first: who(seat))]
    return lines
