"""Errors of the network runtime: each one says, for people, what went wrong and whose it is."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import trio

__all__ = [
    "NetError",
    "ListenError",
    "ConnectError",
    "Refused",
    "LobbyTimeout",
    "MeshError",
    "PeerSilent",
    "ResumeError",
    "TableGone",
    "VotedOut",
    "single_error",
]


class NetError(Exception):
    """A failure of the network runtime; ``str()`` is a one-line message for people."""


class ListenError(NetError):
    """The listening socket cannot be opened (address in use, bad address)."""


class ConnectError(NetError):
    """The host (or another peer) cannot be reached."""


class Refused(NetError):
    """The host refused this peer a seat; ``code`` is the refusal's code (TRANSPORT.md)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"the host refused a seat ({code}): {reason}")
        self.code = code
        self.reason = reason


class LobbyTimeout(NetError):
    """The lobby did not fill (host) or the table did not start (joiner) in time."""


class MeshError(NetError):
    """The full mesh between the seated processes could not be built, or broke the protocol."""


class PeerSilent(NetError):
    """A seat whose message the table waits for stayed silent, and no vote replaced it (a
    vote needs every other seat), or no other process is linked (``alone``): the table
    cannot go on."""

    def __init__(self, seat: int, name: str, seconds: float, seq: int, local_seat: int, *,
                 alone: bool = False) -> None:
        why = ("no other process of this table is linked any more (they may have finished and hung up "
               "while this process was away, or the network is down)" if alone else
               "no vote replaced it (a vote needs every other seat, and a table of two never votes)")
        super().__init__(
            f"seat {seat} ({name}) has been silent for {seconds:g} s; the table waits for its message "
            f"seq {seq} (seen from seat {local_seat}) and {why}; `p2pcards resume` takes the table up again "
            "later, and `p2pcards resume --abandon` ends a table of two with no winner"
        )
        self.seat = seat
        #: nobody was linked: the others hung up or cannot be reached
        self.alone = alone
        self.seconds = seconds
        self.seq = seq


def leaves(exc: BaseException) -> Iterator[BaseException]:
    """Every exception inside ``exc``, exception groups flattened."""
    if isinstance(exc, BaseExceptionGroup):
        for sub in exc.exceptions:
            yield from leaves(sub)
    else:
        yield exc


@contextlib.contextmanager
def single_error() -> Iterator[None]:
    """Turn an exception group out of a nursery into its one meaningful exception.

    A :class:`NetError` wins over anything else (the rest are usually its consequences);
    otherwise a group whose leaves, Cancelled aside, are a single exception becomes that
    exception.  Anything else propagates unchanged.
    """
    try:
        yield
    except BaseExceptionGroup as group:
        found = [e for e in leaves(group) if not isinstance(e, trio.Cancelled)]
        for exc in found:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise exc from None
        for exc in found:
            if isinstance(exc, NetError):
                raise exc from None
        if len(found) == 1:
            raise found[0] from None
        raise


class ResumeError(NetError):
    """A table cannot be taken up again: its saved files are missing, unsound or tampered with."""


class VotedOut(NetError):
    """The other seats voted this process's seat out while it was silent (it is a dummy now)."""


class TableGone(NetError):
    """The table went on without this process, and nobody is left to tell it the outcome."""
