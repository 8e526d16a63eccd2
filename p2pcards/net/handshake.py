"""Lobby and mesh handshake messages (sans-IO): build them, and check what arrives.

The exchange is described message by message in ``protocol/TRANSPORT.md``.  Every lobby
message is a msgpack map with a ``type``; a message that is not one of the expected shape
raises :class:`LobbyProtocolError` with a reason for people.  Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from p2pcards.core import Options
from p2pcards.identity import Identity, verify
from p2pcards.players import PLAYER_LEVELS
from p2pcards.table.transcript import MAX_NAME
from p2pcards.table.wire import FrameError, pack, unpack

__all__ = [
    "expect_fields",
    "PROTO",
    "NONCE_SIZE",
    "SeatSpec",
    "parse_seat_spec",
    "LobbyProtocolError",
    "make_greeting",
    "parse_greeting",
    "Hello",
    "Seated",
    "Process",
    "Start",
    "MeshHello",
    "make_hello",
    "parse_hello",
    "make_seated",
    "parse_seated_or_refused",
    "make_refused",
    "make_start",
    "parse_start",
    "make_mesh_hello",
    "parse_mesh_hello",
    "decode",
    "Rejoin",
    "Challenge",
    "make_rejoin",
    "parse_rejoin",
    "make_challenge",
    "parse_challenge",
    "make_proof",
    "parse_proof",
]

#: Version of the lobby and mesh protocol (``proto`` in ``greeting``, ``hello``, ``mesh``
#: and ``rejoin``).  2: the listener greets every connection with a fresh nonce, which the
#: ``hello`` and both ``mesh`` hellos sign.
PROTO: Final = 2
_HELLO_DOMAIN: Final = b"p2pcards/lobby-hello/v2\x00"
_MESH_DOMAIN: Final = b"p2pcards/mesh-hello/v2\x00"
NONCE_SIZE: Final = 32
_MAX_GAMES: Final = 256
_MAX_TEXT: Final = 64


class LobbyProtocolError(Exception):
    """A lobby or mesh message of the wrong shape, or one that fails its checks.

    ``code`` is the refusal code the host sends back (``hello``, ``version``...).
    """

    def __init__(self, reason: str, code: str = "protocol") -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


# ---------------------------------------------------------------------- seat specs
@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat of ``--seats``: a bot of ``level`` run by the host process, a remote peer,
    or ``me``: the host's own person, who plays it on the screen (``p2pcards play --host``)."""

    kind: str  # "bot" | "remote" | "me"
    level: str | None = None


def parse_seat_spec(text: str | None, seats: int, default_level: str = "heuristic", *,
                    person: bool = False) -> list[SeatSpec]:
    """Parse ``bot``, ``bot:LEVEL``, ``remote`` and ``me`` separated by commas, one per seat.

    ``None`` means seat 0 a bot (``me`` when ``person``), every other seat remote.  ``me``
    (at most one) is allowed only when ``person`` (the host's person plays on a screen).
    Raises ValueError with a message for people.
    """
    if text is None:
        first = SeatSpec("me") if person else SeatSpec("bot", default_level)
        return [first] + [SeatSpec("remote")] * (seats - 1)
    items = [t.strip() for t in text.split(",")]
    if len(items) != seats:
        raise ValueError(f"the game has {seats} seats; --seats names {len(items)} ({text!r})")
    out: list[SeatSpec] = []
    for item in items:
        kind, _, level = item.partition(":")
        if kind == "remote" and not level:
            out.append(SeatSpec("remote"))
        elif kind == "me" and not level:
            if not person:
                raise ValueError("a 'me' seat is played on the screen: host with `p2pcards play GAME --host`")
            if any(s.kind == "me" for s in out):
                raise ValueError("--seats names 'me' twice")
            out.append(SeatSpec("me"))
        elif kind == "bot":
            level = level or default_level
            if level not in PLAYER_LEVELS:
                raise ValueError(f"unknown bot level {level!r} in --seats (choose from {', '.join(PLAYER_LEVELS)})")
            out.append(SeatSpec("bot", level))
        else:
            allowed = "bot, bot:LEVEL, remote or me" if person else "bot, bot:LEVEL or remote"
            raise ValueError(f"bad seat {item!r} in --seats: each seat is {allowed}")
    return out


