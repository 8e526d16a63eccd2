"""How the command's records read for people: arena deals, a duel's report, and the lines of
a table played over the network (_TablePrinter, which prints the --json objects as they are)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from p2pcards.cli.common import _and, _count
from p2pcards.core import GameRegistry, GameSpec
from p2pcards.table.events import TableEvent


def _describe_duel(report: dict[str, Any]) -> list[str]:
    """A duel's report as a few aligned lines for people: seats counted from 1."""
    plays = [_and([str(s + 1) for s in seats]) for seats in report["seating"]]
    seat_word = "seats" if len(report["seating"][0]) > 1 else "seat"
    pairs = report["pairs"]
    measure = report["measure"]
    lines = [
        f"{report['game']}: A {report['a']} against B {report['b']}, {_count(pairs, 'pair')} "
        f"({_count(pairs * report['plays_per_pair'], 'deal')}), seed {report['seed']}",
        f"each deal played {report['plays_per_pair']} times: A in {seat_word} {', then '.join(plays)}; "
        "B in the other seats",
        f"A won {report['wins']}, tied {report['ties']}, lost {report['losses']}: win rate "
        f"{report['win_rate'] * 100:.1f} % (95 % interval {report['interval'][0] * 100:.1f} to "
        f"{report['interval'][1] * 100:.1f} %)",
        f"{measure['name']} per deal ({measure['better']} is better): A {report['mean']['a']:.2f}, "
        f"B {report['mean']['b']:.2f}",
        f"{'ms per decision':<20} {'mean':>9} {'p50':>9} {'p99':>9} {'decisions':>10}",
    ]
    width = max(len(report["a"]), len(report["b"]))
    for side in ("a", "b"):
        t = report["ms_per_decision"][side]
        who = f"  {side.upper()} {report[side]:<{width}}"
        lines.append(f"{who:<20} {t['mean']:>9.3f} {t['p50']:>9.3f} {t['p99']:>9.3f} {t['decisions']:>10}")
    lines.append(f"total {report['seconds']:.2f} s on {_count(report['jobs'], 'job')}")
    return lines


def _side(spec: GameSpec, side: int) -> str:
    """A match's side for people: a team by its seats, or a seat, counted from 1."""
    if spec.teams and 0 <= side < len(spec.teams):
        return f"team {side + 1} (seats {_and([str(s + 1) for s in spec.teams[side]])})"
    return f"seat {side + 1}"


