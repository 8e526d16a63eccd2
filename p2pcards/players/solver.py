"""The search's exact solvers: :class:`TrickSolver`, alpha-beta over the last cards of a
follow-suit point deal of two sides (the search hands it a decision once few cards remain,
:data:`~p2pcards.players.search.SOLVE_PLAYS`), and :func:`minimax_values`, plain minimax
through a plugin's own rules (slow: the reference the solver is tested against)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from p2pcards.core import DealResult, DealState, Decision, End, Plain
from p2pcards.core.cards import Card, Suit

__all__ = ["TrickSolver", "minimax_values"]


class TrickSolver:
    """Exact alpha-beta over the rest of a follow-suit point deal of two sides (the search's
    module docstring, :mod:`p2pcards.players.search`).

    ``sides[s]`` is the side of seat ``s``; :meth:`values` gives, per legal card of the seat
    to play, the card points ``side`` takes from the cards still out (the current trick's
    and the hands') when everyone plays best from there.  Cards are coded as small integers
    (bit ``i`` of a hand's mask: the ``i``-th card of the position); positions at the start
    of a trick are solved once (memo).
    """

    def __init__(
        self, trump: Suit | None, strength: Mapping[str, int], points: Mapping[str, int],
        sides: Sequence[int], side: int,
    ) -> None:
        self.trump = trump
        self.strength = strength
        self.points = points
        self.sides = list(sides)
        self.side = side
        self.seats = len(sides)
        self.nodes = 0

    def values(self, hands: list[list[Card]], trick: list[tuple[int, Card]], turn: int) -> dict[Card, int]:
        """Per legal card of ``turn``: ``side``'s points from here under best play."""
        cards = sorted({c for h in hands for c in h} | {c for _, c in trick})
        # trumps rank above every other card; within a suit, by strength
        cards.sort(key=lambda c: -(self.strength[c[0]] + (100 if c[1] == self.trump else 0)))
        code = {c: i for i, c in enumerate(cards)}
        self._suit = [c[1] for c in cards]
        self._rank = [-i for i in range(len(cards))]
        self._pts = [self.points.get(c[0], 0) for c in cards]
        self._trump = self.trump
        self._memo: dict[tuple[int, ...], tuple[int, int]] = {}
        own = [sorted(code[c] for c in h) for h in hands]
        played = [(s, code[c]) for s, c in trick]
        out: dict[Card, int] = {}
        hand = own[turn]
        for i in self._legal(hand, played):
            k = hand.index(i)
            del hand[k]
            played.append((turn, i))
            out[cards[i]] = self._search(own, played, (turn + 1) % self.seats, -1, 1 << 30)
            played.pop()
            hand.insert(k, i)
        return out

    def _legal(self, hand: list[int], played: list[tuple[int, int]]) -> list[int]:
        """Legal cards of ``hand`` (strongest first: codes are in strength order)."""
        if played:
            suit = self._suit
            led = suit[played[0][1]]
            same = [i for i in hand if suit[i] == led]
            if same:
                return same
        return list(hand)

    def _search(self, hands: list[list[int]], played: list[tuple[int, int]], turn: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if len(played) == self.seats:
            suit = self._suit
            trump = self._trump
            led = suit[played[0][1]]
            win_seat, best = played[0]
            for s, i in played[1:]:
                # codes are in strength order, trumps first: a lower code is a stronger card
                if i < best and (suit[i] == led or suit[i] == trump):
                    win_seat, best = s, i
            gain = sum(self._pts[i] for _, i in played) if self.sides[win_seat] == self.side else 0
            if not hands[win_seat]:
                return gain
            return gain + self._trick_start(hands, win_seat, alpha - gain, beta - gain)
        maximize = self.sides[turn] == self.side
        best_v = -1 if maximize else 1 << 30
        nxt = (turn + 1) % self.seats
        hand = hands[turn]
        for i in self._legal(hand, played):
            k = hand.index(i)
            del hand[k]
            played.append((turn, i))
            v = self._search(hands, played, nxt, alpha, beta)
            played.pop()
            hand.insert(k, i)
            if maximize:
                if v > best_v:
                    best_v = v
                    alpha = max(alpha, v)
            elif v < best_v:
                best_v = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        return best_v

    def _trick_start(self, hands: list[list[int]], leader: int, alpha: int, beta: int) -> int:
        """The value from a trick's start, with a memo of bounds (lower, upper)."""
        key = (leader, *(sum(1 << i for i in h) for h in hands))
        lo, hi = self._memo.get(key, (-1, 1 << 30))
        if lo == hi or lo >= beta:
            return lo
        if hi <= alpha:
            return hi
        a, b = max(alpha, lo), min(beta, hi)
        v = self._search(hands, [], leader, a, b)
        if v <= a:
            hi = v
        elif v >= b:
            lo = v
        else:
            lo = hi = v
        self._memo[key] = (lo, hi)
        return v


def minimax_values(
    state: DealState, seat: int, score: Callable[[DealResult], float], sides: Sequence[int]
) -> dict[Plain, float]:
    """Plain minimax through the plugin's own rules (slow; a reference for small
    positions): per legal choice of ``seat``, ``score`` of the end result when ``seat``'s
    side (``sides``) maximizes it and the other side minimizes it."""

    def value(st: DealState) -> float:
        while True:
            step = st.step()
            if type(step) is End:
                return score(step.result)
            if type(step) is Decision:
                break
            st.complete()
        s = st.undecided()[0]
        vals = []
        for choice in st.legal(s):
            child = st.copy()
            child.apply(s, choice)
            vals.append(value(child))
        return max(vals) if sides[s] == sides[seat] else min(vals)

    out: dict[Plain, float] = {}
    for choice in state.legal(seat):
        child = state.copy()
        child.apply(seat, choice)
        out[choice] = value(child)
    return out
