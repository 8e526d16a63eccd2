"""The table announcement (DNS-SD TXT record) and what a browser makes of it -- sans-IO.

A hosted table is a DNS-SD service of type ``_p2pcards._tcp.local.``; its instance name is
the table's name, its SRV record the host's lobby port, its TXT record an
:class:`Announcement`.  The format is specified in ``protocol/TRANSPORT.md`` ("Discovery").

Everything that arrives from the LAN goes through :func:`parse_announcement` and
:func:`listing`: a record that cannot be read never raises out of them -- it becomes an
:class:`OpenTable` with a ``problem``, which :func:`why_not_joinable` turns into the reason
it cannot be joined.  Nothing here does I/O or imports trio or zeroconf.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Literal, Protocol

__all__ = [
    "SERVICE_TYPE",
    "TXT_VERSION",
    "MAX_TABLE_NAME",
    "AnnouncementError",
    "Announcement",
    "OpenTable",
    "TableEvent",
    "InstalledGame",
    "encode_txt",
    "decode_txt",
    "parse_announcement",
    "listing",
    "joinable_problem",
    "why_not_joinable",
    "check_table_name",
    "check_fingerprint",
    "default_table_name",
    "service_name",
    "instance_name",
    "matches",
    "order_addresses",
    "table_json",
]

#: The DNS-SD service type of a p2pcards table.
SERVICE_TYPE: Final = "_p2pcards._tcp.local."
#: Version of the TXT record format (the ``txtvers`` key).
TXT_VERSION: Final = 1
#: Longest table name (a DNS label: 63 bytes of UTF-8).
MAX_TABLE_NAME: Final = 63
#: Longest host display name (as a seat name in the transcript).
MAX_HOST_NAME: Final = 40
#: Longest TXT record we read; larger ones are refused (DNS-SD keeps them well under 1300 bytes).
MAX_TXT: Final = 1300
_MAX_OPTIONS: Final = 32
_MAX_VALUE: Final = 64

_GAME_RE: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,39}")
_OPTION_RE: Final = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_FP_RE: Final = re.compile(r"[a-z2-7]{4}(-[a-z2-7]{4}){3}")
_TABLE_RE: Final = re.compile(r"[0-9a-f]{64}")
_SEATS_RE: Final = re.compile(r"([0-9]{1,2})/([0-9]{1,2})")
_INT_RE: Final = re.compile(r"[0-9]{1,6}")


class AnnouncementError(ValueError):
    """An announcement that is malformed; the message says what is wrong, for people."""


def _printable(text: str, limit: int) -> bool:
    return 0 < len(text) <= limit and text.isprintable()


@dataclass(frozen=True, slots=True, kw_only=True)
class Announcement:
    """What a host says about its open table (the TXT record), checked on construction.

    ``seats_taken`` counts every seat held (bots included) of ``seats_total``; ``options``
    are the table options as text, as one would pass them to ``-o KEY=VALUE``;
    ``table_id`` (hex) is set only once the table exists (reserved: a table in progress).
    """

    proto: int
    game: str
    rules_version: str
    seats_taken: int
    seats_total: int
    host_name: str
    host_fingerprint: str
    options: Mapping[str, str] = field(default_factory=dict)
    deals: int | None = None
    table_id: str | None = None

    def __post_init__(self) -> None:
        if type(self.proto) is not int or not 0 <= self.proto < 1_000_000:
            raise AnnouncementError("proto is a small non-negative integer")
        if not _GAME_RE.fullmatch(self.game):
            raise AnnouncementError(f"bad game name {self.game!r}")
        if not _printable(self.rules_version, 16):
            raise AnnouncementError("the rules version is 1..16 printable characters")
        if not 1 <= self.seats_total <= 16 or not 0 <= self.seats_taken <= self.seats_total:
            raise AnnouncementError(f"bad seats {self.seats_taken}/{self.seats_total}")
        if not _printable(self.host_name, MAX_HOST_NAME):
            raise AnnouncementError(f"the host name is 1..{MAX_HOST_NAME} printable characters")
        if not _FP_RE.fullmatch(self.host_fingerprint):
            raise AnnouncementError(f"bad host fingerprint {self.host_fingerprint!r}")
        if len(self.options) > _MAX_OPTIONS:
            raise AnnouncementError(f"more than {_MAX_OPTIONS} options")
        for key, value in self.options.items():
            if not _OPTION_RE.fullmatch(key):
                raise AnnouncementError(f"bad option name {key!r}")
            if not _printable(value, _MAX_VALUE):
                raise AnnouncementError(f"option {key} has a bad value")
        if self.deals is not None and (type(self.deals) is not int or not 1 <= self.deals < 1_000_000):
            raise AnnouncementError("deals is a positive integer")
        if self.table_id is not None and not _TABLE_RE.fullmatch(self.table_id):
            raise AnnouncementError("the table id is 64 lowercase hex digits")

    @property
    def seats_free(self) -> int:
        return self.seats_total - self.seats_taken

    def with_seats(self, taken: int) -> Announcement:
        """The same announcement with ``taken`` seats held."""
        return replace(self, seats_taken=taken)


# ---------------------------------------------------------------------- TXT strings
def _pairs(ann: Announcement) -> list[tuple[str, str]]:
    pairs = [
        ("txtvers", str(TXT_VERSION)),
        ("proto", str(ann.proto)),
        ("game", ann.game),
        ("rules", ann.rules_version),
        ("seats", f"{ann.seats_taken}/{ann.seats_total}"),
        ("host", ann.host_name),
        ("fp", ann.host_fingerprint),
    ]
    if ann.deals is not None:
        pairs.append(("deals", str(ann.deals)))
    if ann.table_id is not None:
        pairs.append(("table", ann.table_id))
    pairs += [(f"o.{k}", v) for k, v in sorted(ann.options.items())]
    return pairs


def encode_txt(ann: Announcement) -> bytes:
    """The TXT record's RDATA: one length-prefixed ``key=value`` string per field (RFC 6763 §6)."""
    out = bytearray()
    for key, value in _pairs(ann):
        item = f"{key}={value}".encode()
        if len(item) > 255:  # unreachable with the limits above; kept as a guard
            raise AnnouncementError(f"TXT string {key} is longer than 255 bytes")
        out.append(len(item))
        out += item
    return bytes(out)