def _describe(record: dict[str, Any], spec: GameSpec) -> str:
    """An arena record as a line for people: matches, deals and seats counted from 1, the
    deal's result as the game words it (the JSON form is ``--json``'s)."""
    from p2pcards.core import pretty
    from p2pcards.words.games import summary_text

    if record["type"] == "summary":
        finished = record["matches_finished"]
        return (f"{_count(record['deals'], 'deal')}, {finished} match{'' if finished == 1 else 'es'} finished; "
                f"matches won per side: {record['wins']}")
    trump = pretty("A" + record["trump"])[1:] if record["trump"] else "-"
    over = f"  match won by {_side(spec, record['winner'])}" if record["match_over"] and record["winner"] is not None \
        else ""
    try:
        def seat_name(seat: int, _you: bool = False) -> str:
            return f"seat {seat + 1}"

        summary = spec.deal_summary(record["result"])
        said = "; ".join(summary_text(spec, "en", summary, lambda side: _side(spec, side), seat_name, mark=""))
    except Exception:  # noqa: BLE001 -- a result the game's words cannot read: as it is
        said = json.dumps({k: v for k, v in record["result"].items() if v is not None})
    return (
        f"match {record['match'] + 1} deal {record['deal'] + 1}: dealer seat {record['dealer'] + 1} trump {trump}: "
        f"{said}; totals {record['totals']}{over}"
    )


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

    def seat(self, seat: int) -> str:
        """A seat as people see it: "seat N" counted from 1, with its name once the table is known."""
        names = [s["name"] for s in self.table["seats"]] if self.table else []
        return f"seat {seat + 1} ({names[seat]})" if 0 <= seat < len(names) else f"seat {seat + 1}"

    def seats(self, seats: Sequence[int]) -> str:
        return _and([self.seat(s) for s in seats])

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
            hint = first + (f" (or {', '.join(dial[1:])})" if len(dial) > 1 else "")
            if lan:
                hint += f" (127.0.0.1:{port} on this machine)"
        else:
            first = hint = where
        self.line({"type": "listening", "address": address, "port": port, "game": game},
                  f"table for {game} open on {where}; people join with: p2pcards play --join {hint}; "
                  f"a computer player with: p2pcards join {first}")

    def seated(self, info: dict[str, Any]) -> None:
        self.line(info, f"seated at seat {info['seat'] + 1} of {info['game']} hosted by {info['host']['name']} "
                        f"(a seat silent for {info['timeout']:g} s is voted out); waiting for the other players")

    def on_table(self, info: dict[str, Any]) -> None:
        self.table = info
        self.first = min(info["local_seats"]) if info["local_seats"] else None
        seats = "; ".join(
            f"{s['seat'] + 1}: {s['name']} ({s['fingerprint']}"
            + (f", {s['bot']} bot" if s["bot"] else "")
            + (f" run by {s['runs_on']}" if s["runs_on"] else "") + ")"
            for s in info["seats"]
        )
        self.line(info, f"table {info['table'][:16]} of {info['game']} starts; seats {seats}")

    def resumed(self, info: dict[str, Any]) -> None:
        seats = ", ".join(str(s + 1) for s in info["seats"])
        state = "it is over" if info["finished"] else "reconnecting to the other players"
        self.line(info, f"resuming table {info['table'][:16]} of {info['game']} (seat(s) {seats}) from its saved "
                        f"transcript of {_count(info['seq'], 'message')}, {_count(info['deals_done'], 'deal')} done; "
                        f"{state}")

    def on_event(self, seat: int, told: TableEvent) -> None:
        if seat != self.first or self.table is None:
            return
        event = told.to_json()
        obj = {**event, "table": self.table["table"], "seat": seat}
        kind = event["type"]
        if kind == "vote_out":
            self.line(obj, f"{self.seat(event['against'])} was silent past the timeout and was voted out by "
                           f"{self.seats(event['voters'])}: it loses deal {event['deal'] + 1}, and from the next "
                           "deal it is a dummy (its cards face up, played alike by every peer)")
            return
        if kind == "dispute":
            against = "" if event["against"] is None else f" against {self.seat(event['against'])}"
            self.line(obj, f"{self.seat(event['accuser'])} disputes deal {event['deal'] + 1}{against}: "
                           f"{event['reason']}; every seat reveals its seed and the audit decides")
            return
        if kind == "fork":
            self.line(obj, f"{self.seat(event['against'])} signed two different messages for seq {event['seq']}: "
                           f"it loses deal {event['deal'] + 1}")
            return
        if kind == "voted_out":
            self.voted_out = True
            return
        if kind != "deal" and kind != "final":
            return
        if kind == "final":
            from p2pcards.net.store import log_path

            obj["log"] = str(log_path(self.data, bytes.fromhex(self.table["table"]), seat)) if self.data else None
            obj["voted_out"] = bool(event.get("voted_out")) or self.voted_out
            obj.setdefault("abandoned", None)
            if event["winner"] is not None:
                winner = f"won by {self.side(event['winner'])}"
            else:
                winner = "stopped before the match's end, no winner"
            if obj["abandoned"]:
                a = obj["abandoned"]
                behind = f" while behind by {a['behind']}" if a.get("behind") else ""
                winner = f"abandoned by {self.seat(a['by'])}{behind} in deal {a['deal'] + 1}, no winner"
            out = " (this seat was voted out and watched the rest)" if obj["voted_out"] else ""
            self.line(obj, f"table over after {_count(event['deals'], 'deal')}{out}: {winner}, "
                           f"totals {event['totals']}; transcript {event['transcript_hash'][:16]}, log {obj['log']}")
            return
        from p2pcards.core import pretty

        audit = event["audit"]
        verdict = audit["verdict"]
        if audit["seat"] is not None or audit["reason"]:
            who = "" if audit["seat"] is None else f"{self.seat(audit['seat'])}: "
            verdict += f" ({who}{audit['reason']})"
        trump = pretty("A" + event["trump"])[1:] if event["trump"] else "-"
        result = json.dumps({k: v for k, v in (event["result"] or {}).items() if v is not None}) \
            if event["result"] else "void"
        over = f"; match won by {self.side(event['winner'])}" if event["match_over"] and event["winner"] is not None \
            else ""
        self.line(obj, f"deal {event['deal'] + 1}: dealer {self.seat(event['dealer'])} trump {trump} {result}; "
                       f"audit {verdict}; totals {event['totals']}{over}")


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
