"""Hints for a person at the table, and whether the rest of a deal is forced (sans-IO).

A *hint* is what the search player (:class:`~p2pcards.players.search.SearchPlayer`) would
choose from the person's :class:`~p2pcards.core.view.SeatView` -- the seat's own cards and
what is public, nothing else -- with a one-line reason.  The reason is honest and small:
one public fact of the view that bears on the suggested card when there is one (it is the
only card allowed; the partner is winning the trick; it is the highest card of its suit
still out; it takes the trick, or trumps it; it is the cheapest card that cannot win), else
the search's own measure: how much better, on average over the deals it sampled, the
suggestion scored than the next best choice (:attr:`SearchPlayer.last_scores`).  A
:class:`Hint` carries the reason as a key and its fields; the screens put it in words
(``hint_why_KEY`` in :mod:`p2pcards.words.en`).  Card fields are written as people read
them (``7♥``); the fields ``suit`` and ``trump_suit`` are suit letters, named by the screen.

*The rest of the deal is forced* (:func:`rest_is_forced`) when, in every world consistent
with the seat's view (every assignment of the cards it has not seen to the places they may
be, replayed by :meth:`WorldSampler.world <p2pcards.players.sampling.WorldSampler.world>`),
every decision left to every seat has exactly one legal choice.  With more than
:data:`FORCED_WORLDS` assignments it gives up (False: nothing is offered).

Nothing here imports trio or prompt_toolkit: the screen runs :func:`suggest` and
:func:`rest_is_forced` in a worker thread, on a copy of the view (:func:`frozen_view`).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from p2pcards.core import PLAY, DealState, Decision, End, GameSpec, Plain
from p2pcards.core.cards import Card, pretty
from p2pcards.core.tricks import trick_winner
from p2pcards.core.view import SeatView
from p2pcards.players.sampling import SkeletonError, WorldSampler
from p2pcards.players.search import SearchPlayer

__all__ = [
    "FORCED_WORLDS",
    "HINT_MS",
    "Hint",
    "explain",
    "frozen_view",
    "rest_is_forced",
    "suggest",
    "suggestion_code",
]

#: The search's time for a hint (ms).
HINT_MS: Final = 1000
#: :func:`rest_is_forced` gives up beyond this many assignments of the unseen cards.
FORCED_WORLDS: Final = 5000


@dataclass(frozen=True)
class Hint:
    """A suggestion: the ``choice`` (in the formats of :mod:`p2pcards.core`), why
    (``reason``, a key, with its ``fields``), and ``code``: the suggestion in the
    transcript's words (card codes such as ``7H``) for the history."""

    choice: Plain
    reason: str
    fields: Mapping[str, object] = field(default_factory=dict)
    code: str = ""


def frozen_view(view: SeatView) -> SeatView:
    """A copy of ``view`` that the table's replica can no longer change (a worker thread
    reads it while the table goes on)."""
    state = view._state  # noqa: SLF001 -- the view's own state, copied: nothing beyond the view is read
    return SeatView(state.copy(), view.seat, view.match_totals, dummy=view.dummy)


def suggest(spec: GameSpec, view: SeatView, decision: Decision, *, rng: random.Random | None = None,
            think_ms: int = HINT_MS) -> Hint:
    """The search player's choice for ``view``'s pending ``decision``, with its reason."""
    player = SearchPlayer(spec, rng if rng is not None else random.Random(), think_ms=think_ms)
    choice = player.choose(view, decision)
    reason, fields = explain(spec, view, decision, choice, player.last_scores, player.last_worlds)
    return Hint(choice, reason, fields, suggestion_code(view, choice))


def suggestion_code(view: SeatView, choice: Plain) -> str:
    """``choice`` in the transcript's words: a card code, card codes separated by spaces
    (a pick), ``swap 2C`` (an exchange for the trump card), ``decline``, or the choice itself."""
    hand = dict(view.hand)
    if choice is None:
        return "decline"
    if isinstance(choice, int) and choice in hand:
        return hand[choice]
    if isinstance(choice, tuple) and all(isinstance(p, int) for p in choice):
        return " ".join(hand.get(p, "?") if isinstance(p, int) else "?" for p in choice)
    if isinstance(choice, tuple) and len(choice) == 2 and choice[1] in hand:
        return f"{choice[0]} {hand[choice[1]]}"
    return str(choice)


# ---------------------------------------------------------------------- the reason
def _rules(spec: GameSpec, view: SeatView) -> tuple[Mapping[str, int], Mapping[str, int]]:
    """The game's rank strengths and card points (from a fresh deal of the table's rules:
    nothing of the table's deal), empty when the game has none."""
    try:
        deal = spec.new_match(view.options, view.dealer).new_deal()
    except Exception:  # noqa: BLE001 -- a game this explainer does not follow: no facts
        return {}, {}
    return dict(getattr(deal, "strength", None) or {}), dict(getattr(deal, "points", None) or {})


def _margin(scores: Sequence[tuple[Plain, float]], choice: Plain) -> float | None:
    """How much better ``choice`` scored than the best other candidate (None: not searched)."""
    mine = [v for c, v in scores if c == choice]
    others = [v for c, v in scores if c != choice]
    if not mine or not others:
        return None
    return mine[0] - max(others)


