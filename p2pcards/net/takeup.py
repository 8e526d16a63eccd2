"""Taking an abandoned table of two up again (``p2pcards resume``; ``protocol/PROTOCOL.md``,
"Two seats: abandoning"): the runtime's side.  A process that resumes such a table writes
its seat's ``takeup`` once it is linked to another process (resuming is the consent) and
waits for the other seat's; when that has not come within twice the timeout it gives up,
and the table stays abandoned, to be taken up another time."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection

from p2pcards.net.errors import ConnectError
from p2pcards.net.peer import Peer
from p2pcards.table.table import Table

__all__ = ["TakeUp"]

log = logging.getLogger("p2pcards.net.takeup")


class TakeUp:
    """Whether this process takes its abandoned table up (``on``), and since when it waits."""

    def __init__(self) -> None:
        #: True for a process that takes an abandoned table up again: its replicas of the
        #: abandoned table write their ``takeup`` once linked, and wait for the others'
        self.on = False
        self._since: float | None = None

    def waits(self, table: Table) -> bool:
        """Whether ``table`` is an abandoned table this process takes up (and it still waits)."""
        return self.on and table.abandoned is not None

    def step(self, peer: Peer, now: float, linked: bool, timeout: float, local: Collection[int],
             seat_name: Callable[[int], str]) -> bool:
        """Write ``peer``'s ``takeup`` when it is linked and may (True); :class:`ConnectError`
        once the other seats' have not come within twice ``timeout``; else False (wait)."""
        table = peer.table
        if self._since is None:
            self._since = now
        if linked and table.may_take_up():
            log.info("seat %d takes the abandoned table up again", peer.seat)
            peer.took(table.takeup())  # (written and sent at the peer's next commit)
            return True
        if now - self._since > 2 * timeout:
            waiting = ", ".join(f"{s + 1} ({seat_name(s)})" for s in sorted(table.awaiting_takeup()) if s not in local)
            table_hex = table.table_id.hex()[:16]
            raise ConnectError(f"table {table_hex} was not taken up again: seat {waiting} did not take it up within "
                               f"{2 * timeout:g} s. It stays abandoned; `p2pcards resume {table_hex}` takes it "
                               "up when the other seat resumes it too")
        return False
