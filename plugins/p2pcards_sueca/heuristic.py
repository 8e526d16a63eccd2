"""The Sueca rule sheet's tips as a computer player.

* The ace protects the seven: lead aces of side suits; keep a seven while its ace is out.
* Don't give away sevens: play one once the ace of its suit has gone.
* Trump with purpose: trump mainly tricks that hold points.
* Support your partner: when the partner surely wins the trick, add points.
* Count trumps: a top card is a sure winner only if no unseen trump can take it.
"""

from __future__ import annotations

import random

from p2pcards.core import PORTUGUESE_40, PT_POINTS, PT_RANK_ORDER, Decision, Plain, SeatView, strength_table
from p2pcards.players.heuristics import (
    beats,
    cheapest,
    current_winner,
    highest,
    is_top,
    lowest,
    outstanding,
)

STRENGTH = strength_table(PT_RANK_ORDER)
POINTS = PT_POINTS


class SuecaHeuristic:
    """A partnership point-game player following the tips above."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        cards = {view.card(p): p for p in legal if isinstance(p, int)}
        card = self.pick(view, [c for c in cards if c is not None])
        return cards[card]

    def pick(self, view: SeatView, legal: list[str]) -> str:
        trump = view.trump
        trick = view.trick
        partner = (view.seat + 2) % 4
        if not trick:
            return self.lead(legal, outstanding(view, PORTUGUESE_40), trump)
        led = trick[0][1][1]
        win_seat, win_card = current_winner(trick, trump, STRENGTH)
        last = len(trick) == 3
        following = [c for c in legal if c[1] == led]
        on_points = sum(POINTS.get(c[0], 0) for _, c in trick)
        # the unseen cards are counted only where a tip asks whether a card is sure to win
        # (the search's sampler asks this player at every play it weighs)
        unseen: set[str] | None = None
        partner_sure = win_seat == partner
        if partner_sure and not last:
            unseen = outstanding(view, PORTUGUESE_40)
            partner_sure = self.sure(win_card, unseen, trump)
        if partner_sure:
            # support the partner: add the most points we can spare
            return max(legal, key=lambda c: (POINTS.get(c[0], 0) - 30 * (c[1] == trump), -STRENGTH[c[0]]))
        winners = [c for c in legal if beats(c, win_card, trump, STRENGTH)]
        if following:
            if winners:
                if last:
                    safe = winners
                else:
                    counted = unseen if unseen is not None else outstanding(view, PORTUGUESE_40)
                    safe = [c for c in winners if self.sure(c, counted, trump)]
                if safe:
                    return max(safe, key=lambda c: (POINTS.get(c[0], 0), -STRENGTH[c[0]]))
                if on_points >= 10:
                    return lowest(winners, STRENGTH)
            return cheapest(following, POINTS, STRENGTH, trump)
        # void in the suit led
        trumps = [c for c in winners if c[1] == trump]
        if trumps and (on_points > 0 or last) and win_seat != partner:
            return lowest(trumps, STRENGTH)
        return cheapest(legal, POINTS, STRENGTH, trump)

    def lead(self, legal: list[str], unseen: set[str], trump: str | None) -> str:
        trumps_out = any(c[1] == trump for c in unseen)
        # a top side-suit card (an ace, or a seven whose ace is gone) cashes points
        tops = [
            c for c in legal
            if c[1] != trump and c[0] in "A7" and is_top(c, unseen, STRENGTH)
        ]
        if tops:
            return max(tops, key=lambda c: POINTS.get(c[0], 0))
        # count trumps: with every trump out of other hands, our trumps are safe leads
        my_trumps = [c for c in legal if c[1] == trump]
        if my_trumps and not trumps_out:
            return highest(my_trumps, STRENGTH)
        side = [c for c in legal if c[1] != trump and POINTS.get(c[0], 0) < 10]
        if side:
            return cheapest(side, POINTS, STRENGTH, trump)
        return cheapest(legal, POINTS, STRENGTH, trump)

    @staticmethod
    def sure(card: str, unseen: set[str], trump: str | None) -> bool:
        """Whether ``card`` cannot be beaten by cards still unseen (trumps counted)."""
        if not is_top(card, unseen, STRENGTH):
            return False
        if card[1] == trump:
            return True
        return not any(c[1] == trump for c in unseen)


__all__ = ["SuecaHeuristic"]