# ---------------------------------------------------------------------- helpers
def decode(payload: bytes) -> dict[str, object]:
    """A lobby message: a msgpack map with a string ``type``."""
    try:
        obj = unpack(payload)
    except FrameError as exc:
        raise LobbyProtocolError(f"garbage instead of a lobby message: {exc}") from None
    if not isinstance(obj, dict) or type(obj.get("type")) is not str:
        raise LobbyProtocolError("a lobby message is a map with a 'type'")
    return obj


def expect_fields(obj: Mapping[str, object], type_: str, keys: set[str]) -> None:
    """Check that ``obj`` is a ``type_`` message with exactly the fields ``keys``."""
    if obj.get("type") != type_:
        raise LobbyProtocolError(f"expected a {type_!r} message, got {obj.get('type')!r}")
    if set(obj) != keys | {"type"}:
        raise LobbyProtocolError(f"a {type_!r} message has the fields {sorted(keys | {'type'})}")


def _key(value: object, what: str) -> bytes:
    if type(value) is not bytes or len(value) != 32:
        raise LobbyProtocolError(f"{what} is 32 bytes", "hello")
    return value


def _port(value: object) -> int:
    if type(value) is not int or not 0 < value < 65536:
        raise LobbyProtocolError("port is 1..65535", "hello")
    return value


def _nonce(value: object) -> bytes:
    if type(value) is not bytes or len(value) != NONCE_SIZE:
        raise LobbyProtocolError(f"a nonce is {NONCE_SIZE} bytes", "protocol")
    return value


# ---------------------------------------------------------------------- greeting
def make_greeting(nonce: bytes) -> bytes:
    """The listener's first frame on every connection: its protocol and a fresh nonce."""
    return pack({"type": "greeting", "proto": PROTO, "nonce": nonce})


def parse_greeting(obj: Mapping[str, object]) -> bytes:
    """The listener's nonce from its ``greeting``; the code is ``version`` for another protocol."""
    if obj.get("type") != "greeting":
        raise LobbyProtocolError(f"expected the listener's greeting, got a {obj.get('type')!r} "
                                 f"(it may run another version of p2pcards)", "version")
    if obj.get("proto") != PROTO:
        raise LobbyProtocolError(f"this peer speaks lobby protocol {PROTO}, the listener {obj.get('proto')!r}",
                                 "version")
    expect_fields(obj, "greeting", {"proto", "nonce"})
    return _nonce(obj["nonce"])


# ---------------------------------------------------------------------- hello
@dataclass(frozen=True, slots=True)
class Hello:
    """A joiner's introduction: who it is and where the other peers can reach it."""

    name: str
    signing: bytes
    sealing: bytes
    port: int
    games: Mapping[str, str]
    bot: str | None


def make_hello(me: Identity, nonce: bytes, port: int, games: Mapping[str, str], bot: str | None,
               name: str | None = None) -> bytes:
    """The joiner's ``hello``, signed with its signing key over the host's fresh ``nonce``
    (proof that it holds the key, now: a recorded hello answers no other greeting)."""
    body: dict[str, object] = {
        "type": "hello", "proto": PROTO, "nonce": nonce, "name": (name or me.name)[:MAX_NAME] or "player",
        "signing": me.signing_public, "sealing": me.sealing_public, "port": port,
        "games": dict(games), "bot": bot,
    }
    body["sig"] = me.sign(_HELLO_DOMAIN + pack(body))
    return pack(body)


