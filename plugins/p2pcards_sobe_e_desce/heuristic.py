"""The Sobe e Desce rule sheet's tip as a computer player: a player who goes in and takes
no trick is penalised, so go in only with a hand likely to take one.

* Choosing trumps (3 cards seen): the suit where the hand is strongest -- its cards
  counted, aces, sevens and kings weighing more; an ace alone is worth choosing (the ace
  of trumps is a sure trick).  With no suit of 2 or more cards and no ace, turn.
* Going in: estimate the tricks the hand will take (aces and sevens of trumps, side
  aces, length in trumps) against how many players are likely to play; sit out a weak
  hand when allowed.  Playing, exchange every card that is neither a trump nor an ace or
  a seven.
* Play: win tricks cheaply.  Lead the ace of trumps (it is compulsory anyway), then other
  top cards; follow with the lowest card that wins, preferring one nobody can beat;
  otherwise throw the lowest card, keeping trumps.
"""

from __future__ import annotations

import random

from p2pcards.core import GO_IN, PORTUGUESE_40, PT_RANK_ORDER, SUITS, TRUMP, Decision, Plain, SeatView, strength_table
from p2pcards.players.heuristics import beats, by_position, current_winner, is_top, lowest, outstanding

__all__ = ["SobeEDesceHeuristic"]

STRENGTH = strength_table(PT_RANK_ORDER)
#: weight of a card of the suit when choosing trumps (on top of 1 for the card)
TRUMP_BONUS = {"A": 3.0, "7": 1.5, "K": 0.7, "J": 0.3}
#: likely tricks from one trump, by rank (the ace is sure)
TRUMP_TRICKS = {"A": 1.0, "7": 0.75, "K": 0.45, "J": 0.3, "Q": 0.25}
#: likely tricks from one side-suit card, by rank
SIDE_TRICKS = {"A": 0.55, "7": 0.15}
#: chance an undecided player goes in (for the expected size of the table)
GO_IN_RATE = 0.6


class SobeEDesceHeuristic:
    """A trick-taking player following the tip above."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        if decision.kind == TRUMP:
            return self.choose_trump(view.hand_cards)
        if decision.kind == GO_IN:
            return self.go_in(view, decision)
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        cards = [c for c in (view.card(p) for p in legal if isinstance(p, int)) if c is not None]
        return by_position(view, self.pick(view, cards))

    # ------------------------------------------------------------------ trumps
    @staticmethod
    def choose_trump(hand: list[str]) -> str:
        """The suit where the hand is strongest, or ``"turn"`` with no suit of 2+ cards
        and no ace."""
        best, best_score, best_len, best_ace = "turn", 0.0, 0, False
        for suit in SUITS:
            mine = [c for c in hand if c[1] == suit]
            score = sum(1.0 + TRUMP_BONUS.get(c[0], 0.0) for c in mine)
            if score > best_score:
                best, best_score = suit, score
                best_len, best_ace = len(mine), any(c[0] == "A" for c in mine)
        if best_len >= 2 or best_ace:
            return best
        return "turn"

    # ------------------------------------------------------------------ going in
    @staticmethod
    def likely_tricks(hand: list[str], trump: str) -> float:
        """A rough count of the tricks ``hand`` takes with ``trump`` as trumps."""
        trumps = [c for c in hand if c[1] == trump]
        est = sum(TRUMP_TRICKS.get(c[0], 0.15) for c in trumps)
        if len(trumps) >= 3:
            est += 0.3 * (len(trumps) - 2)  # long trumps win the last tricks
        ranks = {c[0] for c in trumps}
        if "A" in ranks and "7" in ranks:
            est += 0.2  # the seven is safe once the ace has gone
        for c in hand:
            if c[1] != trump:
                if c[0] == "A":
                    est += SIDE_TRICKS["A"]
                elif c[0] == "7" and "A" + c[1] in hand:
                    est += 0.3
                else:
                    est += SIDE_TRICKS.get(c[0], 0.0)
        return est

    def go_in(self, view: SeatView, decision: Decision) -> Plain:
        """Play (exchanging the weak cards) with a hand likely to take a trick."""
        trump = view.trump
        assert trump is not None
        hand = view.hand
        cards = [c for _, c in hand]
        keep = [c for c in cards if c[1] == trump or c[0] in "A7"]
        exchange = tuple(p for p, c in hand if not (c[1] == trump or c[0] in "A7"))
        if not decision.may_decline:
            return exchange
        # how many players will share the five tricks?
        playing = view.extra("playing")
        must = view.extra("must_play")
        if not isinstance(playing, list) or not isinstance(must, list):
            playing, must = [None] * 4, [False] * 4
        expected = 1.0
        for s in range(4):
            if s == view.seat:
                continue
            if playing[s] is None:
                expected += 1.0 if must[s] else GO_IN_RATE
            elif playing[s]:
                expected += 1.0
        # each card exchanged is a fresh draw: a small chance of a trump or an ace
        est = self.likely_tricks(keep, trump) + 0.12 * len(exchange)
        need = 0.35 * (expected - 1) + 0.2
        return exchange if est >= need else None

    # ------------------------------------------------------------------ play
    def pick(self, view: SeatView, legal: list[str]) -> str:
        trump = view.trump
        unseen = outstanding(view, PORTUGUESE_40)
        for ev in view.events:  # my own discards are not in anyone's hand
            if ev["type"] == "go_in" and ev["seat"] == view.seat:
                unseen.difference_update(ev.get("cards", ()))
        trick = view.trick
        if not trick:
            return self.lead(legal, unseen, trump)
        win_seat, win_card = current_winner(trick, trump, STRENGTH)
        last = len(trick) == len(view.active) - 1
        winners = [c for c in legal if beats(c, win_card, trump, STRENGTH)]
        if winners:
            if last:
                return lowest(winners, STRENGTH)
            led = trick[0][1][1]
            safe = [c for c in winners if self.sure(c, unseen, trump, led)]
            return lowest(safe or winners, STRENGTH)
        return self.throw(legal, trump)

    def lead(self, legal: list[str], unseen: set[str], trump: str | None) -> str:
        my_trumps = [c for c in legal if c[1] == trump]
        top_trumps = [c for c in my_trumps if is_top(c, unseen, STRENGTH)]
        if top_trumps:
            return max(top_trumps, key=lambda c: STRENGTH[c[0]])
        tops = [c for c in legal if c[1] != trump and is_top(c, unseen, STRENGTH)]
        if tops:
            return max(tops, key=lambda c: STRENGTH[c[0]])
        side = [c for c in legal if c[1] != trump]
        if side:
            return lowest(side, STRENGTH)
        return lowest(legal, STRENGTH)

    @staticmethod
    def throw(legal: list[str], trump: str | None) -> str:
        """The card that costs least: not a trump, lowest rank."""
        return min(legal, key=lambda c: (c[1] == trump, STRENGTH[c[0]], c))

    @staticmethod
    def sure(card: str, unseen: set[str], trump: str | None, led: str) -> bool:
        """Whether no unseen card can beat ``card`` in a trick led in ``led``."""
        if not is_top(card, unseen, STRENGTH):
            return False
        if card[1] == trump:
            return True
        return not any(c[1] == trump for c in unseen)
