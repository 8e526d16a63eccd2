"""The trio-facing discovery interface, shared by the zeroconf bridge and the in-memory fake.

A :class:`Discovery` announces tables (``announce`` / ``update`` / ``withdraw``) and
browses for them (``browse()``: an async context manager giving an async iterator of
:class:`~p2pcards.discovery.record.TableEvent`).  Both implementations are opened with an
async context manager that withdraws whatever is still announced when it exits.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Protocol

from p2pcards.discovery.interfaces import NetInterface
from p2pcards.discovery.record import Announcement, TableEvent
from p2pcards.net.errors import leaves

__all__ = ["Discovery", "Registration", "DEFAULT_TTL", "one_error"]

#: Seconds an announcement lives in browsers' caches unless refreshed (its records' TTL):
#: a crashed host's table is listed at most this long.
DEFAULT_TTL = 120


@dataclass
class Registration:
    """A table this process announces: its final ``name`` (a clash on the LAN renames it),
    the full ``service`` name, the lobby ``port`` and the announcement as last sent."""

    name: str
    service: str
    port: int
    announcement: Announcement
    active: bool = True


class Discovery(Protocol):
    """Announce tables on the LAN and watch the tables announced there."""

    #: the network interfaces in use
    interfaces: tuple[NetInterface, ...]

    def addresses_for(self, bind: str) -> list[str]:
        """The addresses to announce for a lobby listening on ``bind``."""
        ...

    async def announce(self, name: str, port: int, announcement: Announcement,
                       addresses: Sequence[str] | None = None) -> Registration:
        """Announce table ``name`` at ``port`` (on ``addresses``; None: every address of the
        interfaces in use).  The name may come back changed if another table holds it."""
        ...

    async def update(self, registration: Registration, announcement: Announcement) -> None:
        """Replace the announcement of a registered table (seats filling...)."""
        ...

    async def withdraw(self, registration: Registration) -> None:
        """Withdraw a table with a goodbye, so browsers drop it at once.  Idempotent."""
        ...

    def browse(self) -> AbstractAsyncContextManager[AsyncIterator[TableEvent]]:
        """Watch the LAN: appear / update / vanish events until the context exits."""
        ...


@contextlib.contextmanager
def one_error() -> Iterator[None]:
    """Around a nursery inside a context manager: an exception group holding one exception
    (trio wraps even the body's) comes out as that exception, so callers of the context
    manager catch what was raised."""
    try:
        yield
    except BaseExceptionGroup as group:
        found = list(leaves(group))
        if len(found) == 1:
            raise found[0] from None
        raise
