"""The lobby's use of discovery: announce a hosted table as its seats fill; list and find tables.

Written against the :class:`~p2pcards.discovery.base.Discovery` interface only, so the
unit tests run it over the in-memory fake and the commands over zeroconf.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager

import trio

from p2pcards.discovery.base import Discovery, Registration, one_error
from p2pcards.discovery.errors import DiscoveryError
from p2pcards.discovery.record import Announcement, InstalledGame, OpenTable, TableEvent, matches, why_not_joinable

__all__ = ["TableAnnouncer", "announcing", "collect_tables", "find_table", "check_joinable", "watch_tables",
           "TableNotFound", "NotJoinable", "RETRY"]

log = logging.getLogger("p2pcards.discovery")

#: Seconds before trying again to announce after discovery failed.
RETRY = 5.0
#: Seconds the withdrawal may take when the table closes.
_WITHDRAW_TIMEOUT = 3.0


class TableNotFound(DiscoveryError):
    """No table of that name answered within the wait."""


class NotJoinable(DiscoveryError):
    """The table named is on the LAN but this peer cannot join it (the reason is the message)."""


class TableAnnouncer:
    """Keeps a hosted table's announcement in step with its lobby.

    The host's runtime calls the plain methods -- :meth:`listening` once its lobby listens,
    :meth:`seats` whenever a seat is taken or freed, :meth:`close` when the table starts or
    ends -- and :meth:`run`, a trio task, carries them out: it announces the table once the
    port is known and a seat is free, updates the record as seats fill, withdraws it (a
    goodbye) when every seat is taken, announces it again if a seat frees before the table
    starts, and withdraws it when cancelled.  A failure of discovery is logged and reported to
    ``on_problem``; it never stops the table (players can still join by address).
    """

    def __init__(self, disco: Discovery, name: str, announcement: Announcement, *,
                 addresses: Sequence[str] | None = None,
                 on_announced: Callable[[Registration], None] | None = None,
                 on_problem: Callable[[str], None] | None = None) -> None:
        self.disco = disco
        self.name = name
        self.announcement = announcement
        self.addresses = addresses
        self.on_announced = on_announced
        self.on_problem = on_problem
        self.port: int | None = None
        self.closed = False
        self.registration: Registration | None = None
        self._changed = trio.Event()

    # ---- hooks for the host's runtime (synchronous, called from trio)
    def listening(self, port: int) -> None:
        """The lobby listens on ``port``: the table can be announced."""
        self.port = port
        self._changed.set()

    def seats(self, taken: int, total: int) -> None:
        """``taken`` of ``total`` seats are held (bots included)."""
        if total != self.announcement.seats_total:
            raise ValueError(f"the table has {self.announcement.seats_total} seats, not {total}")
        self.announcement = self.announcement.with_seats(taken)
        self._changed.set()

    def close(self) -> None:
        """The table has started or is closing: withdraw it for good."""
        self.closed = True
        self._changed.set()

    # ---- the task
    def _wanted(self) -> bool:
        return self.port is not None and not self.closed and self.announcement.seats_free > 0

    async def _step(self) -> None:
        reg = self.registration
        if self._wanted():
            assert self.port is not None
            if reg is None:
                reg = await self.disco.announce(self.name, self.port, self.announcement, self.addresses)
                self.registration = reg
                if self.on_announced is not None:
                    self.on_announced(reg)
            elif reg.announcement != self.announcement:
                await self.disco.update(reg, self.announcement)
        elif reg is not None:
            self.registration = None
            await self.disco.withdraw(reg)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Announce, update and withdraw as the hooks say, until cancelled (then withdraw)."""
        task_status.started()
        try:
            while True:
                self._changed = trio.Event()
                retry = False
                try:
                    await self._step()
                except DiscoveryError as exc:
                    log.warning("announcing table %r: %s", self.name, exc)
                    if self.on_problem is not None:
                        self.on_problem(str(exc))
                    retry = True
                if self.closed and self.registration is None:
                    return
                with trio.move_on_after(RETRY if retry else float("inf")):
                    await self._changed.wait()
        finally:
            reg, self.registration = self.registration, None
            if reg is not None:
                with trio.CancelScope(shield=True), trio.move_on_after(_WITHDRAW_TIMEOUT):
                    try:
                        await self.disco.withdraw(reg)
                    except DiscoveryError as exc:
                        log.warning("withdrawing table %r: %s", self.name, exc)


@asynccontextmanager
async def announcing(open_discovery: Callable[[], AbstractAsyncContextManager[Discovery]], name: str,
                     announcement: Announcement, *, bind: str = "0.0.0.0",
                     on_announced: Callable[[Registration], None] | None = None,
                     on_problem: Callable[[str], None] | None = None) -> AsyncIterator[TableAnnouncer | None]:
    """Open discovery and run a :class:`TableAnnouncer` for the body's duration; the table
    is announced on the addresses its lobby listening on ``bind`` can be reached at.

    Yields None (after reporting to ``on_problem``) when discovery cannot be opened: the
    table is then hosted without an announcement.
    """
    async with AsyncExitStack() as stack:
        disco: Discovery | None = None
        try:
            disco = await stack.enter_async_context(open_discovery())
        except DiscoveryError as exc:
            if on_problem is not None:
                on_problem(str(exc))
        if disco is None:
            yield None
            return
        announcer = TableAnnouncer(disco, name, announcement, addresses=disco.addresses_for(bind),
                                   on_announced=on_announced, on_problem=on_problem)
        with one_error():
            async with trio.open_nursery() as nursery:
                await nursery.start(announcer.run)
                try:
                    yield announcer
                finally:
                    nursery.cancel_scope.cancel()


async def collect_tables(disco: Discovery, wait: float) -> list[OpenTable]:
    """Browse for ``wait`` seconds; the tables open at the end, by name."""
    tables: dict[str, OpenTable] = {}
    async with disco.browse() as events:
        with trio.move_on_after(wait):
            async for event in events:
                key = event.table.service.lower()
                if event.kind == "vanish":
                    tables.pop(key, None)
                else:
                    tables[key] = event.table
    return sorted(tables.values(), key=lambda t: (t.name.lower(), t.service))


async def watch_tables(disco: Discovery, wait: float | None,
                       on_event: Callable[[TableEvent], None]) -> None:
    """Report every appear / update / vanish for ``wait`` seconds (None: until cancelled)."""
    async with disco.browse() as events:
        with trio.move_on_after(float("inf") if wait is None else wait):
            async for event in events:
                on_event(event)


async def find_table(disco: Discovery, query: str, wait: float) -> OpenTable:
    """The table named ``query`` (its table or service name, in any case) as first seen,
    browsing up to ``wait`` seconds; :class:`TableNotFound` if none answers in time."""
    async with disco.browse() as events:
        with trio.move_on_after(wait):
            async for event in events:
                if event.kind != "vanish" and matches(query, event.table):
                    return event.table
    raise TableNotFound(f"no table named {query!r} answered on the LAN within {wait:g} s "
                        "(`p2pcards tables` lists the open ones)")


def check_joinable(table: OpenTable, games: Mapping[str, InstalledGame], proto: int) -> None:
    """Raise :class:`NotJoinable` with the reason unless this peer can join ``table``."""
    reason = why_not_joinable(table, games, proto)
    if reason is not None:
        raise NotJoinable(f"table {table.name!r} cannot be joined: {reason}")
