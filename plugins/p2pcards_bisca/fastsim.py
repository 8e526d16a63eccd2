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
from p2pcards.players.cardtable import U64, Bools
from p2pcards.players.fastsim import I64, CardTable, PlayState, Positions, add_policy
from p2pcards.players.inference import Inference
from p2pcards.players.policies import any_card, best_card, cheapest_first, held_cards, trick_keys
from p2pcards.players.simulators import TrickSimulator
from p2pcards_bisca.game import OPTIONS, BiscaDeal

__all__ = ["BiscaSimulator", "SIMULATOR", "HEURISTIC", "heuristic_cards"]


#: the policy of :func:`heuristic_cards`, the search's model of the other player
HEURISTIC = "bisca-heuristic"


def heuristic_cards(run: PlayState, legal: U64) -> I64:
    """Bisca's heuristic (:class:`p2pcards_bisca.heuristic.BiscaHeuristic`) for every deal at
    once, the search's model of the other player.  Leading: with the stock empty, a card
    nobody can beat (a trump, or any card once the other holds no trump), the most points;
    else the cheapest card that is no trump (fewest points, then weakest), else the
    cheapest.  Following: a card of the suit led that wins, the most points; else, when
    the trick holds 10 or more, the weakest trump that wins; else the cheapest card that
    loses, else the cheapest.  The heuristic counts the face-up trump card as seen once
    drawn (it may think a card sure that the other can beat with it); this rule sees the
    other's whole hand, and breaks ties between sure cards by the card's number."""
    t = run.table
    held = held_cards(run, legal)
    trump = np.where(run.trump >= 0, run.trump, t.no_suit)[:, None]
    suit, strength, pts = t.suit[None, :], t.strength[None, :], t.points[None, :]
    is_trump = suit == trump
    cheap = cheapest_first(t, is_trump)
    # leading
    other = run.hands[run.rows, 1 - run.turn]
    beaten = np.bitwise_and(other[:, None], t.higher[None, :]) != 0
    other_trumps = (np.bitwise_and(other, t.suit_mask[trump[:, 0]]) != 0)[:, None]
    sure: Bools = held & np.expand_dims(run.stock_left == 0, 1) & ~beaten & (is_trump | ~other_trumps)
    side: Bools = held & ~is_trump
    lead = np.where(any_card(sure), np.where(sure, pts, -1),
                    np.where(any_card(side), np.where(side, cheap, -(10**9)), cheap))
    # following
    key = trick_keys(run)
    wins: Bools = held & (key > run.best_key[:, None])
    same: Bools = wins & (suit == run.led[:, None])
    rich = any_card(wins) & np.expand_dims(run.trick_pts >= 10, 1)
    losers: Bools = held & ~wins
    follow = np.where(any_card(same), np.where(same, pts * 64 - strength, -(10**9)),
                      np.where(rich, np.where(wins, -strength, -(10**9)),
                               np.where(any_card(losers), np.where(losers, cheap, -(10**9)), cheap)))
    score = np.where((run.nplayed == 0)[:, None], lead, follow)
    return best_card(score, held)


add_policy(HEURISTIC, heuristic_cards)


class BiscaSimulator(TrickSimulator):
    """Bisca's dealing: ``hand`` cards to the player after the dealer, then to the dealer;
    the next card turned up as trumps goes under the stock (drawn last); the dealer leads."""

    game = "bisca"
    model_policy = HEURISTIC
    #: every play of the other player asked of the heuristic, a world in which it makes
    #: them all alike weighing 20 times more, its new cards redrawn until it would, and
    #: three times the worlds weighed while this is kept (1,000 pairs against the
    #: heuristic, seed 7: 86.4 %, against 85.5 % at twice and 83.5 % at the level's
    #: worlds; seed 8's first 500 pairs: 86.4 %, against 84.3 % at twice), at 1.4 times
    #: the time of twice
    inference = Inference(agree=20.0, redraw_plays=True, worlds=3)
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
