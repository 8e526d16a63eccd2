"""``p2pcards web`` and ``p2pcards play --web``: the person's own peer with its page in the
browser (:mod:`p2pcards.web`)."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from p2pcards.cli.common import CliError, _identity, _load
from p2pcards.core import GameRegistry


def add_web_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards web``."""
    p.add_argument("--lang", choices=("en", "pt"), default=None, help="language of the page (default: from the locale)")
    p.add_argument("--bind", default="127.0.0.1", metavar="ADDR",
                   help="address the page is served on (default 127.0.0.1: this computer only; see Safety below "
                        "before serving it on the LAN)")
    p.add_argument("--port", type=int, default=0, metavar="P", help="TCP port of the page (default: a free port)")
    p.add_argument("--no-browser", action="store_true", help="print the address instead of opening a browser on it")
    p.add_argument("--speed", type=float, default=0.8, metavar="S",
                   help="seconds each computer player takes per decision (default 0.8; + and - change it)")
    p.add_argument("--no-lan", action="store_true",
                   help="neither look for tables on the LAN nor announce the tables hosted from the page")
    p.add_argument("--json", action="store_true", help="print the address as one JSON object (format below)")


def _check(port: int, speed: float) -> None:
    if not 0 <= port <= 65535:
        raise CliError.said("err_the_port")
    if not 0 <= speed <= 10:
        raise CliError.said("err_speed")


def serve(args: argparse.Namespace, out: TextIO, *, registry: GameRegistry | None = None, first: Any = None,
          seed: int | None = None, deals: int | None = None, bind: str = "127.0.0.1", port: int = 0,
          json_out: bool = False) -> int:
    """Run the peer with its page (the ``web`` command's and ``play --web``'s common part)."""
    from p2pcards.identity import data_dir
    from p2pcards.web.peer import WebPeer
    from p2pcards.web.server import run_web
    from p2pcards.words import default_lang

    _check(port, args.speed)
    registry = registry if registry is not None else _load()
    me = _identity(getattr(args, "name", None))  # play --web --name NAME keeps it, as play does
    lang = args.lang or args.start_lang or default_lang()
    open_disco = None
    if not getattr(args, "no_lan", False):
        try:
            from p2pcards.discovery import open_discovery

            open_disco = open_discovery
        except ImportError:
            open_disco = None
    peer = WebPeer(registry, me=me, lang=lang, data_dir=data_dir(), speed=args.speed, open_disco=open_disco,
                   announce=open_disco is not None, first=first, seed=seed, deals=deals)
    return run_web(peer, bind=bind, port=port, browser=not args.no_browser, json_out=json_out, out=out)


def cmd_web(args: argparse.Namespace, out: TextIO) -> int:
    return serve(args, out, bind=args.bind, port=args.port, json_out=args.json)
