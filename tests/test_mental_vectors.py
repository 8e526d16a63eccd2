"""The golden vectors in protocol/vectors/: regenerated and compared, and re-derived from the
specification with a small independent implementation (hashlib, hmac and rbcl only)."""

from __future__ import annotations

import hashlib
import hmac
import json
from pathlib import Path

import pytest
import rbcl  # type: ignore[import-untyped]
from cryptography.hazmat.primitives import hpke
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.testing.deck_vectors import generate, main

VECTORS = Path(__file__).resolve().parent.parent / "protocol" / "vectors"
TAG = "p2pcards/mental/v1/"
ORDER = 2**252 + 27742317777372353535851937790883648493


def test_committed_vectors_match_a_fresh_generation() -> None:
    generated = generate()
    committed = sorted(p.name for p in VECTORS.glob("*.json") if not p.name.startswith("table-"))
    assert committed == sorted(generated), "run: python -m p2pcards.testing.deck_vectors protocol/vectors"
    for name, text in generated.items():
        assert (VECTORS / name).read_text() == text, f"{name} differs from a fresh generation"


def test_vectors_command_writes_the_files(tmp_path: Path) -> None:
    assert main([str(tmp_path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(generate())
    assert main([]) == 2


# An independent reading of PROTOCOL.md ------------------------------------------------


def enc(*parts: bytes | str | int) -> bytes:
    out = b""
    for part in parts:
        data = (
            part.to_bytes(8, "big")
            if isinstance(part, int)
            else (part.encode() if isinstance(part, str) else part)
        )
        out += len(data).to_bytes(4, "big") + data
    return out


def prf(seed: bytes, table: bytes, deal: int, seat: int, label: str, *extra: int) -> bytes:
    msg = enc(TAG + "kdf", table, deal, seat, "ristretto255", label, *extra)
    return hmac.digest(seed, msg, "sha512")


def scalar(seed: bytes, table: bytes, deal: int, seat: int, label: str, *extra: int) -> bytes:
    attempt = 0
    while True:
        wide = prf(seed, table, deal, seat, label, *extra, attempt, 0)
        value = int.from_bytes(wide, "little") % ORDER
        if value:
            return value.to_bytes(32, "little")
        attempt += 1


def permutation(seed: bytes, table: bytes, deal: int, seat: int, size: int) -> list[int]:
    stream = b""
    block = 0
    order = list(range(size))
    for i in range(size - 1, 0, -1):
        while True:
            if not stream:
                stream = prf(seed, table, deal, seat, "permutation", block)
                block += 1
            value, stream = int.from_bytes(stream[:4], "big"), stream[4:]
            if value < (1 << 32) - (1 << 32) % (i + 1):
                break
        j = value % (i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def mult(s: bytes, p: bytes) -> bytes:
    result: bytes = rbcl.crypto_scalarmult_ristretto255(s, p)
    return result


def inverse(s: bytes) -> bytes:
    return pow(int.from_bytes(s, "little"), -1, ORDER).to_bytes(32, "little")


def product(*scalars: bytes) -> bytes:
    value = 1
    for s in scalars:
        value = value * int.from_bytes(s, "little") % ORDER
    return value.to_bytes(32, "little")


@pytest.mark.parametrize("name", ["deal-2x6.json", "deal-4x40.json"])
def test_deal_vector_follows_the_specification(name: str) -> None:
    v = json.loads((VECTORS / name).read_text())
    table, deal, deck = bytes.fromhex(v["table_id"]), v["deal_number"], v["deck"]
    n, size = len(v["seats"]), len(deck)
    seeds = [bytes.fromhex(s["seed"]) for s in v["seats"]]
    commitments = [
        hashlib.sha256(enc(TAG + "commit", table, deal, s, "ristretto255", seeds[s])).digest()
        for s in range(n)
    ]
    assert [c.hex() for c in commitments] == [s["commitment"] for s in v["seats"]]
    deal_id = hashlib.sha256(
        enc(TAG + "deal-id", table, deal, "ristretto255", n, size, *deck, *commitments)
    ).digest()
    assert deal_id.hex() == v["deal_id"]
    encodings = [
        rbcl.crypto_core_ristretto255_from_hash(
            hashlib.sha512(enc(TAG + "card", deal_id, c)).digest()
        )
        for c in deck
    ]
    assert [e.hex() for e in encodings] == v["encodings"]

    transcript = v["transcript"]
    decks = {
        (m["kind"], m["seat"]): [bytes.fromhex(e) for e in m["deck"]]
        for m in transcript
        if m["kind"] in ("shuffle", "lock")
    }
    current = encodings
    keys = []
    for s in range(n):
        shuffle = scalar(seeds[s], table, deal, s, "shuffle-scalar")
        perm = permutation(seeds[s], table, deal, s, size)
        assert perm == v["seats"][s]["permutation"]
        current = [mult(shuffle, current[i]) for i in perm]
        assert current == decks[("shuffle", s)]
    for s in range(n):
        shuffle = scalar(seeds[s], table, deal, s, "shuffle-scalar")
        mine = [scalar(seeds[s], table, deal, s, "position-key", j) for j in range(size)]
        keys.append(mine)
        current = [mult(inverse(product(shuffle, mine[j])), current[j]) for j in range(size)]
        assert current == decks[("lock", s)]
        lock = next(m for m in transcript if m["kind"] == "lock" and m["seat"] == s)
        assert lock["key_commitments"] == [
            hashlib.sha256(enc(TAG + "key-commit", deal_id, s, j, mine[j])).digest().hex()
            for j in range(size)
        ]
    for j, card in enumerate(v["cards"]):
        assert (
            mult(product(*(keys[s][j] for s in range(n))), current[j])
            == encodings[deck.index(card)]
        )

    suite = hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)
    for item in v["sealed"]:
        message = transcript[item["index"]]
        recipient = X25519PrivateKey.from_private_bytes(
            bytes.fromhex(v["seats"][message["to"]]["x25519_private"])
        )
        info = enc(
            TAG + "hpke-info",
            table,
            deal,
            message["kind"],
            message["step"],
            message["seat"],
            message["to"],
        )
        assert info.hex() == item["info"]
        plaintext = suite.decrypt(bytes.fromhex(message["sealed"]), recipient, info=info)
        assert plaintext.hex() == item["plaintext"]
        entries = (
            [(p, message["seat"]) for p in message["positions"]]
            if message["kind"] == "keys"
            else [(p, s) for p in message["positions"] for s in range(n) if s != message["to"]]
        )
        body = enc(
            TAG + "sealed-keys",
            message["kind"],
            table,
            deal,
            deal_id,
            message["step"],
            message["seat"],
            message["to"],
            len(entries),
            *[x for p, s in entries for x in (p, s, keys[s][p])],
        )
        assert plaintext[64:] == body
