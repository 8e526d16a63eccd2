"""What a process keeps on disk per table, so that it can take its seats again after a crash.

In ``DATA/tables/<table id hex>/`` (mode 0700), for each local peer, under a *stem*
(``seat<N>``):

- ``<stem>.log``: the table's transcript as this peer holds it, one frame per message from
  the genesis on, appended and fsync'd before anything it contains is sent;
- ``<stem>.side``: the peer's own votes and nays, fsync'd before they are sent (a voter
  never both votes and nays, even across a crash);
- ``<stem>.rejected``: the peer's own messages that the table did not accept (a
  certificate took their place), cut from the log and kept apart;
- ``<stem>.secret``: the peer's private 32-byte table secret (its deal seeds derive from
  it), mode 0600, written before the first message;
- ``<stem>.identity``: a bot's identity (its private keys), mode 0600 (a joiner's peer has
  the user's identity, ``DATA/identity.key``).

and for the process, ``host.mesh``, ``join.mesh`` or ``local.mesh`` (mode 0600): its
:class:`Manifest` -- the directory of processes from the lobby's ``start`` with their
addresses, this process's listener, the address it joined, its peers -- rewritten
atomically whenever it changes and, at the end, marked with how the table ended here
(:data:`ENDINGS`).  A ``local`` table (``p2pcards play`` against the computer) has every
seat in this process, each a peer of its own over in-memory streams, and no addresses.
``p2pcards resume`` reads these files; nothing here does network I/O.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final

from p2pcards.identity import Identity, IdentityError
from p2pcards.net.handshake import Process
from p2pcards.private import fsync_dir, write_private
from p2pcards.table.wire import FrameDecoder, FrameError, frame, pack, unpack

__all__ = [
    "ENDINGS",
    "FrameFile",
    "Manifest",
    "PERSON",
    "PeerEntry",
    "StoreError",
    "TableLog",
    "find_manifests",
    "older_manifests",
    "in_use",
    "load_identity",
    "load_manifest",
    "log_path",
    "manifest_path",
    "peer_stem",
    "read_log",
    "read_secret",
    "save_identity",
    "save_manifest",
    "side_path",
    "table_dir",
]

MANIFEST_VERSION: Final = 2
#: How a table ended for this process (``Manifest.ended``): played to its end, this
#: process's seat voted out (it followed the rest as an observer), abandoned by a seat,
#: or gone on without this process, which could reach nobody to learn the outcome.
ENDINGS: Final = ("finished", "voted-out", "abandoned", "unknown")
#: The ``level`` of a peer whose decisions a person makes on a screen.
PERSON: Final = "person"
ROLES: Final = ("host", "join", "local")


class StoreError(Exception):
    """A table file is missing, unreadable or not what it should be (a message for people)."""


def table_dir(data_dir: Path, table_id: bytes) -> Path:
    """The directory of one table's files."""
    return data_dir / "tables" / table_id.hex()


def peer_stem(seat: int) -> str:
    """The file stem of a local peer: ``seat<N>``."""
    return f"seat{seat}"


def side_path(log: Path, what: str) -> Path:
    """A file kept next to a peer's log: ``<stem>.side`` or ``<stem>.rejected``."""
    return log.with_suffix(f".{what}")


def log_path(data_dir: Path, table_id: bytes, seat: int, stem: str | None = None) -> Path:
    """Where seat ``seat``'s transcript of table ``table_id`` is kept (``stem``: another peer's)."""
    return table_dir(data_dir, table_id) / f"{stem or peer_stem(seat)}.log"


def _read_private(path: Path, what: str) -> bytes:
    try:
        mode = path.stat().st_mode & 0o777
        if mode & 0o077:
            raise StoreError(f"{path} is readable by others (mode {mode:o}); run: chmod 600 {path}")
        return path.read_bytes()
    except FileNotFoundError:
        raise StoreError(f"{what} is missing: {path}") from None
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None


def read_secret(path: Path) -> bytes:
    """A peer's table secret (32 bytes, owner-only)."""
    data = _read_private(path, "the peer's table secret")
    if len(data) != 32:
        raise StoreError(f"{path} is not a 32-byte table secret")
    return data


def save_identity(path: Path, ident: Identity) -> None:
    """Keep a bot's identity (its private keys), owner-only."""
    write_private(path, ident.to_bytes())


def load_identity(path: Path) -> Identity:
    try:
        return Identity.from_bytes(_read_private(path, "the bot's identity"))
    except IdentityError as exc:
        raise StoreError(f"{path}: {exc}") from None


