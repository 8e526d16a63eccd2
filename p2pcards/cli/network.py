"""The network commands of a headless player: ``host``, ``join`` and ``tables``, and the
checks of their LAN options that ``play --host`` and ``play --join`` share."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from p2pcards.cli.common import (
    CliError,
    _check_timeout,
    _game,
    _load,
    _parse_options,
    _run_net,
    _setup_logging,
    _words,
)
from p2pcards.cli.printer import _network_start, _TablePrinter
from p2pcards.cli.resume import _resume, describe_saved
from p2pcards.core import GameRegistry, GameSpec
from p2pcards.players import PLAYER_LEVELS


def cmd_host(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.net import host_table, parse_seat_spec

    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    try:
        seats = parse_seat_spec(args.seats, spec.seats)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.deals is not None and args.deals < 1:
        raise CliError.said("err_deals_min")
    if not 0 <= args.port <= 65535:
        raise CliError.said("err_port", flag="--port")
    _check_timeout(args.timeout, "--timeout")
    if args.lobby_timeout <= 0:
        raise CliError.said("err_positive", flag="--lobby-timeout")
    linger, me, printer = _network_start(args, out, registry)
    _warn_unfinished(printer.data, me, role="host", game=spec.name)
    announcement = _announcement(args, spec, options, seats, me)

    async def main() -> None:
        from p2pcards.discovery.commands import hosting

        remote = sum(s.kind == "remote" for s in seats)
        async with hosting(args, announcement, remote, printer.line) as lan:

            def on_listening(address: str, port: int) -> None:
                printer.listening(address, port, spec.name)
                lan.listening(port)

            def on_table(info: dict[str, Any]) -> None:
                lan.close()
                printer.on_table(info)

            await host_table(spec, seats=seats, host=me, data_dir=printer.data, options=options, deals=args.deals,
                             timeout=args.timeout, bind=args.bind, port=args.port, lobby_timeout=args.lobby_timeout,
                             on_event=printer.on_event, on_table=on_table, on_listening=on_listening,
                             on_seats=lan.seats, linger=linger, hints=not args.no_hints, recorder=printer.recorder)

    return _run_net(main)


def _announcement(args: argparse.Namespace, spec: GameSpec, options: dict[str, Any], seats: Sequence[Any],
                  me: Any) -> Any:
    """The table's LAN announcement (p2pcards.discovery); checks --table-name and --mdns-ttl."""
    from p2pcards.discovery import check_table_name
    from p2pcards.discovery.commands import make_announcement

    if args.table_name is not None and (problem := check_table_name(args.table_name)):
        raise CliError(f"--table-name: {problem}")
    if not 1 <= args.mdns_ttl <= 4500:
        raise CliError.said("err_mdns_ttl")
    return make_announcement(spec, options, seats, me, args.deals)


def _host_port(text: str) -> tuple[str, int]:
    from p2pcards.net.address import AddressError, parse_host_port

    try:
        return parse_host_port(text)
    except AddressError as exc:
        raise CliError.said("err_host_port", text=text, error=str(exc)) from None


def cmd_join(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.net import join_table
    from p2pcards.table.transcript import MAX_NAME

    by_name = ":" not in args.address  # a table name never has a colon (p2pcards.discovery)
    host, port = _join_target(args, by_name)
    if args.bot not in PLAYER_LEVELS:
        raise CliError.said("err_bot_level", level=args.bot, levels=", ".join(PLAYER_LEVELS))
    if args.name is not None and not (0 < len(args.name) <= MAX_NAME and args.name.isprintable()):
        raise CliError.said("err_name_length", n=MAX_NAME)
    if args.lobby_timeout <= 0:
        raise CliError.said("err_positive", flag="--lobby-timeout")
    registry = _load()
    linger, me, printer = _network_start(args, out, registry)
    if not args.new and (found := _returning(printer.data, me, args.address, (host, port), by_name)):
        print(_words()("resume_returning", address=args.address, table=describe_saved(found)), file=sys.stderr)
        return _resume(found, me, registry, printer, linger)

    async def main() -> None:
        target_host, target_port, expect = host, port, args.host_fingerprint
        if by_name:
            target_host, target_port, expect = await _locate(args, registry, printer)
        await join_table(target_host, target_port, me=me, registry=registry, data_dir=printer.data, level=args.bot,
                         name=args.name, lobby_timeout=args.lobby_timeout, on_seated=printer.seated,
                         on_table=printer.on_table, on_event=printer.on_event, expect_host=expect, linger=linger,
                         table_name=args.address if by_name else None, recorder=printer.recorder)

    return _run_net(main)


def _returning(data: Any, me: Any, target: str, address: tuple[str, int], by_name: bool) -> Any:
    """The unfinished table this identity joined at ``target`` (a LAN name or HOST:PORT), if any."""
    from p2pcards.net.resume import joined_before

    return joined_before(data, me, name=target if by_name else None, address=address)


def _warn_unfinished(data: Any, me: Any, **which: Any) -> None:
    """Tell (on standard error) how to take up an unfinished table of this identity."""
    from p2pcards.net import unfinished_tables

    for found in unfinished_tables(data, me, **which):
        print(_words()("resume_note", table=describe_saved(found), prefix=found.table[:8]), file=sys.stderr)


def _join_target(args: argparse.Namespace, by_name: bool) -> tuple[str, int]:
    """HOST:PORT, or ("", 0) for a table name (checked, with the LAN options)."""
    from p2pcards.discovery import check_fingerprint, check_table_name

    if args.host_fingerprint is not None and (problem := check_fingerprint(args.host_fingerprint)):
        raise CliError(f"--host-fingerprint: {problem}")
    if args.wait is not None and not 0 < args.wait <= 3600:
        raise CliError.said("err_seconds_range", flag="--wait")
    if not by_name:
        return _host_port(args.address)
    if problem := check_table_name(args.address):
        raise CliError.said("err_table_or_address", text=args.address, problem=problem)
    return "", 0


async def _locate(args: argparse.Namespace, registry: GameRegistry, printer: _TablePrinter) -> tuple[str, int, str]:
    """The announced table's address, port and host fingerprint; a NetError if it cannot be joined."""
    from p2pcards.discovery import DiscoveryError
    from p2pcards.discovery.commands import locate
    from p2pcards.net import PROTO, ConnectError

    try:
        return await locate(args, registry.games, PROTO, printer.line)
    except DiscoveryError as exc:
        raise ConnectError(str(exc)) from None


def cmd_tables(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.discovery.commands import run_tables
    from p2pcards.net import PROTO

    if args.wait is not None and not 0 < args.wait <= 3600:
        raise CliError.said("err_seconds_range", flag="--wait")
    registry = _load()
    _setup_logging(args.verbose)
    return run_tables(args, out, registry.games, PROTO, _words())
