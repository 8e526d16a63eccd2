"""Duplicate matches between two computer players: ``p2pcards duel``.

Luck of the cards swamps the difference between two players over a few hundred deals.
A duplicate match takes it out: every shuffled deal is played several times with the
same cards in the same seats and the same dealer, the players changing places, so that
each player holds every hand.

* **Seating.**  A *pair* is one shuffled deal and its plays.  In a game with teams,
  there is one play per team: A sits in that team's seats and B in all the others
  (Sueca: A in seats 0 and 2 against B in 1 and 3, then the other way round).  In a
  game without teams there is one play per seat: A sits in seat k, B in every other
  seat (Bisca: A in seat 0, then in seat 1; Copas and Sobe e Desce: four plays, A
  against three copies of B, A holding each of the four hands once).  Both players
  thus hold every hand: A once, B once (teams, Bisca) or three times (Copas, Sobe e
  Desce), and the averages below weigh every hand alike.
* **Measure** (per seat and deal, from the deal's result): the game's own deal value,
  :meth:`Match.deal_value <p2pcards.core.spec.Match.deal_value>` (:func:`measure_for`).
  The built-in games: Sueca and Bisca, the card points its team or it took (higher is
  better, 120 in all); Copas, its penalty points after the moon rule (lower is better);
  Sobe e Desce, what the deal adds to its score, ``delta`` (lower is better: minus the
  tricks taken, plus 5 for none; 0 for sitting out).  A game whose plugin gives no deal
  value cannot be dueled.
* **A pair's outcome.**  A's value in a play is the mean of its seats' measures, B's the
  mean of its seats'; each is averaged over the pair's plays.  A wins the pair when its
  average is better than B's (for Sueca and Bisca: more than 60 card points on average,
  half of them), loses when it is worse, and ties when they are equal.  A tie counts as
  half a win in the win rate and is also reported on its own.
* **Statistics.**  The win rate (wins plus half the ties, over the pairs) with its 95 %
  Wilson score interval; the mean measure per deal of each player (per seat it held);
  the time each player took per decision (mean, median and 99th percentile, timed
  around its ``choose``); the wall time.
* **Seeds.**  Pair ``i``'s dealer and shuffle come from ``(seed, i)`` alone; the player
  in seat ``s`` of play ``k`` is made afresh for that play with the random stream of
  ``(seed, i, k, s)``.  A pair's outcome thus depends on nothing else: not on the pairs
  played before it in the same process, nor on how many processes share the work.
* **Outside engines.**  ``engine:LEVEL`` (or ``engine:LEVEL@N``) is the level LEVEL of a
  program speaking the engine protocol, ``engine`` (a command line) of :func:`run_duel`,
  asked for every decision of its seats (:mod:`p2pcards.tools.duel_engine`): another
  release's bots, say, on the same deals.
* **Parallel.**  :func:`run_duel` splits the pairs into ``jobs`` contiguous ranges, one
  per worker process (started with ``forkserver`` where there is one, else ``spawn``:
  no state is inherited); the outcomes are the same whatever ``jobs`` is, for players
  that are deterministic given their random stream and budgets.  Ctrl-C terminates the
  workers and raises KeyboardInterrupt in the caller.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.context
import os
import random
import shlex
import signal
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from statistics import NormalDist
from typing import TypedDict

from p2pcards.core import DealResult, Decision, GameSpec, Options, OptionValue, Plain
from p2pcards.core.view import SeatView
from p2pcards.lifeline import die_with
from p2pcards.players import LEVELS, PLAYER_LEVELS, Player, make_player
from p2pcards.tools.arena import play_deal
from p2pcards.tools.duel_engine import ENGINE_PREFIX, EngineFailure, EnginePlayer, close_engines, engine_levels

__all__ = [
    "measure_for",
    "check_duel",
    "Measure",
    "PairResult",
    "play_pair",
    "run_duel",
    "seatings",
    "summarize",
    "wilson_interval",
    "percentile",
    "pair_rng",
    "player_rng",
]

#: The z of a two-sided 95 % normal interval (about 1.96).
Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class Measure:
    """How a game's deal is scored for a duel: ``values(result)`` gives one number per
    seat; ``name`` says what it is, for people; ``lower_is_better`` which way is good."""

    name: str
    lower_is_better: bool
    values: Callable[[DealResult], list[float]]


def measure_for(spec: GameSpec) -> Measure:
    """The measure of ``spec``, from its plugin (:meth:`~p2pcards.core.spec.Match.deal_value`,
    ``value_label``, ``lower_is_better``); ValueError for a game that gives none."""
    cls = spec.match_class
    if not cls.gives_deal_value():
        raise ValueError(f"duel cannot score {spec.name}: its plugin gives no deal value (Match.deal_value)")

    def values(result: DealResult) -> list[float]:
        out = []
        for seat in range(spec.seats):
            value = cls.deal_value(spec, result, seat)
            if value is None:
                raise ValueError(f"{spec.name} gave no deal value for seat {seat}")
            out.append(value)
        return out

    return Measure(cls.value_label or "deal value", cls.lower_is_better, values)


def seatings(spec: GameSpec) -> list[tuple[int, ...]]:
    """A's seats in each play of a pair, in order (B takes the others): one play per team
    in a game with teams, else one per seat."""
    if spec.teams:
        return [tuple(team) for team in spec.teams]
    return [(s,) for s in range(spec.seats)]


def pair_rng(seed: int, pair: int) -> random.Random:
    """The random stream of pair ``pair``'s dealer and shuffle."""
    return random.Random(f"p2pcards-duel/{seed}/pair/{pair}/deck")


