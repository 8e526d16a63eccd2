"""Test vectors of the table layer: a whole transcript from fixed keys and secrets.

``python -m p2pcards.table.vectors DIRECTORY`` writes ``table-bisca.json``: the inputs
(every key as the 32-byte seed it is derived from, each peer's table secret, the genesis)
and every message of a one-deal Bisca table in transcript order, with its hash, the
audited result and the transcript hash.  Ed25519 signatures and every derivation are
deterministic, so the same inputs give the same bytes; another implementation replays the
messages and must accept every one, reach the same chain head and the same result.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.core import load_games
from p2pcards.core.players import RandomPlayer
from p2pcards.identity import Identity
from p2pcards.table.local import run_local
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, SeatInfo, make_genesis, message_hash
from p2pcards.vectorfiles import vectors_main, write_files

__all__ = ["generate", "write", "main", "fixed_identity"]


def _seed(label: str) -> bytes:
    return hashlib.sha256(b"p2pcards/vectors/" + label.encode()).digest()


def fixed_identity(label: str) -> Identity:
    """An identity whose keys are derived from ``label`` (for vectors only)."""
    return Identity(
        Ed25519PrivateKey.from_private_bytes(_seed(label + "/ed25519")),
        X25519PrivateKey.from_private_bytes(_seed(label + "/x25519")),
        label,
    )


def generate() -> dict[str, str]:
    """File name -> JSON text of every table vector."""
    spec = load_games().get("bisca")
    host = fixed_identity("host")
    seats = [fixed_identity(f"seat{s}") for s in range(2)]
    options = spec.resolve_options({})
    genesis = Genesis("bisca", spec.rules_version, options,
                      tuple(SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint)
                            for i in seats),
                      1, host.signing_public, host.name, _seed("nonce")[:16], 60.0)
    raw = make_genesis(host, genesis)
    events: list[dict[str, Any]] = []
    tables = [Table(raw, spec, seats[s], _seed(f"secret{s}"), on_event=events.append if s == 0 else None)
              for s in range(2)]
    players = [RandomPlayer(random.Random(s)) for s in range(2)]
    run_local(tables, players)
    log = tables[0].log
    data = {
        "description": "a one-deal Bisca table between two seats, every message in transcript order",
        "inputs": {
            "host": {"ed25519_seed": _seed("host/ed25519").hex()},
            "seats": [
                {
                    "ed25519_seed": _seed(f"seat{s}/ed25519").hex(),
                    "x25519_private": _seed(f"seat{s}/x25519").hex(),
                    "table_secret": _seed(f"secret{s}").hex(),
                }
                for s in range(2)
            ],
            "deal_seed": "HMAC-SHA256(table_secret, 'p2pcards/deal-seed/v1' || table_id || u64(deal))",
        },
        "table_id": genesis.table_id.hex(),
        "messages": [{"seq": i, "hex": m.hex(), "hash": message_hash(m).hex()} for i, m in enumerate(log)],
        "deals": [e for e in events if e["type"] == "deal"],
        "transcript_hash": tables[0].transcript_hash,
    }
    return {"table-bisca.json": json.dumps(data, indent=1) + "\n"}


def write(directory: Path) -> list[Path]:
    """Write every vector file into ``directory``; return their paths."""
    return write_files(directory, generate())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m p2pcards.table.vectors DIRECTORY``: write the vectors there."""
    return vectors_main(argv, "p2pcards.table.vectors", generate)


if __name__ == "__main__":
    raise SystemExit(main())
