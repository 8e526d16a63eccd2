"""What a replica starts from: its table's signed genesis, checked against the game and
the identity it runs for, and the seed of each of its deals (``protocol/PROTOCOL.md``,
"The genesis" and "Seeds")."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from p2pcards.core import GameSpec, OptionError
from p2pcards.core.options import OptionValue
from p2pcards.identity import Identity
from p2pcards.table.common import SetupError
from p2pcards.table.transcript import Envelope, Genesis, TableKind, TranscriptError, VersionError, parse_message

__all__ = ["Opened", "open_genesis", "seed_for"]


def seed_for(secret: bytes, table_id: bytes, deal: int, head: bytes) -> bytes:
    """A deal's seed: from a peer's private table secret (kept with its log), the deal number
    and the chain head where the deal starts -- so a deal is never dealt twice with the same
    secrets, and a replica restored from its log derives the same seed again."""
    msg = b"p2pcards/deal-seed/v2" + table_id + deal.to_bytes(8, "big") + head
    return hmac.new(secret, msg, hashlib.sha256).digest()


@dataclass(frozen=True, slots=True)
class Opened:
    """A genesis checked by :func:`open_genesis`."""

    env: Envelope
    genesis: Genesis
    options: dict[str, OptionValue]
    #: the seat of the identity the replica runs for (None: an observer)
    seat: int | None


def open_genesis(genesis_raw: bytes, spec: GameSpec, me: Identity | None, secret: bytes | None) -> Opened:
    """The genesis ``genesis_raw`` checked for a replica of ``spec`` run for ``me`` (None: an
    observer) with its table ``secret``; :class:`SetupError` saying what does not fit."""
    try:
        env = parse_message(genesis_raw, None)
        genesis = Genesis.from_body(env.body)
    except VersionError as exc:
        raise SetupError(f"this transcript is of another protocol version: {exc}") from None
    except TranscriptError as exc:
        raise SetupError(f"bad genesis: {exc}") from None
    if env.table != genesis.table_id or env.seq != 0 or env.kind != TableKind.GENESIS:
        raise SetupError("the genesis does not carry its own table id")
    if spec.name != genesis.game:
        raise SetupError(f"the table plays {genesis.game!r}, not {spec.name!r}")
    if spec.rules_version != genesis.rules_version:
        raise SetupError(
            f"{spec.name}: the table uses rules version {genesis.rules_version}, this peer has {spec.rules_version}"
        )
    if len(genesis.seats) != spec.seats:
        raise SetupError(f"{spec.name} needs {spec.seats} seats, the table has {len(genesis.seats)}")
    try:
        options = spec.resolve_options({k: str(v) for k, v in genesis.options.items()})
    except OptionError as exc:
        raise SetupError(str(exc)) from None
    keys = [s.signing for s in genesis.seats]
    seat = None
    if me is not None:
        if me.signing_public not in keys:
            raise SetupError("this identity has no seat at the table")
        seat = keys.index(me.signing_public)
        if genesis.seats[seat].sealing != me.sealing_public:
            raise SetupError("the table lists another sealing key for this seat")
        if secret is None or len(secret) != 32:
            raise SetupError("a seated replica needs its 32-byte table secret")
    return Opened(env, genesis, options, seat)
