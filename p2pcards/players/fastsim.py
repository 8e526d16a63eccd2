"""A fast full-information simulator for trick-taking games: many deals at once, in numpy.

What a search bot needs to evaluate thousands of sampled worlds: play them out to the end
with random players, far faster than the plugin's state machine can (README, "Players").

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
the stock is empty (Bisca).

A game opts in with a :class:`TrickSimulator` named ``SIMULATOR`` in its plugin's
``fastsim`` module (:func:`simulator_for`); it says how the game deals.  The plugin is the
authority: :func:`cross_check` compares a simulator with it on random positions.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from p2pcards.core import PLAY, DealState, Decision, GameSpec
from p2pcards.core.cards import SUITS, Card

__all__ = [
    "CardTable",
    "Positions",
    "Outcome",
    "TrickSimulator",
    "legal_masks",
    "playout",
    "POLICIES",
    "RANDOM",
    "GREEDY",
    "cards_of_mask",
    "simulator_for",
    "cross_check",
]

U64 = NDArray[np.uint64]
I64 = NDArray[np.int64]

#: added to a trump's strength so that any trump beats any card of another suit
_TRUMP_BONUS: int = 1000
_SELECT_WIDTHS = (32, 16, 8, 4, 2, 1)

#: Players of :func:`playout`: uniformly random legal cards.
RANDOM = "random"
#: Players of :func:`playout` that see every hand (the deals are full information) and
#: follow simple rules, all deals at once (:func:`greedy_cards`): lead a card nobody else
#: can beat in its suit unless an opponent would trump it, else the cheapest card, keeping
#: trumps; when the partner is winning the trick, give it the most points (no trump);
#: when an opponent is winning, take the trick with the cheapest card that does (with a
#: trump only when the trick holds points; the last to play takes with the most points),
#: else give the cheapest card.  ``epsilon`` of the cards are random instead.
GREEDY = "greedy"
POLICIES = (RANDOM, GREEDY)


class CardTable:
    """A deck seen as integers: card ``i`` is ``deck[i]``, with its suit, strength and points.

    ``suit_mask[s]`` has the bits of the cards of suit ``s``; the extra last entry is empty
    (the "no suit led" of an empty trick, where any card may be played).
    """

    def __init__(
        self, deck: Sequence[Card], strength: Mapping[str, int], points: Mapping[str, int], suits: str = SUITS
    ) -> None:
        if not 0 < len(deck) <= 64:
            raise ValueError(f"a deck of {len(deck)} cards does not fit 64-bit hands")
        if len(set(deck)) != len(deck):
            raise ValueError("a deck must not hold the same card twice")
        self.deck: tuple[Card, ...] = tuple(deck)
        self.suits = suits
        self.ids: dict[Card, int] = {c: i for i, c in enumerate(self.deck)}
        n = len(self.deck)
        self.suit: I64 = np.array([suits.index(c[1]) for c in self.deck], dtype=np.int64)
        self.strength: I64 = np.array([strength[c[0]] for c in self.deck], dtype=np.int64)
        if int(self.strength.min()) < 0 or int(self.strength.max()) >= _TRUMP_BONUS:
            raise ValueError("card strengths must lie in 0..999")
        self.points: I64 = np.array([points.get(c[0], 0) for c in self.deck], dtype=np.int64)
        self.bit: U64 = np.left_shift(np.uint64(1), np.arange(n, dtype=np.uint64))
        masks = [0] * (len(suits) + 1)
        for i, c in enumerate(self.deck):
            masks[suits.index(c[1])] |= 1 << i
        self.suit_mask: U64 = np.array(masks, dtype=np.uint64)
        self.no_suit = len(suits)
        higher = [0] * n
        for i, c in enumerate(self.deck):
            for j, d in enumerate(self.deck):
                if d[1] == c[1] and strength[d[0]] > strength[c[0]]:
                    higher[i] |= 1 << j
        #: per card, the cards of its suit that beat it
        self.higher: U64 = np.array(higher, dtype=np.uint64)
        self._greedy: _GreedyTables | None = None

    def mask(self, cards: Sequence[Card]) -> int:
        """The bitmask of ``cards``."""
        out = 0
        for c in cards:
            out |= 1 << self.ids[c]
        return out

    def suit_index(self, suit: str | None) -> int:
        """The index of ``suit`` (``-1`` for no trumps)."""
        return -1 if suit is None else self.suits.index(suit)


def cards_of_mask(table: CardTable, mask: int) -> list[Card]:
    """The cards whose bits are set in ``mask``, in deck order."""
    return [c for i, c in enumerate(table.deck) if mask >> i & 1]


@dataclass
class Positions:
    """A batch of full-information positions, one row per deal (arrays of numpy ints).

    ``hands`` (B, seats) bitmasks; ``trump`` (B,) suit index or -1; ``leader`` (B,) the
    seat that led the current trick, or leads the next when it is empty; ``trick`` (B,
    seats) the cards played to the current trick in play order, -1 after the last;
    ``points`` and ``tricks`` (B, teams) taken so far; ``stock`` (B, K) the cards still to
    draw, in draw order, -1 after the last (K may be 0: no stock).
    """

    hands: U64
    trump: I64
    leader: I64
    trick: I64
    points: I64
    tricks: I64
    stock: I64 = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))

    def __post_init__(self) -> None:
        b = self.hands.shape[0]
        if self.stock.size == 0 and self.stock.shape[0] != b:  # no stock
            self.stock = np.full((b, 0), -1, dtype=np.int64)
        for name in ("trump", "leader", "trick", "points", "tricks", "stock"):
            if getattr(self, name).shape[0] != b:
                raise ValueError(f"positions: {name} has {getattr(self, name).shape[0]} rows, hands {b}")

    @property
    def size(self) -> int:
        return int(self.hands.shape[0])

    def copy(self) -> Positions:
        return Positions(
            self.hands.copy(), self.trump.copy(), self.leader.copy(), self.trick.copy(),
            self.points.copy(), self.tricks.copy(), self.stock.copy(),
        )

    def take(self, rows: I64) -> Positions:
        """The batch of the rows ``rows`` of this one (repeats allowed)."""
        return Positions(
            self.hands[rows], self.trump[rows], self.leader[rows], self.trick[rows], self.points[rows],
            self.tricks[rows], self.stock[rows],
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
            np.concatenate(stocks),
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
        self.hands: U64 = pos.hands.astype(np.uint64)
        self.trump = pos.trump.astype(np.int64)
        self.points = pos.points.astype(np.int64)
        self.tricks = pos.tricks.astype(np.int64)
        self.stock = pos.stock.astype(np.int64)
        self.stock_left: I64 = (self.stock >= 0).sum(axis=1).astype(np.int64)
        self.drawn: I64 = np.zeros(b, dtype=np.int64)
        trick = pos.trick.astype(np.int64)
        self.nplayed: I64 = (trick >= 0).sum(axis=1).astype(np.int64)
        self.leader = pos.leader.astype(np.int64)
        self.turn: I64 = (self.leader + self.nplayed) % seats
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
            self._take(c, here, (self.leader + k) % seats)

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
        hand = self.hands[self.rows, self.turn]
        led = np.where(self.stock_left > 0, self.table.no_suit, self.led)
        follow = np.bitwise_and(hand, self.table.suit_mask[led])
        return np.where(follow != 0, follow, hand)

    def play(self, card: I64, active: NDArray[np.bool_]) -> NDArray[np.bool_]:
        """The seat to play plays ``card`` where ``active``; returns where a trick ended."""
        t = self.table
        seat = self.turn
        bit = np.where(active, t.bit[card], np.uint64(0))
        self.hands[self.rows, seat] &= ~bit
        lead = active & (self.nplayed == 0)
        self.led = np.where(lead, t.suit[card], self.led)
        self.best_key = np.where(lead, -1, self.best_key)
        self._take(card, active, seat)
        self.nplayed += active
        self.turn = np.where(active, (seat + 1) % self.seats, seat)
        done: NDArray[np.bool_] = self.nplayed == self.seats
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

    def remaining(self) -> I64:
        """Cards still to be played per deal."""
        held: I64 = np.bitwise_count(self.hands).astype(np.int64).sum(axis=1)
        out: I64 = held + self.stock_left
        return out


def legal_masks(table: CardTable, pos: Positions, team_of: Sequence[int]) -> U64:
    """The legal cards (bitmask) of the seat to play in each position of ``pos``."""
    return _Run(table, pos, team_of).legal()


def _random_cards(legal: U64, rng: np.random.Generator) -> I64:
    """A uniformly random card of each ``legal`` mask."""
    count = np.bitwise_count(legal).astype(np.int64)
    return _select_bit(legal, (rng.random(legal.shape[0]) * count).astype(np.int64))


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
    if t._greedy is None:
        t._greedy = _GreedyTables(t)
    return t._greedy


def greedy_cards(run: _Run, legal: U64) -> I64:
    """The card the greedy player (:data:`GREEDY`) to play plays in each deal of ``run``."""
    t = run.table
    g = _tables(t)
    b = run.rows.size
    n = len(t.deck)
    held = np.unpackbits(legal.view(np.uint8).reshape(b, 8), axis=1, bitorder="little")[:, :n].astype(bool)
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
    score[~held] = np.iinfo(np.int32).min
    card: I64 = np.argmax(score, axis=1).astype(np.int64)
    return card


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

    Players (``policy``, :data:`POLICIES`, or one per seat) choose among the legal cards
    with ``rng``: uniformly at random, or greedily (with ``epsilon`` of the cards random); or
    ``choices`` (B, steps) gives the card each deal plays at each step (a deal's cards
    after it ended are ignored).  A given card that is not legal is still played (taken
    from the hand if held) and marks the deal in ``Outcome.illegal``.  ``first`` (B,)
    gives each deal's first card (it must be legal; -1: the player chooses) before the
    players take over.
    ``record`` keeps the cards played and the trick winners.
    """
    if (rng is None) == (choices is None):
        raise ValueError("give either rng (players) or choices (the cards to play)")
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError("epsilon must lie in 0..1")
    run = _Run(table, pos, team_of)
    policies = [policy] * run.seats if isinstance(policy, str) else list(policy)
    if len(policies) != run.seats:
        raise ValueError(f"give one policy, or a policy for each of the {run.seats} seats")
    for p in policies:
        if p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}: one of {', '.join(POLICIES)}")
    greedy_seat = np.array([p == GREEDY for p in policies])
    some_greedy, all_greedy = bool(greedy_seat.any()), bool(greedy_seat.all())
    b = pos.size
    remaining = run.remaining()
    steps = int(remaining.max()) if b else 0
    if choices is not None and choices.shape[1] < steps:
        raise ValueError(f"choices give {choices.shape[1]} steps, the deals need {steps}")
    if first is not None and choices is not None:
        raise ValueError("first cards are for players, not with choices")
    if first is not None and first.shape != (b,):
        raise ValueError(f"first gives {first.shape[0] if first.ndim else 0} cards, the batch has {b} deals")
    illegal = np.zeros(b, dtype=bool) if choices is not None else None
    plays = np.full((b, steps), -1, dtype=np.int64) if record else None
    max_tricks = steps // run.seats + 2
    winners = np.full((b, max_tricks), -1, dtype=np.int64) if record else None
    done_tricks = np.zeros(b, dtype=np.int64)
    for step in range(steps):
        active = remaining > step
        legal = run.legal()
        given = None
        if step == 0 and first is not None:
            given = active & (first >= 0)
            card = np.where(given & (first < len(table.deck)), first, 0)
            if (given & ((first >= len(table.deck)) | (np.bitwise_and(legal, table.bit[card]) == 0))).any():
                raise ValueError("a first card is not legal in its deal")
        if choices is None:
            assert rng is not None
            if some_greedy:
                card = greedy_cards(run, legal)
                if epsilon > 0.0 or not all_greedy:
                    rand = _random_cards(legal, rng)
                    pick = ~greedy_seat[run.turn]
                    if epsilon > 0.0:
                        pick |= rng.random(b) < epsilon
                    card = np.where(pick, rand, card)
            else:
                card = _random_cards(legal, rng)
            if given is not None and first is not None:
                card = np.where(given, first, card)
            card = np.where(active, card, 0)
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