def player_rng(seed: int, pair: int, play: int, seat: int) -> random.Random:
    """The random stream of the player in ``seat`` for play ``play`` of pair ``pair``."""
    return random.Random(f"p2pcards-duel/{seed}/pair/{pair}/play/{play}/seat/{seat}")


@dataclass
class _Tally:
    """One side's measures over its decisions: times in ms, the worlds a search weighed
    for each decision it searched, the decisions that fell back to the heuristic's choice
    (:data:`~p2pcards.players.search.FALLBACKS`), per reason, and those a time cap stopped
    before their worlds."""

    times: list[float] = field(default_factory=list)
    worlds: list[int] = field(default_factory=list)
    fallbacks: dict[str, int] = field(default_factory=dict)
    capped: int = 0
    slips: int = 0

    def add(self, other: _Tally) -> None:
        self.times += other.times
        self.worlds += other.worlds
        self.capped += other.capped
        self.slips += other.slips
        for reason, n in other.fallbacks.items():
            self.fallbacks[reason] = self.fallbacks.get(reason, 0) + n


class _Timed:
    """A player whose every decision is measured into ``tally``."""

    def __init__(self, player: Player, tally: _Tally) -> None:
        self.player = player
        self.tally = tally

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        start = time.perf_counter()
        choice = self.player.choose(view, decision)
        self.tally.times.append((time.perf_counter() - start) * 1000.0)
        worlds = getattr(self.player, "last_worlds", 0)
        if worlds:
            self.tally.worlds.append(worlds)
        reason = getattr(self.player, "last_fallback", None)
        if reason is not None:
            self.tally.fallbacks[reason] = self.tally.fallbacks.get(reason, 0) + 1
        if getattr(self.player, "last_capped", False):
            self.tally.capped += 1
        if getattr(self.player, "last_slip", False):
            self.tally.slips += 1
        return choice


@dataclass
class PairResult:
    """One pair: its ``dealer``; per play, who sat where (``seats``: "a" or "b" per seat),
    the hands dealt (``hands``) and every seat's measure (``values``); A's and B's value
    per play (``a``, ``b``: the mean over their seats); ``outcome`` for A: 1, 0.5 or 0."""

    pair: int
    dealer: int
    seats: list[list[str]]
    hands: list[list[list[str]]]
    values: list[list[float]]
    a: list[float]
    b: list[float]
    outcome: float

    def to_json(self) -> dict[str, object]:
        return {"pair": self.pair, "dealer": self.dealer, "a": self.a, "b": self.b, "outcome": self.outcome}


