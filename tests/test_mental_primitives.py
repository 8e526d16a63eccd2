"""Building blocks: field encoding, seed KDF and Fisher–Yates, HPKE sealing, signed payloads."""

from __future__ import annotations

from collections import Counter

import pytest
from cryptography.hazmat.primitives import hpke
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.mental import LocalError, Ristretto255
from p2pcards.mental.encoding import fields, split_fields
from p2pcards.mental.kdf import SeedKdf
from p2pcards.mental.seal import (
    KeyEntry,
    SealedPayload,
    derive_ephemeral,
    hpke_open,
    hpke_open_as_sender,
    hpke_seal,
    sign_payload,
    verify_plaintext,
)
from p2pcards.tools.bench_deck import Modp2048
from tests.mental_helpers import label_bytes


def test_fields_are_unambiguous_and_split_back() -> None:
    assert fields(b"ab", b"c") != fields(b"a", b"bc")
    assert fields("x", 1) == b"\x00\x00\x00\x01x" + b"\x00\x00\x00\x08" + (1).to_bytes(8, "big")
    parts = [b"", b"abc", "déjà".encode(), (7).to_bytes(8, "big")]
    assert split_fields(fields(*parts)) == parts
    assert split_fields(b"\x00\x00\x00\x05abc") is None
    assert split_fields(b"\x00\x00") is None
    for bad in (True, -1, 1 << 64, 1.5):
        with pytest.raises(LocalError):
            fields(bad)  # type: ignore[arg-type]


def test_kdf_is_deterministic_and_bound_to_its_context() -> None:
    group = Ristretto255()
    seed = label_bytes("kdf")
    kdf = SeedKdf(group, b"table", 1, 0, seed)
    assert kdf.secrets(8) == SeedKdf(group, b"table", 1, 0, seed).secrets(8)
    others = [
        SeedKdf(group, b"table2", 1, 0, seed),
        SeedKdf(group, b"table", 2, 0, seed),
        SeedKdf(group, b"table", 1, 1, seed),
        SeedKdf(Modp2048(), b"table", 1, 0, seed),
    ]
    for other in others:
        assert other.prf("shuffle-scalar") != kdf.prf("shuffle-scalar")
    with pytest.raises(LocalError):
        SeedKdf(group, b"table", 1, 0, b"short")


def test_secrets_are_consistent() -> None:
    group = Ristretto255()
    secrets = SeedKdf(group, b"table", 1, 2, label_bytes("s")).secrets(12)
    assert sorted(secrets.permutation) == list(range(12))
    assert len(set(secrets.keys)) == 12
    for key, factor in zip(secrets.keys, secrets.lock_factors, strict=True):
        assert group.scalar_is_valid(key)
        product = group.scalar_mul(group.scalar_mul(secrets.shuffle_scalar, key), factor)
        assert product == (1).to_bytes(32, "little")


def test_fisher_yates_reaches_every_permutation_evenly() -> None:
    group = Ristretto255()
    counts = Counter(
        SeedKdf(group, b"t", 0, 0, label_bytes(f"perm {i}")).permutation(3) for i in range(600)
    )
    assert len(counts) == 6
    assert all(60 <= c <= 140 for c in counts.values()), counts


def test_derive_key_pair_matches_rfc9180_a1() -> None:
    """RFC 9180 A.1.1 (DHKEM(X25519, HKDF-SHA256)): ikmE -> pkEm; the same KEM as ours."""
    ikm = bytes.fromhex("7268600d403fce431561aef583ee1613527cff655c1343f29812e66706df3234")
    key = derive_ephemeral(ikm)
    assert key.public_key().public_bytes_raw().hex() == (
        "37fda3567bdbd628e88668c3c8d7e97d1d1253b6d4ea6d44c150f741f1bf4431"
    )


def test_hpke_seal_interoperates_with_cryptography() -> None:
    recipient = X25519PrivateKey.from_private_bytes(label_bytes("recipient"))
    public = recipient.public_key().public_bytes_raw()
    ikm = label_bytes("ikm")
    sealed = hpke_seal(public, b"info", b"secret keys", ikm)
    assert sealed == hpke_seal(public, b"info", b"secret keys", ikm)  # deterministic
    suite = hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)
    assert suite.decrypt(sealed, recipient, info=b"info") == b"secret keys"
    assert hpke_open(recipient, b"info", sealed) == b"secret keys"
    assert hpke_open(recipient, b"other info", sealed) is None
    assert hpke_open(recipient, b"info", sealed[:-1] + bytes([sealed[-1] ^ 1])) is None
    assert hpke_open_as_sender(ikm, public, b"info", sealed) == b"secret keys"
    assert hpke_open_as_sender(label_bytes("other"), public, b"info", sealed) is None
    foreign = suite.encrypt(b"secret keys", recipient.public_key(), info=b"info")
    assert hpke_open_as_sender(ikm, public, b"info", foreign) is None


def test_signed_payload_round_trip_and_forgery() -> None:
    signer = Ed25519PrivateKey.from_private_bytes(label_bytes("signer"))
    public = signer.public_key().public_bytes_raw()
    payload = SealedPayload(
        kind="keys",
        table_id=b"t",
        deal_number=3,
        deal_id=label_bytes("deal"),
        step=4,
        sender=1,
        recipient=2,
        entries=(KeyEntry(position=5, seat=1, key=label_bytes("k")),),
    )
    plaintext = sign_payload(signer, payload)
    assert verify_plaintext(plaintext, public) == payload
    tampered = plaintext[:-1] + bytes([plaintext[-1] ^ 1])
    assert verify_plaintext(tampered, public) is None
    other = Ed25519PrivateKey.from_private_bytes(label_bytes("other")).public_key()
    assert verify_plaintext(plaintext, other.public_bytes_raw()) is None
    assert SealedPayload.parse(b"garbage") is None
