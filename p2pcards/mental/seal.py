"""Sealed key payloads: signed by the sender (Ed25519), sealed to the recipient (HPKE).

**Payload.**  The keys a seat sends privately (a deal or a transfer) form a
:class:`SealedPayload`.  Its *body* is ``fields("…/sealed-keys", kind, table, deal,
deal_id, step, from, to, count, then position, key_seat, key for each entry)``; the
*plaintext* is the sender's 64-byte Ed25519 signature of the body followed by the body.
The plaintext is self-contained evidence: anyone holding the sender's public key can check
that the sender signed exactly these keys (:func:`verify_plaintext`).

**HPKE** (RFC 9180, mode base, DHKEM(X25519, HKDF-SHA256), HKDF-SHA256,
ChaCha20-Poly1305; empty aad; wire form ``enc || ciphertext``).  The recipient opens with
``cryptography``'s :class:`~cryptography.hazmat.primitives.hpke.Suite`
(:func:`hpke_open`).  The sender seals with :func:`hpke_seal`, written here because the
ephemeral key must come from the seat's seed (RFC 9180 ``DeriveKeyPair(ikm)``) instead of
the operating system: every byte a seat sends is then a function of its seed, and once
the seed is revealed the audit re-derives the ephemeral key and opens every sealed payload
(:func:`hpke_open_as_sender`) without anybody's private sealing key.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Final

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives import hpke
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.asymmetric.x25519 import (
    X25519PrivateKey,
    X25519PublicKey,
)
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from p2pcards.mental.encoding import TAGS, fields, split_fields
from p2pcards.mental.errors import LocalError

__all__ = [
    "KeyEntry",
    "SealedPayload",
    "derive_ephemeral",
    "ephemeral_public",
    "hpke_open",
    "hpke_open_as_sender",
    "hpke_seal",
    "sign_payload",
    "verify_plaintext",
]

SUITE: Final = hpke.Suite(hpke.KEM.X25519, hpke.KDF.HKDF_SHA256, hpke.AEAD.CHACHA20_POLY1305)
_KEM_SUITE_ID: Final = b"KEM" + (0x0020).to_bytes(2, "big")
_HPKE_SUITE_ID: Final = b"HPKE" + b"".join(
    ident.to_bytes(2, "big") for ident in (0x0020, 0x0001, 0x0003)
)
_SIGNATURE_SIZE: Final = 64
_HEADER_FIELDS: Final = 9


@dataclass(frozen=True, kw_only=True)
class KeyEntry:
    """One key in a sealed payload: ``key_seat``'s key for ``position``."""

    position: int
    seat: int
    key: bytes


@dataclass(frozen=True, kw_only=True)
class SealedPayload:
    """What a sealed ``keys`` or ``transfer`` message carries, before signing and sealing."""

    kind: str
    table_id: bytes
    deal_number: int
    deal_id: bytes
    step: int
    sender: int
    recipient: int
    entries: tuple[KeyEntry, ...]

    def body(self) -> bytes:
        """The signed byte string (see the module docstring)."""
        parts: list[bytes | str | int] = [
            TAGS["sealed-keys"],
            self.kind,
            self.table_id,
            self.deal_number,
            self.deal_id,
            self.step,
            self.sender,
            self.recipient,
            len(self.entries),
        ]
        for entry in self.entries:
            parts += [entry.position, entry.seat, entry.key]
        return fields(*parts)

    @classmethod
    def parse(cls, body: bytes) -> SealedPayload | None:
        """Decode a body made by :meth:`body`; ``None`` if it is not one."""
        parts = split_fields(body)
        if parts is None or len(parts) < _HEADER_FIELDS:
            return None
        tag, kind, table_id, deal, the_deal_id, step, sender, recipient, size = parts[:9]
        rest = parts[_HEADER_FIELDS:]
        ints = [deal, step, sender, recipient, size]
        if tag != TAGS["sealed-keys"] or any(len(value) != 8 for value in ints):
            return None
        deal_n, step_n, sender_n, recipient_n, count = (
            int.from_bytes(value, "big") for value in ints
        )
        if len(rest) != 3 * count:
            return None
        entries = []
        for i in range(count):
            position, seat, key = rest[3 * i : 3 * i + 3]
            if len(position) != 8 or len(seat) != 8:
                return None
            entries.append(
                KeyEntry(
                    position=int.from_bytes(position, "big"),
                    seat=int.from_bytes(seat, "big"),
                    key=key,
                )
            )
        try:
            kind_text = kind.decode()
        except UnicodeDecodeError:
            return None
        return cls(
            kind=kind_text,
            table_id=table_id,
            deal_number=deal_n,
            deal_id=the_deal_id,
            step=step_n,
            sender=sender_n,
            recipient=recipient_n,
            entries=tuple(entries),
        )


def sign_payload(signing_key: Ed25519PrivateKey, payload: SealedPayload) -> bytes:
    """The plaintext to seal: the sender's signature of the body, then the body."""
    body = payload.body()
    return signing_key.sign(body) + body


