"""The start screen as data (``p2pcards`` alone): a menu, the "play against the computer"
form, the live list of LAN tables, join by address -- no terminal, no trio.

Views: ``menu`` (play, host, LAN tables, join, your tables, quit), ``play`` (game, each
table option of that game, the computer players' level, start), ``host`` (the same form
with how many seats are for players on the LAN; the person takes seat 0, LAN players the
next seats, computer players run by this machine the rest), ``lan`` (tables seen by
discovery, live), ``join`` (an address typed in), ``saved`` (the tables this identity
played here, as ``p2pcards resume --list`` lists them: an unfinished one is taken up
again, an ended one says how it ended), ``past`` (the matches this machine knows, newest
first, from the history database or else from the transcripts: Enter replays one),
``stats`` (what ``p2pcards stats`` says, scrolled a page at a time), ``message`` (a
paragraph and a key to go back), ``name`` (the person's name at the tables, typed in: the
first view when the identity's name was never chosen; Enter keeps it through ``on_name``).
Keys arrive as method calls; the screen ends through
``on_exit(result)`` with a :class:`StartChoice` (or None to quit).  The lists of ``past``
and ``stats`` are read when their view opens (:meth:`StartModel.history_from` says from
where).
"""

from __future__ import annotations

import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2pcards.core import GameSpec, Options, OptionValue
from p2pcards.history import HistoryError
from p2pcards.players import PLAYER_LEVELS, TABLE_LEVEL
from p2pcards.tui.start_past import PastEntry, past_games, stats_lines
from p2pcards.words import Text

__all__ = [
    "MENU",
    "MENU_KEYS",
    "LanEntry",
    "PlayForm",
    "SavedEntry",
    "StartChoice",
    "StartModel",
    "parse_address",
]

#: The menu, top to bottom (``web``: the same, in the browser -- :mod:`p2pcards.web`).
MENU = ("play", "host", "lan", "join", "saved", "past", "stats", "web", "quit")
#: The digit that chooses each menu entry, in the menu's order (``q`` quits too).
MENU_KEYS = {name: str(i + 1) for i, name in enumerate(MENU)}


