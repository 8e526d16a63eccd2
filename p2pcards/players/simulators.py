"""A game's batch simulator: :class:`TrickSimulator` (a plugin subclasses it to say how
its game deals, on the batch machinery of :mod:`p2pcards.players.fastsim`), how the search
finds a game's simulator (:func:`simulator_for`), and :func:`cross_check`, which compares a
simulator with the game's plugin, the authority, on random positions.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

import numpy as np
from numpy.typing import NDArray

from p2pcards.core import PLAY, DealState, Decision, GameSpec, Legal, Match, Options, OptionValue
from p2pcards.players.fastsim import GREEDY, I64, RANDOM, U64, CardTable, Outcome, Positions, legal_masks, playout
from p2pcards.players.inference import Inference

__all__ = ["TrickSimulator", "simulator_for", "cross_check", "CrossCheck"]


class CrossCheck(TypedDict):
    """What :func:`cross_check` found (JSON-ready, ``bench sim --check``): how many
    positions of how many plugin deals it compared, the differences of each kind among
    them, how many simulator deals it replayed in the plugin and how many of those differed,
    and whether nothing differed."""

    game: str
    positions: int
    deals: int
    differ: dict[str, int]
    replayed_deals: int
    replays_differ: int
    ok: bool


_Row = tuple[list[int], int, int, list[int], list[int], list[int], list[int], bool, list[bool]]


class TrickSimulator:
    """A game's batch simulator: its cards, its teams, and how it deals.

    Subclasses give :meth:`deal_decks` (positions at the first play of deals from
    shuffled decks) and, for games with a stock, :meth:`stock_of`; a game that scores
    otherwise than by its card points, deals otherwise than straight to the first trick or
    lets seats sit out also gives :meth:`values`, :meth:`broken`, :meth:`active_of`,
    :meth:`plugin_deal`, :meth:`deal_scores` or :meth:`for_options` (Copas, Sobe e Desce).
    ``variants`` lists the table options (and their values) the simulator follows; other
    options keep their defaults when cross-checked.  ``policy`` is the players' policy of
    the search's play-outs (``model_policy``, if set, the other sides' seats).
    """

    game: str = ""
    variants: Mapping[str, tuple[OptionValue, ...]] = {}
    policy: str = GREEDY
    #: the policy of the other sides' seats in the search's play-outs, its model of its
    #: opponents (a game's own heuristic, :func:`~p2pcards.players.policies.add_policy`);
    #: None: ``policy``.  The seat's partner plays ``policy``, as the seat does
    #: (:meth:`policies`)
    model_policy: str | None = None
    #: how the search's worlds are weighed by the other seats' choices (the sampler's
    #: :class:`~p2pcards.players.inference.Inference`; Bisca asks for more than the default)
    inference: Inference = Inference()

    def __init__(self, table: CardTable, team_of: Sequence[int]) -> None:
        self.table = table
        self.team_of = tuple(team_of)
        self.seats = len(self.team_of)
        self.teams = max(self.team_of) + 1

    # ------------------------------------------------------------------ for subclasses
    def deal_decks(self, decks: I64, dealer: I64, options: Options) -> Positions:
        """Positions at the first play of deals dealt from ``decks`` (B, N) by ``dealer``."""
        raise NotImplementedError

    def stock_of(self, state: DealState) -> list[int]:
        """The stock of a plugin deal, as card ids in draw order (default: none)."""
        return []

    def broken(self, state: DealState) -> bool:
        """Whether any card may be led in a plugin deal whatever the
        :class:`~p2pcards.players.fastsim.HeartsRules` say (default: no such rules)."""
        return False

    def values(self, outcome: Outcome, pos: Positions, seat: int) -> NDArray[np.float64]:
        """The value for ``seat`` (higher is better) of each deal of ``pos`` played out
        (``outcome``): by default its team's card points."""
        out: NDArray[np.float64] = outcome.points[:, self.team_of[seat]].astype(float)
        return out

    def active_of(self, state: DealState) -> list[bool]:
        """Which seats play a plugin deal (default: all)."""
        return [True] * self.seats

    def plugin_deal(self, match: Match, cards: list[str]) -> DealState:
        """A plugin deal of ``cards`` in ``match`` that the simulator's :meth:`deal_decks`
        deals alike (for the cross-check; default: the match's next deal)."""
        return match.new_deal(cards)

    def deal_scores(self, deal: DealState) -> tuple[list[int], list[int]]:
        """A finished plugin deal's card points and tricks per team, as the simulator
        counts them (default: its result's ``points`` and ``tricks``)."""
        result = deal.result
        assert result is not None
        return _numbers(result["points"]), _numbers(result["tricks"])

    def for_options(self, options: Mapping[str, OptionValue]) -> TrickSimulator:
        """The simulator of a table with ``options`` (default: this one; Copas has one per
        rank order)."""
        return self

    # ------------------------------------------------------------------ the interface
    def new_deals(
        self, n: int, rng: np.random.Generator, dealer: int | I64 = 0, options: Options | None = None
    ) -> Positions:
        """``n`` deals from decks shuffled with ``rng``, at their first play."""
        decks = rng.permuted(np.tile(np.arange(len(self.table.deck), dtype=np.int64), (n, 1)), axis=1)
        dealers = np.broadcast_to(np.asarray(dealer, dtype=np.int64), (n,)).copy()
        return self.deal_decks(decks, dealers, self._options(options))

    def play_deals(
        self, n: int, rng: np.random.Generator, dealer: int | I64 = 0,
        options: Options | None = None, record: bool = False,
    ) -> Outcome:
        """Play ``n`` whole deals from shuffled decks with random players."""
        sim = self.for_options(self._options(options))
        return playout(sim.table, self.new_deals(n, rng, dealer, options), self.team_of, rng=rng, record=record)

    def playout(
        self, pos: Positions, rng: np.random.Generator, policy: str | Sequence[str] = RANDOM, epsilon: float = 0.0,
        first: I64 | None = None,
    ) -> I64:
        """Final card points per team (B, teams) of ``pos`` played out by ``policy``'s
        players (:func:`playout`), each deal's ``first`` card given if any."""
        return self.outcome(pos, rng, policy, epsilon, first).points

    def outcome(
        self, pos: Positions, rng: np.random.Generator, policy: str | Sequence[str] = RANDOM, epsilon: float = 0.0,
        first: I64 | None = None,
    ) -> Outcome:
        """:meth:`playout`'s whole outcome: card points and tricks per team."""
        return playout(self.table, pos, self.team_of, rng=rng, policy=policy, epsilon=epsilon, first=first)

    def policies(self, seat: int) -> str | list[str]:
        """The play-outs' policy of each seat when ``seat`` searches: ``policy`` for the
        seat's side (itself, and its partner in Sueca), ``model_policy`` for the others.

        A partner is played as the seat plays itself, not as the heuristic: at a table
        against the computer it is a computer player of the same level as often as not,
        and in a duel it always is.  Measured (Sueca, the 1,000 pairs of seed 2 at 100
        worlds): against the heuristic 92.8 % of pairs (93.1 % with the partner modelled
        by the heuristic too, 89.4 % with no model); against the search of the release of
        2 December, which models nobody, 46.9 % (44.0 % and 48.8 %)."""
        model = self.model_policy
        if model is None:
            return self.policy
        side = self.team_of[seat]
        return [self.policy if t == side else model for t in self.team_of]

    def legal(self, pos: Positions) -> U64:
        """The legal cards (bitmask) of the seat to play in each position."""
        return legal_masks(self.table, pos, self.team_of)

    def from_states(self, states: Sequence[DealState]) -> Positions:
        """The positions of plugin deals (full information) waiting for a card to be played."""
        rows = [self._row(s) for s in states]
        width = max((len(r[6]) for r in rows), default=0)
        return Positions(
            np.array([r[0] for r in rows], dtype=np.uint64).reshape(len(rows), self.seats),
            np.array([r[1] for r in rows], dtype=np.int64),
            np.array([r[2] for r in rows], dtype=np.int64),
            np.array([r[3] for r in rows], dtype=np.int64).reshape(len(rows), self.seats),
            np.array([r[4] for r in rows], dtype=np.int64).reshape(len(rows), self.teams),
            np.array([r[5] for r in rows], dtype=np.int64).reshape(len(rows), self.teams),
            np.array([r[6] + [-1] * (width - len(r[6])) for r in rows], dtype=np.int64).reshape(len(rows), width),
            np.array([r[7] for r in rows], dtype=bool),
            np.array([r[8] for r in rows], dtype=bool).reshape(len(rows), self.seats),
        )

    def _row(self, state: DealState, scores: tuple[list[int], list[int]] | None = None) -> _Row:
        """One position as lists: hands, trump, leader, trick, points, tricks, stock,
        broken, active; ``scores`` gives the points and tricks per team when the caller
        knows them."""
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
        return (hands, table.suit_index(state.trump), state.leader, trick, points, tricks, self.stock_of(state),
                self.broken(state), self.active_of(state))

    def _scores(self, state: DealState) -> tuple[list[int], list[int]]:
        """Card points and tricks per team taken so far in ``state``."""
        points = [0] * self.teams
        tricks = [0] * self.teams
        counts = state.trick_counts()
        for seat in range(self.seats):
            points[self.team_of[seat]] += state.taken_points(seat)
            tricks[self.team_of[seat]] += counts[seat]
        return points, tricks

    def _options(self, options: Options | None) -> dict[str, OptionValue]:
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

    states: list[_Row] = field(default_factory=list)
    sims: list[TrickSimulator] = field(default_factory=list)
    legal: list[int] = field(default_factory=list)
    rest: list[list[int]] = field(default_factory=list)
    winners: list[list[int]] = field(default_factory=list)
    points: list[list[int]] = field(default_factory=list)
    tricks: list[list[int]] = field(default_factory=list)


