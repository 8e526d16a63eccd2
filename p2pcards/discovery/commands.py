"""The LAN side of the ``tables``, ``host`` and ``join`` commands (``p2pcards.cli`` calls in here).

Discovery is opened through ``p2pcards.discovery.open_discovery`` looked up at call time,
so tests can put the in-memory fake in its place.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import shlex
import sys
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING, Final, TextIO

import trio

from p2pcards.core import GameSpec, Options
from p2pcards.discovery.base import DEFAULT_TTL, Discovery, Registration, one_error
from p2pcards.discovery.errors import DiscoveryError
from p2pcards.discovery.record import (
    Announcement,
    InstalledGame,
    OpenTable,
    TableEvent,
    default_table_name,
    joinable_problem,
    table_json,
    why_not_joinable,
)
from p2pcards.discovery.tables import TableAnnouncer, announcing, check_joinable, collect_tables, find_table
from p2pcards.discovery.tables import watch_tables as _watch

if TYPE_CHECKING:
    from p2pcards.identity import Identity
    from p2pcards.net.handshake import SeatSpec
    from p2pcards.words import Text

__all__ = [
    "TABLES_EPILOG", "add_lan_options", "run_tables", "hosting", "hosting_defaults", "make_announcement", "locate",
    "NoAnnouncer",
    "LISTING_WAIT", "JOIN_WAIT",
]

#: Default seconds ``tables`` listens before printing, and ``join NAME`` looks for the table.
LISTING_WAIT: Final = 3.0
JOIN_WAIT: Final = 5.0

TABLES_EPILOG = """\
Lists the tables announced on the local network by `p2pcards host` (DNS-SD service type
_p2pcards._tcp over multicast DNS): it listens for --wait seconds (default 3), then prints
the tables still open.  A table this peer cannot join -- a game that is not installed, or
of another rules version, another lobby protocol, an unreadable announcement, no free seat
-- is listed with the reason.  A person takes a seat of one with `p2pcards play --join NAME`
(a headless computer player with `p2pcards join NAME`).  With --watch it prints
every change as it is seen, for --wait seconds (default: until interrupted).

JSON output (--json): one object
  {"tables": [TABLE, ...]}   (sorted by name)
with --watch, one object per line instead:
  {"type": "appear" | "update", "table": TABLE}
  {"type": "vanish", "name": NAME, "service": SERVICE}   (withdrawn, or its TTL ran out)
  TABLE = {"name": NAME, "service": "NAME._p2pcards._tcp.local.",
           "game": NAME or null, "rules_version": V or null, "proto": N or null,
           "options": {KEY: VALUE-TEXT, ...}, "seats": N or null, "taken": N or null,
           "free": N or null, "deals": N or null,
           "host": {"name": ..., "fingerprint": ...} or null, "table": HEX or null,
           "address": ADDR or null (the one `join NAME` dials), "addresses": [ADDR, ...],
           "port": PORT or null, "joinable": BOOL, "reason": TEXT or null}
  Fields a malformed announcement does not give are null; "reason" says why the table
  cannot be joined (null when it can).  Options are text, as given to `-o KEY=VALUE`.
