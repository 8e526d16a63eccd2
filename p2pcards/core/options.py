"""A game's table options (its variants): allowed values, default first."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

__all__ = ["Option", "OptionError", "OptionValue", "Options"]

#: A table option's value: a number or a word (one of its :attr:`Option.allowed`).
OptionValue: TypeAlias = int | str
#: A table's options, resolved (:meth:`GameSpec.resolve_options
#: <p2pcards.core.spec.GameSpec.resolve_options>`): name -> value.
Options: TypeAlias = Mapping[str, OptionValue]


class OptionError(ValueError):
    """A table option that the game does not accept: the message is for people, in English;
    ``key`` and ``fields`` say it in any language (the catalogues' ``err_option_*`` words)."""

    def __init__(self, message: str, key: str, **fields: str) -> None:
        super().__init__(message)
        self.key = key
        self.fields = fields


@dataclass(frozen=True, slots=True)
class Option:
    """A table option (a variant of the game): its allowed values, default first."""

    name: str
    allowed: tuple[int | str, ...]
    help: str = ""

    @property
    def default(self) -> int | str:
        return self.allowed[0]

    def parse(self, game: str, text: str | int) -> int | str:
        """Parse a command-line value; raise :class:`OptionError` naming the game."""
        for value in self.allowed:
            if str(value) == str(text).strip().lower():
                return value
        names = [str(v) for v in self.allowed]
        if len(names) == 1:
            raise OptionError(f"{game}: {self.name} must be {names[0]}", "err_option_only", game=game,
                              option=self.name, value=names[0])
        raise OptionError(f"{game}: {self.name} must be {', '.join(names[:-1])} or {names[-1]}", "err_option_value",
                          game=game, option=self.name, first=", ".join(names[:-1]), last=names[-1])