def parse_hello(obj: Mapping[str, object], nonce: bytes) -> Hello:
    """Check a ``hello`` answering the greeting of ``nonce``; the error's ``code`` is
    ``version`` for another protocol version, ``hello`` for anything else wrong."""
    if obj.get("type") != "hello":
        raise LobbyProtocolError(f"expected a 'hello', got {obj.get('type')!r}", "hello")
    if obj.get("proto") != PROTO:
        raise LobbyProtocolError(
            f"this host speaks lobby protocol {PROTO}, the peer {obj.get('proto')!r}", "version")
    keys = {"type", "proto", "nonce", "name", "signing", "sealing", "port", "games", "bot", "sig"}
    if set(obj) != keys:
        raise LobbyProtocolError(f"a hello has the fields {sorted(keys)}", "hello")
    if obj["nonce"] != nonce:
        raise LobbyProtocolError("the hello does not answer this connection's greeting (a replayed hello?)",
                                 "hello")
    name = obj["name"]
    if type(name) is not str or not 0 < len(name) <= MAX_NAME or not name.isprintable():
        raise LobbyProtocolError(f"a name is 1..{MAX_NAME} printable characters", "hello")
    signing, sealing = _key(obj["signing"], "signing"), _key(obj["sealing"], "sealing")
    port = _port(obj["port"])
    games = obj["games"]
    if (not isinstance(games, dict) or len(games) > _MAX_GAMES
            or not all(type(k) is str and type(v) is str for k, v in games.items())):
        raise LobbyProtocolError("games maps game names to rules versions", "hello")
    bot = obj["bot"]
    if bot is not None and (type(bot) is not str or not 0 < len(bot) <= _MAX_TEXT):
        raise LobbyProtocolError("bot is a short string or null", "hello")
    sig = obj["sig"]
    unsigned = {k: v for k, v in obj.items() if k != "sig"}
    if type(sig) is not bytes or not verify(signing, sig, _HELLO_DOMAIN + pack(unsigned)):
        raise LobbyProtocolError("the hello is not signed by the key it announces", "hello")
    return Hello(name, signing, sealing, port, games, bot)


# ---------------------------------------------------------------------- seated / refused
@dataclass(frozen=True, slots=True)
class Seated:
    """The host's answer: this joiner holds ``seat`` at the described table."""

    seat: int
    game: str
    rules_version: str
    options: Options
    seats: int
    deals: int | None
    timeout: float
    host_name: str
    host_signing: bytes


def make_seated(s: Seated) -> bytes:
    return pack({
        "type": "seated", "seat": s.seat,
        "table": {"game": s.game, "rules_version": s.rules_version, "options": dict(s.options),
                  "seats": s.seats, "deals": s.deals, "timeout": s.timeout,
                  "host": {"name": s.host_name, "signing": s.host_signing}},
    })


def make_refused(code: str, reason: str) -> bytes:
    return pack({"type": "refused", "code": code, "reason": reason})


def parse_seated_or_refused(obj: Mapping[str, object]) -> Seated | tuple[str, str]:
    """A ``seated`` message, or ``(code, reason)`` of a ``refused`` one."""
    if obj.get("type") == "refused":
        expect_fields(obj, "refused", {"code", "reason"})
        code, reason = obj["code"], obj["reason"]
        if type(code) is not str or type(reason) is not str:
            raise LobbyProtocolError("a refusal has a string code and reason")
        return code[:_MAX_TEXT], reason[:400]
    expect_fields(obj, "seated", {"seat", "table"})
    t = obj["table"]
    keys = {"game", "rules_version", "options", "seats", "deals", "timeout", "host"}
    if not isinstance(t, dict) or set(t) != keys:
        raise LobbyProtocolError(f"a seated table has the fields {sorted(keys)}")
    host = t["host"]
    if not isinstance(host, dict) or set(host) != {"name", "signing"} or type(host["name"]) is not str:
        raise LobbyProtocolError("a seated table names its host {name, signing}")
    seat, seats = obj["seat"], t["seats"]
    if type(seats) is not int or not 2 <= seats <= 4 or type(seat) is not int or not 0 <= seat < seats:
        raise LobbyProtocolError("bad seat or number of seats")
    if type(t["game"]) is not str or type(t["rules_version"]) is not str or not isinstance(t["options"], dict):
        raise LobbyProtocolError("bad game, rules version or options")
    if t["deals"] is not None and type(t["deals"]) is not int:
        raise LobbyProtocolError("deals is an integer or null")
    if type(t["timeout"]) not in (int, float):
        raise LobbyProtocolError("timeout is a number")
    return Seated(seat, t["game"], t["rules_version"], t["options"], seats, t["deals"], float(t["timeout"]),
                  host["name"], _key(host["signing"], "host signing key"))


