"""The table screen's layout: windows that draw the view model (and nothing else).

::

    ┌ header: game · deal · dealer · stock          trump ───────────────┐
    │            top seat             │ score panel                      │
    │ left seat   the trick   right   │                                  │
    │           bottom seat (you)     │                                  │
    ├ prompt: what the keys do now ────────────────────────────────────────┤
    │ the hand, as cards                                                  │
    └ status: shuffling… 2/4 · waiting for Ana · your turn ───────────────┘

Dialogs (a pick of cards, a list of choices: the game's decisions) float over the table,
never over the side panel (its scores stay in view while one decides); windows (help, scores, last trick, leave?,
the deal's summary, the match's end) float over the whole screen.  Every window's text is a function of
the model, so a resize simply lays the same state out again; below
:data:`~p2pcards.tui.model.MIN_COLS` x :data:`~p2pcards.tui.model.MIN_ROWS` the screen says
the terminal is too small.  Cards and choices carry mouse handlers (a click plays or marks).

A word is never cut by the edge of a window: text that does not fit a seat's or the score
panel's width ends in an ellipsis.  Hearts and diamonds are red wherever a card is named
(the ``red-suit`` class, last in the fragment's style: a dotted class such as ``card.cursor``
applies its parent ``card`` again, which would reset an earlier colour; prompt-toolkit drops
the colour where the output has none).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable

from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples, to_formatted_text
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
    WindowAlign,
)
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.widgets import Frame

from p2pcards.tui.model import MIN_COLS, MIN_ROWS, TableModel, card_label, is_red, too_small

__all__ = [
    "build_layout",
    "card_fragments",
    "hand_fragments",
    "header_fragments",
    "overlay_fragments",
    "panel_fragments",
    "on_click",
    "seat_fragments",
    "status_fragments",
    "terminal_size",
    "trick_fragments",
    "trump_fragments",
]

#: Width of one boxed card in the hand (┌───┐).
CARD_WIDTH = 5
#: Width of the trick's row of the left and right cards: the trick window is never narrower.
TRICK_WIDTH = 16
#: Rows of the middle band: the side seats and the trick.
SIDE_HEIGHT = 7


def terminal_size() -> tuple[int, int]:
    """(columns, rows) of the running application's output."""
    size = get_app().output.get_size()
    return size.columns, size.rows


def on_click(action: Callable[[], None]) -> Callable[[MouseEvent], object]:
    """A mouse handler that runs ``action`` when the button is released (a click)."""
    def handler(event: MouseEvent) -> object:
        if event.event_type == MouseEventType.MOUSE_UP:
            action()
            return None
        return NotImplemented

    return handler


def _card_style(card: str, *states: str) -> str:
    """A card's classes: ``card``, its states (legal, picked...), then its colour last
    (module docstring)."""
    colour = "class:red-card" if is_red(card) else "class:black-card"
    return " ".join(["class:card", *(f"class:card.{s}" for s in states), colour])


def card_fragments(card: str | None) -> StyleAndTextTuples:
    """One face-up card on the table: `` 7♥ `` on a card-coloured cell."""
    if card is None:
        return [("", "    ")]
    label = card_label(card)
    return [(_card_style(card), f"{label:>3} ")]


_RED_CARD = re.compile(r"(\S*[♥♦])")


def suited(style: str, text: str) -> StyleAndTextTuples:
    """``text`` in ``style``, with every card or suit of hearts or diamonds in it red."""
    return [(f"{style} class:red-suit" if i % 2 else style, part)
            for i, part in enumerate(_RED_CARD.split(text)) if part]


def fit(text: str, width: int | None) -> str:
    """``text`` cut to ``width`` columns with an ellipsis (None: as it is)."""
    if width is None or len(text) <= width:
        return text
    return text[:max(width - 1, 0)].rstrip() + "…"