def decode_txt(data: bytes) -> dict[str, str | None]:
    """The key/value pairs of a TXT record's RDATA, read as RFC 6763 §6.3-6.4 says.

    Keys are compared case-insensitively (returned lowercased); only the first occurrence
    of a key counts; a string with no ``=`` is a key with no value (None); an empty string
    or one starting with ``=`` is skipped.  Raises :class:`AnnouncementError` when the
    strings overrun the record, when the record is too large, or a value is not UTF-8.
    """
    if len(data) > MAX_TXT:
        raise AnnouncementError(f"the TXT record has {len(data)} bytes (at most {MAX_TXT})")
    out: dict[str, str | None] = {}
    i = 0
    while i < len(data):
        n = data[i]
        item = data[i + 1 : i + 1 + n]
        if len(item) != n:
            raise AnnouncementError("a TXT string runs past the end of the record")
        i += 1 + n
        if not item or item.startswith(b"="):
            continue
        raw_key, sep, raw_value = item.partition(b"=")
        try:
            key = raw_key.decode("ascii").lower()
            value = raw_value.decode("utf-8") if sep else None
        except UnicodeDecodeError:
            raise AnnouncementError(f"TXT string {raw_key[:20]!r} is not text") from None
        if not key.isprintable():
            continue
        out.setdefault(key, value)
    return out


def _int(pairs: Mapping[str, str | None], key: str) -> int:
    value = pairs.get(key)
    if value is None or not _INT_RE.fullmatch(value):
        raise AnnouncementError(f"{key} is missing or not a number")
    return int(value)


def _text(pairs: Mapping[str, str | None], key: str) -> str:
    value = pairs.get(key)
    if not value:
        raise AnnouncementError(f"{key} is missing")
    return value


