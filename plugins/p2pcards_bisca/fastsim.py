"""Bisca in the batch simulator (:mod:`p2pcards.players.fastsim`): how it deals, and its stock.

Cards are indices into the Bisca deck (:data:`p2pcards.core.PORTUGUESE_40`), seats 0 and
1, each its own side.  The rules of play are the core's with a stock: while it lasts
nobody must follow suit; after each trick the winner draws first; once it is empty both
must follow suit (no obligation to beat).  With ``swap2=on`` a player holding the 2 of
trumps while the stock lasts swaps it for the face-up trump card before it plays, as the
heuristic always does (:attr:`~p2pcards.players.fastsim.CardTable.swap_two`).  The plugin
(:mod:`p2pcards_bisca.game`) is the authority; ``cross_check`` compares the two.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from p2pcards.core import PORTUGUESE_40, PT_POINTS, DealState, Options, OptionValue
from p2pcards.players.fastsim import I64, CardTable, Positions
from p2pcards.players.simulators import TrickSimulator
from p2pcards_bisca.game import OPTIONS, BiscaDeal

__all__ = ["BiscaSimulator", "SIMULATOR"]


class BiscaSimulator(TrickSimulator):
    """Bisca's dealing: ``hand`` cards to the player after the dealer, then to the dealer;
    the next card turned up as trumps goes under the stock (drawn last); the dealer leads."""

    game = "bisca"
    variants = {"hand": next(o.allowed for o in OPTIONS if o.name == "hand"), "swap2": ("off", "on")}

    def __init__(self, swap_two: bool = False) -> None:
        super().__init__(CardTable(PORTUGUESE_40, BiscaDeal.strength, PT_POINTS, swap_two=swap_two), (0, 1))
        self._swapping: BiscaSimulator | None = None

    def for_options(self, options: Mapping[str, OptionValue]) -> BiscaSimulator:
        """This simulator, or with ``swap2=on`` its twin whose players swap the 2 of trumps."""
        if options.get("swap2", "off") != "on" or self.table.swap_two:
            return self
        if self._swapping is None:
            self._swapping = BiscaSimulator(swap_two=True)
        return self._swapping

    def deal_decks(self, decks: I64, dealer: I64, options: Options) -> Positions:
        n = decks.shape[0]
        if decks.shape != (n, 40):
            raise ValueError("Bisca decks are rows of 40 cards")
        h = int(self._options(options)["hand"])
        bits = self.table.bit[decks]
        first_hand = np.bitwise_or.reduce(bits[:, :h], axis=1)
        dealer_hand = np.bitwise_or.reduce(bits[:, h : 2 * h], axis=1)
        hands = np.zeros((n, 2), dtype=np.uint64)
        rows = np.arange(n)
        hands[rows, 1 - dealer] = first_hand
        hands[rows, dealer] = dealer_hand
        stock = np.concatenate([decks[:, 2 * h + 1 :], decks[:, 2 * h : 2 * h + 1]], axis=1)
        return Positions(
            hands=hands,
            trump=self.table.suit[decks[:, 2 * h]],
            leader=dealer.astype(np.int64),
            trick=np.full((n, 2), -1, dtype=np.int64),
            points=np.zeros((n, 2), dtype=np.int64),
            tricks=np.zeros((n, 2), dtype=np.int64),
            stock=stock.astype(np.int64),
        )

    def stock_of(self, state: DealState) -> list[int]:
        """The plugin deal's stock in draw order (the face-up trump card last)."""
        stock: list[int] = getattr(state, "stock", [])
        ids = self.table.ids
        return [ids[state.deck.cards[p]] for p in stock]  # type: ignore[index]


#: the simulator ``p2pcards.players.simulators.simulator_for`` finds for Bisca
SIMULATOR = BiscaSimulator()
