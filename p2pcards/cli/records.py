"""``p2pcards export``, ``history`` and ``stats``: what was played, read back
(:mod:`p2pcards.history`)."""

from __future__ import annotations

import argparse
from typing import TextIO

from p2pcards.cli.common import CliError, _load


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.export import run_export

    try:
        return run_export(args.logfile, args.json, out, _load())
    except HistoryError as exc:
        raise CliError(str(exc)) from None


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
