"""Bisca tips as a computer player.

* Keep trumps for tricks that hold points; trump an ace or a seven led by the opponent.
* Don't give away sevens: lead or follow with cards of no value while the stock lasts.
* Take a trick cheaply when it holds points: the lowest card that wins.
* Swap the 2 of trumps for the face-up trump card whenever allowed (it is always a gain).
* Count trumps: once no trump is unseen, a top card of a suit is a sure winner.
"""

from __future__ import annotations

import random

from p2pcards.core import PORTUGUESE_40, PT_POINTS, PT_RANK_ORDER, Decision, Plain, SeatView, strength_table
from p2pcards.players.heuristics import beats, cheapest, is_top, lowest, outstanding

STRENGTH = strength_table(PT_RANK_ORDER)
POINTS = PT_POINTS

__all__ = ["BiscaHeuristic"]


class BiscaHeuristic:
    """A two-player point-game player following the tips above."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        legal = view.legal
        for choice in legal:
            if isinstance(choice, tuple):  # the 2-of-trumps swap
                return choice
        if len(legal) == 1:
            return legal[0]
        by_card = {view.card(p): p for p in legal if isinstance(p, int)}
        return by_card[self.pick(view, [c for c in by_card if c is not None])]

    def pick(self, view: SeatView, legal: list[str]) -> str:
        trump = view.trump
        trick = view.trick
        if not trick:
            if view.stock_count == 0:  # the unseen cards count only then (and cost a set each time)
                unseen = outstanding(view, PORTUGUESE_40)
                sure = [c for c in legal if is_top(c, unseen, STRENGTH) and (
                    c[1] == trump or not any(u[1] == trump for u in unseen))]
                if sure:
                    return max(sure, key=lambda c: POINTS.get(c[0], 0))
            side = [c for c in legal if c[1] != trump]
            return cheapest(side or legal, POINTS, STRENGTH, trump)
        led_card = trick[0][1]
        on_table = POINTS.get(led_card[0], 0)
        winners = [c for c in legal if beats(c, led_card, trump, STRENGTH)]
        same_suit = [c for c in winners if c[1] == led_card[1]]
        if same_suit:
            # winning in suit costs no trump: take it with the most valuable such card
            return max(same_suit, key=lambda c: (POINTS.get(c[0], 0), -STRENGTH[c[0]]))
        if winners and on_table >= 10:
            return lowest(winners, STRENGTH)
        losers = [c for c in legal if c not in winners] or legal
        return cheapest(losers, POINTS, STRENGTH, trump)
