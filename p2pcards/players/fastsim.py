"""A fast full-information simulator for trick-taking games: many deals at once, in numpy.

What a search bot needs to evaluate thousands of sampled worlds: play them out to the end
with random players, far faster than the plugin's state machine can (docs/players.md).

* A card is an integer ``0 .. N-1`` (N <= 64): its index in the game's deck
  (:class:`CardTable`).  A hand is a bitmask in an unsigned 64-bit integer.
* A batch of positions (:class:`Positions`) holds one row per deal: hands per seat,
  trumps, the current trick and who led it, card points and tricks per team so far, and
  optionally a stock to draw from.  Deals of a batch need not be at the same point.
* :func:`playout` plays every deal of a batch to its end, one card per unfinished deal per
  step: random players choose uniformly among the legal cards with a seeded numpy
  ``Generator``, or greedy players (:data:`GREEDY`) follow a few card-table rules in
  every deal at once, or the cards are given (to replay a deal and compare).

The rules covered are those every game here shares (:mod:`p2pcards.core.tricks`): follow
suit when following is compulsory (never any obligation to trump or to beat), the highest
trump wins the trick, else the highest card of the suit led; the trick's card points go to
the winner's team and the winner leads next.  With a stock, after each trick the winner
draws first, then the others in play order, and following suit is compulsory only once
the stock is empty (Bisca).  With :class:`HeartsRules` (Copas), points belong to cards
rather than ranks, some cards may not be led before a *breaking* card was played, and
some may not be thrown on the first trick, each unless the hand holds nothing else.
With :class:`TrumpDuties` (Sobe e Desce), a leader holding the ace of trumps leads it, and
a player who cannot follow plays a trump higher than the trick's if it holds one.  With
:attr:`CardTable.swap_two` (Bisca's ``swap2=on``), a player holding the 2 of trumps while
the stock lasts swaps it for the face-up trump card before it plays, as every player here
does (the heuristic's rule: it is always a gain) -- except before a first card the
caller gives, which was chosen without it.  Seats may sit a deal out
(``Positions.active``): play goes round the others.

A game opts in with a :class:`~p2pcards.players.simulators.TrickSimulator` named
``SIMULATOR`` in its plugin's ``fastsim`` module; it says how the game deals.  The plugin
is the authority: :func:`~p2pcards.players.simulators.cross_check` compares a simulator
with it on random positions (:mod:`p2pcards.players.simulators`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from p2pcards.players.cardtable import I64, U64, Bools, CardTable, HeartsRules, TrumpDuties, cards_of_mask
from p2pcards.players.cardtable import TRUMP_BONUS as _TRUMP_BONUS
from p2pcards.players.policies import (
    DUCK,
    GREEDY,
    POLICIES,
    RANDOM,
    PlayState,
    Rule,
    add_policy,
    policy_index,
    rule_of,
)

__all__ = [
    "CardTable",
    "Positions",
    "Outcome",
    "legal_masks",
    "playout",
    "policy_cards",
    "add_policy",
    "Rule",
    "PlayState",
    "POLICIES",
    "RANDOM",
    "GREEDY",
    "DUCK",
    "HeartsRules",
    "TrumpDuties",
    "cards_of_mask",
    "U64",
    "I64",
    "Bools",
]

_SELECT_WIDTHS = (32, 16, 8, 4, 2, 1)



@dataclass
class Positions:
    """A batch of full-information positions, one row per deal (arrays of numpy ints).

    ``hands`` (B, seats) bitmasks; ``trump`` (B,) suit index or -1; ``leader`` (B,) the
    seat that led the current trick, or leads the next when it is empty; ``trick`` (B,
    seats) the cards played to the current trick in play order, -1 after the last;
    ``points`` and ``tricks`` (B, teams) taken so far; ``stock`` (B, K) the cards still to
    draw, in draw order, -1 after the last (K may be 0: no stock); ``broken`` (B,) whether
    a card may now be led whatever :class:`HeartsRules` says (Copas: hearts are broken, or
    free; default: no); ``active`` (B, seats) the seats that play the deal (default: all;
    the cards of the others are not played).  The trick's cards are in play order among
    the active seats.
    """

    hands: U64
    trump: I64
    leader: I64
    trick: I64
    points: I64
    tricks: I64
    stock: I64 = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    broken: Bools = field(default_factory=lambda: np.zeros(0, dtype=bool))
    active: Bools = field(default_factory=lambda: np.zeros((0, 0), dtype=bool))

    def __post_init__(self) -> None:
        b = self.hands.shape[0]
        if self.stock.size == 0 and self.stock.shape[0] != b:  # no stock
            self.stock = np.full((b, 0), -1, dtype=np.int64)
        if self.broken.size == 0 and self.broken.shape[0] != b:
            self.broken = np.zeros(b, dtype=bool)
        if self.active.size == 0 and self.active.shape[0] != b:
            self.active = np.ones(self.hands.shape, dtype=bool)
        for name in ("trump", "leader", "trick", "points", "tricks", "stock", "broken", "active"):
            if getattr(self, name).shape[0] != b:
                raise ValueError(f"positions: {name} has {getattr(self, name).shape[0]} rows, hands {b}")

    @property
    def size(self) -> int:
        return int(self.hands.shape[0])

    def copy(self) -> Positions:
        return Positions(
            self.hands.copy(), self.trump.copy(), self.leader.copy(), self.trick.copy(),
            self.points.copy(), self.tricks.copy(), self.stock.copy(), self.broken.copy(), self.active.copy(),
        )

    def take(self, rows: I64) -> Positions:
        """The batch of the rows ``rows`` of this one (repeats allowed)."""
        return Positions(
            self.hands[rows], self.trump[rows], self.leader[rows], self.trick[rows], self.points[rows],
            self.tricks[rows], self.stock[rows], self.broken[rows], self.active[rows],
        )

    @classmethod
    def concat(cls, parts: Sequence[Positions]) -> Positions:
        """One batch of the rows of ``parts`` (stocks padded to the widest)."""
        width = max(p.stock.shape[1] for p in parts)
        stocks = [np.pad(p.stock, ((0, 0), (0, width - p.stock.shape[1])), constant_values=-1) for p in parts]
        return cls(
            np.concatenate([p.hands for p in parts]), np.concatenate([p.trump for p in parts]),
            np.concatenate([p.leader for p in parts]), np.concatenate([p.trick for p in parts]),
            np.concatenate([p.points for p in parts]), np.concatenate([p.tricks for p in parts]),
            np.concatenate(stocks), np.concatenate([p.broken for p in parts]),
            np.concatenate([p.active for p in parts]),
        )


@dataclass
class Outcome:
    """Final card points and tricks per team per deal; with ``record``, the cards played
    (B, steps; -1 where a deal had ended), the winner of each trick completed (B, tricks;
    -1 after the last) and, when cards were given, which deals were given an illegal one."""

    points: I64
    tricks: I64
    plays: I64 | None = None
    winners: I64 | None = None
    illegal: NDArray[np.bool_] | None = None


def _select_bit(x: U64, r: I64) -> I64:
    """Index of the ``r``-th (from 0) set bit of each ``x`` (binary search on bit counts)."""
    pos = np.zeros(x.shape, dtype=np.uint64)
    r = r.copy()
    for w in _SELECT_WIDTHS:
        low = np.bitwise_and(np.right_shift(x, pos), np.uint64((1 << w) - 1))
        c = np.bitwise_count(low).astype(np.int64)
        up = r >= c
        r -= np.where(up, c, 0)
        pos += np.where(up, np.uint64(w), np.uint64(0))
    return pos.astype(np.int64)


class _Rows:
    """Some rows of a play-out's running state, as a rule reads them (a
    :class:`~p2pcards.players.policies.PlayState` of those deals alone)."""

    def __init__(self, run: _Run, rows: I64) -> None:
        self.table = run.table
        self.seats = run.seats
        self.team_of = run.team_of
        self.rows: I64 = np.arange(rows.size, dtype=np.int64)
        self.hands: U64 = run.hands[rows]
        self.turn: I64 = run.turn[rows]
        self.trump: I64 = run.trump[rows]
        self.led: I64 = run.led[rows]
        self.nplayed: I64 = run.nplayed[rows]
        self.best_key: I64 = run.best_key[rows]
        self.best_seat: I64 = run.best_seat[rows]
        self.trick_pts: I64 = run.trick_pts[rows]
        self.stock_left: I64 = run.stock_left[rows]


class _Run:
    """The working state of a playout (derived from a :class:`Positions`, then advanced)."""

    def __init__(self, table: CardTable, pos: Positions, team_of: Sequence[int]) -> None:
        self.table = table
        b, seats = pos.hands.shape
        self.seats = seats
        self.team_of: I64 = np.asarray(team_of, dtype=np.int64)
        if self.team_of.shape != (seats,):
            raise ValueError(f"team_of must give a team for each of the {seats} seats")
        self.rows: I64 = np.arange(b, dtype=np.int64)
        self.active: Bools = pos.active.astype(bool)
        #: whether some seat sits out somewhere (play then goes round the active seats)
        self.partial = not bool(self.active.all())
        self.nactive: I64 = self.active.sum(axis=1).astype(np.int64)
        self.hands: U64 = np.where(self.active, pos.hands, np.uint64(0)).astype(np.uint64)
        self.trump = pos.trump.astype(np.int64)
        self.points = pos.points.astype(np.int64)
        self.tricks = pos.tricks.astype(np.int64)
        self.stock = pos.stock.astype(np.int64)
        self.stock_left: I64 = (self.stock >= 0).sum(axis=1).astype(np.int64)
        self.broken: Bools = pos.broken.astype(bool)
        self.drawn: I64 = np.zeros(b, dtype=np.int64)
        trick = pos.trick.astype(np.int64)
        self.nplayed: I64 = (trick >= 0).sum(axis=1).astype(np.int64)
        self.leader = pos.leader.astype(np.int64)
        self.turn: I64 = self._seat_after(self.leader, self.nplayed)
        self.led: I64 = np.full(b, table.no_suit, dtype=np.int64)
        self.best_key: I64 = np.full(b, -1, dtype=np.int64)
        self.best_seat = self.leader.copy()
        self.trick_pts: I64 = np.zeros(b, dtype=np.int64)
        for k in range(seats):
            card = trick[:, k]
            here = card >= 0
            c = np.where(here, card, 0)
            if k == 0:
                self.led = np.where(here, table.suit[c], table.no_suit)
            self._take(c, here, self._seat_after(self.leader, np.full(b, k, dtype=np.int64)))

    def _seat_after(self, start: I64, k: I64) -> I64:
        """The ``k``-th active seat from ``start`` in play order (``start`` is the 0th)."""
        if not self.partial:
            out: I64 = (start + k) % self.seats
            return out
        found = np.zeros(start.shape, dtype=bool)
        out = start.copy()
        count = np.zeros(start.shape, dtype=np.int64)
        for j in range(self.seats):
            seat = (start + j) % self.seats
            here = self.active[self.rows, seat]
            hit = here & (count == k) & ~found
            out = np.where(hit, seat, out)
            found |= hit
            count += here
        return out

    def _take(self, card: I64, here: NDArray[np.bool_], seat: I64) -> None:
        """Put ``card`` (played by ``seat``, where ``here``) on the current trick."""
        t = self.table
        suit = t.suit[card]
        strength = t.strength[card]
        key = np.where(suit == self.trump, strength + _TRUMP_BONUS, np.where(suit == self.led, strength, -1))
        better = here & (key > self.best_key)
        self.best_key = np.where(better, key, self.best_key)
        self.best_seat = np.where(better, seat, self.best_seat)
        self.trick_pts += np.where(here, t.points[card], 0)

    def legal(self) -> U64:
        """Legal cards of the seat to play, per deal."""
        t = self.table
        hand = self.hands[self.rows, self.turn]
        led = np.where(self.stock_left > 0, t.no_suit, self.led)
        follow = np.bitwise_and(hand, t.suit_mask[led])
        legal: U64 = np.where(follow != 0, follow, hand)
        if t.duties is not None:
            legal = self._duties(hand, follow, legal)
        if t.hearts is None:
            return legal
        lead = self.nplayed == 0
        first = ~lead & (follow == 0) & (self.tricks.sum(axis=1) == 0)
        clean = hand & ~t.first_barred
        legal = np.where(first & (clean != 0), clean, legal)
        unbroken = lead & ~self.broken
        other = hand & ~t.unled
        return np.where(unbroken & (other != 0), other, legal)

    def _duties(self, hand: U64, follow: U64, legal: U64) -> U64:
        """:meth:`legal` under the table's :class:`TrumpDuties`."""
        t = self.table
        duties = t.duties
        assert duties is not None
        trump = np.where(self.trump >= 0, self.trump, t.no_suit)
        lead = self.nplayed == 0
        if duties.lead_ace:
            ace = hand & t.trump_ace[trump]
            legal = np.where(lead & (ace != 0), ace, legal)
        if duties.overtrump:
            top = np.where(self.best_key >= _TRUMP_BONUS, self.best_key - _TRUMP_BONUS, -1)
            over = hand & t.trumps_from[trump, top + 1]
            legal = np.where(~lead & (follow == 0) & (over != 0), over, legal)
        return legal

    def play(self, card: I64, active: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """The seat to play plays ``card`` where ``active``; returns where a trick ended."""
        t = self.table
        seat = self.turn
        bit = np.where(active, t.bit[card], np.uint64(0))
        self.hands[self.rows, seat] &= ~bit
        if t.hearts is not None:
            self.broken |= (bit & t.breaking) != 0
        lead = active & (self.nplayed == 0)
        self.led = np.where(lead, t.suit[card], self.led)
        self.best_key = np.where(lead, -1, self.best_key)
        self._take(card, active, seat)
        self.nplayed += active
        after = (seat + 1) % self.seats
        if self.partial:
            after = self._seat_after(after, np.zeros(seat.shape, dtype=np.int64))
        self.turn = np.where(active, after, seat)
        done: NDArray[np.bool_] = self.nplayed == self.nactive
        if not done.any():
            return done
        winner = self.best_seat
        team = self.team_of[winner]
        self.points[self.rows, team] += np.where(done, self.trick_pts, 0)
        self.tricks[self.rows, team] += done
        self.leader = np.where(done, winner, self.leader)
        self.turn = np.where(done, winner, self.turn)
        self.nplayed = np.where(done, 0, self.nplayed)
        self.trick_pts = np.where(done, 0, self.trick_pts)
        self.best_key = np.where(done, -1, self.best_key)
        self.led = np.where(done, t.no_suit, self.led)
        if self.stock.shape[1]:
            for k in range(self.seats):
                draw = done & (self.stock_left > 0)
                if not draw.any():
                    break
                card_drawn = self.stock[self.rows, np.minimum(self.drawn, self.stock.shape[1] - 1)]
                who = (winner + k) % self.seats
                self.hands[self.rows, who] |= np.where(draw, t.bit[np.maximum(card_drawn, 0)], np.uint64(0))
                self.drawn += draw
                self.stock_left -= draw
        return done

    def swap_twos(self, where: Bools) -> None:
        """Where ``where`` and the stock lasts, the seat to play swaps the 2 of trumps it
        holds for the face-up trump card, the last of the stock (:attr:`CardTable.swap_two`)."""
        t = self.table
        two = t.two_of[np.where(self.trump >= 0, self.trump, t.no_suit)]
        hand = self.hands[self.rows, self.turn]
        swap = where & (self.stock_left > 0) & (two >= 0) & ((hand & t.bit[np.maximum(two, 0)]) != 0)
        if not swap.any():
            return
        rows = self.rows[swap]
        last = self.drawn[rows] + self.stock_left[rows] - 1
        face, two = self.stock[rows, last], two[rows]
        self.hands[rows, self.turn[rows]] = (hand[rows] & ~t.bit[two]) | t.bit[face]
        self.stock[rows, last] = two

    def remaining(self) -> I64:
        """Cards still to be played per deal."""
        held: I64 = np.bitwise_count(self.hands).astype(np.int64).sum(axis=1)
        out: I64 = held + self.stock_left
        return out


def legal_masks(table: CardTable, pos: Positions, team_of: Sequence[int]) -> U64:
    """The legal cards (bitmask) of the seat to play in each position of ``pos``."""
    return _Run(table, pos, team_of).legal()


def policy_cards(table: CardTable, pos: Positions, team_of: Sequence[int], policy: str) -> I64:
    """The card the player of ``policy`` (not random) to play would play in each position."""
    run = _Run(table, pos, team_of)
    k = policy_index(policy)
    if k == POLICIES.index(RANDOM):
        raise ValueError("a random player has no card of its own")
    return rule_of(k)(run, run.legal())


def _random_cards(legal: U64, rng: np.random.Generator) -> I64:
    """A uniformly random card of each ``legal`` mask."""
    count = np.bitwise_count(legal).astype(np.int64)
    return _select_bit(legal, (rng.random(legal.shape[0]) * count).astype(np.int64))


def playout(
    table: CardTable,
    pos: Positions,
    team_of: Sequence[int],
    rng: np.random.Generator | None = None,
    choices: I64 | None = None,
    record: bool = False,
    policy: str | Sequence[str] = RANDOM,
    epsilon: float = 0.0,
    first: I64 | None = None,
) -> Outcome:
    """Play every deal of ``pos`` to its end; ``pos`` itself is left unchanged.

    Players (``policy``, :data:`POLICIES` or one a game added, :func:`add_policy`; or one
    per seat) choose among the legal cards
    with ``rng``: uniformly at random, or greedily (with ``epsilon`` of the cards random); or
    ``choices`` (B, steps) gives the card each deal plays at each step (a deal's cards
    after it ended are ignored).  A given card that is not legal is still played (taken
    from the hand if held) and marks the deal in ``Outcome.illegal``.  ``first`` (B,)
    gives each deal's first card (it must be legal; -1: the player chooses) before the
    players take over.
    ``record`` keeps the cards played and the trick winners.
    """
    run = _Run(table, pos, team_of)
    seat_policy = _check_playout(run, rng, choices, policy, epsilon, first)
    b = pos.size
    remaining = run.remaining()
    steps = int(remaining.max()) if b else 0
    if choices is not None and choices.shape[1] < steps:
        raise ValueError(f"choices give {choices.shape[1]} steps, the deals need {steps}")
    illegal = np.zeros(b, dtype=bool) if choices is not None else None
    plays = np.full((b, steps), -1, dtype=np.int64) if record else None
    max_tricks = steps // run.seats + 2
    winners = np.full((b, max_tricks), -1, dtype=np.int64) if record else None
    done_tricks = np.zeros(b, dtype=np.int64)
    for step in range(steps):
        active = remaining > step
        if table.swap_two:  # by rule, as every player swaps -- but not before a first card given
            run.swap_twos(active if step or first is None else active & (first < 0))
        legal = run.legal()
        if choices is None:
            assert rng is not None
            card = _players_cards(run, legal, rng, seat_policy, epsilon, first if step == 0 else None, active)
        else:
            card = np.where(active, choices[:, step], 0)
            bad = active & ((card < 0) | (card >= len(table.deck)))
            card = np.where(bad, 0, card)
            assert illegal is not None
            illegal |= bad | (active & (np.bitwise_and(legal, table.bit[card]) == 0))
        done = run.play(card, active)
        if record:
            assert plays is not None and winners is not None
            plays[:, step] = np.where(active, card, -1)
            if done.any():
                rows = run.rows[done]
                winners[rows, done_tricks[rows]] = run.leader[rows]
                done_tricks += done
    return Outcome(run.points, run.tricks, plays, winners, illegal)


def _check_playout(run: _Run, rng: np.random.Generator | None, choices: I64 | None, policy: str | Sequence[str],
                   epsilon: float, first: I64 | None) -> I64:
    """Check :func:`playout`'s arguments; each seat's policy, as its index
    (:func:`~p2pcards.players.policies.policy_index`)."""
    if (rng is None) == (choices is None):
        raise ValueError("give either rng (players) or choices (the cards to play)")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError("epsilon must lie in 0..1")
    policies = [policy] * run.seats if isinstance(policy, str) else list(policy)
    if len(policies) != run.seats:
        raise ValueError(f"give one policy, or a policy for each of the {run.seats} seats")
    indexes = [policy_index(p) for p in policies]
    if first is not None and choices is not None:
        raise ValueError("first cards are for players, not with choices")
    if first is not None and first.shape != (run.rows.size,):
        raise ValueError(f"first gives {first.shape[0] if first.ndim else 0} cards, the batch has {run.rows.size} "
                         "deals")
    return np.array(indexes, dtype=np.int64)


def _players_cards(run: _Run, legal: U64, rng: np.random.Generator, seat_policy: I64,
                   epsilon: float, first: I64 | None, active: Bools) -> I64:
    """The card each deal's player chooses (``first``: the cards given for the first step)."""
    table = run.table
    given = None
    if first is not None:
        given = active & (first >= 0)
        card = np.where(given & (first < len(table.deck)), first, 0)
        if (given & ((first >= len(table.deck)) | (np.bitwise_and(legal, table.bit[card]) == 0))).any():
            raise ValueError("a first card is not legal in its deal")
    ruled = seat_policy != POLICIES.index(RANDOM)
    if ruled.any():
        used = [int(k) for k in np.unique(seat_policy[ruled])]
        if len(used) == 1:
            card = rule_of(used[0])(run, legal)
        else:  # each rule reads only the deals whose player it is
            card = np.zeros(run.rows.size, dtype=np.int64)
            policy = seat_policy[run.turn]
            for k in used:
                rows = np.flatnonzero(policy == k)
                if rows.size:
                    card[rows] = rule_of(k)(_Rows(run, rows), legal[rows])
        if epsilon > 0.0 or not ruled.all():
            rand = _random_cards(legal, rng)
            pick = ~ruled[run.turn]
            if epsilon > 0.0:
                pick |= rng.random(run.rows.size) < epsilon
            card = np.where(pick, rand, card)
    else:
        card = _random_cards(legal, rng)
    if given is not None and first is not None:
        card = np.where(given, first, card)
    return np.where(active, card, 0)
