"""What every seat and the auditor of one deal agree on before it starts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from p2pcards.mental.cards import check_deck
from p2pcards.mental.errors import LocalError
from p2pcards.mental.group import Group

__all__ = ["MAX_SEATS", "MIN_SEATS", "DealSetup"]

MIN_SEATS: Final = 2
MAX_SEATS: Final = 4
_U64_LIMIT: Final = 1 << 64


@dataclass(frozen=True, kw_only=True)
class DealSetup:
    """The public context of one deal.

    ``signing_keys[s]`` is seat ``s``'s raw 32-byte Ed25519 public key (its identity) and
    ``sealing_keys[s]`` its raw 32-byte X25519 public key, announced under that identity
    when it sat down.  ``deck`` is the list of cards in canonical order.  ``proofs``: every
    shuffle and lock carries its zero-knowledge proof (:mod:`p2pcards.mental.proofs`);
    tables always use them, the benchmark also runs without to measure what they cost.
    """

    group: Group
    table_id: bytes
    deal_number: int
    deck: tuple[str, ...]
    signing_keys: tuple[bytes, ...]
    sealing_keys: tuple[bytes, ...]
    proofs: bool

    def __init__(
        self,
        *,
        group: Group,
        table_id: bytes,
        deal_number: int,
        deck: Sequence[str],
        signing_keys: Sequence[bytes],
        sealing_keys: Sequence[bytes],
        proofs: bool = True,
    ) -> None:
        """Check and freeze the setup (sequences are stored as tuples)."""
        if type(table_id) is not bytes or not 1 <= len(table_id) <= 64:
            raise LocalError("table_id is 1 to 64 bytes")
        if type(deal_number) is not int or not 0 <= deal_number < _U64_LIMIT:
            raise LocalError("deal_number is an unsigned 64-bit integer")
        if not MIN_SEATS <= len(signing_keys) <= MAX_SEATS:
            raise LocalError(f"a deal has {MIN_SEATS} to {MAX_SEATS} seats")
        if len(sealing_keys) != len(signing_keys):
            raise LocalError("one signing key and one sealing key per seat")
        for key in (*signing_keys, *sealing_keys):
            if type(key) is not bytes or len(key) != 32:
                raise LocalError("public keys are raw 32-byte strings")
        object.__setattr__(self, "group", group)
        object.__setattr__(self, "table_id", table_id)
        object.__setattr__(self, "deal_number", deal_number)
        object.__setattr__(self, "deck", check_deck(deck))
        object.__setattr__(self, "signing_keys", tuple(signing_keys))
        object.__setattr__(self, "sealing_keys", tuple(sealing_keys))
        object.__setattr__(self, "proofs", bool(proofs))

    @property
    def n_seats(self) -> int:
        """Number of seats at the table for this deal."""
        return len(self.signing_keys)

    @property
    def deck_size(self) -> int:
        """Number of cards, hence of positions ``0 .. deck_size - 1``."""
        return len(self.deck)
