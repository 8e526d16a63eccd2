"""Highcard's tips as a computer player.

* Who leads: lead when you hold an ace (a sure trick to start with); else let the other
  player lead, and answer.
* Leading: lead your best card.
* Following: take the trick with the lowest card that beats the card led; when none does,
  throw your lowest card.
"""

from __future__ import annotations

import random

from p2pcards.core import Decision, Plain, SeatView
from p2pcards.players.heuristics import beats, by_position, highest, lowest

from .game import LEAD, HighcardDeal

STRENGTH = HighcardDeal.strength


class HighcardHeuristic:
    """The tips above; built by the core as ``HighcardHeuristic(rng)``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        if decision.kind == LEAD:
            return "lead" if any(card[0] == "A" for card in view.hand_cards) else "pass"
        mine = [card for pos, card in view.hand if pos in view.legal]
        if not view.trick:
            return by_position(view, highest(mine, STRENGTH))
        led = view.trick[0][1]
        winners = [card for card in mine if beats(card, led, None, STRENGTH)]
        return by_position(view, lowest(winners or mine, STRENGTH))