class TrickSimulator:
    """A game's batch simulator: its cards, its teams, and how it deals.

    Subclasses give :meth:`deal_decks` (positions at the first play of deals from
    shuffled decks) and, for games with a stock, :meth:`stock_of`.  ``variants`` lists the
    table options (and their values) the simulator follows; other options keep their
    defaults when cross-checked.
    """

    game: str = ""
    variants: Mapping[str, tuple[Any, ...]] = {}

    def __init__(self, table: CardTable, team_of: Sequence[int]) -> None:
        self.table = table
        self.team_of = tuple(team_of)
        self.seats = len(self.team_of)
        self.teams = max(self.team_of) + 1

    # ------------------------------------------------------------------ for subclasses
    def deal_decks(self, decks: I64, dealer: I64, options: Mapping[str, Any]) -> Positions:
        """Positions at the first play of deals dealt from ``decks`` (B, N) by ``dealer``."""
        raise NotImplementedError

    def stock_of(self, state: DealState) -> list[int]:
        """The stock of a plugin deal, as card ids in draw order (default: none)."""
        return []

    # ------------------------------------------------------------------ the interface
    def new_deals(
        self, n: int, rng: np.random.Generator, dealer: int | I64 = 0, options: Mapping[str, Any] | None = None
    ) -> Positions:
        """``n`` deals from decks shuffled with ``rng``, at their first play."""
        decks = rng.permuted(np.tile(np.arange(len(self.table.deck), dtype=np.int64), (n, 1)), axis=1)
        dealers = np.broadcast_to(np.asarray(dealer, dtype=np.int64), (n,)).copy()
        return self.deal_decks(decks, dealers, self._options(options))

    def play_deals(
        self, n: int, rng: np.random.Generator, dealer: int | I64 = 0,
        options: Mapping[str, Any] | None = None, record: bool = False,
    ) -> Outcome:
        """Play ``n`` whole deals from shuffled decks with random players."""
        return playout(self.table, self.new_deals(n, rng, dealer, options), self.team_of, rng=rng, record=record)

    def playout(
        self, pos: Positions, rng: np.random.Generator, policy: str | Sequence[str] = RANDOM, epsilon: float = 0.0,
        first: I64 | None = None,
    ) -> I64:
        """Final card points per team (B, teams) of ``pos`` played out by ``policy``'s
        players (:func:`playout`), each deal's ``first`` card given if any."""
        return playout(self.table, pos, self.team_of, rng=rng, policy=policy, epsilon=epsilon, first=first).points

    def legal(self, pos: Positions) -> U64:
        """The legal cards (bitmask) of the seat to play in each position."""
        return legal_masks(self.table, pos, self.team_of)

    def from_states(self, states: Sequence[DealState]) -> Positions:
        """The positions of plugin deals (full information) waiting for a card to be played."""
        rows = [self._row(s) for s in states]
        width = max((len(r[-1]) for r in rows), default=0)
        return Positions(
            np.array([r[0] for r in rows], dtype=np.uint64).reshape(len(rows), self.seats),
            np.array([r[1] for r in rows], dtype=np.int64),
            np.array([r[2] for r in rows], dtype=np.int64),
            np.array([r[3] for r in rows], dtype=np.int64).reshape(len(rows), self.seats),
            np.array([r[4] for r in rows], dtype=np.int64).reshape(len(rows), self.teams),
            np.array([r[5] for r in rows], dtype=np.int64).reshape(len(rows), self.teams),
            np.array([r[6] + [-1] * (width - len(r[6])) for r in rows], dtype=np.int64).reshape(len(rows), width),
        )

    def _row(
        self, state: DealState, scores: tuple[list[int], list[int]] | None = None
    ) -> tuple[list[int], int, int, list[int], list[int], list[int], list[int]]:
        """One position as lists: hands, trump, leader, trick, points, tricks, stock;
        ``scores`` gives the points and tricks per team when the caller knows them."""
        step = state.step()
        if not (isinstance(step, Decision) and step.kind == PLAY) or state.leader is None:
            raise ValueError("the deal is not waiting for a card to be played")
        table = self.table
        ids = table.ids
        cards = state.deck.cards
        hands = []
        for seat in range(self.seats):
            m = 0
            for p in state.deck.hands[seat]:
                card = cards[p]
                if card is None:
                    raise ValueError(f"seat {seat}'s hand is not known (full information only)")
                m |= 1 << ids[card]
            hands.append(m)
        trick = [ids[cards[p]] for _, p in state.trick]  # type: ignore[index]
        trick += [-1] * (self.seats - len(trick))
        points, tricks = scores if scores is not None else self._scores(state)
        return (hands, table.suit_index(state.trump), state.leader, trick, points, tricks, self.stock_of(state))

    def _scores(self, state: DealState) -> tuple[list[int], list[int]]:
        """Card points and tricks per team taken so far in ``state``."""
        points = [0] * self.teams
        tricks = [0] * self.teams
        counts = state.trick_counts()
        for seat in range(self.seats):
            points[self.team_of[seat]] += state.taken_points(seat)
            tricks[self.team_of[seat]] += counts[seat]
        return points, tricks

    def _options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        out = {k: v[0] for k, v in self.variants.items()}
        out.update(options or {})
        for k, v in out.items():
            if k in self.variants and v not in self.variants[k]:
                raise ValueError(f"{self.game}: the simulator does not follow {k}={v}")
        return out


