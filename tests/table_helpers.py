"""A synchronous, in-process network for sans-IO tables: every message a table returns is
delivered, in order, to every other table; decisions are asked of players."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from p2pcards.core import load_games
from p2pcards.core.players import make_player
from p2pcards.identity import Identity
from p2pcards.table.local import run_local
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import Genesis, SeatInfo, make_genesis

REGISTRY = load_games()


@dataclass
class Net:
    tables: list[Table]
    ids: list[Identity]
    players: list[Any]
    events: list[list[dict[str, Any]]]
    genesis: bytes
    rejected: list[tuple[int, Rejected]] = field(default_factory=list)
    delivered: int = 0


def make_net(
    game: str,
    deals: int | None = 1,
    options: dict[str, str] | None = None,
    levels: list[str] | None = None,
    seed: int = 1,
    table_class: dict[int, type[Table]] | None = None,
) -> Net:
    spec = REGISTRY.get(game)
    ids = [Identity.generate(f"peer{s}") for s in range(spec.seats)]
    host = Identity.generate("host")
    seats = tuple(SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids)
    opts = spec.resolve_options(options or {})
    genesis = Genesis(game, spec.rules_version, opts, seats, deals, host.signing_public, "host", os.urandom(16), 60.0)
    raw = make_genesis(host, genesis)
    events: list[list[dict[str, Any]]] = [[] for _ in ids]
    classes = table_class or {}
    tables = [
        classes.get(s, Table)(raw, spec, ids[s], os.urandom(32), on_event=events[s].append)
        for s in range(spec.seats)
    ]
    levels = levels or ["random"] * spec.seats
    players = [make_player(levels[s], spec, random.Random(seed * 10 + s)) for s in range(spec.seats)]
    return Net(tables, ids, players, events, raw)


Tamper = Callable[[Net, int, bytes], None]


def run(net: Net, tamper: Tamper | None = None) -> Net:
    """Deliver everything until no table has anything to do.  ``tamper(net, author, raw)``
    is called before each genuine message is delivered (to inject bad ones)."""

    def hook(author: int, raw: bytes) -> None:
        if tamper is not None:
            tamper(net, author, raw)
        net.delivered += 1

    run_local(net.tables, net.players, hook)
    return net


def inject(net: Net, raw: bytes, skip: int | tuple[int, ...] | None = None) -> list[Rejected]:
    """Offer ``raw`` to every table (but those in ``skip``); every one must reject it."""
    errors = []
    skipped = skip if isinstance(skip, tuple) else (skip,)
    for s, t in enumerate(net.tables):
        if s in skipped:
            continue
        before = (t.seq, t.head)
        try:
            t.receive(raw)
        except Rejected as exc:
            errors.append(exc)
            assert (t.seq, t.head) == before, "a rejected message changed the table"
        else:
            raise AssertionError(f"seat {s} accepted a bad message")
    return errors
