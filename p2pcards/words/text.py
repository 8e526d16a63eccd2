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
from typing import Self

from p2pcards.words.en import EN
from p2pcards.words.pt import PT

__all__ = ["LANGS", "STRINGS", "Said", "Text", "default_lang"]

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


class _Decimal(float):
    """A number that writes its decimal mark as a comma (Portuguese: ``0,8 s``), whatever
    the format (``{s:g}``, ``{x:.1f}``)."""

    def __format__(self, spec: str) -> str:
        return format(float(self), spec).replace(".", ",")

    def __str__(self) -> str:
        return format(self, "")


class Text:
    """The strings of one language: ``text("deal", n=3)``.  In a language whose decimal
    mark is a comma (``stats_decimal`` in its table), a float field is written with a comma."""

    def __init__(self, lang: str = "en") -> None:
        if lang not in STRINGS:
            raise ValueError(f"unknown language {lang!r} (choose from {', '.join(LANGS)})")
        self.lang = lang
        self._table = STRINGS[lang]
        self._comma = self._table.get("stats_decimal") == ","

    def __call__(self, key: str, /, **fields: object) -> str:
        if not fields:
            return self._table[key]
        if self._comma:
            fields = {k: _Decimal(v) if type(v) is float else v for k, v in fields.items()}
        return self._table[key].format(**fields)

    def __contains__(self, key: object) -> bool:
        return key in self._table

    def plural(self, key: str, n: int, **fields: object) -> str:
        """``key_one`` when ``n`` is 1, else ``key_other``, with ``n`` among the fields."""
        return self(f"{key}_one" if n == 1 else f"{key}_other", n=n, **fields)

    def about(self, key: str, you: bool, /, **fields: object) -> str:
        """A sentence about a seat: ``KEY_you`` when the seat is the person (``you``), else
        ``KEY``.  Each language words the person its own way: English says "you", European
        Portuguese drops the pronoun and addresses the person ("Jogou 7♥", "a vaza é sua"),
        never "você"."""
        return self(f"{key}_you" if you else key, **fields)

    def suit(self, suit: str) -> str:
        """The suit's name in this language (``H`` -> hearts / copas)."""
        return self(f"suit_{suit}")


class Said(Exception):
    """An error for people in their language: its words are a key of the catalogues and its
    fields (:meth:`said`), ``str()`` in English and :meth:`words` in any language; or a plain
    text (``Said("...")``, a message from elsewhere), the same in every language.  A field
    that is itself a :class:`Said` is said in the same language."""

    key: str | None = None
    fields: Mapping[str, object] = {}

    @classmethod
    def said(cls, key: str, /, **fields: object) -> Self:
        """The error whose words are ``key`` with ``fields``."""
        error = cls(Text("en")(key, **fields))
        error.key, error.fields = key, fields
        return error

    @classmethod
    def of(cls, error: BaseException) -> Self:
        """``error`` as this class, keeping its words when it has them."""
        if isinstance(error, Said) and error.key is not None:
            return cls.said(error.key, **error.fields)
        return cls(str(error))

    def words(self, lang: str) -> str:
        """The message in ``lang``."""
        if self.key is None:
            return str(self)
        fields = {k: v.words(lang) if isinstance(v, Said) else v for k, v in self.fields.items()}
        return Text(lang)(self.key, **fields)
