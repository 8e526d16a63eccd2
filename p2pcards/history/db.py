"""The history database: every match a peer plays, in SQLite under the data directory.

``DATA/history.sqlite`` (stdlib :mod:`sqlite3`, WAL journal, foreign keys on) holds:

- ``matches``: one row per table -- its id, game, options, when it started (the time its
  first table file was written), the deals it was to last, how it ended (``finished``,
  ``abandoned``, ``voided``: ended with no deal scored, or ``unfinished``: no end known
  yet), the winning side, the totals and the transcript hash at its end, and for a table a
  seat abandoned, what its transcript says of that end (JSON: who, in which deal, the
  totals and how far behind its side was), and every abandon of the table (JSON, ``abandons``:
  a table of two that both seats took up again keeps its abandon, ``taken_up``, whatever its
  end);
- ``seats``: who sat where -- name, fingerprint, ``person`` or ``bot`` and the bot's level;
- ``deals``: one row per closed deal -- its result (JSON), the audit's verdict and the seat
  it names, the side that won it, a capote (a side that took every trick), the seat that
  lost it for a renúncia or a forfeit;
- ``deal_sides``: per deal and side, the game's measure of the deal (card points in
  Sueca and Bisca, penalty points in Copas, what the deal adds in Sobe e Desce);
- ``hints``: each hint a person asked for on the table screen -- the deal, the seat, ``at``
  (which of that seat's decisions in the deal it was, from 0), the suggestion (card codes:
  ``7H``; several for a pick; ``decline``) and whether the person then followed it (NULL:
  not known, e.g. the person left first).  Hints are in no transcript: a rebuild keeps
  those of the tables it finds again;
- ``schema_version``: the schema's version.  Opening a database of an older version migrates it
  (:data:`MIGRATIONS`); one of a newer version is refused, never touched.

A deal is written in one transaction (its rows, its sides and the match's totals), so a
process that dies mid-write leaves the deal wholly there or not at all.  Rows come from a
table's ``deal`` and ``final`` events: live, from a local peer (:class:`Recorder`, which
each peer's node calls), or from the transcripts on disk (:func:`rebuild`); both give the
same rows, since an observer following a transcript emits the very events its peers did.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from p2pcards.core import GameRegistry, GameSpec, OptionValue, load_games
from p2pcards.history import HistoryError
from p2pcards.history.opened import open_transcript, read_transcript
from p2pcards.net.store import log_path, read_log
from p2pcards.table.events import DealClosed, Ended, TableEvent, TakenUp
from p2pcards.table.transcript import Genesis, parse_message

__all__ = [
    "DB_NAME",
    "ENDED",
    "MIGRATIONS",
    "History",
    "Recorder",
    "SeatFacts",
    "TableFacts",
    "db_path",
    "deal_facts",
    "rebuild",
    "table_facts",
    "table_started",
]

log = logging.getLogger("p2pcards.history")

DB_NAME: Final = "history.sqlite"
#: How a match ended (``matches.ended``).
ENDED: Final = ("finished", "abandoned", "voided", "unfinished")

#: The schema, one script per version: ``MIGRATIONS[v]`` takes a database from version ``v``
#: to ``v + 1`` (version 0: empty).  Scripts are only ever added, never changed.
MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE matches (
        table_id TEXT PRIMARY KEY,
        game TEXT NOT NULL,
        options TEXT NOT NULL,
        started INTEGER NOT NULL,
        deals_planned INTEGER,
        ended TEXT NOT NULL CHECK (ended IN ('finished', 'abandoned', 'voided', 'unfinished')),
        winner INTEGER,
        totals TEXT NOT NULL,
        deals INTEGER NOT NULL DEFAULT 0,
        transcript_hash TEXT
    );
    CREATE TABLE seats (
        table_id TEXT NOT NULL REFERENCES matches (table_id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        side INTEGER NOT NULL,
        name TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('person', 'bot')),
        level TEXT,
        runs_on TEXT,
        PRIMARY KEY (table_id, seat)
    );
    CREATE INDEX seats_by_player ON seats (fingerprint);
    CREATE TABLE deals (
        table_id TEXT NOT NULL REFERENCES matches (table_id) ON DELETE CASCADE,
        deal INTEGER NOT NULL,
        dealer INTEGER,
        trump TEXT,
        result TEXT,
        verdict TEXT NOT NULL,
        verdict_seat INTEGER,
        verdict_kind TEXT,
        verdict_reason TEXT,
        winner INTEGER,
        capote INTEGER,
        renuncia INTEGER,
        totals TEXT NOT NULL,
        PRIMARY KEY (table_id, deal)
    );
    CREATE TABLE deal_sides (
        table_id TEXT NOT NULL,
        deal INTEGER NOT NULL,
        side INTEGER NOT NULL,
        points REAL,
        PRIMARY KEY (table_id, deal, side),
        FOREIGN KEY (table_id, deal) REFERENCES deals (table_id, deal) ON DELETE CASCADE
    );
    """,
    """
    CREATE TABLE hints (
        table_id TEXT NOT NULL REFERENCES matches (table_id) ON DELETE CASCADE,
        deal INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        at INTEGER NOT NULL,
        suggestion TEXT NOT NULL,
        followed INTEGER CHECK (followed IN (0, 1)),
        PRIMARY KEY (table_id, deal, seat, at)
    );
    """,
    # what an abandoned table's transcript says of its end: who abandoned, in which deal, the
    # totals and how far behind (JSON; NULL for any other end, and for a table thrown away)
    """
    ALTER TABLE matches ADD COLUMN abandoned TEXT;
    """,
    # every abandon of the table (JSON: the final event's ``abandons``; NULL when none): one that
    # both seats took up again stays visible once the table ends otherwise
    """
    ALTER TABLE matches ADD COLUMN abandons TEXT;
    """,
)
SCHEMA_VERSION: Final = len(MIGRATIONS)


