"""The transcript as one replica holds it: a hash chain of entries (protocol/PROTOCOL.md,
"One encoding" and "Kinds").

A :class:`Chain` keeps, for every place from the genesis on, the entry's bytes, its hash,
its author and its deal, and answers what the replica asks of its past: where a place
stands, who wrote from a place on, which kind of entry holds it.  It only grows (a replica
that goes back to a place is rebuilt: :meth:`p2pcards.table.table.Table.restore`).
"""

from __future__ import annotations

from typing import Final

from p2pcards.table.transcript import TABLE, Envelope, TableKind, peek

__all__ = ["Chain"]

#: The kinds an entry's ``peek`` gives, kept with it (a certificate's kind is read once).
_UNKNOWN: Final = ""


class Chain:
    """Entries from the genesis (``genesis``) on."""

    def __init__(self, genesis: Envelope) -> None:
        self.log: list[bytes] = [genesis.raw]
        self.hashes: list[bytes] = [genesis.hash]
        self.authors: list[int] = [genesis.author]
        self.deals: list[int] = [0]
        self.kinds: list[str] = [str(genesis.kind)]
        self.head = genesis.hash

    def __len__(self) -> int:
        return len(self.log)

    @property
    def seq(self) -> int:
        """The place of the next entry."""
        return len(self.log)

    def append(self, env: Envelope) -> None:
        self.log.append(env.raw)
        self.hashes.append(env.hash)
        self.authors.append(env.author)
        self.deals.append(env.deal)
        self.kinds.append(str(env.kind))
        self.head = env.hash

    def prev(self, k: int) -> bytes:
        """The ``prev`` a message for place ``k`` carries on this chain (``k`` ≤ seq)."""
        return self.head if k == self.seq else self.hashes[k - 1]

    def on_chain(self, k: int, prev: bytes) -> bool:
        """Whether place ``(k, prev)`` is one of this chain's (passed or next)."""
        return 0 < k <= self.seq and prev == self.prev(k)

    def deal_at(self, k: int, current: int) -> int:
        """The deal of place ``k`` (``current`` for the next place)."""
        return self.deals[k] if k < self.seq else current

    def certificate_at(self, k: int, kind: TableKind) -> bool:
        """Whether entry ``k`` is a certificate of ``kind``."""
        return self.authors[k] == TABLE and self.kinds[k] == kind

    def only_by(self, seat: int | None, k: int) -> bool:
        """Whether every entry from ``k`` on was written by ``seat``."""
        return seat is not None and all(a == seat for a in self.authors[k:])

    @staticmethod
    def kind_of(raw: bytes) -> str:
        kind, _ = peek(raw)
        return kind or _UNKNOWN
