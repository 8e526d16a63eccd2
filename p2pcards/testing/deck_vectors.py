"""Golden test vectors for the deck protocol (ristretto255), as JSON files.

Run ``python -m p2pcards.testing.deck_vectors protocol/vectors`` to (re)write them; the tests
regenerate them in memory and compare with the committed files.  Every input is fixed
(seeds and private keys are SHA-256 of short labels), and every output is deterministic:
Ed25519 signatures are deterministic and HPKE ephemeral keys derive from the seeds.

Files (bytes are lowercase hex strings everywhere):

* ``primitives.json`` -- the ``fields`` encoding, the seed KDF (PRF outputs, scalars,
  Fisher–Yates permutations), hash to group, key commitments, and one HPKE seal with its
  ``ikm``, ``info`` and recipient key.
* ``proofs.json`` -- a shuffle proof and a lock proof of six elements with every input
  (elements, permutation, scalars, the prover's random values), and altered statements
  that must not verify.
* ``deal-2x6.json``, ``deal-4x40.json`` -- whole deals: the setup, each seat's derived
  secrets, the deal id and card encodings, the operations declared, the full transcript of
  wire messages, the plaintext inside each sealed message, what each seat knows at the
  end, and the audit's card map.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.mental.cards import standard_deck
from p2pcards.mental.deck_audit import audit, seeds_from_messages
from p2pcards.mental.encoding import fields
from p2pcards.mental.group import Ristretto255
from p2pcards.mental.kdf import (
    SeedKdf,
    card_encodings,
    commitment,
    hpke_info,
    key_commitment,
)
from p2pcards.mental.party import Party
from p2pcards.mental.proofs import proof_context, prove_lock, prove_shuffle, verify_lock, verify_shuffle
from p2pcards.mental.seal import hpke_open, hpke_seal
from p2pcards.mental.setup import DealSetup
from p2pcards.testing.deck import InProcessDeal
from p2pcards.vectorfiles import vectors_main, write_files

__all__ = ["fixed_seat_keys", "generate", "main", "write"]

Json = object


@dataclass(frozen=True, kw_only=True)
class Operation:
    """One operation of a vector deal: ``deal`` (to), ``reveal``, or ``transfer`` (from, to)."""

    op: str
    positions: tuple[int, ...]
    from_seat: int = 0
    to_seat: int = 0

    def declare(self, table: InProcessDeal) -> None:
        """Declare the operation on every party, without delivering."""
        if self.op == "deal":
            table.deal(self.positions, self.to_seat, deliver=False)
        elif self.op == "reveal":
            table.reveal(self.positions, deliver=False)
        else:
            table.transfer(self.positions, self.from_seat, self.to_seat, deliver=False)

    def as_json(self) -> dict[str, Json]:
        """The operation as the vector records it (seats only where they matter)."""
        record: dict[str, Json] = {"op": self.op, "positions": list(self.positions)}
        if self.op == "transfer":
            record["from"] = self.from_seat
        if self.op != "reveal":
            record["to"] = self.to_seat
        return record


def _label_bytes(label: str) -> bytes:
    """The fixed 32 bytes a vector uses for ``label``: SHA-256 of its UTF-8."""
    return hashlib.sha256(label.encode()).digest()


def _jsonable(value: object) -> Json:
    """Wire data as JSON: bytes become hex, lists and maps recurse."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, list | tuple):
        return [_jsonable(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _jsonable(item) for key, item in value.items()}
    return value


def fixed_seat_keys(
    n_seats: int,
) -> tuple[list[Ed25519PrivateKey], list[X25519PrivateKey]]:
    """Ed25519 and X25519 private keys of the vector seats: SHA-256("ed25519 seat i"), …"""
    signing = [
        Ed25519PrivateKey.from_private_bytes(_label_bytes(f"ed25519 seat {s}"))
        for s in range(n_seats)
    ]
    sealing = [
        X25519PrivateKey.from_private_bytes(_label_bytes(f"x25519 seat {s}"))
        for s in range(n_seats)
    ]
    return signing, sealing


def _primitives() -> dict[str, Json]:
    """Vectors for the building blocks."""
    group = Ristretto255()
    seed = _label_bytes("primitives seed")
    table_id = b"vector table"
    kdf = SeedKdf(group, table_id, 3, 1, seed)
    the_deal_id = _label_bytes("primitives deal id")
    recipient = X25519PrivateKey.from_private_bytes(_label_bytes("primitives recipient"))
    recipient_public = recipient.public_key().public_bytes_raw()
    ikm = kdf.hpke_ikm("keys", 5, 0)
    info = hpke_info(table_id, 3, "keys", 5, 1, 0)
    plaintext = b"vector plaintext"
    deck = standard_deck(6)
    return {
        "fields": [
            {"parts": ["commit", 7, "abc"], "encoding": fields("commit", 7, b"abc").hex()},
            {"parts": [], "encoding": ""},
        ],
        "kdf": {
            "group": group.name,
            "seed": seed.hex(),
            "table_id": table_id.hex(),
            "deal_number": 3,
            "seat": 1,
            "prf": {
                "label": "permutation",
                "extra": [0],
                "output": kdf.prf("permutation", 0).hex(),
            },
            "shuffle_scalar": kdf.scalar("shuffle-scalar").hex(),
            "position_key_0": kdf.scalar("position-key", 0).hex(),
            "permutation_10": list(kdf.permutation(10)),
            "permutation_52": list(kdf.permutation(52)),
        },
        "commitment": {
            "table_id": table_id.hex(),
            "deal_number": 3,
            "seat": 1,
            "group": group.name,
            "seed": seed.hex(),
            "commitment": commitment(table_id, 3, 1, group.name, seed).hex(),
        },
        "card_encodings": {
            "deal_id": the_deal_id.hex(),
            "deck": list(deck),
            "encodings": [e.hex() for e in card_encodings(group, the_deal_id, deck)],
        },
        "key_commitment": {
            "deal_id": the_deal_id.hex(),
            "seat": 2,
            "position": 17,
            "key": kdf.scalar("position-key", 17).hex(),
            "commitment": key_commitment(the_deal_id, 2, 17, kdf.scalar("position-key", 17)).hex(),
        },
        "hpke": {
            "recipient_private": recipient.private_bytes_raw().hex(),
            "recipient_public": recipient_public.hex(),
            "ikm": ikm.hex(),
            "info": info.hex(),
            "plaintext": plaintext.hex(),
            "sealed": hpke_seal(recipient_public, info, plaintext, ikm).hex(),
        },
    }


def _deal(
    n_seats: int, deck_size: int, operations: Sequence[Operation], description: str
) -> dict[str, Json]:
    """Run one whole deal with fixed inputs and record everything."""
    group = Ristretto255()
    signing, sealing = fixed_seat_keys(n_seats)
    table_id = _label_bytes(f"table {n_seats}x{deck_size}")[:16]
    setup = DealSetup(
        group=group,
        table_id=table_id,
        deal_number=1,
        deck=standard_deck(deck_size),
        signing_keys=[k.public_key().public_bytes_raw() for k in signing],
        sealing_keys=[k.public_key().public_bytes_raw() for k in sealing],
    )
    seeds = [_label_bytes(f"seed {n_seats}x{deck_size} seat {s}") for s in range(n_seats)]
    parties = [Party(setup, s, seeds[s], signing[s], sealing[s]) for s in range(n_seats)]
    table = InProcessDeal(parties)
    table.start()
    for operation in operations:
        operation.declare(table)
    table.deliver()
    knowledge = {str(p.seat): {str(k): v for k, v in sorted(p.known().items())} for p in parties}
    table.reveal_seeds()
    messages = table.messages()
    report = audit(setup, messages, seeds_from_messages(setup, messages))
    assert report.clean and report.cards is not None
    the_deal_id = parties[0].deal_id
    assert the_deal_id is not None
    sealed = []
    for index, message in enumerate(messages):
        if message["kind"] in ("keys", "transfer"):
            sender = message["seat"]
            recipient = message["to"]
            step = message["step"]
            assert isinstance(sender, int) and isinstance(recipient, int)
            assert isinstance(step, int) and isinstance(message["kind"], str)
            kdf = SeedKdf(group, table_id, 1, sender, seeds[sender])
            info = hpke_info(table_id, 1, message["kind"], step, sender, recipient)
            plaintext = _open_for_vector(info, sealing[recipient], message["sealed"])
            sealed.append(
                {
                    "index": index,
                    "ikm": kdf.hpke_ikm(message["kind"], step, recipient).hex(),
                    "info": info.hex(),
                    "plaintext": plaintext.hex(),
                }
            )
    return {
        "description": description,
        "group": group.name,
        "table_id": table_id.hex(),
        "deal_number": 1,
        "deck": list(setup.deck),
        "seats": [_seat_vector(setup, s, seeds[s], signing[s], sealing[s]) for s in range(n_seats)],
        "deal_id": the_deal_id.hex(),
        "encodings": [e.hex() for e in card_encodings(group, the_deal_id, setup.deck)],
        "operations": [operation.as_json() for operation in operations],
        "transcript": _jsonable(messages),
        "sealed": sealed,
        "knowledge": knowledge,
        "cards": list(report.cards),
    }


def _open_for_vector(info: bytes, recipient: X25519PrivateKey, sealed: object) -> bytes:
    """The plaintext of a sealed message, opened with the recipient's key."""
    assert isinstance(sealed, bytes)
    plaintext = hpke_open(recipient, info, sealed)
    assert plaintext is not None
    return plaintext


def _seat_vector(
    setup: DealSetup,
    seat: int,
    seed: bytes,
    signing: Ed25519PrivateKey,
    sealing: X25519PrivateKey,
) -> dict[str, Json]:
    """A seat's inputs and derived secrets."""
    group = setup.group
    secrets = SeedKdf(group, setup.table_id, setup.deal_number, seat, seed).secrets(setup.deck_size)
    return {
        "seed": seed.hex(),
        "ed25519_private": signing.private_bytes_raw().hex(),
        "ed25519_public": setup.signing_keys[seat].hex(),
        "x25519_private": sealing.private_bytes_raw().hex(),
        "x25519_public": setup.sealing_keys[seat].hex(),
        "commitment": commitment(setup.table_id, setup.deal_number, seat, group.name, seed).hex(),
        "shuffle_scalar": secrets.shuffle_scalar.hex(),
        "permutation": list(secrets.permutation),
        "keys": [k.hex() for k in secrets.keys],
        "lock_factors": [f.hex() for f in secrets.lock_factors],
    }


class _Invalid(TypedDict):
    """A statement a shuffle or lock proof must not verify: why, and the statement."""

    why: str
    inputs: list[bytes]
    outputs: list[bytes]
    context: bytes


def _proofs() -> dict[str, Json]:
    """A shuffle and a lock of six elements, their proofs, and statements that fail."""
    group = Ristretto255()
    n = 6

    def scalar(*parts: str | int) -> bytes:
        return group.scalar_reduce(hashlib.sha512(fields("vector", *parts)).digest())

    def nonce(label: str, index: int) -> bytes:
        return scalar("nonce", label, index)

    inputs = [group.hash_to_element(fields("vector-input", i)) for i in range(n)]
    perm = [3, 0, 5, 1, 4, 2]
    s = scalar("shuffle-scalar")
    outputs = [group.mult(s, inputs[perm[i]]) for i in range(n)]
    the_deal_id = hashlib.sha256(b"vector-deal").digest()
    ctx = proof_context(the_deal_id, 1, "shuffle")
    shuffle = prove_shuffle(group, ctx, inputs, outputs, perm, s, nonce)
    assert verify_shuffle(group, ctx, inputs, outputs, shuffle)
    exponents = [scalar("lock-exponent", j) for j in range(n)]
    locked = [group.mult(group.scalar_invert(x), y) for x, y in zip(exponents, outputs, strict=True)]
    lock_ctx = proof_context(the_deal_id, 1, "lock")
    lock = prove_lock(group, lock_ctx, outputs, locked, exponents, nonce)
    assert verify_lock(group, lock_ctx, outputs, locked, lock)
    swapped = [outputs[1], outputs[0], *outputs[2:]]
    copied = [outputs[0], group.mult(scalar("copy"), outputs[0]), *outputs[2:]]
    bad_shuffles: list[_Invalid] = [
        {"why": "two outputs swapped", "inputs": inputs, "outputs": swapped, "context": ctx},
        {"why": "an output replaced by a re-keyed copy of another", "inputs": inputs, "outputs": copied,
         "context": ctx},
        {"why": "another seat's context", "inputs": inputs, "outputs": outputs,
         "context": proof_context(the_deal_id, 2, "shuffle")},
    ]
    bad_locks: list[_Invalid] = [
        {"why": "two outputs swapped", "inputs": outputs, "outputs": [locked[1], locked[0], *locked[2:]],
         "context": lock_ctx},
        {"why": "the shuffle's context", "inputs": outputs, "outputs": locked, "context": ctx},
    ]
    for bad in bad_shuffles:
        assert not verify_shuffle(group, bad["context"], bad["inputs"], bad["outputs"], shuffle)
    for bad in bad_locks:
        assert not verify_lock(group, bad["context"], bad["inputs"], bad["outputs"], lock)
    nonces = {label: [nonce(label, i) for i in range(n if label != "w" else 4)]
              for label in ("perm-r", "chain-r", "w", "w-hat", "w-prime", "lock-w")}
    data = _jsonable({
        "group": group.name,
        "note": "every scalar is reduce(SHA-512(fields('vector', ...))); nonces[label][i] is the prover's "
                "random value for (label, i)",
        "deal_id": the_deal_id,
        "shuffle": {"context": ctx, "inputs": inputs, "permutation": perm, "scalar": s, "outputs": outputs,
                    "proof": shuffle.to_wire()},
        "lock": {"context": lock_ctx, "inputs": outputs, "exponents": exponents, "outputs": locked,
                 "proof": lock.to_wire()},
        "nonces": nonces,
        "invalid_shuffles": bad_shuffles,
        "invalid_locks": bad_locks,
    })
    assert isinstance(data, dict)
    return data


def generate() -> dict[str, str]:
    """Every vector file's name and exact text."""
    files: dict[str, Json] = {
        "primitives.json": _primitives(),
        "proofs.json": _proofs(),
        "deal-2x6.json": _deal(
            2,
            6,
            [
                Operation(op="deal", positions=(0, 1), to_seat=0),
                Operation(op="deal", positions=(2, 3), to_seat=1),
                Operation(op="reveal", positions=(5,)),
                Operation(op="reveal", positions=(0,)),
                Operation(op="transfer", positions=(3,), from_seat=1, to_seat=0),
                Operation(op="deal", positions=(4,), to_seat=1),
                Operation(op="reveal", positions=(0, 5)),
            ],
            "2 seats, 6 cards: deals, a stock reveal (shares), a holder's reveal, a "
            "transfer, a draw, and a reveal of public positions (no-op)",
        ),
        "deal-4x40.json": _deal(
            4,
            40,
            [
                *(
                    Operation(op="deal", positions=tuple(range(10 * s, 10 * s + 10)), to_seat=s)
                    for s in range(4)
                ),
                Operation(op="reveal", positions=(39,)),
                Operation(op="transfer", positions=(0, 1, 2), from_seat=0, to_seat=1),
                *(Operation(op="reveal", positions=(10 * s + 5,)) for s in range(4)),
            ],
            "4 seats, 40 cards (a Sueca deal): ten cards each, the trump card shown, a "
            "three-card pass and one trick",
        ),
    }
    return {name: json.dumps(data, indent=1) + "\n" for name, data in files.items()}


def write(directory: Path) -> list[Path]:
    """Write every vector file into ``directory``; return their paths."""
    return write_files(directory, generate())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m p2pcards.testing.deck_vectors DIRECTORY``: write the vectors there."""
    return vectors_main(argv, "p2pcards.testing.deck_vectors", generate)


if __name__ == "__main__":
    raise SystemExit(main())