def play_pair(
    spec: GameSpec,
    options: Options,
    a: str,
    b: str,
    seed: int,
    pair: int,
    *,
    think_ms: int | None = None,
    iterations: int | None = None,
    tallies: Mapping[str, _Tally] | None = None,
    engine: Sequence[str] | None = None,
) -> PairResult:
    """Play pair ``pair`` of a duel between levels ``a`` and ``b`` (module docstring).

    ``tallies`` (keys "a" and "b"), when given, receives each side's decision measures;
    ``engine`` is the command of a side ``engine:LEVEL``.
    """
    measure = measure_for(spec)
    rng = pair_rng(seed, pair)
    dealer = rng.randrange(spec.seats)
    cards = list(spec.deck)
    rng.shuffle(cards)
    tallies = tallies if tallies is not None else {"a": _Tally(), "b": _Tally()}
    seats_out: list[list[str]] = []
    hands: list[list[list[str]]] = []
    values: list[list[float]] = []
    a_sum = b_sum = Fraction(0)
    a_vals: list[float] = []
    b_vals: list[float] = []
    for play, a_seats in enumerate(seatings(spec)):
        sides = ["a" if s in a_seats else "b" for s in range(spec.seats)]
        players: list[Player] = [
            _Timed(_make(a if side == "a" else b, spec, options, player_rng(seed, pair, play, s), think_ms,
                         iterations, engine), tallies[side])
            for s, side in enumerate(sides)
        ]
        match = spec.new_match(options, dealer)
        deal = match.new_deal(cards)
        result = play_deal(deal, players, match.totals)
        seat_values = measure.values(result)
        a_value = sum((Fraction(seat_values[s]) for s in a_seats), Fraction(0)) / len(a_seats)
        b_seats = [s for s in range(spec.seats) if s not in a_seats]
        b_value = sum((Fraction(seat_values[s]) for s in b_seats), Fraction(0)) / len(b_seats)
        a_sum += a_value
        b_sum += b_value
        a_vals.append(float(a_value))
        b_vals.append(float(b_value))
        seats_out.append(sides)
        hands.append([[str(c) for c in h] for h in deal.hands_at_start or ()])
        values.append(seat_values)
    if a_sum == b_sum:
        outcome = 0.5
    elif (a_sum < b_sum) == measure.lower_is_better:
        outcome = 1.0
    else:
        outcome = 0.0
    return PairResult(pair, dealer, seats_out, hands, values, a_vals, b_vals, outcome)


@dataclass(frozen=True)
class _Task:
    """A worker's share: pairs ``start`` to ``stop - 1`` of a duel of ``game``."""

    game: str
    options: dict[str, OptionValue]
    a: str
    b: str
    seed: int
    start: int
    stop: int
    think_ms: int | None
    iterations: int | None
    engine: tuple[str, ...] | None = None


@dataclass
class _Share:
    """What a worker sends back: its pairs' results and its sides' decision measures."""

    results: list[PairResult]
    tallies: dict[str, _Tally] = field(default_factory=lambda: {"a": _Tally(), "b": _Tally()})


def _play_share(spec: GameSpec, task: _Task) -> _Share:
    """Play the pairs of ``task`` in this process."""
    share = _Share([])
    for pair in range(task.start, task.stop):
        share.results.append(
            play_pair(spec, task.options, task.a, task.b, task.seed, pair,
                      think_ms=task.think_ms, iterations=task.iterations, tallies=share.tallies, engine=task.engine)
        )
    return share


def _worker_init(command: int) -> None:
    """Workers leave Ctrl-C to the parent, which terminates them, and die with the
    ``command``'s process, so that not even a ``kill -9`` of it leaves them running."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with(command)


def _work(task: _Task) -> _Share:
    """A worker process's job: find the game among the installed ones and play its share."""
    from p2pcards.core import load_games

    try:
        return _play_share(load_games().get(task.game), task)
    finally:
        close_engines()


def _context() -> multiprocessing.context.BaseContext:
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) of ``values``, interpolated linearly between the
    two nearest ranks; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def wilson_interval(rate: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``rate`` observed over ``n`` trials."""
    if n < 1:
        raise ValueError("the Wilson interval needs at least one trial")
    z2 = z * z
    centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


class Timing(TypedDict):
    """A side's milliseconds per decision in a duel's report."""

    mean: float
    p50: float
    p99: float
    decisions: int


class MeasureJson(TypedDict):
    """What a duel's game measures per deal, and which way is better (its report's words)."""

    name: str
    better: str


class DuelStats(TypedDict):
    """The statistics of a duel's pair results (:func:`summarize`), as its report has them."""

    pairs: int
    plays_per_pair: int
    seating: list[list[int]]
    measure: MeasureJson
    wins: int
    ties: int
    losses: int
    win_rate: float
    interval: list[float]
    mean: dict[str, float]
    ms_per_decision: dict[str, Timing]


