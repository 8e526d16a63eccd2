"""What the commands of ``p2pcards`` share: the user error, the games and options given on
the command line, the user's identity, the checks of common flags, and running a trio main."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from p2pcards.core import GameRegistry, GameSpec, OptionError, load_games
from p2pcards.words import Said, Text, default_lang

#: the language of the commands' words for people (``--lang``, set by :func:`p2pcards.cli.main`;
#: None: the locale's)
LANG: str | None = None


def _words() -> Text:
    """The words of the command's output, errors and notes for people: ``--lang``, else the
    locale's language."""
    return Text(LANG or default_lang())


class CliError(Said):
    """A user error: printed as ``p2pcards: error: ...`` (in the person's language) with
    exit status 2.  ``CliError.said(KEY, **fields)`` says it in words of
    :mod:`p2pcards.words`; ``CliError(text)`` passes on a message from elsewhere as it is."""


def _parse_options(spec: GameSpec, pairs: Sequence[str]) -> dict[str, Any]:
    raw: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CliError.said("err_option_pair", pair=pair)
        raw[key.strip()] = value.strip()
    try:
        return spec.resolve_options(raw)
    except OptionError as exc:  # said in the command's words
        raise CliError.said(exc.key, **exc.fields) from None


def _game(registry: GameRegistry, name: str) -> GameSpec:
    if name not in registry.games:
        raise CliError.said("err_unknown_game", game=name, installed=", ".join(sorted(registry.games)) or "none")
    return registry.get(name)


def _load() -> GameRegistry:
    registry = load_games()
    for problem in registry.problems:
        print(_words()("cli_warning_plugin", plugin=problem.plugin, error=problem.error), file=sys.stderr)
    return registry


def _count(n: int, what: str) -> str:
    """"1 message", "2 messages"."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _and(items: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _is_terminal(out: TextIO) -> bool:
    """Whether the full-screen table can run: standard input and output are a terminal."""
    return out is sys.stdout and sys.stdin.isatty() and sys.stdout.isatty()


def _left_note(status: int, lang: str = "en") -> int:
    """After a table screen: if the person left a table unfinished, say the exact command
    that takes it up again; if the table failed, say why once more (the screen said it,
    but the screen is gone); both on standard error, in the table's language.

    ``status`` is the screen's exit status (p2pcards.tui.app.exit_status): 0 both when the
    table is over and when the person left it on purpose; its ``left`` tells them apart,
    its ``table`` names the table and its ``error`` says why it failed.
    """
    from p2pcards.words import Text

    if getattr(status, "left", False):
        table = getattr(status, "table", "")
        command = f"p2pcards resume {table[:8]}" if table else "p2pcards resume"
        print(Text(lang)("left_note", command=command), file=sys.stderr)
    ended = [line for line in getattr(status, "ended", ()) if line.strip()]
    if ended:  # the match's end, still read once the screen is gone
        print("\n".join(ended), file=sys.stdout)
    if getattr(status, "error", ""):
        print(Text(lang)("failed_note", reason=" ".join(str(status.error).split())),  # type: ignore[attr-defined]
              file=sys.stderr)
    return status


def _setup_logging(verbose: bool) -> None:
    import logging

    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="p2pcards: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )


def _run_net(main: Any) -> int:
    """Run a trio main; a NetError is printed as one line and gives exit status 1."""
    import trio

    from p2pcards.net import ListenError, NetError, single_error

    try:
        with single_error():
            trio.run(main)
    except ListenError as exc:
        raise CliError(_net_words(exc)) from None
    except NetError as exc:
        print(_words()("cli_error", reason=_net_words(exc)), file=sys.stderr)
        return 1
    return 0


def _net_words(exc: BaseException) -> str:
    """A network failure in the person's language: the words the table screens use for it
    (``net_...``, the runtime's own message as its detail) when there are some, else its
    message as it is (in English: the message as it is, always)."""
    from p2pcards.net import Refused

    t = _words()
    key = f"net_refused_{exc.code}" if isinstance(exc, Refused) else f"net_{type(exc).__name__}"
    if t.lang == "en" or key not in t:
        return str(exc)
    return t(key, detail=str(exc))


def _identity(name: str | None = None) -> Any:
    """This user's identity (created on first use); ``name``: the person's display name,
    kept in it from now on."""
    from p2pcards.identity import IdentityError, check_name, data_dir, load_or_create

    if name is not None and (problem := check_name(name)):
        raise CliError(f"--name: {problem}")  # the problem: p2pcards.identity's words (English)
    try:
        return load_or_create(data_dir(), name)
    except (IdentityError, OSError) as exc:
        raise CliError.said("err_identity", error=str(exc)) from None


def _ask_name(me: Any, lang: str) -> Any:
    """On a terminal, the first time: ask the person's display name (Enter keeps the one
    suggested, the login name); it is kept in the identity and not asked again."""
    if me.named or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return me
    from p2pcards.identity import check_name
    from p2pcards.words import Text

    t = Text(lang)
    while True:
        try:
            answer = input(t("ask_name", name=me.name)).strip()
        except EOFError:
            answer = ""
        if not answer or check_name(answer) is None:
            return _identity(answer or me.name)
        print(f"p2pcards: {check_name(answer)}", file=sys.stderr)


def _check_timeout(value: float, flag: str) -> None:
    if not 0 < value <= 3600:
        raise CliError.said("err_seconds_range", flag=flag)


def _check_linger(args: argparse.Namespace) -> float:
    linger: float = args.linger
    if not 0 <= linger <= 3600:
        raise CliError.said("err_linger")
    return linger
