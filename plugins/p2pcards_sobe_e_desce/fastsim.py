"""Sobe e Desce in the batch simulator (:mod:`p2pcards.players.fastsim`): its duties with
trumps, its seats that sit out, and what a deal is worth.

Cards are indices into the Sobe e Desce deck (:data:`p2pcards.core.PORTUGUESE_40`), seats
0..3, each its own side.  Play goes round the seats that went in
(:attr:`~p2pcards.players.fastsim.Positions.active`); the rules of play are the core's
with :class:`~p2pcards.players.fastsim.TrumpDuties`: a leader holding the ace of trumps
leads it; a player who cannot follow suit and holds a trump higher than every trump in the
trick (any trump when there is none) plays one of those.  Every card is worth one point
to the simulator's players, so that they play for tricks (the greedy players,
:data:`~p2pcards.players.fastsim.GREEDY`); :meth:`SobeEDesceSimulator.values` scores the
tricks as the game does.

The trump choice and the going in are not simulated: a deal starts at its first trick.
For the cross-check, :meth:`SobeEDesceSimulator.plugin_deal` makes those choices by a rule
that :meth:`SobeEDesceSimulator.deal_decks` follows: the chooser turns the next card up;
the seat across from the chooser sits out when its first card is a club and it may; the
others go in exchanging nothing.  The plugin (:mod:`p2pcards_sobe_e_desce.game`) is the
authority; ``cross_check`` compares the two.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from p2pcards.core import GO_IN, PORTUGUESE_40, PT_RANK_ORDER, TRUMP, DealState, Decision, Match, Options
from p2pcards.players.fastsim import I64, CardTable, Outcome, Positions, TrumpDuties
from p2pcards.players.simulators import TrickSimulator
from p2pcards_sobe_e_desce.game import HAND, NO_TRICK_PENALTY, STRENGTH, TURN, SobeEDesceDeal

__all__ = ["SobeEDesceSimulator", "SIMULATOR"]

#: every card is worth a point to the simulator's players: they play for tricks
_ONE_EACH = {rank: 1 for rank in PT_RANK_ORDER}
#: clubs as trumps double what the tricks are worth
_DOUBLE = "C"


class SobeEDesceSimulator(TrickSimulator):
    """Sobe e Desce's dealing after the trump choice and the going in (module docstring)."""

    game = "sobe-e-desce"

    def __init__(self) -> None:
        super().__init__(CardTable(PORTUGUESE_40, STRENGTH, _ONE_EACH, duties=TrumpDuties()), (0, 1, 2, 3))
        self._clubs = self.table.suit_index(_DOUBLE)
        self._hearts = self.table.suit_index("H")

    def deal_decks(self, decks: I64, dealer: I64, options: Options) -> Positions:
        n = decks.shape[0]
        if decks.shape != (n, 40):
            raise ValueError("Sobe e Desce decks are rows of 40 cards")
        t = self.table
        chooser = (dealer + 1) % 4
        rows = np.arange(n)
        hands = np.zeros((n, 4), dtype=np.uint64)
        for k in range(4):
            cols = [3 * k, 3 * k + 1, 3 * k + 2, 12 + 2 * k, 13 + 2 * k]
            hands[rows, (chooser + k) % 4] = np.bitwise_or.reduce(t.bit[decks[:, cols]], axis=1)
        trump = t.suit[decks[:, 12]]
        active = np.ones((n, 4), dtype=bool)
        across = (chooser + 2) % 4
        active[rows, across] = ~((t.suit[decks[:, 6]] == self._clubs) & (trump != self._hearts))
        return Positions(
            hands=hands,
            trump=trump,
            leader=chooser.astype(np.int64),
            trick=np.full((n, 4), -1, dtype=np.int64),
            points=np.zeros((n, 4), dtype=np.int64),
            tricks=np.zeros((n, 4), dtype=np.int64),
            active=active,
        )

    def active_of(self, state: DealState) -> list[bool]:
        return [s in state.active for s in range(self.seats)]

    def _scores(self, state: DealState) -> tuple[list[int], list[int]]:
        """The cards each took (a point each, to the simulator) and its tricks."""
        return [len(state.won[s]) for s in range(self.seats)], state.trick_counts()

    def values(self, outcome: Outcome, pos: Positions, seat: int) -> NDArray[np.float64]:
        """What the deal takes off ``seat``'s score: its tricks, or minus 5 for none
        (each doubled with clubs as trumps); nothing for a seat that sat out."""
        tricks = outcome.tricks[:, seat]
        mult = np.where(pos.trump == self._clubs, 2, 1)
        worth = np.where(tricks > 0, tricks * mult, -NO_TRICK_PENALTY * mult)
        out: NDArray[np.float64] = np.where(pos.active[:, seat], worth, 0).astype(float)
        return out

    def plugin_deal(self, match: Match, cards: list[str]) -> DealState:
        """A plugin deal at its first play, its trump choice and going in made by the
        rule :meth:`deal_decks` follows (module docstring)."""
        deal = match.new_deal(cards)
        assert isinstance(deal, SobeEDesceDeal)
        across = (deal.chooser + 2) % 4
        while True:
            step = deal.step()
            if isinstance(step, Decision):
                if step.kind not in (TRUMP, GO_IN):
                    return deal
                seat = step.seats[0]
                if step.kind == TRUMP:
                    deal.apply(seat, TURN)
                elif seat == across and step.may_decline and cards[6][1] == _DOUBLE:
                    deal.apply(seat, None)
                else:
                    deal.apply(seat, ())
            else:
                deal.complete()

    def deal_scores(self, deal: DealState) -> tuple[list[int], list[int]]:
        return self._scores(deal)


assert HAND == 5  # the dealing above: three cards each, the turned card, then two each

#: the simulator ``p2pcards.players.simulators.simulator_for`` finds for Sobe e Desce
SIMULATOR = SobeEDesceSimulator()
