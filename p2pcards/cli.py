"""The ``p2pcards`` command.

Every sub-command has ``--help``.  ``--json`` output is a stable contract for other
tools: its shape is documented in each command's ``--help`` and changes only by adding
keys.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from p2pcards import __version__
from p2pcards.core import GameRegistry, GameSpec, OptionError, load_games
from p2pcards.core.players import PLAYER_LEVELS

__all__ = ["main", "build_parser"]

GAMES_EPILOG = """\
JSON output (--json): one object
  {"games": [{"name": "sueca", "title": "Sueca", "seats": 4, "deck": 40,
              "rules_version": "1", "description": "...", "plugin": "sueca",
              "options": [{"name": "target", "default": 4, "allowed": [4, 8],
                           "help": "..."}, ...]}, ...],
   "problems": [{"plugin": "...", "error": "..."}, ...]}
"problems" lists plugins that failed to load; they are skipped.
"""

ARENA_EPILOG = """\
Plays whole deals in one process with full information; the seed stands in for the
shuffle, so the same seed gives the same output byte for byte.  "deal" counts deals
from 0 over the whole run, "match_deal" within the current match "match".  Seats are numbered in
play order; in Sueca team 0 is seats 0 and 2.  When a match ends a new one starts.

JSON output (--json): one object per line.  For each deal:
  {"type": "deal", "game": NAME, "match": M, "deal": N, "match_deal": K, "dealer": SEAT,
   "trump": SUIT-LETTER or null,
   "hands": [[CARD, ...] per seat: the cards dealt at the start],
   "events": [{"type": "trump"|"pass"|"go_in"|"draw"|"swap"|"play", "seat": SEAT, ...}
              in order of play],
   "tricks": [{"leader": SEAT, "seats": [SEAT...], "cards": [CARD...], "winner": SEAT}],
   "result": RESULT, "totals": [...match totals after this deal...],
   "match_over": BOOL, "winner": SIDE or null}
  RESULT per game (every one also has "renuncia": SEAT or null):
    sueca, bisca   {"points": [..], "tricks": [..], "game_points": [..]} per team/player
                   (sueca adds "multiplier": 1 or 2)
    copas          {"points": [4 ints after the moon rule], "taken": [..], "moon": SEAT|null}
    sobe-e-desce   {"played": [4 bools], "tricks": [..], "delta": [..], "scores": [..],
                    "trump_chooser": SEAT}
  Cards are two characters: rank in A23456789TJQK, suit in SHDC ("7H", "TC").
  Then one summary line:
  {"type": "summary", "game": NAME, "options": {...}, "players": [...], "seed": S,
   "deals": N, "matches_finished": K, "wins": [matches won per side]}
"""

BENCH_RULES_EPILOG = """\
Full-information deals per second with random players for every installed game, on one
core, and a hand-coded Sueca loop measured in the same run as the baseline.

JSON output (--json): one object
  {"seconds_per_game": S,
   "baseline": {"name": ..., "deals_per_second": R, "deals": N},
   "games": {NAME: {"deals_per_second": R, "deals": N, "ms_per_deal": MS,
                    "ratio_to_baseline": X}, ...},
   "aim": {"game": "sueca", "deals_per_second": 1000, "met": BOOL}}
"""

BENCH_DECK_EPILOG = """\
One mental-deck deal simulated with every seat in this process: per-seat compute for
commit + shuffle + lock + opening its own hand, the rest of the deal, the audit, group
operations and bytes sent per seat -- with ristretto255 (median of 5 deals) and the
modp-2048 baseline group (one deal) measured in the same run, and their ratio.  The
baseline is slow on purpose: a 4-seat 40-card run takes some 15 seconds.

JSON output (--json): one object
  {"seats": N, "cards": M, "dealt_per_seat": K, "reveals": R,
   "groups": {"ristretto255": GROUP, "modp2048": GROUP},
   "ratio": {"compute": X, "audit": X, "play": X, "bytes": X}}
  GROUP = {"deals": D, "compute_ms": [per seat], "compute_ms_max": MS,
           "play_ms": [per seat], "play_ms_max": MS, "audit_ms": MS,
           "ops": [{"mult", "hash", "validate", "scalar"} per seat], "audit_ops": {...},
           "bytes_sent": [per seat], "bytes_sent_max": B}
  "ratio" is modp-2048 over ristretto255.
