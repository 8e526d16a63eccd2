"""The Copas sources' tips as a computer player.

* Pass the danger: the queen of spades, the ace and king of spades unless the spades are
  well protected by low ones, and high hearts; then the highest other cards, short suits first.
* Shed the queen of spades and high hearts: when void in the suit led, throw the queen of
  spades first, then the highest heart, then the highest card.
* Duck: when following, play the highest card that still loses the trick (the queen of
  spades as soon as it loses).  If you must win, win with the highest; when last to play
  on a trick without points, take it with the highest card (never the queen of spades).
* Lead low cards of short suits; avoid leading spades while the queen of spades is unseen
  and you hold the ace or king of spades; never lead the queen of spades by choice.
"""

from __future__ import annotations

import random

from p2pcards.core import PASS, Decision, Plain, SeatView
from p2pcards_copas.game import CARD_POINTS, STRENGTHS

__all__ = ["CopasHeuristic"]

_HIGH_SPADES = ("AS", "KS")


class CopasHeuristic:
    """A Hearts player following the tips above (fast: no copies of the state)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        legal = view.legal
        strength = STRENGTHS[str(view.options.get("ranks", "portuguese"))]
        if decision.kind == PASS:
            assert decision.pick is not None
            return self.pass_cards(view, strength, decision.pick[0])
        if len(legal) == 1:
            return legal[0]
        hand = dict(view.hand)
        by_card = {hand[p]: p for p in legal if isinstance(p, int)}
        card = self.pick(view, list(by_card), list(hand.values()), strength)
        return by_card[card]

    # ------------------------------------------------------------------ passing
    @staticmethod
    def pass_cards(view: SeatView, strength: dict[str, int], count: int) -> tuple[int, ...]:
        """The ``count`` most dangerous cards of the hand."""
        hand = view.hand
        length = {s: 0 for s in "SHDC"}
        for _, c in hand:
            length[c[1]] += 1
        low_spades = sum(1 for _, c in hand if c[1] == "S" and strength[c[0]] < strength["Q"])
        protected = low_spades >= 4

        def danger(card: str) -> float:
            v = strength[card[0]]
            if card[1] == "S" and card[0] in "AKQ":
                return v if protected else 100 + (card == "QS") * 20 + v
            if card[1] == "H":
                return 40 + v if v >= 9 else v
            return v + (3 if length[card[1]] <= 3 else 0)

        ranked = sorted(hand, key=lambda pc: danger(pc[1]), reverse=True)
        return tuple(p for p, _ in ranked[:count])

    # ------------------------------------------------------------------ playing
    def pick(self, view: SeatView, legal: list[str], hand: list[str], strength: dict[str, int]) -> str:
        trick = view.trick
        queen_unseen = "QS" not in hand and "QS" not in view.played
        if not trick:
            return self.lead(legal, hand, strength, queen_unseen)
        led = trick[0][1][1]
        best = max((c for _, c in trick if c[1] == led), key=lambda c: strength[c[0]])
        following = [c for c in legal if c[1] == led]
        if following:
            top = strength[best[0]]
            if len(trick) == 3 and not any(CARD_POINTS[c] for _, c in trick):
                free = [c for c in following if c != "QS"]
                if free:  # nothing to lose: get rid of the highest card
                    return max(free, key=lambda c: strength[c[0]])
            losers = [c for c in following if strength[c[0]] < top]
            if "QS" in losers:
                return "QS"
            if losers:
                return max(losers, key=lambda c: strength[c[0]])
            winners = [c for c in following if c != "QS"] or following
            return max(winners, key=lambda c: strength[c[0]])
        # void in the suit led: shed the queen, then high hearts, then high cards
        if "QS" in legal:
            return "QS"
        hearts = [c for c in legal if c[1] == "H"]
        if hearts:
            return max(hearts, key=lambda c: strength[c[0]])
        length = {s: 0 for s in "SHDC"}
        for c in hand:
            length[c[1]] += 1
        return max(
            legal,
            key=lambda c: (queen_unseen and c in _HIGH_SPADES, strength[c[0]], -length[c[1]]),
        )

    @staticmethod
    def lead(legal: list[str], hand: list[str], strength: dict[str, int], queen_unseen: bool) -> str:
        """A low card of a short suit, keeping clear of the queen of spades."""
        cands = [c for c in legal if c != "QS"] or legal
        if queen_unseen and ("AS" in hand or "KS" in hand):
            cands = [c for c in cands if c[1] != "S"] or cands
        length = {s: 0 for s in "SHDC"}
        for c in hand:
            length[c[1]] += 1
        return min(cands, key=lambda c: (strength[c[0]] + 2 * length[c[1]], c))
