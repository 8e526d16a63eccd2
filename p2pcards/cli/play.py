"""``p2pcards play`` (a person against computer players, or at a LAN table) and ``p2pcards``
alone (the start screen)."""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from p2pcards.cli.common import (
    CliError,
    _ask_name,
    _check_timeout,
    _game,
    _identity,
    _is_terminal,
    _left_note,
    _load,
    _parse_options,
    _words,
)
from p2pcards.cli.network import _announcement, _join_target, _returning, _warn_unfinished
from p2pcards.cli.resume import _resume_on_screen, describe_saved
from p2pcards.core import GameRegistry, GameSpec
from p2pcards.players import PLAYER_LEVELS


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    if args.bots not in PLAYER_LEVELS:
        raise CliError.said("err_bot_level", level=args.bots, levels=", ".join(PLAYER_LEVELS))
    if args.deals is not None and args.deals < 1:
        raise CliError.said("err_deals_min")
    if not 0 <= args.speed <= 10:
        raise CliError.said("err_speed")
    if args.no_hints and not args.host:
        raise CliError.said("err_no_hints")
    if args.web and args.text:
        raise CliError.said("err_choose_one", a="--web", b="--text")
    if args.host or args.join is not None:
        return _play_lan(args, out, registry, spec, options)
    if args.web:  # the table in the browser (p2pcards.web), then the start page
        from p2pcards.cli.web import serve
        from p2pcards.tui.start_model import StartChoice

        return serve(args, out, registry=registry, first=StartChoice("play", spec.name, options, args.bots),
                     seed=args.seed, deals=args.deals, bind=args.web_bind, port=args.web_port)
    from p2pcards.identity import data_dir
    from p2pcards.words import default_lang

    lang = args.lang or args.start_lang or default_lang()
    me = _ask_name(_identity(args.name), lang)  # the data directory is checked alike for both faces
    _warn_unfinished(data_dir(), me)  # stays on the terminal under the screen, seen again once it closes
    if args.text or not _is_terminal(out):  # line mode: the same table, kept the same way (p2pcards.textplay)
        from p2pcards.textplay import play_text

        return play_text(spec, options, args.bots, args.seed, args.deals, sys.stdin, out, lang=lang, me=me,
                         data_dir=data_dir())
    from p2pcards.tui.app import play_local

    return _left_note(play_local(spec, options, me=me, lang=lang, bots=args.bots,
                                 seed=args.seed, deals=args.deals, speed=args.speed, data_dir=data_dir()), lang)


def _play_lan(args: argparse.Namespace, out: TextIO, registry: GameRegistry, spec: GameSpec,
              options: dict[str, Any]) -> int:
    """``play --host`` / ``play --join``: the person at a LAN table on the full screen."""
    from p2pcards.identity import data_dir
    from p2pcards.net import parse_seat_spec
    from p2pcards.tui.lan import HostPlan, JoinPlan, hosting_announcer
    from p2pcards.words import default_lang

    if args.host and args.join is not None:
        raise CliError.said("err_choose_one", a="--host", b="--join")
    if not 0 <= args.port <= 65535:
        raise CliError.said("err_port", flag="--port")
    seats: list[Any] = []
    by_name = False
    if args.host:
        try:
            seats = parse_seat_spec(args.seats, spec.seats, person=True)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        if not any(s.kind == "me" for s in seats):
            raise CliError.said("err_seats_me")
        _check_timeout(args.timeout, "--timeout")
    else:
        args.address = args.join
        by_name = ":" not in args.join
        host, port = _join_target(args, by_name)
    if (args.text or not _is_terminal(out)) and not args.web:
        raise CliError.said("err_lan_terminal")
    lang = args.lang or args.start_lang or default_lang()
    me = _ask_name(_identity(args.name), lang)
    if not args.host and (found := _returning(data_dir(), me, args.join, (host, port), by_name)):
        print(_words()("resume_returning_you", address=args.join, table=describe_saved(found)), file=sys.stderr)
        if args.web:
            from p2pcards.tui.lan import ResumePlan

            return _run_plan(args, out, registry, ResumePlan(found.path), lang)
        return _resume_on_screen(found, me, registry, data_dir(), lang)
    if args.host:
        announce = None
        if not args.no_announce:
            _announcement(args, spec, options, seats, me)  # checks --table-name and --mdns-ttl
            announce = hosting_announcer(spec, options, seats, me, args, args.deals)
        host_plan = HostPlan(spec, options, seats, port=args.port, bind=args.bind, deals=args.deals,
                             timeout=args.timeout, announce=announce, hints=not args.no_hints)
        return _run_plan(args, out, registry, host_plan, lang)
    join_plan = JoinPlan(host, port, expect_host=args.host_fingerprint, name=args.join if by_name else "")
    if by_name:
        from p2pcards.discovery import DiscoveryError
        from p2pcards.discovery.commands import locate
        from p2pcards.net import PROTO, ConnectError

        async def find() -> tuple[str, int, str]:
            try:
                return await locate(args, registry.games, PROTO, lambda obj, text: None)
            except DiscoveryError as exc:
                raise ConnectError(str(exc)) from None

        join_plan.locate = find
    return _run_plan(args, out, registry, join_plan, lang)


def _run_plan(args: argparse.Namespace, out: TextIO, registry: GameRegistry, plan: Any, lang: str) -> int:
    """A LAN table (host, join, resume) on the full-screen table, or with --web in the browser."""
    from p2pcards.identity import data_dir
    from p2pcards.tui.lan import play_lan

    if args.web:
        from p2pcards.cli.web import serve

        return serve(args, out, registry=registry, first=plan, bind=args.web_bind, port=args.web_port)
    return _left_note(play_lan(registry, plan, me=_identity(), lang=lang, data_dir=data_dir(), speed=args.speed),
                      lang)


def cmd_start(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pcards`` alone on a terminal: the start screen (elsewhere :func:`p2pcards.cli.main`
    prints the help instead, with the parser it holds)."""
    from p2pcards.identity import data_dir
    from p2pcards.tui.start import run_start_screen
    from p2pcards.words import default_lang

    registry = _load()

    def open_web() -> int:  # the start screen's "Open in the browser": `p2pcards web`
        from p2pcards.cli.web import serve

        args.lang, args.no_browser, args.speed = None, False, 0.8
        return serve(args, out, registry=registry)

    lang = args.start_lang or default_lang()
    return _left_note(run_start_screen(registry, me=_identity(), lang=lang, data_dir=data_dir(), rename=_identity,
                                       open_web=open_web), lang)
