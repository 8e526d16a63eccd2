"""Reading the JSON-ready mappings the runtime hands the screens -- a table event's
``to_json``, the table's description when it starts, the lobby's lines -- field by field,
each narrowed to the type the screen uses (their values are ``object`` until read).

The lenient readers (:func:`number`, :func:`numbers`, :func:`mapping`) are for what a
screen only shows: a field of another type reads as nothing.  The strict ones
(:func:`need_int`, :func:`need_str`, :func:`maybe_str`) are for what a screen builds on: a
field of another type raises :class:`TypeError`, as a missing one raises
:class:`KeyError`.

>>> number(3), number("3"), numbers([4, None, 2]), mapping(None)
(3, None, [4, 2], {})
>>> need_str({"game": "sueca"}, "game")
'sueca'
"""

from __future__ import annotations

from collections.abc import Mapping

from p2pcards.core import Options

__all__ = ["mapping", "maybe_str", "need_int", "need_str", "number", "numbers", "options_of", "records"]


def number(value: object) -> int | None:
    """``value`` when it is a number (an int), else None."""
    return value if isinstance(value, int) else None


def numbers(value: object) -> list[int]:
    """The numbers in ``value`` when it is a list (or tuple), else []."""
    return [v for v in value if isinstance(v, int)] if isinstance(value, (list, tuple)) else []


def mapping(value: object) -> Mapping[str, object]:
    """``value`` when it is a mapping (a result, an audit, a seat), else {}."""
    return value if isinstance(value, Mapping) else {}


def records(value: object) -> list[Mapping[str, object]]:
    """The mappings in ``value`` when it is a list (or tuple) of them, else []."""
    return [v for v in value if isinstance(v, Mapping)] if isinstance(value, (list, tuple)) else []


def need_int(obj: Mapping[str, object], key: str) -> int:
    """``obj[key]``, which must be a number."""
    value = obj[key]
    if not isinstance(value, int):
        raise TypeError(f"{key} is not a number: {value!r}")
    return value


def need_str(obj: Mapping[str, object], key: str) -> str:
    """``obj[key]``, which must be a string."""
    value = obj[key]
    if not isinstance(value, str):
        raise TypeError(f"{key} is not a string: {value!r}")
    return value


def maybe_str(obj: Mapping[str, object], key: str) -> str | None:
    """``obj[key]``, which must be a string or None."""
    value = obj[key]
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{key} is not a string: {value!r}")
    return value


def options_of(value: object) -> Options:
    """A table's options as JSON carries them (name -> number or word); {} when ``value``
    is no mapping, and a value of another type left out."""
    return {k: v for k, v in mapping(value).items() if isinstance(v, (int, str))}
