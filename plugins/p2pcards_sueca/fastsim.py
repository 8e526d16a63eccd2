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
from p2pcards.players.cardtable import TRUMP_BONUS, U64, Bools
from p2pcards.players.fastsim import I64, CardTable, Outcome, PlayState, Positions, add_policy
from p2pcards.players.policies import any_card, best_card, cheapest_first, held_cards, trick_keys
from p2pcards.players.simulators import TrickSimulator
from p2pcards_sueca.game import OPTIONS, TEAMS, SuecaDeal

__all__ = ["SuecaSimulator", "SIMULATOR", "deal_game_points", "HEURISTIC", "heuristic_cards"]

#: seat -> team (0: seats 0+2, 1: seats 1+3)
TEAM_OF = tuple(next(t for t, seats in enumerate(TEAMS) if s in seats) for s in range(4))


#: the policy of :func:`heuristic_cards`, the search's model of its opponents (its partner plays as it does)
HEURISTIC = "sueca-heuristic"
_NONE = -(10**9)


_ACE_SEVEN = np.array([[c[0] in "A7" for c in PORTUGUESE_40]])


def heuristic_cards(run: PlayState, legal: U64) -> I64:
    """Sueca's heuristic (:class:`p2pcards_sueca.heuristic.SuecaHeuristic`) for every deal
    at once, the search's model of its opponents: a card is *sure* when no other hand
    holds a higher card of its suit and it is a trump or no other hand holds one.
    Leading: a sure ace or seven of a side suit, the most points; else, with no trump in
    other hands, the highest trump; else the cheapest side card worth under 10; else the
    cheapest.  Following, when the partner surely wins the trick (last to play, or its card
    is sure): the most points, trumps last.  Else, able to follow: a sure winner, the most
    points; else, with 10 or more on the trick, the weakest winner; else the cheapest card
    of the suit.  Void: the weakest trump that wins if the trick holds points (or it plays
    last) and an opponent wins it; else the cheapest card.  (The heuristic counts the
    face-up trump card as seen; this rule sees the others' whole hands.)"""
    t = run.table
    held = held_cards(run, legal)
    tr = np.where(run.trump >= 0, run.trump, t.no_suit)
    trump = tr[:, None]
    suit, strength, pts = t.suit[None, :], t.strength[None, :], t.points[None, :]
    is_trump = suit == trump
    cheap = cheapest_first(t, is_trump)
    rows, turn = run.rows, run.turn
    others = np.zeros(rows.size, dtype=np.uint64)
    for k in (1, 2, 3):
        others |= run.hands[rows, (turn + k) % 4]
    trumps_out = np.bitwise_and(others, t.suit_mask[tr]) != 0
    top = np.bitwise_and(others[:, None], t.higher[None, :]) == 0
    sure = top & (is_trump | ~trumps_out[:, None])
    # leading
    ace_seven = _ACE_SEVEN if t.deck == PORTUGUESE_40 else np.array([[c[0] in "A7" for c in t.deck]])
    tops: Bools = held & ~is_trump & ace_seven & top
    mine: Bools = held & is_trump
    low_side: Bools = held & ~is_trump & (pts < 10)
    lead = np.where(any_card(tops), np.where(tops, pts, _NONE),
                    np.where(any_card(mine) & ~trumps_out[:, None], np.where(mine, strength, _NONE),
                             np.where(any_card(low_side), np.where(low_side, cheap, _NONE), cheap)))
    # following
    partner = (turn + 2) % 4
    last = (run.nplayed == 3)[:, None]
    win_trump = run.best_key >= TRUMP_BONUS
    win_suit = np.where(win_trump, tr, np.maximum(run.led, 0))
    win_strength = np.where(win_trump, run.best_key - TRUMP_BONUS, run.best_key)
    above = t.trumps_from[win_suit, np.minimum(win_strength + 1, t.trumps_from.shape[1] - 1)]
    win_sure = (np.bitwise_and(others, above) == 0) & (win_trump | ~trumps_out)
    by_partner = (run.best_seat == partner)[:, None]
    partner_sure = by_partner & (last | win_sure[:, None])
    key = trick_keys(run)
    wins: Bools = held & (key > run.best_key[:, None])
    following: Bools = held & (suit == run.led[:, None])
    safe: Bools = wins & (last | sure)
    rich = np.expand_dims(run.trick_pts >= 10, 1)
    trumps: Bools = wins & is_trump
    take = any_card(trumps) & (np.expand_dims(run.trick_pts > 0, 1) | last) & ~by_partner
    follow_suit = np.where(any_card(wins) & any_card(safe), np.where(safe, pts * 64 - strength, _NONE),
                           np.where(any_card(wins) & rich, np.where(wins, -strength, _NONE),
                                    np.where(following, cheap, _NONE)))
    void = np.where(take, np.where(trumps, -strength, _NONE), cheap)
    follow = np.where(partner_sure, (pts - 30 * is_trump) * 64 - strength,
                      np.where(any_card(following), follow_suit, void))
    score = np.where((run.nplayed == 0)[:, None], lead, follow)
    return best_card(score, held)


add_policy(HEURISTIC, heuristic_cards)


class SuecaSimulator(TrickSimulator):
    """Sueca's dealing: ten cards each from the player after the dealer, trumps from the
    dealer's last card (``trump_card=first``: its first), the player after the dealer leads."""

    game = "sueca"
    model_policy = HEURISTIC
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
