"""A decision's choice as a small value: what a seat decided, once read.

Two forms of one choice, and where each is spoken:

* The **plain** form (:data:`Plain`) is what travels and what a person picks: a position
  (int), a word (str), a list of positions, Bisca's ``["swap", position]``, nil.  The signed
  transcript carries it (protocol/PROTOCOL.md, "CHOICE per decision kind"), so do the
  protocol vectors, the table's saved files and ``--json`` outputs, byte for byte as ever.
  :meth:`DealState.legal <p2pcards.core.deal.DealState.legal>` lists the choices of a
  decision in this form too (:data:`Legal`): it is the menu the screens show and hand back
  unchanged, and the positions the players reason about.
* The **value** form (:data:`Choice`) is what the rules act on: :class:`Play`,
  :class:`Swap`, :class:`TrumpChoice`, :class:`PassCards`, :class:`GoIn`, and :class:`Word`
  for a game's own kind of decision.  Frozen, hashable, typed.

Where one becomes the other (this project's decision): at the edge of the rules.
:meth:`DealState.apply <p2pcards.core.deal.DealState.apply>` takes either form and reads
a plain one with :func:`from_wire` for the pending decision's kind (a malformed one raises
:class:`~p2pcards.core.steps.IllegalChoice` and changes nothing), so a game's decision
handlers only ever receive values; the screens, text mode and the computer players may go
on handing it what ``legal`` listed.  The table's
:class:`~p2pcards.table.dealrun.DealRun` reads every ``choice`` entry into a value before
the rules see it, and writes this seat's own with :meth:`to_wire`; the engine
(:mod:`p2pcards.tools.engine`) reads a position's history into values and writes its answer
from one.  ``to_wire`` of a read choice is the canonical plain form: a list where a tuple was
handed in.

>>> from_wire("play", 7)
Play(position=7)
>>> from_wire("play", ["swap", 3]).to_wire()
['swap', 3]
>>> from_wire("go_in", None), from_wire("pass", (4, 9, 2)).to_wire()
(GoIn(positions=None), [4, 9, 2])
>>> from_wire("trump", "turn") == TrumpChoice("turn")
True
>>> from_wire("lead", "pass")  # a game's own kind: a word
Word(word='pass')
>>> from_wire("play", True)
Traceback (most recent call last):
...
p2pcards.core.steps.IllegalChoice: a play is a position or ["swap", position], not True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, TypeAlias

from p2pcards.core.cards import SUITS, Suit
from p2pcards.core.steps import GO_IN, PASS, PLAY, SWAP, TRUMP, IllegalChoice

__all__ = [
    "Play", "Swap", "TrumpChoice", "PassCards", "GoIn", "Word", "Choice", "Plain", "Legal", "TURN",
    "from_wire", "is_choice", "PLAYS",
]

#: The trump choice that turns the next card instead of naming a suit (Sobe e Desce).
TURN: Final = "turn"

#: A choice in its plain form (module docstring): a position, a word, a list (or tuple) of
#: positions or Bisca's ``["swap", position]``, or None (declines a pick).
Plain: TypeAlias = int | str | None | list[int | str] | tuple[int | str, ...]
#: An item of :meth:`DealState.legal <p2pcards.core.deal.DealState.legal>`: a position (to
#: play, or to pick from), a word (a trump, a game's own choice), or ``("swap", position)``.
Legal: TypeAlias = int | str | tuple[str, int]


@dataclass(frozen=True, slots=True)
class Play:
    """Play the card at ``position`` (a ``play`` decision)."""

    position: int

    def to_wire(self) -> int:
        return self.position


@dataclass(frozen=True, slots=True)
class Swap:
    """Exchange the 2 of trumps at ``position`` for the face-up trump card, then decide
    again (Bisca's ``swap2``; a ``play`` decision)."""

    position: int

    def to_wire(self) -> list[int | str]:
        return [SWAP, self.position]


@dataclass(frozen=True, slots=True)
class TrumpChoice:
    """Name the trump ``suit`` (a suit letter), or :data:`TURN` the next card (a ``trump``
    decision)."""

    suit: Suit

    def to_wire(self) -> str:
        return self.suit


@dataclass(frozen=True, slots=True)
class PassCards:
    """Pass the cards at ``positions`` (a ``pass`` decision)."""

    positions: tuple[int, ...]

    def to_wire(self) -> list[int | str]:
        return list(self.positions)


@dataclass(frozen=True, slots=True)
class GoIn:
    """Go in and exchange the cards at ``positions`` (maybe none); None sits out (a
    ``go_in`` decision)."""

    positions: tuple[int, ...] | None

    def to_wire(self) -> list[int | str] | None:
        return None if self.positions is None else list(self.positions)


@dataclass(frozen=True, slots=True)
class Word:
    """A choice named by a word, for a decision of a game's own kind (the README's
    example game: its dealer's ``"lead"`` or ``"pass"``)."""

    word: str

    def to_wire(self) -> str:
        return self.word


#: A choice as the rules act on it.
Choice: TypeAlias = Play | Swap | TrumpChoice | PassCards | GoIn | Word
_VALUES: Final = (Play, Swap, TrumpChoice, PassCards, GoIn, Word)
#: The value types a decision of each built-in kind takes (any other kind: :class:`Word`).
_KINDS: Final[dict[str, tuple[type, ...]]] = {
    PLAY: (Play, Swap), TRUMP: (TrumpChoice,), PASS: (PassCards,), GO_IN: (GoIn,),
}
#: The plays of the first positions, made once (:func:`from_wire` and the deal read them): a
#: value is immutable, and a deal reads a play about forty times.
PLAYS: Final = tuple(Play(p) for p in range(64))


def is_choice(obj: object) -> bool:
    """Whether ``obj`` is a choice's value (not its plain form)."""
    return isinstance(obj, _VALUES)


def _positions(kind: str, obj: object) -> tuple[int, ...]:
    if not isinstance(obj, (list, tuple)) or not all(type(p) is int for p in obj):
        raise IllegalChoice(f"a {kind} is a list of positions, not {obj!r}")
    return tuple(obj)


def from_wire(kind: str, obj: object) -> Choice:
    """The value of ``obj``, a choice of a decision of ``kind`` in its plain form (or a
    value already, which must be of that kind); :class:`IllegalChoice` when it is malformed.

    Only the form is read here: whether the position is the seat's, the pick's size, the
    suit a game allows are the rules' to check.
    """
    if type(obj) is int and kind == PLAY:  # the common case first: a card played
        return PLAYS[obj] if 0 <= obj < len(PLAYS) else Play(obj)
    if isinstance(obj, _VALUES):
        if not isinstance(obj, _KINDS.get(kind, (Word,))):
            raise IllegalChoice(f"a {kind} decision does not take {obj!r}")
        return obj
    if kind == PLAY:
        if isinstance(obj, (list, tuple)) and len(obj) == 2 and obj[0] == SWAP and type(obj[1]) is int:
            return Swap(obj[1])
        raise IllegalChoice(f'a play is a position or ["swap", position], not {obj!r}')
    if kind == TRUMP:
        if obj == TURN or (isinstance(obj, str) and len(obj) == 1 and obj in SUITS):
            return TrumpChoice(obj)
        raise IllegalChoice(f'a trump choice is a suit letter or "turn", not {obj!r}')
    if kind == PASS:
        return PassCards(_positions(kind, obj))
    if kind == GO_IN:
        return GoIn(None if obj is None else _positions(kind, obj))
    if isinstance(obj, str):
        return Word(obj)
    raise IllegalChoice(f"a {kind} choice is a word, not {obj!r}")
