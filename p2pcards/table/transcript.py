"""Table messages: one encoding, signed or certified, hash-chained (protocol version 4).

Every table message is a msgpack array of two items (``protocol/PROTOCOL.md``, "Table
messages"):

* a **signed message** ``[body, sig]``: ``body`` is the canonical msgpack (below) of the
  header map ``{author, body, deal, kind, prev, seq, table, v}`` and ``sig`` the author's
  Ed25519 signature of ``SIG_DOMAIN || body``;
* a **certificate** ``[statement, proof]``: ``statement`` is the canonical msgpack of a
  header map whose ``author`` is :data:`TABLE` (nobody: the table itself), and ``proof`` an
  array of signed messages of the seats that make the statement true (their votes, their
  revealed seeds, the two messages of an equivocation).  A certificate is a deterministic
  function of what the seats signed, so every replica that holds the same proof writes the
  same certificate, and nobody's single signature creates one.

**One encoding.**  *Canonical* msgpack is the shortest form of every value and map keys in
increasing order of their UTF-8 bytes, at every depth; a message whose body (or statement)
or whose outer array is not canonical is refused.  Signatures must be canonical too (the
``S`` half below the group order), so a third party cannot alter a signature that
verifies.  A message's **hash** -- its chain link, the ``prev`` of the next message -- is
SHA-256 of the first item (the signed bytes, or the statement): what is signed is what is
chained, and a certificate's hash does not depend on which valid signatures prove it.

Sans-IO: pure functions and frozen values; the trio layer only moves the bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, NoReturn

import msgpack  # type: ignore[import-untyped]

from p2pcards.core import Options
from p2pcards.identity import Identity, fingerprint, verify
from p2pcards.table.wire import FrameError, pack, unpack

__all__ = [
    "VERSION",
    "HOST",
    "TABLE",
    "ZERO_HASH",
    "TableKind",
    "ENTRY_KINDS",
    "SIDE_KINDS",
    "CERT_KINDS",
    "Envelope",
    "Genesis",
    "SeatInfo",
    "TranscriptError",
    "VersionError",
    "canonical",
    "message_hash",
    "make_genesis",
    "sign_message",
    "make_certificate",
    "parse_message",
    "decode",
    "Decoded",
    "own_envelope",
    "peek",
]

VERSION: Final = 4
#: ``author`` of the genesis message: the host, who need not hold a seat.
HOST: Final = -1
#: ``author`` of a certificate: the table itself (the proof holds the seats' signatures).
TABLE: Final = -2
ZERO_HASH: Final = bytes(32)
SIG_DOMAIN: Final = b"p2pcards/table/v2/sig\x00"
TABLE_ID_DOMAIN: Final = b"p2pcards/table/v2\x00"
_HEADER: Final = frozenset({"v", "table", "deal", "seq", "prev", "author", "kind", "body"})


class TableKind(StrEnum):
    """The kinds of table messages (the ``kind`` header; the deck's own messages, carried
    inside ``deck`` entries, have theirs in :class:`p2pcards.mental.messages.Kind`)."""

    GENESIS = "genesis"
    DECK = "deck"
    CHOICE = "choice"
    LOCATE = "locate"
    DISPUTE = "dispute"
    ABANDON = "abandon"
    TAKEUP = "takeup"
    OUTVOTE = "outvote"
    FORK = "fork"
    CLOSE = "close"
    VOTE = "vote"
    NAY = "nay"
    SEED = "seed"


#: Transcript entries written by one seat (signed).
ENTRY_KINDS: Final = frozenset({TableKind.GENESIS, TableKind.DECK, TableKind.CHOICE, TableKind.LOCATE,
                                TableKind.DISPUTE, TableKind.ABANDON, TableKind.TAKEUP})
#: Certificates: transcript entries written by the table from the seats' signed messages.
CERT_KINDS: Final = frozenset({TableKind.OUTVOTE, TableKind.FORK, TableKind.CLOSE})
#: Signed messages that take no place in the transcript by themselves: a vote against a
#: silent seat, a "nay" (the voter holds the silent seat's message), a revealed seed.
SIDE_KINDS: Final = frozenset({TableKind.VOTE, TableKind.NAY, TableKind.SEED})
MAX_NAME: Final = 40
#: The order of the Ed25519 group: a signature's S must be below it.
_ED25519_L: Final = 2**252 + 27742317777372353535851937790883648493


class TranscriptError(Exception):
    """A message that is not a well-formed, correctly signed table message."""


class VersionError(TranscriptError):
    """A message (or a saved transcript) of another protocol version."""


def canonical(obj: object) -> bytes:
    """The canonical msgpack of ``obj``: shortest forms, map keys sorted at every depth."""
    return pack(_sorted(obj))


_CONTAINERS: Final = (dict, list, tuple)


def _sorted(obj: object) -> object:
    kind = type(obj)
    if kind is dict and isinstance(obj, dict):
        for key in obj:
            if type(key) is not str:
                raise TranscriptError("map keys are strings")
        return {k: _sorted(obj[k]) for k in sorted(obj, key=_key_order)}
    if (kind is list or kind is tuple) and isinstance(obj, (list, tuple)):
        if any(type(v) in _CONTAINERS for v in obj):
            return [_sorted(v) for v in obj]
        return obj  # (msgpack packs a tuple as an array too)
    return obj


def _key_order(key: str) -> bytes:
    return key.encode()


def _sorted_pairs(pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
    """``object_pairs_hook`` of the canonical decoder: string keys in canonical order."""
    keys = [k for k, _ in pairs]
    if any(type(k) is not str for k in keys) or keys != sorted(keys, key=_key_order) or len(set(keys)) != len(keys):
        raise TranscriptError("map keys out of canonical order")
    return dict(pairs)


def _decode_canonical(data: bytes, what: str) -> object:
    try:
        obj = msgpack.unpackb(data, raw=False, strict_map_key=True, use_list=True, ext_hook=_no_ext,
                              object_pairs_hook=_sorted_pairs)
    except TranscriptError:
        raise TranscriptError(f"{what} is not canonical msgpack (another encoding of a message is refused)") from None
    except Exception as exc:  # noqa: BLE001 -- msgpack raises many types
        raise TranscriptError(f"{what}: not valid msgpack: {exc.__class__.__name__}: {exc}") from None
    if pack(obj) != data:
        raise TranscriptError(f"{what} is not canonical msgpack (another encoding of a message is refused)")
    return obj


def _no_ext(code: int, data: bytes) -> NoReturn:
    raise TranscriptError(f"msgpack extension type {code} is not allowed")


def message_hash(raw: bytes) -> bytes:
    """The chain link of a message: SHA-256 of its first item (what is signed or stated)."""
    return hashlib.sha256(_first(raw)).digest()


def _first(raw: bytes) -> bytes:
    try:
        outer = unpack(raw)
    except FrameError as exc:
        raise TranscriptError(str(exc)) from None
    if not isinstance(outer, list) or len(outer) != 2 or type(outer[0]) is not bytes:
        raise TranscriptError("not a table message")
    first: bytes = outer[0]
    return first


def peek(raw: bytes) -> tuple[str | None, int | None]:
    """``(kind, seq)`` of a message, without checking anything else (for routing); Nones
    for anything that does not look like a table message."""
    try:
        outer = unpack(raw)
        if not isinstance(outer, list) or len(outer) != 2 or type(outer[0]) is not bytes:
            return None, None
        msg = unpack(outer[0])
    except FrameError:
        return None, None
    if not isinstance(msg, dict):
        return None, None
    kind, seq = msg.get("kind"), msg.get("seq")
    return (kind if type(kind) is str else None), (seq if type(seq) is int and seq >= 0 else None)


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

    def to_wire(self) -> dict[str, object]:
        return {"name": self.name, "signing": self.signing, "sealing": self.sealing,
                "bot": self.bot, "runs_on": self.runs_on}

    @classmethod
    def from_wire(cls, obj: object) -> SeatInfo:
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


#: The keys of every genesis body; ``hints`` is added only at a table whose host forbids hints.
GENESIS_KEYS: Final = frozenset({"game", "rules_version", "options", "seats", "deals", "host", "nonce", "timeout"})


@dataclass(frozen=True, slots=True)
class Genesis:
    """The table as agreed before the first deal.

    ``hints``: whether the people at the table may ask the computer for a suggestion (the
    table screen's ``h``).  It is written in the body only when it is False (``"hints":
    false``), so a table that allows hints -- every table before the field existed -- has
    the very same body, and table id, as before."""

    game: str
    rules_version: str
    options: Options
    seats: tuple[SeatInfo, ...]
    deals: int | None
    host_signing: bytes
    host_name: str
    nonce: bytes
    timeout: float
    hints: bool = True

    def body(self) -> dict[str, object]:
        body: dict[str, object] = {
            "game": self.game,
            "rules_version": self.rules_version,
            "options": dict(self.options),
            "seats": [s.to_wire() for s in self.seats],
            "deals": self.deals,
            "host": {"signing": self.host_signing, "name": self.host_name},
            "nonce": self.nonce,
            "timeout": self.timeout,
        }
        if not self.hints:
            body["hints"] = False
        return body

    @property
    def table_id(self) -> bytes:
        return hashlib.sha256(TABLE_ID_DOMAIN + canonical(self.body())).digest()

    @classmethod
    def from_body(cls, body: object) -> Genesis:
        if not isinstance(body, dict) or set(body) not in (GENESIS_KEYS, GENESIS_KEYS | {"hints"}):
            raise TranscriptError("malformed genesis")
        if "hints" in body and body["hints"] is not False:  # one encoding: a table that allows hints omits the key
            raise TranscriptError("malformed genesis: hints is present only as false")
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
        if type(body["timeout"]) is not float or not 0 < body["timeout"] <= 3600:
            raise TranscriptError("timeout is 0..3600 seconds (a float)")
        infos = tuple(SeatInfo.from_wire(s) for s in seats)
        if len({s.signing for s in infos}) != len(infos):
            raise TranscriptError("a key sits in two seats")
        return cls(body["game"], body["rules_version"], dict(body["options"]), infos, deals,
                   host["signing"], host["name"], body["nonce"], float(body["timeout"]), "hints" not in body)


@dataclass(frozen=True, slots=True)
class Envelope:
    """A parsed table message and its bytes.

    ``proof`` is empty for a signed message and holds the raw signed messages of a
    certificate (checked by the table, which knows what they must prove).
    """

    table: bytes
    deal: int
    seq: int
    prev: bytes
    author: int
    kind: str
    body: Mapping[str, Any]
    raw: bytes
    hash: bytes
    proof: tuple[bytes, ...] = ()

    @property
    def certificate(self) -> bool:
        return self.author == TABLE

    @property
    def slot(self) -> tuple[int, bytes]:
        """Where the message stands in the chain: ``(seq, prev)``."""
        return self.seq, self.prev


def _header(*, table: bytes, deal: int, seq: int, prev: bytes, author: int, kind: str,
            body: Mapping[str, object]) -> bytes:
    return canonical({"v": VERSION, "table": table, "deal": deal, "seq": seq, "prev": prev,
                      "author": author, "kind": kind, "body": dict(body)})


def sign_message(
    signer: Identity, *, table: bytes, deal: int, seq: int, prev: bytes, author: int, kind: str,
    body: Mapping[str, object],
) -> bytes:
    """The bytes of a signed table message (an entry or a side message)."""
    signed = _header(table=table, deal=deal, seq=seq, prev=prev, author=author, kind=kind, body=body)
    return pack([signed, signer.sign(SIG_DOMAIN + signed)])


def make_certificate(
    *, table: bytes, deal: int, seq: int, prev: bytes, kind: str, body: Mapping[str, object],
    proof: Sequence[bytes],
) -> bytes:
    """The bytes of a certificate (author :data:`TABLE`) with its proof."""
    if kind not in CERT_KINDS:
        raise ValueError(f"{kind!r} is not a certificate")
    statement = _header(table=table, deal=deal, seq=seq, prev=prev, author=TABLE, kind=kind, body=body)
    return pack([statement, list(proof)])


def make_genesis(host: Identity, genesis: Genesis) -> bytes:
    """The signed genesis message (seq 0)."""
    return sign_message(host, table=genesis.table_id, deal=0, seq=0, prev=ZERO_HASH, author=HOST,
                        kind=TableKind.GENESIS, body=genesis.body())


def own_envelope(raw: bytes) -> Envelope:
    """The envelope of a message this replica just signed or certified itself: no check
    (what :func:`parse_message` checks is true by construction)."""
    first, second = unpack(raw)
    msg = unpack(first)
    proof = tuple(second) if msg["author"] == TABLE else ()
    return Envelope(msg["table"], msg["deal"], msg["seq"], msg["prev"], msg["author"], msg["kind"], msg["body"], raw,
                    hashlib.sha256(first).digest(), proof)


@dataclass(frozen=True, slots=True)
class Decoded:
    """A table message decoded once, in its one encoding, its signature not checked yet
    (:func:`decode`): the runtime routes it by :attr:`kind` and :attr:`seq`, a replica
    checks it (:func:`parse_message`) without decoding it again."""

    raw: bytes
    first: bytes
    second: object
    header: dict[str, Any]

    @property
    def kind(self) -> str:
        return str(self.header["kind"])

    @property
    def seq(self) -> int:
        return int(self.header["seq"])


def decode(raw: bytes, outer: object = None) -> Decoded:
    """Decode ``raw`` (``outer``: its msgpack, when the caller has it already) and check its
    encoding and fields; the signature is :func:`parse_message`'s.  Raises
    :class:`TranscriptError` (:class:`VersionError` for another protocol version)."""
    if outer is None:
        try:
            outer = unpack(raw)
        except FrameError as exc:
            raise TranscriptError(str(exc)) from None
    if isinstance(outer, dict) and "v" in outer and outer.get("v") != VERSION:
        raise VersionError(f"a message of protocol version {outer.get('v')!r}; this p2pcards speaks version "
                           f"{VERSION}")
    if not isinstance(outer, list) or len(outer) != 2 or type(outer[0]) is not bytes:
        raise TranscriptError("not a table message (a table message is [body, signature] or [statement, proof])")
    if pack(outer) != raw:
        raise TranscriptError("not canonical msgpack (another encoding of a message is refused)")
    first, second = outer
    msg = _decode_canonical(first, "the signed body")
    if not isinstance(msg, dict) or set(msg) != _HEADER:
        raise TranscriptError("not a table message (wrong fields)")
    if msg["v"] != VERSION:
        raise VersionError(f"a message of protocol version {msg['v']!r}; this p2pcards speaks version {VERSION}")
    for field, typ in (("table", bytes), ("deal", int), ("seq", int), ("prev", bytes), ("author", int),
                       ("kind", str), ("body", dict)):
        if type(msg[field]) is not typ:
            raise TranscriptError(f"field {field} has the wrong type")
    if len(msg["prev"]) != 32 or msg["seq"] < 0 or msg["deal"] < 0:
        raise TranscriptError("malformed prev, seq or deal")
    return Decoded(raw, first, second, msg)


def parse_message(raw: bytes | Decoded, signing_keys: Sequence[bytes] | None,
                  host_key: bytes | None = None) -> Envelope:
    """Decode ``raw`` (unless it is :class:`Decoded` already), check its encoding, shape and
    (for a signed message) its signature.

    ``signing_keys`` are the seats' keys (None before the genesis is known, when only a
    genesis can be parsed, checked against its own host key or ``host_key``).  A
    certificate's proof is not checked here (:class:`~p2pcards.table.table.Table` does).
    Raises :class:`VersionError` for a message of another protocol version.
    """
    decoded = raw if isinstance(raw, Decoded) else decode(raw)
    first, second, msg = decoded.first, decoded.second, decoded.header
    author, kind = msg["author"], msg["kind"]
    proof: tuple[bytes, ...] = ()
    if author == TABLE:
        if kind not in CERT_KINDS or type(second) is not list:
            raise TranscriptError(f"a {kind!r} message is not a certificate")
        if not all(type(p) is bytes for p in second) or len(second) > 8:
            raise TranscriptError("a certificate's proof is a short list of messages")
        proof = tuple(second)
    else:
        if kind in CERT_KINDS:
            raise TranscriptError(f"a {kind!r} is a certificate, not a seat's message")
        if kind not in ENTRY_KINDS and kind not in SIDE_KINDS:
            raise TranscriptError(f"unknown message kind {kind!r}")
        if type(second) is not bytes or len(second) != 64:
            raise TranscriptError("a signature is 64 bytes")
        if int.from_bytes(second[32:], "little") >= _ED25519_L:
            raise TranscriptError("a signature that is not canonical")
        if author == HOST:
            if kind != TableKind.GENESIS:
                raise TranscriptError("only the genesis is signed by the host")
            try:
                key = msg["body"]["host"]["signing"]
            except (KeyError, TypeError):
                raise TranscriptError("malformed genesis") from None
            if host_key is not None and key != host_key:
                raise TranscriptError("the genesis is not signed by the expected host")
        else:
            if kind == TableKind.GENESIS:
                raise TranscriptError("the genesis is signed by the host")
            if signing_keys is None or not 0 <= author < len(signing_keys):
                raise TranscriptError(f"author {author} is not a seat of this table")
            key = signing_keys[author]
        if type(key) is not bytes or not verify(key, second, SIG_DOMAIN + first):
            raise TranscriptError(f"bad signature (claimed author {author})")
    return Envelope(msg["table"], msg["deal"], msg["seq"], msg["prev"], author, kind, msg["body"], decoded.raw,
                    hashlib.sha256(first).digest(), proof)
