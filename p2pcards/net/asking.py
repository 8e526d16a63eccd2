"""Asking a seat's player that answers in its own time (a person on a screen, a computer
player thinking in a thread): what the peer's task does while the answer is awaited.

A player that ``listens`` (the person's seat on a screen, who may take a while) has what
arrives meanwhile filed as it comes: a message out of turn is refused, and the screen says
so, while the person thinks rather than once they have chosen.  Should the table move on
meanwhile (a certificate voting the person out, say), the question is withdrawn, to be
asked again as the table now stands.  Any other player gets nothing filed under it, so that
the replica its view reads stays as it was.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import trio

from p2pcards.core import Decision
from p2pcards.core.choices import Plain
from p2pcards.net.peer import AsyncPlayer, Peer

__all__ = ["ask"]


async def ask(peer: Peer, decision: Decision, receive: Callable[[Peer], Awaitable[None]],
              settle: Callable[[Peer], None]) -> list[Plain]:
    """The choice of ``peer``'s asynchronous player for ``decision``, in a list (empty:
    withdrawn).  While a listening player thinks, ``receive`` files what arrives and
    ``settle`` carries out what filing it produced (files, sends, events, the screen)."""
    table = peer.table
    view = table.view()
    assert view is not None
    player = peer.player
    if not isinstance(player, AsyncPlayer):
        raise TypeError(f"seat {peer.seat}: its player answers at once; nothing to await")
    achoose = player.achoose
    if not getattr(player, "listens", False):
        return [await achoose(view, decision)]
    head = table.head
    answer: list[Plain] = []
    async with trio.open_nursery() as nursery:

        async def wait_for_it() -> None:
            answer.append(await achoose(view, decision))
            nursery.cancel_scope.cancel()

        nursery.start_soon(wait_for_it)
        while table.head == head and table.decision() == decision and not table.finished:
            await receive(peer)
            settle(peer)
        nursery.cancel_scope.cancel()
    return answer if table.head == head and table.decision() == decision else []
