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
from p2pcards.table.wire import unpack

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


def run(net: Net, tamper: Tamper | None = None, tolerate: bool = False) -> Net:
    """Deliver everything until no table has anything to do.  ``tamper(net, author, raw)``
    is called before each genuine message is delivered (to inject bad ones)."""

    def hook(author: int, raw: bytes) -> None:
        if tamper is not None:
            tamper(net, author, raw)
        net.delivered += 1

    def rejected(seat: int, exc: Rejected) -> None:
        net.rejected.append((seat, exc))

    run_local(net.tables, net.players, hook, on_rejected=rejected if tolerate else None)
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


# ---------------------------------------------------------------- silent seats and votes
@dataclass
class VoteRun:
    """What :func:`run_with_silence` did: the live replicas (a bot's among them), the silent one."""

    tables: dict[int, Table]
    silent: Table
    bots: dict[int, Identity]
    events: dict[int, list[dict[str, Any]]]
    delivered: int = 0


def run_with_silence(net: Net, silent: int, after: int, *, hook: Callable[[VoteRun, int, bytes], None] | None = None,
                     max_messages: int = 100_000) -> VoteRun:
    """Like :func:`run`, but seat ``silent`` hears and says nothing once ``after`` messages
    have been delivered.  When nothing moves, the seat allowed to open a vote does (with a
    fresh bot identity); when the vote is complete, the bot's replica is built from the
    opener's transcript (:meth:`Table.restore`) and plays the seat.  ``hook(run, author,
    raw)`` sees every message before it is delivered."""
    spec = net.tables[0].spec
    tables = dict(enumerate(net.tables))
    vr = VoteRun(tables, net.tables[silent], {}, {s: net.events[s] for s in tables})
    players = dict(enumerate(net.players))
    alive = set(tables)
    pending: dict[bytes, tuple[Identity, bytes]] = {}
    queue: list[tuple[int, bytes]] = []
    for s, t in tables.items():
        queue += [(s, m) for m in t.start()]

    def spawn() -> None:
        for s in sorted(alive):
            for rep in tables[s].replacements:
                if rep.bot.signing in pending and rep.seat not in vr.bots:
                    ident, secret = pending[rep.bot.signing]
                    vr.bots[rep.seat] = ident
                    vr.events[rep.seat] = []
                    bot = Table(net.genesis, spec, ident, secret, seat=rep.seat, on_event=vr.events[rep.seat].append)
                    queue.extend((rep.seat, m) for m in bot.restore(tables[s].log))
                    tables[rep.seat] = bot
                    players[rep.seat] = make_player("random", spec, random.Random(99))
                    alive.add(rep.seat)

    while vr.delivered < max_messages:
        if queue:
            src, raw = queue.pop(0)
            if src not in alive:
                continue
            if hook is not None:
                hook(vr, src, raw)
            vr.delivered += 1
            if vr.delivered == after:
                alive.discard(silent)
            seq = unpack(raw)["seq"]
            for s in sorted(alive):
                t = tables[s]
                if s == src or t.finished or (seq < t.seq and t.log[seq] == raw):
                    continue
                queue += [(s, m) for m in t.receive(raw)]
                spawn()
            continue
        for s in sorted(alive):
            decision = tables[s].decision()
            if decision is not None:
                queue += [(s, m) for m in tables[s].decide(players[s].choose(tables[s].view(), decision))]
                break
        else:
            for s in sorted(alive):
                x = tables[s].may_open_vote()
                if x is not None and x not in alive:
                    ident, secret = Identity.generate(f"bot{x}"), os.urandom(32)
                    pending[ident.signing_public] = (ident, secret)
                    info = SeatInfo(f"bot{x}", ident.signing_public, ident.sealing_public, "random",
                                    tables[s].me.fingerprint)
                    queue += [(s, m) for m in tables[s].vote_out(info)]
                    spawn()
                    break
            else:
                return vr
    raise RuntimeError(f"no end after {max_messages} messages")
