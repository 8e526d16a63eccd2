"""How a game's words and results reach a screen: :class:`Line` (a text key of the game
and its fields) and :class:`Summary` (a result as a small table).  The screens lay them out
and name seats, each its own way; a game never writes a screen's text itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Line", "Summary"]


@dataclass(frozen=True, slots=True)
class Line:
    """Words a game gives a screen: ``key`` (a key of :meth:`GameSpec.text_keys`) and the
    values of its ``{fields}``; ``seats`` are the fields that name a seat, which each screen
    names its own way; ``suits`` the fields that name a suit (a suit letter, ``H``), which
    each screen names in its language ("hearts", "copas").  Card fields are already written
    as people read them (``7♥``)."""

    key: str
    fields: Mapping[str, object] = field(default_factory=dict)
    seats: Mapping[str, int] = field(default_factory=dict)
    suits: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Summary:
    """How a result reads, as a small table the screens lay out (never text).

    ``columns`` are text keys of the game (the columns' labels).  ``rows`` hold one
    ``(side, values)`` per side -- a team's index when the game has teams, else a seat --
    with a value per column: an int, or a string that is a text key of the game (shown in
    its words, which read on their own: "sat out") or else shown as it is (``"+3"``).
    ``highlight`` is a side to make stand out (None: none); ``notes`` are lines shown after
    the rows.
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[int, tuple[int | str, ...]], ...]
    highlight: int | None = None
    notes: tuple[Line, ...] = ()
