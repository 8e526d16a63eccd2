"""This process's links to the other processes of a table (protocol/TRANSPORT.md).

A :class:`Mesh` holds one :class:`~p2pcards.net.link.Link` to every other process, with its
:class:`~p2pcards.net.sender.LinkSender` (nothing waits on a slow link) and what the
refusals it causes cost it (:class:`~p2pcards.net.inbox.Refusals`).  It reads every link
(one dispatcher task per link): table messages are decoded once and handed to the node's
``deliver``, control frames (``sync``, ``synced``) to its ``control``; it queues what the
node sends, replaces the link of a process that comes back (:meth:`Mesh.adopt`) and ends
every stream after what waits on it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Final

import trio

from p2pcards.net.clocks import HEARTBEAT
from p2pcards.net.inbox import Frame, Refusals
from p2pcards.net.link import Link
from p2pcards.net.sender import LinkSender
from p2pcards.table.wire import FrameError, unpack

__all__ = ["Mesh", "LinkSink", "LINGER"]

log = logging.getLogger("p2pcards.net.mesh")

#: Longest wait, after the local replicas have finished, for the other processes to hang up.
LINGER: Final = 30.0
#: Passes through the scheduler :meth:`Mesh.flush` gives the links' tasks (trio runs the tasks
#: ready together in a random order: two passes let each one run; one more to spare).
_FLUSH_PASSES: Final = 3
#: A link that cannot take a frame for this many times the table's timeout has stopped
#: reading and is closed.  Well past the timeout, so that a process that was only stopped
#: for a while (a laptop's lid, a debugger, a swap storm) and was voted out meanwhile still
#: has its links when it wakes, to catch up and follow the table; nobody waits on a stuck
#: link meanwhile, and its queue is bounded (:mod:`~p2pcards.net.sender`).
STUCK_TIMEOUTS: Final = 4

#: ``on_link(seats, up)``: the link to the process of ``seats`` went down (``up`` False) in
#: the middle of the table, or a reconnection of that process replaced it (``up`` True).
LinkSink = Callable[[frozenset[int], bool], None]


class Mesh:
    """The links of a process whose local seats are ``mine`` (module docstring).

    ``deliver(frame)`` takes a table message from a link (it may wait: the link's reader then
    waits, and TCP pushes back on the sender); ``control(link, seats, obj)`` a control frame
    from a process with seats; ``over()`` says whether the process's tables have all ended
    (a link lost then is no news); ``on_link`` hears of links lost and replaced.
    """

    def __init__(self, timeout: float, mine: frozenset[int], *,
                 deliver: Callable[[Frame], Awaitable[None]],
                 control: Callable[[Link, frozenset[int], dict[str, object]], None],
                 over: Callable[[], bool], on_link: LinkSink | None = None) -> None:
        self.timeout = timeout
        self.mine = mine
        self._deliver = deliver
        self._control = control
        self._over = over
        self._on_link = on_link
        self.links: list[tuple[Link, frozenset[int]]] = []
        self.senders: dict[Link, LinkSender] = {}
        self.refusals: dict[Link, Refusals] = {}
        #: links to a voted-out seat's process that said it holds all of the table (:meth:`caught_up`)
        self.caught: set[Link] = set()
        self._nursery: trio.Nursery | None = None

    # ------------------------------------------------------------------ links
    def attach(self, link: Link, seats: frozenset[int]) -> None:
        self.links.append((link, seats))

    def seats_of(self, link: Link) -> frozenset[int]:
        """The seats of the process at the other end of ``link`` (none once it was replaced)."""
        return next((s for lk, s in self.links if lk is link), frozenset())

    @property
    def linked(self) -> bool:
        """Whether a link to another process with seats is up."""
        return any(seats and link.reason is None for link, seats in self.links)

    async def start(self, nursery: trio.Nursery) -> None:
        """Start every link's reader (if it does not run yet), sender and dispatcher."""
        self._nursery = nursery
        for link, seats in list(self.links):
            if not link.running:
                await nursery.start(link.run)
            self._start(link, seats)

    def stop(self) -> None:
        self._nursery = None

    def _start(self, link: Link, seats: frozenset[int]) -> None:
        assert self._nursery is not None
        sender = self.senders[link] = LinkSender(link, STUCK_TIMEOUTS * self.timeout)
        self._nursery.start_soon(sender.run)
        self._nursery.start_soon(self._dispatch, link, seats)

    def may_adopt(self, link: Link, seats: frozenset[int]) -> bool:
        """Whether :meth:`adopt` would take ``link`` (it does not lose to a link up already)."""
        if seats & self.mine:
            return False
        for lk, s in self.links:
            if s & seats and lk.rejoined and lk.reason is None and self._wins(lk, s) and not self._wins(link, seats):
                return False
        return True

    def adopt(self, link: Link, seats: frozenset[int]) -> bool:
        """A reconnection of the process that runs ``seats`` (already verified): it replaces
        that process's old link.  Returns False when the new link loses to one that is up
        already (two processes that came back dialled each other: the one dialled by the
        process whose lowest seat is higher is kept, on both sides)."""
        if not self.may_adopt(link, seats):
            return False
        old = [lk for lk, s in self.links if s & seats]
        self.links = [(lk, s) for lk, s in self.links if not (s & seats)] + [(link, seats)]
        link.rejoined = True
        if self._nursery is not None:  # (before the run, the run starts it)
            for lk in old:
                self._nursery.start_soon(lk.aclose, "replaced by a new connection")
            self._start(link, seats)
            log.info("seat(s) %s: link replaced by a new connection (%s)", sorted(seats), link.name)
            self._tell_link(seats, True)
        return True

    def _wins(self, link: Link, seats: frozenset[int]) -> bool:
        """Whether ``link`` was dialled by the process whose lowest seat is higher."""
        mine = min(self.mine)
        return (link.dialled and mine > min(seats)) or (not link.dialled and min(seats) > mine)

    def _tell_link(self, seats: frozenset[int], up: bool) -> None:
        if self._on_link is None or not seats:
            return
        try:
            self._on_link(seats, up)
        except Exception:  # noqa: BLE001 -- a failing observer must not break the node
            log.exception("the link observer failed")

    # ------------------------------------------------------------------ sending
    def send(self, link: Link, payload: bytes) -> None:
        """Queue ``payload`` on ``link`` (nothing if it has no sender, or is closed)."""
        sender = self.senders.get(link)
        if sender is not None:
            sender.put(payload)

    def send_all(self, payload: bytes, links: list[tuple[Link, frozenset[int]]] | None = None) -> None:
        """Queue ``payload`` on every link (or ``links``) to a process with seats."""
        for link, seats in list(self.links if links is None else links):
            if seats:
                self.send(link, payload)

    async def flush(self) -> None:
        """Let every link's task begin writing what is queued before the caller goes on (its
        next step may be a long check of a proof, and a frame should not wait for that).  A
        task already writing is not waited for, so a link that has stopped reading holds up
        nobody; bounded: a few passes through the scheduler at most."""
        for _ in range(_FLUSH_PASSES):
            if not any(sender.waiting for sender in self.senders.values()):
                return
            await trio.lowlevel.checkpoint()

    def end(self, link: Link) -> None:
        """Queue the end of ``link``'s stream after what waits on it."""
        sender = self.senders.get(link)
        if sender is not None:
            sender.put_eof()

    def caught_up(self, link: Link) -> None:
        """The process of a seat voted out, at the other end of ``link``, asked for what
        follows all that this process holds (it asks so at its own end): its hanging up
        counts as that of a process that learned the outcome (:meth:`hang_up`)."""
        self.caught.add(link)

    async def hang_up(self, missing: set[int], answered: set[object], linger: float) -> None:
        """End every link's stream after what waits on it, then wait (bounded) until the
        processes with seats hang up too.  When one of ``missing`` is gone (its link broke,
        or its seat was voted out), linger up to ``linger`` seconds so that it can come back,
        sync and learn the outcome; a process that came back and whose last sync answer did
        not reach the end yet (not in ``answered``) gets the end once it has hung up.

        A missing process counts as having learned the outcome when it hangs up on a
        reconnection, or on a link on which it said it had caught up (:meth:`caught_up`).
        Its hanging up otherwise says nothing: a process killed closes its end cleanly too."""
        held = set()
        for link, seats in list(self.links):
            if link.reason is None and not link.clean_eof and seats & missing and link not in answered:
                # back (or never gone: a dummy's process following the table, which may
                # still ask for what it missed while it was away) and not known to hold it all
                held.add(link)
            else:
                self.end(link)
        if missing and linger > 0:
            log.info("seat(s) %s missing: waiting up to %g s for them to come back and learn the outcome",
                     sorted(missing), linger)

        def done() -> bool:
            for link, seats in self.links:
                if not seats:
                    continue
                if seats & missing and not (link.clean_eof and (link.rejoined or link in self.caught)):
                    return False  # not back yet, or back and still catching up
                if not link.clean_eof and link.reason is None:
                    return False  # still playing its last moves
            return True

        with trio.move_on_after(linger if missing else min(self.timeout, LINGER)):
            while not done():
                await trio.sleep(HEARTBEAT)  # (a link adopted meanwhile gets the end after its sync)
                for link in [lk for lk in held if lk.clean_eof]:  # it hung up first: it had it all
                    held.discard(link)
                    self.end(link)
        await self.drain()  # what is queued leaves before the links close

    async def drain(self) -> None:
        """End every stream after what waits on it, and wait (up to the timeout) until
        what is queued has left."""
        with trio.move_on_after(self.timeout):
            for link, _ in list(self.links):
                self.end(link)
                sender = self.senders.get(link)
                if sender is not None and not sender.finished:
                    await sender.done.wait()

    async def close(self) -> None:
        with trio.CancelScope(shield=True):
            for link, _ in self.links:
                await link.aclose("the table is over")

    # ------------------------------------------------------------------ receiving
    def allows(self, link: Link | None) -> bool:
        """Whether ``link`` may still be heard (its refusals are within their rate)."""
        refusals = self.refusals.get(link) if link is not None else None
        if refusals is not None and not refusals.allows(trio.current_time()):
            refusals.dropped += 1
            return False
        return True

    def refused(self, link: Link) -> None:
        """A message from ``link`` was refused: it costs the link."""
        self.refusals.setdefault(link, Refusals(trio.current_time())).take(trio.current_time())

    async def _dispatch(self, link: Link, seats: frozenset[int]) -> None:
        """Hand every table message from ``link`` (decoded once) to the node; control
        frames from processes with seats to its ``control``."""
        refusals = self.refusals.setdefault(link, Refusals(trio.current_time()))
        async for raw in link:
            if not refusals.allows(trio.current_time()):
                refusals.dropped += 1
                if refusals.dropped in (1, 100, 10_000):
                    log.warning("link %s: too many refused messages; dropping what it sends (%d so far)",
                                link.name, refusals.dropped)
                continue
            try:
                obj = unpack(raw)
            except FrameError:
                log.warning("link %s: garbage frame (not msgpack); closing the link", link.name)
                await link.aclose("sent garbage")
                break
            if isinstance(obj, dict) and "type" in obj:
                current = self.seats_of(link)
                if current:
                    self._control(link, current, obj)
                continue
            await self._deliver(Frame.of(raw, obj, link))
        if seats and not self._over():
            names = ", ".join(f"seat {s}" for s in sorted(seats))
            # a clean hang-up is what a process does when its tables are over
            level = logging.INFO if link.clean_eof else logging.WARNING
            log.log(level, "link to %s closed before this process's tables ended: %s", names, link.reason)
            current = self.seats_of(link)
            if current and self._nursery is not None:  # still this process's link to them: they are gone
                self._tell_link(current, False)