def parse_announcement(data: bytes) -> Announcement:
    """Read a TXT record into an :class:`Announcement`; :class:`AnnouncementError` if it is not one.

    A record of another ``txtvers`` is refused (its keys may mean something else); keys this
    version does not know are ignored, so hosts may add keys.
    """
    pairs = decode_txt(data)
    version = pairs.get("txtvers")
    if version != str(TXT_VERSION):
        shown = "missing" if version is None else repr(version[:20])
        raise AnnouncementError(f"TXT format version (txtvers) {shown}; this peer reads {TXT_VERSION}")
    seats = _SEATS_RE.fullmatch(pairs.get("seats") or "")
    if seats is None:
        raise AnnouncementError("seats is missing or not TAKEN/TOTAL")
    options: dict[str, str] = {}
    for key, value in pairs.items():
        if key.startswith("o."):
            options[key[2:]] = value or ""
    deals = _int(pairs, "deals") if "deals" in pairs else None
    return Announcement(
        proto=_int(pairs, "proto"),
        game=_text(pairs, "game"),
        rules_version=_text(pairs, "rules"),
        seats_taken=int(seats.group(1)),
        seats_total=int(seats.group(2)),
        host_name=_text(pairs, "host"),
        host_fingerprint=_text(pairs, "fp"),
        options=options,
        deals=deals,
        table_id=pairs.get("table"),
    )


# ---------------------------------------------------------------------- names
def check_fingerprint(text: str) -> str | None:
    """Why ``text`` is not a key fingerprint (None: it is one)."""
    if _FP_RE.fullmatch(text):
        return None
    return "a fingerprint is four groups of four characters (a-z, 2-7), e.g. abcd-efgh-ijkl-mn23"


def check_table_name(name: str) -> str | None:
    """Why ``name`` cannot name a table (None if it can): 1..63 bytes of UTF-8, printable,
    no dot and no colon (``join`` tells HOST:PORT from a name by the colon)."""
    if not name or len(name.encode()) > MAX_TABLE_NAME:
        return f"a table name is 1 to {MAX_TABLE_NAME} bytes of UTF-8"
    if not name.isprintable() or "." in name or ":" in name or name != name.strip():
        return "a table name is printable, without '.' or ':' or surrounding spaces"
    return None


def default_table_name(game: str, host_name: str, fingerprint: str) -> str:
    """``GAME-HOST-XXXX``: the game, the host's name (letters and digits kept) and the first
    four characters of its fingerprint, so two hosts of the same name differ."""
    host = re.sub(r"[^0-9A-Za-z_-]+", "", host_name)[:24] or "host"
    return f"{game}-{host}-{fingerprint[:4]}"[:MAX_TABLE_NAME]


def service_name(name: str) -> str:
    """The full DNS-SD service name of table ``name``."""
    return f"{name}.{SERVICE_TYPE}"


def instance_name(service: str) -> str:
    """The table name of a full service name (the service itself if it is not ours)."""
    suffix = "." + SERVICE_TYPE
    return service[: -len(suffix)] if service.lower().endswith(suffix.lower()) else service


def matches(query: str, table: OpenTable) -> bool:
    """Whether ``query`` names ``table``: its table name or full service name, ignoring case
    (DNS names are case-insensitive) and a missing final dot."""
    q = query.lower().rstrip(".")
    return q in (table.name.lower(), table.service.lower().rstrip("."))