class FitControl(FormattedTextControl):
    """A text control whose text is made for the width it is drawn in (``get(width)``;
    None while prompt-toolkit asks how wide the text would like to be)."""

    def __init__(self, get: Callable[[int | None], StyleAndTextTuples], **kwargs: object) -> None:
        self.width: int | None = None
        super().__init__(lambda: get(self.width), **kwargs)  # type: ignore[arg-type]

    def _get_formatted_text_cached(self) -> StyleAndTextTuples:
        return to_formatted_text(self.text, self.style)  # per width, not once per frame

    def preferred_width(self, max_available_width: int) -> int:
        self.width = None
        return super().preferred_width(max_available_width)

    def create_content(self, width: int, height: int | None) -> object:  # type: ignore[override]
        self.width = width
        return super().create_content(width, height)


# ---------------------------------------------------------------------- header, seats, trick
def header_fragments(model: TableModel) -> StyleAndTextTuples:
    """The top line's left part: game, deal, stock, game facts."""
    return [("class:header.title", f" {model.header()[0]}")]


def trump_fragments(model: TableModel) -> StyleAndTextTuples:
    """The top line's right part: the trump suit and, while it is public, the trump card."""
    trump = model.header()[1]
    if not trump:
        return []
    style = "class:header.trump"
    if model.snap.trump is not None and is_red(model.snap.trump):
        style += " class:red-suit"
    return [(style, f"{trump} ")]


def seat_fragments(model: TableModel, where: str, width: int | None = None) -> StyleAndTextTuples:
    """The seat(s) sitting ``where`` (bottom, right, top, left): name, who, cards, tricks;
    each line fitted to ``width`` (a side seat lists its facts one a line)."""
    out: StyleAndTextTuples = []
    for seat in range(model.game.seats):
        if model.where(seat) != where:
            continue
        panel = model.seat_panel(seat)
        name_style = "class:seat.name"
        if panel.turn:
            name_style += " class:seat.turn"
        if not panel.active:
            name_style += " class:seat.out"
        dealer = f" ({model.text('dealer_mark')})" if panel.dealer else ""
        side = where in ("left", "right")
        details = [d for d in panel.detail.split(" · ") if d]
        if side:  # one fact a line, from the middle of the trick down while they fit its height
            # cards face up (a dummy's, a replay's) take as many lines as they need
            cards = textwrap.wrap(panel.cards, width - 2) if width and width > 2 and panel.cards else [panel.cards]
            infos = [panel.marker, panel.runs, *cards, *details]
            lines = [("class:seat.marker" if i < 2 else "class:seat.info", x) for i, x in enumerate(infos) if x]
            if len(lines) < SIDE_HEIGHT - 1:
                out.append(("", "\n"))
        else:
            lines = [("class:seat.marker", " · ".join(x for x in (panel.marker, panel.runs) if x)),
                     ("class:seat.info", " · ".join(x for x in (panel.cards, panel.detail) if x))]
        out.append((name_style, fit(f" {'▶ ' if panel.turn else ''}{panel.name}{dealer} ", width)))
        for style, text in lines:
            if text:
                out.append(("", "\n"))
                out += suited(style, fit(text, width))
    return out


def trick_fragments(model: TableModel) -> StyleAndTextTuples:
    """The cards on the table, each laid toward the player who played it."""
    cards, winner = model.trick_cards()
    out: StyleAndTextTuples = []
    out += card_fragments(cards.get("top"))
    out.append(("", "\n\n"))
    if model.game.seats > 2:
        out += card_fragments(cards.get("left"))
        out.append(("", " " * (TRICK_WIDTH - 8)))
        out += card_fragments(cards.get("right"))
    out.append(("", "\n\n"))
    out += card_fragments(cards.get("bottom"))
    out.append(("", "\n"))
    if winner is not None:
        out.append(("class:trick.winner", winner))
    return out


