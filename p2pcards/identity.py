"""A user's identity: an Ed25519 signing key, an X25519 sealing key and a display name.

Created on first use in the user's data directory -- ``$P2PCARDS_HOME`` if set, else
``$XDG_DATA_HOME/p2pcards``, else ``~/.local/share/p2pcards`` -- in ``identity.key``,
readable by the owner only (0600, in a 0700 directory).  The fingerprint, a short hash of
the signing key, is the peer's name on the wire and what people compare.

The display name is the person's to choose: it starts as the login name, is asked once
(the start screen, ``p2pcards play`` on a terminal) or given with ``--name``, and is kept
in the identity file with a mark that it was chosen (``named``), so that it is not asked
again.  Two seats of one name at a table are told apart by :func:`told_apart`.
"""

from __future__ import annotations

import base64
import getpass
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import msgpack  # type: ignore[import-untyped]
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.private import write_private

__all__ = ["Identity", "IdentityError", "MAX_NAME", "check_name", "data_dir", "fingerprint", "load_or_create",
           "told_apart", "verify"]

_FILE = "identity.key"
_VERSION = 1
#: The longest display name, in characters (as many as a seat's name in a table's genesis).
MAX_NAME = 40


class IdentityError(Exception):
    """The identity file is unreadable, corrupt or not private."""


def data_dir() -> Path:
    """The directory holding the identity and table logs."""
    if os.environ.get("P2PCARDS_HOME"):
        return Path(os.environ["P2PCARDS_HOME"])
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "p2pcards"


def fingerprint(signing_public: bytes) -> str:
    """Short human-comparable name of a signing key: 16 base32 characters in 4 groups."""
    digest = hashlib.sha256(b"p2pcards/fingerprint/v1" + signing_public).digest()
    text = base64.b32encode(digest[:10]).decode().lower()
    return "-".join(text[i : i + 4] for i in range(0, 16, 4))


@dataclass(frozen=True)
class Identity:
    """Keys and name of one user (or of one bot peer)."""

    signing_key: Ed25519PrivateKey
    sealing_key: X25519PrivateKey
    name: str
    #: whether the person chose the name (else it is the login name, asked once)
    named: bool = False

    @classmethod
    def generate(cls, name: str) -> Identity:
        return cls(Ed25519PrivateKey.generate(), X25519PrivateKey.generate(), name)

    @property
    def signing_public(self) -> bytes:
        return self.signing_key.public_key().public_bytes_raw()

    @property
    def sealing_public(self) -> bytes:
        return self.sealing_key.public_key().public_bytes_raw()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.signing_public)

    def sign(self, data: bytes) -> bytes:
        return self.signing_key.sign(data)

    def to_bytes(self) -> bytes:
        packed: bytes = msgpack.packb(
            {
                "v": _VERSION,
                "ed25519": self.signing_key.private_bytes_raw(),
                "x25519": self.sealing_key.private_bytes_raw(),
                "name": self.name,
                "named": self.named,
            }
        )
        return packed

    @classmethod
    def from_bytes(cls, data: bytes) -> Identity:
        try:
            obj = msgpack.unpackb(data)
            if obj["v"] != _VERSION:
                raise IdentityError(f"identity file version {obj['v']!r} is not supported")
            return cls(
                Ed25519PrivateKey.from_private_bytes(obj["ed25519"]),
                X25519PrivateKey.from_private_bytes(obj["x25519"]),
                str(obj["name"]),
                bool(obj.get("named", False)),  # (files written before names were asked have no mark)
            )
        except IdentityError:
            raise
        except Exception as exc:  # noqa: BLE001 -- any decoding failure means corrupt
            raise IdentityError(f"corrupt identity file: {exc}") from None


def verify(signing_public: bytes, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is ``signing_public``'s signature of ``data``."""
    try:
        Ed25519PublicKey.from_public_bytes(signing_public).verify(signature, data)
    except Exception:  # noqa: BLE001 -- invalid key or signature alike
        return False
    return True


def check_name(name: str) -> str | None:
    """Why ``name`` cannot be a display name (None: it can): 1 to :data:`MAX_NAME`
    printable characters, not only spaces."""
    if not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        return f"a name is 1 to {MAX_NAME} printable characters"
    return None


def load_or_create(directory: Path | None = None, name: str | None = None) -> Identity:
    """The identity in ``directory`` (default :func:`data_dir`), created on first use;
    ``name`` (the person's choice) is kept in it, marked as chosen."""
    directory = directory or data_dir()
    path = directory / _FILE
    if path.exists():
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            raise IdentityError(f"{path} is readable by others (mode {mode:o}); run: chmod 600 {path}")
        ident = Identity.from_bytes(path.read_bytes())
        if name and (name != ident.name or not ident.named):
            ident = Identity(ident.signing_key, ident.sealing_key, name, True)
            write_private(path, ident.to_bytes())
        return ident
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    os.chmod(directory, 0o700)
    ident = Identity(Ed25519PrivateKey.generate(), X25519PrivateKey.generate(), name or _default_name(), bool(name))
    write_private(path, ident.to_bytes())
    return ident


def told_apart(seats: Sequence[tuple[str, str]]) -> list[str]:
    """The names of ``(name, fingerprint)`` seats as a table shows them: a name that two
    seats share gets the start of each one's fingerprint ("root (6bg4)"), as many of its
    groups as tell them apart; the others stay as they are."""
    out = [name for name, _ in seats]
    for name in {n for n, _ in seats}:
        same = [i for i, (n, _) in enumerate(seats) if n == name]
        if len(same) < 2:
            continue
        for groups in range(1, 5):
            ends = ["-".join(seats[i][1].split("-")[:groups]) for i in same]
            if len(set(ends)) == len(ends) or groups == 4:
                break
        for i, end in zip(same, ends):
            out[i] = f"{name} ({end})"
    return out


def _default_name() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001
        return "player"
