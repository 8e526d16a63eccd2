"""Several tables in one process, joined by a synchronous in-memory network.

Every message a table returns is delivered, in order, to every other table; a seat's
decision is asked of its player.  Used by tests, the protocol vectors and the benchmark;
the trio runtime does the same over real connections.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from p2pcards.table.table import Rejected, Table

__all__ = ["run_local"]

Tamper = Callable[[int, bytes], None]


def run_local(
    tables: Sequence[Table],
    players: Sequence[Any],
    tamper: Tamper | None = None,
    max_messages: int = 100_000,
    on_rejected: Callable[[int, Rejected], None] | None = None,
) -> int:
    """Run until no table has anything to do; return the number of messages delivered.

    ``tamper(author, raw)`` is called before each message is delivered (tests use it to
    inject bad messages).  A message a table refuses raises :class:`Rejected`, unless
    ``on_rejected(seat, error)`` is given (a message superseded by a fault claim is then
    refused by the tables that took the claim, as over a real network).  Raises
    ``RuntimeError`` past ``max_messages``.
    """
    queue: list[tuple[int, bytes]] = []
    for s, t in enumerate(tables):
        queue += [(s, m) for m in t.start()]
    delivered = 0
    while delivered < max_messages:
        if queue:
            src, raw = queue.pop(0)
            if tamper is not None:
                tamper(src, raw)
            delivered += 1
            for s, t in enumerate(tables):
                if s != src:
                    try:
                        queue += [(s, m) for m in t.receive(raw)]
                    except Rejected as exc:
                        if on_rejected is None:
                            raise
                        on_rejected(s, exc)
            continue
        for s, t in enumerate(tables):
            decision = t.decision()
            if decision is not None:
                queue += [(s, m) for m in t.decide(players[s].choose(t.view(), decision))]
                break
        else:
            return delivered
    raise RuntimeError(f"no end after {max_messages} messages")