def _plugin_deal(spec: GameSpec, sim: TrickSimulator, rng: random.Random) -> tuple[DealState, dict[str, OptionValue]]:
    """A plugin deal with a random dealer, deck and variant, at its first step."""
    options = spec.resolve_options()
    for name, values in sim.variants.items():
        options[name] = values[rng.randrange(len(values))]
    match = spec.new_match(options, rng.randrange(spec.seats))
    cards = list(spec.deck)
    rng.shuffle(cards)
    return sim.plugin_deal(match, cards), options


def _sample_deal(spec: GameSpec, sim: TrickSimulator, rng: random.Random, out: _Sample) -> int:
    """Play one plugin deal with random players, capturing every position; return how many."""
    deal, options = _plugin_deal(spec, sim, rng)
    sim = sim.for_options(options)
    ids = sim.table.ids
    first = len(out.states)
    played: list[int] = []
    scores = sim._scores(deal)
    scored = 0
    for step in deal.decisions():
        seat = step.seats[0]
        legal = deal.legal(seat)
        if _take_swap(deal, seat, legal):
            continue
        if len(deal.tricks) != scored:
            scores, scored = sim._scores(deal), len(deal.tricks)
        out.states.append(sim._row(deal, scores))
        out.sims.append(sim)
        mask = 0
        for p in legal:
            mask |= 1 << ids[deal.deck.cards[p]]  # type: ignore[index]
        out.legal.append(mask)
        choice = legal[rng.randrange(len(legal))]
        played.append(ids[deal.deck.cards[choice]])  # type: ignore[index]
        out.winners.append([len(deal.tricks)])  # tricks done at this position, resolved below
        deal.apply(seat, choice)
    points, tricks = sim.deal_scores(deal)
    winners = [t.winner for t in deal.tricks]
    for k in range(first, len(out.states)):
        done = out.winners[k][0]
        out.winners[k] = winners[done:]
        out.rest.append(played[k - first :])
        out.points.append(points)
        out.tricks.append(tricks)
    return len(out.states) - first


