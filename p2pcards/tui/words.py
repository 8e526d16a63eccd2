"""How a game's words and cards read on the screens: card labels and colours, hand order,
and a game's :class:`~p2pcards.core.summary.Line` and :class:`~p2pcards.core.summary.Summary` in a
language (shared by the full-screen table and text mode)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from p2pcards.core import Card, GameSpec, Line, Summary, pretty

__all__ = ["SUIT_ORDER", "card_label", "is_red", "sort_hand", "game_word", "line_text", "summary_text"]

#: Suits in the hand from left to right: colours alternate (♠ ♥ ♣ ♦).
SUIT_ORDER = "SHCD"

def card_label(card: Card) -> str:
    """Rank and suit symbol together: ``"7H"`` -> ``"7♥"``, ``"TC"`` -> ``"10♣"``."""
    return pretty(card)


def is_red(card_or_suit: str) -> bool:
    """Hearts and diamonds are red."""
    return card_or_suit[-1] in "HD"


def sort_hand(hand: Sequence[tuple[int, Card]], strength: Mapping[str, int]) -> list[tuple[int, Card]]:
    """``(position, card)`` sorted by suit (:data:`SUIT_ORDER`), then rank from high to low."""
    return sorted(hand, key=lambda pc: (SUIT_ORDER.index(pc[1][1]), -strength.get(pc[1][0], 0), pc[0]))


def game_word(spec: GameSpec | None, lang: str, key: str) -> str | None:
    """The game's words for ``key`` in ``lang``, or None when the game has no such key."""
    if spec is None:
        return None
    try:
        return spec.text(lang, key)
    except KeyError:
        return None


def line_text(spec: GameSpec | None, lang: str, line: Line, seat_name: Callable[[int, bool], str],
              **extra: object) -> str:
    """A game's :class:`~p2pcards.core.summary.Line` in ``lang``: its words with the fields
    filled in; a seat is named by ``seat_name(seat, first)`` (``first``: it opens the
    sentence).  ``extra`` are fields the screen fills (``k``...).  Words the game lacks
    show their key; a field the words do not use is ignored."""
    template = game_word(spec, lang, line.key) or line.key
    fields: dict[str, object] = {**extra, **line.fields}
    for name, seat in line.seats.items():
        fields[name] = seat_name(seat, template.startswith("{" + name + "}"))
    try:
        return template.format(**fields)
    except (KeyError, IndexError, ValueError):
        return template


def summary_text(spec: GameSpec | None, lang: str, summary: Summary, side_name: Callable[[int], str],
                 seat_name: Callable[[int, bool], str], mark: str = " ★") -> list[str]:
    """A :class:`~p2pcards.core.summary.Summary` as lines: one per side, ``NAME — label value,
    ...`` (a value that is one of the game's words shows alone), ``mark`` after the
    highlighted side, then the notes."""
    labels = [game_word(spec, lang, c) or c for c in summary.columns]
    out = []
    for side, values in summary.rows:
        cells = []
        for label, value in zip(labels, values):
            word = game_word(spec, lang, value) if isinstance(value, str) else None
            cells.append(word if word is not None else f"{label} {value}".strip())
        out.append(f"{side_name(side)} — {', '.join(cells)}{mark if side == summary.highlight else ''}")
    out += [line_text(spec, lang, note, seat_name) for note in summary.notes]
    return out


