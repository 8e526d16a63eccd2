"""The command line of ``p2pcards``: every command, its options and its help."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

from p2pcards import __version__
from p2pcards.cli.help import (
    ARENA_EPILOG,
    AUDIT_EPILOG,
    BENCH_DECK_EPILOG,
    BENCH_RULES_EPILOG,
    BENCH_SIM_EPILOG,
    BENCH_TABLE_EPILOG,
    DUEL_EPILOG,
    ENGINE_EPILOG,
    GAMES_EPILOG,
    HOST_EPILOG,
    JOIN_EPILOG,
    JSON_NUMBERING,
    PLAY_EPILOG,
    REPLAY_EPILOG,
    RESUME_EPILOG,
    TOP_EPILOG,
    WEB_EPILOG,
    _HelpFormatter,
)
from p2pcards.cli.network import cmd_host, cmd_join, cmd_tables
from p2pcards.cli.offline import cmd_arena, cmd_bench, cmd_duel, cmd_engine, cmd_games
from p2pcards.cli.play import cmd_play
from p2pcards.cli.records import cmd_audit, cmd_export, cmd_history, cmd_replay, cmd_stats
from p2pcards.cli.resume import cmd_resume
from p2pcards.cli.web import add_web_arguments, cmd_web
from p2pcards.players import PLAYER_LEVELS, TABLE_LEVEL


def _lan_options(p: argparse._ActionsContainer) -> None:
    from p2pcards.discovery.commands import add_lan_options

    # a parser or, for `play`, an argument group: add_lan_options only calls add_argument
    add_lan_options(p)


#: argparse's own error messages (Python 3.11 to 3.13) and the words that say them in
#: another language: (pattern, key); the pattern's groups are the key's fields.  English
#: keeps argparse's message as it is.
_ARGPARSE_ERRORS = [
    (r"unrecognized arguments: (?P<args>.*)", "argparse_unrecognized"),
    (r"the following arguments are required: (?P<args>.*)", "argparse_required"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.*)", "argparse_ambiguous"),
    (r"one of the arguments (?P<args>.*) is required", "argparse_one_of"),
    (r"argument (?P<arg>\S+): (?P<problem>.*)", "argparse_argument"),
    (r"invalid choice: (?P<value>.*) \(choose from (?P<choices>.*)\)", "argparse_choice"),
    (r"invalid int value: (?P<value>.*)", "argparse_int"),
    (r"invalid float value: (?P<value>.*)", "argparse_float"),
    (r"invalid (?P<type>\w+) value: (?P<value>.*)", "argparse_value"),
    (r"expected one argument", "argparse_one_value"),
    (r"expected at least one argument", "argparse_values"),
    (r"not allowed with argument (?P<args>.*)", "argparse_not_with"),
]


def _argparse_words(message: str) -> str:
    """argparse's error ``message`` in the words of the command's language."""
    from p2pcards.cli.common import _words

    t = _words()
    if t.lang == "en":
        return message
    for pattern, key in _ARGPARSE_ERRORS:
        if m := re.fullmatch(pattern, message):
            fields = m.groupdict()
            if key == "argparse_argument":
                fields["problem"] = _argparse_words(fields["problem"])
            return t(key, **fields)
    return message


class _Parser(argparse.ArgumentParser):
    """argparse's parser whose error lines (not its usage and help, which stay English) are
    in the command's language (``--lang``, else the locale's).  ``commands``: its
    sub-commands' parsers by name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands: Mapping[str, argparse.ArgumentParser] = {}

    def add_subparsers(self, **kwargs: Any) -> Any:
        action = super().add_subparsers(**kwargs)
        self.commands = action.choices
        return action

    def parse_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                   namespace: argparse.Namespace | None = None) -> argparse.Namespace:
        """As argparse's, but an argument no parser knows is said by the sub-command it was
        given to, with that command's usage (``stats --bogus``: ``usage: p2pcards stats``),
        not the top level's."""
        argv = list(sys.argv[1:] if args is None else args)
        parsed, extra = self.parse_known_args(argv, namespace)
        if extra:
            _command_parser(self, argv).error("unrecognized arguments: " + " ".join(extra))
        return parsed

    def error(self, message: str) -> NoReturn:
        from p2pcards.cli.common import _words

        self.print_usage(sys.stderr)
        t = _words()
        if t.lang == "en":  # argparse's own line, as it always was
            self.exit(2, f"{self.prog}: error: {message}\n")
        self.exit(2, t("cli_error", reason=_argparse_words(message)).replace("p2pcards", self.prog, 1) + "\n")


