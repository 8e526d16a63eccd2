"""``p2pcards export``, ``replay``, ``history`` and ``stats``: what was played, read back
(:mod:`p2pcards.history`; the replay's screen is :mod:`p2pcards.tui.replay`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TextIO

from p2pcards.cli.common import CliError, _is_terminal, _load


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.export import run_export

    try:
        return run_export(args.logfile, args.json, out, _load())
    except HistoryError as exc:
        raise CliError(str(exc)) from None


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.replay import follow_log
    from p2pcards.tui.replay import replay_match, seat_of_log
    from p2pcards.words import default_lang

    try:
        match = follow_log(args.logfile, _load())
    except HistoryError as exc:
        raise CliError(str(exc)) from None
    seats = match.spec.seats
    if args.seat is not None and not 1 <= args.seat <= seats:
        raise CliError(f"--seat: {match.spec.title} has seats 1 to {seats}, not {args.seat}")
    if not _is_terminal(out):
        raise CliError("a replay runs on the full-screen table: run it in a terminal "
                       "(`p2pcards export LOGFILE` prints the deals as text)")
    seat = args.seat - 1 if args.seat is not None else seat_of_log(Path(args.logfile))
    return replay_match(match, lang=args.start_lang or default_lang(), seat=seat)


def cmd_history(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.stats import run_history
    from p2pcards.identity import data_dir

    try:
        return run_history(data_dir(), args.game, args.player, args.json, args.rebuild, out, _load())
    except HistoryError as exc:
        raise CliError(str(exc)) from None


def cmd_stats(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.stats import run_stats
    from p2pcards.identity import data_dir

    try:
        return run_stats(data_dir(), args.json, out, _load())
    except HistoryError as exc:
        raise CliError(str(exc)) from None
