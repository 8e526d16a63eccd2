"""What the start screen reads from the data directory: the matches this machine knows
(``past``: from the history database, or else from the transcripts' geneses) and what
``p2pcards stats`` says (``stats``).  Plain data, read when their view opens; no terminal,
no trio.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from p2pcards.core import GameRegistry, GameSpec
from p2pcards.history import HistoryError
from p2pcards.words import Text

if TYPE_CHECKING:
    from p2pcards.table.transcript import Genesis

__all__ = ["PastEntry", "past_games", "stats_lines"]


@dataclass(frozen=True)
class PastEntry:
    """A match this machine knows: its table id (hex), game, when it started (unix
    seconds), its seats' names, how it ended (``finished``, ``abandoned``, ``voided``,
    ``unfinished``; ``unknown`` when only its transcript is here; ``unreadable`` when no
    transcript of it can be read), the names of the side that won it, its deals (None: not
    known) and the transcript a replay reads (None: not offered)."""

    table: str
    game: str
    started: int
    names: tuple[str, ...]
    ended: str
    winners: tuple[str, ...] = ()
    deals: int | None = None
    path: Path | None = None


def _genesis_of(path: Path) -> Genesis | None:
    """The :class:`~p2pcards.table.transcript.Genesis` at the head of the log at ``path``,
    reading no more than its first message; None when the file does not start with one."""
    from p2pcards.table.transcript import Genesis, TranscriptError, parse_message
    from p2pcards.table.wire import MAX_FRAME, FrameDecoder, FrameError

    decoder = FrameDecoder()
    try:
        with path.open("rb") as f:
            while True:
                chunk = f.read(64 * 1024)
                frames = decoder.feed(chunk)
                if frames:
                    env = parse_message(frames[0], None)
                    return Genesis.from_body(env.body) if env.kind == "genesis" else None
                if not chunk or decoder.pending > MAX_FRAME + 4:
                    return None
    except (OSError, FrameError, TranscriptError, ValueError, TypeError, KeyError):
        return None


def _readable_log(directory: Path) -> tuple[Path, Genesis] | None:
    """The largest log of a table's directory that starts with a genesis, and that genesis."""
    try:
        logs = sorted(directory.glob("*.log"), key=lambda p: (-p.stat().st_size, p.name))
    except OSError:
        return None
    for path in logs:
        genesis = _genesis_of(path)
        if genesis is not None:
            return path, genesis
    return None


def past_games(data_dir: Path | None) -> list[PastEntry]:
    """The matches of ``data_dir``, newest first: those of the history database (when there
    is one that can be read) and every other table with a transcript under
    ``DATA/tables``, known from its genesis alone (how it ended: ``unknown``).  A table
    whose logs cannot be read is listed as ``unreadable``, with no path."""
    from p2pcards.history.db import History, db_path, table_started

    if data_dir is None:
        return []
    root = data_dir / "tables"
    try:
        directories = sorted(p for p in root.iterdir() if p.is_dir() and any(p.glob("*.log"))) if root.is_dir() \
            else []
    except OSError:
        directories = []
    logs = {d.name: _readable_log(d) for d in directories}
    out: list[PastEntry] = []
    matches: list[dict[str, Any]] = []
    if db_path(data_dir).is_file():
        try:
            with History(db_path(data_dir)) as history:
                matches = history.matches()
        except HistoryError:
            matches = []  # the transcripts still say which tables were played
    for m in matches:
        found = logs.pop(m["table_id"], None)
        winners = tuple(s["name"] for s in m["seats"] if m["winner"] is not None and s["side"] == m["winner"])
        out.append(PastEntry(m["table_id"], m["game"], int(m["started"]), tuple(s["name"] for s in m["seats"]),
                             m["ended"] if found is not None else "unreadable", winners, m["deals"],
                             found[0] if found is not None else None))
    for table, found in logs.items():
        started = table_started(root / table)
        if found is None:
            out.append(PastEntry(table, "", started, (), "unreadable"))
        else:
            path, genesis = found
            out.append(PastEntry(table, genesis.game, started, tuple(s.name for s in genesis.seats), "unknown",
                                 path=path))
    return sorted(out, key=lambda e: (-e.started, e.table))


def stats_lines(data_dir: Path | None, games: Sequence[GameSpec], text: Text,
                title: Callable[[str], str] | None = None) -> list[str]:
    """What ``p2pcards stats`` says about ``data_dir``'s history, in ``text``'s language
    (its words, and its decimal mark in the averages: "59,67" in Portuguese; ``title``: a
    game's name for people); a line saying none is recorded yet when there is no
    database.  Raises :class:`HistoryError` for a database that cannot be read."""
    from p2pcards.history.db import History, db_path
    from p2pcards.history.stats import compute_stats, describe_stats, side_names

    if data_dir is None or not db_path(data_dir).is_file():
        return [text("stats_none")]
    with History(db_path(data_dir)) as history:
        matches = history.matches()
    stats = compute_stats(matches)
    last = next((m for m in reversed(matches) if m["deal_list"]), None)

    return describe_stats(stats, GameRegistry(games={s.name: s for s in games}), text, game_name=title,
                          last_names=side_names(last, text("past_and")) if last is not None else None)
