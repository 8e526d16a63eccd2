"""Sans-IO tables in one process (p2pcards.testing.table_mesh.LocalMesh), and what the tests of
the table layer share: building a table, running it, re-signing and injecting messages."""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.players import make_player
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import Genesis, SeatInfo, canonical, make_genesis, parse_message
from p2pcards.table.wire import pack, unpack
from p2pcards.testing.table_mesh import OBSERVER, LocalMesh, Route

REGISTRY = load_games()
GAMES = ["sueca", "bisca", "copas", "sobe-e-desce"]


@dataclass
class Net:
    tables: list[Table]
    ids: list[Identity]
    players: list[Any]
    genesis: bytes
    secrets: list[bytes]
    observer: Table
    rejected: list[tuple[int, Rejected]] = field(default_factory=list)
    delivered: int = 0
    mesh: LocalMesh | None = None

    @property
    def spec(self) -> Any:
        return self.tables[0].spec

    @property
    def events(self) -> list[list[dict[str, Any]]]:
        """What each seat's replica told in the mesh, as its JSON form."""
        told = self.mesh.events if self.mesh is not None else {}
        return [[e.to_json() for e in told.get(s, [])] for s in range(len(self.tables))]

    @property
    def observed(self) -> list[dict[str, Any]]:
        """What the observer told, as its JSON form."""
        told = self.mesh.events if self.mesh is not None else {}
        return [e.to_json() for e in told.get(OBSERVER, [])]


def make_net(
    game: str,
    deals: int | None = 1,
    options: dict[str, str] | None = None,
    levels: list[str] | None = None,
    seed: int = 1,
    table_class: dict[int, type[Table]] | None = None,
    timeout: float = 60.0,
) -> Net:
    """A table of ``game`` with every seat a replica here (``table_class`` per seat: an
    attacker), random players by default, and an observer replica that sees everything."""
    spec = REGISTRY.get(game)
    ids = [Identity.generate(f"peer{s}") for s in range(spec.seats)]
    host = Identity.generate("host")
    seats = tuple(SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint) for i in ids)
    opts = spec.resolve_options(options or {})
    genesis = Genesis(game, spec.rules_version, opts, seats, deals, host.signing_public, "host", os.urandom(16),
                      float(timeout))
    raw = make_genesis(host, genesis)
    classes = table_class or {}
    secrets = [os.urandom(32) for _ in ids]
    tables = [classes.get(s, Table)(raw, spec, ids[s], secrets[s]) for s in range(spec.seats)]
    levels = levels or ["random"] * spec.seats
    players = [make_player(levels[s], spec, random.Random(seed * 10 + s)) for s in range(spec.seats)]
    observer = Table(raw, spec, None)
    return Net(tables, ids, players, raw, secrets, observer)


Tamper = Callable[[Net, int, bytes], None]


def mesh_of(net: Net, route: Route | None = None, silent: set[int] | None = None) -> LocalMesh:
    mesh = LocalMesh(dict(enumerate(net.tables)), dict(enumerate(net.players)), observer=net.observer,
                     route=route, silent=set(silent or ()))
    if net.mesh is not None:  # (a second run of the same net: what was told before stays)
        mesh.events = net.mesh.events
    net.mesh = mesh
    return mesh


def run(net: Net, tamper: Tamper | None = None, tolerate: bool = False, route: Route | None = None,
        silent: set[int] | None = None, after: Callable[[LocalMesh], None] | None = None) -> Net:
    """Run until nothing moves.  ``tamper(net, author, raw)`` sees each genuine message
    before it goes out (to inject bad ones); ``route`` may change what one destination
    gets; ``silent`` seats hear and say nothing.  A refusal by an honest replica fails the
    run unless ``tolerate``."""
    mesh = mesh_of(net, route, silent)
    if tamper is not None:
        send = mesh.send

        def spy(src: int, msgs: Any) -> None:
            for raw in msgs:
                tamper(net, src, raw)
            send(src, msgs)

        mesh.send = spy  # type: ignore[method-assign]
    mesh.start()
    while mesh.step():
        if after is not None:
            after(mesh)
    net.delivered = mesh.delivered
    net.rejected = [(dst, exc) for dst, _, exc in mesh.rejected if dst != OBSERVER]
    if net.rejected and not tolerate:
        raise net.rejected[0][1]
    return net


def step_until(mesh: LocalMesh, done: Callable[[], bool], what: str, steps: int) -> None:
    """Step ``mesh`` until ``done()``, at most ``steps`` steps (a table that loops fails)."""
    for _ in range(steps):
        if done():
            return
        assert mesh.step(), f"the table stopped before {what}"
    raise AssertionError(f"no {what} after {steps} steps")


def header(raw: bytes) -> dict[str, Any]:
    """The signed header of a message (its fields, without the signature)."""
    obj = unpack(unpack(raw)[0])
    assert isinstance(obj, dict)
    return obj


def resign(ident: Identity, raw: bytes, **changes: Any) -> bytes:
    """``raw`` with some header fields changed, signed again by ``ident``."""
    from p2pcards.table.transcript import sign_message

    msg = header(raw)
    msg.update(changes)
    return sign_message(ident, table=msg["table"], deal=msg["deal"], seq=msg["seq"], prev=msg["prev"],
                        author=msg["author"], kind=msg["kind"], body=msg["body"])


def reencode(raw: bytes) -> bytes:
    """Another encoding of the same signed message: the body's map keys in another order
    (the signature still covers the canonical bytes, not these)."""
    body, sig = unpack(raw)
    msg = unpack(body)
    shuffled = dict(reversed(list(msg.items())))
    assert pack(shuffled) != canonical(msg)
    return pack([pack(shuffled), sig])


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


def deals_of(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == "deal"]


def assert_agree(net: Net, honest: list[int] | None = None) -> list[bytes]:
    """Every honest replica and the observer hold the same transcript, byte for byte, and
    reach the same verdicts; returns the transcript."""
    seats = list(range(len(net.tables))) if honest is None else honest
    logs = {b"".join(net.tables[s].log) for s in seats} | {b"".join(net.observer.log)}
    assert len(logs) == 1, "every honest replica holds the same transcript, byte for byte"
    assert all(net.tables[s].finished for s in seats) and net.observer.finished
    first = deals_of(net.events[seats[0]])
    for s in seats:
        assert deals_of(net.events[s]) == first
    assert deals_of(net.observed) == first
    return list(net.observer.log)


def kinds(log: list[bytes]) -> list[str]:
    return [parse_message(raw, None if i == 0 else _keys(log)).kind for i, raw in enumerate(log)]


def _keys(log: list[bytes]) -> list[bytes]:
    return [s["signing"] for s in parse_message(log[0], None).body["seats"]]
