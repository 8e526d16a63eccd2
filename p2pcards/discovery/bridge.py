"""python-zeroconf, bridged into trio.

zeroconf runs its own asyncio loop on its own thread, and a ``ServiceBrowser`` calls its
handlers on yet another thread.  Nothing here touches a trio object from those threads:

- calls *into* zeroconf (register, update, unregister, resolve, read the cache) are its
  blocking, thread-safe API, run with :func:`trio.to_thread.run_sync`;
- the browser's callbacks are forwarded *into* trio with :func:`trio.from_thread.run`,
  which puts ``(name, change)`` on a memory channel (size 0: the browser thread waits for
  trio to take it, and it is the only thing that thread does);
- a trio task per table resolves it, emits appear / update / vanish events on the channel
  :meth:`ZeroconfDiscovery.browse` yields, and keeps its records alive.

Why the per-table task keeps records alive: python-zeroconf's browser raises the TTL of
every PTR record it caches to at least 1125 s, so by itself it would list a crashed host
for some 19 minutes.  The SRV and TXT records keep the TTL their host gave them; like any
querier interested in a record (RFC 6762 §5.2), the task asks for them again at 80, 85,
90 and 95 % of their lifetime, and when they expire unanswered the table vanishes.  A
withdrawn table's goodbye (TTL 0) removes it at once.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from functools import partial
from typing import TypeVar

import trio
from zeroconf import (  # type: ignore[attr-defined]  # DNSOutgoing, DNSQuestion: public, not in __all__
    DNSOutgoing,
    DNSQuestion,
    IPVersion,
    ServiceBrowser,
    ServiceInfo,
    ServiceStateChange,
    Zeroconf,
    current_time_millis,
)

from p2pcards.discovery.base import DEFAULT_TTL, Registration, one_error
from p2pcards.discovery.errors import DiscoveryError
from p2pcards.discovery.interfaces import (
    IpVersion,
    NetInterface,
    announce_addresses,
    select_interfaces,
    zeroconf_choice,
)
from p2pcards.discovery.record import (
    SERVICE_TYPE,
    Announcement,
    OpenTable,
    TableEvent,
    check_table_name,
    encode_txt,
    instance_name,
    listing,
    order_addresses,
    service_name,
)

__all__ = ["ZeroconfDiscovery", "open_discovery", "RESOLVE_TIMEOUT"]

log = logging.getLogger("p2pcards.discovery")

#: Seconds to resolve a table (SRV, TXT and addresses) once it is seen.
RESOLVE_TIMEOUT = 3.0
_RESOLVE_ATTEMPTS = 2
#: Seconds to wait for zeroconf's loop to answer a call (it is never expected to take long).
_CALL_TIMEOUT = 5.0
#: Seconds the goodbyes and closing may take when leaving.
_CLOSE_TIMEOUT = 5.0
#: Events a browse buffers for a slow reader before the table tasks wait.
_EVENT_BUFFER = 64
_TYPE_TXT, _TYPE_SRV, _CLASS_IN, _FLAGS_QUERY = 16, 33, 1, 0x0000
_REFRESH_AT = (0.80, 0.85, 0.90, 0.95)  # RFC 6762 §5.2

_IP_VERSIONS = {"4": IPVersion.V4Only, "6": IPVersion.V6Only, "all": IPVersion.All}
T = TypeVar("T")


class ZeroconfDiscovery:
    """Discovery over multicast DNS (python-zeroconf).  Open it with :func:`open_discovery`."""

    def __init__(self, zc: Zeroconf, interfaces: Sequence[NetInterface], ip_version: IpVersion, ttl: int) -> None:
        self._zc = zc
        self.interfaces = tuple(interfaces)
        self.ip_version = ip_version
        self.ttl = ttl
        self._registered: dict[str, ServiceInfo] = {}  # service name (lowercase) -> info
        self._local_networks = [n for i in interfaces for n in i.networks]

    # ------------------------------------------------------------------ helpers
    async def _blocking(self, fn: Callable[..., T], *args: object, abandon: bool = False) -> T:
        """Run one of zeroconf's blocking calls on a worker thread; its errors become DiscoveryError."""
        try:
            return await trio.to_thread.run_sync(partial(fn, *args), abandon_on_cancel=abandon)
        except (OSError, RuntimeError, TimeoutError) as exc:
            raise DiscoveryError(f"multicast DNS failed: {str(exc) or type(exc).__name__}") from exc
        except Exception as exc:  # zeroconf.Error and its kin
            if type(exc).__module__.startswith("zeroconf"):
                raise DiscoveryError(f"multicast DNS failed: {type(exc).__name__} {exc}") from exc
            raise

    def _in_loop(self, fn: Callable[[], T]) -> T:
        """(worker thread) Run ``fn`` on zeroconf's event loop, where its cache lives; wait for it."""
        loop = self._zc.loop
        assert loop is not None

        async def call() -> T:
            return fn()

        return asyncio.run_coroutine_threadsafe(call(), loop).result(_CALL_TIMEOUT)

    def addresses_for(self, bind: str) -> list[str]:
        """The addresses to announce for a lobby listening on ``bind`` (see :func:`announce_addresses`)."""
        return announce_addresses(bind, self.interfaces)

    def _info(self, service: str, port: int, announcement: Announcement, addresses: Sequence[str],
              server: str) -> ServiceInfo:
        return ServiceInfo(SERVICE_TYPE, service, port=port, properties=encode_txt(announcement), server=server,
                           host_ttl=self.ttl, other_ttl=self.ttl, parsed_addresses=list(addresses))

    # ------------------------------------------------------------------ announcing
    async def announce(self, name: str, port: int, announcement: Announcement,
                       addresses: Sequence[str] | None = None) -> Registration:
        """Register the table (probing for its name first; a clash renames it ``NAME-2``...)."""
        problem = check_table_name(name)
        if problem:
            raise ValueError(problem)
        addrs = list(addresses) if addresses is not None else self.addresses_for("0.0.0.0")
        if not addrs:
            raise DiscoveryError("no address to announce the table on")
        server = f"p2pcards-{announcement.host_fingerprint.replace('-', '')}-{port}.local."
        info = self._info(service_name(name), port, announcement, addrs, server)
        await self._blocking(partial(self._zc.register_service, info, allow_name_change=True))
        self._registered[info.name.lower()] = info
        log.info("announced table %r on port %d (%s)", instance_name(info.name), port, ", ".join(addrs))
        return Registration(instance_name(info.name), info.name, port, announcement)

    async def update(self, registration: Registration, announcement: Announcement) -> None:
        """Send the new TXT record (with the cache-flush bit: browsers replace the old one)."""
        old = self._registered.get(registration.service.lower())
        if old is None or not registration.active:
            raise DiscoveryError(f"table {registration.name!r} is not announced")
        assert old.server is not None
        info = self._info(old.name, registration.port, announcement, old.parsed_addresses(), old.server)
        await self._blocking(self._zc.update_service, info)
        self._registered[info.name.lower()] = info
        registration.announcement = announcement

    async def withdraw(self, registration: Registration) -> None:
        """Send the goodbyes (records with TTL 0).  Idempotent."""
        info = self._registered.pop(registration.service.lower(), None)
        registration.active = False
        if info is not None:
            await self._blocking(self._zc.unregister_service, info)
            log.info("withdrew table %r", registration.name)

    # ------------------------------------------------------------------ browsing
    @asynccontextmanager
    async def browse(self) -> AsyncIterator[AsyncIterator[TableEvent]]:
        """Watch the LAN for tables: yields a channel of appear / update / vanish events."""
        changes_send, changes_recv = trio.open_memory_channel[tuple[str, str]](0)
        events_send, events_recv = trio.open_memory_channel[TableEvent](_EVENT_BUFFER)
        token = trio.lowlevel.current_trio_token()

        async def put(item: tuple[str, str]) -> None:  # in trio, on behalf of the browser thread
            try:
                await changes_send.send(item)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass  # the browse is over

        def on_change(zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
            # zeroconf's browser thread: hand over to trio, touching nothing of trio's
            try:
                trio.from_thread.run(put, (name, state_change.name), trio_token=token)
            except (trio.RunFinishedError, trio.Cancelled):
                pass

        browser = await self._blocking(partial(ServiceBrowser, self._zc, SERVICE_TYPE, handlers=[on_change]))
        try:
            with one_error():
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self._dispatch, changes_recv, events_send, nursery)
                    try:
                        yield events_recv
                    finally:
                        nursery.cancel_scope.cancel()
        finally:
            changes_recv.close()  # a browser callback waiting in put() returns now
            with trio.CancelScope(shield=True), trio.move_on_after(_CLOSE_TIMEOUT):
                await trio.to_thread.run_sync(browser.cancel, abandon_on_cancel=True)

    async def _dispatch(self, changes: trio.MemoryReceiveChannel[tuple[str, str]],
                        events: trio.MemorySendChannel[TableEvent], nursery: trio.Nursery) -> None:
        """Route the browser's changes to one watcher task per table."""
        watchers: dict[str, _Watcher] = {}
        try:
            async for name, change in changes:
                key = name.lower()
                watcher = watchers.get(key)
                if change == ServiceStateChange.Removed.name:
                    if watcher is not None:
                        watcher.remove()
                elif watcher is None:
                    watcher = watchers[key] = _Watcher(self, name, events, watchers)
                    nursery.start_soon(watcher.run)
                else:
                    watcher.poke()
        except trio.ClosedResourceError:
            pass

    def _resolve_sync(self, service: str) -> OpenTable | None:
        """(worker thread) Resolve ``service`` from the cache, or by asking, within the timeout."""
        info = ServiceInfo(SERVICE_TYPE, service)
        if not info.request(self._zc, RESOLVE_TIMEOUT * 1000):
            return None
        # every address the host gives, whichever IP version carried the answer
        addresses = order_addresses(info.parsed_scoped_addresses(IPVersion.All), self._local_networks)
        return listing(service, addresses, info.port, info.text)

    def _life_sync(self, service: str) -> tuple[float, float] | None:
        """(zeroconf's loop) Seconds left and TTL of the service's SRV and TXT records (the
        shorter-lived of the two freshest), or None if either is gone."""
        now = current_time_millis()
        lives = []
        for rtype in (_TYPE_SRV, _TYPE_TXT):
            records = [r for r in self._zc.cache.get_all_by_details(service, rtype, _CLASS_IN) if not r.is_expired(now)]
            if not records:
                return None
            best = max(records, key=lambda r: r.get_remaining_ttl(now))
            lives.append((float(best.get_remaining_ttl(now)), float(best.ttl)))
        return min(lives)

    def _ask_sync(self, service: str) -> None:
        """(any thread) Ask for the service's SRV and TXT records, without known answers."""
        out = DNSOutgoing(_FLAGS_QUERY)
        out.add_question(DNSQuestion(service, _TYPE_SRV, _CLASS_IN))
        out.add_question(DNSQuestion(service, _TYPE_TXT, _CLASS_IN))
        self._zc.send(out)

    async def _close(self) -> None:
        for info in list(self._registered.values()):
            try:
                await self._blocking(self._zc.unregister_service, info)
            except DiscoveryError as exc:
                log.warning("could not withdraw %s: %s", info.name, exc)
        self._registered.clear()
        await trio.to_thread.run_sync(self._zc.close, abandon_on_cancel=True)


