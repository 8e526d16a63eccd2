"""Line mode's words: seats, sides and counts as people read them in the table's language
("you", "seat 3", "you and seat 3", "1 trick"), and the game's own lines in them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from p2pcards.core import GameSpec, Line
from p2pcards.words import Text, line_text

__all__ = ["ME", "SUIT_ORDER", "Words", "cap", "sort_key"]

#: The seat the person takes (0 on the wire; "seat 1" to people).
ME = 0
#: The order of the suits in a hand as line mode shows it.
SUIT_ORDER = {s: i for i, s in enumerate("SHCD")}


def sort_key(card: str, strength: Mapping[str, int]) -> tuple[int, int]:
    """Where ``card`` goes in a hand: by suit, then strongest first."""
    return (SUIT_ORDER[card[1]], -strength.get(card[0], 0))


def cap(text: str) -> str:
    """``text`` with its first letter in capitals (a name at the start of a sentence)."""
    return text[:1].upper() + text[1:]


class Words:
    """The table's words in one language: seats, sides, counts with their plurals."""

    def __init__(self, lang: str, spec: GameSpec) -> None:
        self.t = Text(lang)
        self.spec = spec

    def __call__(self, key: str, **fields: object) -> str:
        return self.t(key, **fields)

    def count(self, key: str, n: int, **fields: object) -> str:
        """``n`` things, singular or plural: ``count("text_tricks", 1)`` is "1 trick"."""
        return self.t.plural(key, n, **fields)

    def known(self, key: str) -> bool:
        return key in self.t

    def who(self, seat: int) -> str:
        """A seat as people name it: "you", or "seat 3" for wire seat 2."""
        return self.t("text_you") if seat == ME else self.t("text_seat", n=seat + 1)

    def about(self, key: str, seat: int, **fields: object) -> str:
        """The sentence ``key`` about ``seat`` (its ``who`` field, in capitals opening it): in
        the words for the person when the seat is theirs (:meth:`~p2pcards.words.Text.about`)."""
        return self.t.about(key, seat == ME, who=self._who(key, seat), **fields)

    def count_about(self, key: str, n: int, seat: int, **fields: object) -> str:
        """:meth:`about` for a sentence with a count (:meth:`count`)."""
        key = f"{key}_you" if seat == ME else key
        return self.count(key, n, who=self._who(f"{key}_other", seat), **fields)

    def _who(self, key: str, seat: int) -> str:
        """``seat`` as the words of ``key`` name it: in capitals when it opens them."""
        who = self.who(seat)
        return cap(who) if self.t(key).startswith("{who}") else who

    def joined(self, names: Sequence[str]) -> str:
        """"a", "a and b", "a, b and c"."""
        if len(names) <= 1:
            return "".join(names)
        return self.t("text_and", a=", ".join(names[:-1]), b=names[-1])

    def sides(self) -> list[tuple[int, ...]]:
        """The scoring sides in the order of the match totals: teams, or single seats."""
        if self.spec.teams:
            return [tuple(team) for team in self.spec.teams]
        return [(s,) for s in range(self.spec.seats)]

    def side(self, seats: Sequence[int]) -> str:
        return self.joined([self.who(s) for s in seats])

    def suit(self, suit: str) -> str:
        return self.t.suit(suit)

    def level(self, level: str) -> str:
        key = f"text_level_{level}"
        return self.t(key) if self.known(key) else level

    def totals(self, totals: Sequence[int]) -> str:
        return " · ".join(f"{self.side(seats)}: {v}" for seats, v in zip(self.sides(), totals))

    def seat_name(self, seat: int, first: bool) -> str:
        """A seat in the game's words: "You" opening a sentence, "you" or "seat 3" inside one
        (Portuguese "para si" where the person is inside a sentence)."""
        if first:
            return cap(self.who(seat))
        return self.t("text_you_inside") if seat == ME else self.who(seat)

    def side_name(self, side: int) -> str:
        sides = self.sides()
        return cap(self.side(sides[side])) if 0 <= side < len(sides) else "?"

    def game(self, line: Line, **extra: object) -> str:
        """A line of the game's own words (:class:`~p2pcards.core.summary.Line`)."""
        return line_text(self.spec, self.t.lang, line, self.seat_name, ME, **extra)

    def game_word(self, key: str, default: str) -> str:
        """The game's words for ``key``, else ``default``."""
        return self.spec.text(self.t.lang, key, default=default)
