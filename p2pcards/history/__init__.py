"""Every game remembered: a transcript's deals in the arena's format, a history database of
every match a peer plays, and statistics over it, with small pictures drawn in the terminal.

* :mod:`~p2pcards.history.opened` reads a transcript log and follows it with an observer
  replica, keeping each deal the audit opened (every hand known);
* :mod:`~p2pcards.history.export` is ``p2pcards export``: those deals as ``arena --json``
  records;
* :mod:`~p2pcards.history.db` is the SQLite database under the data directory (recorded live
  from a local peer's events, or rebuilt from the transcripts) and ``p2pcards history``;
* :mod:`~p2pcards.history.stats` is ``p2pcards stats``, with its pictures from
  :mod:`~p2pcards.history.charts`.

Nothing here needs the network or a private key: a transcript is public.
"""

from __future__ import annotations

from p2pcards.words import Said

__all__ = ["HistoryError"]


class HistoryError(Said, ValueError):
    """A transcript, the history database or a command's input is not usable (a message for
    people: ``str()`` in English, :meth:`~p2pcards.words.Said.words` in any language)."""
