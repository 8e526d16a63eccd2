"""An in-memory stand-in for multicast DNS, with the interface of the zeroconf bridge.

Every :class:`FakeDiscovery` joined to one :class:`FakeLan` sees the tables the others
announce, as appear / update / vanish events.  As on a real LAN, a withdrawn table vanishes
at once (goodbye), while a table whose host :meth:`crashes <FakeDiscovery.crash>` vanishes
only when its records' TTL runs out -- on trio's clock, so tests use ``autojump_clock``.
Raw TXT records, malformed ones included, can be put on the LAN with :meth:`FakeLan.inject`.

The LAN holds plain data only; a TTL countdown started by ``crash()`` is only meaningful
within the trio run that started it.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Iterable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Literal

import trio

from p2pcards.discovery.base import DEFAULT_TTL, Registration, one_error
from p2pcards.discovery.errors import DiscoveryError
from p2pcards.discovery.interfaces import IpVersion, NetInterface, announce_addresses
from p2pcards.discovery.record import (
    Announcement,
    OpenTable,
    TableEvent,
    check_table_name,
    encode_txt,
    instance_name,
    listing,
    service_name,
)

__all__ = ["FakeLan", "FakeDiscovery", "FAKE_INTERFACE", "open_fake"]

#: The interface a FakeDiscovery pretends to use.
FAKE_INTERFACE = NetInterface("fake0", 1, ("192.0.2.1",), (), ("192.0.2.0/24",), True)


@dataclass
class _Record:
    service: str
    port: int
    addresses: tuple[str, ...]
    txt: bytes
    owner: FakeDiscovery | None
    expires_at: float | None = None  # trio time; None: its host keeps it fresh


class _Waker:
    def __init__(self) -> None:
        self.event = trio.Event()


class FakeLan:
    """The shared medium: announced records and the browsers to tell about changes."""

    def __init__(self) -> None:
        self._records: dict[str, _Record] = {}
        self._wakers: set[_Waker] = set()

    def _changed(self) -> None:
        for waker in self._wakers:
            waker.event.set()

    def _expire(self, now: float) -> None:
        for key in [k for k, r in self._records.items() if r.expires_at is not None and r.expires_at <= now]:
            del self._records[key]

    def inject(self, name: str, txt: bytes, *, port: int = 4000, addresses: Iterable[str] = ("192.0.2.10",),
               ttl: float | None = None) -> str:
        """Put a raw record on the LAN, as some other peer announcing ``name`` (its full
        service name is returned).  With ``ttl`` it expires that many seconds from now (in
        the current trio run) unless injected again; without, it stays until :meth:`retract`."""
        service = service_name(name)
        expires = trio.current_time() + ttl if ttl is not None else None
        self._records[service.lower()] = _Record(service, port, tuple(addresses), txt, None, expires)
        self._changed()
        return service

    def retract(self, name: str) -> None:
        """Withdraw an injected record with a goodbye."""
        self._records.pop(service_name(name).lower(), None)
        self._changed()

    def services(self) -> list[str]:
        """The table names announced right now (expired ones aside)."""
        now = _now()
        return sorted(instance_name(r.service) for r in self._records.values()
                      if r.expires_at is None or now is None or r.expires_at > now)

    def txt(self, name: str) -> bytes | None:
        """The TXT record announced for ``name`` (None if there is none)."""
        record = self._records.get(service_name(name).lower())
        return record.txt if record else None


def _now() -> float | None:
    try:
        return trio.current_time()
    except RuntimeError:
        return None


class FakeDiscovery:
    """A peer's discovery on a :class:`FakeLan`; the same interface as ``ZeroconfDiscovery``."""

    def __init__(self, lan: FakeLan, *, interfaces: Sequence[NetInterface] = (FAKE_INTERFACE,),
                 ip_version: IpVersion = "all", ttl: int = DEFAULT_TTL) -> None:
        self.lan = lan
        self.interfaces = tuple(interfaces)
        self.ip_version = ip_version
        self.ttl = ttl
        self.crashed = False
        self._mine: dict[str, _Record] = {}

    def addresses_for(self, bind: str) -> list[str]:
        return announce_addresses(bind, self.interfaces)

    def _check(self) -> None:
        if self.crashed:
            raise DiscoveryError("this peer has crashed")

    async def announce(self, name: str, port: int, announcement: Announcement,
                       addresses: Sequence[str] | None = None) -> Registration:
        self._check()
        problem = check_table_name(name)
        if problem:
            raise ValueError(problem)
        await trio.lowlevel.checkpoint()
        self.lan._expire(trio.current_time())
        final, n = name, 2
        while service_name(final).lower() in self.lan._records:
            final, n = f"{name}-{n}", n + 1
        service = service_name(final)
        addrs = tuple(addresses) if addresses is not None else tuple(self.addresses_for("0.0.0.0"))
        record = _Record(service, port, addrs, encode_txt(announcement), self)
        self.lan._records[service.lower()] = record
        self._mine[service.lower()] = record
        self.lan._changed()
        return Registration(final, service, port, announcement)

    async def update(self, registration: Registration, announcement: Announcement) -> None:
        self._check()
        await trio.lowlevel.checkpoint()
        record = self._mine.get(registration.service.lower())
        if record is None or not registration.active:
            raise DiscoveryError(f"table {registration.name!r} is not announced")
        record.txt = encode_txt(announcement)
        registration.announcement = announcement
        self.lan._changed()

    async def withdraw(self, registration: Registration) -> None:
        await trio.lowlevel.checkpoint()
        registration.active = False
        record = self._mine.pop(registration.service.lower(), None)
        if record is not None and not self.crashed:
            self.lan._records.pop(registration.service.lower(), None)
            self.lan._changed()

    def crash(self) -> None:
        """Die without goodbyes: this peer's records expire ``ttl`` seconds from now."""
        self.crashed = True
        now = trio.current_time()
        for record in self._mine.values():
            record.owner = None
            record.expires_at = now + self.ttl
        self._mine.clear()
        self.lan._changed()

    async def close(self) -> None:
        """Withdraw everything still announced (what leaving :func:`open_fake` does)."""
        await trio.lowlevel.checkpoint()
        if not self.crashed:
            for key in self._mine:
                self.lan._records.pop(key, None)
        self._mine.clear()
        self.lan._changed()

    @asynccontextmanager
    async def browse(self) -> AsyncIterator[AsyncIterator[TableEvent]]:
        send, recv = trio.open_memory_channel[TableEvent](64)
        with one_error():
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._watch, send)
                try:
                    yield recv
                finally:
                    nursery.cancel_scope.cancel()

    async def _watch(self, events: trio.MemorySendChannel[TableEvent]) -> None:
        shown: dict[str, OpenTable] = {}
        waker = _Waker()
        self.lan._wakers.add(waker)
        try:
            while True:
                waker.event = trio.Event()
                self.lan._expire(trio.current_time())
                current = {k: listing(r.service, r.addresses, r.port, r.txt) for k, r in self.lan._records.items()}
                for key, table in list(shown.items()):
                    if key not in current:
                        del shown[key]
                        await events.send(TableEvent("vanish", table))
                for key, table in current.items():
                    if shown.get(key) != table:
                        kind: Literal["appear", "update"] = "update" if key in shown else "appear"
                        shown[key] = table
                        await events.send(TableEvent(kind, table))
                deadlines = [r.expires_at for r in self.lan._records.values() if r.expires_at is not None]
                with trio.move_on_at(min(deadlines, default=math.inf)):
                    await waker.event.wait()
        finally:
            self.lan._wakers.discard(waker)


@asynccontextmanager
async def open_fake(lan: FakeLan, *, interfaces: Sequence[NetInterface] = (FAKE_INTERFACE,),
                    ip_version: IpVersion = "all", ttl: int = DEFAULT_TTL) -> AsyncIterator[FakeDiscovery]:
    """A FakeDiscovery on ``lan`` that withdraws its tables on exit, as ``open_discovery`` does."""
    disco = FakeDiscovery(lan, interfaces=interfaces, ip_version=ip_version, ttl=ttl)
    try:
        yield disco
    finally:
        with trio.CancelScope(shield=True):
            await disco.close()