# ---------------------------------------------------------------------- start
@dataclass(frozen=True, slots=True)
class Process:
    """One process of the mesh: its seats and where to dial it (None: the host, via the lobby link)."""

    seats: tuple[int, ...]
    addr: str | None
    port: int | None


@dataclass(frozen=True, slots=True)
class Start:
    """The signed genesis and the directory of processes."""

    genesis: bytes
    processes: tuple[Process, ...]


def make_start(genesis: bytes, processes: Sequence[Process]) -> bytes:
    return pack({"type": "start", "genesis": genesis,
                 "processes": [{"seats": list(p.seats), "addr": p.addr, "port": p.port} for p in processes]})


def parse_start(obj: Mapping[str, object], seats: int) -> Start:
    """Check a ``start``: every seat appears in exactly one process; only the host has no address."""
    expect_fields(obj, "start", {"genesis", "processes"})
    raw, procs = obj["genesis"], obj["processes"]
    if type(raw) is not bytes or not isinstance(procs, list) or not 0 < len(procs) <= seats:
        raise LobbyProtocolError("a start carries the genesis bytes and a list of processes")
    out: list[Process] = []
    seen: list[int] = []
    for p in procs:
        if not isinstance(p, dict) or set(p) != {"seats", "addr", "port"}:
            raise LobbyProtocolError("a process is {seats, addr, port}")
        ps = p["seats"]
        if not isinstance(ps, list) or not ps or not all(type(s) is int and 0 <= s < seats for s in ps):
            raise LobbyProtocolError("a process lists its seats")
        if p["addr"] is None:
            if p["port"] is not None:
                raise LobbyProtocolError("the host's process has neither address nor port")
        elif type(p["addr"]) is not str or len(p["addr"]) > 255:
            raise LobbyProtocolError("a process address is a string")
        else:
            _port(p["port"])
        seen.extend(ps)
        out.append(Process(tuple(ps), p["addr"], p["port"]))
    if sorted(seen) != list(range(seats)):
        raise LobbyProtocolError("the processes do not hold every seat exactly once")
    if sum(p.addr is None for p in out) > 1:
        raise LobbyProtocolError("only the host's process is reached through the lobby link")
    return Start(raw, tuple(out))


# ---------------------------------------------------------------------- mesh hello
#: The two sides of a mesh link, as their signatures name them.
DIALLER: Final = "dialler"
LISTENER: Final = "listener"


@dataclass(frozen=True, slots=True)
class MeshHello:
    """A process introducing itself on a mesh link: its seats, each proven by a signature
    over both sides' nonces, and its own nonce."""

    table: bytes
    seats: tuple[int, ...]
    nonce: bytes


def _mesh_bytes(role: str, table: bytes, seat: int, theirs: bytes, mine: bytes) -> bytes:
    return _MESH_DOMAIN + pack([role, table, seat, theirs, mine])


def make_mesh_hello(role: str, table: bytes, seats: Mapping[int, Identity], theirs: bytes, mine: bytes) -> bytes:
    """The ``mesh`` hello of the ``role`` side (:data:`DIALLER` or :data:`LISTENER`): each seat
    signs the other side's nonce ``theirs`` and this side's ``mine``, which it carries.  The
    listener's nonce is the one of its greeting; the dialler's is fresh for its hello."""
    order = sorted(seats)
    return pack({"type": "mesh", "proto": PROTO, "table": table, "seats": order, "nonce": mine,
                 "sigs": [seats[s].sign(_mesh_bytes(role, table, s, theirs, mine)) for s in order]})