def verify_plaintext(plaintext: bytes, sender_public: bytes) -> SealedPayload | None:
    """Check the sender's signature on a plaintext and decode it; ``None`` if either fails."""
    signature, body = plaintext[:_SIGNATURE_SIZE], plaintext[_SIGNATURE_SIZE:]
    try:
        Ed25519PublicKey.from_public_bytes(sender_public).verify(signature, body)
    except (InvalidSignature, ValueError):
        return None
    return SealedPayload.parse(body)


def _extract(salt: bytes, ikm: bytes) -> bytes:
    """HKDF-SHA256 Extract."""
    return hmac.digest(salt, ikm, "sha256")


def _expand(prk: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256 Expand."""
    out = b""
    block = b""
    counter = 1
    while len(out) < length:
        block = hmac.digest(prk, block + info + bytes([counter]), "sha256")
        out += block
        counter += 1
    return out[:length]


def _labeled_extract(suite_id: bytes, salt: bytes, label: bytes, ikm: bytes) -> bytes:
    """RFC 9180 LabeledExtract."""
    return _extract(salt, b"HPKE-v1" + suite_id + label + ikm)


def _labeled_expand(suite_id: bytes, prk: bytes, label: bytes, info: bytes, length: int) -> bytes:
    """RFC 9180 LabeledExpand."""
    labeled = length.to_bytes(2, "big") + b"HPKE-v1" + suite_id + label + info
    return _expand(prk, labeled, length)


def derive_ephemeral(ikm: bytes) -> X25519PrivateKey:
    """RFC 9180 DeriveKeyPair for DHKEM(X25519, HKDF-SHA256)."""
    dkp_prk = _labeled_extract(_KEM_SUITE_ID, b"", b"dkp_prk", ikm)
    secret = _labeled_expand(_KEM_SUITE_ID, dkp_prk, b"sk", b"", 32)
    return X25519PrivateKey.from_private_bytes(secret)


def ephemeral_public(ikm: bytes) -> bytes:
    """The HPKE ``enc`` of a payload sealed with the ephemeral ``DeriveKeyPair(ikm)``."""
    return derive_ephemeral(ikm).public_key().public_bytes_raw()


def _key_schedule(
    ephemeral: X25519PrivateKey, recipient_public: bytes, info: bytes
) -> tuple[bytes, ChaCha20Poly1305, bytes] | None:
    """Encap and the base-mode key schedule: ``(enc, aead, nonce)``; ``None`` on a bad key."""
    try:
        dh = ephemeral.exchange(X25519PublicKey.from_public_bytes(recipient_public))
    except ValueError:  # a low-order recipient key: all-zero shared secret
        return None
    enc = ephemeral.public_key().public_bytes_raw()
    eae_prk = _labeled_extract(_KEM_SUITE_ID, b"", b"eae_prk", dh)
    shared = _labeled_expand(_KEM_SUITE_ID, eae_prk, b"shared_secret", enc + recipient_public, 32)
    psk_id_hash = _labeled_extract(_HPKE_SUITE_ID, b"", b"psk_id_hash", b"")
    info_hash = _labeled_extract(_HPKE_SUITE_ID, b"", b"info_hash", info)
    context = b"\x00" + psk_id_hash + info_hash
    secret = _labeled_extract(_HPKE_SUITE_ID, shared, b"secret", b"")
    key = _labeled_expand(_HPKE_SUITE_ID, secret, b"key", context, 32)
    nonce = _labeled_expand(_HPKE_SUITE_ID, secret, b"base_nonce", context, 12)
    return enc, ChaCha20Poly1305(key), nonce


def hpke_seal(recipient_public: bytes, info: bytes, plaintext: bytes, ikm: bytes) -> bytes:
    """HPKE single-shot seal with the ephemeral key ``DeriveKeyPair(ikm)``: ``enc || ct``."""
    schedule = _key_schedule(derive_ephemeral(ikm), recipient_public, info)
    if schedule is None:
        raise LocalError("the recipient's sealing key is a low-order point")
    enc, aead, nonce = schedule
    return enc + aead.encrypt(nonce, plaintext, b"")


def hpke_open(recipient_private: X25519PrivateKey, info: bytes, sealed: bytes) -> bytes | None:
    """Open with the recipient's key through ``cryptography``'s HPKE; ``None`` on failure."""
    try:
        return SUITE.decrypt(sealed, recipient_private, info=info)
    except (InvalidTag, ValueError):
        return None


def hpke_open_as_sender(
    ikm: bytes, recipient_public: bytes, info: bytes, sealed: bytes
) -> bytes | None:
    """Open a payload sealed with the ephemeral ``DeriveKeyPair(ikm)`` (for the audit).

    ``None`` if ``enc`` is not that ephemeral key's public key or the ciphertext does not
    authenticate.
    """
    ephemeral = derive_ephemeral(ikm)
    schedule = _key_schedule(ephemeral, recipient_public, info)
    if schedule is None:
        return None
    enc, aead, nonce = schedule
    if sealed[: len(enc)] != enc:
        return None
    try:
        return aead.decrypt(nonce, sealed[len(enc) :], b"")
    except InvalidTag:
        return None