def _command_parser(parser: argparse.ArgumentParser, argv: Sequence[str]) -> argparse.ArgumentParser:
    """The (sub-)command's parser that ``argv`` names, the deepest one (``bench table``)."""
    for arg in argv:
        commands = parser.commands if isinstance(parser, _Parser) else {}
        if arg in commands:
            parser = commands[arg]
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="p2pcards",
        description="Card tables on a local network with no server and no dealer: "
        "Sueca, Bisca, Copas and Sobe e Desce, or any installed game plugin.  With no COMMAND, on a terminal: "
        "the start screen.",
        epilog=TOP_EPILOG, formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"p2pcards {__version__}")
    parser.add_argument("--lang", choices=("en", "pt"), default=None, dest="start_lang",
                        help="language of the start screen, of what the commands print for people and of "
                        "their errors (the help stays English; default: from the locale)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    raw = _HelpFormatter

    p = sub.add_parser("games", help="list installed games and their options", epilog=GAMES_EPILOG, formatter_class=raw,
                       description="List the installed games (the four built in and any game plugin): players, "
                       "cards, and each table option (-o KEY=VALUE) with its values and default.  A plugin that "
                       "fails to load is reported on standard error and skipped.")
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser(
        "arena", help="play deals in-process between computer players", epilog=ARENA_EPILOG + JSON_NUMBERING,
        formatter_class=raw,
        description="Play deals of GAME between computer players in this process, with no network and no mental "
        "deck: for testing players and rules, and for other tools (--json).  One line per deal, then a summary.",
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

    p = sub.add_parser(
        "duel", help="duplicate deals between two computer players, with statistics",
        epilog=DUEL_EPILOG + JSON_NUMBERING, formatter_class=raw,
        description="Play a duplicate match of GAME between computer players A and B: every deal several times, "
        "the players changing seats, on several processes; report A's win rate over the pairs with a 95 % "
        "interval, the mean points or score of each, and each one's time per decision.",
    )
    p.add_argument("game", metavar="GAME", help="game name: sueca, bisca, copas or sobe-e-desce")
    p.add_argument("--a", required=True, metavar="BOT",
                   help=f"player A, one of {', '.join(PLAYER_LEVELS)}; LEVEL@N: a level that searches, at N worlds"
                        " a decision (before --iterations), e.g. search@600; engine:LEVEL[@N]: that level of the"
                        " --engine program")
    p.add_argument("--b", required=True, metavar="BOT", help="player B, as --a")
    p.add_argument("--pairs", type=int, default=100, metavar="N", help="pairs of deals to play (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the deals and players (default 0)")
    p.add_argument("--think", type=int, default=None, metavar="MS",
                   help="for players that search, in ms: alone, a time budget per decision instead of their"
                        " level's worlds; with --iterations, the most time a decision may take over them"
                        " (a decision it stops short is counted in \"capped\")")
    p.add_argument("--iterations", type=int, default=None, metavar="N",
                   help="worlds per decision for players that search (default: their level's, 100 for search;"
                        " five times as many for a going in that may sit out, three times as many in Bisca while"
                        " the other player plays as the heuristic does); with it or without --think, the"
                        " same seed plays the same match")
    p.add_argument("--jobs", type=int, default=None, metavar="J",
                   help="worker processes (default: the number of CPUs); the outcomes do not depend on it")
    p.add_argument("--engine", default=None, metavar="COMMAND",
                   help="the command line (split as a shell does) of a program speaking the engine protocol"
                        " (protocol/ENGINE.md), for a player engine:LEVEL or engine:LEVEL@N: that level of it,"
                        " asked for every decision of its seats (below)")
    p.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE",
        help="table option (repeatable); see `p2pcards games`",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_duel)

    p = sub.add_parser(
        "engine", help="answer positions as JSON lines: our bots for other programs", epilog=ENGINE_EPILOG,
        formatter_class=raw,
        description="Read positions of a deal from standard input, one JSON object per line, and answer each with "
        "a bot's choice on standard output, like a chess engine: for referees, GUIs and other programs "
        "(protocol/ENGINE.md).",
    )
    p.set_defaults(func=cmd_engine)

    p = sub.add_parser("bench", help="benchmarks: rules engine, batch simulator, mental deck, table over TCP",
                       formatter_class=raw,
                       description="Measure how fast this machine plays: `bench rules` (deals per second of each "
                       "game's rules), `bench deck` (the mental deck's cost per seat) and `bench table` (audited "
                       "deals among processes over TCP).  Each has --help and --json.")
    bsub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    b = bsub.add_parser("rules", help="deals per second per game", epilog=BENCH_RULES_EPILOG, formatter_class=raw,
                        description="Deals per second of every installed game's rules, against a baseline.")
    b.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per game (default 1)")
    b.add_argument("--rounds", type=int, default=3,
                   help="slices each rate is measured in, the best counting (default 3)")
    b.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    b = bsub.add_parser("sim", help="the search bot's batch simulator: deals per second, cross-checked",
                        epilog=BENCH_SIM_EPILOG + JSON_NUMBERING, formatter_class=raw,
                        description="Full-information deals per second of each game's batch simulator (many deals"
                                    " at once, numpy), against its plugin and a hand-coded loop in the same run.")
    b.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per measurement (default 1)")
    b.add_argument("--check", type=int, default=0, metavar="N",
                   help="also cross-check each simulator with its plugin's rules on N random positions"
                        " (default 0; the full check is 1000000); exit 1 if any differ")
    b.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    b = bsub.add_parser("deck", help="mental deck cost per seat", epilog=BENCH_DECK_EPILOG + JSON_NUMBERING,
                        formatter_class=raw,
                        description="The mental deck's compute, proofs and bytes per seat for one deal.")
    b.add_argument("--seats", type=int, default=4, help="seats at the table, 2..4 (default 4)")
    b.add_argument("--cards", type=int, default=40, help="cards in the deck (default 40)")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b = bsub.add_parser("table", help="audited deals among four processes on loopback",
                        epilog=BENCH_TABLE_EPILOG + JSON_NUMBERING, formatter_class=raw,
                        description="Wall time, bytes and memory of audited Sueca deals among four processes.")
    b.add_argument("--deals", type=int, default=3, help="Sueca deals to play, at most (default 3)")
    b.add_argument("--profile", metavar="FILE", type=Path,
                   help="run the first joining process under cProfile and write its profile to FILE "
                   "(read it with `python -m pstats FILE`)")
    b.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "play",
        help="play against computer players in the terminal",
        formatter_class=raw, epilog=PLAY_EPILOG,
        description="Play a match against computer players on a full-screen table: each computer "
        "player is a peer of its own, every deal is shuffled with the mental deck and audited. "
        "Keys: arrows and Enter, or a card's digit, or the mouse; ? shows every key; q leaves. "
        "With --text, or when input or output is not a terminal, the match is played in line mode: the same "
        "table, kept the same way, with cards chosen by their number and h, l, s, ? and q as on the screen.  "
        "With --host or --join the person plays at a LAN "
        "table instead (see LAN tables below).  A table left before its end is taken up again by "
        "`p2pcards resume`.",
    )
    p.add_argument("game", metavar="GAME", nargs="?", default="sueca", help="game to play (default sueca)")
    p.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="table option (repeatable)"
    )
    p.add_argument(
        "--bots", default=TABLE_LEVEL, metavar="LEVEL",
        help=f"computer players' level, weakest first: {', '.join(PLAYER_LEVELS)} (default {TABLE_LEVEL}, the"
             " strongest: 100 worlds a decision; casual, one you can beat: 8 worlds and a slip now and then;"
             " within the pace, --speed, at most 1 s a decision, 0.3 s in line mode; with --seed, the level's"
             " worlds and no time limit, so that the seed replays the same match)",
    )
    p.add_argument(
        "--seed", type=int, default=None, metavar="S", help="seed for a reproducible match (default: random)"
    )
    p.add_argument(
        "--deals", type=int, default=None, metavar="N", help="stop after N deals (default: play the match to its end)"
    )
    p.add_argument("--speed", type=float, default=0.8, metavar="S",
                   help="seconds each computer player takes per decision on the table "
                   "(default 0.8; + and - change it)")
    p.add_argument("--lang", choices=("en", "pt"), default=None,
                   help="language of the table (default: from the locale)")
    p.add_argument("--text", action="store_true", help="line mode instead of the full-screen table")
    p.add_argument("--name", metavar="NAME", default=None,
                   help="your name at the tables, kept from now on (default: asked once on a terminal, the login "
                        "name until then); two players of one name are told apart by their keys' fingerprints")
    lan = p.add_argument_group(
        "LAN tables", "with --host the person hosts a table on the LAN (seat 'me'; the other seats are players "
        "who join, or computer players this process runs); with --join the person joins one")
    lan.add_argument("--host", action="store_true", help="host a table of GAME on the LAN and sit at it")
    lan.add_argument("--join", metavar="NAME|HOST:PORT", default=None,
                     help="join the table with this name (see `p2pcards tables`) or at this address")
    lan.add_argument("--seats", metavar="SPEC",
                     help="with --host: me, remote, bot or bot:LEVEL per seat (default: me,remote,...)")
    lan.add_argument("--port", type=int, default=0, metavar="P", help="with --host: TCP port (default any free port)")
    lan.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                     help="with --host: address to listen on (default 0.0.0.0: every interface)")
    lan.add_argument("--no-hints", action="store_true",
                     help="with --host: forbid hints at this table (h answers that the host turned them off on "
                          "every screen; the table's genesis says so)")
    lan.add_argument("--timeout", type=float, default=300.0, metavar="S",
                     help="with --host: seconds a seat may stay silent before it is voted out (default 300, "
                          "where `p2pcards host` has 60: at this table you, a person, hold a seat, and people "
                          "take longer to think than computer players)")
    lan.add_argument("--table-name", metavar="NAME", help="with --host: the table's name on the LAN")
    lan.add_argument("--no-announce", action="store_true", help="with --host: do not announce the table on the LAN")
    lan.add_argument("--mdns-ttl", type=int, default=120, metavar="S",
                     help="with --host: seconds browsers keep listing the table if this host dies (default 120)")
    lan.add_argument("--host-fingerprint", metavar="FP",
                     help="with --join: give up the seat unless the host's key has this fingerprint")
    lan.add_argument("--wait", type=float, default=None, metavar="S",
                     help="with --join NAME: seconds to look for the table on the LAN (default 5)")
    _lan_options(lan)
    web = p.add_argument_group("In the browser", "with --web the table (and then the start page) is in your "
                               "browser instead of the terminal: see `p2pcards web --help`")
    web.add_argument("--web", action="store_true", help="play in the browser, served by your own peer")
    web.add_argument("--no-browser", action="store_true", help="with --web: print the address instead of opening it")
    web.add_argument("--web-bind", default="127.0.0.1", metavar="ADDR",
                     help="with --web: address the page is served on (default 127.0.0.1: this computer only)")
    web.add_argument("--web-port", type=int, default=0, metavar="P", help="with --web: the page's port (default any)")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "web", help="the start page and every table in your browser, served by your own peer",
        epilog=WEB_EPILOG + JSON_NUMBERING,
        formatter_class=raw,
        description="Start your own peer with a small web server on this computer and open the browser on it: "
        "everything the start screen and the terminal table do -- play against the computer, host and join LAN "
        "tables, your tables, past games and statistics -- with cards to click or tap.",
    )
    add_web_arguments(p)
    p.set_defaults(func=cmd_web)

    p = sub.add_parser(
        "host", help="open a table on the network and play its bot seats", epilog=HOST_EPILOG + JSON_NUMBERING,
        formatter_class=raw,
        description="Open a table for GAME: remote players join with `p2pcards join`, bot seats are "
        "played by this process; every deal is shuffled with the mental deck and audited.",
    )
    p.add_argument("game", metavar="GAME", help="game name, e.g. sueca, bisca, copas, sobe-e-desce")
    p.add_argument("--port", type=int, default=0, metavar="P", help="TCP port to listen on (default 0: any free port)")
    p.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                   help="address to listen on (default 0.0.0.0: every interface, for the LAN)")
    p.add_argument("--seats", metavar="SPEC", help="bot, bot:LEVEL or remote per seat (default: bot,remote,...)")
    p.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="table option (repeatable); see `p2pcards games`")
    p.add_argument("--deals", type=int, default=None, metavar="N",
                   help="stop after N deals (default: play the match to its end)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="seconds a seat may stay silent when the table waits for it before it is voted out "
                        "(default 60, suited to computer players; `play --host` has 300 since a person sits "
                        "there: give more when people join remote seats with `p2pcards play --join`)")
    p.add_argument("--lobby-timeout", type=float, default=600.0, metavar="S",
                   help="seconds to wait for the table to fill (default 600)")
    p.add_argument("--linger", type=float, default=30.0, metavar="S",
                   help="seconds to stay once the table is over when a player is missing, so that it can come "
                        "back and learn the outcome (default 30; 0: leave at once)")
    p.add_argument("--no-hints", action="store_true",
                   help="forbid hints at this table: people who join with `p2pcards play --join` cannot ask the "
                        "computer for a suggestion (h on the table screen); the table's genesis says so")
    p.add_argument("--json", action="store_true", help="print JSON lines (format below)")
    p.add_argument("-v", "--verbose", action="store_true", help="log connections and seating to standard error")
    p.add_argument("--table-name", metavar="NAME", help="the table's name on the LAN (default GAME-HOST-XXXX)")
    p.add_argument("--no-announce", action="store_true", help="do not announce the table on the LAN")
    p.add_argument("--mdns-ttl", type=int, default=120, metavar="S",
                   help="seconds browsers keep listing the table if this host dies (TTL; default 120)")
    _lan_options(p)
    p.set_defaults(func=cmd_host)

    p = sub.add_parser(
        "join", help="join a table as a headless computer player", epilog=JOIN_EPILOG + JSON_NUMBERING,
        formatter_class=raw,
        description="Join the table NAME announced on the local network, or the table at HOST:PORT, as a "
        "headless computer player with this user's identity.",
    )
    p.add_argument("address", metavar="NAME|HOST:PORT",
                   help="a table's name (see `p2pcards tables`) or the host's address and port, "
                        "e.g. 192.168.1.20:40123")
    p.add_argument("--bot", default="heuristic", metavar="LEVEL",
                   help=f"the computer player's level: {', '.join(PLAYER_LEVELS)} (default heuristic)")
    p.add_argument("--name", metavar="NAME", help="name shown at the table (default: the identity's name)")
    p.add_argument("--lobby-timeout", type=float, default=600.0, metavar="S",
                   help="seconds to wait for the table to start (default 600)")
    p.add_argument("--linger", type=float, default=30.0, metavar="S",
                   help="seconds to stay once the table is over when a player is missing, so that it can come "
                        "back and learn the outcome (default 30; 0: leave at once)")
    p.add_argument("--json", action="store_true", help="print JSON lines (format below)")
    p.add_argument("-v", "--verbose", action="store_true", help="log connections to standard error")
    p.add_argument("--wait", type=float, default=None, metavar="S",
                   help="seconds to look for the table NAME on the LAN (default 5)")
    p.add_argument("--host-fingerprint", metavar="FP",
                   help="give up the seat unless the host's key has this fingerprint")
    p.add_argument("--new", action="store_true",
                   help="join a new table even if this identity has an unfinished one joined at HOST:PORT")
    _lan_options(p)
    p.set_defaults(func=cmd_join)

    p = sub.add_parser(
        "resume", help="take up again the seats of a table this process was playing when it died (or that a seat "
                       "of two abandoned)",
        epilog=RESUME_EPILOG + JSON_NUMBERING, formatter_class=raw,
        description="Rebuild this process's seats of an unfinished table from their saved transcripts, "
        "reconnect to the other players, fetch the messages missed, and play on; an abandoned table of two is "
        "taken up again when both seats resume it.",
    )
    p.add_argument("table", metavar="TABLE", nargs="?", help="a prefix of the table id (when there are several)")
    p.add_argument("--list", action="store_true",
                   help="list this identity's tables here, unfinished and ended, and how each ended")
    p.add_argument("--abandon", action="store_true",
                   help="abandon the table instead (a table of two seats whose other seat is gone): it ends with no "
                        "winner, recorded")
    p.add_argument("--json", action="store_true", help="print JSON lines (format below)")
    p.add_argument("--text", action="store_true",
                   help="your seat at a table against the computer in line mode, as `play --text` (the default "
                        "without a terminal; on a terminal the full-screen table)")
    p.add_argument("--linger", type=float, default=30.0, metavar="S",
                   help="seconds to stay once the table is over when a player is missing, so that it can come "
                        "back and learn the outcome (default 30; 0: leave at once)")
    p.add_argument("--speed", type=float, default=None, metavar="S",
                   help="on the full-screen table, seconds each computer player takes per decision, as for "
                        "`play` (default: the pace a table against the computer was started at, else 0.8; + and - "
                        "change it)")
    p.add_argument("-v", "--verbose", action="store_true", help="log connections to standard error")
    p.set_defaults(func=cmd_resume)

    from p2pcards.discovery.commands import TABLES_EPILOG

    p = sub.add_parser(
        "tables", help="list the tables open on the local network", epilog=TABLES_EPILOG, formatter_class=raw,
        description="List the tables announced on the local network, with the reason any cannot be joined.",
    )
    p.add_argument("--wait", type=float, default=None, metavar="S",
                   help="seconds to listen (default 3; with --watch, until interrupted)")
    p.add_argument("--watch", action="store_true", help="print every change as it happens")
    p.add_argument("--json", action="store_true", help="print JSON (format below)")
    p.add_argument("-v", "--verbose", action="store_true", help="log discovery to standard error")
    _lan_options(p)
    p.set_defaults(func=cmd_tables)

    p = sub.add_parser("audit", help="verify a saved table transcript offline", epilog=AUDIT_EPILOG + JSON_NUMBERING,
                       formatter_class=raw,
                       description="Check a saved transcript (a seat's log) offline, as the seated players checked "
                       "it live: signatures, turns, every shuffle and deal, and the rules; say whose fault it is if "
                       "anything is wrong.  Given several logs of one table, also check that they agree.")
    p.add_argument("logfile", metavar="LOGFILE", nargs="+",
                   help="a transcript log, e.g. DATA/tables/TABLE/seat0.log; several: logs of one table, compared")
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_audit)

    from p2pcards.history.export import EXPORT_EPILOG
    from p2pcards.history.stats import HISTORY_EPILOG, STATS_EPILOG

    p = sub.add_parser("export", help="print a saved table's deals in the arena's format",
                       epilog=EXPORT_EPILOG + JSON_NUMBERING, formatter_class=raw,
                       description="Every deal of a saved transcript that its audit opened: the hands dealt, every "
                       "decision, the tricks and the result, as `p2pcards arena` prints them.")
    p.add_argument("logfile", metavar="LOGFILE", help="a transcript log, e.g. DATA/tables/TABLE/seat0.log")
    p.add_argument("--json", action="store_true", help="one JSON object per deal, then a summary (format below)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("replay", help="step through a saved table on the full-screen table",
                       epilog=REPLAY_EPILOG, formatter_class=raw,
                       description="A finished or interrupted table, deal by deal and trick by trick, with every "
                       "hand once its audit opened it, each deal's verdict and who ran each seat.")
    p.add_argument("logfile", metavar="LOGFILE", help="a transcript log, e.g. DATA/tables/TABLE/seat0.log")
    p.add_argument("--seat", type=int, metavar="N", default=None,
                   help="the seat whose cards are at the bottom, counted from 1 (default: the log's own seat)")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("history", help="the matches played here, from the history database",
                       epilog=HISTORY_EPILOG + JSON_NUMBERING, formatter_class=raw,
                       description="Every match this data directory's peers played, oldest first.")
    p.add_argument("--game", metavar="GAME", help="only matches of this game")
    p.add_argument("--player", metavar="NAME", help="only matches with this player (a name or a fingerprint's start)")
    p.add_argument("--rebuild", action="store_true", help="first rebuild the database from the saved transcripts")
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_history)

    p = sub.add_parser("stats", help="who wins: per player, game, partnership and computer level",
                       epilog=STATS_EPILOG + JSON_NUMBERING, formatter_class=raw,
                       description="Statistics of the matches played here, with a form line and a points chart.")
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_stats)
    return parser
