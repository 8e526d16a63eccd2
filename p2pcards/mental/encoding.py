"""The unambiguous byte encoding under every hash, KDF input, HPKE ``info`` and signature.

``fields(a, b, ...)`` concatenates, for each part, a 4-byte big-endian length and the
part's bytes.  Parts are ``bytes`` as they are, ``str`` as UTF-8 and ``int`` as 8-byte
big-endian unsigned (booleans and other types are refused).  Because every part carries
its length, no two different lists of parts encode to the same bytes.  Every encoded
list starts with a domain tag from :data:`TAGS`, so a hash or signature made for one
purpose is never valid for another.
"""

from __future__ import annotations

from typing import Final

from p2pcards.mental.errors import LocalError

__all__ = ["TAGS", "TAG_PREFIX", "fields", "split_fields"]

TAG_PREFIX: Final = "p2pcards/mental/v1/"
"""Common prefix of every domain-separation tag."""

TAGS: Final = {
    name: (TAG_PREFIX + name).encode()
    for name in (
        "commit",
        "deal-id",
        "card",
        "kdf",
        "key-commit",
        "hpke-info",
        "sealed-keys",
    )
}
"""Domain-separation tags, by purpose (see protocol/PROTOCOL.md, "Domain tags")."""

_U64_LIMIT: Final = 1 << 64


def fields(*parts: bytes | str | int) -> bytes:
    """Encode ``parts`` as length-prefixed fields (u32 length || bytes, ints as u64)."""
    out: list[bytes] = []
    for part in parts:
        if type(part) is bytes:
            data = part
        elif type(part) is int:
            if not 0 <= part < _U64_LIMIT:
                raise LocalError(f"integer field {part} out of u64 range")
            data = part.to_bytes(8, "big")
        elif isinstance(part, str):  # str enums included
            data = part.encode()
        else:
            raise LocalError(f"not an encodable field: {part!r}")
        out.append(len(data).to_bytes(4, "big"))
        out.append(data)
    return b"".join(out)


def split_fields(data: bytes) -> list[bytes] | None:
    """Split an encoding made by :func:`fields` back into its parts; ``None`` if invalid."""
    parts: list[bytes] = []
    offset = 0
    while offset < len(data):
        if offset + 4 > len(data):
            return None
        size = int.from_bytes(data[offset : offset + 4], "big")
        offset += 4
        if offset + size > len(data):
            return None
        parts.append(data[offset : offset + size])
        offset += size
    return parts
