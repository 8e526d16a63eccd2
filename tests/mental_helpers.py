"""Shared helpers for the mental-deck tests: fixed keys, setups and in-process tables."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from functools import partial

import msgpack  # type: ignore[import-untyped]
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.mental import (
    DealSetup,
    Group,
    Party,
    RemoteError,
    Ristretto255,
    standard_deck,
)
from p2pcards.mental.kdf import SeedKdf, card_encodings, hpke_info
from p2pcards.mental.messages import KeyReveal, Lock, Sealed, Share, Wire, decode
from p2pcards.mental.seal import hpke_open, verify_plaintext
from p2pcards.testing.deck import InProcessDeal


def label_bytes(label: str) -> bytes:
    """32 fixed bytes for a label."""
    return hashlib.sha256(label.encode()).digest()


class Seats:
    """Fixed identities and seeds for ``n`` seats, and the deal setup built from them."""

    def __init__(
        self,
        n: int,
        deck_size: int,
        group: Group | None = None,
        salt: str = "",
        deck: tuple[str, ...] | None = None,
        proofs: bool = True,
    ) -> None:
        self.signing = [
            Ed25519PrivateKey.from_private_bytes(label_bytes(f"ed {salt} {s}")) for s in range(n)
        ]
        self.sealing = [
            X25519PrivateKey.from_private_bytes(label_bytes(f"x {salt} {s}")) for s in range(n)
        ]
        self.seeds = [label_bytes(f"seed {salt} {s}") for s in range(n)]
        self.setup = DealSetup(
            group=group or Ristretto255(),
            table_id=b"test table",
            deal_number=5,
            deck=deck if deck is not None else standard_deck(deck_size),
            signing_keys=[k.public_key().public_bytes_raw() for k in self.signing],
            sealing_keys=[k.public_key().public_bytes_raw() for k in self.sealing],
            proofs=proofs,
        )

    def party(self, seat: int) -> Party:
        """A fresh party for ``seat``."""
        return Party(self.setup, seat, self.seeds[seat], self.signing[seat], self.sealing[seat])

    def table(self, intercept: Callable[[int, Wire], Wire] | None = None) -> InProcessDeal:
        """All seats joined by an in-memory transcript (not started)."""
        return InProcessDeal([self.party(s) for s in range(len(self.seeds))], intercept=intercept)

    def seed_map(self) -> dict[int, bytes]:
        """Every seat's seed, as the audit takes them."""
        return dict(enumerate(self.seeds))


def ready_table(
    n: int, deck_size: int, salt: str = "", intercept: Callable[[int, Wire], Wire] | None = None
) -> tuple[Seats, InProcessDeal]:
    """Seats and a table whose shuffle and lock rounds are done."""
    seats = Seats(n, deck_size, salt=salt)
    table = seats.table(intercept)
    table.start()
    return seats, table


class Pool:
    """Everything a set of seats knows, pooled: their seeds' secrets and every message.

    ``keys[(seat, position)]`` holds every key the members know (their own, the ones sealed
    to them, the published ones); ``scalars`` every scalar they could try.
    """

    def __init__(self, seats: Seats, table: InProcessDeal, members: Sequence[int]) -> None:
        setup = seats.setup
        deal_id = table.parties[members[0]].deal_id
        assert deal_id is not None
        self.encodings = dict(
            zip(card_encodings(setup.group, deal_id, setup.deck), setup.deck, strict=True)
        )
        self.keys: dict[tuple[int, int], bytes] = {}
        self.scalars: list[bytes] = []
        for s in members:
            kdf = SeedKdf(setup.group, setup.table_id, setup.deal_number, s, seats.seeds[s])
            secrets = kdf.secrets(setup.deck_size)
            self.scalars += [secrets.shuffle_scalar, *secrets.keys, *secrets.lock_factors]
            self.keys |= {(s, p): k for p, k in enumerate(secrets.keys)}
        self.final_deck: tuple[bytes, ...] = ()
        for wire in table.messages():
            message = decode(setup, wire)
            if isinstance(message, Lock):
                self.final_deck = message.deck
            elif isinstance(message, KeyReveal):
                for p, keys in zip(message.positions, message.keys, strict=True):
                    self.keys |= {(o, p): k for o, k in enumerate(keys)}
            elif isinstance(message, Share):
                self.keys |= {
                    (message.seat, p): k
                    for p, k in zip(message.positions, message.keys, strict=True)
                }
            elif isinstance(message, Sealed) and message.to in members:
                info = hpke_info(
                    setup.table_id,
                    setup.deal_number,
                    message.kind,
                    message.step,
                    message.seat,
                    message.to,
                )
                plaintext = hpke_open(seats.sealing[message.to], info, message.sealed)
                assert plaintext is not None
                payload = verify_plaintext(plaintext, setup.signing_keys[message.seat])
                assert payload is not None
                self.keys |= {(e.seat, e.position): e.key for e in payload.entries}
        self.scalars += list(self.keys.values())

    def opens(self, position: int, keys: Sequence[bytes], group: Group) -> str | None:
        """The card that multiplying these keys into the final deck shows, if any."""
        point = group.mult(group.scalar_product(keys), self.final_deck[position])
        return self.encodings.get(point)


class Harness:
    """An in-process table that keeps going when a party fails, recording who failed.

    ``intercept(seat, message)`` may replace any message before it is sent; parties that
    raised a remote error are left out of everything afterwards.
    """

    def __init__(self, seats: Seats, intercept: Callable[[int, Wire], Wire]) -> None:
        self.seats = seats
        self.parties = [seats.party(s) for s in range(len(seats.seeds))]
        self.intercept = intercept
        self.transcript: list[Wire] = []
        self.errors: dict[int, RemoteError] = {}
        self._delivered = 0

    def _run(self, seat: int, action: Callable[[], list[Wire]]) -> None:
        try:
            out = action()
        except RemoteError as exc:
            self.errors[seat] = exc
            return
        for message in out:
            packed = msgpack.packb(self.intercept(seat, message), use_bin_type=True)
            self.transcript.append(msgpack.unpackb(packed, raw=False))

    def everyone(self, action: Callable[[Party], list[Wire]]) -> None:
        """Call ``action`` on every live party, then deliver everything."""
        for party in self.parties:
            if party.seat not in self.errors:
                self._run(party.seat, partial(action, party))
        while self._delivered < len(self.transcript):
            message = self.transcript[self._delivered]
            self._delivered += 1
            for party in self.parties:
                if party.seat not in self.errors and party.seat != message.get("seat"):
                    self._run(party.seat, partial(party.receive, message))


SCRIPT: list[Callable[[Party], list[Wire]]] = [
    Party.start,
    lambda p: p.deal([0, 1], 0),
    lambda p: p.deal([2, 3], 1),
    lambda p: p.reveal([5]),
    lambda p: p.reveal([0]),
    lambda p: p.transfer([2], 1, 2),
    lambda p: p.deal([4], 2),
    lambda p: p.reveal([2]),
    Party.reveal_seed,
]
"""A 3-seat, 6-card deal that sends every message kind."""
