"""The screen before a LAN table starts: who hosts what, where players join, seats taken.

:class:`LobbyModel` is the data (no terminal, no trio): lines keyed by what they say (so a
new count replaces the old one), a status line, and an error that waits for a key.  It
ends through ``on_exit("table")`` when the table starts (the table screen follows) or
``on_exit(None)`` when the person leaves or reads the error.  :func:`build_lobby_app` is
its prompt-toolkit application.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Mapping

from prompt_toolkit.application import Application, get_app
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from p2pcards.core import GameSpec
from p2pcards.words import Text

__all__ = ["LobbyModel", "build_lobby_app", "end_if_ended"]

LOBBY_STYLE = Style([
    ("title", "bg:#1f3b2d #ffffff bold"),
    ("info", ""),
    ("status", "#ffd75f bold"),
    ("error", "#ff5f5f bold"),
    ("keys", "bg:#444444 #ffffff"),
])


class LobbyModel:
    """What the lobby screen shows (module docstring); ``games`` (name -> spec) gives the
    games' titles in the screen's language (:meth:`game_title`)."""

    def __init__(self, text: Text, games: Mapping[str, GameSpec] | None = None) -> None:
        self.text = text
        self.games: Mapping[str, GameSpec] = games or {}
        self.lines: dict[str, str] = {}
        self.status = ""
        self.error: str | None = None
        #: how the screen ended, once it did ("table" or None); None while it runs
        self.result: str | None = None
        self.ended = False
        #: the person left with Ctrl-C (an interrupt: exit status 130)
        self.interrupted = False
        self.on_exit: Callable[[str | None], None] = lambda result: None
        self.listeners: list[Callable[[], None]] = []

    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    def game_title(self, name: str) -> str:
        """The title of the game called ``name`` in the screen's language, in the game's own
        words (the name itself for a game this screen does not know)."""
        spec = self.games.get(name)
        return spec.text(self.text.lang, "title") if spec is not None else name

    # ------------------------------------------------------------------ from the table
    def say(self, key: str, line: str) -> None:
        """Show ``line`` under ``key`` (replacing what that key said before)."""
        self.lines[key] = line
        self._changed()

    def wait(self, status: str) -> None:
        self.status = status
        self._changed()

    def failed(self, reason: str) -> None:
        """The table could not be played: say why until a key."""
        self.error = reason
        self.status = ""
        self._changed()

    def started(self) -> None:
        """The table started: the table screen takes over."""
        self._end("table")

    # ------------------------------------------------------------------ keys
    def leave(self) -> None:
        self._end(None)

    def interrupt(self) -> None:
        """Ctrl-C: leave, interrupted (the command exits 130)."""
        self.interrupted = True
        self._end(None)

    def key(self) -> None:
        """Any other key: leaves once an error is shown."""
        if self.error is not None:
            self._end(None)

    def _end(self, result: str | None) -> None:
        if self.ended:
            return
        self.ended = True
        self.result = result
        self.on_exit(result)

    # ------------------------------------------------------------------ drawing
    def fragments(self, width: int | None = None) -> StyleAndTextTuples:
        """The screen's body, each line wrapped to ``width`` columns (None: as it is), a
        wrapped line going on further indented: an error is read whole, never cut."""
        t = self.text
        out: StyleAndTextTuples = []

        def put(style: str, text: str) -> None:
            for part in text.split("\n"):  # a line of several rows keeps its indent
                rows = textwrap.wrap(part, width - 2, subsequent_indent="  ") if width and width > 12 else [part]
                out.extend(piece for row in rows or [""] for piece in ((style, f"  {row}"), ("", "\n")))

        for line in self.lines.values():
            put("class:info", line)
        if self.status:
            out.append(("", "\n"))
            put("class:status", self.status)
        if self.error is not None:
            out.append(("", "\n"))
            put("class:error", t("lobby_failed", reason=self.error))
        return out

    def keys_line(self) -> str:
        return self.text("lobby_keys_failed" if self.error is not None else "lobby_keys")


def build_lobby_app(model: LobbyModel, *, input: Input | None = None,
                    output: Output | None = None) -> Application[str | None]:
    """The lobby screen; its result is ``"table"`` when the table started, else None."""
    kb = KeyBindings()

    @kb.add("q")
    @kb.add("escape", eager=True)
    def _leave(event: KeyPressEvent) -> None:
        model.leave()

    @kb.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        model.interrupt()

    @kb.add("<any>")
    def _other(event: KeyPressEvent) -> None:
        model.key()

    title = Window(FormattedTextControl(lambda: [("class:title", f" {model.text('lobby_title')} ")]), height=1,
                   style="class:title")
    body = Window(FormattedTextControl(lambda: model.fragments(get_app().output.get_size().columns)))
    keys = Window(FormattedTextControl(lambda: [("class:keys", model.keys_line())]), height=1, style="class:keys")
    app: Application[str | None] = Application(
        layout=Layout(HSplit([title, Window(height=1), body, keys])),
        key_bindings=kb,
        style=LOBBY_STYLE,
        full_screen=True,
        input=input,
        output=output,
    )

    def leave(result: str | None) -> None:
        if app.future is not None and not app.future.done():
            app.exit(result=result)

    model.on_exit = leave
    model.listeners.append(app.invalidate)
    return app


def end_if_ended(app: Application[str | None], model: LobbyModel) -> Callable[[], None]:
    """A ``pre_run`` for the lobby application: if the model ended before the application
    ran (a very fast table), end the application at once."""

    def pre_run() -> None:
        if model.ended:
            app.exit(result=model.result)

    return pre_run