def db_path(data_dir: Path) -> Path:
    """Where the history database of a data directory is kept."""
    return data_dir / DB_NAME


# ---------------------------------------------------------------------- facts
@dataclass(frozen=True)
class SeatFacts:
    """Who sat in a seat (``kind``: ``person``, or ``bot`` with its ``level``)."""

    seat: int
    side: int
    name: str
    fingerprint: str
    kind: str
    level: str | None
    runs_on: str | None


@dataclass(frozen=True)
class TableFacts:
    """What the database keeps of a table before its first deal (from its genesis)."""

    table_id: str
    spec: GameSpec
    options: dict[str, OptionValue]
    started: int
    deals_planned: int | None
    seats: tuple[SeatFacts, ...]


def side_of(spec: GameSpec, seat: int) -> int:
    """The side (team, or else the seat itself) that ``seat`` plays for."""
    if spec.teams:
        return next(t for t, members in enumerate(spec.teams) if seat in members)
    return seat


def table_started(directory: Path) -> int:
    """When a table started here (unix seconds): its oldest secret (written before the first
    message, never again), else its oldest log; now when it has neither.  The same for
    every local peer of the table, live and when rebuilt."""
    for pattern in ("*.secret", "*.log"):
        times = []
        for path in directory.glob(pattern):
            try:
                times.append(path.stat().st_mtime)
            except OSError:
                continue
        if times:
            return int(min(times))
    return int(time.time())


def table_facts(genesis: Genesis, spec: GameSpec, started: int) -> TableFacts:
    seats = tuple(SeatFacts(s, side_of(spec, s), info.name, info.fingerprint, "person" if info.bot is None else "bot",
                            info.bot, info.runs_on) for s, info in enumerate(genesis.seats))
    return TableFacts(genesis.table_id.hex(), spec, dict(genesis.options), started, genesis.deals, seats)