def simulator_for(spec: GameSpec) -> TrickSimulator | None:
    """The batch simulator of ``spec``'s plugin (:attr:`GameSpec.simulator`), or None if
    the plugin has none (or gives something that is not a :class:`TrickSimulator`)."""
    sim = spec.batch_simulator
    return sim if isinstance(sim, TrickSimulator) else None


# ---------------------------------------------------------------------- cross-check
@dataclass
class _Sample:
    """Positions captured from plugin deals, with what the plugin said about them."""

    states: list[tuple[list[int], int, int, list[int], list[int], list[int], list[int]]] = field(default_factory=list)
    legal: list[int] = field(default_factory=list)
    rest: list[list[int]] = field(default_factory=list)
    winners: list[list[int]] = field(default_factory=list)
    points: list[list[int]] = field(default_factory=list)
    tricks: list[list[int]] = field(default_factory=list)


def _plugin_deal(spec: GameSpec, sim: TrickSimulator, rng: random.Random) -> tuple[DealState, dict[str, Any]]:
    """A plugin deal with a random dealer, deck and variant, at its first step."""
    options = spec.resolve_options()
    for name, values in sim.variants.items():
        options[name] = values[rng.randrange(len(values))]
    match = spec.new_match(options, rng.randrange(spec.seats))
    cards = list(spec.deck)
    rng.shuffle(cards)
    return match.new_deal(cards), options


