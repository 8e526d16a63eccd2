"""Small pictures drawn with block characters, as lines of text: a points-per-deal chart of a
match and a form line over the last matches.  Pure functions: numbers in, lines out."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["BLOCKS", "FORM", "bar_chart", "form_line", "points_chart", "sparkline"]

#: Nine heights of a one-character bar: nothing, then eighths up to a full block.
BLOCKS = " ▁▂▃▄▅▆▇█"
#: A match in a form line: won, lost, or neither (no winner: unfinished, abandoned, a draw).
FORM = {"W": "█", "L": "▁", "-": "·"}


def _scale(values: Sequence[float | None], lo: float | None, hi: float | None) -> tuple[float, float]:
    known = [v for v in values if v is not None]
    low = min([0.0, *known]) if lo is None else lo
    high = max([0.0, *known]) if hi is None else hi
    return low, high


def sparkline(values: Sequence[float | None], lo: float | None = None, hi: float | None = None) -> str:
    """One character per value, its height from ``lo`` to ``hi`` (by default from the lowest
    of 0 and the values to the highest); a missing value is a space."""
    low, high = _scale(values, lo, hi)
    span = high - low
    out = []
    for v in values:
        if v is None:
            out.append(" ")
        else:
            level = 8 if span <= 0 else round((min(max(v, low), high) - low) / span * 8)
            out.append(BLOCKS[max(level, 1)])  # a value at the bottom still shows a sliver
    return "".join(out)


def bar_chart(values: Sequence[float | None], height: int = 4, lo: float | None = None, hi: float | None = None,
              width: int = 2) -> list[str]:
    """A bar per value, ``height`` lines tall and ``width`` characters apart, the bars
    rising from ``lo`` to ``hi`` (default as :func:`sparkline`) in eighths of a line; a
    missing value leaves its column empty.  The top line comes first."""
    if height < 1 or width < 1:
        raise ValueError("a chart is at least one line tall and one character wide")
    low, high = _scale(values, lo, hi)
    span = high - low
    eighths: list[int | None] = []
    for v in values:
        if v is None:
            eighths.append(None)
        else:
            e = height * 8 if span <= 0 else round((min(max(v, low), high) - low) / span * height * 8)
            eighths.append(max(e, 1))  # a value at the bottom still shows a sliver
    lines = []
    for row in range(height):
        floor = (height - 1 - row) * 8
        cells = [" " if e is None else BLOCKS[min(max(e - floor, 0), 8)] for e in eighths]
        lines.append("".join(c + " " * (width - 1) for c in cells).rstrip())
    return lines


def points_chart(labels: Sequence[str], series: Sequence[Sequence[float | None]], height: int = 4) -> list[str]:
    """Points per deal of a match: for each side a label line and a bar chart (one bar per
    deal, all sides on the same scale, so the bars compare), the scale's top and bottom on
    the left, and the deals counted from 1 underneath."""
    if len(labels) != len(series):
        raise ValueError("one label per series")
    every = [v for s in series for v in s]
    low, high = _scale(every, None, None)
    deals = max((len(s) for s in series), default=0)
    top, bottom = _number(high), _number(low)
    pad = max(len(top), len(bottom))
    lines: list[str] = []
    for label, values in zip(labels, series):
        lines.append(label)
        chart = bar_chart(values, height, low, high)
        for i, row in enumerate(chart):
            mark = top if i == 0 else bottom if i == height - 1 else ""
            lines.append(f"{mark:>{pad}} ┤{row}".rstrip())
    numbers = "".join(f"{n + 1:<2}" if n + 1 < 10 or (n + 1) % 5 == 0 else "  " for n in range(deals))
    lines.append(f"{'':>{pad}}  {numbers}".rstrip())
    return lines


def form_line(outcomes: Sequence[str]) -> str:
    """A form line: one character per match, oldest first (``W`` won, ``L`` lost, ``-``
    neither; see :data:`FORM`)."""
    try:
        return "".join(FORM[o] for o in outcomes)
    except KeyError as exc:
        raise ValueError(f"a match in a form line is W, L or -, not {exc.args[0]!r}") from None


def _number(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"