def deal_facts(spec: GameSpec, result: Mapping[str, Any] | None) -> tuple[list[float | None], int | None, int | None]:
    """What the database reads from a deal's result: the game's measure per side
    (:meth:`~p2pcards.core.Match.deal_value` of the side's first seat), the side that won
    the deal and the side that made a capote (None: none).

    The deal's winner: after a renúncia or a forfeit in a game of two sides, the other side;
    otherwise the one side with the best measure (none on a tie, or when the game gives no
    measure).  A capote: no renúncia, and one side took every trick of the deal (a game whose
    result counts ``tricks`` per side: Sueca, Bisca)."""
    sides = spec.sides
    if result is None:
        return [None] * sides, None, None
    firsts = [spec.teams[t][0] for t in range(sides)] if spec.teams else list(range(sides))
    values: list[float | None] = []
    for seat in firsts:
        try:
            values.append(spec.match_class.deal_value(spec, result, seat))
        except (KeyError, IndexError, TypeError, ValueError):
            values.append(None)
    renuncia = result.get("renuncia")
    winner: int | None = None
    if renuncia is not None:
        winner = 1 - side_of(spec, renuncia) if sides == 2 else None
    elif all(v is not None for v in values):
        known = [float(v) for v in values if v is not None]
        best = min(known) if spec.match_class.lower_is_better else max(known)
        if known.count(best) == 1:
            winner = known.index(best)
    capote: int | None = None
    tricks = result.get("tricks")
    all_tricks = len(spec.deck) // spec.seats
    if renuncia is None and isinstance(tricks, list) and len(tricks) == sides and all_tricks in tricks:
        capote = tricks.index(all_tricks)
    return values, winner, capote


