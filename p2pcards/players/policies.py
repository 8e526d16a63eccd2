"""The players of the batch simulator's play-outs (:func:`~p2pcards.players.fastsim.playout`):
each a *rule* that gives, for every deal of a batch at once, the card the player to play
plays.  Random, greedy and ducking players are built in; a game may add the rules of its
own heuristic (:func:`add_policy`), so that the search models the other players as the
heuristic plays (a simulator's ``model_policy``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from p2pcards.players.cardtable import I64, U64, CardTable
from p2pcards.players.cardtable import TRUMP_BONUS as _TRUMP_BONUS


class PlayState(Protocol):
    """What a rule reads of a play-out's running state (:mod:`p2pcards.players.fastsim`),
    per deal of the batch: the seat to play (``turn``), the hands (B, seats) as masks, the
    trump suit, the suit led (``table.no_suit``: none yet), cards played to the trick
    (``nplayed``), the key and seat of the card winning it, its points, the cards left in
    the stock; and each seat's team."""

    table: CardTable
    seats: int
    rows: I64
    team_of: I64
    hands: U64
    turn: I64
    trump: I64
    led: I64
    nplayed: I64
    best_key: I64
    best_seat: I64
    trick_pts: I64
    stock_left: I64

__all__ = ["RANDOM", "GREEDY", "DUCK", "POLICIES", "PlayState", "Rule", "add_policy", "greedy_cards", "duck_cards",
           "policy_index", "rule_of", "any_card",
           "cheapest_first", "held_cards", "best_card", "trick_keys"]

#: Players of :func:`~p2pcards.players.fastsim.playout`: uniformly random legal cards.
RANDOM = "random"
#: Players of :func:`~p2pcards.players.fastsim.playout` that see every hand (the deals are full information) and
#: follow simple rules, all deals at once (:func:`greedy_cards`): lead a card nobody else
#: can beat in its suit unless an opponent would trump it, else the cheapest card, keeping
#: trumps; when the partner is winning the trick, give it the most points (no trump);
#: when an opponent is winning, take the trick with the cheapest card that does (with a
#: trump only when the trick holds points; the last to play takes with the most points),
#: else give the cheapest card.  ``epsilon`` of the cards are random instead.
GREEDY = "greedy"
#: Players of :func:`~p2pcards.players.fastsim.playout` for games where points are bad to take (Copas), all deals at
#: once (:func:`duck_cards`): lead the weakest card; following suit, the highest card that
#: loses the trick (point cards first), else the highest; unable to follow, the card with
#: the most points (the queen of spades, then the highest heart), else the highest card.
DUCK = "duck"
POLICIES = (RANDOM, GREEDY, DUCK)


class _GreedyTables:
    """A card table's scores for the greedy player, per trump suit ``t`` and suit led
    ``l`` (``no_suit`` for none): ints, the higher the likelier played."""

    def __init__(self, t: CardTable) -> None:
        k = t.no_suit + 1
        suit = t.suit[None, :]
        pts = t.points[None, :]
        strength = t.strength[None, :]
        trumps = np.arange(k)[:, None]
        self.is_trump: NDArray[np.bool_] = suit == trumps  # (k, N)
        #: the cheapest card: fewest points, then weakest, trumps last
        self.cheap: NDArray[np.int32] = (-(pts * 64 + strength) - 4096 * self.is_trump).astype(np.int32)
        #: for the partner's trick: the most points, trumps last
        self.give: NDArray[np.int32] = (pts * 64 + strength - 4096 * self.is_trump).astype(np.int32)
        #: leading a card nobody can beat: the most points first
        self.boss: NDArray[np.int32] = np.broadcast_to(50_000 + pts * 64 + strength, (k, len(t.deck))).astype(np.int32)
        led = np.arange(k)[None, :, None]
        key = np.where(
            self.is_trump[:, None, :], strength[None] + _TRUMP_BONUS, np.where(suit[None] == led, strength[None], -1)
        )
        #: (k, k, N): how strongly a card takes a trick (-1: it cannot)
        self.key: NDArray[np.int32] = key.astype(np.int32)
        #: taking a trick: the weakest card that does; the last to play: the most points
        self.take: NDArray[np.int32] = (100_000 - key).astype(np.int32)
        self.take_last: NDArray[np.int32] = (100_000 + pts[None] * 2048 - key).astype(np.int32)


def _tables(t: CardTable) -> _GreedyTables:
    """The greedy player's tables of ``t`` (made once)."""
    if not isinstance(t._greedy, _GreedyTables):
        t._greedy = _GreedyTables(t)
    return t._greedy


def held_cards(run: PlayState, legal: U64) -> NDArray[np.bool_]:
    """``legal`` (a mask per deal of ``run``) as a (B, N) boolean row per deal: what a rule
    scores cards among."""
    b, n = run.rows.size, len(run.table.deck)
    bits = np.unpackbits(legal.view(np.uint8).reshape(b, 8), axis=1, bitorder="little")
    out: NDArray[np.bool_] = bits[:, :n].astype(bool)
    return out


def best_card(score: NDArray[np.integer], held: NDArray[np.bool_]) -> I64:
    """Per deal, the card of ``held`` with the highest ``score`` (the first on ties)."""
    score = np.where(held, score, np.iinfo(score.dtype).min)
    card: I64 = np.argmax(score, axis=1).astype(np.int64)
    return card


def trick_keys(run: PlayState) -> NDArray[np.int32]:
    """Per deal and card, how strongly the card would take the trick (-1: it cannot): a
    trump above the suit led, a card of the suit led by its strength."""
    ti = np.where(run.trump >= 0, run.trump, run.table.no_suit)
    keys: NDArray[np.int32] = _tables(run.table).key[ti, run.led]
    return keys