# ---------------------------------------------------------------------- listings
@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table seen on the LAN: where it is and what it announces.

    ``announcement`` is None when the TXT record could not be read; ``problem`` then says
    why.  ``addresses`` are the host's addresses as resolved (IPv6 link-local ones with a
    ``%scope``), ``port`` its lobby port.
    """

    service: str
    name: str
    addresses: tuple[str, ...]
    port: int
    announcement: Announcement | None
    problem: str | None = None


def listing(service: str, addresses: Iterable[str], port: int | None, txt: bytes | None) -> OpenTable:
    """An :class:`OpenTable` out of what was resolved for ``service``; never raises."""
    ann: Announcement | None = None
    problem: str | None = None
    if txt is None:
        problem = "no TXT record"
    else:
        try:
            ann = parse_announcement(txt)
        except AnnouncementError as exc:
            problem = str(exc)
    good_port = port if port is not None and 0 < port < 65536 else 0
    return OpenTable(service, instance_name(service), tuple(addresses), good_port, ann, problem)


@dataclass(frozen=True, slots=True)
class TableEvent:
    """A change seen by a browser: a table appeared, its announcement changed, or it vanished
    (withdrawn with a goodbye, or its records' TTL ran out).  For ``vanish`` the table is as
    last seen."""

    kind: Literal["appear", "update", "vanish"]
    table: OpenTable


class InstalledGame(Protocol):
    """What :func:`why_not_joinable` needs of an installed game (a core ``GameSpec`` fits)."""

    @property
    def rules_version(self) -> str: ...

    @property
    def seats(self) -> int: ...

    def resolve_options(self, raw: Mapping[str, str | int] | None = None) -> Mapping[str, object]: ...


def joinable_problem(table: OpenTable, games: Mapping[str, InstalledGame],
                     proto: int) -> tuple[str, dict[str, object]] | None:
    """Why this peer cannot join ``table`` as a code and its details (None: it can), for a
    screen to say in its own language; :func:`why_not_joinable` says it in English.

    In order: ``malformed`` (the record could not be read: ``problem``), ``proto`` (another
    lobby protocol: ``theirs``, ``ours``), ``game`` (not installed: ``game``), ``rules``
    (another rules version: ``game``, ``theirs``, ``ours``), ``seats`` (``game``,
    ``theirs``, ``ours``), ``options`` (they do not fit: ``problem``), ``full``,
    ``address`` (none resolved).
    """
    if table.announcement is None:
        return "malformed", {"problem": table.problem}
    ann = table.announcement
    if ann.proto != proto:
        return "proto", {"theirs": ann.proto, "ours": proto}
    spec = games.get(ann.game)
    if spec is None:
        return "game", {"game": ann.game}
    if spec.rules_version != ann.rules_version:
        return "rules", {"game": ann.game, "theirs": ann.rules_version, "ours": spec.rules_version}
    if spec.seats != ann.seats_total:
        return "seats", {"game": ann.game, "theirs": ann.seats_total, "ours": spec.seats}
    try:
        spec.resolve_options(dict(ann.options))
    except ValueError as exc:
        return "options", {"problem": str(exc)}
    if ann.seats_free <= 0:
        return "full", {}
    if not table.addresses or not table.port:
        return "address", {}
    return None


_WHY = {
    "malformed": "malformed announcement: {problem}",
    "proto": "the host speaks lobby protocol {theirs}; this peer speaks {ours}",
    "game": "it plays {game}, which is not installed here",
    "rules": "it plays {game} rules version {theirs}; the installed {game} has version {ours}",
    "seats": "{game} has {ours} seats here; the table announces {theirs}",
    "options": "its options do not fit the installed game: {problem}",
    "full": "every seat is taken",
    "address": "no address was resolved for its host",
}


def why_not_joinable(table: OpenTable, games: Mapping[str, InstalledGame], proto: int) -> str | None:
    """Why this peer cannot join ``table`` (None: it can), in words for people (English);
    see :func:`joinable_problem`."""
    problem = joinable_problem(table, games, proto)
    return None if problem is None else _WHY[problem[0]].format(**problem[1])


def order_addresses(addresses: Sequence[str], local_networks: Sequence[str] = ()) -> list[str]:
    """The addresses to try, best first: those on one of ``local_networks`` (CIDR strings of
    this machine's interfaces), then IPv4 before IPv6, global before link-local.  Entries
    that are not IP addresses are dropped."""
    nets = []
    for n in local_networks:
        try:
            nets.append(ipaddress.ip_network(n, strict=False))
        except ValueError:
            continue

    def key(item: tuple[int, str]) -> tuple[int, int, int, int]:
        index, text = item
        ip = ipaddress.ip_address(text.partition("%")[0])
        local = any(ip.version == n.version and ip in n for n in nets)
        return (0 if local else 1, ip.version, 1 if ip.is_link_local else 0, index)

    valid = []
    for i, text in enumerate(addresses):
        try:
            ipaddress.ip_address(text.partition("%")[0])
        except ValueError:
            continue
        valid.append((i, text))
    return [text for _, text in sorted(valid, key=key)]


def table_json(table: OpenTable, reason: str | None) -> dict[str, object]:
    """The object describing a table in ``p2pcards tables --json`` (see its ``--help``)."""
    ann = table.announcement
    return {
        "name": table.name,
        "service": table.service,
        "game": ann.game if ann else None,
        "rules_version": ann.rules_version if ann else None,
        "proto": ann.proto if ann else None,
        "options": dict(ann.options) if ann else {},
        "seats": ann.seats_total if ann else None,
        "taken": ann.seats_taken if ann else None,
        "free": ann.seats_free if ann else None,
        "deals": ann.deals if ann else None,
        "host": {"name": ann.host_name, "fingerprint": ann.host_fingerprint} if ann else None,
        "table": ann.table_id if ann else None,
        "address": table.addresses[0] if table.addresses else None,
        "addresses": list(table.addresses),
        "port": table.port or None,
        "joinable": reason is None,
        "reason": reason,
    }
