"""Reconnecting to a table in play: a process proves its seats over fresh nonces.

A process that comes back after a crash dials every other process (the host's lobby port,
the joiners' mesh listeners), which keep listening for the whole table.  The exchange
(``protocol/TRANSPORT.md``, "Reconnecting"):

0. listener -> ``greeting`` {nonce_l} (as on every connection to a listener)
1. dialler -> ``rejoin`` {table, seats, nonce_d}
2. listener -> ``challenge`` {nonce_l again, its seats, each seat's signature over both
   nonces} (or ``refused``)
3. dialler -> ``proof`` {its seats' signatures over both nonces}
4. listener -> ``welcome`` {seq}, or ``refused`` (code ``voted-out`` when the proof is by a
   key a vote took from the seat)

Every signature covers both fresh nonces and says which side made it, so a recorded
exchange cannot be replayed to take a link; keys are the seats' current ones (a bot's for a
seat voted out).  The listener's :meth:`~p2pcards.net.node.Node.adopt_link` then replaces
the seats' dead link and both sides ask for what they missed.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping
from typing import Final

import trio

from p2pcards.net.errors import ConnectError, MeshError, Refused, VotedOut
from p2pcards.net.handshake import (
    NONCE_SIZE,
    LobbyProtocolError,
    make_challenge,
    make_proof,
    make_refused,
    make_rejoin,
    parse_challenge,
    parse_greeting,
    parse_proof,
    parse_rejoin,
    parse_seated_or_refused,
)
from p2pcards.net.link import Link, LinkClosed, receive_control
from p2pcards.net.node import Node
from p2pcards.table.wire import pack

__all__ = ["answer_rejoin", "dial_rejoin", "REJOIN_TIMEOUT"]

log = logging.getLogger("p2pcards.net.rejoin")

#: Seconds each side has to answer in the exchange.
REJOIN_TIMEOUT: Final = 10.0
_RETRY: Final = 0.2


def _welcome(seq: int) -> bytes:
    return pack({"type": "welcome", "seq": seq})


async def _receive(link: Link, what: str) -> dict[str, object]:
    return await receive_control(link, what, REJOIN_TIMEOUT)


async def answer_rejoin(node: Node | None, link: Link, obj: Mapping[str, object], nonce: bytes) -> bool:
    """The listener's side, ``obj`` being the ``rejoin`` already read from ``link``, whose
    greeting carried ``nonce``.

    On success the link is the node's (True); otherwise the dialler was told why
    (``refused``) and the caller closes the link.  Never raises for what the remote side sends;
    the whole exchange is bounded (twice :data:`REJOIN_TIMEOUT`).
    """
    with trio.move_on_after(2 * REJOIN_TIMEOUT):
        return await _answer(node, link, obj, nonce)
    log.info("%s: reconnection took too long; abandoned", link.name)
    return False


async def _answer(node: Node | None, link: Link, obj: Mapping[str, object], nonce: bytes) -> bool:
    try:
        if node is None:
            raise LobbyProtocolError("the table has not started here", "table")
        rejoin = parse_rejoin(obj, node.table_id, len(node.genesis.seats))
        mine = node.local_identities()
        if not mine:
            raise LobbyProtocolError("this process holds no seat any more", "seats")
        if set(rejoin.seats) & set(mine):
            raise LobbyProtocolError(f"seat(s) {sorted(set(rejoin.seats) & set(mine))} are this process's own",
                                     "seats")
        await link.send(make_challenge(node.table_id, mine, rejoin.nonce, nonce))
        proof = await _receive(link, "a proof")
        parse_proof(proof, node.table_id, rejoin, list(node.keys), nonce, {})  # (a vote hands no seat a new key)
        if not node.may_adopt(link, frozenset(rejoin.seats)):
            raise LobbyProtocolError("a newer link with those seats is up", "duplicate")
        link.raise_limit()  # proven: after the welcome the dialler may send whole sync batches at once
        await link.send(_welcome(node.seq))
    except LobbyProtocolError as exc:
        log.warning("%s: reconnection refused (%s): %s", link.name, exc.code, exc.reason)
        try:
            await link.send(make_refused(exc.code, exc.reason))
            await link.send_eof()
        except LinkClosed:
            pass
        return False
    except (LinkClosed, ConnectError) as exc:
        log.info("%s: reconnection abandoned: %s", link.name, exc)
        return False
    link.name = f"seat {'+'.join(map(str, rejoin.seats))} ({link.name})"
    if not node.adopt_link(link, frozenset(rejoin.seats)):
        return False
    log.info("seat(s) %s reconnected from %s", list(rejoin.seats), link.name)
    return True


async def dial_rejoin(node: Node, addr: str, port: int, *, deadline: float, nursery: trio.Nursery) -> Link:
    """Dial the process at ``addr:port`` (retrying until the trio time ``deadline``), prove
    this node's seats and give the link to the node.

    Raises :class:`VotedOut` when the listener says this process's seat was voted out,
    :class:`Refused` for another refusal, :class:`ConnectError` or :class:`MeshError`.
    """
    while True:
        try:
            with trio.fail_after(max(0.1, min(REJOIN_TIMEOUT, deadline - trio.current_time()))):
                stream = await trio.open_tcp_stream(addr, port)
            break
        except (OSError, trio.TooSlowError) as exc:
            if trio.current_time() + _RETRY >= deadline:
                why = "timed out" if isinstance(exc, trio.TooSlowError) else (getattr(exc, "strerror", None) or exc)
                raise ConnectError(f"cannot reach {addr}:{port}: {why}") from None
            await trio.sleep(_RETRY)
    link = Link(stream, f"{addr}:{port}")
    await nursery.start(link.run)
    mine = node.local_identities()
    nonce = os.urandom(NONCE_SIZE)
    try:
        greeted = parse_greeting(await _receive(link, "a greeting"))
        await link.send(make_rejoin(node.table_id, sorted(mine), nonce))
        obj = await _receive(link, "a challenge")
        if obj.get("type") == "refused":
            raise Refused(*_refusal(obj))
        challenge = parse_challenge(obj, node.table_id, list(node.keys), nonce, greeted)
        if set(challenge.seats) & set(mine):
            raise MeshError(f"{addr}:{port} claims seat(s) {sorted(set(challenge.seats) & set(mine))} of this process")
        await link.send(make_proof(node.table_id, mine, nonce, challenge.nonce))
        answer = await _receive(link, "a welcome")
        if answer.get("type") == "refused":
            raise Refused(*_refusal(answer))
        if answer.get("type") != "welcome":
            raise MeshError(f"{addr}:{port} answered the proof with a {answer.get('type')!r}")
    except Refused as exc:
        await link.aclose(str(exc))
        if exc.code == "voted-out":
            raise VotedOut(f"the other seats voted this process's seat out while it was away: {exc.reason}") from None
        raise
    except LobbyProtocolError as exc:
        await link.aclose(exc.reason)
        raise MeshError(f"{addr}:{port} broke the reconnection protocol: {exc.reason}") from None
    except (LinkClosed, ConnectError, MeshError) as exc:
        await link.aclose(str(exc))
        if isinstance(exc, LinkClosed):
            raise ConnectError(f"{addr}:{port} closed the connection: {exc}") from None
        raise
    link.name = f"seat {'+'.join(map(str, challenge.seats))} ({addr}:{port})"
    link.dialled = True
    if not node.adopt_link(link, frozenset(challenge.seats)):
        await link.aclose("a newer link is up")
        raise MeshError(f"a link with seat(s) {list(challenge.seats)} is up already")
    log.info("reconnected to seat(s) %s at %s:%d", list(challenge.seats), addr, port)
    return link


def _refusal(obj: Mapping[str, object]) -> tuple[str, str]:
    try:
        answer = parse_seated_or_refused(obj)
    except LobbyProtocolError as exc:
        return "protocol", exc.reason
    if isinstance(answer, tuple):
        return answer
    return "protocol", "a seat offered instead of a challenge"
