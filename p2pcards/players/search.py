"""The ``search`` computer player: determinized search over sampled worlds (PIMC).

For each decision the player

1. samples *worlds* -- full-information deals consistent with everything its
   :class:`~p2pcards.core.view.SeatView` shows, weighted by how likely the other seats'
   recent plays were under the game's heuristic (in Bisca, all of them, its cards redrawn
   until they are: the simulator's ``inference``; :mod:`p2pcards.players.sampling`
   explains both);
2. evaluates every candidate choice in every world: in a game whose plugin has a batch
   simulator (:attr:`GameSpec.simulator <p2pcards.core.spec.GameSpec.simulator>`: its
   trick play is the simulator's -- follow suit if you can, else anything; the highest
   trump, else the highest card of the suit led, wins; card points count), with two
   sides, once the stock is empty and few cards remain (the level's depth: for ``search``,
   :data:`SOLVE_PLAYS`), with an alpha-beta search of the rest of the deal
   (:class:`TrickSolver`); else, in a game with a batch simulator (every game here has
   one), a play's worlds are sampled in batches (:data:`EFFORT_BATCH`,
   :data:`BATCH_WORLDS`) and every (world x candidate) row of a batch is played out at
   once by the simulator's players (:data:`PLAYOUTS` per row; greedy ones, ducking ones
   in Copas; in Sueca and Bisca the opponents play as the heuristic does, the
   simulator's ``model_policy``, and a partner as the seat itself:
   :meth:`TrickSimulator.policies`) -- fast enough for hundreds of worlds a decision where
   plugin roll-outs manage a dozen (in the same time; the table's options choose the
   simulator: :meth:`TrickSimulator.for_options`; a choice that is not a card is applied
   through the plugin first, and the other seats' decisions up to the first card are the
   heuristic's); otherwise (a named choice, a game without a simulator) it
   applies the choice to a copy of the world and plays the deal out through the plugin
   with the game's heuristic in every seat (the random player for a game without one);
3. picks the choice with the best weighted mean of :func:`deal_score` (ties: the
   heuristic's own choice, which is tried first) -- or, at a level that slips
   (``mistakes``: the ``casual`` level), in a share of its plays drawn from its random
   stream, the play ranked second.

Scores, from the seat's side: the game's own deal value (:func:`deal_score`): a team's
card points in Sueca, one's own card points in Bisca, minus one's points in Copas, minus
one's score change in Sobe e Desce (``delta``).  A game whose plugin gives no deal value
is not searched: the player plays its heuristic.

Decisions searched: every play, Bisca's 2-of-trumps swap included; a decision naming one
of a few choices (:data:`NAMED_CHOICES`: Sobe e Desce's five trump choices); a decision
that may be declined, declining against the heuristic's choice when it must not decline
(Sobe e Desce: sitting out against going in with the heuristic's exchange).  Those other
decisions leave the heuristic's choice only for a clearly better one (:func:`clear_best`):
their outcomes vary so much that the best mean of a few dozen worlds is often luck.
Measured at 250 ms (one going in or trump choice against the real deal played out by the
heuristics, 120 deals): a trump choice gains about 0.5 point, a going in about 0.2; with
worlds drawn without the sampler's redraws (:mod:`p2pcards.players.sampling`) going in lost
0.4 point, the players who went in being far weaker in the worlds than at the table.
A pick of cards (Copas' pass of three: 286 ways, too many to roll out; Sobe e Desce's
exchange) compares the heuristic's pick with :data:`PICK_NEIGHBOURS` picks one card away
from it (:func:`neighbours`), drawn from the decision's random stream.  Measured at 100
worlds (one seat's pass searched against the heuristic's, the deal then played out by the
heuristics; 780 deals): the searched pass changed 30 % of the passes and saved 0.40 (+-
0.15) penalty points a deal.  Weighed in the batch simulator instead of through the
plugin (the same seat against the same heuristics, 390 to 400 deals each): a Copas pass
did 0.40 (+- 0.27) penalty points better, a Sobe e Desce going in 0.02 (+- 0.04) points
worse, in a fifth of the time; a trump choice 0.10 (+- 0.06) points worse, so trumps are
still rolled out through the plugin.  The rest take the heuristic's choice.  Any decision whose
history the sampler cannot replay also takes the heuristic's choice -- never silently: every
such fallback is counted by its reason (:data:`FALLBACKS`) and each reason logged once.

Budgets: the effort of a decision is a number of worlds, ``iterations``, by default the
``search`` level's (:data:`SEARCH_WORLDS`; each level's in
:data:`~p2pcards.players.base.LEVELS`; :data:`PICK_WORLDS` times as many for a pick of
cards that may be declined, Sobe e Desce's going in; the game's
:attr:`Inference.worlds <p2pcards.players.inference.Inference>` times as many while its
inference is kept, Bisca's three times), whatever the machine's load; then the clock
is never read and the same random stream gives the same choices (the play-outs' numpy
generator is seeded from it).  ``cap_ms`` caps a decision's time over that effort (a
table's pace): a decision the cap stops before its worlds is *capped*, counted in
:attr:`SearchPlayer.capped` and logged once per player (at the info level: the pace at
work, not a fault), for then the strength follows the machine.  ``think_ms`` given
without ``iterations`` is a time budget instead of an effort (``duel --think``).  The
clock is read between worlds (a world is not started when the mean world so far would
overrun; in batches, when sampling it and playing out the batch it would join, timed like
the last batch, would: under an effort, one batch, so only its sampling is timed) and
between roll-outs (a world that runs past the time is dropped).  A decision with one
legal choice returns at once.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Final

import numpy as np
from numpy.typing import NDArray

from p2pcards.core import PLAY, DealResult, DealState, Decision, End, GameSpec, Legal, Plain
from p2pcards.core.view import SeatView
from p2pcards.players.base import LEVELS, Player
from p2pcards.players.candidates import PICK_NEIGHBOURS, clear_best, neighbours
from p2pcards.players.fastsim import I64, Positions
from p2pcards.players.inference import Inference
from p2pcards.players.sampling import SkeletonError, World, WorldSampler, settled
from p2pcards.players.simulators import TrickSimulator, simulator_for
from p2pcards.players.solver import TrickSolver, minimax_values

__all__ = [
    "SearchPlayer",
    "FALLBACKS",
    "SEARCH_WORLDS",
    "TrickSolver",
    "deal_score",
    "searchable",
    "rollout",
    "clear_best",
    "minimax_values",
    "SOLVE_PLAYS",
    "PICK_WORLDS",
    "BATCH_WORLDS",
    "EFFORT_BATCH",
    "PLAYOUTS",
]

# The log channel keeps its name from before the players left core (log files and filters name it).
log = logging.getLogger("p2pcards.core.search")

#: Why a search can take the heuristic's choice instead of its own (never silently: see
#: :attr:`SearchPlayer.fallbacks`), by the reason's key in ``duel --json``'s ``fallbacks``.
FALLBACKS: Final[Mapping[str, str]] = {
    "no-value": "the game gives no deal value to search for",
    "no-replay": "the deal's history cannot be replayed by the sampler (a setup its rules do not express)",
    "no-world": "no world consistent with the seat's view could be sampled in the budget",
    "failed": "the search failed (logged with its error)",
}

#: The ``search`` level's effort (:data:`~p2pcards.players.base.LEVELS`): worlds weighed
#: per decision when neither ``iterations`` nor a time budget is given.  Measured on a
#: two-core machine, beside one other process: about 28 ms a decision in Sueca, 29 in
#: Copas, 78 in Sobe e Desce (whose going in weighs five times the worlds) and 103 in
#: Bisca, most of it at the 300 worlds it weighs while its inference is kept (its worlds
#: ask every play of the other player); a time budget of 250 ms weighed about 600 worlds
#: in Sueca on that machine (before the play-outs ran in one batch) and 250 on a busy one.
SEARCH_WORLDS: Final = LEVELS["search"].worlds
#: The ``search`` level's depth: the solver takes over when at most this many cards are
#: left in the hands (Sueca: the last three tricks; Bisca: the last six).
SOLVE_PLAYS: Final = LEVELS["search"].solve_plays
#: A world that runs past the budget by this factor is dropped.
_OVERRUN: Final = 1.25
#: Batched evaluation (a game with a batch simulator): play-outs per world and candidate;
#: worlds per batch under a time budget (the first smaller, to time them); under an effort,
#: one batch of up to :data:`EFFORT_BATCH` (numpy's cost per call: 13 % off a Sueca
#: decision, the same choices; a capped one may overrun by a batch's play-outs).
PLAYOUTS: Final = 1
BATCH_WORLDS: Final = (8, 24, 48, 96)
EFFORT_BATCH: Final = 512
#: A pick of cards that may be declined (Sobe e Desce's going in: sitting out, or going in
#: with an exchange) weighs this many times the decision's worlds: a deal has one such
#: decision a seat, its outcome varies far more from world to world than a card's, and it
#: is where the game is won (given the other hands there, the search won 89 % of 120
#: pairs against the heuristic; given them at the plays only, 64 %).  Measured (240 pairs,
#: seed 3, against the heuristic, every pick of cards weighing them): 61.7 % with the
#: level's 100 worlds, 63.1 % with three times as many, 65.0 % with five, the mean
#: decision taking 51, 73 and 105 ms.  Copas' pass (not declinable) gained nothing from
#: five times the worlds (200 pairs, seed 4: 78.8 % and 79.5 %) at twice the time.
PICK_WORLDS: Final = 5
#: A decision that names one of at most this many choices (not a card) has them all
#: compared (Sobe e Desce's five trump choices).
NAMED_CHOICES: Final = 8
#: The greedy players' share of random cards (:func:`p2pcards.players.fastsim.playout`):
#: none, so that they play a world the same way every time and one play-out per row
#: does (measured: see ``SearchPlayer._batched``).
EPSILON: Final = 0.0


def deal_score(spec: GameSpec, result: DealResult, seat: int) -> float:
    """The deal's ``result`` from ``seat``'s side, higher is better: the game's own deal
    value (:meth:`Match.deal_value <p2pcards.core.spec.Match.deal_value>`), negated for a
    game where lower is better.  ValueError for a game that gives none."""
    cls = spec.match_class
    value = cls.deal_value(spec, result, seat)
    if value is None:
        raise ValueError(f"{spec.name} gives no deal value to search for")
    return -value if cls.lower_is_better else value


def searchable(spec: GameSpec) -> bool:
    """Whether ``spec``'s plugin gives the deal value a search needs (else the search
    player plays the game's heuristic)."""
    return spec.match_class.gives_deal_value()


