"""How the command's records read for people: arena deals, a duel's report, and the lines of
a table played over the network (_TablePrinter, which prints the --json objects as they are)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from p2pcards.cli.common import _words
from p2pcards.core import GameRegistry, GameSpec
from p2pcards.table.events import TableEvent


def _describe_duel(report: dict[str, Any]) -> list[str]:
    """A duel's report as a few aligned lines for people: seats counted from 1."""
    t = _words()

    def joined(items: list[str]) -> str:
        return "".join(items) if len(items) < 2 else t("text_and", a=", ".join(items[:-1]), b=items[-1])

    plays = [joined([str(s + 1) for s in seats]) for seats in report["seating"]]
    pairs = report["pairs"]
    measure = report["measure"]
    better = t(f"duel_better_{measure['better']}") if f"duel_better_{measure['better']}" in t else measure["better"]
    name = t(f"stats_measure_{measure['name']}") if f"stats_measure_{measure['name']}" in t else measure["name"]
    lines = [
        t("duel_head", game=report["game"], a=report["a"], b=report["b"], pairs=t.plural("duel_pairs", pairs),
          deals=t.plural("duel_deals", pairs * report["plays_per_pair"]), seed=report["seed"]),
        t("duel_seating", n=report["plays_per_pair"], seats=t.plural("duel_seats", len(report["seating"][0])),
          plays=t("duel_then").join(plays)),
        t("duel_rate", wins=report["wins"], ties=report["ties"], losses=report["losses"],
          rate=float(report["win_rate"] * 100), lo=float(report["interval"][0] * 100),
          hi=float(report["interval"][1] * 100)),
        t("duel_mean", measure=name, better=better, a=float(report["mean"]["a"]), b=float(report["mean"]["b"])),
        f"{t('duel_ms'):<20} {t('duel_mean_col'):>9} {'p50':>9} {'p99':>9} {t('duel_decisions'):>10}",
    ]
    width = max(len(report["a"]), len(report["b"]))
    for side in ("a", "b"):
        m = report["ms_per_decision"][side]
        who = f"  {side.upper()} {report[side]:<{width}}"
        lines.append(t("duel_row", who=f"{who:<20}", mean=float(m["mean"]), p50=float(m["p50"]), p99=float(m["p99"]),
                       decisions=m["decisions"]))
    for side in ("a", "b"):  # a search's effort, and what it did not search (never silent)
        worlds = report.get("worlds_per_decision", {}).get(side)
        if worlds:
            lines.append(t("duel_worlds", side=side.upper(), mean=float(worlds["mean"]), low=worlds["min"],
                           high=worlds["max"], decisions=worlds["decisions"]))
        fell = report.get("fallbacks", {}).get(side)
        if fell:
            lines.append(t("duel_fallbacks", side=side.upper(), n=sum(fell.values()),
                           why=", ".join(f"{reason} {n}" for reason, n in fell.items())))
        capped = report.get("capped", {}).get(side)
        if capped:
            lines.append(t("duel_capped", side=side.upper(), n=capped))
        slips = report.get("slips", {}).get(side)
        if slips:
            lines.append(t("duel_slips", side=side.upper(), n=slips))
    lines.append(t("duel_total", seconds=float(report["seconds"]), jobs=t.plural("duel_jobs", report["jobs"])))
    return lines


def _side(spec: GameSpec, side: int) -> str:
    """A match's side for people: a team by its seats, or a seat, counted from 1."""
    t = _words()
    if spec.teams and 0 <= side < len(spec.teams):
        seats = [str(s + 1) for s in spec.teams[side]]
        joined = "".join(seats) if len(seats) < 2 else t("text_and", a=", ".join(seats[:-1]), b=seats[-1])
        return t("arena_team", n=side + 1, seats=joined)
    return t("audit_seat_of", n=side + 1)