def _sample_deal(spec: GameSpec, sim: TrickSimulator, rng: random.Random, out: _Sample) -> int:
    """Play one plugin deal with random players, capturing every position; return how many."""
    deal, _ = _plugin_deal(spec, sim, rng)
    ids = sim.table.ids
    first = len(out.states)
    played: list[int] = []
    scores = sim._scores(deal)
    scored = 0
    for step in deal.decisions():
        seat = step.seats[0]
        legal = deal.legal(seat)
        if len(deal.tricks) != scored:
            scores, scored = sim._scores(deal), len(deal.tricks)
        out.states.append(sim._row(deal, scores))
        mask = 0
        for p in legal:
            mask |= 1 << ids[deal.deck.cards[p]]  # type: ignore[index]
        out.legal.append(mask)
        choice = legal[rng.randrange(len(legal))]
        played.append(ids[deal.deck.cards[choice]])  # type: ignore[index]
        out.winners.append([len(deal.tricks)])  # tricks done at this position, resolved below
        deal.apply(seat, choice)
    result = deal.result
    assert result is not None
    winners = [t.winner for t in deal.tricks]
    for k in range(first, len(out.states)):
        done = out.winners[k][0]
        out.winners[k] = winners[done:]
        out.rest.append(played[k - first :])
        out.points.append(list(result["points"]))
        out.tricks.append(list(result["tricks"]))
    return len(out.states) - first