def greedy_cards(run: PlayState, legal: U64) -> I64:
    """The card the greedy player (:data:`GREEDY`) to play plays in each deal of ``run``."""
    t = run.table
    g = _tables(t)
    b = run.rows.size
    n = len(t.deck)
    held = held_cards(run, legal)
    ti = np.where(run.trump >= 0, run.trump, t.no_suit)
    turn = run.turn
    my_team = run.team_of[turn]
    lead = run.nplayed == 0
    partner = ~lead & (run.team_of[run.best_seat] == my_team)
    score = np.empty((b, n), dtype=np.int32)
    rows = np.flatnonzero(lead)
    if rows.size:
        hands = run.hands[rows]
        tr = ti[rows]
        me = my_team[rows]
        hand = hands[np.arange(rows.size), turn[rows]]
        others = np.bitwise_or.reduce(hands, axis=1) & ~hand
        boss = np.bitwise_and(others[:, None], t.higher[None, :]) == 0
        # an opponent could trump it: void in its suit (or free to, with a stock), with a trump
        free = (run.stock_left[rows] > 0)[:, None]
        danger = np.zeros((rows.size, t.no_suit + 1), dtype=bool)
        trump_mask = t.suit_mask[tr]
        for seat in range(run.seats):
            opp = run.team_of[seat] != me
            h = hands[:, seat]
            has_trump = opp & (np.bitwise_and(h, trump_mask) != 0)
            void = np.bitwise_and(h[:, None], t.suit_mask[None, :]) == 0
            danger |= has_trump[:, None] & (void | free)
        safe = boss & ~g.is_trump[tr] & ~danger[:, t.suit]
        score[rows] = np.where(safe, g.boss[tr], g.cheap[tr])
    rows = np.flatnonzero(partner)
    if rows.size:
        score[rows] = g.give[ti[rows]]
    rows = np.flatnonzero(~lead & ~partner)
    if rows.size:
        tr = ti[rows]
        led = run.led[rows]
        key = g.key[tr, led]
        last = (run.nplayed[rows] == run.seats - 1)[:, None]
        worth = (key > run.best_key[rows, None]) & (~g.is_trump[tr] | (run.trick_pts[rows] > 0)[:, None] | last)
        take = np.where(last, g.take_last[tr, led], g.take[tr, led])
        score[rows] = np.where(worth, take, g.cheap[tr])
    return best_card(score, held)


def duck_cards(run: PlayState, legal: U64) -> I64:
    """The card the ducking player (:data:`DUCK`) to play plays in each deal of ``run``
    (no trumps: the games that avoid points have none)."""
    t = run.table
    held = held_cards(run, legal)
    strength = t.strength[None, :]
    pts = t.points[None, :]
    lead = (run.nplayed == 0)[:, None]
    follows = t.suit[None, :] == run.led[:, None]
    loses = follows & (strength < run.best_key[:, None])
    # leading: the weakest card; following: the highest loser (points first), else the
    # highest card; discarding: the most points, then the highest card
    score = np.where(
        lead, 1000 - strength,
        np.where(follows, np.where(loses, 100_000 + pts * 64 + strength, strength), pts * 64 + strength),
    ).astype(np.int32)
    return best_card(score, held)


#: A policy's rule: the card the player to play plays in each deal (from its legal cards).
Rule = Callable[[PlayState, U64], I64]
#: Every policy's name and rule, by index (the built-in ones first; None: random).
_NAMES: list[str] = list(POLICIES)
_RULES: list[Rule | None] = [None, greedy_cards, duck_cards]


def any_card(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Per deal (row) of a (B, N) card mask, whether any card is set, as a (B, 1) column:
    a rule's "if it holds such a card"."""
    out: NDArray[np.bool_] = np.logical_or.reduce(mask, axis=1, keepdims=True)
    return out


@lru_cache(maxsize=8)
def _name_order(deck: tuple[str, ...]) -> I64:
    """Per card, a row: higher the earlier its suit letter (ties between cards of one rank
    go, by name, to the earlier suit)."""
    letters = sorted({c[1] for c in deck})
    out: I64 = np.array([[len(letters) - 1 - letters.index(c[1]) for c in deck]], dtype=np.int64)
    return out


def cheapest_first(t: CardTable, is_trump: NDArray[np.bool_]) -> I64:
    """Per deal and card, a score highest for the card
    :func:`~p2pcards.players.heuristics.cheapest` picks: fewest points, not a trump, lowest
    rank, then the earlier name (``is_trump``: (B, N), whether each card is a trump)."""
    out: I64 = -(((t.points[None, :] * 2 + is_trump) * 64 + t.strength[None, :]) * 8) + _name_order(t.deck)
    return out


def add_policy(name: str, rule: Rule) -> None:
    """Add a game's own policy (its heuristic's rules, all deals at once) under ``name``,
    for :func:`~p2pcards.players.fastsim.playout` and a simulator's ``policy`` or ``model_policy``; adding the same
    rule again under its name changes nothing."""
    if name in _NAMES:
        if _RULES[_NAMES.index(name)] is not rule:
            raise ValueError(f"a policy named {name!r} exists already")
        return
    _NAMES.append(name)
    _RULES.append(rule)


def policy_index(name: str) -> int:
    """The index of the policy ``name`` (:class:`ValueError` if there is none)."""
    if name not in _NAMES:
        raise ValueError(f"unknown policy {name!r}: one of {', '.join(_NAMES)}")
    return _NAMES.index(name)


def rule_of(k: int) -> Rule:
    """The rule of the policy of index ``k`` (not random)."""
    rule = _RULES[k]
    assert rule is not None
    return rule
