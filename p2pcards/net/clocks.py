"""The clocks that lead to votes, and the one that tells a process it was away (sans-IO:
every method is given the time).

A :class:`Clock` per local peer notes when each seat became due (the seat that must write
the next entry, or a seat whose seed the seed round waits for) and when its replica last
moved.  The node's heartbeat looks at the clocks four times a second
(:data:`HEARTBEAT`): at half the table's timeout without progress a peer asks the other
processes for what it may have missed (:meth:`Clock.wants_sync`); once a seat has been due
for the timeout, the peer votes it out if its replica allows (:meth:`Clock.silent`: a
table of at least three playing seats; the others vote from their own clocks, and the
certificate needs every one of them); a replica that has made no progress for twice the
timeout gives the table up (:meth:`Clock.stalled`), to be resumed.

**The clocks measure the other seat's silence, not this process's sleep** (:class:`Away`):
when a heartbeat comes late (the process was stopped, the machine slept, the CPU was
starved), every clock restarts and the node asks for a sync first, so a peer that was away
catches up before any timer of its own may act.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

__all__ = ["Clock", "Away", "HEARTBEAT", "GAP", "AHEAD_SYNC"]

#: Seconds between two looks at the clocks.
HEARTBEAT: Final = 0.25
#: A heartbeat later than this many seconds means this process was away (stopped, asleep).
GAP: Final = 2.0
#: After this long with entries waiting ahead of the replica and nothing fitting, ask for a sync.
AHEAD_SYNC: Final = 1.0


class Clock:
    """When each due seat became due, and when the replica last moved."""

    def __init__(self, now: float) -> None:
        self.progress = now
        self.due: dict[int, float] = {}
        self.synced = False

    def update(self, due: Iterable[int], now: float, moved: bool) -> None:
        """The replica now waits for ``due`` (``moved``: its chain moved since last time)."""
        if moved:
            self.progress = now
            self.synced = False
        self.due = {s: self.due.get(s, now) for s in due}

    def restart(self, now: float) -> None:
        """This process was away: nobody's silence can be measured across the gap."""
        self.progress = now
        self.due = {s: now for s in self.due}
        self.synced = False

    def silent(self, may_vote: Iterable[int], now: float, timeout: float) -> list[int]:
        """The seats of ``may_vote`` this clock has seen due for the timeout."""
        return [x for x in sorted(may_vote) if (since := self.due.get(x)) is not None and now - since >= timeout]

    def wants_sync(self, now: float, timeout: float) -> bool:
        """Whether the replica has been idle for half the timeout, for the first time since
        it last moved (the node then asks the others what it missed)."""
        if now - self.progress >= timeout / 2 and not self.synced:
            self.synced = True
            return True
        return False

    def stalled(self, now: float, timeout: float) -> bool:
        """Whether the replica has made no progress for twice the timeout."""
        return now - self.progress >= 2 * timeout


class Away:
    """Whether this process was away since the heartbeat's last tick.  Whoever looks at
    the time first after a gap sees it -- the heartbeat (``beat``: its tick), or a peer's
    task woken by what arrived meanwhile, which must not vote from a clock that ran while
    the process slept."""

    def __init__(self) -> None:
        #: the heartbeat's last tick (None before the first)
        self.last: float | None = None

    def start(self, now: float) -> None:
        self.last = now

    def check(self, now: float, beat: bool = False) -> float | None:
        """How long this process was away (None: it was not), as of ``now``."""
        last = self.last
        if last is None or now - last <= GAP:
            if beat:
                self.last = now
            return None
        self.last = now
        return now - last
