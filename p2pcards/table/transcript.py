"""Table messages: a signed, hash-chained transcript (DESIGN.md, "Table").

Every message is a msgpack map::

    {"v": 1, "table": TABLE_ID, "deal": N, "seq": I, "prev": HASH, "author": SEAT,
     "kind": KIND, "body": {...}, "sig": ED25519_SIGNATURE}

signed by its author over the canonical msgpack of the map without ``sig``.  ``seq``
counts messages from 0 (the genesis); ``prev`` is the SHA-256 of the previous message's
bytes, so the transcript is a hash chain and every message carries the chain head its
author holds.  Message 0 is the *genesis*: the table's game, options and seats, signed by
the host (``author`` -1); the table id is a hash of its body.

A ``vote`` message votes a silent seat out (:class:`VoteBody`; the rules are in
``protocol/PROTOCOL.md``, "Voting a silent seat out", and in :mod:`p2pcards.table.table`).

Sans-IO: pure functions and frozen values; the trio layer only moves the bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from p2pcards.identity import Identity, fingerprint, verify
from p2pcards.table.wire import FrameError, pack, unpack

__all__ = [
    "VERSION",
    "HOST",
    "ZERO_HASH",
    "Envelope",
    "Genesis",
    "SeatInfo",
    "TranscriptError",
    "message_hash",
    "make_genesis",
    "sign_message",
    "parse_message",
    "VoteBody",
    "vote_opener",
    "vote_order",
]

VERSION: Final = 1
#: ``author`` of the genesis message: the host, who need not hold a seat.
HOST: Final = -1
ZERO_HASH: Final = bytes(32)
_KEYS: Final = frozenset({"v", "table", "deal", "seq", "prev", "author", "kind", "body", "sig"})
MAX_NAME: Final = 40


class TranscriptError(Exception):
    """A message that is not a well-formed, correctly signed table message."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sits in a seat: display name, public keys, and who runs it if it is a bot."""

    name: str
    signing: bytes
    sealing: bytes
    bot: str | None = None
    runs_on: str | None = None

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.signing)

    def to_wire(self) -> dict[str, Any]:
        return {"name": self.name, "signing": self.signing, "sealing": self.sealing,
                "bot": self.bot, "runs_on": self.runs_on}

    @classmethod
    def from_wire(cls, obj: Any) -> SeatInfo:
        if not isinstance(obj, dict) or set(obj) != {"name", "signing", "sealing", "bot", "runs_on"}:
            raise TranscriptError("a seat is {name, signing, sealing, bot, runs_on}")
        name, signing, sealing = obj["name"], obj["signing"], obj["sealing"]
        if type(name) is not str or not 0 < len(name) <= MAX_NAME:
            raise TranscriptError(f"a seat name is 1..{MAX_NAME} characters")
        for key in (signing, sealing):
            if type(key) is not bytes or len(key) != 32:
                raise TranscriptError("seat keys are 32 bytes")
        for opt in (obj["bot"], obj["runs_on"]):
            if opt is not None and (type(opt) is not str or len(opt) > 64):
                raise TranscriptError("bot and runs_on are short strings or null")
        return cls(name, signing, sealing, obj["bot"], obj["runs_on"])


@dataclass(frozen=True, slots=True)
class Genesis:
    """The table as agreed before the first deal."""

    game: str
    rules_version: str
    options: Mapping[str, Any]
    seats: tuple[SeatInfo, ...]
    deals: int | None
    host_signing: bytes
    host_name: str
    nonce: bytes
    timeout: float

    def body(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "rules_version": self.rules_version,
            "options": dict(self.options),
            "seats": [s.to_wire() for s in self.seats],
            "deals": self.deals,
            "host": {"signing": self.host_signing, "name": self.host_name},
            "nonce": self.nonce,
            "timeout": self.timeout,
        }

    @property
    def table_id(self) -> bytes:
        return hashlib.sha256(b"p2pcards/table/v1\x00" + pack(self.body())).digest()

    @classmethod
    def from_body(cls, body: Any) -> Genesis:
        keys = {"game", "rules_version", "options", "seats", "deals", "host", "nonce", "timeout"}
        if not isinstance(body, dict) or set(body) != keys:
            raise TranscriptError("malformed genesis")
        host = body["host"]
        if not isinstance(host, dict) or set(host) != {"signing", "name"}:
            raise TranscriptError("malformed genesis host")
        seats = body["seats"]
        if not isinstance(seats, list) or not 2 <= len(seats) <= 4:
            raise TranscriptError("a table has 2 to 4 seats")
        deals = body["deals"]
        if deals is not None and (type(deals) is not int or deals < 1):
            raise TranscriptError("deals is a positive integer or null")
        if type(body["game"]) is not str or type(body["rules_version"]) is not str:
            raise TranscriptError("game and rules_version are strings")
        if not isinstance(body["options"], dict) or type(body["nonce"]) is not bytes:
            raise TranscriptError("malformed genesis options or nonce")
        if type(host["signing"]) is not bytes or len(host["signing"]) != 32 or type(host["name"]) is not str:
            raise TranscriptError("malformed genesis host key")
        if type(body["timeout"]) not in (int, float) or not 0 < body["timeout"] <= 3600:
            raise TranscriptError("timeout is 0..3600 seconds")
        infos = tuple(SeatInfo.from_wire(s) for s in seats)
        if len({s.signing for s in infos}) != len(infos):
            raise TranscriptError("a key sits in two seats")
        return cls(body["game"], body["rules_version"], dict(body["options"]), infos, deals,
                   host["signing"], host["name"], body["nonce"], float(body["timeout"]))


