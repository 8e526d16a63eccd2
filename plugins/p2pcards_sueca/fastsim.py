"""Sueca in the batch simulator (:mod:`p2pcards.players.fastsim`): how it deals and scores.

Cards are indices into the Sueca deck (:data:`p2pcards.core.PORTUGUESE_40`: suit by suit,
ranks high to low), seats 0..3, teams 0 (seats 0+2) and 1 (seats 1+3).  The rules of play
are the core's: follow suit if you can, no obligation to trump.  The plugin
(:mod:`p2pcards_sueca.game`) is the authority; ``cross_check`` compares the two.

For a search bot: :meth:`SuecaSimulator.from_states` turns plugin deals (full information,
e.g. sampled worlds) into a batch, or build :class:`~p2pcards.players.fastsim.Positions`
directly; :meth:`~p2pcards.players.simulators.TrickSimulator.playout` plays them out with random
players and returns the final card points per team per deal.
"""

from __future__ import annotations

import numpy as np

from p2pcards.core import PORTUGUESE_40, PT_POINTS, Options, game_points
from p2pcards.players.fastsim import I64, CardTable, Outcome, Positions
from p2pcards.players.simulators import TrickSimulator
from p2pcards_sueca.game import OPTIONS, TEAMS, SuecaDeal

__all__ = ["SuecaSimulator", "SIMULATOR", "deal_game_points"]

#: seat -> team (0: seats 0+2, 1: seats 1+3)
TEAM_OF = tuple(next(t for t, seats in enumerate(TEAMS) if s in seats) for s in range(4))


class SuecaSimulator(TrickSimulator):
    """Sueca's dealing: ten cards each from the player after the dealer, trumps from the
    dealer's last card (``trump_card=first``: its first), the player after the dealer leads."""

    game = "sueca"
    variants = {"trump_card": next(o.allowed for o in OPTIONS if o.name == "trump_card")}

    def __init__(self) -> None:
        super().__init__(CardTable(PORTUGUESE_40, SuecaDeal.strength, PT_POINTS), TEAM_OF)

    def deal_decks(self, decks: I64, dealer: I64, options: Options) -> Positions:
        n = decks.shape[0]
        if decks.shape != (n, 40):
            raise ValueError("Sueca decks are rows of 40 cards")
        bits = self.table.bit[decks].reshape(n, 4, 10)
        by_order = np.bitwise_or.reduce(bits, axis=2)  # k-th hand dealt
        rows = np.arange(n)[:, None]
        seat_of = (dealer[:, None] + 1 + np.arange(4)[None, :]) % 4
        hands = np.zeros((n, 4), dtype=np.uint64)
        hands[rows, seat_of] = by_order
        trump_pos = 39 if self._options(options)["trump_card"] == "last" else 30
        return Positions(
            hands=hands,
            trump=self.table.suit[decks[:, trump_pos]],
            leader=(dealer + 1) % 4,
            trick=np.full((n, 4), -1, dtype=np.int64),
            points=np.zeros((n, 2), dtype=np.int64),
            tricks=np.zeros((n, 2), dtype=np.int64),
        )


def deal_game_points(outcome: Outcome, all_points: int = 2) -> I64:
    """Game points per team (B, 2) of finished deals, as the plugin scores a deal with no
    renúncia and no multiplier (:func:`p2pcards.core.game_points`, looked up per deal)."""
    lookup = np.array(
        [[game_points(p, capote, 120, all_points) for capote in (False, True)] for p in range(121)], dtype=np.int64
    )
    out: I64 = lookup[outcome.points, (outcome.tricks == 10).astype(np.int64)]
    return out


#: the simulator ``p2pcards.players.simulators.simulator_for`` finds for Sueca
SIMULATOR = SuecaSimulator()
