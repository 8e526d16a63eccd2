"""The commands that seat no one at a table on the network: ``games``, ``arena``, ``duel``,
``engine`` and ``bench`` (whose ``bench table`` runs its own processes, on loopback)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from p2pcards.cli.common import CliError, _count, _game, _load, _parse_options
from p2pcards.cli.printer import _describe, _describe_duel
from p2pcards.core import GameSpec
from p2pcards.players import PLAYER_LEVELS

#: The words of `p2pcards games` around the games' own (``--lang`` before the command; English
#: when it is not given, so that the output stays the same for scripts whatever the locale).
GAMES_WORDS: dict[str, dict[str, str]] = {
    "en": {"none": "no games installed", "option": "    {flag:<28} default {default}: {help}",
           "players": "{n} players", "cards": "{n} cards"},
    "pt": {"none": "nenhum jogo instalado", "option": "    {flag:<28} {label}, por omissão {default}: {help}",
           "players": "{n} jogadores", "cards": "{n} cartas"},
}


def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    registry = _load()
    lang = getattr(args, "start_lang", None) or "en"
    words = GAMES_WORDS[lang]
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
                "texts": {lang: _game_words(s, lang) for lang in GAMES_WORDS},
            }
            for s in sorted(registry.games.values(), key=lambda s: s.name)
        ]
        problems = [{"plugin": p.plugin, "error": p.error} for p in registry.problems]
        print(json.dumps({"games": games, "problems": problems}), file=out)
        return 0
    if not registry.games:
        print(words["none"], file=out)
    for s in sorted(registry.games.values(), key=lambda s: s.name):
        print(f"{s.name:<14} {s.text(lang, 'title')} — {_about(s, lang)}", file=out)
        for o in s.options:
            flag = f"-o {o.name}=" + "|".join(str(v) for v in o.allowed)
            default = str(o.default)  # as typed after -o; its label too when the game words it otherwise
            label = s.text(lang, f"option.{o.name}.{o.default}")
            if label != default:
                default += f" ({label})"
            print(words["option"].format(flag=flag, label=s.text(lang, f"option.{o.name}"), default=default,
                                         help=s.text(lang, f"option.{o.name}.help")), file=out)
    return 0


def _game_words(spec: GameSpec, lang: str) -> dict[str, Any]:
    """What ``games --json`` says of a game in ``lang`` (see GAMES_EPILOG): its title,
    description, and each option's label, help and value labels, in the game's words."""
    return {
        "title": spec.text(lang, "title"),
        "description": spec.text(lang, "description"),
        "options": {
            o.name: {
                "label": spec.text(lang, f"option.{o.name}"),
                "help": spec.text(lang, f"option.{o.name}.help"),
                "values": {str(v): spec.text(lang, f"option.{o.name}.{v}") for v in o.allowed},
            }
            for o in spec.options
        },
    }


def _about(spec: GameSpec, lang: str = "en") -> str:
    """A game in a line: its description, with the players and cards it does not already say
    (the built-in games' descriptions start with them: each fact is said once)."""
    words = GAMES_WORDS[lang]
    description = spec.text(lang, "description")
    facts = [words["players"].format(n=spec.seats), words["cards"].format(n=len(spec.deck))]
    missing = [fact for fact in facts if fact not in description]
    if not description:
        return ", ".join(missing)
    return description + (f" ({', '.join(missing)})" if missing else "")


def cmd_arena(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.tools.arena import run_arena

    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    if args.deals < 1:
        raise CliError.said("err_deals_min")
    if args.players is None:
        levels = ["heuristic"] * spec.seats
    else:
        levels = [p.strip() for p in args.players.split(",")]
        if len(levels) != spec.seats:
            raise CliError.said("err_players_count", game=spec.name, seats=spec.seats, n=len(levels))
        for level in levels:
            if level not in PLAYER_LEVELS:
                raise CliError.said("err_player_level", level=level, levels=", ".join(PLAYER_LEVELS))
    for record in run_arena(spec, options, args.deals, args.seed, levels):
        if args.json:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
        else:
            out.write(_describe(record, spec) + "\n")
    return 0


def cmd_duel(args: argparse.Namespace, out: TextIO) -> int:
    import os
    import shlex

    from p2pcards.tools.duel import check_duel, run_duel
    from p2pcards.tools.duel_engine import EngineFailure

    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1
    engine = None
    if args.engine is not None:
        try:
            engine = shlex.split(args.engine)
        except ValueError as exc:
            raise CliError(f"--engine: {exc}") from None
        if not engine:
            raise CliError("--engine: the command is empty")
    try:
        check_duel(spec, args.a, args.b, args.pairs, think_ms=args.think, iterations=args.iterations, jobs=jobs,
                   engine=engine)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    try:
        report = run_duel(spec, options, args.a, args.b, args.pairs, args.seed, think_ms=args.think,
                          iterations=args.iterations, jobs=jobs, engine=engine)
    except EngineFailure as exc:  # the match cannot go on: said, and nothing is reported
        print(f"p2pcards duel: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report), file=out)
        return 0
    for line in _describe_duel(report):
        print(line, file=out)
    return 0


def cmd_engine(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.tools.engine import serve

    return serve(sys.stdin.buffer, out, _load())


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    if args.what == "rules":
        from p2pcards.tools.bench_rules import run_rules_bench

        registry = _load()
        if args.seconds <= 0:
            raise CliError.said("err_positive", flag="--seconds")
        if args.rounds < 1:
            raise CliError.said("err_positive", flag="--rounds")
        report = run_rules_bench(registry.games, args.seconds, args.rounds)
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
    if args.what == "table":
        return _bench_table(args, out)
    if args.what == "sim":
        from p2pcards.tools.bench_rules import print_sim_bench

        try:
            return print_sim_bench(out, _load().games, args.seconds, args.check, args.json)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    if not 2 <= args.seats <= 4:
        raise CliError.said("err_bench_seats")
    if args.cards < args.seats or args.cards > 52:
        raise CliError.said("err_bench_cards")
    from p2pcards.tools import bench_deck as deck_bench

    return deck_bench.run(seats=args.seats, cards=args.cards, json_out=args.json)


def _bench_table(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.tools.bench_table import run_table_bench

    if not 1 <= args.deals <= 50:
        raise CliError.said("err_bench_deals")
    try:
        report = run_table_bench(args.deals, args.profile)
    except RuntimeError as exc:
        print(f"p2pcards: bench table failed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report), file=out)
        return 0
    aims = report["aims"]
    print(f"{_count(report['deals'], 'audited Sueca deal')}, four processes on loopback", file=out)
    print(f"  ms per deal: {report['ms_per_deal']} (mean {report['ms_per_deal_mean']})", file=out)
    print(f"  bytes sent per seat per deal: {report['bytes_sent_per_seat']}", file=out)
    print(f"  peak memory per process, MB: {report['peak_rss_mb_per_process']}", file=out)
    print(f"  processor time per process per deal, ms: {report['cpu_ms_per_deal_per_process']} "
          f"(baseline, per replica: {report['baseline']['cpu_ms_per_deal_per_replica']})", file=out)
    if report["table_cpu_ms_per_deal_per_process"] is not None:
        print(f"  the same from the table's start (no Python start-up, no handshake): "
              f"{report['table_cpu_ms_per_deal_per_process']}", file=out)
    print(f"  chained messages per deal: {report['messages_per_deal']}, each fsync'd before it is sent "
          f"(fsync here: {report['fsync_ms']} ms)", file=out)
    base = report["baseline"]
    print(f"baseline ({base['note']}): {base['ms_per_deal']} ms per deal; "
          f"network/baseline {report['ratio_to_baseline']}x", file=out)
    if report["profile"] is not None:
        print(f"profile of the first joining process: {report['profile']} (python -m pstats)", file=out)
    verdict = "met" if aims["met"] else "NOT met"
    print(f"aims: <= {aims['ms_per_deal']:.0f} ms per deal, <= {aims['rss_mb']:.0f} MB per peer: {verdict}", file=out)
    return 0
