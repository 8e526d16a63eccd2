"""The terminal table (prompt-toolkit): ``p2pcards play`` and the start screen.

:mod:`~p2pcards.tui.model` is the pure view model (no terminal, no trio);
:mod:`~p2pcards.tui.layout`, :mod:`~p2pcards.tui.keys` and :mod:`~p2pcards.tui.style` draw
it and bind keys to it; :mod:`~p2pcards.tui.runtime` keeps it up to date from the table's
peers (trio); :mod:`~p2pcards.tui.app` runs both, trio as a guest of prompt-toolkit's
asyncio loop; :mod:`~p2pcards.tui.start` is the start screen.  The English and Portuguese
strings are in :mod:`p2pcards.words`.
"""

from p2pcards.tui.model import GameInfo, SeatLabel, Snapshot, TableModel, snapshot_of

__all__ = ["GameInfo", "SeatLabel", "Snapshot", "TableModel", "snapshot_of"]