def _describe(record: dict[str, Any], spec: GameSpec) -> str:
    """An arena record as a line for people: matches, deals and seats counted from 1, the
    deal's result as the game words it (the JSON form is ``--json``'s)."""
    from p2pcards.core import pretty
    from p2pcards.words.games import summary_text

    t = _words()
    if record["type"] == "summary":
        return t("arena_summary", deals=t.plural("arena_deals", record["deals"]),
                 finished=t.plural("arena_finished", record["matches_finished"]), wins=record["wins"])
    trump = pretty("A" + record["trump"])[1:] if record["trump"] else "-"
    over = t("arena_won", side=_side(spec, record["winner"])) if record["match_over"] and record["winner"] is not None \
        else ""
    try:
        def seat_name(seat: int, _you: bool = False) -> str:
            return t("audit_seat_of", n=seat + 1)

        summary = spec.deal_summary(record["result"])
        said = "; ".join(summary_text(spec, t.lang, summary, lambda side: _side(spec, side), seat_name, mark=""))
    except Exception:  # noqa: BLE001 -- a result the game's words cannot read: as it is
        said = json.dumps({k: v for k, v in record["result"].items() if v is not None})
    return t("arena_deal", match=record["match"] + 1, deal=record["deal"] + 1, dealer=record["dealer"] + 1,
             trump=trump, result=said, totals=record["totals"], over=over)