class _Watcher:
    """One table seen by a browse: resolves it, reports it, keeps its records alive (trio task)."""

    def __init__(self, bridge: ZeroconfDiscovery, service: str, events: trio.MemorySendChannel[TableEvent],
                 watchers: dict[str, _Watcher]) -> None:
        self.bridge = bridge
        self.service = service
        self.events = events
        self.watchers = watchers
        self.removed = False
        self.poked = False
        self.wake = trio.Event()

    def poke(self) -> None:
        """The browser saw its records change: resolve again."""
        self.poked = True
        self.wake.set()

    def remove(self) -> None:
        """The browser saw a goodbye (or the PTR expired): the table vanishes."""
        self.removed = True
        self.wake.set()

    async def run(self) -> None:
        shown: OpenTable | None = None
        try:
            while not self.removed:
                self.poked = False
                self.wake = trio.Event()
                table = await self._resolve()
                if table is None:
                    break
                if table != shown and not self.removed:
                    await self.events.send(TableEvent("appear" if shown is None else "update", table))
                    shown = table
                if await self._keep_alive():
                    log.info("%s expired (no answer within its TTL)", self.service)
                    break
            if shown is not None:
                await self.events.send(TableEvent("vanish", shown))
        except DiscoveryError as exc:
            log.warning("watching %s: %s", self.service, exc)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass  # nobody reads the events any more
        finally:
            if self.watchers.get(self.service.lower()) is self:
                del self.watchers[self.service.lower()]

    async def _resolve(self) -> OpenTable | None:
        """The table as resolved now; None if it cannot be, after a few attempts."""
        for attempt in range(_RESOLVE_ATTEMPTS):
            table = await self.bridge._blocking(self.bridge._resolve_sync, self.service, abandon=True)
            if table is not None or self.removed:
                return table
            log.info("could not resolve %s within %g s (attempt %d)", self.service, RESOLVE_TIMEOUT, attempt + 1)
        return None

    async def _keep_alive(self) -> bool:
        """Wait until poked or removed (False), or until the records expire unanswered (True),
        asking for them again late in their lifetime."""
        asked = -math.inf
        while not (self.poked or self.removed):
            life = await self.bridge._blocking(self.bridge._in_loop, partial(self.bridge._life_sync, self.service),
                                               abandon=True)
            if life is None or life[0] <= 0:
                return True
            remaining, ttl = life
            elapsed = 1.0 - remaining / ttl
            due = [f for f in _REFRESH_AT if f > elapsed]
            now = trio.current_time()
            if elapsed >= _REFRESH_AT[0] and now - asked >= 0.04 * ttl:
                self.bridge._ask_sync(self.service)
                asked = now
            if due:
                delay = (due[0] - elapsed) * ttl + random.uniform(0, 0.02 * ttl)
            else:
                delay = remaining + 0.05
            with trio.move_on_after(max(delay, 0.05)):
                await self.wake.wait()
        return False