def explain(spec: GameSpec, view: SeatView, decision: Decision, choice: Plain,
            scores: Sequence[tuple[Plain, float]] = (), worlds: int = 0) -> tuple[str, dict[str, object]]:
    """Why ``choice`` (module docstring): a reason key and its fields."""
    legal = view.legal
    if decision.pick is None and len(legal) == 1:
        return "only", {}
    margin = _margin(scores, choice)
    measured: tuple[str, dict[str, object]] = (
        ("value", {"margin": round(max(margin, 0.0), 1), "worlds": worlds}) if margin is not None
        else ("usual", {}))
    hand = dict(view.hand)
    if decision.kind != PLAY or not isinstance(choice, int) or choice not in hand:
        return measured
    fact = _play_fact(spec, view, hand[choice], [hand[p] for p in legal if isinstance(p, int) and p in hand])
    return fact if fact is not None else measured


def _play_fact(spec: GameSpec, view: SeatView, card: Card,
               playable: list[Card]) -> tuple[str, dict[str, object]] | None:
    """A public fact that bears on playing ``card`` (module docstring), or None."""
    strength, points = _rules(spec, view)
    if not strength or any(c[0] not in strength for c in [card, *playable]):
        return None
    trump = view.trump
    trick = view.trick
    me = view.seat
    lower = spec.match_class.lower_is_better
    hand = set(view.hand_cards)
    out = [c for c in spec.deck if c not in hand and c not in set(view.played)]
    name = pretty(card)
    worth = points.get(card[0], 0)
    if not trick:
        higher = [c for c in out if c[1] == card[1] and strength[c[0]] > strength[card[0]]]
        if lower:
            return None
        if not higher:
            if card[1] == trump:
                return "top_trump", {"card": name}
            trumps_out = sorted((c for c in out if trump is not None and c[1] == trump),
                                key=lambda c: -strength[c[0]])
            if trumps_out:
                return "top_risk", {"card": name, "suit": card[1], "high": pretty(trumps_out[0])}
            return "top", {"card": name, "suit": card[1]}
        if worth == 0 and all(points.get(c[0], 0) >= worth for c in playable):
            return "lead_cheap", {"card": name}
        return None
    cards = [c for _, c in trick]
    now = trick_winner(cards, trump, strength)
    winning_seat = trick[now][0]
    wins = trick_winner([*cards, card], trump, strength) == len(cards)
    led = cards[0][1]
    team = next((t for t in spec.teams if me in t), ()) if spec.teams else ()
    if lower:
        if not wins:
            return "under", {"card": name, "high": pretty(cards[now])}
        return None
    if winning_seat in team and winning_seat != me and not wins:
        if worth > 0:
            return "partner_points", {"card": name, "points": worth}
        return "partner", {"card": name}
    if wins:
        if card[1] == trump and led != trump:
            return "trump_in", {"card": name, "suit": led}
        last = len(trick) == max(len(view.active) or view.seats, 1) - 1
        return ("wins_last" if last else "wins"), {"card": name}
    can_win = any(trick_winner([*cards, c], trump, strength) == len(cards) for c in playable)
    if not can_win and all(points.get(c[0], 0) >= worth for c in playable):
        return "cheapest", {"card": name}
    return None


# ---------------------------------------------------------------------- a forced rest of the deal
def _deck_orders(sampler: WorldSampler) -> Iterator[list[Card]]:
    """Every full deck order that deals the cards ``sampler``'s seat has not seen to the
    places they may be (a hand's positions take its cards in one order: which position
    of a hand holds a card changes nothing; the stock and other places in every order)."""
    owners, slots, allowed = sampler.owners, sampler.slots, sampler.allowed
    cards = sorted(sampler.unseen, key=lambda c: (len(allowed[c]), c))
    room = [len(s) for s in slots]
    given: list[list[Card]] = [[] for _ in slots]

    def place(i: int) -> Iterator[None]:
        if i == len(cards):
            yield None
            return
        c = cards[i]
        for o in allowed[c]:
            if room[o]:
                room[o] -= 1
                given[o].append(c)
                yield from place(i + 1)
                given[o].pop()
                room[o] += 1

    for _ in place(0):
        orders = [[list(g)] if owners[o] >= 0 else [list(p) for p in itertools.permutations(g)]
                  for o, g in enumerate(given)]
        for combo in itertools.product(*orders):
            out = list(sampler.known)
            for positions, got in zip(slots, combo, strict=True):
                for p, c in zip(positions, got, strict=True):
                    out[p] = c
            yield out  # type: ignore[misc]


def _forced_to_end(state: DealState) -> bool:
    """Whether every decision left in the full-information ``state`` has one legal choice."""
    while True:
        step = state.step()
        if type(step) is End:
            return True
        if type(step) is Decision:
            if step.pick is not None:
                return False
            for seat in state.undecided():
                legal = state.legal(seat)
                if len(legal) != 1:
                    return False
                state.apply(seat, legal[0])
        else:
            state.complete()


def rest_is_forced(spec: GameSpec, view: SeatView, limit: int = FORCED_WORLDS) -> bool:
    """Whether the rest of the deal is forced for everyone (module docstring); False when
    it is not, when there are more than ``limit`` assignments to look at, or when the
    view's history cannot be replayed."""
    try:
        sampler = WorldSampler(spec, view, None)
    except SkeletonError:
        return False
    seen = 0
    for n, cards in enumerate(_deck_orders(sampler)):
        if n >= limit:
            return False
        world = sampler.world(cards)
        if world is None:
            continue
        if not _forced_to_end(world.state):
            return False
        seen += 1
    return seen > 0