# ---------------------------------------------------------------------- the database
class History:
    """An open history database (module docstring).  Raises :class:`HistoryError` when the
    file is not a database this version can use."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            self.conn = sqlite3.connect(path, isolation_level=None, timeout=10.0)
        except (OSError, sqlite3.Error) as exc:
            raise HistoryError.said("err_db_open", path=str(path), error=str(exc)) from None
        try:
            self.conn.execute("PRAGMA foreign_keys = ON")
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = FULL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            self.conn.close()
            raise HistoryError.said("err_db_not", path=str(path), error=str(exc)) from None
        except HistoryError:
            self.conn.close()
            raise

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def version(self) -> int:
        row = self.conn.execute("SELECT version FROM schema_version").fetchone()
        return int(row[0]) if row else 0

    def _migrate(self) -> None:
        with self.transaction():
            self.conn.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            version = self.version
            if version > SCHEMA_VERSION:
                raise HistoryError.said("err_db_newer", path=str(self.path), version=version, ours=SCHEMA_VERSION)
            for v in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[v].split(";"):
                    if statement.strip():
                        self.conn.execute(statement)
            if version == 0:
                self.conn.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            elif version != SCHEMA_VERSION:
                self.conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION,))

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: everything in it is there after a crash, or nothing is."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    # ------------------------------------------------------------------ writing
    def _ensure_match(self, facts: TableFacts) -> None:
        c = self.conn
        if c.execute("SELECT 1 FROM matches WHERE table_id = ?", (facts.table_id,)).fetchone():
            return
        c.execute("INSERT INTO matches (table_id, game, options, started, deals_planned, ended, winner, totals) "
                  "VALUES (?, ?, ?, ?, ?, 'unfinished', NULL, '[]')",
                  (facts.table_id, facts.spec.name, json.dumps(facts.options, sort_keys=True), facts.started,
                   facts.deals_planned))
        c.executemany("INSERT INTO seats (table_id, seat, side, name, fingerprint, kind, level, runs_on) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                      [(facts.table_id, s.seat, s.side, s.name, s.fingerprint, s.kind, s.level, s.runs_on)
                       for s in facts.seats])

    def record(self, facts: TableFacts, event: dict[str, Any]) -> bool:
        """Write a table's ``deal`` or ``final`` event, in one transaction; False when it
        was there already (or is of another type)."""
        if event.get("type") == "deal":
            return self._record_deal(facts, event)
        if event.get("type") == "final":
            return self._record_final(facts, event)
        if event.get("type") == "taken_up":
            return self._record_taken_up(facts, event)
        return False

    def _record_taken_up(self, facts: TableFacts, event: dict[str, Any]) -> bool:
        """Both seats took an abandoned table up again: it is in play (``unfinished``) again,
        its abandon kept in ``abandons``."""
        with self.transaction() as c:
            self._ensure_match(facts)
            row = c.execute("SELECT abandons FROM matches WHERE table_id = ?", (facts.table_id,)).fetchone()
            abandons = json.loads(row[0]) if row[0] else []
            if event["abandon"] in abandons:
                return False
            c.execute("UPDATE matches SET ended = 'unfinished', winner = NULL, abandoned = NULL, abandons = ? "
                      "WHERE table_id = ?", (json.dumps([*abandons, event["abandon"]], sort_keys=True),
                                             facts.table_id))
        return True

    def _record_deal(self, facts: TableFacts, event: dict[str, Any]) -> bool:
        result = event["result"]
        audit = event["audit"]
        values, winner, capote = deal_facts(facts.spec, result)
        renuncia = result.get("renuncia") if result is not None else None
        stored = json.dumps(result, sort_keys=True) if result is not None else None
        with self.transaction() as c:
            self._ensure_match(facts)
            row = c.execute("SELECT result, verdict, verdict_seat, verdict_kind, totals FROM deals "
                            "WHERE table_id = ? AND deal = ?", (facts.table_id, event["deal"])).fetchone()
            if row is not None:
                if tuple(row) == (stored, audit["verdict"], audit["seat"], audit["kind"], json.dumps(event["totals"])):
                    return False  # (told again: a restart, a rebuild)
                # the table took the deal back (an abandon or a vote took the place of its close): the later word holds
                c.execute("DELETE FROM deal_sides WHERE table_id = ? AND deal = ?", (facts.table_id, event["deal"]))
                c.execute("DELETE FROM deals WHERE table_id = ? AND deal = ?", (facts.table_id, event["deal"]))
            c.execute("INSERT INTO deals (table_id, deal, dealer, trump, result, verdict, verdict_seat, verdict_kind, "
                      "verdict_reason, winner, capote, renuncia, totals) "
                      "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      (facts.table_id, event["deal"], event["dealer"], event["trump"], stored, audit["verdict"],
                       audit["seat"], audit["kind"], audit["reason"], winner, capote, renuncia,
                       json.dumps(event["totals"])))
            c.executemany("INSERT INTO deal_sides (table_id, deal, side, points) VALUES (?, ?, ?, ?)",
                          [(facts.table_id, event["deal"], side, v) for side, v in enumerate(values)])
            c.execute("UPDATE matches SET deals = (SELECT COUNT(*) FROM deals WHERE table_id = ?), totals = ?, "
                      "winner = ? WHERE table_id = ?",
                      (facts.table_id, json.dumps(event["totals"]), event["winner"], facts.table_id))
        return True

    def _record_final(self, facts: TableFacts, event: dict[str, Any]) -> bool:
        with self.transaction() as c:
            self._ensure_match(facts)
            row = c.execute("SELECT ended, transcript_hash FROM matches WHERE table_id = ?",
                            (facts.table_id,)).fetchone()
            later = row[0] == "abandoned" and row[1] is not None and row[1] != event.get("transcript_hash") \
                and any(a.get("taken_up") for a in event.get("abandons", []))  # taken up again, ended since
            if row[0] != "unfinished" and not later:
                return False
            scored = c.execute("SELECT COUNT(*) FROM deals WHERE table_id = ? AND result IS NOT NULL",
                               (facts.table_id,)).fetchone()[0]
            ended = "abandoned" if event.get("abandoned") else "finished" if scored else "voided"
            abandoned = event.get("abandoned")
            abandons = event.get("abandons") or None
            c.execute("UPDATE matches SET ended = ?, winner = ?, totals = ?, transcript_hash = ?, abandoned = ?, "
                      "abandons = ? WHERE table_id = ?",
                      (ended, event["winner"], json.dumps(event["totals"]), event.get("transcript_hash"),
                       json.dumps(abandoned, sort_keys=True) if abandoned else None,
                       json.dumps(abandons, sort_keys=True) if abandons else None, facts.table_id))
        return True

    def abandon(self, table_id: str) -> bool:
        """The person threw away the unfinished match ``table_id`` (a table against the
        computer, :func:`p2pcards.tui.runtime.throw_away`): it ends abandoned, no winner.
        Whether a match was changed (none is recorded before its first deal closes)."""
        with self.transaction() as c:
            done = c.execute("UPDATE matches SET ended = 'abandoned', winner = NULL WHERE table_id = ? "
                             "AND ended = 'unfinished'", (table_id,))
            return done.rowcount > 0

    def record_hint(self, facts: TableFacts, deal: int, seat: int, at: int, suggestion: str,
                    followed: bool | None = None) -> None:
        """Write (or update: the same deal, seat and decision) a hint that ``seat`` asked for."""
        with self.transaction() as c:
            self._ensure_match(facts)
            c.execute("INSERT INTO hints (table_id, deal, seat, at, suggestion, followed) VALUES (?, ?, ?, ?, ?, ?) "
                      "ON CONFLICT (table_id, deal, seat, at) DO UPDATE SET suggestion = excluded.suggestion, "
                      "followed = excluded.followed",
                      (facts.table_id, deal, seat, at, suggestion, None if followed is None else int(followed)))

    def wipe(self) -> None:
        """Forget every match (before a rebuild)."""
        with self.transaction() as c:
            c.execute("DELETE FROM matches")

    # ------------------------------------------------------------------ reading
    def rows(self, table: str) -> list[tuple[object, ...]]:
        """Every row of one of the tables, in key order (tests compare databases with it)."""
        keys = {"matches": "table_id", "seats": "table_id, seat", "deals": "table_id, deal",
                "deal_sides": "table_id, deal, side", "hints": "table_id, deal, seat, at"}
        return list(self.conn.execute(f"SELECT * FROM {table} ORDER BY {keys[table]}"))  # noqa: S608 -- fixed names

    def matches(self) -> list[dict[str, Any]]:
        """Every match, oldest first, with its seats and deals (JSON fields decoded)."""
        c = self.conn
        c.row_factory = sqlite3.Row
        try:
            out = []
            for m in c.execute("SELECT * FROM matches ORDER BY started, table_id").fetchall():
                match = dict(m)
                match["options"] = json.loads(match["options"])
                match["totals"] = json.loads(match["totals"])
                match["abandoned"] = json.loads(match["abandoned"]) if match["abandoned"] is not None else None
                match["abandons"] = json.loads(match["abandons"]) if match["abandons"] is not None else []
                match["seats"] = [dict(s) for s in c.execute("SELECT seat, side, name, fingerprint, kind, level "
                                                             "FROM seats WHERE table_id = ? ORDER BY seat",
                                                             (m["table_id"],))]
                deals = []
                for d in c.execute("SELECT * FROM deals WHERE table_id = ? ORDER BY deal", (m["table_id"],)).fetchall():
                    deal = dict(d)
                    deal.pop("table_id")
                    deal["result"] = json.loads(deal["result"]) if deal["result"] is not None else None
                    deal["totals"] = json.loads(deal["totals"])
                    deal["points"] = [p for (p,) in c.execute("SELECT points FROM deal_sides WHERE table_id = ? AND "
                                                              "deal = ? ORDER BY side", (m["table_id"], d["deal"]))]
                    deals.append(deal)
                match["deal_list"] = deals
                used = dict(c.execute("SELECT seat, COUNT(*) FROM hints WHERE table_id = ? GROUP BY seat",
                                      (m["table_id"],)).fetchall())
                match["hints"] = [int(used.get(s["seat"], 0)) for s in match["seats"]]
                out.append(match)
            return out
        finally:
            c.row_factory = None


# ---------------------------------------------------------------------- live
class Recorder:
    """Records a local peer's ``deal`` and ``final`` events as they come (each peer's node
    calls :meth:`record` from its event path, and the table screens :meth:`record_hint`).
    It never raises: a history that cannot be written is logged once (one line, and how to
    recover it), the data directory is left alone from then on, and the table plays on."""

    def __init__(self, registry: GameRegistry | None = None) -> None:
        self._registry = registry
        self._dbs: dict[Path, History] = {}
        self._facts: dict[tuple[Path, str], TableFacts] = {}
        #: data directories whose history could not be written: said once, then left alone
        self._broken: set[Path] = set()

    def record(self, data_dir: Path | None, table_id: bytes, seat: int | None, event: TableEvent) -> None:
        """Record ``event`` of seat ``seat``'s replica of table ``table_id`` into
        ``data_dir``'s history (a closed deal, the table's end; nothing else); nothing when
        there is no data directory."""
        if data_dir is None or seat is None or not isinstance(event, (DealClosed, Ended, TakenUp)):
            return
        if data_dir in self._broken:
            return
        try:
            db, facts = self._open(data_dir, table_id, seat)
            db.record(facts, event.to_json())
        except Exception as exc:  # noqa: BLE001 -- the history must never stop a table
            self._failed(data_dir, table_id, exc)

    def _open(self, data_dir: Path, table_id: bytes | str, seat: int) -> tuple[History, TableFacts]:
        """The history database of ``data_dir`` and the facts of table ``table_id`` (each
        opened or read once, then kept)."""
        tid = table_id.hex() if isinstance(table_id, bytes) else table_id
        db = self._dbs.get(data_dir)
        if db is None:
            db = self._dbs[data_dir] = History(db_path(data_dir))
        facts = self._facts.get((data_dir, tid))
        if facts is None:
            facts = self._facts[(data_dir, tid)] = self._facts_of(data_dir, tid, seat)
        return db, facts

    def _facts_of(self, data_dir: Path, tid: str, seat: int) -> TableFacts:
        path = log_path(data_dir, bytes.fromhex(tid), seat)
        messages, _ = read_log(path)
        genesis = Genesis.from_body(parse_message(messages[0], None).body)
        if self._registry is None:
            self._registry = load_games()
        return table_facts(genesis, self._registry.get(genesis.game), table_started(path.parent))

    def record_hint(self, data_dir: Path | None, table_id: bytes | str | None, seat: int | None, deal: int,
                    at: int, suggestion: str, followed: bool | None = None) -> None:
        """Record a hint seat ``seat`` asked for (:meth:`History.record_hint`), as
        :meth:`record` records events: nothing without a data directory, never raising."""
        if data_dir is None or table_id is None or seat is None or data_dir in self._broken:
            return
        try:
            db, facts = self._open(data_dir, table_id, seat)
            db.record_hint(facts, deal, seat, at, suggestion, followed)
        except Exception as exc:  # noqa: BLE001 -- the history must never stop a table
            self._failed(data_dir, table_id, exc)

    def _failed(self, data_dir: Path, table_id: bytes | str, exc: Exception) -> None:
        """Say once that ``data_dir``'s history cannot be written, and stop trying there."""
        self._broken.add(data_dir)
        tid = table_id.hex() if isinstance(table_id, bytes) else table_id
        log.warning("the history database %s cannot record table %s (%s: %s); the table plays on, and "
                    "`p2pcards history --rebuild` recovers its matches from the saved transcripts",
                    db_path(data_dir), tid[:16], type(exc).__name__, exc)
        log.debug("why the history could not be written", exc_info=exc)

    def close(self) -> None:
        for db in self._dbs.values():
            db.close()
        self._dbs.clear()


