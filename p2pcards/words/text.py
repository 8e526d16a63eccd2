"""Words on the screen, in English and Portuguese (``--lang en|pt``; default from the locale).

Every string the screens and commands show comes from :data:`STRINGS` through a
:class:`Text`; placeholders are ``str.format`` fields.  The two tables
(:mod:`p2pcards.words.en`, :mod:`p2pcards.words.pt`) must have the same keys (a test
checks it).  Card ranks and suit symbols are the same in both languages (``7♥``, ``A♠``).
"""

from __future__ import annotations

import locale
import os
from collections.abc import Mapping

from p2pcards.words.en import EN
from p2pcards.words.pt import PT

__all__ = ["LANGS", "STRINGS", "Text", "default_lang"]

LANGS = ("en", "pt")

STRINGS: Mapping[str, Mapping[str, str]] = {"en": EN, "pt": PT}


def default_lang(environ: Mapping[str, str] | None = None) -> str:
    """``pt`` when the locale (LC_ALL, LC_MESSAGES, LANG, then the C library's) is Portuguese, else ``en``."""
    env = os.environ if environ is None else environ
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = env.get(var)
        if value:
            return "pt" if value.lower().startswith("pt") else "en"
    if environ is None:
        try:
            loc = locale.getlocale()[0] or ""
        except ValueError:
            loc = ""
        if loc.lower().startswith("pt"):
            return "pt"
    return "en"


class Text:
    """The strings of one language: ``text("deal", n=3)``."""

    def __init__(self, lang: str = "en") -> None:
        if lang not in STRINGS:
            raise ValueError(f"unknown language {lang!r} (choose from {', '.join(LANGS)})")
        self.lang = lang
        self._table = STRINGS[lang]

    def __call__(self, key: str, **fields: object) -> str:
        return self._table[key].format(**fields) if fields else self._table[key]

    def __contains__(self, key: object) -> bool:
        return key in self._table

    def plural(self, key: str, n: int, **fields: object) -> str:
        """``key_one`` when ``n`` is 1, else ``key_other``, with ``n`` among the fields."""
        return self(f"{key}_one" if n == 1 else f"{key}_other", n=n, **fields)

    def suit(self, suit: str) -> str:
        """The suit's name in this language (``H`` -> hearts / copas)."""
        return self(f"suit_{suit}")