def parse_mesh_hello(obj: Mapping[str, object], role: str, table: bytes, keys: Sequence[bytes], mine: bytes,
                     theirs: bytes | None = None) -> MeshHello:
    """Check the other side's ``mesh`` hello (it is the ``role`` side) against this table's id,
    its seat keys and this side's nonce ``mine``; ``theirs``, when known (the listener's
    greeting, for a dialler), is the nonce it must carry."""
    if obj.get("type") == "mesh" and obj.get("proto") != PROTO:
        raise LobbyProtocolError(f"mesh protocol {obj.get('proto')!r} is not {PROTO}", "version")
    expect_fields(obj, "mesh", {"proto", "table", "seats", "nonce", "sigs"})
    if obj["table"] != table:
        raise LobbyProtocolError("a mesh hello for another table", "table")
    nonce = _nonce(obj["nonce"])
    if theirs is not None and nonce != theirs:
        raise LobbyProtocolError("the mesh hello does not carry the nonce of the listener's greeting", "signature")
    seats, sigs = obj["seats"], obj["sigs"]
    if (not isinstance(seats, list) or not isinstance(sigs, list) or not seats or len(seats) != len(sigs)
            or not all(type(s) is int and 0 <= s < len(keys) for s in seats) or len(set(seats)) != len(seats)):
        raise LobbyProtocolError("a mesh hello lists seats and one signature per seat")
    for s, sig in zip(seats, sigs):
        if type(sig) is not bytes or not verify(keys[s], sig, _mesh_bytes(role, table, s, mine, nonce)):
            raise LobbyProtocolError(f"the mesh hello is not signed by seat {s} over this connection's nonces",
                                     "signature")
    return MeshHello(table, tuple(sorted(seats)), nonce)


# ---------------------------------------------------------------------- rejoin
#: Domain of the signatures of a reconnection, and the role of each side in them.
_REJOIN_DOMAIN: Final = b"p2pcards/rejoin/v2\x00"


def _rejoin_bytes(role: str, table: bytes, seat: int, dialler_nonce: bytes, listener_nonce: bytes) -> bytes:
    return _REJOIN_DOMAIN + pack([role, table, seat, dialler_nonce, listener_nonce])


@dataclass(frozen=True, slots=True)
class Rejoin:
    """A process reconnecting to a table in play: its seats and a fresh nonce."""

    table: bytes
    seats: tuple[int, ...]
    nonce: bytes


@dataclass(frozen=True, slots=True)
class Challenge:
    """The listener's answer: its own seats, proven over the dialler's nonce, and its nonce."""

    seats: tuple[int, ...]
    nonce: bytes


def _seat_list(seats: object, n_seats: int) -> tuple[int, ...]:
    if (not isinstance(seats, list) or not seats or not all(type(s) is int and 0 <= s < n_seats for s in seats)
            or len(set(seats)) != len(seats)):
        raise LobbyProtocolError("a non-empty list of distinct seats", "protocol")
    return tuple(seats)


def _seats_and_sigs(obj: Mapping[str, object], n_seats: int) -> tuple[tuple[int, ...], list[bytes]]:
    seats, sigs = _seat_list(obj["seats"], n_seats), obj["sigs"]
    if not isinstance(sigs, list) or len(seats) != len(sigs) or not all(type(sig) is bytes for sig in sigs):
        raise LobbyProtocolError("one signature (bytes) per seat", "protocol")
    return seats, sigs


def make_rejoin(table: bytes, seats: Sequence[int], nonce: bytes) -> bytes:
    """The first frame of a reconnecting process (it proves its seats after the challenge)."""
    return pack({"type": "rejoin", "proto": PROTO, "table": table, "seats": sorted(seats), "nonce": nonce})