Exit status: 0 (also when no table is found); 1 when multicast DNS cannot be used (no
interface that is up and multicast-capable...); 2 for bad options.
"""


def add_lan_options(parser: argparse._ActionsContainer) -> None:
    """``--interface`` and ``--ip-version``, shared by tables, host and join."""
    parser.add_argument("--interface", action="append", default=[], metavar="IFACE",
                        help="network interface for multicast DNS (repeatable; default: every interface "
                             "that is up and multicast-capable)")
    parser.add_argument("--ip-version", choices=("4", "6", "all"), default="all",
                        help="IP versions for multicast DNS (default all)")


def hosting_defaults(bind: str = "0.0.0.0") -> argparse.Namespace:
    """The LAN settings of ``host`` at their defaults (for a table hosted from the start screen)."""
    return argparse.Namespace(table_name=None, no_announce=False, bind=bind, mdns_ttl=120, interface=[],
                              ip_version="all")


def make_announcement(spec: GameSpec, options: Options, seats: Sequence[SeatSpec], me: Identity,
                      deals: int | None) -> Announcement:
    """The LAN announcement of a table of ``spec`` hosted by ``me`` (seats: SeatSpecs)."""
    from p2pcards.net import PROTO

    return Announcement(proto=PROTO, game=spec.name, rules_version=spec.rules_version,
                        seats_taken=sum(s.kind != "remote" for s in seats), seats_total=spec.seats,
                        host_name=(me.name if me.name.isprintable() else "")[:40] or "host",
                        host_fingerprint=me.fingerprint,
                        options={k: str(v) for k, v in options.items()}, deals=deals)


def _open(args: argparse.Namespace, ttl: int = DEFAULT_TTL) -> AbstractAsyncContextManager[Discovery]:
    import p2pcards.discovery as discovery  # looked up now: tests replace open_discovery

    opened: AbstractAsyncContextManager[Discovery] = discovery.open_discovery(
        interfaces=args.interface, ip_version=args.ip_version, ttl=ttl)
    return opened


# ---------------------------------------------------------------------- tables
def _describe(table: OpenTable, reason: str | None) -> str:
    ann = table.announcement
    where = f"{table.addresses[0]}:{table.port}" if table.addresses and table.port else "no address"
    if ann is None:
        return f"{table.name}: cannot be joined: {reason} ({where})"
    opts = ", ".join(f"{k}={v}" for k, v in sorted(ann.options.items()))
    deals = f", {ann.deals} deal(s)" if ann.deals else ""
    head = (f"{table.name}: {ann.game}{f' ({opts})' if opts else ''}{deals}, {ann.seats_free} of {ann.seats_total} "
            f"seats free, host {ann.host_name} [{ann.host_fingerprint}] at {where}")
    if reason is not None:
        return f"{head}; cannot be joined: {reason}"
    name = shlex.quote(table.name)
    return f"{head}; join with: p2pcards play --join {name} (a computer player: p2pcards join {name})"


def _describe_in(t: Text, table: OpenTable, games: Mapping[str, InstalledGame], proto: int) -> str:
    """:func:`_describe` in the words of ``t`` (a language other than English)."""
    problem = joinable_problem(table, games, proto)
    reason = None if problem is None else t(f"lan_why_{problem[0]}", **problem[1])
    ann = table.announcement
    where = f"{table.addresses[0]}:{table.port}" if table.addresses and table.port else t("tables_no_address")
    if ann is None:
        return t("tables_unjoinable", name=table.name, reason=reason, where=where)
    opts = ", ".join(f"{k}={v}" for k, v in sorted(ann.options.items()))
    head = t("tables_row", name=table.name, game=ann.game, opts=f" ({opts})" if opts else "",
             deals=t.plural("tables_deals", ann.deals) if ann.deals else "", free=ann.seats_free,
             total=ann.seats_total, host=ann.host_name, fingerprint=ann.host_fingerprint, where=where)
    if reason is not None:
        return head + t("tables_cannot", reason=reason)
    return head + t("tables_join", name=shlex.quote(table.name))


def run_tables(args: argparse.Namespace, out: TextIO, games: Mapping[str, InstalledGame], proto: int,
               text: Text | None = None) -> int:
    """``p2pcards tables``: see :data:`TABLES_EPILOG`; for people in ``text``'s language
    (default English)."""
    t = text if text is not None and text.lang != "en" else None

    def describe(table: OpenTable) -> str:
        return _describe_in(t, table, games, proto) if t else _describe(table, why_not_joinable(table, games, proto))

    def emit(event: TableEvent) -> None:
        table = event.table
        if event.kind == "vanish":
            obj: dict[str, object] = {"type": "vanish", "name": table.name, "service": table.service}
            text = t("tables_gone", name=table.name) if t else f"{table.name}: gone"
        else:
            reason = why_not_joinable(table, games, proto)
            obj = {"type": event.kind, "table": table_json(table, reason)}
            changed = (t("tables_changed") if t else "(changed) ") if event.kind != "appear" else ""
            text = changed + describe(table)
        out.write((json.dumps(obj) if args.json else text) + "\n")
        out.flush()

    found: list[OpenTable] = []

    async def main() -> None:
        async with _open(args) as disco:
            if args.watch:
                await _watch(disco, args.wait, emit)
            else:
                found.extend(await collect_tables(disco, LISTING_WAIT if args.wait is None else args.wait))

    try:
        with one_error():
            trio.run(main)
    except DiscoveryError as exc:
        print(t("cli_error", reason=exc) if t else f"p2pcards: error: {exc}", file=sys.stderr)
        return 1
    if args.watch:
        return 0
    if args.json:
        print(json.dumps({"tables": [table_json(t, why_not_joinable(t, games, proto)) for t in found]}), file=out)
    elif not found:
        wait = LISTING_WAIT if args.wait is None else args.wait
        print(t("tables_none", wait=float(wait)) if t else f"no table found on the local network within {wait:g} s",
              file=out)
    else:
        for table in found:
            print(describe(table), file=out)
    return 0


# ---------------------------------------------------------------------- host
def _is_loopback(bind: str) -> bool:
    if bind == "localhost":
        return True
    try:
        return ipaddress.ip_address(bind.partition("%")[0]).is_loopback
    except ValueError:
        return False


class NoAnnouncer:
    """Stands for the announcer when the table is not announced: every hook does nothing."""

    def listening(self, port: int) -> None:
        pass

    def seats(self, taken: int, total: int) -> None:
        pass

    def close(self) -> None:
        pass


@asynccontextmanager
async def hosting(args: argparse.Namespace, announcement: Announcement, remote_seats: int,
                  line: Callable[[dict[str, object], str], None]) -> AsyncIterator[TableAnnouncer | NoAnnouncer]:
    """Announce the hosted table for the body's duration, unless ``--no-announce``, a
    loopback ``--bind`` (no other machine could reach it) or no remote seat.

    Yields the hooks for ``host_table`` (``listening``, ``seats``, ``close``).  ``line(obj,
    text)`` prints the ``announced`` line; problems are warnings on standard error.
    """
    name = args.table_name or default_table_name(announcement.game, announcement.host_name,
                                                 announcement.host_fingerprint)
    if args.no_announce or remote_seats == 0 or _is_loopback(args.bind):
        yield NoAnnouncer()
        return

    def announced(reg: Registration) -> None:
        line({"type": "announced", "name": reg.name, "service": reg.service, "port": reg.port},
             f"announced on the local network as {reg.name!r}; people join with: p2pcards play --join "
             f"{shlex.quote(reg.name)} (a computer player: p2pcards join {shlex.quote(reg.name)})")

    def problem(text: str) -> None:
        print(f"p2pcards: warning: the table is not announced on the local network: {text}", file=sys.stderr)

    async with announcing(lambda: _open(args, args.mdns_ttl), name, announcement, bind=args.bind,
                          on_announced=announced, on_problem=problem) as announcer:
        yield announcer if announcer is not None else NoAnnouncer()


# ---------------------------------------------------------------------- join
async def locate(args: argparse.Namespace, games: Mapping[str, InstalledGame], proto: int,
                 line: Callable[[dict[str, object], str], None]) -> tuple[str, int, str]:
    """Find the table named ``args.address`` on the LAN: (address, port, host fingerprint).

    Raises :class:`DiscoveryError` (not found, cannot be joined, no multicast) with a
    message for people.  Prints the ``found`` line.
    """
    async with _open(args) as disco:
        table = await find_table(disco, args.address, JOIN_WAIT if args.wait is None else args.wait)
    check_joinable(table, games, proto)
    ann = table.announcement
    assert ann is not None and table.addresses
    if args.host_fingerprint and args.host_fingerprint != ann.host_fingerprint:
        raise DiscoveryError(f"table {table.name!r} is announced by host {ann.host_fingerprint}, "
                             f"not {args.host_fingerprint}")
    line({"type": "found", "table": table_json(table, None)},
         f"found {table.name}: {ann.game} hosted by {ann.host_name} [{ann.host_fingerprint}] at "
         f"{table.addresses[0]}:{table.port}")
    return table.addresses[0], table.port, ann.host_fingerprint