def _check_sample(sim: TrickSimulator, sample: _Sample) -> dict[str, int]:
    """Compare the simulator with what the plugin said about ``sample``; count differences."""
    rows = sample.states
    n = len(rows)
    width = max(len(r[6]) for r in rows)
    pos = Positions(
        np.array([r[0] for r in rows], dtype=np.uint64),
        np.array([r[1] for r in rows], dtype=np.int64),
        np.array([r[2] for r in rows], dtype=np.int64),
        np.array([r[3] for r in rows], dtype=np.int64),
        np.array([r[4] for r in rows], dtype=np.int64),
        np.array([r[5] for r in rows], dtype=np.int64),
        np.array([r[6] + [-1] * (width - len(r[6])) for r in rows], dtype=np.int64).reshape(n, width),
    )
    legal = sim.legal(pos)
    legal_diff = int((legal != np.array(sample.legal, dtype=np.uint64)).sum())
    steps = max(len(r) for r in sample.rest)
    choices = np.array([r + [-1] * (steps - len(r)) for r in sample.rest], dtype=np.int64)
    out = playout(sim.table, pos, sim.team_of, choices=choices, record=True)
    assert out.winners is not None and out.illegal is not None
    tricks_max = out.winners.shape[1]
    want_winners = np.array([w + [-1] * (tricks_max - len(w)) for w in sample.winners], dtype=np.int64)
    return {
        "legal": legal_diff,
        "illegal_play": int(out.illegal.sum()),
        "trick_winners": int((out.winners != want_winners).any(axis=1).sum()),
        "points": int((out.points != np.array(sample.points, dtype=np.int64)).any(axis=1).sum()),
        "tricks": int((out.tricks != np.array(sample.tricks, dtype=np.int64)).any(axis=1).sum()),
    }