# ---------------------------------------------------------------------- rebuild
def _longest_log(directory: Path) -> tuple[Path, list[bytes]] | None:
    best: tuple[Path, list[bytes]] | None = None
    for path in sorted(directory.glob("*.log")):
        try:
            messages, _ = read_transcript(path)
        except HistoryError:
            continue
        if best is None or len(messages) > len(best[1]):
            best = (path, messages)
    return best


def rebuild(data_dir: Path, registry: GameRegistry | None = None, db: Path | None = None) -> dict[str, Any]:
    """Rebuild the history of ``data_dir`` (or write it to ``db``) from every transcript
    under ``DATA/tables``: per table, the longest sound log is followed to its end.
    Returns ``{"tables": N, "deals": N, "skipped": [{"table": HEX, "reason": TEXT}]}``."""
    registry = registry if registry is not None else load_games()
    root = data_dir / "tables"
    report: dict[str, Any] = {"tables": 0, "deals": 0, "skipped": []}
    with History(db if db is not None else db_path(data_dir)) as history:
        hints = history.conn.execute("SELECT * FROM hints").fetchall()  # in no transcript: kept
        history.wipe()
        directories: Sequence[Path] = sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []
        for directory in directories:
            found = _longest_log(directory)
            if found is None:
                report["skipped"].append({"table": directory.name, "reason": "no readable transcript"})
                continue
            try:
                opened = open_transcript(found[1], registry)
            except HistoryError as exc:
                report["skipped"].append({"table": directory.name, "reason": str(exc)})
                continue
            facts = table_facts(opened.genesis, opened.spec, table_started(directory))
            if not opened.events and opened.final is None:
                continue  # no deal closed: nothing was played
            for event in opened.events:
                report["deals"] += history.record(facts, event)
            if opened.final is not None:
                history.record(facts, opened.final)
            report["tables"] += 1
        with history.transaction() as c:
            known = {t for (t,) in c.execute("SELECT table_id FROM matches")}
            c.executemany("INSERT OR IGNORE INTO hints VALUES (?, ?, ?, ?, ?, ?)",
                          [row for row in hints if row[0] in known])
    return report
