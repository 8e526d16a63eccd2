"""The ``p2pcards`` command.

Every sub-command has ``--help``.  ``--json`` output is a stable contract for other
tools: its shape is documented in each command's ``--help`` and changes only by adding
keys.

Modules, one per seam: :mod:`~p2pcards.cli.help` (the help texts), :mod:`~p2pcards.cli.parser`
(the command line), :mod:`~p2pcards.cli.common` (what the commands share),
:mod:`~p2pcards.cli.printer` (how records read for people), and the commands by area:
:mod:`~p2pcards.cli.offline` (games, arena, duel, engine, bench), :mod:`~p2pcards.cli.play`
(play and the start screen), :mod:`~p2pcards.cli.network` (host, join, tables),
:mod:`~p2pcards.cli.resume`, :mod:`~p2pcards.cli.records` (export, replay, history, stats,
audit).
"""

from __future__ import annotations

# First of all, the libsodium of the mental deck: rbcl's loader holds the library as 5.6 MB
# of hex text and 2.8 MB of bytes for a moment, and once everything else was loaded that
# moment was every process's peak memory (50 MB, against 43 MB when it comes first).
import p2pcards.mental.group  # noqa: F401

# isort: split
import sys
from collections.abc import Sequence
from typing import TextIO

from p2pcards.cli import common
from p2pcards.cli.common import CliError, _is_terminal
from p2pcards.cli.common import _left_note as _left_note
from p2pcards.cli.parser import build_parser
from p2pcards.cli.play import cmd_start

__all__ = ["main", "build_parser", "CliError"]


def _argv_lang(argv: Sequence[str]) -> str | None:
    """The language ``--lang`` names on the command line (before or after the command), if
    any: the words of an error argparse finds before it has parsed it."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv) and argv[i + 1] in ("en", "pt"):
            return argv[i + 1]
        if arg in ("--lang=en", "--lang=pt"):
            return arg.partition("=")[2]
    return None


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """Run the ``p2pcards`` command line ``argv`` (default: the process's), printing to
    ``out``; returns the exit status (argparse's errors and ours exit with 2)."""
    before = common.LANG
    try:
        return _main(argv, out)
    finally:
        common.LANG = before  # the language is this command's, not the next caller's in this process


def _main(argv: Sequence[str] | None, out: TextIO | None) -> int:
    parser = build_parser()
    common.LANG = _argv_lang(sys.argv[1:] if argv is None else list(argv))
    args = parser.parse_args(argv)
    common.LANG = args.start_lang or getattr(args, "lang", None) or common.LANG
    if getattr(args, "func", None) is None:
        args.func = cmd_start
    out = out or sys.stdout
    t = common._words()
    try:
        if args.func is cmd_start and not _is_terminal(out):  # `p2pcards` alone, not on a terminal: the help
            parser.print_help(out)
            return 0
        return int(args.func(args, out))
    except CliError as exc:
        parser.exit(2, t("cli_error", reason=exc.words(t.lang)) + "\n")
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("\n" + t("interrupted"), file=sys.stderr)
        return 130
