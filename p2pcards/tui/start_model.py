"""The start screen as data (``p2pcards`` alone): a menu, the "play against the computer"
form, the live list of LAN tables, join by address -- no terminal, no trio.

Views: ``menu`` (play, host, LAN tables, join, your tables, quit), ``play`` (game, each
table option of that game, the computer players' level, start), ``host`` (the same form
with how many seats are for players on the LAN; the person takes seat 0, LAN players the
next seats, computer players run by this machine the rest), ``lan`` (tables seen by
discovery, live), ``join`` (an address typed in), ``saved`` (the tables this identity
played here, as ``p2pcards resume --list`` lists them: an unfinished one is taken up
again, an ended one says how it ended), ``message`` (a paragraph and a key to go back).  Keys
arrive as method calls; the screen ends through ``on_exit(result)`` with a
:class:`StartChoice` (or None to quit).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2pcards.core import GameSpec
from p2pcards.core.players import PLAYER_LEVELS, TABLE_LEVEL
from p2pcards.tui.i18n import Text

__all__ = ["MENU", "LanEntry", "PlayForm", "SavedEntry", "StartChoice", "StartModel", "parse_address"]

#: The menu, top to bottom.
MENU = ("play", "host", "lan", "join", "saved", "quit")



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
    when the table was picked from the LAN list) or ``resume`` (``path``: the saved
    table's manifest)."""

    kind: str
    game: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    level: str = TABLE_LEVEL
    host: str = ""
    port: int = 0
    remote: int = 0
    fingerprint: str | None = None
    path: Path | None = None


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

    @property
    def spec(self) -> GameSpec:
        return self.games[self.game]

    @property
    def remotes(self) -> int:
        """Seats for players on the LAN (hosting)."""
        most = self.spec.seats - 1
        return most if not 0 < self.remote <= most else self.remote

    def rows(self) -> list[str]:
        """Row names: ``game``, one per option of the game, ``remote`` (hosting), ``level``, ``start``."""
        return ["game", *(o.name for o in self.spec.options), *(["remote"] if self.hosting else []), "level", "start"]

    def value(self, row: str) -> str:
        if row == "game":
            return self.spec.title
        if row == "level":
            return PLAYER_LEVELS[self.level]
        if row == "remote":
            return str(self.remotes)
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
        else:
            for o in self.spec.options:
                if o.name == row:
                    self.values[row] = (self.values.get(row, 0) + step) % len(o.allowed)

    def options(self) -> dict[str, Any]:
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


class StartModel:
    """Everything on the start screen (module docstring)."""

    def __init__(self, games: Sequence[GameSpec], text: Text, *, discovery: bool = True) -> None:
        if not games:
            raise ValueError("no game is installed")
        ordered = sorted(games, key=lambda s: (s.order, s.name))  # as the games ask (GameSpec.order)
        self.text = text
        self.view = "menu"
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
        self.error = ""
        self.message = ""
        self.on_exit: Callable[[StartChoice | None], None] = lambda choice: None
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
        if self.view == "menu":
            self.cursor = (self.cursor + step) % len(MENU)
        elif self.view in ("play", "host"):
            self.row = (self.row + step) % len(self.active_form.rows())
        elif self.view == "lan" and self.lan:
            self.lan_cursor = (self.lan_cursor + step) % len(self.lan)
        elif self.view == "saved" and self.saved:
            self.saved_cursor = (self.saved_cursor + step) % len(self.saved)

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
        view = self.view
        if view == "menu":
            item = MENU[self.cursor]
            if item == "quit":
                self.on_exit(None)
            else:
                self.view = item
                self.error = ""
                self.row = 0
        elif view in ("play", "host"):
            form = self.active_form
            rows = form.rows()
            if rows[self.row] == "start":
                self.on_exit(StartChoice(view, form.spec.name, form.options(), form.value("level"),
                                         remote=form.remotes if view == "host" else 0))
            else:
                form.change(rows[self.row], +1)
                self.row = min(self.row, len(form.rows()) - 1)
        elif view == "lan":
            tables = self.tables()
            if tables:
                entry = tables[self.lan_cursor]
                if entry.reason is not None:
                    self.error = entry.reason
                else:
                    from p2pcards.net.address import format_host_port

                    self._join(format_host_port(entry.address, entry.port), entry.fingerprint)
        elif view == "join":
            self._join(self.address)
        elif view == "saved" and self.saved:
            saved = self.saved[self.saved_cursor]
            if saved.state != "unfinished":
                self.error = self.text("saved_is_over")
            elif not saved.person:
                self.error = self.text("saved_no_person", prefix=saved.table[:8])
            else:
                self.on_exit(StartChoice("resume", game=saved.game, path=saved.path))
        elif view == "message":
            self.view = "menu"

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
        self.view = "menu"
        self.error = ""

    def type(self, text: str) -> None:
        """Characters typed (the address, in the join view)."""
        if self.view == "join":
            self.address += "".join(c for c in text if c.isprintable())
            self.error = ""

    def backspace(self) -> None:
        if self.view == "join":
            self.address = self.address[:-1]

    def quit(self) -> None:
        """q: leave from the menu, back from elsewhere (not while typing an address)."""
        if self.view == "menu":
            self.on_exit(None)
        elif self.view == "join":
            self.type("q")
        else:
            self.back()

    def show(self, message: str) -> None:
        """Show a paragraph (e.g. why joining is not possible yet) until a key."""
        self._say(message)