def _replay_in_plugin(spec: GameSpec, sim: TrickSimulator, rng: random.Random, seed: int, n: int) -> int:
    """Play ``n`` random deals in the simulator, replay each in the plugin with the same
    cards; return how many ended differently (or met a card the plugin refused)."""
    if n <= 0:
        return 0
    deals = [_plugin_deal(spec, sim, rng) for _ in range(n)]
    parts = []
    for deal, options in deals:
        deck = np.array([[sim.table.ids[c] for c in deal.deck.cards]], dtype=np.int64)  # type: ignore[index]
        parts.append(sim.deal_decks(deck, np.array([deal.dealer], dtype=np.int64), sim._options(options)))
    out = playout(sim.table, Positions.concat(parts), sim.team_of, rng=np.random.default_rng(seed), record=True)
    assert out.plays is not None
    return sum(
        not _replayed_alike(deal, sim, [int(c) for c in out.plays[i] if c >= 0], out.points[i], out.tricks[i])
        for i, (deal, _) in enumerate(deals)
    )


def _replayed_alike(deal: DealState, sim: TrickSimulator, plays: list[int], points: I64, tricks: I64) -> bool:
    """Whether the plugin, fed ``plays`` in order, accepts each as legal and ends with the
    same card points and tricks per team."""
    k = 0
    for step in deal.decisions():
        if k >= len(plays):
            return False
        seat = step.seats[0]
        position = deal.deck.cards.index(sim.table.deck[plays[k]])
        k += 1
        if deal.deck.owner[position] != seat or position not in deal.legal(seat):
            return False
        deal.apply(seat, position)
    result = deal.result
    return (
        result is not None and k == len(plays) and result.get("renuncia") is None
        and list(result["points"]) == [int(x) for x in points] and list(result["tricks"]) == [int(x) for x in tricks]
    )


def cross_check(
    spec: GameSpec, sim: TrickSimulator, positions: int, seed: int = 1, replays: int | None = None,
    chunk: int = 50_000,
) -> dict[str, Any]:
    """Compare ``sim`` with ``spec``'s own rules (the authority) on random positions.

    Random deals (random dealer, deck and simulated variant) are played through the plugin
    by random players; every position where a card is due counts, until ``positions``.
    At each: the simulator's legal set must equal the plugin's ``legal``; replaying the
    plugin's remaining cards from there, every card must be legal in the simulator, and the
    trick winners, final card points and tricks per team must agree.  Then ``replays``
    deals (default: one per 100 positions, at least 10) go the other way: played by the
    simulator's random players, replayed in the plugin with the same cards.
    Returns the counts of positions, deals and differences of each kind.
    """
    rng = random.Random(seed)
    diffs = {"legal": 0, "illegal_play": 0, "trick_winners": 0, "points": 0, "tricks": 0}
    done = 0
    deals = 0
    while done < positions:
        sample = _Sample()
        while len(sample.states) < min(chunk, positions - done):
            _sample_deal(spec, sim, rng, sample)
            deals += 1
        for k, v in _check_sample(sim, sample).items():
            diffs[k] += v
        done += len(sample.states)
    n_replays = max(10, positions // 100) if replays is None else replays
    replay_diff = _replay_in_plugin(spec, sim, rng, seed, n_replays)
    return {
        "game": spec.name,
        "positions": done,
        "deals": deals,
        "differ": diffs,
        "replayed_deals": n_replays,
        "replays_differ": replay_diff,
        "ok": not any(diffs.values()) and replay_diff == 0,
    }
