"""A peer this process runs at a table: its seat, its player, what it tells.

* :class:`LocalSeat` -- what a node is given for each of its peers: an identity, a player,
  a private table secret (and, to take a seat up again, the saved log and votes);
* :class:`Peer` -- a local peer as the node runs it;
* :class:`ThreadedPlayer` -- a computer player that thinks in a worker thread, so that the
  peer's links, heartbeats and clocks go on meanwhile (:func:`in_background`);
* :class:`TableRecorder` -- whatever keeps a record of the tables a process plays (the
  history), handed to the node;
* :func:`describe_table` -- the ``table`` object of the ``--json`` output.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

import trio

from p2pcards.core import Decision, Plain, SeatView
from p2pcards.identity import Identity, fingerprint
from p2pcards.net.clocks import Clock
from p2pcards.net.files import PeerFiles
from p2pcards.net.inbox import Inbox, Reorder
from p2pcards.players import Player
from p2pcards.table.common import Rejected
from p2pcards.table.events import Output, TableEvent
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis

__all__ = ["AsyncPlayer", "LocalSeat", "Peer", "ThreadedPlayer", "in_background", "TableRecorder", "EventSink",
           "describe_table"]

log = logging.getLogger("p2pcards.net.peer")

#: ``on_event(seat, event)``: what a local replica told (a closed deal, the end, a vote...).
EventSink = Callable[[int, TableEvent], None]


@runtime_checkable
class AsyncPlayer(Protocol):
    """A player that answers in its own time (a person on a screen, a computer player in a
    thread): the peer's task awaits :meth:`achoose` (:mod:`~p2pcards.net.asking`).  One that
    also ``listens`` (a true attribute: a person) has what arrives meanwhile filed."""

    async def achoose(self, view: SeatView, decision: Decision) -> Plain: ...


class TableRecorder(Protocol):
    """Whatever keeps a record of the tables this process plays (the history database):
    it hears every event of the lowest local seat's replica, the ones its saved log told
    again when it was restored included, and never raises."""

    def record(self, data_dir: Path | None, table_id: bytes, seat: int | None, event: TableEvent) -> None: ...

    def close(self) -> None: ...


@dataclass
class LocalSeat:
    """A peer this process runs: its identity, its player, and its private table secret.

    To take a seat again after a crash, ``log`` is the saved transcript (the replica is
    restored from it and the file goes on) and ``side`` the peer's saved votes and nays;
    ``stem`` names its files (:func:`~p2pcards.net.store.peer_stem`).
    """

    identity: Identity
    player: Player
    secret: bytes = field(default_factory=lambda: os.urandom(32))
    log: list[bytes] | None = None
    side: list[bytes] = field(default_factory=list)
    stem: str | None = None


@dataclass
class Peer:
    """A local peer as its node runs it: its replica, player and files, its clock, its
    queue of frames and the entries waiting ahead, and what its replica's outputs ask for
    that is not carried out yet."""

    seat: int
    table: Table
    player: Player
    files: PeerFiles
    clock: Clock = field(default_factory=lambda: Clock(0.0))
    inbox: Inbox = field(default_factory=Inbox)
    reorder: Reorder = field(default_factory=Reorder)
    #: messages to send and events to tell, from outputs not carried out yet
    out: list[bytes] = field(default_factory=list)
    events: list[TableEvent] = field(default_factory=list)
    rejected: list[tuple[int | None, Rejected]] = field(default_factory=list)
    #: True when the replica was restored from a saved log (it has started already)
    restored: bool = False

    @property
    def stem(self) -> str:
        return self.files.stem

    def took(self, out: Output) -> None:
        """An output of the replica, carried out at the next :meth:`commit`."""
        self.files.take(out)
        self.out += out.send
        self.events += out.events

    def commit(self) -> tuple[list[bytes], list[TableEvent]]:
        """Write what the outputs taken ask for (fsync); what they send and tell, in order."""
        self.files.commit()
        out, self.out = self.out, []
        events, self.events = self.events, []
        return out, events

    def observe(self, observe: Callable[[Table], None] | None) -> None:
        """Show the replica to ``observe`` (a screen), whose failure does not break the peer."""
        if observe is not None:
            try:
                observe(self.table)
            except Exception:  # noqa: BLE001 -- a failing observer must not break the peer
                log.exception("seat %d: the player's observer failed", self.seat)

    def set_aside_unconfirmed(self) -> None:
        """Cut this seat's own entries at the end of its log, which no other seat built on,
        and keep them apart (:meth:`~p2pcards.net.node.Node.set_aside_unconfirmed`)."""
        authors = self.table.chain.authors
        k = len(authors)
        while k > 1 and authors[k - 1] == self.seat:
            k -= 1
        self.files.set_aside(self.table.log[k:self.files.written])

    def refused(self, seq: int | None, exc: Rejected) -> None:
        """Keep a refusal (the last thousand or so)."""
        self.rejected.append((seq, exc))
        if len(self.rejected) > 1000:
            del self.rejected[:500]


class ThreadedPlayer:
    """A computer player that thinks in a worker thread, so that the peer's links,
    heartbeats and clocks go on while it searches (:func:`in_background`).

    The peer's task awaits :meth:`achoose` and files nothing meanwhile, so the replica the
    view reads does not change under the thread.
    """

    def __init__(self, inner: Player) -> None:
        self.inner = inner

    async def achoose(self, view: SeatView, decision: Decision) -> Plain:
        return await trio.to_thread.run_sync(self.inner.choose, view, decision)

    def choose(self, view: SeatView, decision: Decision) -> Plain:  # the plain Player interface
        return self.inner.choose(view, decision)


def in_background(player: Player) -> Player:
    """``player`` itself, or, for a player that takes time to think (a ``thinks``
    attribute that is true, like the search bot's), a :class:`ThreadedPlayer` around it.
    Quick players stay in the trio thread: a hop to a worker thread per decision costs
    more than their whole decision."""
    if getattr(player, "thinks", False) and not isinstance(player, AsyncPlayer):
        return ThreadedPlayer(player)
    return player


def describe_table(genesis: Genesis, local_seats: Sequence[int]) -> dict[str, object]:
    """The ``table`` object of the ``--json`` output: the genesis in plain values
    (``hints``: False when the host forbade the people at the table to ask for hints)."""
    return {
        "type": "table",
        "table": genesis.table_id.hex(),
        "game": genesis.game,
        "rules_version": genesis.rules_version,
        "options": dict(genesis.options),
        "deals": genesis.deals,
        "timeout": genesis.timeout,
        "hints": genesis.hints,
        "host": {"name": genesis.host_name, "fingerprint": fingerprint(genesis.host_signing)},
        "seats": [
            {"seat": i, "name": s.name, "fingerprint": s.fingerprint, "bot": s.bot, "runs_on": s.runs_on}
            for i, s in enumerate(genesis.seats)
        ],
        "local_seats": sorted(local_seats),
    }