@dataclass(frozen=True, slots=True)
class Envelope:
    """A parsed, signature-checked table message and its bytes."""

    table: bytes
    deal: int
    seq: int
    prev: bytes
    author: int
    kind: str
    body: Mapping[str, Any]
    raw: bytes

    @property
    def hash(self) -> bytes:
        return message_hash(self.raw)


def message_hash(raw: bytes) -> bytes:
    """The chain link: SHA-256 of a message's bytes."""
    return hashlib.sha256(raw).digest()


def sign_message(
    signer: Identity, *, table: bytes, deal: int, seq: int, prev: bytes, author: int, kind: str,
    body: Mapping[str, Any],
) -> bytes:
    """The bytes of a signed table message."""
    msg: dict[str, Any] = {"v": VERSION, "table": table, "deal": deal, "seq": seq, "prev": prev,
                           "author": author, "kind": kind, "body": dict(body)}
    msg["sig"] = signer.sign(pack(msg))
    return pack(msg)


def make_genesis(host: Identity, genesis: Genesis) -> bytes:
    """The signed genesis message (seq 0)."""
    return sign_message(host, table=genesis.table_id, deal=0, seq=0, prev=ZERO_HASH, author=HOST,
                        kind="genesis", body=genesis.body())


def parse_message(raw: bytes, signing_keys: Sequence[bytes] | None, host_key: bytes | None = None) -> Envelope:
    """Decode ``raw`` and check its shape and signature.

    ``signing_keys`` are the seats' keys (None before the genesis is known, when only a
    genesis can be parsed, checked against its own host key or ``host_key``).
    """
    try:
        msg = unpack(raw)
    except FrameError as exc:
        raise TranscriptError(str(exc)) from None
    if not isinstance(msg, dict) or set(msg) != _KEYS:
        raise TranscriptError("not a table message (wrong fields)")
    if pack(msg) != raw:
        raise TranscriptError("not canonical msgpack")
    if msg["v"] != VERSION:
        raise TranscriptError(f"protocol version {msg['v']!r} is not {VERSION}")
    for field, typ in (("table", bytes), ("deal", int), ("seq", int), ("prev", bytes), ("author", int),
                       ("kind", str), ("body", dict), ("sig", bytes)):
        if type(msg[field]) is not typ:
            raise TranscriptError(f"field {field} has the wrong type")
    if len(msg["prev"]) != 32 or len(msg["sig"]) != 64 or msg["seq"] < 0 or msg["deal"] < 0:
        raise TranscriptError("malformed prev, sig, seq or deal")
    author = msg["author"]
    if author == HOST:
        if msg["kind"] != "genesis":
            raise TranscriptError("only the genesis is signed by the host")
        try:
            key = msg["body"]["host"]["signing"]
        except (KeyError, TypeError):
            raise TranscriptError("malformed genesis") from None
        if host_key is not None and key != host_key:
            raise TranscriptError("the genesis is not signed by the expected host")
    else:
        if signing_keys is None or not 0 <= author < len(signing_keys):
            raise TranscriptError(f"author {author} is not a seat of this table")
        key = signing_keys[author]
    sig = msg.pop("sig")
    if type(key) is not bytes or not verify(key, sig, pack(msg)):
        raise TranscriptError(f"bad signature (claimed author {author})")
    return Envelope(msg["table"], msg["deal"], msg["seq"], msg["prev"], author, msg["kind"], msg["body"], raw)


# ---------------------------------------------------------------------- votes
def vote_opener(against: int, seats: int) -> int:
    """The only seat that may open a vote against seat ``against``: the lowest other seat."""
    if not 0 <= against < seats:
        raise ValueError(f"seat {against} is not a seat of a {seats}-seat table")
    return 1 if against == 0 else 0


def vote_order(against: int, seats: int) -> tuple[int, ...]:
    """Who votes against seat ``against``, in order: every other seat, lowest first.

    The opener is the first; a vote is complete when every one of them has voted (a seat
    is never voted out by fewer than all the other seats).
    """
    return tuple(s for s in range(seats) if s != against)


@dataclass(frozen=True, slots=True)
class VoteBody:
    """The body of a ``vote`` message: ``{against: SEAT, bot: SEAT-INFO or nil}``.

    The opening vote names, in ``bot``, the new peer that takes the seat from the next
    deal on (its display name, its fresh public keys, its level and who runs it); the
    following votes carry ``bot`` nil.
    """

    against: int
    bot: SeatInfo | None

    def to_body(self) -> dict[str, Any]:
        return {"against": self.against, "bot": None if self.bot is None else self.bot.to_wire()}

    @classmethod
    def from_body(cls, body: Mapping[str, Any], seats: int) -> VoteBody:
        """Check the shape of a vote body (raises :class:`TranscriptError`)."""
        if not isinstance(body, Mapping) or set(body) != {"against", "bot"}:
            raise TranscriptError("a vote is {against, bot}")
        against = body["against"]
        if type(against) is not int or not 0 <= against < seats:
            raise TranscriptError(f"a vote against {against!r}, which is not a seat")
        bot = None if body["bot"] is None else SeatInfo.from_wire(body["bot"])
        return cls(against, bot)
