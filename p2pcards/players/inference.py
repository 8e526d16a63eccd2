"""What the search asks of the other seats' choices: how a game's worlds are weighed by
them (:class:`Inference`, the sampler's :mod:`p2pcards.players.sampling` applies it), which
decisions tell something of a hand (:func:`telling`) and when a model's choice says what the
real one said (:func:`alike`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from p2pcards.core import PLAY, Choice, Decision, GoIn, PassCards

__all__ = ["Inference", "INFER_PLAYS", "MISMATCH", "REDRAWS", "telling", "picked", "alike"]

#: How many of the latest plays of the other seats the inference looks at.
INFER_PLAYS: Final = 8
#: Weight factor of a play the model of play (the heuristic) would not have made.
MISMATCH: Final = 0.4
#: Fresh draws of a seat's hidden cards tried until the model would make its telling
#: decision alike (:meth:`~p2pcards.players.sampling.WorldSampler._redraw`).
REDRAWS: Final = 12


@dataclass(frozen=True)
class Inference:
    """How a game's worlds are weighed by the other seats' choices (explained in
    :mod:`p2pcards.players.sampling`'s docstring).

    * ``plays``: the latest plays of the other seats each weighed by ``mismatch``;
    * ``mismatch``: the weight factor of such a play the model would not have made;
    * ``agree``: the factor of a world in which the model makes every play of the other
      seats since the deal's start (and their telling decisions) alike; 1: those before
      the latest ``plays`` are not asked;
    * ``redraw_plays``: a play the model would not make has that seat's hidden cards
      drawn since its last play asked about redrawn, :data:`REDRAWS` times at most;
    * ``probe``, ``least``: below;
    * ``worlds``: the search weighs this many times its level's worlds while this
      inference is kept (about half of Bisca's worlds agree, and those weigh most).
    """

    plays: int = INFER_PLAYS
    mismatch: float = MISMATCH
    agree: float = 1.0
    redraw_plays: bool = False
    #: with ``agree``, worlds first drawn (:func:`~p2pcards.players.sampling.settled`):
    #: unless at least ``least`` of them agree, the other seats do not play as the model
    #: does, and the default inference weighs that decision's worlds instead
    probe: int = 16
    least: int = 2
    worlds: int = 1


def telling(step: Decision) -> bool:
    """Whether another seat's ``step`` says something about its hidden cards that the
    inference weighs, besides plays: a choice named from a few (Sobe e Desce's trumps),
    or a pick whose size varies (Sobe e Desce's going in: whether, and how many cards it
    exchanged), not a fixed-size pick (Copas' pass of three)."""
    if step.kind == PLAY:
        return False
    if step.pick is None:
        return True
    return step.may_decline or step.pick[0] != step.pick[1]


def picked(choice: Choice) -> tuple[int, ...] | None:
    """The positions of a pick (None: not a pick, or declined)."""
    return choice.positions if isinstance(choice, (PassCards, GoIn)) else None


def alike(model: Choice, real: Choice, step: Decision) -> bool:
    """Whether the model's choice says what the real one says publicly: the same card or
    named choice; for a pick, both declined, or as many positions (which ones are hidden)."""
    if step.pick is None:
        return model == real
    said, really = picked(model), picked(real)
    if said is None or really is None:
        return said is None and really is None
    return len(said) == len(really)
