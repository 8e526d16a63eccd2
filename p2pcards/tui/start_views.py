"""What the start screen's body shows in each of its views: the menu, the play and host
forms, the LAN list, the saved tables, the past games, the statistics, and the lines the
person types in (an address, a name) or reads (a message).  Plain fragments from the
:class:`~p2pcards.tui.start_model.StartModel`; a clickable line does what its key does.
:func:`p2pcards.tui.start.start_fragments` puts them together.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples

from p2pcards.tui.layout import on_click
from p2pcards.tui.start_model import MENU, MENU_KEYS, PlayForm, StartModel

__all__ = ["Body", "VIEWS"]


class Body:
    """The start screen's body as it is built: styled lines, some of them clickable."""

    def __init__(self) -> None:
        self.out: StyleAndTextTuples = []

    def line(self, style: str, text: str, action: Callable[[], None] | None = None) -> None:
        """A line of ``text`` in ``style``; a click on it calls ``action``."""
        self.part(style, text, action)
        self.out.append(("", "\n"))

    def part(self, style: str, text: str, action: Callable[[], None] | None = None) -> None:
        """A piece of a line (the line goes on after it)."""
        if action is None:
            self.out.append((style, text))
        else:
            self.out.append((style, text, on_click(action)))


def _style(selected: bool) -> str:
    return "class:item.cursor" if selected else "class:item"


def menu_view(model: StartModel, body: Body) -> None:
    t = model.text
    labels = {"play": t("start_play"), "host": t("start_host"), "lan": t("start_lan"),
              "join": t("start_join"), "saved": t("start_saved"), "past": t("start_past"),
              "stats": t("start_stats"), "web": t("start_web"), "quit": t("start_quit")}
    for i, item in enumerate(MENU):

        def choose(i: int = i) -> None:
            model.cursor = i
            model.enter()

        body.line(_style(i == model.cursor), f"  {MENU_KEYS[item]}. {labels[item]}  ", choose)


def form_view(model: StartModel, body: Body) -> None:
    """The play or host form: a row per choice (its value between arrows, its help under
    it), then the button that starts."""
    t = model.text
    form = model.active_form
    for i, row in enumerate(form.rows()):
        style = _style(i == model.row)
        if row == "start":
            body.line("", "")

            def start(i: int = i) -> None:
                model.row = i
                model.enter()

            body.line(style, f"  [ {t('start_open' if model.view == 'host' else 'start_go')} ]  ", start)
            continue

        def bump(i: int = i) -> None:
            model.row = i
            model.right()

        _form_row(model, body, form, row, style, bump)


def _form_row(model: StartModel, body: Body, form: PlayForm, row: str, style: str, bump: Callable[[], None]) -> None:
    """A choice of a form: its label, its value in the screen's words, and its help."""
    t = model.text
    spec = form.spec
    fixed = {"game": t("start_game"), "level": t("start_level"), "remote": t("start_remote"),
             "hints": t("start_hints")}
    label = fixed[row] if row in fixed else spec.text(t.lang, f"option.{row}")
    value = form.label(row, t.lang)  # the game's words: its title, its option values' labels
    if row == "level" and f"level_{value}" in t:  # the choice stays the CLI's word; the screen translates it
        value = t(f"level_{value}")
    elif row == "hints":
        value = t(f"start_hints_{value}")
    body.part(style, f"  {label:<18}", bump)
    body.line("class:value", f" ◀ {value} ▶", bump)
    helps = [spec.text(t.lang, f"option.{o.name}.help") for o in spec.options if o.name == row]
    if row == "game":
        helps = [spec.text(t.lang, "description")]
    if helps and helps[0]:  # under its row, wrapped: read whole whatever the width
        for part in textwrap.wrap(helps[0], max(model.width - 6, 20)):
            body.line("class:help", f"      {part}")


def lan_view(model: StartModel, body: Body) -> None:
    t = model.text
    if not model.discovery:
        body.line("class:placeholder", "  " + t("lan_placeholder"))
    elif model.lan_problem:
        body.line("class:error", f"  {model.lan_problem}")
    tables = model.tables()
    if model.discovery and not tables and not model.lan_problem:
        body.line("class:help", "  " + t("lan_none"))
    for i, e in enumerate(tables):
        text = t("lan_entry", game=model.game_title(e.game), host=e.host, address=f"{e.address}:{e.port}",
                 free=t.plural("free_seats", e.free))
        body.line(_style(i == model.lan_cursor), f"  {e.name}: {text}" + (f" ({e.reason})" if e.reason else ""))


def saved_view(model: StartModel, body: Body) -> None:
    t = model.text
    body.line("class:help", "  " + (t("saved_help") if model.saved else t("saved_none")))
    for i, sv in enumerate(model.saved):
        style = _style(i == model.saved_cursor)

        def pick(i: int = i) -> None:
            model.saved_cursor = i
            model.enter()

        for k, part in enumerate(textwrap.wrap(model.saved_line(sv), max(model.width - 2, 20),
                                               subsequent_indent="    ")):
            body.line(style if k == 0 else "class:item", f"  {part}", pick)


def past_view(model: StartModel, body: Body) -> None:
    t = model.text
    shown = model.past_window()
    if not model.past:
        body.line("class:help", "  " + t("past_none"))
    else:
        where = t("past_position", first=shown.start + 1, last=shown.stop, n=len(model.past))
        body.line("class:help", f"  {t('past_help')} · {where}")
    for i in shown:

        def replay(i: int = i) -> None:
            model.past_cursor = i
            model.enter()

        style = "class:item.cursor" if i == model.past_cursor else (
            "class:item" if model.past[i].path is not None else "class:help")  # unreadable: not offered
        body.line(style, f"  {model.past_line(model.past[i])}", replay)


def stats_view(model: StartModel, body: Body) -> None:
    page, top, total = model.stats_window()
    if total > len(page):
        body.line("class:help", "  " + model.text("past_position", first=top + 1, last=top + len(page), n=total))
    for text in page:
        body.line("class:item", f"  {text}")


def join_view(model: StartModel, body: Body) -> None:
    body.line("", f"  {model.text('start_address')}: ")
    body.line("class:value", f"  {model.address}█")


def name_view(model: StartModel, body: Body) -> None:
    t = model.text
    body.line("", f"  {t('start_name')}: ")
    body.line("class:value", f"  {model.name}█")
    body.line("", "")
    for part in textwrap.wrap(t("start_name_help"), max(model.width - 2, 20)):
        body.line("class:help", f"  {part}")


def message_view(model: StartModel, body: Body) -> None:
    for para in model.message.split("\n"):
        body.line("class:placeholder", f"  {para}")


#: What draws each view of the start screen (a view not here shows nothing but an error).
VIEWS: dict[str, Callable[[StartModel, Body], None]] = {
    "menu": menu_view, "play": form_view, "host": form_view, "lan": lan_view, "saved": saved_view,
    "past": past_view, "stats": stats_view, "join": join_view, "name": name_view, "message": message_view,
}
