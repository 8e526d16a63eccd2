"""Frames on a byte stream: a 4-byte big-endian length, then that many bytes of msgpack.

Sans-IO: :class:`FrameDecoder` is fed bytes and yields complete frames; the trio layer
only moves bytes.  A frame larger than the limit, or a length of zero, is a protocol error
of the sender: the connection is then dead (as after any h11 error).
"""

from __future__ import annotations

import struct
from typing import Any, Final, NoReturn

import msgpack  # type: ignore[import-untyped]

__all__ = ["FrameError", "FrameDecoder", "frame", "pack", "unpack", "MAX_FRAME"]

#: Largest frame accepted, in bytes.  A 52-card lock message is about 3.4 KB; a whole
#: transcript sent to a resuming peer goes in many frames.
MAX_FRAME: Final = 1 << 20
_HEADER: Final = struct.Struct(">I")


class FrameError(Exception):
    """The byte stream broke the framing rules (the peer's fault)."""


def pack(obj: object) -> bytes:
    """Canonical msgpack: the same object always gives the same bytes (bin type for bytes)."""
    packed: bytes = msgpack.packb(obj, use_bin_type=True)
    return packed


def unpack(data: bytes) -> Any:
    """Decode msgpack strictly: no extension types, str keys in maps, bytes stay bytes.

    Raises :class:`FrameError` on anything that is not well-formed msgpack.
    """
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_no_ext,
        )
    except FrameError:
        raise
    except Exception as exc:  # noqa: BLE001 -- msgpack raises many types
        raise FrameError(f"not valid msgpack: {exc.__class__.__name__}: {exc}") from None


def _no_ext(code: int, data: bytes) -> NoReturn:
    raise FrameError(f"msgpack extension type {code} is not allowed")


def frame(payload: bytes, limit: int = MAX_FRAME) -> bytes:
    """``payload`` with its length prefix."""
    if not 0 < len(payload) <= limit:
        raise FrameError(f"frame of {len(payload)} bytes is outside 1..{limit}")
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Incremental decoder: :meth:`feed` bytes, get back every complete frame payload."""

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self.limit = limit
        self._buf = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buf += data
        out: list[bytes] = []
        while len(self._buf) >= 4:
            (n,) = _HEADER.unpack_from(self._buf)
            if not 0 < n <= self.limit:
                raise FrameError(f"frame length {n} is outside 1..{self.limit}")
            if len(self._buf) < 4 + n:
                break
            out.append(bytes(self._buf[4 : 4 + n]))
            del self._buf[: 4 + n]
        return out

    @property
    def pending(self) -> int:
        """Bytes received that do not yet make a whole frame."""
        return len(self._buf)