def read_log(path: Path) -> tuple[list[bytes], int]:
    """The messages of a log file and the number of bytes at its end that do not make a
    whole frame (a write cut short by a crash: those were never sent)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise StoreError(f"the transcript is missing: {path}") from None
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    decoder = FrameDecoder()
    try:
        messages = decoder.feed(data)
    except FrameError as exc:
        raise StoreError(f"{path} is not a transcript log: {exc}") from None
    if not messages:
        raise StoreError(f"{path} holds no message")
    return messages, decoder.pending


def _lock(fd: int, path: Path) -> None:
    """Take the log's lock (held while a process plays the seat; the kernel drops it when
    the process dies), or raise StoreError if another process holds it."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise StoreError(f"{path} is in use: another process is playing this seat right now") from None


def in_use(path: Path) -> bool:
    """Whether a running process holds the lock of the log at ``path``."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


class TableLog:
    """An append-only file of frames (one per transcript message), fsync'd on every append.

    The process that writes a log holds an exclusive lock on it (``flock``), so that a
    second process cannot take the same seat while the first still plays it.

    A new log also writes the peer's private table secret next to it (``<stem>.secret``,
    mode 0600; ``secret`` None: it is there already): with the log it is all a peer needs
    to take up its seat again.
    :meth:`reopen` continues an existing log after a crash.
    """

    def __init__(self, data_dir: Path, table_id: bytes, seat: int, secret: bytes | None,
                 stem: str | None = None) -> None:
        directory = table_dir(data_dir, table_id)
        directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        stem = stem or peer_stem(seat)
        self.path = directory / f"{stem}.log"
        if secret is not None:
            fd = os.open(directory / f"{stem}.secret", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, secret)
                os.fsync(fd)
            finally:
                os.close(fd)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        _lock(self._fd, self.path)
        fsync_dir(directory)
        self._sizes: list[int] = []

    @classmethod
    def reopen(cls, path: Path, messages: Sequence[bytes]) -> TableLog:
        """Continue the log at ``path``, which holds ``messages`` (as :func:`read_log` read
        them) and perhaps the start of a frame cut short, which is cut off."""
        self = cls.__new__(cls)
        self.path = path
        self._sizes = [4 + len(m) for m in messages]
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        _lock(self._fd, path)
        os.ftruncate(self._fd, sum(self._sizes))
        os.fsync(self._fd)
        return self

    @property
    def count(self) -> int:
        """Messages in the file."""
        return len(self._sizes)

    def append(self, messages: Sequence[bytes]) -> None:
        """Append ``messages`` as frames and fsync (blocking)."""
        data = b"".join(frame(m) for m in messages)
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        os.fsync(self._fd)
        self._sizes.extend(4 + len(m) for m in messages)

    def truncate(self, count: int) -> None:
        """Keep the first ``count`` messages only, fsync'd (the replica went back: a late
        message of a seat voted out was superseded by the vote)."""
        if count < len(self._sizes):
            del self._sizes[count:]
            os.ftruncate(self._fd, sum(self._sizes))
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class FrameFile:
    """An append-only file of frames next to a log (``.side``, ``.rejected``), created on
    first append, fsync'd on every append; owner-only."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd = -1

    def append(self, messages: Sequence[bytes]) -> None:
        if self._fd < 0:
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        data = memoryview(b"".join(frame(m) for m in messages))
        while data:
            data = data[os.write(self._fd, data):]
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    @staticmethod
    def read(path: Path) -> list[bytes]:
        """The whole frames of ``path`` (none if it is missing; a torn last frame is dropped)."""
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as exc:
            raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
        try:
            return FrameDecoder().feed(data)
        except FrameError as exc:
            raise StoreError(f"{path} is not a file of messages: {exc}") from None


# ---------------------------------------------------------------------- manifest
@dataclass(frozen=True)
class PeerEntry:
    """A local peer of the process: its seat, file stem, identity source and player level.

    ``identity`` is ``"user"`` (the user's identity) or ``"file"`` (``<stem>.identity``);
    ``level`` is a bot level, or :data:`PERSON` for a seat a person plays on a screen.
    """

    seat: int
    stem: str
    identity: str
    level: str


