"""The network runtime (trio): framed links, the lobby, the full mesh, and the peers' tasks;
votes against silent seats (:mod:`~p2pcards.net.node`), reconnections
(:mod:`~p2pcards.net.rejoin`) and taking a table up again after a crash
(:mod:`~p2pcards.net.resume`, files in :mod:`~p2pcards.net.store`).

Everything below :mod:`p2pcards.table` is sans-IO; this package moves its bytes.  The wire
format of the lobby and of the mesh is described in ``protocol/TRANSPORT.md``.
"""

from p2pcards.net.errors import (
    ConnectError,
    ListenError,
    LobbyTimeout,
    MeshError,
    NetError,
    PeerSilent,
    Refused,
    ResumeError,
    VotedOut,
    single_error,
)
from p2pcards.net.handshake import PROTO, SeatSpec, parse_seat_spec
from p2pcards.net.host import host_table
from p2pcards.net.join import join_table
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.memory import make_table, memory_mesh, play_in_memory
from p2pcards.net.node import LocalSeat, Node, TableRecorder, describe_table
from p2pcards.net.resume import Unfinished, resume_table, unfinished_tables
from p2pcards.net.store import TableLog, log_path

__all__ = [
    "PROTO",
    "ConnectError",
    "Link",
    "LinkClosed",
    "ListenError",
    "LobbyTimeout",
    "LocalSeat",
    "MeshError",
    "NetError",
    "Node",
    "PeerSilent",
    "Refused",
    "ResumeError",
    "Unfinished",
    "VotedOut",
    "SeatSpec",
    "TableLog",
    "TableRecorder",
    "describe_table",
    "host_table",
    "join_table",
    "log_path",
    "make_table",
    "memory_mesh",
    "parse_seat_spec",
    "play_in_memory",
    "resume_table",
    "unfinished_tables",
    "single_error",
]