def notice_fragments(model: TableModel, width: int | None = None) -> StyleAndTextTuples:
    """What the table did by itself (the game's notes, the cards passed to the person)."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(model.notices()):
        if i:
            out.append(("", "\n"))
        out += suited("class:notice", fit(f" {line} ", width))
    return out


def panel_fragments(model: TableModel, width: int | None = None) -> StyleAndTextTuples:
    """The score panel at the side."""
    out: StyleAndTextTuples = [("class:panel.title", fit(f" {model.text('scores')}", width) + "\n")]
    for line in model.score_lines():
        out.append(("class:panel", fit(f" {line}", width) + "\n"))
    return out


# ---------------------------------------------------------------------- the hand
def hand_fragments(model: TableModel, columns: int | None = None) -> StyleAndTextTuples:
    """The person's hand as boxed cards (one-line cells when the terminal is narrow),
    sorted by suit and rank; legal cards bright, illegal ones dimmed; a click plays."""
    cards = model.hand_cards()
    if not cards:
        return []
    width = columns if columns is not None else terminal_size()[0]
    boxed = len(cards) * CARD_WIDTH <= width - 2
    lines: list[StyleAndTextTuples] = [[], [], [], []] if boxed else [[], []]
    for hc in cards:
        click = on_click(lambda i=hc.index: model.click_card(i))  # type: ignore[misc]
        states = ["legal"] if hc.legal else []
        states += ["picked"] * hc.picked + ["cursor"] * hc.cursor
        style = _card_style(hc.card, *states)
        if hc.legal is False:
            style += " class:card.illegal"  # dimmed, over the colour
        mark = "▲" if hc.picked else ("▼" if hc.cursor else " ")
        w = CARD_WIDTH if boxed else 4
        top = f"{mark}{hc.key}{'*' if hc.received else ''}".center(w)
        lines[0].append(("class:hand.key", top, click))
        if boxed:
            edge = _card_style(hc.card, *states, "edge") + (" class:card.illegal" if hc.legal is False else "")
            lines[1].append((edge, "┌───┐", click))
            lines[2].append((style, f"│{hc.label:>3}│", click))
            lines[3].append((edge, "└───┘", click))
        else:
            lines[1].append((style, f"{hc.label:>3} ", click))
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("", "\n"))
        out.extend(line)
    return out


def _wrap_window_line(part: str, width: int, kind: str | None) -> list[str]:
    """A window's line wrapped to ``width``; in the help, a key's meaning goes on under
    itself (indented past the keys' column), not under the key."""
    if kind == "help" and (column := re.match(r"(\S.*?\S?)( {2,})\S", part)) is not None:
        indent = " " * column.end(2)
        return textwrap.wrap(part, width, subsequent_indent=indent, break_long_words=True) or [""]
    return textwrap.wrap(part, width, break_long_words=True, drop_whitespace=kind != "help") or [""]


def wrapped(text: str, width: int | None, indent: str = "") -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken between words (a line that
    goes on starts with ``indent``); as it is when the width is not known yet."""
    if width is None or width < 12:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent) or [""]


def prompt_fragments(model: TableModel, width: int | None = None) -> StyleAndTextTuples:
    """What the keys do now, or a hint: wrapped to ``width`` (a long hint is read whole)."""
    out: StyleAndTextTuples = []
    for i, line in enumerate(wrapped(f" {model.prompt()}", width - 1 if width else None, "   ")):
        if i:
            out.append(("class:prompt", "\n"))
        out += suited("class:prompt", line)
    swap = model.swap_prompt()
    if swap is not None and model.mode is not None:
        out.append(("class:prompt", "   "))
        click = on_click(model.do_swap)
        out += [(style, text, click) for style, text, *_ in suited("class:button", f" {swap} ")]
    return out


def status_fragments(model: TableModel, width: int | None = None) -> StyleAndTextTuples:
    """What happens now, then the help key; a status longer than ``width`` wraps."""
    keys = "? " + model.text("help_title")
    lines = wrapped(f" {model.status()} ", width - len(keys) - 2 if width else None, "   ")
    style = "class:status class:status.turn" if model.decision is not None else "class:status"
    out: StyleAndTextTuples = []
    for i, line in enumerate(lines):
        if i:
            out.append(("class:status", "\n"))
        out.append((style, f"{line} " if i == 0 and len(lines) == 1 else line))
    return out + [("class:status", "  "), ("class:status.keys", keys)]


# ---------------------------------------------------------------------- dialogs and windows
def dialog_fragments(model: TableModel) -> StyleAndTextTuples:
    """The body of the decision dialog: its text, then clickable buttons or choices."""
    out: StyleAndTextTuples = []
    for line in model.dialog_lines():
        out += suited("class:dialog", f" {line} \n")
    if model.choosing:
        for i, (_, label, red, cursor) in enumerate(model.choice_options()):
            style = "class:choice"
            if cursor:
                style += " class:choice.cursor"
            if red:  # last (module docstring)
                style += " class:red-suit"
            out.append(("class:dialog", "  "))
            out.append((style, f" {label} ", on_click(lambda i=i: model.click_trump(i))))  # type: ignore[misc]
            out.append(("class:dialog", "\n"))
    elif model.picking:
        out.append(("class:dialog", " "))
        out.append(("class:button", f" {model.button('confirm')} ⏎ ", on_click(model.enter)))
        if model.decision is not None and model.decision.may_decline:
            out.append(("class:dialog", "  "))
            out.append(("class:button", f" {model.button('decline')} (n) ", on_click(model.sit_out)))
    return out


def dialog_title(model: TableModel) -> str:
    return model.dialog_title() if model.picking or model.choosing else ""


def overlay_title(model: TableModel) -> str:
    t = model.text
    kind = model.overlay
    if kind == "summary" and model.summary is not None:
        return model.summary_title()
    return {
        "help": t("help_title"), "scores": t("scores"), "last": t("last_trick"), "quit": t("quit_title"),
        "final": t("final_title" if (model.final or {}).get("winner") is not None else "final_title_stopped"),
        "error": t("error_title"),
    }.get(kind or "", "") or model.extra_title(kind)


def overlay_fragments(model: TableModel) -> StyleAndTextTuples:
    """The body of the window on top (help, scores, last trick, leave?, summary, final, error)."""
    t = model.text
    kind = model.overlay
    lines: list[str]
    keys = ""
    if kind == "help":
        lines = model.help_lines()
    elif kind == "scores":
        lines = model.score_lines()
    elif kind == "last":
        out: StyleAndTextTuples = []
        last = model.snap.last_trick
        if last is None:
            return [("class:window", f" {t('no_trick_yet')} ")]
        _, plays, winner = last
        for s, c in plays:
            out.append(("class:window", f" {model.name(s):<14} "))
            out += card_fragments(c)
            out.append(("class:window", "\n"))
        out.append(("class:window", " " + model.won_by(winner) + " "))
        return out
    elif kind == "quit":
        lines = [t("quit_text", path=model.log_path or "-", command=model.resume_command())]
        keys = t("quit_keys")
    elif kind == "summary":
        lines = model.summary_lines()
        keys = t("see_result") if "final" in model.modal else t("continue")
    elif kind == "final":
        lines = model.final_lines()
        keys = t("leave_key")
    elif kind == "error":
        lines = [model.error or ""]
        keys = t("leave_key")
    else:
        extra = model.extra_window(kind)
        if extra is None:
            return []
        lines, keys = extra
    width = max(terminal_size()[0] - 8, 20)
    wrapped = [piece for line in lines for part in line.split("\n") for piece in _wrap_window_line(part, width, kind)]
    out = []
    for line in wrapped:
        style = "class:window"
        if line.startswith("✓"):
            style += " class:verdict.ok"
        elif line.startswith("✗"):
            style += " class:verdict.bad"
        out += suited(style, f" {line} \n")
    if keys:
        out.append(("class:window.keys", f" {keys} "))
    return out


def too_small_fragments(model: TableModel, width: int | None = None) -> StyleAndTextTuples:
    cols, rows = terminal_size()
    said = model.text("too_small", cols=cols, rows=rows, need_cols=MIN_COLS, need_rows=MIN_ROWS)
    return [("class:too-small", "\n".join(wrapped(said, width)))]


# ---------------------------------------------------------------------- the whole screen
def _text_window(get: Callable[[], StyleAndTextTuples], **kwargs: object) -> Window:
    return Window(FormattedTextControl(get), **kwargs)  # type: ignore[arg-type]


def _fit_window(get: Callable[[int | None], StyleAndTextTuples], **kwargs: object) -> Window:
    return Window(FitControl(get), **kwargs)  # type: ignore[arg-type]


def build_layout(model: TableModel) -> Layout:
    """The table screen for ``model`` (module docstring)."""
    header = VSplit([
        _text_window(lambda: header_fragments(model), height=1, style="class:header"),
        _text_window(lambda: trump_fragments(model), height=1, style="class:header", align=WindowAlign.RIGHT),
    ])
    top = _fit_window(lambda w: seat_fragments(model, "top", w), height=3, align=WindowAlign.CENTER)
    left = _fit_window(lambda w: seat_fragments(model, "left", w), width=D(min=12, preferred=16, max=22))
    right = _fit_window(lambda w: seat_fragments(model, "right", w), width=D(min=12, preferred=16, max=22),
                        align=WindowAlign.RIGHT)
    trick = _text_window(lambda: trick_fragments(model), align=WindowAlign.CENTER, style="class:felt",
                         width=D(min=TRICK_WIDTH, preferred=TRICK_WIDTH + 8))
    bottom = _fit_window(lambda w: seat_fragments(model, "bottom", w), height=3, align=WindowAlign.CENTER)
    notice = _fit_window(lambda w: notice_fragments(model, w), align=WindowAlign.CENTER,
                         height=lambda: D(min=0, max=2, preferred=len(model.notices())))
    middle = VSplit([left, trick, right], padding=1, height=SIDE_HEIGHT)
    table = HSplit([top, Window(), middle, notice, Window(), bottom], style="class:table")
    panel = _fit_window(lambda w: panel_fragments(model, w), width=D(min=25, preferred=27, max=32),
                        style="class:panel")
    # a decision's dialog floats over the table only: the panel (scores, the deal so far) stays in view
    dialog = Frame(_text_window(lambda: dialog_fragments(model), dont_extend_width=True, style="class:dialog"),
                   title=lambda: dialog_title(model), style="class:dialog.frame")
    show_dialog = Condition(lambda: model.picking or model.choosing)
    playing = FloatContainer(content=table, floats=[Float(ConditionalContainer(dialog, filter=show_dialog), bottom=0)])
    body = VSplit([playing, Window(width=1, char="│", style="class:rule"), panel])
    # a long prompt or hint ("hint: play A♥ — your partner is winning the trick: ...") wraps, never cut
    prompt = _fit_window(lambda w: prompt_fragments(model, w), height=D(min=1, max=3), style="class:prompt")
    hand = _text_window(lambda: hand_fragments(model), height=4, align=WindowAlign.CENTER, style="class:hand")
    status = _fit_window(lambda w: status_fragments(model, w), height=D(min=1, max=2), style="class:status")
    screen = HSplit([header, body, prompt, hand, status])

    window = Frame(_text_window(lambda: overlay_fragments(model), dont_extend_width=True, style="class:window"),
                   title=lambda: overlay_title(model), style="class:window.frame")
    show_window = Condition(lambda: model.overlay is not None)
    root = FloatContainer(
        content=screen,
        floats=[Float(ConditionalContainer(window, filter=show_window))],
    )
    small = Condition(lambda: too_small(*terminal_size()))
    return Layout(HSplit([
        ConditionalContainer(root, filter=~small),
        ConditionalContainer(_fit_window(lambda w: too_small_fragments(model, w), align=WindowAlign.CENTER),
                             filter=small),
    ]))

