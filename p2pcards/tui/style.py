"""Colours of the table screen, by ``class:`` name (the layout only names classes).

Hearts and diamonds are red through ``red-card`` (a card's face) and ``red-suit`` (a card or
suit named in text; darker on the light windows).  These names have no dot: a dotted class
(``card.cursor``) applies its parent (``card``) again wherever it comes in a fragment's style.
"""

from __future__ import annotations

from prompt_toolkit.styles import Style

__all__ = ["build_style", "STYLE_RULES"]

#: (class, style) pairs; later rules win where several classes meet on one fragment.
STYLE_RULES: list[tuple[str, str]] = [
    ("header", "bg:#1f3b2d #e8e8e8"),
    ("header.title", "bg:#1f3b2d #ffffff bold"),
    ("header.trump", "bg:#1f3b2d #ffffff bold"),
    ("table", "bg:#2e6b47 #e8e8e8"),
    ("felt", "bg:#2e6b47"),
    ("seat.name", "bold #ffffff"),
    ("seat.turn", "bg:#ffd75f #000000"),
    ("seat.out", "#9a9a9a"),
    ("seat.marker", "#c8e6c9 italic"),
    ("seat.info", "#e8e8e8"),
    ("trick.winner", "#ffd75f italic"),
    ("rule", "bg:#1f3b2d #6a9a7a"),
    ("panel", "bg:#1f3b2d #e8e8e8"),
    ("panel.title", "bg:#1f3b2d #ffffff bold"),
    ("prompt", "bg:#262626 #d0d0d0"),
    ("button", "bg:#5f87af #ffffff bold"),
    ("hand", "bg:#262626"),
    ("hand.key", "bg:#262626 #bcbcbc"),
    ("card", "bg:#fafafa #000000"),
    ("black-card", "#000000"),
    ("red-card", "#c00000"),
    ("card.legal", "bold"),
    ("card.edge", "#606060"),
    ("card.picked", "bg:#afd7ff"),
    ("card.cursor", "bg:#ffd75f"),
    ("card.illegal", "bg:#6c6c6c #3a3a3a nobold"),
    ("status", "bg:#444444 #ffffff"),
    ("status.turn", "bg:#ffd75f #000000 bold"),
    ("status.keys", "bg:#444444 #bcbcbc"),
    ("dialog", "bg:#dadada #000000"),
    ("dialog.frame", "bg:#dadada #000000"),
    ("choice", "bg:#eeeeee #000000"),
    ("choice.cursor", "bg:#ffd75f bold"),
    ("window", "bg:#eeeeee #000000"),
    ("window.frame", "bg:#eeeeee #000000"),
    ("window.keys", "bg:#eeeeee #005f87 bold"),
    ("verdict.ok", "#005f00 bold"),
    ("verdict.bad", "#af0000 bold"),
    ("too-small", "#ffd75f bold"),
    ("notice", "#ffd75f"),
    ("red-suit", "#ff6b6b"),
    ("window red-suit", "#c00000"),
    ("dialog red-suit", "#c00000"),
    ("choice red-suit", "#c00000"),
]


def build_style() -> Style:
    """The screen's :class:`~prompt_toolkit.styles.Style`."""
    return Style(STYLE_RULES)