class Worlds(TypedDict):
    """The worlds a side's search weighed per decision it searched, in a duel's report."""

    mean: float
    min: int
    max: int
    decisions: int


def _worlds(worlds: Sequence[int]) -> Worlds | None:
    """None for a side that searched nothing (a heuristic or random player)."""
    if not worlds:
        return None
    return {"mean": round(sum(worlds) / len(worlds), 2), "min": min(worlds), "max": max(worlds),
            "decisions": len(worlds)}


def _timing(times: Sequence[float]) -> Timing:
    return {
        "mean": round(sum(times) / len(times), 4) if times else 0.0,
        "p50": round(percentile(times, 50), 4),
        "p99": round(percentile(times, 99), 4),
        "decisions": len(times),
    }


def summarize(
    spec: GameSpec,
    results: Sequence[PairResult],
    times: Mapping[str, Sequence[float]],
) -> DuelStats:
    """The statistics of a duel's pair results (module docstring, "Statistics")."""
    n = len(results)
    if n < 1:
        raise ValueError("a duel needs at least one pair")
    measure = measure_for(spec)
    wins = sum(1 for r in results if r.outcome == 1.0)
    ties = sum(1 for r in results if r.outcome == 0.5)
    rate = (wins + ties / 2) / n
    low, high = wilson_interval(rate, n)
    plays = sum(len(r.a) for r in results)
    return {
        "pairs": n,
        "plays_per_pair": len(seatings(spec)),
        "seating": [list(s) for s in seatings(spec)],
        "measure": {"name": measure.name, "better": "lower" if measure.lower_is_better else "higher"},
        "wins": wins,
        "ties": ties,
        "losses": n - wins - ties,
        "win_rate": round(rate, 6),
        "interval": [round(low, 6), round(high, 6)],
        "mean": {
            "a": round(sum(sum(r.a) for r in results) / plays, 4),
            "b": round(sum(sum(r.b) for r in results) / plays, 4),
        },
        "ms_per_decision": {"a": _timing(times["a"]), "b": _timing(times["b"])},
    }


def split_bot(bot: str) -> tuple[str, int | None]:
    """A duel's player ``LEVEL`` or ``LEVEL@WORLDS`` as (level, worlds or None).
    ValueError when the worlds are not a whole number from 1."""
    level, at, worlds = bot.partition("@")
    if not at:
        return level, None
    if not worlds.isdigit() or int(worlds) < 1:
        raise ValueError(f"{bot!r}: the worlds after @ must be a whole number from 1")
    return level, int(worlds)


def _make(bot: str, spec: GameSpec, options: Options, rng: random.Random, think_ms: int | None,
          iterations: int | None, engine: Sequence[str] | None = None) -> Player:
    """The player ``bot`` (:func:`split_bot`): its own worlds, if it names them, before the
    duel's ``iterations``; ``engine:LEVEL``, that level of the outside ``engine``."""
    level, worlds = split_bot(bot)
    if level.startswith(ENGINE_PREFIX):
        assert engine is not None
        return EnginePlayer(engine, level[len(ENGINE_PREFIX):], spec.name, options, rng,
                            iterations=worlds or iterations, think_ms=think_ms)
    return make_player(level, spec, rng, think_ms=think_ms, iterations=worlds or iterations)


def check_duel(
    spec: GameSpec,
    a: str,
    b: str,
    pairs: int,
    *,
    think_ms: int | None = None,
    iterations: int | None = None,
    jobs: int = 1,
    engine: Sequence[str] | None = None,
) -> None:
    """Raise ValueError, worded for people, when :func:`run_duel` cannot take these (an
    outside engine is started once to ask for its levels)."""
    measure_for(spec)
    outside: list[tuple[str, str]] = []
    for flag, bot in (("--a", a), ("--b", b)):
        try:
            level, worlds = split_bot(bot)
        except ValueError as err:
            raise ValueError(f"{flag}: {err}") from None
        if level.startswith(ENGINE_PREFIX):
            if not engine:
                raise ValueError(f"{flag}: {bot} needs the engine's command (--engine COMMAND)")
            outside.append((flag, level[len(ENGINE_PREFIX):]))
            continue
        if level not in PLAYER_LEVELS:
            raise ValueError(f"{flag}: unknown player {level!r} (choose from {', '.join(PLAYER_LEVELS)})")
        if worlds is not None and LEVELS[level].player != "search":
            raise ValueError(f"{flag}: {level} does not search: it takes no worlds (@{worlds})")
    if pairs < 1:
        raise ValueError("--pairs must be at least 1")
    if think_ms is not None and think_ms <= 0:
        raise ValueError("--think must be a positive number of milliseconds")
    if iterations is not None and iterations < 1:
        raise ValueError("--iterations must be at least 1")
    if jobs < 1:
        raise ValueError("--jobs must be at least 1")
    if engine:
        _check_engine(engine, outside)