def rollout(state: DealState, players: Sequence[Player], match_totals: Sequence[int] = ()) -> DealResult:
    """Play ``state`` (full information) to its end with ``players``; its result."""
    views = [SeatView(state, s, match_totals) for s in range(state.seats)]
    while True:
        step = state.step()
        if type(step) is Decision:
            for seat in state.undecided():
                state.apply(seat, players[seat].choose(views[seat], step))
        elif type(step) is End:
            return step.result
        else:
            state.complete()


class SearchPlayer:
    """The ``search`` level (module docstring)."""

    def __init__(
        self, spec: GameSpec, rng: random.Random, *, think_ms: int | None = None,
        iterations: int | None = None, cap_ms: int | None = None, solve_plays: int = SOLVE_PLAYS,
        mistakes: float = 0.0,
    ) -> None:
        if not 0.0 <= mistakes <= 1.0:
            raise ValueError("mistakes must be a share between 0 and 1")
        if solve_plays < 0:
            raise ValueError("solve_plays must not be negative")
        if iterations is not None and iterations < 1:
            raise ValueError("iterations must be at least 1")
        if think_ms is not None and think_ms < 1:
            raise ValueError("think_ms must be at least 1")
        if cap_ms is not None and cap_ms < 1:
            raise ValueError("cap_ms must be at least 1")
        self.spec = spec
        self.rng = rng
        #: the solver takes over with at most this many cards left in the hands (0: never)
        self.solve_plays = solve_plays
        #: the share of plays in which it takes its second-best card (a level's slips)
        self.mistakes = mistakes
        #: worlds per decision (None: a time budget, ``think_ms``, alone)
        self.iterations: int | None = iterations
        #: the most time a decision takes, in ms (None: no clock is read)
        self.think_ms: int | None = None
        if iterations is None and think_ms is not None:
            self.think_ms = think_ms if cap_ms is None else min(think_ms, cap_ms)
        else:
            if iterations is None:
                self.iterations = SEARCH_WORLDS
            caps = [c for c in (think_ms, cap_ms) if c is not None]
            self.think_ms = min(caps) if caps else None
        self.sides = (
            [next(i for i, t in enumerate(spec.teams) if s in t) for s in range(spec.seats)]
            if spec.teams else list(range(spec.seats))
        )
        #: the game's batch simulator (None: roll-outs through the plugin)
        self.sim: TrickSimulator | None = simulator_for(spec)
        #: whether the game gives a deal value to search for (else: its heuristic plays)
        self.searchable = searchable(spec)
        #: worlds evaluated for the last decision (for measurements)
        self.last_worlds = 0
        #: the last decision's candidates with their weighted mean score (:func:`deal_score`,
        #: from the seat's side), the heuristic's choice first; empty when nothing was searched
        self.last_scores: list[tuple[Plain, float]] = []
        #: why the last decision took the heuristic's choice instead of a search's (None: it
        #: did not, or it had one legal choice): one of :data:`FALLBACKS`
        self.last_fallback: str | None = None
        #: decisions that fell back so far, per reason (never silent: each reason is also
        #: logged, once per player)
        self.fallbacks: dict[str, int] = {}
        #: whether the time cap stopped the last decision before its worlds
        self.last_capped = False
        #: decisions the time cap stopped before their worlds so far (logged once)
        self.capped = 0
        #: whether the last decision was a slip (:attr:`mistakes`), and how many so far
        self.last_slip = False
        self.slips = 0

    def _base(self, rng: random.Random) -> Player:
        make = self.spec.heuristic
        if make is None:
            from p2pcards.players.base import RandomPlayer

            return RandomPlayer(rng)
        player: Player = make(rng)
        return player

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        legal = view.legal
        self.last_worlds = 0
        self.last_scores = []
        self.last_fallback = None
        self.last_capped = False
        self.last_slip = False
        if decision.pick is None and len(legal) == 1:
            return legal[0]
        start = time.perf_counter()
        rng = random.Random(self.rng.getrandbits(64))
        model = self._base(rng)
        default = model.choose(view, decision)
        if not self.searchable:
            return self._fall_back("no-value", default)
        try:
            return self._search(view, decision, legal, default, model, rng, start)
        except Exception:  # noqa: BLE001 -- a computer player never takes a table down
            log.exception("the search failed at a %s decision of seat %d; the heuristic's choice is played",
                          decision.kind, view.seat)
            return self._fall_back("failed", default)

    def _fall_back(self, reason: str, default: Plain) -> Plain:
        """Take the heuristic's choice ``default`` for ``reason`` (:data:`FALLBACKS`), and
        say so: counted in :attr:`fallbacks`, logged the first time for each reason."""
        self.last_fallback = reason
        self.fallbacks[reason] = self.fallbacks.get(reason, 0) + 1
        if self.fallbacks[reason] == 1:
            log.warning("%s (%s): %s; it plays the heuristic's choice there (counted, said once)",
                        self.spec.name, reason, FALLBACKS[reason])
        return default

    def _effort(self, decision: Decision, sampler: WorldSampler) -> int | None:
        """The worlds ``decision`` weighs (None: a time budget alone): the level's,
        :data:`PICK_WORLDS` times as many for a pick of cards that may be declined, and
        the sampler's inference's ``worlds`` times as many (Bisca's, when it is kept)."""
        if self.iterations is None:
            return None
        pick = PICK_WORLDS if decision.pick is not None and decision.may_decline else 1
        return self.iterations * pick * sampler.inference.worlds

    def _cut(self, worlds: int, effort: int | None) -> None:
        """The clock stopped a decision at ``worlds``: when that is short of its ``effort``,
        the decision is capped (counted; logged the first time)."""
        if effort is None or worlds >= effort:
            return
        self.last_capped = True
        self.capped += 1
        if self.capped == 1:  # a table's pace at work, not a fault: said at the info level
            log.info("%s: the time cap of %d ms stopped a search before its %d worlds (at %d); its strength "
                        "now follows this machine's speed (counted, said once)", self.spec.name, self.think_ms,
                        effort, worlds)

    def _search(self, view: SeatView, decision: Decision, legal: list[Legal], default: Plain, model: Player,
                rng: random.Random, start: float) -> Plain:
        """The searched choice (module docstring); ``default`` is the heuristic's."""
        cands = self._candidates(view, decision, legal, default, model, rng)
        if len(cands) <= 1:
            return default
        try:
            sampler = settled(self.spec, view, model.choose if self.spec.heuristic else None,
                              self.sim.inference if self.sim is not None else Inference(), rng)
        except SkeletonError:
            return self._fall_back("no-replay", default)
        solve = self._solver(view, decision)
        # a named choice (Sobe e Desce's trumps) is rolled out through the plugin (measured:
        # module docstring); plays and picks of cards are weighed in the simulator
        if self.sim is not None and not solve and (decision.kind == PLAY or decision.pick is not None):
            try:
                sim = self.sim.for_options(view.options)
                return self._batched(sim, view, decision, cands, sampler, rng, start, default)
            except ValueError:
                pass  # a position the simulator does not follow: roll out through the plugin
        players = [self._base(rng) for _ in range(view.seats)]
        totals = [0.0] * len(cands)
        rows: list[list[float]] = []
        weights: list[float] = []
        worlds = attempts = 0
        budget = None if self.think_ms is None else self.think_ms / 1000.0
        limit = self._effort(decision, sampler)
        deadline = None if budget is None else start + budget * _OVERRUN
        while True:
            if limit is not None and (worlds >= limit or attempts >= 3 * limit + 10):
                break
            if budget is not None:
                spent = time.perf_counter() - start
                if spent >= budget or (worlds and spent + spent / worlds > budget):
                    self._cut(worlds, limit)
                    break
            attempts += 1
            world = sampler.sample(rng)
            if world is None:
                continue
            vals = self._evaluate(
                world.state, view, cands, players, solve, deadline if worlds else None
            )
            if vals is None:
                self._cut(worlds, limit)
                break
            for i, v in enumerate(vals):
                totals[i] += world.weight * v
            rows.append(vals)
            weights.append(world.weight)
            worlds += 1
        self.last_worlds = worlds
        if not worlds:
            return self._fall_back("no-world", default)
        weight = sum(weights) or 1.0
        self.last_scores = [(c, totals[i] / weight) for i, c in enumerate(cands)]
        if decision.kind == PLAY:
            return cands[self._pick(totals, rng)]
        return cands[clear_best(rows, weights)]

    def _pick(self, totals: Sequence[float], rng: random.Random) -> int:
        """The play to make from the candidates' weighted ``totals``: the best (totals equal
        to a millionth tie, whatever order they were summed in; a tie goes to the first, the
        heuristic's), or, in a share :attr:`mistakes` of the plays, the second best (a slip)."""
        order = sorted(range(len(totals)), key=lambda i: (-round(float(totals[i]), 6), i))
        if self.mistakes and len(order) > 1 and rng.random() < self.mistakes:
            self.last_slip = True
            self.slips += 1
            return order[1]
        return order[0]

    # ------------------------------------------------------------------ candidates
    def _candidates(
        self, view: SeatView, decision: Decision, legal: list[Legal], default: Plain, model: Player,
        rng: random.Random,
    ) -> list[Plain]:
        """The choices to compare, the heuristic's first (module docstring): every legal
        play; every choice of a decision that names one of a few (:data:`NAMED_CHOICES`:
        Sobe e Desce's trumps); for a decision that may be declined, declining and the
        heuristic's choice when it must not decline (Sobe e Desce: sitting out, or going
        in with the heuristic's exchange); for a pick of cards (Copas' pass, Sobe e
        Desce's exchange), :data:`PICK_NEIGHBOURS` picks next to the heuristic's
        (:func:`neighbours`); else the heuristic's choice alone."""
        if decision.pick is None:
            if decision.kind == PLAY or len(legal) <= NAMED_CHOICES:
                return [default] + [c for c in legal if c != default]
            return [default]
        cands, pick = [default], default
        if decision.may_decline:
            if default is None:
                forced = Decision(decision.seats, decision.kind, decision.pick, may_decline=False)
                pick = model.choose(view, forced)
                if pick is None:
                    return cands
            cands.append(pick if default is None else None)
        if isinstance(pick, tuple) and all(type(p) is int for p in pick):  # a pick of cards
            hand = [p for p in legal if type(p) is int]
            cands += neighbours(pick, hand, decision.pick, PICK_NEIGHBOURS, rng)  # type: ignore[arg-type]
        return cands

    # ------------------------------------------------------------------ batched evaluation
    def _batched(
        self, sim: TrickSimulator, view: SeatView, decision: Decision, cands: list[Plain], sampler: WorldSampler,
        rng: random.Random, start: float, default: Plain,
    ) -> Plain:
        """PIMC with the batch simulator: worlds are sampled in batches, and each batch's
        (world x candidate) rows are played out at once by the simulator's players (a
        choice that is not a card is first applied through the plugin, the other seats'
        decisions up to the first card made by the heuristic: :meth:`_prelude`).  Measured
        (``p2pcards duel GAME --a search --b heuristic --think 250``): Sueca 91 % of 200
        pairs (95 %: 86-94; plugin roll-outs: about 70 %), 180 ms a decision; Bisca 82 %
        of 100 pairs (73-88; before: about 60 %), 230 ms a decision."""
        nrng = np.random.default_rng(rng.getrandbits(64))
        made: list[Player] = []

        def players() -> list[Player]:  # the other seats' models, made when first needed
            if not made:
                made.extend(self._base(random.Random(rng.getrandbits(64))) for _ in range(view.seats))
            return made

        rows_seen: list[NDArray[np.float64]] = []
        weights_seen: list[float] = []
        hand = dict(view.hand)
        first = [sim.table.ids[hand[c]] if type(c) is int else -1 for c in cands]
        totals = np.zeros(len(cands))
        weights = 0.0
        worlds = attempts = batches = 0
        pending: list[World] = []
        limit = self._effort(decision, sampler)
        budget = None if self.think_ms is None else self.think_ms / 1000.0
        per_world = 0.0  # seconds to sample a world
        last_rows, last_cost = 0, 0.0  # the last batch of play-outs: its rows and its time
        rows_per_world = len(cands) * PLAYOUTS
        while True:
            if limit is not None:
                size = min(limit, EFFORT_BATCH)
            else:
                size = BATCH_WORLDS[min(batches, len(BATCH_WORLDS) - 1)]
            stop = limit is not None and (worlds + len(pending) >= limit or attempts >= 3 * limit + 10)
            if not stop and budget is not None:
                rows = (len(pending) + 1) * rows_per_world
                cost = last_cost * max(1.0, rows / last_rows) if last_rows else 0.0
                stop = time.perf_counter() - start + per_world + cost > budget
                if stop:
                    self._cut(worlds + len(pending), limit)
            if stop or len(pending) >= size:
                if pending:
                    t0 = time.perf_counter()
                    vals = self._playouts(sim, pending, view, cands, first, nrng, players)
                    last_rows, last_cost = len(pending) * rows_per_world, time.perf_counter() - t0
                    w = np.array([x.weight for x in pending])
                    rows_seen.append(vals)
                    weights_seen += [x.weight for x in pending]
                    totals += w @ vals
                    weights += float(w.sum())
                    worlds += len(pending)
                    batches += 1
                    pending = []
                if stop:
                    break
                continue
            attempts += 1
            t0 = time.perf_counter()
            world = sampler.sample(rng)
            per_world += (time.perf_counter() - t0 - per_world) / min(attempts, 8)
            if world is not None:
                pending.append(world)
        self.last_worlds = worlds
        if not worlds:
            return self._fall_back("no-world", default)
        self.last_scores = [(c, float(totals[i]) / (weights or 1.0)) for i, c in enumerate(cands)]
        if decision.kind == PLAY:
            return cands[self._pick(list(totals), rng)]
        return cands[clear_best(np.concatenate(rows_seen).tolist(), weights_seen)]

    def _playouts(
        self, sim: TrickSimulator, worlds: list[World], view: SeatView, cands: list[Plain], first: list[int],
        nrng: np.random.Generator, players: Callable[[], Sequence[Player]],
    ) -> NDArray[np.float64]:
        """(worlds x candidates) mean value for the seat (:meth:`TrickSimulator.values`:
        its side's final card points; in Copas, minus its penalty points; in Sobe e Desce,
        its tricks' worth) of the simulator's players' play-outs (its ``policies``) of each
        world after each candidate; a candidate that ends the deal before any card (Sobe e
        Desce: everyone but one sat out) is scored by the plugin (:func:`deal_score`)."""
        me = view.seat
        n = len(worlds)
        vals = np.zeros((n, len(cands)))
        parts: list[Positions] = []
        firsts: list[I64] = []
        into: list[tuple[int, I64]] = []  # per part: its candidate and its worlds
        base: Positions | None = None
        for i, (choice, card) in enumerate(zip(cands, first, strict=True)):
            if card >= 0:
                if base is None:
                    base = sim.from_states([w.state for w in worlds])
                parts.append(base)
                firsts.append(np.full(n, card, dtype=np.int64))
                into.append((i, np.arange(n, dtype=np.int64)))
                continue
            states, rows = [], []
            for j, w in enumerate(worlds):
                st = self._prelude(w.state, view, choice, players)
                end = st.step()
                if type(end) is End:
                    vals[j, i] = deal_score(self.spec, end.result, me)
                else:
                    states.append(st)
                    rows.append(j)
            if states:
                parts.append(sim.from_states(states))
                firsts.append(np.full(len(states), -1, dtype=np.int64))
                into.append((i, np.array(rows, dtype=np.int64)))
        if not parts:
            return vals
        pos = Positions.concat(parts * PLAYOUTS)
        outcome = sim.outcome(pos, nrng, sim.policies(me), EPSILON, np.concatenate(firsts * PLAYOUTS))
        mine: NDArray[np.float64] = sim.values(outcome, pos, me).reshape(PLAYOUTS, -1).mean(axis=0)
        at = 0
        for i, rows_of in into:
            vals[rows_of, i] = mine[at:at + len(rows_of)]
            at += len(rows_of)
        return vals

    @staticmethod
    def _prelude(
        state: DealState, view: SeatView, choice: Plain, players: Callable[[], Sequence[Player]],
    ) -> DealState:
        """A copy of ``state`` after the seat's ``choice`` (not a card: Bisca's swap, a
        trump choice, a going in, a pass), the other seats' decisions made by ``players()``,
        up to the next card to play or the deal's end."""
        st = state.copy()
        st.apply(view.seat, choice)
        while True:
            step = st.step()
            if type(step) is Decision:
                if step.kind == PLAY:
                    return st
                for seat in st.undecided():
                    st.apply(seat, players()[seat].choose(SeatView(st, seat, view.match_totals), step))
            elif type(step) is End:
                return st
            else:
                st.complete()

    # ------------------------------------------------------------------ evaluation
    def _solver(self, view: SeatView, decision: Decision) -> bool:
        """Whether this decision is solved exactly (module docstring, :attr:`solve_plays`)."""
        sim = self.sim
        if (decision.kind != PLAY or not self.solve_plays or sim is None or view.stock_count
                or len(set(self.sides)) != 2 or sim.table.hearts is not None or sim.table.duties is not None):
            return False  # the solver knows following suit and nothing more
        return sum(view.hand_size(s) for s in range(view.seats)) <= self.solve_plays

    def _evaluate(
        self, state: DealState, view: SeatView, cands: list[Plain], players: Sequence[Player],
        solve: bool, deadline: float | None,
    ) -> list[float] | None:
        """The score of each candidate in one world (None: past the deadline)."""
        me = view.seat
        if solve and all(type(c) is int for c in cands):
            cards = state.deck.cards
            hands = [[cards[p] for p in state.deck.hands[s]] for s in range(state.seats)]
            trick = [(s, cards[p]) for s, p in state.trick]
            solver = TrickSolver(state.trump, state.strength, state.points, self.sides, self.sides[me])
            vals = solver.values(hands, trick, me)  # type: ignore[arg-type]
            return [float(vals[cards[c]]) for c in cands]  # type: ignore[index]
        out = []
        for choice in cands:
            if deadline is not None and time.perf_counter() > deadline:
                return None
            st = state.copy()
            st.apply(me, choice)
            result = rollout(st, players, view.match_totals)
            out.append(deal_score(self.spec, result, me))
        return out