def parse_address(text: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (``[v6]:PORT`` too) as ``(host, port)``, or None when it is not one
    (:func:`p2pcards.net.address.parse_host_port`, as ``p2pcards join`` reads it)."""
    from p2pcards.net.address import AddressError, parse_host_port

    try:
        return parse_host_port(text)
    except AddressError:
        return None


@dataclass(frozen=True)
class StartChoice:
    """What the person chose: ``play`` (game, options, level), ``host`` (the same and how
    many ``remote`` seats), ``join`` (host, port, and the announced host's fingerprint
    when the table was picked from the LAN list), ``resume`` (``path``: the saved
    table's manifest), ``replay`` (``path``: a past game's transcript log) or ``web``
    (the start screen in the browser instead)."""

    kind: str
    game: str = ""
    options: Options = field(default_factory=dict)
    level: str = TABLE_LEVEL
    host: str = ""
    port: int = 0
    remote: int = 0
    fingerprint: str | None = None
    path: Path | None = None
    #: ``host``: whether the people at the table may ask for hints
    hints: bool = True


@dataclass
class PlayForm:
    """The "play against the computer" form: a game, its options, the bots' level; with
    ``hosting``, also how many seats are for players on the LAN (``remote``, 1 to seats-1;
    0 until set: all but the person's)."""

    games: list[GameSpec]
    game: int = 0
    values: dict[str, int] = field(default_factory=dict)  # option name -> index in allowed
    level: int = PLAYER_LEVELS.index(TABLE_LEVEL)
    hosting: bool = False
    remote: int = 0
    #: hosting: whether hints are allowed at the table (the ``hints`` row)
    hints: bool = True

    @property
    def spec(self) -> GameSpec:
        return self.games[self.game]

    @property
    def remotes(self) -> int:
        """Seats for players on the LAN (hosting)."""
        most = self.spec.seats - 1
        return most if not 0 < self.remote <= most else self.remote

    def rows(self) -> list[str]:
        """Row names: ``game``, one per option of the game, ``hints`` and ``remote`` (hosting),
        ``level``, ``start``."""
        return ["game", *(o.name for o in self.spec.options), *(["hints", "remote"] if self.hosting else []), "level",
                "start"]

    def value(self, row: str) -> str:
        if row == "game":
            return self.spec.title
        if row == "level":
            return PLAYER_LEVELS[self.level]
        if row == "remote":
            return str(self.remotes)
        if row == "hints":
            return "allowed" if self.hints else "forbidden"
        for o in self.spec.options:
            if o.name == row:
                return str(o.allowed[self.values.get(row, 0)])
        return ""

    def label(self, row: str, lang: str) -> str:
        """What a row shows in ``lang``: the game's title and its option values in the game's
        own words (:meth:`GameSpec.text`); the other rows as :meth:`value` says them."""
        if row == "game":
            return self.spec.text(lang, "title")
        if any(o.name == row for o in self.spec.options):
            return self.spec.text(lang, f"option.{row}.{self.value(row)}")
        return self.value(row)

    def change(self, row: str, step: int) -> None:
        """Cycle a row's value (a new game resets the options to their defaults)."""
        if row == "game":
            self.game = (self.game + step) % len(self.games)
            self.values = {}
            self.remote = 0
        elif row == "remote":
            most = self.spec.seats - 1
            self.remote = (self.remotes - 1 + step) % most + 1
        elif row == "level":
            self.level = (self.level + step) % len(PLAYER_LEVELS)
        elif row == "hints":
            self.hints = not self.hints
        else:
            for o in self.spec.options:
                if o.name == row:
                    self.values[row] = (self.values.get(row, 0) + step) % len(o.allowed)

    def options(self) -> dict[str, OptionValue]:
        return {o.name: o.allowed[self.values.get(o.name, 0)] for o in self.spec.options}


@dataclass(frozen=True)
class LanEntry:
    """A table seen on the LAN, as listed: its name, what it plays, where, and whether this
    peer can join it (``reason`` None) or why not."""

    service: str
    name: str
    game: str
    host: str
    address: str
    port: int
    free: int
    reason: str | None
    fingerprint: str | None = None


@dataclass(frozen=True)
class SavedEntry:
    """A table this identity played here: its id (hex), game, role (``local``, ``host``,
    ``join``), where (the address joined, the port hosted on, '' for ``local``), ``state``
    (``unfinished``, or how it ended: ``finished``, ``voted-out``, ``abandoned``,
    ``unknown``), its manifest, and whether a person's seat is in it (only those are taken
    up on the screen; ``p2pcards resume`` plays the others on)."""

    table: str
    game: str
    role: str
    where: str
    state: str
    path: Path
    person: bool = True
    #: when it was last played (seconds since the epoch; 0: not known), the other seats'
    #: names, and the match's totals and deals so far (from the history; () and 0: none)
    played: float = 0.0
    others: tuple[str, ...] = ()
    totals: tuple[int, ...] = ()
    deals: int = 0


class StartModel:
    """Everything on the start screen (module docstring)."""

    def __init__(self, games: Sequence[GameSpec], text: Text, *, discovery: bool = True, name: str = "",
                 ask_name: bool = False) -> None:
        if not games:
            raise ValueError("no game is installed")
        ordered = sorted(games, key=lambda s: (s.order, s.name))  # as the games ask (GameSpec.order)
        self.text = text
        #: the person's name at the tables; ``ask_name``: never chosen, so asked first
        self.name = name
        self.view = "name" if ask_name else "menu"
        self.on_name: Callable[[str], None] = lambda name: None
        self.cursor = 0
        self.form = PlayForm(list(ordered))
        self.host_form = PlayForm(list(ordered), hosting=True)
        self.row = 0
        #: whether LAN discovery is available (False: the list is a labelled placeholder)
        self.discovery = discovery
        self.lan: dict[str, LanEntry] = {}
        self.lan_problem: str | None = None
        self.lan_cursor = 0
        self.address = ""
        #: the saved tables (set by the runner from the data directory)
        self.saved: list[SavedEntry] = []
        self.saved_cursor = 0
        #: the saved table ``x`` was pressed on once (a second ``x`` throws it away)
        self.throwing: int | None = None
        #: the past matches and the statistics' lines, read when their view opens
        self.past: list[PastEntry] = []
        self.past_cursor = 0
        self.past_top = 0
        self.stats: list[str] = []
        self.stats_top = 0
        self.past_source: Callable[[], list[PastEntry]] = list
        self.stats_source: Callable[[], list[str]] = lambda: [self.text("stats_none")]
        #: rows of a list shown at once, and the width its lines are wrapped to (:meth:`fit`)
        self.page = 10
        self.width = 100
        self.error = ""
        self.message = ""
        self.on_exit: Callable[[StartChoice | None], None] = lambda choice: None
        #: the person left with Ctrl-C (an interrupt: exit status 130)
        self.interrupted = False
        self.listeners: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ from discovery
    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    def table_seen(self, kind: str, entry: LanEntry) -> None:
        """A table appeared, changed (``appear``/``update``) or vanished (``vanish``)."""
        key = entry.service.lower()
        if kind == "vanish":
            self.lan.pop(key, None)
        else:
            self.lan[key] = entry
        self.lan_cursor = min(self.lan_cursor, max(len(self.lan) - 1, 0))
        self._changed()

    def discovery_failed(self, reason: str) -> None:
        self.lan_problem = reason
        self._changed()

    def game_title(self, name: str) -> str:
        """The title of the game called ``name`` in the screen's language (the name itself
        for a game not installed here, as a LAN table may play)."""
        for spec in self.form.games:
            if spec.name == name:
                return spec.text(self.text.lang, "title")
        return name

    def tables(self) -> list[LanEntry]:
        return sorted(self.lan.values(), key=lambda e: (e.name.lower(), e.service))

    def history_from(self, data_dir: Path | None) -> None:
        """Read the past games and the statistics from ``data_dir`` (:func:`past_games`,
        :func:`stats_lines`) when their views open."""
        self.past_source = lambda: past_games(data_dir)
        self.stats_source = lambda: stats_lines(data_dir, self.form.games, self.text, self.game_title)

    def saved_line(self, entry: SavedEntry) -> str:
        """A saved table in one line: when it was last played, the game and table, where and
        with whom, the score so far, and its state."""
        t = self.text
        kind = {"local": "saved_local", "join": "saved_joined"}.get(entry.role, "saved_hosted")
        where = t(kind, where=t("saved_port", port=entry.where) if entry.where.isdigit() else entry.where)
        if entry.others:
            where += t("saved_names", names=", ".join(entry.others))
        score = t("saved_score", totals="–".join(map(str, entry.totals)), deals=t.plural("stats_deals", entry.deals)) \
            if entry.totals else ""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.played)) if entry.played else "????-??-?? ??:??"
        return t("saved_row", when=when, game=self.game_title(entry.game), table=entry.table[:8], where=where,
                 score=score, state=t("saved_" + entry.state))

    def throw_away(self) -> None:
        """``x`` on "Your tables": once, say what a second ``x`` does; twice on the same
        unfinished table against the computer, throw it away (``on_exit`` with an
        ``abandon`` choice)."""
        if self.view != "saved" or not self.saved:
            return
        saved = self.saved[self.saved_cursor]
        if saved.role != "local" or saved.state != "unfinished":
            self.error = self.text("saved_throw_local" if saved.role != "local" else "saved_is_over")
            self.throwing = None
        elif self.throwing == self.saved_cursor:
            self.throwing = None
            self.on_exit(StartChoice("abandon", game=saved.game, path=saved.path))
        else:
            self.throwing = self.saved_cursor
            self.error = self.text("saved_throw_confirm")

    def reopen_saved(self, message: str) -> None:
        """Back from throwing a table away: "Your tables" again, saying what happened."""
        self.view = "saved"
        self.error = message

    def fit(self, rows: int, columns: int) -> None:
        """The screen is ``rows`` by ``columns``: a list shows what fits under its header line
        (and the room for an error) between the title and the keys."""
        self.page = max(rows - 6, 3)
        self.width = max(columns - 4, 20)

    def past_line(self, entry: PastEntry) -> str:
        """A past match in one line: when, game, who, how it ended, how many deals."""
        t = self.text
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.started))
        if entry.winners and entry.ended in ("finished", "unfinished"):
            outcome = t("past_won_by", names=t("past_and").join(entry.winners))
        else:
            outcome = t(f"past_{entry.ended}")
        deals = t.plural("past_deals", entry.deals) if entry.deals is not None and entry.ended != "unreadable" else ""
        return t("past_row", when=when, game=self.game_title(entry.game) if entry.game else entry.table[:8],
                 names=", ".join(entry.names), outcome=outcome, deals=deals)

    def past_window(self) -> range:
        """The rows of the past list on screen: a page of them, the cursor among them."""
        n = len(self.past)
        top = max(min(self.past_top, self.past_cursor), self.past_cursor - self.page + 1)
        self.past_top = max(min(top, n - self.page), 0)
        return range(self.past_top, min(self.past_top + self.page, n))

    def stats_wrapped(self) -> list[str]:
        """The statistics' lines wrapped to the screen's width (a wrapped line goes on
        further indented than its start)."""
        out: list[str] = []
        for line in self.stats:
            indent = " " * (len(line) - len(line.lstrip(" ")) + 4)
            out += textwrap.wrap(line, self.width, subsequent_indent=indent, drop_whitespace=False) or [""]
        return [line.rstrip() for line in out]

    def stats_window(self) -> tuple[list[str], int, int]:
        """The statistics' lines on screen, the first one's index and how many there are."""
        lines = self.stats_wrapped()
        self.stats_top = max(min(self.stats_top, len(lines) - self.page), 0)
        return lines[self.stats_top:self.stats_top + self.page], self.stats_top, len(lines)

    def reopen_past(self, cursor: int) -> None:
        """Back from a replay: the past games again, the cursor where it was."""
        self._open_past()
        if self.view == "past":
            self.past_cursor = min(max(cursor, 0), max(len(self.past) - 1, 0))

    def _open_past(self) -> None:
        try:
            self.past = self.past_source()
        except (HistoryError, OSError) as exc:
            self._say(self.text("past_failed", error=str(exc)))
            return
        self.view = "past"
        self.past_cursor = self.past_top = 0

    def _open_stats(self) -> None:
        try:
            self.stats = self.stats_source()
        except (HistoryError, OSError) as exc:
            self._say(self.text("stats_failed", error=str(exc)))
            return
        self.view = "stats"
        self.stats_top = 0

    @property
    def active_form(self) -> PlayForm:
        """The form of the ``play`` or ``host`` view."""
        return self.host_form if self.view == "host" else self.form

    # ------------------------------------------------------------------ keys
    def up(self) -> None:
        self._move(-1)

    def down(self) -> None:
        self._move(+1)

    def _move(self, step: int) -> None:
        self.throwing = None
        if self.view == "menu":
            self.cursor = (self.cursor + step) % len(MENU)
        elif self.view in ("play", "host"):
            self.row = (self.row + step) % len(self.active_form.rows())
        elif self.view == "lan" and self.lan:
            self.lan_cursor = (self.lan_cursor + step) % len(self.lan)
        elif self.view == "saved" and self.saved:
            self.saved_cursor = (self.saved_cursor + step) % len(self.saved)
        elif self.view == "past" and self.past:
            self.past_cursor = (self.past_cursor + step) % len(self.past)
        elif self.view == "stats":
            self._scroll(step)

    def page_up(self) -> None:
        self._page(-1)

    def page_down(self) -> None:
        self._page(+1)

    def _page(self, step: int) -> None:
        """PgUp/PgDn: a page of the past list (the cursor stops at either end) or of the statistics."""
        if self.view == "past" and self.past:
            self.past_cursor = min(max(self.past_cursor + step * self.page, 0), len(self.past) - 1)
        elif self.view == "stats":
            self._scroll(step * self.page)

    def _scroll(self, step: int) -> None:
        """Move the statistics ``step`` lines, between the first page and the last."""
        self.stats_top = max(min(self.stats_top + step, len(self.stats_wrapped()) - self.page), 0)

    def left(self) -> None:
        self._change(-1)

    def right(self) -> None:
        self._change(+1)

    def _change(self, step: int) -> None:
        if self.view in ("play", "host"):
            form = self.active_form
            row = form.rows()[self.row]
            if row != "start":
                form.change(row, step)
                self.row = min(self.row, len(form.rows()) - 1)

    def enter(self) -> None:
        self.throwing = None
        view = self.view
        if view == "menu":
            self._enter_menu(MENU[self.cursor])
        elif view in ("play", "host"):  # from any row, as the keys line says: the table as the form stands
            form = self.active_form
            self.on_exit(StartChoice(view, form.spec.name, form.options(), form.value("level"),
                                     remote=form.remotes if view == "host" else 0,
                                     hints=form.hints or view != "host"))
        elif view == "lan":
            self._enter_lan()
        elif view == "join":
            self._join(self.address)
        elif view == "saved" and self.saved:
            self._enter_saved(self.saved[self.saved_cursor])
        elif view == "past" and self.past:
            self._enter_past(self.past[self.past_cursor])
        elif view == "message":
            self.view = "menu"
        elif view == "name":
            self._named()

    def _enter_menu(self, item: str) -> None:
        """Enter on a menu item: leave, open the browser table, or open the item's view."""
        if item == "quit":
            self.on_exit(None)
        elif item == "web":
            self.on_exit(StartChoice("web"))
        elif item == "past":
            self.error = ""
            self._open_past()
        elif item == "stats":
            self.error = ""
            self._open_stats()
        else:
            self.view = item
            self.error = ""
            self.row = 0

    def _enter_lan(self) -> None:
        """Enter on the LAN list: join the table under the cursor, or say why it cannot be."""
        tables = self.tables()
        if tables:
            entry = tables[self.lan_cursor]
            if entry.reason is not None:
                self.error = entry.reason
            else:
                from p2pcards.net.address import format_host_port

                self._join(format_host_port(entry.address, entry.port), entry.fingerprint)

    def _enter_saved(self, saved: SavedEntry) -> None:
        """Enter on a saved table: take it up again (an abandoned LAN table of two too: both
        seats' ``resume`` take it up), or say why it cannot be."""
        if saved.state != "unfinished" and not (saved.state == "abandoned" and saved.role != "local"):
            self.error = self.text("saved_is_over")
        elif not saved.person:
            self.error = self.text("saved_no_person", prefix=saved.table[:8])
        else:
            self.on_exit(StartChoice("resume", game=saved.game, path=saved.path))

    def _enter_past(self, past: PastEntry) -> None:
        """Enter on a past game: replay it, or say why it cannot be."""
        if past.path is None:
            self.error = self.text("past_cannot")
        else:
            self.error = ""
            self.on_exit(StartChoice("replay", game=past.game, path=past.path))

    def _named(self) -> None:
        """Enter on the name: kept (``on_name``) if it can be one, else why not."""
        from p2pcards.identity import check_name

        name = self.name.strip()
        problem = check_name(name)
        if problem is not None:
            self.error = problem
            return
        self.name = name
        self.on_name(name)
        self.view = "menu"
        self.error = ""

    def _join(self, text: str, fingerprint: str | None = None) -> None:
        where = parse_address(text)
        if where is None:
            self.error = self.text("start_bad_address")
            return
        self.error = ""
        self.on_exit(StartChoice("join", host=where[0], port=where[1], fingerprint=fingerprint))

    def _say(self, message: str) -> None:
        self.message = message
        self.view = "message"

    def back(self) -> None:
        """Esc: back to the menu."""
        self.throwing = None
        self.view = "menu"
        self.error = ""

    @property
    def typing(self) -> bool:
        """Whether keys type text (an address, a name) rather than move."""
        return self.view in ("join", "name")

    def type(self, text: str) -> None:
        """Characters typed (the address in the join view, the name in the name view)."""
        typed = "".join(c for c in text if c.isprintable())
        if self.view == "join":
            self.address += typed
            self.error = ""
        elif self.view == "name":
            from p2pcards.identity import MAX_NAME

            self.name = (self.name + typed)[:MAX_NAME]
            self.error = ""

    def backspace(self) -> None:
        if self.view == "join":
            self.address = self.address[:-1]
        elif self.view == "name":
            self.name = self.name[:-1]

    def quit(self) -> None:
        """q: leave from the menu, back from elsewhere (not while typing an address or a name)."""
        if self.view == "menu":
            self.on_exit(None)
        elif self.typing:
            self.type("q")
        else:
            self.back()

    def interrupt(self) -> None:
        """Ctrl-C: leave the start screen at once, interrupted."""
        self.interrupted = True
        self.on_exit(None)

    def show(self, message: str) -> None:
        """Show a paragraph (e.g. why joining is not possible yet) until a key."""
        self._say(message)