def _check_engine(engine: Sequence[str], outside: Sequence[tuple[str, str]]) -> None:
    """:func:`check_duel` of the outside engine: a side uses it, and it offers the levels
    named (``outside``: flag and level); the engine is started to ask."""
    if not outside:
        raise ValueError("--engine: neither --a nor --b is engine:LEVEL")
    try:
        levels = engine_levels(engine)
    except EngineFailure as err:
        raise ValueError(f"--engine: {err}") from None
    for flag, level in outside:
        if level not in levels:
            raise ValueError(f"{flag}: the engine offers no level {level!r} (it offers {', '.join(levels)})")


def run_duel(
    spec: GameSpec,
    options: Options,
    a: str,
    b: str,
    pairs: int,
    seed: int = 0,
    *,
    think_ms: int | None = None,
    iterations: int | None = None,
    jobs: int = 1,
    engine: Sequence[str] | None = None,
) -> dict[str, object]:
    """Play a duplicate match of ``pairs`` pairs between levels ``a`` and ``b`` on
    ``jobs`` processes (this one when 1); return its report (``p2pcards duel --help``).
    ``engine``: the command line of a side ``engine:LEVEL`` (module docstring).

    ValueError for a bad argument (:func:`check_duel`), before anything is played;
    :class:`~p2pcards.tools.duel_engine.EngineFailure` when an outside engine fails.
    """
    check_duel(spec, a, b, pairs, think_ms=think_ms, iterations=iterations, jobs=jobs, engine=engine)
    jobs = min(jobs, pairs)
    command = tuple(engine) if engine else None
    tasks = [
        _Task(spec.name, dict(options), a, b, seed, pairs * j // jobs, pairs * (j + 1) // jobs, think_ms, iterations,
              command)
        for j in range(jobs)
    ]
    started = time.perf_counter()
    if jobs == 1:
        try:
            shares = [_play_share(spec, tasks[0])]
        finally:
            close_engines()
    else:
        shares = _run_pool(tasks)
    seconds = time.perf_counter() - started
    results = [r for share in shares for r in share.results]
    tallies = {"a": _Tally(), "b": _Tally()}
    for share in shares:
        for side, tally in tallies.items():
            tally.add(share.tallies[side])
    times = {side: tally.times for side, tally in tallies.items()}
    report: dict[str, object] = {
        "game": spec.name,
        "options": dict(options),
        "a": a,
        "b": b,
        "seed": seed,
        "think_ms": think_ms,
        "iterations": iterations,
        "jobs": jobs,
        "engine": shlex.join(command) if command else None,
    }
    report.update(summarize(spec, results, times))
    report["worlds_per_decision"] = {side: _worlds(tally.worlds) for side, tally in tallies.items()}
    report["fallbacks"] = {side: dict(sorted(tally.fallbacks.items())) for side, tally in tallies.items()}
    report["capped"] = {side: tally.capped for side, tally in tallies.items()}
    report["slips"] = {side: tally.slips for side, tally in tallies.items()}
    report["seconds"] = round(seconds, 3)
    report["results"] = [r.to_json() for r in results]
    return report


def _run_pool(tasks: Sequence[_Task]) -> list[_Share]:
    """Play ``tasks`` on one worker process each; on any exception (Ctrl-C included) the
    workers are terminated before it propagates."""
    pool = _context().Pool(len(tasks), initializer=_worker_init, initargs=(os.getpid(),))
    try:
        pending = pool.map_async(_work, tasks, chunksize=1)
        while not pending.ready():
            pending.wait(0.2)
        shares: list[_Share] = pending.get()
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()
    return shares