@asynccontextmanager
async def open_discovery(*, interfaces: Sequence[str] = (), ip_version: IpVersion = "all",
                         ttl: int = DEFAULT_TTL) -> AsyncIterator[ZeroconfDiscovery]:
    """Start multicast DNS on ``interfaces`` (names; default every usable one) for
    ``ip_version``; announcements get records with ``ttl`` seconds to live.

    On exit every table still announced is withdrawn (goodbyes) and zeroconf is closed,
    within a few seconds even when cancelled.  Raises :class:`DiscoveryError` when no
    interface can be used or the sockets cannot be opened.
    """
    if not 1 <= ttl <= 4500:
        raise ValueError("the TTL is 1 to 4500 seconds")
    chosen = select_interfaces(interfaces, ip_version)
    choice = zeroconf_choice(chosen, ip_version)
    try:
        zc = await trio.to_thread.run_sync(partial(Zeroconf, interfaces=choice, ip_version=_IP_VERSIONS[ip_version]))
    except (OSError, RuntimeError) as exc:
        raise DiscoveryError(f"cannot start multicast DNS on {', '.join(i.name for i in chosen)}: {exc}") from exc
    log.info("multicast DNS on %s (IPv%s)", ", ".join(i.name for i in chosen), ip_version)
    disco = ZeroconfDiscovery(zc, chosen, ip_version, ttl)
    try:
        yield disco
    finally:
        with trio.CancelScope(shield=True), trio.move_on_after(_CLOSE_TIMEOUT):
            await disco._close()
