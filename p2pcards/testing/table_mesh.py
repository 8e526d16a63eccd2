"""Several table replicas in one process, joined by a synchronous in-memory network.

:class:`LocalMesh` delivers every message a replica sends to every other replica (and to
an observer, if one is given), in the order they were sent; a seat's decision is asked of
its player.  It also stands in for what the trio runtime does over real connections, so
that the exceptional paths run deterministically in tests and in the protocol vectors:

* a seat can fall **silent** (it hears and says nothing); when nothing else moves, every
  seat the table waits for is silent on every clock, and every seat that may vote against
  it does so -- the runtime's clocks, reduced to "nothing moves";
* ``route(src, dst, raw)`` may change or drop a message on its way to one destination
  (an attacker that tells different seats different things);
* a replica that refuses a message for a place it has not reached gets it again once it
  has, and one that refuses a message of another chain is sent the sender's recent
  entries (the runtime's sync), so that forks are found as they are over a network; when
  nothing moves, replicas behind others are sent what they miss (the sync the runtime
  asks for at half the timeout) before anyone votes.

Used by tests, the protocol vectors and the benchmark.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from p2pcards.players import Player
from p2pcards.table.events import Output, TableEvent
from p2pcards.table.table import Rejected, Table
from p2pcards.table.transcript import peek

__all__ = ["run_local", "LocalMesh", "OBSERVER"]

Tamper = Callable[[int, bytes], None]
#: Route ``(src, dst, raw)``: the bytes ``dst`` receives (None: nothing).
Route = Callable[[int, int, bytes], bytes | None]
#: The destination number of the mesh's observer.
OBSERVER = -1
_SYNC_BACK = 4
_MAX_SYNCS = 200
#: Syncs between two replicas whose places have not changed since (a lost message may need
#: one more; past that the sync would only repeat itself).
_SAME_SYNCS = 4


@dataclass
class LocalMesh:
    """Replicas by seat (a seat may be missing: nobody plays it here) and their players."""

    tables: dict[int, Table]
    players: dict[int, Player]
    observer: Table | None = None
    route: Route | None = None
    silent: set[int] = field(default_factory=set)
    #: ``(dst, src, Rejected)`` for every message a replica refused
    rejected: list[tuple[int, int, Rejected]] = field(default_factory=list)
    #: every message sent, ``(src, raw)``, in order
    sent: list[tuple[int, bytes]] = field(default_factory=list)
    #: what each replica told, by destination (:data:`OBSERVER` for the observer), in order
    events: dict[int, list[TableEvent]] = field(default_factory=dict)
    #: each replica's own entries that the table did not accept, in order
    superseded: dict[int, list[bytes]] = field(default_factory=dict)
    #: each replica's own votes and nays, as a runtime keeps them on disk
    signed: dict[int, list[bytes]] = field(default_factory=dict)
    #: whether idle seats vote against silent ones
    votes: bool = True
    delivered: int = 0
    _queue: deque[tuple[int, int, bytes]] = field(default_factory=deque)
    _waiting: dict[int, list[tuple[int, bytes]]] = field(default_factory=dict)
    _syncs: int = 0
    _quiet: tuple[tuple[int, bytes], ...] = ()
    _synced: dict[tuple[int, int], tuple[tuple[int, bytes, int, bytes], int]] = field(default_factory=dict)

    def destinations(self) -> list[int]:
        return [*self.tables, *([OBSERVER] if self.observer is not None else [])]

    def replica(self, dst: int) -> Table:
        if dst == OBSERVER:
            assert self.observer is not None
            return self.observer
        return self.tables[dst]

    def took(self, dst: int, out: Output) -> list[bytes]:
        """Keep what replica ``dst`` told in ``out``; what it sends."""
        self.events.setdefault(dst, []).extend(out.events)
        self.superseded.setdefault(dst, []).extend(out.superseded)
        self.signed.setdefault(dst, []).extend(out.signed)
        return out.send

    def send(self, src: int, msgs: Sequence[bytes]) -> None:
        """Broadcast ``msgs`` from ``src`` (unless it is silent)."""
        if src in self.silent:
            return
        for raw in msgs:
            self.sent.append((src, raw))
            for dst in self.destinations():
                if dst != src:
                    self._queue.append((src, dst, raw))

    def start(self) -> None:
        for s, t in self.tables.items():
            self.send(s, self.took(s, t.start()))

    def deliver(self, src: int, dst: int, raw: bytes) -> None:
        if dst in self.silent:
            return
        if self.route is not None:
            routed = self.route(src, dst, raw)
            if routed is None:
                return
            raw = routed
        table = self.replica(dst)
        _, seq = peek(raw)
        if seq is not None and seq < table.seq and table.log[seq] == raw:
            return  # a duplicate (a sync sends what the replica may have): dropped, as the runtime does
        self.delivered += 1
        before = table.seq
        try:
            out = self.took(dst, table.receive(raw))
        except Rejected as exc:
            self.rejected.append((dst, src, exc))
            self._refused(src, dst, raw, exc)
            return
        if dst != OBSERVER:
            self.send(dst, out)
        if table.seq != before:
            self._retry(dst)

    def _refused(self, src: int, dst: int, raw: bytes, exc: Rejected) -> None:
        table = self.replica(dst)
        _, seq = peek(raw)
        if seq is not None and seq >= table.seq and "chain mismatch" in exc.reason:
            self._waiting.setdefault(dst, []).append((src, raw))
        if ("chain mismatch" in exc.reason or "another chain" in exc.reason) and src in self.tables:
            self._sync(src, dst)

    def _sync(self, src: int, dst: int) -> None:
        """What the runtime's sync does: ``src`` sends ``dst`` its recent entries, then the
        side messages of the place it is at (seeds, votes, a message held aside)."""
        if self._syncs >= _MAX_SYNCS or src in self.silent:
            return
        have = self.tables[src]
        state = (have.seq, have.head, self.replica(dst).seq, self.replica(dst).head)
        last, times = self._synced.get((src, dst), (None, 0))
        if last == state and times >= _SAME_SYNCS:
            return  # nothing changed on either side since the last ones: it would only repeat itself
        self._synced[(src, dst)] = (state, times + 1 if last == state else 1)
        self._syncs += 1
        for raw in [*have.log[max(1, self.replica(dst).seq - _SYNC_BACK):], *have.side_messages()]:
            self._queue.append((src, dst, raw))

    def _retry(self, dst: int) -> None:
        waiting = self._waiting.pop(dst, [])
        for src, raw in waiting:
            self._queue.append((src, dst, raw))

    def step(self) -> bool:
        """Deliver one message, or make one decision, or cast the votes due; False when
        nothing is left to do."""
        if self._queue:
            self.deliver(*self._queue.popleft())
            return True
        for s, t in self.tables.items():
            if s in self.silent:
                continue
            decision = t.decision()
            if decision is not None:
                view = t.view()
                assert view is not None
                self.send(s, self.took(s, t.decide(self.players[s].choose(view, decision))))
                return True
        if self._syncs < _MAX_SYNCS:  # nothing moves: first, as at half the timeout, ask who is further
            behind = [(src, dst) for dst in self.destinations() if dst not in self.silent
                      for src, t in self.tables.items()
                      if src not in self.silent and src != dst and t.seq > self.replica(dst).seq]
            if not behind:  # level everywhere: compare the last places, once per quiet state (a fork
                # at the very last place, where each side waits for a seat of the other, shows so)
                state = tuple((t.seq, t.head) for t in self.tables.values())
                if state != self._quiet:
                    self._quiet = state
                    behind = [(src, dst) for dst in self.destinations() if dst not in self.silent
                              for src in self.tables if src not in self.silent and src != dst]
            for src, dst in behind:
                self._sync(src, dst)
            if self._queue:
                return True
        if self.votes:  # still nothing: every seat the table waits for is silent on every clock
            for s, t in self.tables.items():
                if s in self.silent:
                    continue
                for x in sorted(t.may_vote()):
                    self.send(s, self.took(s, t.vote(x)))
                    return True
        return False

    def run(self, max_steps: int = 200_000) -> LocalMesh:
        """Run until nothing moves.  Raises ``RuntimeError`` past ``max_steps``."""
        for _ in range(max_steps):
            if not self.step():
                return self
        raise RuntimeError(f"no end after {max_steps} steps")


def run_local(
    tables: Sequence[Table],
    players: Sequence[Player],
    tamper: Tamper | None = None,
    max_messages: int = 100_000,
    on_rejected: Callable[[int, Rejected], None] | None = None,
) -> int:
    """Run a table whose every seat is here until nothing moves; return the number of
    messages delivered.  ``tamper(author, raw)`` is called before each message is sent
    on (tests use it to inject bad ones).  A refused message raises :class:`Rejected`,
    unless ``on_rejected(seat, error)`` is given.  Raises ``RuntimeError`` past
    ``max_messages``."""

    def route(src: int, dst: int, raw: bytes) -> bytes:
        return raw

    mesh = LocalMesh(dict(enumerate(tables)), dict(enumerate(players)), route=route)
    if tamper is not None:
        original_send = mesh.send

        def send(src: int, msgs: Sequence[bytes]) -> None:
            for raw in msgs:
                tamper(src, raw)
            original_send(src, msgs)

        mesh.send = send  # type: ignore[method-assign]
    mesh.start()
    for _ in range(max_messages):
        if not mesh.step():
            break
        if mesh.rejected and on_rejected is None:
            raise mesh.rejected[0][2]
    else:
        raise RuntimeError(f"no end after {max_messages} messages")
    if on_rejected is not None:
        for dst, _, exc in mesh.rejected:
            on_rejected(dst, exc)
    return mesh.delivered