"""


class CliError(Exception):
    """A user error: printed as ``p2pcards: error: ...`` with exit status 2."""


def _parse_options(spec: GameSpec, pairs: Sequence[str]) -> dict[str, Any]:
    raw: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CliError(f"-o expects KEY=VALUE, got {pair!r}")
        raw[key.strip()] = value.strip()
    try:
        return spec.resolve_options(raw)
    except OptionError as exc:
        raise CliError(str(exc)) from None


def _game(registry: GameRegistry, name: str) -> GameSpec:
    try:
        return registry.get(name)
    except KeyError as exc:
        raise CliError(exc.args[0]) from None


def _load() -> GameRegistry:
    registry = load_games()
    for problem in registry.problems:
        print(f"p2pcards: warning: plugin {problem.plugin} skipped: {problem.error}", file=sys.stderr)
    return registry


# ---------------------------------------------------------------------- commands
def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    registry = _load()
    if args.json:
        games = [
            {
                "name": s.name,
                "title": s.title,
                "seats": s.seats,
                "deck": len(s.deck),
                "rules_version": s.rules_version,
                "description": s.description,
                "plugin": registry.owners[s.name],
                "options": [
                    {"name": o.name, "default": o.default, "allowed": list(o.allowed), "help": o.help}
                    for o in s.options
                ],
            }
            for s in sorted(registry.games.values(), key=lambda s: s.name)
        ]
        problems = [{"plugin": p.plugin, "error": p.error} for p in registry.problems]
        print(json.dumps({"games": games, "problems": problems}), file=out)
        return 0
    if not registry.games:
        print("no games installed", file=out)
    for s in sorted(registry.games.values(), key=lambda s: s.name):
        print(f"{s.name:<14} {s.title} — {s.seats} players, {len(s.deck)} cards. {s.description}", file=out)
        for o in s.options:
            flag = f"-o {o.name}=" + "|".join(str(v) for v in o.allowed)
            print(f"    {flag:<28} default {o.default}: {o.help}", file=out)
    return 0


def cmd_arena(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.core.arena import run_arena

    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    if args.deals < 1:
        raise CliError("--deals must be at least 1")
    if args.players is None:
        levels = ["heuristic"] * spec.seats
    else:
        levels = [p.strip() for p in args.players.split(",")]
        if len(levels) != spec.seats:
            raise CliError(f"{spec.name} has {spec.seats} seats; --players names {len(levels)}")
        for level in levels:
            if level not in PLAYER_LEVELS:
                raise CliError(f"unknown player {level!r} (choose from {', '.join(PLAYER_LEVELS)})")
    for record in run_arena(spec, options, args.deals, args.seed, levels):
        if args.json:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
        else:
            out.write(_describe(record) + "\n")
    return 0


def _describe(record: dict[str, Any]) -> str:
    from p2pcards.core import pretty

    if record["type"] == "summary":
        return (
            f"{record['deals']} deals, {record['matches_finished']} matches finished; "
            f"matches won per side: {record['wins']}"
        )
    res = {k: v for k, v in record["result"].items() if v is not None}
    trump = pretty("A" + record["trump"])[1:] if record["trump"] else "-"
    over = f"  match won by {record['winner']}" if record["match_over"] else ""
    return (
        f"match {record['match']} deal {record['deal']}: dealer {record['dealer']} trump {trump} "
        f"{json.dumps(res)} totals {record['totals']}{over}"
    )


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    if args.what == "rules":
        from p2pcards.core.bench import run_rules_bench

        registry = _load()
        if args.seconds <= 0:
            raise CliError("--seconds must be positive")
        report = run_rules_bench(registry.games, args.seconds)
        if args.json:
            print(json.dumps(report), file=out)
            return 0
        base = report["baseline"]
        print(f"baseline ({base['name']}): {base['deals_per_second']:.0f} deals/s", file=out)
        for name, g in report["games"].items():
            print(
                f"{name:<14} {g['deals_per_second']:>9.0f} deals/s  {g['ms_per_deal']:.3f} ms/deal"
                f"  {g['ratio_to_baseline']:.2f}x baseline",
                file=out,
            )
        if "aim" in report:
            aim = report["aim"]
            verdict = "met" if aim["met"] else "NOT met"
            print(f"aim: sueca >= {aim['deals_per_second']} deals/s: {verdict}", file=out)
        return 0
    if not 2 <= args.seats <= 4:
        raise CliError("--seats must be 2, 3 or 4")
    if args.cards < args.seats or args.cards > 52:
        raise CliError("--cards must be between the number of seats and 52")
    from p2pcards.mental import bench as deck_bench

    return deck_bench.run(seats=args.seats, cards=args.cards, json_out=args.json)


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.textplay import play_text

    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    if args.bots not in PLAYER_LEVELS:
        raise CliError(f"unknown bot level {args.bots!r} (choose from {', '.join(PLAYER_LEVELS)})")
    return play_text(spec, options, args.bots, args.seed, args.deals, sys.stdin, out)


# ---------------------------------------------------------------------- parser
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2pcards",
        description="Card tables on a local network with no server and no dealer: "
        "Sueca, Bisca, Copas and Sobe e Desce, or any installed game plugin.",
    )
    parser.add_argument("--version", action="version", version=f"p2pcards {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    raw = argparse.RawDescriptionHelpFormatter

    p = sub.add_parser("games", help="list installed games and their options", epilog=GAMES_EPILOG, formatter_class=raw)
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser(
        "arena", help="play deals in-process between computer players", epilog=ARENA_EPILOG, formatter_class=raw
    )
    p.add_argument("game", metavar="GAME", help="game name, e.g. sueca, bisca, copas, sobe-e-desce")
    p.add_argument("--deals", type=int, default=1, metavar="N", help="deals to play (default 1)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of shuffles and players (default 0)")
    p.add_argument(
        "--players",
        metavar="P0,P1,...",
        help=f"one player level per seat, from {', '.join(PLAYER_LEVELS)} (default: all heuristic)",
    )
    p.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE",
        help="table option (repeatable); see `p2pcards games`",
    )
    p.add_argument("--json", action="store_true", help="print JSON lines (format below)")
    p.set_defaults(func=cmd_arena)

    p = sub.add_parser("bench", help="benchmarks: rules engine speed, mental deck cost")
    bsub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    b = bsub.add_parser("rules", help="deals per second per game", epilog=BENCH_RULES_EPILOG, formatter_class=raw)
    b.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per game (default 1)")
    b.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    b = bsub.add_parser("deck", help="mental deck cost per seat", epilog=BENCH_DECK_EPILOG, formatter_class=raw)
    b.add_argument("--seats", type=int, default=4, help="seats at the table, 2..4 (default 4)")
    b.add_argument("--cards", type=int, default=40, help="cards in the deck (default 40)")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "play",
        help="play against computer players in the terminal",
        description="Play a match against computer players in this terminal (line mode). "
        "Cards are chosen by their number; q quits.",
    )
    p.add_argument("game", metavar="GAME", nargs="?", default="sueca", help="game to play (default sueca)")
    p.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="table option (repeatable)"
    )
    p.add_argument(
        "--bots", default="heuristic", metavar="LEVEL",
        help="computer players' level: random or heuristic (default heuristic)",
    )
    p.add_argument(
        "--seed", type=int, default=None, metavar="S", help="seed for a reproducible match (default: random)"
    )
    p.add_argument(
        "--deals", type=int, default=None, metavar="N", help="stop after N deals (default: play the match to its end)"
    )
    p.set_defaults(func=cmd_play)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 0
    try:
        return int(args.func(args, out or sys.stdout))
    except CliError as exc:
        parser.exit(2, f"p2pcards: error: {exc}\n")
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