def _take_swap(deal: DealState, seat: int, legal: Sequence[Legal]) -> bool:
    """Take a play that is not a card (Bisca's swap of the 2 of trumps) when the rules
    offer one, as the simulator's players always do; whether one was taken."""
    other = [c for c in legal if type(c) is not int]
    if not other:
        return False
    deal.apply(seat, other[0])
    return True


def _numbers(value: object) -> list[int]:
    """A number per side of a deal's result (the ``points`` or ``tricks`` of a trick game)."""
    if not isinstance(value, list) or not all(type(x) is int for x in value):
        raise ValueError(f"not a number per side: {value!r}")
    return list(value)


def _check_sample(sample: _Sample) -> dict[str, int]:
    """Compare the simulators with what the plugin said about ``sample``; count differences."""
    diffs: dict[str, int] = {}
    groups: dict[int, list[int]] = {}
    for k, sim in enumerate(sample.sims):
        groups.setdefault(id(sim), []).append(k)
    for rows in groups.values():
        part = _Sample(*([getattr(sample, f)[k] for k in rows] for f in _Sample.__dataclass_fields__))
        for kind, n in _check_part(sample.sims[rows[0]], part).items():
            diffs[kind] = diffs.get(kind, 0) + n
    return diffs


def _check_part(sim: TrickSimulator, sample: _Sample) -> dict[str, int]:
    """:func:`_check_sample` for positions of one simulator."""
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
        np.array([r[7] for r in rows], dtype=bool),
        np.array([r[8] for r in rows], dtype=bool),
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
    groups: dict[int, list[tuple[DealState, TrickSimulator, Positions]]] = {}
    for deal, options in deals:
        own = sim.for_options(options)
        deck = np.array([[own.table.ids[c] for c in deal.deck.cards]], dtype=np.int64)  # type: ignore[index]
        part = own.deal_decks(deck, np.array([deal.dealer], dtype=np.int64), own._options(options))
        groups.setdefault(id(own), []).append((deal, own, part))
    nrng = np.random.default_rng(seed)
    differ = 0
    for group in groups.values():
        own = group[0][1]
        out = playout(own.table, Positions.concat([p for _, _, p in group]), own.team_of, rng=nrng, record=True)
        assert out.plays is not None
        differ += sum(
            not _replayed_alike(deal, own, [int(c) for c in out.plays[i] if c >= 0], out.points[i], out.tricks[i])
            for i, (deal, _, _) in enumerate(group)
        )
    return differ


def _replayed_alike(deal: DealState, sim: TrickSimulator, plays: list[int], points: I64, tricks: I64) -> bool:
    """Whether the plugin, fed ``plays`` in order, accepts each as legal and ends with the
    same card points and tricks per team."""
    k = 0
    for step in deal.decisions():
        if k >= len(plays):
            return False
        seat = step.seats[0]
        if _take_swap(deal, seat, deal.legal(seat)):
            continue
        position = deal.deck.cards.index(sim.table.deck[plays[k]])
        k += 1
        if deal.deck.owner[position] != seat or position not in deal.legal(seat):
            return False
        deal.apply(seat, position)
    result = deal.result
    if result is None or k != len(plays) or result.get("renuncia") is not None:
        return False
    want_points, want_tricks = sim.deal_scores(deal)
    return want_points == [int(x) for x in points] and want_tricks == [int(x) for x in tricks]


def cross_check(
    spec: GameSpec, sim: TrickSimulator, positions: int, seed: int = 1, replays: int | None = None,
    chunk: int = 50_000,
) -> CrossCheck:
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
        for k, v in _check_sample(sample).items():
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
