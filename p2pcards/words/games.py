"""A game's words in a language: its text keys, and its :class:`~p2pcards.core.summary.Line`
and :class:`~p2pcards.core.summary.Summary` as text (shared by the full-screen table, text
mode and the history's exports).  Seats are named by the caller, each screen its own way.
"""

from __future__ import annotations

from collections.abc import Callable

from p2pcards.core import GameSpec, Line, Summary
from p2pcards.words.text import STRINGS

__all__ = ["game_word", "line_text", "summary_text"]


def game_word(spec: GameSpec | None, lang: str, key: str) -> str | None:
    """The game's words for ``key`` in ``lang``, or None when the game has no such key."""
    if spec is None:
        return None
    try:
        return spec.text(lang, key)
    except KeyError:
        return None


def line_text(spec: GameSpec | None, lang: str, line: Line, seat_name: Callable[[int, bool], str],
              me: int | None = None, **extra: object) -> str:
    """A game's :class:`~p2pcards.core.summary.Line` in ``lang``: its words with the fields
    filled in; a seat is named by ``seat_name(seat, first)`` (``first``: it opens the
    sentence), a suit by its name in ``lang``.  When the seat opening the sentence is the
    person's (``me``) and the game has words ``KEY_you`` for it, those are used (a language
    may word the person's own deeds apart: Portuguese "Apanhou tudo!", not "Eu apanhou
    tudo!").  ``extra`` are fields the screen fills (``k``...).  Words the game lacks show
    their key; a field the words do not use is ignored."""
    template = game_word(spec, lang, line.key) or line.key
    opening = next((seat for name, seat in line.seats.items() if template.startswith("{" + name + "}")), None)
    if me is not None and opening == me:
        template = game_word(spec, lang, f"{line.key}_you") or template
    fields: dict[str, object] = {**extra, **line.fields}
    for name, seat in line.seats.items():
        fields[name] = seat_name(seat, template.startswith("{" + name + "}"))
    words = STRINGS.get(lang, STRINGS["en"])
    for name, suit in line.suits.items():
        fields[name] = words.get(f"suit_{suit}", suit)
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template


def summary_text(spec: GameSpec | None, lang: str, summary: Summary, side_name: Callable[[int], str],
                 seat_name: Callable[[int, bool], str], mark: str = " ★", me: int | None = None) -> list[str]:
    """A :class:`~p2pcards.core.summary.Summary` as lines: one per side, ``NAME — label value,
    ...`` (a value that is one of the game's words shows alone), ``mark`` after the
    highlighted side, then the notes (``me``: as :func:`line_text`)."""
    labels = [game_word(spec, lang, c) or c for c in summary.columns]
    out = []
    for side, values in summary.rows:
        cells = []
        for label, value in zip(labels, values):
            word = game_word(spec, lang, value) if isinstance(value, str) else None
            cells.append(word if word is not None else f"{label} {value}".strip())
        out.append(f"{side_name(side)} — {', '.join(cells)}{mark if side == summary.highlight else ''}")
    out += [line_text(spec, lang, note, seat_name, me) for note in summary.notes]
    return out


