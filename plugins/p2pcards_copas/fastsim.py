"""Copas in the batch simulator (:mod:`p2pcards.players.fastsim`): its rules of play, its
dealing and its scores.

Cards are indices into the French deck (:data:`p2pcards.core.FRENCH_52`), seats 0..3, each
its own side.  No trumps; follow suit if you can; the extra rules are
:class:`~p2pcards.players.fastsim.HeartsRules`: no heart led before a heart or the queen of
spades was played (``hearts=free``: any card), no point card thrown on the first trick,
each unless the hand holds nothing else.  A card's points are the penalty points (a heart
1, the queen of spades 13); :meth:`CopasSimulator.values` applies the moon rule.  The
search's play-outs use the ducking players (:data:`~p2pcards.players.fastsim.DUCK`).

There is a simulator per rank order (``ranks``: :meth:`CopasSimulator.for_options` gives
the table's); each refuses a position of the other order
(:meth:`CopasSimulator.from_states` raises ValueError).  The passing is not simulated: a
deal starts at its first trick, after the two of clubs was led.  The plugin (:mod:`p2pcards_copas.game`)
is the authority; ``cross_check`` compares the two on deals without passing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from p2pcards.core import FRENCH_52, DealState, Match, Options, OptionValue
from p2pcards.players.fastsim import DUCK, I64, CardTable, HeartsRules, Outcome, Positions
from p2pcards.players.simulators import TrickSimulator
from p2pcards_copas.game import CARD_POINTS, RANK_ORDERS, STRENGTHS, TOTAL_POINTS, TWO_OF_CLUBS, CopasDeal

__all__ = ["CopasSimulator", "SIMULATOR"]

RULES = HeartsRules(
    breaking=frozenset(c for c, p in CARD_POINTS.items() if p),
    unled=frozenset(c for c in FRENCH_52 if c[1] == "H"),
    first_barred=frozenset(c for c, p in CARD_POINTS.items() if p),
    points=CARD_POINTS,
)
#: Deals of a match without passing (the fourth of every four).
_NO_PASS_DEAL = 3


class CopasSimulator(TrickSimulator):
    """Copas' dealing: 13 cards to each in blocks from the player after the dealer; the
    holder of the two of clubs leads it."""

    game = "copas"
    variants = {"ranks": tuple(RANK_ORDERS), "hearts": ("broken", "free")}
    policy = DUCK

    def __init__(self, ranks: str = "portuguese") -> None:
        super().__init__(CardTable(FRENCH_52, STRENGTHS[ranks], {}, hearts=RULES), (0, 1, 2, 3))
        #: the rank order this simulator follows (option ``ranks``)
        self.ranks = ranks
        self._two = self.table.ids[TWO_OF_CLUBS]
        self._others: dict[str, CopasSimulator] = {ranks: self}

    def for_options(self, options: Mapping[str, OptionValue]) -> CopasSimulator:
        """The simulator of the table's rank order (made once)."""
        ranks = str(options.get("ranks", "portuguese"))
        if ranks not in self._others:
            if ranks not in RANK_ORDERS:
                raise ValueError(f"copas: the simulator does not follow ranks={ranks}")
            twin = type(self)(ranks)
            twin._others = self._others
            self._others[ranks] = twin
        return self._others[ranks]

    def deal_decks(self, decks: I64, dealer: I64, options: Options) -> Positions:
        n = decks.shape[0]
        if decks.shape != (n, 52):
            raise ValueError("Copas decks are rows of 52 cards")
        free = self._options(options)["hearts"] == "free"
        bits = self.table.bit[decks].reshape(n, 4, 13)
        by_order = np.bitwise_or.reduce(bits, axis=2)
        rows = np.arange(n)[:, None]
        seat_of = (dealer[:, None] + 1 + np.arange(4)[None, :]) % 4
        hands = np.zeros((n, 4), dtype=np.uint64)
        hands[rows, seat_of] = by_order
        two = self.table.bit[self._two]
        holder = np.argmax((hands & two) != 0, axis=1).astype(np.int64)
        hands[np.arange(n), holder] &= ~two
        trick = np.full((n, 4), -1, dtype=np.int64)
        trick[:, 0] = self._two
        return Positions(
            hands=hands,
            trump=np.full(n, -1, dtype=np.int64),
            leader=holder,
            trick=trick,
            points=np.zeros((n, 4), dtype=np.int64),
            tricks=np.zeros((n, 4), dtype=np.int64),
            broken=np.full(n, free, dtype=bool),
        )

    def from_states(self, states: Sequence[DealState]) -> Positions:
        for state in states[:1]:  # the worlds of a search share their options
            if state.options.get("ranks") != self.ranks:
                raise ValueError(f"copas: this simulator follows ranks={self.ranks}, not {state.options.get('ranks')}")
        return super().from_states(states)

    def broken(self, state: DealState) -> bool:
        return isinstance(state, CopasDeal) and (state.hearts_broken or state.options["hearts"] == "free")

    def values(self, outcome: Outcome, pos: Positions, seat: int) -> NDArray[np.float64]:
        """Minus the penalty points of ``seat`` after the moon rule (a player who takes
        all 26 scores 0, the others 26)."""
        points = outcome.points
        mine = points[:, seat]
        moon = points.max(axis=1) == TOTAL_POINTS
        out: NDArray[np.float64] = -np.where(moon, np.where(mine == TOTAL_POINTS, 0, TOTAL_POINTS), mine).astype(float)
        return out

    def plugin_deal(self, match: Match, cards: list[str]) -> DealState:
        """A deal without passing (the simulator starts at the first trick)."""
        match.deal_number = _NO_PASS_DEAL
        return match.new_deal(cards)

    def deal_scores(self, deal: DealState) -> tuple[list[int], list[int]]:
        """The points each took, before the moon rule, and its tricks."""
        return self._scores(deal)


#: the simulator ``p2pcards.players.simulators.simulator_for`` finds for Copas
SIMULATOR = CopasSimulator()
