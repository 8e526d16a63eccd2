"""The mesh over trio's in-memory streams: several nodes in one process, for tests and benchmarks.

Each pair of nodes is joined by :func:`trio.testing.memory_stream_pair`, so the nodes run
exactly the code they run over TCP -- framing, dispatch, reordering, logs -- without sockets.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import trio

from p2pcards.core import GameSpec, Options
from p2pcards.identity import Identity
from p2pcards.net.errors import single_error
from p2pcards.net.link import Link
from p2pcards.net.node import EventSink, LocalSeat, Node, TableRecorder
from p2pcards.net.store import Manifest
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, SeatInfo, make_genesis

__all__ = ["make_table", "memory_mesh", "play_in_memory"]


def make_table(
    host: Identity,
    spec: GameSpec,
    seats: Sequence[SeatInfo],
    *,
    options: Options | None = None,
    deals: int | None = None,
    timeout: float = 60.0,
    nonce: bytes | None = None,
    hints: bool = True,
) -> bytes:
    """A genesis signed by ``host``: ``options`` resolved against ``spec`` to plain values
    (``hints`` False: the host forbids hints at the table)."""
    resolved = spec.resolve_options({k: str(v) for k, v in (options or {}).items()})
    genesis = Genesis(
        game=spec.name, rules_version=spec.rules_version, options=resolved, seats=tuple(seats),
        deals=deals, host_signing=host.signing_public, host_name=host.name,
        nonce=nonce if nonce is not None else os.urandom(16), timeout=float(timeout), hints=hints,
    )
    return make_genesis(host, genesis)


def memory_mesh(
    genesis_raw: bytes,
    spec: GameSpec,
    groups: Sequence[Sequence[LocalSeat]],
    *,
    data_dir: Path | None = None,
    on_event: EventSink | None = None,
    timeout: float | None = None,
    manifest: Manifest | None = None,
    table_class: Callable[..., Table] = Table,
    recorder: TableRecorder | None = None,
) -> list[Node]:
    """One node per group of local seats, every pair of nodes joined by an in-memory link.

    ``manifest`` (a ``local`` table's, :mod:`p2pcards.net.store`) is kept by the first node;
    ``table_class`` builds the replicas and ``recorder`` keeps the history (see
    :class:`~p2pcards.net.node.Node`; the nodes share it).
    """
    from trio.testing import memory_stream_pair  # here: trio.testing imports pytest when it is there

    nodes = [Node(genesis_raw, spec, g, data_dir=data_dir, on_event=on_event, timeout=timeout,
                  manifest=manifest if i == 0 else None, table_class=table_class, recorder=recorder)
             for i, g in enumerate(groups)]
    for i, a in enumerate(nodes):
        for j in range(i + 1, len(nodes)):
            b = nodes[j]
            left, right = memory_stream_pair()
            a.attach(Link(left, f"node{j}"), set(b.peers))
            b.attach(Link(right, f"node{i}"), set(a.peers))
    return nodes


async def play_in_memory(
    genesis_raw: bytes,
    spec: GameSpec,
    groups: Sequence[Sequence[LocalSeat]],
    *,
    data_dir: Path | None = None,
    on_event: EventSink | None = None,
    timeout: float | None = None,
    table_class: Callable[..., Table] = Table,
) -> list[Node]:
    """Build :func:`memory_mesh` and run every node to the end of the table."""
    nodes = memory_mesh(genesis_raw, spec, groups, data_dir=data_dir, on_event=on_event, timeout=timeout,
                        table_class=table_class)
    with single_error():
        async with trio.open_nursery() as nursery:
            for node in nodes:
                nursery.start_soon(node.run)
    return nodes