@dataclass(frozen=True)
class Manifest:
    """What a process needs to take its seats again (module docstring).

    ``user`` is the fingerprint of the identity the process ran under (the host's, which
    signed the genesis, or the joining player's); ``listen`` this process's listener
    (host: the lobby; join: its mesh listener); ``dial`` the host address a joiner joined;
    ``name`` the table's name on the LAN when it was joined by name (so that joining by that
    name again takes the seat up again; absent in manifests of earlier releases).
    """

    role: str
    table: bytes
    user: str
    game: str
    processes: tuple[Process, ...]
    peers: tuple[PeerEntry, ...]
    listen: tuple[str, int] | None = None
    dial: tuple[str, int] | None = None
    finished: bool = False
    #: how the table ended here (one of :data:`ENDINGS`), once it did
    ended: str | None = None
    name: str | None = None
    #: the pace a table against the computer was started at (seconds a computer decision;
    #: ``resume`` takes it up at that pace; absent in manifests of earlier releases)
    speed: float | None = None

    @property
    def table_hex(self) -> str:
        return self.table.hex()

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted(p.seat for p in self.peers))

    def with_peers(self, peers: Sequence[PeerEntry]) -> Manifest:
        return replace(self, peers=tuple(peers))

    def to_bytes(self) -> bytes:
        return pack({
            "v": MANIFEST_VERSION, "role": self.role, "table": self.table, "user": self.user, "game": self.game,
            "processes": [{"seats": list(p.seats), "addr": p.addr, "port": p.port} for p in self.processes],
            "peers": [{"seat": p.seat, "stem": p.stem, "identity": p.identity, "level": p.level} for p in self.peers],
            "listen": list(self.listen) if self.listen else None, "dial": list(self.dial) if self.dial else None,
            "finished": self.finished, "ended": self.ended, "name": self.name, "speed": self.speed,
        })

    @classmethod
    def from_bytes(cls, data: bytes) -> Manifest:
        try:
            obj = unpack(data)
            if obj["v"] != MANIFEST_VERSION:
                raise ValueError(f"manifest version {obj['v']!r} (of another version of p2pcards)")
            if obj["role"] not in ROLES or obj["ended"] not in (None, *ENDINGS):
                raise ValueError("unknown role or ending")
            procs = tuple(Process(tuple(int(s) for s in p["seats"]), p["addr"], p["port"]) for p in obj["processes"])
            peers = tuple(PeerEntry(int(p["seat"]), str(p["stem"]), str(p["identity"]), str(p["level"]))
                          for p in obj["peers"])
            if any(p.identity not in ("user", "file") or "/" in p.stem for p in peers) or not peers:
                raise ValueError("bad peer entry")
            listen = (str(obj["listen"][0]), int(obj["listen"][1])) if obj["listen"] else None
            dial = (str(obj["dial"][0]), int(obj["dial"][1])) if obj["dial"] else None
            table = obj["table"]
            if type(table) is not bytes or len(table) != 32:
                raise ValueError("bad table id")
            name = obj.get("name")
            if name is not None and type(name) is not str:
                raise ValueError("bad table name")
            speed = obj.get("speed")
            if speed is not None and (type(speed) not in (int, float) or not 0 <= speed <= 10):
                raise ValueError("bad pace")
            return cls(obj["role"], table, str(obj["user"]), str(obj["game"]), procs, peers, listen, dial,
                       bool(obj["finished"]), obj["ended"], name, None if speed is None else float(speed))
        except (FrameError, KeyError, TypeError, ValueError, IndexError) as exc:
            raise StoreError(f"not a table manifest: {exc}") from None


def manifest_path(data_dir: Path, table_id: bytes, role: str) -> Path:
    return table_dir(data_dir, table_id) / f"{role}.mesh"


def save_manifest(data_dir: Path, manifest: Manifest) -> Path:
    path = manifest_path(data_dir, manifest.table, manifest.role)
    write_private(path, manifest.to_bytes())
    return path


def load_manifest(path: Path) -> Manifest:
    try:
        return Manifest.from_bytes(_read_private(path, "the table manifest"))
    except StoreError as exc:
        raise StoreError(f"{path}: {exc}") from None


def _manifest_files(data_dir: Path) -> list[Path]:
    """The manifest files under ``DATA/tables``, by table directory and role."""
    root = data_dir / "tables"
    if not root.is_dir():
        return []
    return [path for directory in sorted(root.iterdir()) for role in ROLES
            if (path := directory / f"{role}.mesh").is_file()]


def find_manifests(data_dir: Path) -> list[tuple[Path, Manifest]]:
    """Every readable manifest under ``DATA/tables`` (unreadable ones are skipped)."""
    out: list[tuple[Path, Manifest]] = []
    for path in _manifest_files(data_dir):
        try:
            out.append((path, load_manifest(path)))
        except StoreError:
            continue
    return out


def older_manifests(data_dir: Path) -> list[Path]:
    """Manifests under ``DATA/tables`` written by an older p2pcards (an earlier table
    protocol): this version cannot resume those tables; their files are left as they are."""
    out: list[Path] = []
    for path in _manifest_files(data_dir):
        try:
            obj = unpack(path.read_bytes())
        except (OSError, FrameError):
            continue
        if isinstance(obj, dict) and type(obj.get("v")) is int and obj["v"] < MANIFEST_VERSION:
            out.append(path)
    return out