def parse_rejoin(obj: Mapping[str, object], table: bytes, n_seats: int) -> Rejoin:
    """Check a ``rejoin``; the error's code is ``table`` for another table."""
    if obj.get("type") == "rejoin" and obj.get("proto") != PROTO:
        raise LobbyProtocolError(f"rejoin protocol {obj.get('proto')!r} is not {PROTO}", "version")
    expect_fields(obj, "rejoin", {"proto", "table", "seats", "nonce"})
    if obj["table"] != table:
        raise LobbyProtocolError("a rejoin for another table: this process plays another one", "table")
    seats = _seat_list(obj["seats"], n_seats)
    return Rejoin(table, tuple(sorted(seats)), _nonce(obj["nonce"]))


def make_challenge(table: bytes, seats: Mapping[int, Identity], dialler_nonce: bytes, listener_nonce: bytes) -> bytes:
    """The listener's answer: its seats, each signed over both nonces, and its nonce (the one
    of its greeting)."""
    order = sorted(seats)
    return pack({"type": "challenge", "nonce": listener_nonce, "seats": order,
                 "sigs": [seats[s].sign(_rejoin_bytes("listener", table, s, dialler_nonce, listener_nonce))
                          for s in order]})


def parse_challenge(obj: Mapping[str, object], table: bytes, keys: Sequence[bytes], dialler_nonce: bytes,
                    greeted: bytes) -> Challenge:
    """Check the listener's ``challenge`` against the seats' current keys and the nonce of its
    greeting ``greeted`` (the dialler's side)."""
    expect_fields(obj, "challenge", {"nonce", "seats", "sigs"})
    nonce = _nonce(obj["nonce"])
    if nonce != greeted:
        raise LobbyProtocolError("the challenge does not carry the nonce of the listener's greeting", "signature")
    seats, sigs = _seats_and_sigs(obj, len(keys))
    for s, sig in zip(seats, sigs):
        if not verify(keys[s], sig, _rejoin_bytes("listener", table, s, dialler_nonce, nonce)):
            raise LobbyProtocolError(f"the challenge is not signed by seat {s}", "signature")
    return Challenge(tuple(sorted(seats)), nonce)


def make_proof(table: bytes, seats: Mapping[int, Identity], dialler_nonce: bytes, listener_nonce: bytes) -> bytes:
    """The dialler's proof: each of its seats signs both nonces (a replay cannot answer a new
    challenge)."""
    order = sorted(seats)
    return pack({"type": "proof", "seats": order,
                 "sigs": [seats[s].sign(_rejoin_bytes("dialler", table, s, dialler_nonce, listener_nonce))
                          for s in order]})


def parse_proof(obj: Mapping[str, object], table: bytes, rejoin: Rejoin, keys: Sequence[bytes], listener_nonce: bytes,
                former: Mapping[int, Sequence[bytes]] | None = None) -> None:
    """Check the dialler's ``proof`` of the seats its ``rejoin`` named (the listener's side).

    A signature by a key the seat had before a vote gave it to a bot raises the code
    ``voted-out``; any other bad signature ``signature``.
    """
    expect_fields(obj, "proof", {"seats", "sigs"})
    seats, sigs = _seats_and_sigs(obj, len(keys))
    if tuple(sorted(seats)) != rejoin.seats:
        raise LobbyProtocolError("the proof is not for the seats of the rejoin", "protocol")
    for s, sig in zip(seats, sigs):
        data = _rejoin_bytes("dialler", table, s, rejoin.nonce, listener_nonce)
        if verify(keys[s], sig, data):
            continue
        if any(verify(old, sig, data) for old in (former or {}).get(s, ())):
            raise LobbyProtocolError(f"seat {s} was voted out of this table: a bot plays it now", "voted-out")
        raise LobbyProtocolError(f"the proof is not signed by seat {s}", "signature")