class _TablePrinter:
    """Prints a table's lines: JSON objects (the --json contract) or sentences for people."""

    def __init__(self, out: TextIO, as_json: bool) -> None:
        self.out = out
        self.json = as_json
        self.table: dict[str, Any] | None = None
        self.first: int | None = None
        self.data: Any = None
        self.voted_out = False
        #: the installed games, to name a match's winning team (None: sides are told by number)
        self.registry: GameRegistry | None = None
        #: the history the table is recorded in (handed to the node)
        self.recorder: Any = None
        #: the words of the lines for people (``--lang``)
        self.t = _words()

    def seat(self, seat: int) -> str:
        """A seat as people see it: "seat N" counted from 1, with its name once the table is known."""
        names = [s["name"] for s in self.table["seats"]] if self.table else []
        if 0 <= seat < len(names):
            return self.t("printer_seat", n=seat + 1, name=names[seat])
        return self.t("audit_seat_of", n=seat + 1)

    def seats(self, seats: Sequence[int]) -> str:
        return self.joined([self.seat(s) for s in seats])

    def joined(self, items: Sequence[str]) -> str:
        """"a", "a and b", "a, b and c", in the printer's words."""
        if len(items) < 2:
            return "".join(items)
        return self.t("text_and", a=", ".join(items[:-1]), b=items[-1])

    def side(self, side: int) -> str:
        """A match's winning side: a team (its seats) or a seat."""
        spec = self.registry.games.get(self.table["game"]) if self.registry and self.table else None
        if spec is not None and spec.teams and 0 <= side < len(spec.teams):
            return self.seats(spec.teams[side])
        return self.seat(side)

    def line(self, obj: dict[str, Any], text: str) -> None:
        self.out.write((json.dumps(obj) if self.json else text) + "\n")
        self.out.flush()

    def listening(self, address: str, port: int, game: str) -> None:
        where = f"{address}:{port}"
        if address in ("0.0.0.0", "::"):  # every interface: the addresses this machine has on its networks
            from p2pcards.discovery.interfaces import local_addresses
            from p2pcards.net.address import format_host_port

            try:
                lan = local_addresses()
            except Exception:  # noqa: BLE001 -- a hint: without the list, loopback only
                lan = []
            dial = [format_host_port(a, port) for a in lan] or [f"127.0.0.1:{port}"]
            first = dial[0]
            hint = first + (self.t("printer_or", others=", ".join(dial[1:])) if len(dial) > 1 else "")
            if lan:
                hint += self.t("printer_here", port=port)
        else:
            first = hint = where
        self.line({"type": "listening", "address": address, "port": port, "game": game},
                  self.t("printer_listening", game=game, where=where, hint=hint, first=first))

    def seated(self, info: dict[str, Any]) -> None:
        self.line(info, self.t("printer_seated", seat=info["seat"] + 1, game=info["game"], host=info["host"]["name"],
                               timeout=float(info["timeout"])))

    def on_table(self, info: dict[str, Any]) -> None:
        self.table = info
        self.first = min(info["local_seats"]) if info["local_seats"] else None
        t = self.t
        seats = "; ".join(
            f"{s['seat'] + 1}: {s['name']} ({s['fingerprint']}"
            + (t("printer_bot", level=t(f"stats_level_{s['bot']}") if f"stats_level_{s['bot']}" in t else s["bot"])
               if s["bot"] else "")
            + (t("printer_runs_on", fp=s["runs_on"]) if s["runs_on"] else "") + ")"
            for s in info["seats"]
        )
        self.line(info, t("printer_starts", table=info["table"][:16], game=info["game"], seats=seats))

    def resumed(self, info: dict[str, Any]) -> None:
        t = self.t
        seats = ", ".join(str(s + 1) for s in info["seats"])
        state = t("printer_taking_up") if info.get("taking_up") else (
            t("printer_over") if info["finished"] else t("printer_reconnecting"))
        self.line(info, t("printer_resuming", table=info["table"][:16], game=info["game"],
                          seats_word=t.plural("resume_seats", len(info["seats"])), seats=seats,
                          messages=t.plural("audit_messages", info["seq"]),
                          deals=t.plural("printer_deals_done", info["deals_done"]), state=state))

    def on_event(self, seat: int, told: TableEvent) -> None:
        if seat != self.first or self.table is None:
            return
        event = told.to_json()
        obj = {**event, "table": self.table["table"], "seat": seat}
        kind = event["type"]
        if kind == "vote_out":
            self.line(obj, self.t("printer_vote_out", seat=self.seat(event["against"]),
                                  voters=self.seats(event["voters"]), deal=event["deal"] + 1))
            return
        if kind == "dispute":
            against = "" if event["against"] is None else self.t("printer_against", seat=self.seat(event["against"]))
            self.line(obj, self.t("printer_dispute", seat=self.seat(event["accuser"]), deal=event["deal"] + 1,
                                  against=against, reason=event["reason"]))
            return
        if kind == "fork":
            self.line(obj, self.t("printer_fork", seat=self.seat(event["against"]), seq=event["seq"],
                                  deal=event["deal"] + 1))
            return
        if kind == "voted_out":
            self.voted_out = True
            return
        if kind == "taken_up":
            self.line(obj, self.t("printer_taken_up", seat=self.seat(event["abandon"]["by"]), deal=event["deal"] + 1))
            return
        if kind != "deal" and kind != "final":
            return
        if kind == "final":
            from p2pcards.net.store import log_path

            obj["log"] = str(log_path(self.data, bytes.fromhex(self.table["table"]), seat)) if self.data else None
            obj["voted_out"] = bool(event.get("voted_out")) or self.voted_out
            obj.setdefault("abandoned", None)
            t = self.t
            if event["winner"] is not None:
                winner = t("printer_won_by", side=self.side(event["winner"]))
            else:
                winner = t("printer_stopped")
            if obj["abandoned"]:
                a = obj["abandoned"]
                behind = t("audit_behind", n=a["behind"]) if a.get("behind") else ""
                winner = t("printer_abandoned", seat=self.seat(a["by"]), behind=behind, deal=a["deal"] + 1)
            out = t("printer_watched") if obj["voted_out"] else ""
            self.line(obj, t("printer_final", deals=t.plural("printer_deals", event["deals"]), out=out, winner=winner,
                             totals=event["totals"], transcript=event["transcript_hash"][:16], log=obj["log"]))
            return
        from p2pcards.core import pretty

        t = self.t
        audit = event["audit"]
        verdict = t(f"audit_verdict_{audit['verdict']}") if f"audit_verdict_{audit['verdict']}" in t \
            else audit["verdict"]
        if audit["seat"] is not None or audit["reason"]:
            who = "" if audit["seat"] is None else f"{self.seat(audit['seat'])}: "
            verdict += f" ({who}{audit['reason']})"
        trump = pretty("A" + event["trump"])[1:] if event["trump"] else "-"
        result = json.dumps({k: v for k, v in (event["result"] or {}).items() if v is not None}) \
            if event["result"] else t("printer_void")
        over = t("printer_match_won", side=self.side(event["winner"])) \
            if event["match_over"] and event["winner"] is not None else ""
        self.line(obj, t("printer_deal", deal=event["deal"] + 1, dealer=self.seat(event["dealer"]), trump=trump,
                         result=result, verdict=verdict, totals=event["totals"], over=over))


def _network_start(args: Any, out: TextIO, registry: GameRegistry) -> tuple[float, Any, _TablePrinter]:
    """What host, join and resume do before they touch the network: the linger checked,
    logging set up, this peer's identity, and the printer that tells of the table (with
    the data directory and the games).  Returns ``(linger, identity, printer)``."""
    from p2pcards.cli.common import _check_linger, _identity, _setup_logging
    from p2pcards.history.db import Recorder
    from p2pcards.identity import data_dir

    linger = _check_linger(args)
    _setup_logging(args.verbose)
    me = _identity()
    printer = _TablePrinter(out, args.json)
    printer.data, printer.registry = data_dir(), registry
    printer.recorder = Recorder(registry)
    return linger, me, printer
