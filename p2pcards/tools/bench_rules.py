"""``p2pcards bench rules`` and ``bench sim``: full-information deals per second with random players.

One process, one core.  ``rules`` times each game over whole deals driven by the same
engine the runtime uses.  The baseline, measured in the same run, is a hand-coded Sueca
deal loop (shuffle, deal, follow suit, resolve tricks, count points) with no engine at
all: the ratio says what the engine's generality costs.

``sim`` times the batch simulator (:mod:`p2pcards.players.fastsim`) of each game that has
one, against that game's plugin and the same baseline in the same run; its cross-check
mode compares the simulator with the plugin's rules on random positions.
"""

from __future__ import annotations

import json as json_module
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, NotRequired, TextIO, TypedDict

from p2pcards.core import GameSpec
from p2pcards.core.cards import PORTUGUESE_40, PT_POINTS, PT_RANK_ORDER, strength_table
from p2pcards.players import RandomPlayer
from p2pcards.tools.arena import play_deal

if TYPE_CHECKING:
    from p2pcards.players.simulators import CrossCheck, TrickSimulator

__all__ = [
    "bench_game", "bench_baseline", "run_rules_bench", "AIM_SUECA", "RULES_ROUNDS",
    "bench_sim", "run_sim_bench", "format_sim_report", "print_sim_bench", "AIM_SIM", "SIM_BATCH",
]

#: deals per second the issue asks of Sueca (the search bot's ceiling)
AIM_SUECA = 1000
#: full-information Sueca deals per second the issue asks of the batch simulator
AIM_SIM = 20_000
#: slices ``bench rules`` measures each rate in, the best of which counts
RULES_ROUNDS = 3
#: deals the batch simulator plays at once in ``bench sim``
SIM_BATCH = 8192


class Baseline(TypedDict):
    """The hand-coded Sueca loop's rate in a report."""

    name: str
    deals_per_second: float
    deals: int


class Aim(TypedDict):
    """Whether Sueca met the issue's aim, in a report."""

    game: str
    deals_per_second: int
    met: bool


class GameRate(TypedDict):
    """A game's rate in ``bench rules``."""

    deals_per_second: float
    deals: int
    ms_per_deal: float
    ratio_to_baseline: float


class RulesReport(TypedDict):
    """``bench rules --json``: each game's rate against the baseline, and the aim."""

    seconds_per_game: float
    rounds: int
    baseline: Baseline
    games: dict[str, GameRate]
    aim: NotRequired[Aim]


class PluginRate(TypedDict):
    """A game's plugin's rate beside its simulator's in ``bench sim``."""

    deals_per_second: float
    deals: int


class SimRate(TypedDict):
    """A game's batch simulator in ``bench sim``: its rate, its plugin's, and (with
    ``--check``) the cross-check."""

    deals_per_second: float
    deals: int
    plugin: PluginRate
    ratio_to_plugin: float
    ratio_to_baseline: float
    cross_check: NotRequired[CrossCheck]


class SimReport(TypedDict):
    """``bench sim --json``: each simulator's rate against its plugin and the baseline,
    the aim, and whether every cross-check agreed (with ``--check``)."""

    seconds_per_measure: float
    batch: int
    baseline: Baseline
    games: dict[str, SimRate]
    aim: NotRequired[Aim]
    cross_check_ok: NotRequired[bool]


def _rate(run_one: Callable[[], None], seconds: float) -> tuple[float, int]:
    """Deals per second of ``run_one`` over about ``seconds`` of CPU time."""
    run_one()  # warm up
    n = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        run_one()
        n += 1
        now = time.process_time()
        if now >= deadline:
            return n / (now - start), n


def bench_game(spec: GameSpec, seconds: float, seed: int = 1) -> tuple[float, int]:
    """Deals per second of ``spec`` with random players and default options."""
    rng = random.Random(seed)
    options = spec.resolve_options()
    players = [RandomPlayer(random.Random(seed + s)) for s in range(spec.seats)]
    match = spec.new_match(options, 0)

    def one() -> None:
        nonlocal match
        if match.finished:
            match = spec.new_match(options, 0)
        cards = list(spec.deck)
        rng.shuffle(cards)
        deal = match.new_deal(cards)
        play_deal(deal, players)
        match.record(deal)

    return _rate(one, seconds)


def bench_baseline(seconds: float, seed: int = 1) -> tuple[float, int]:
    """Deals per second of a hand-coded Sueca loop with no engine (the baseline)."""
    rng = random.Random(seed)
    strength = strength_table(PT_RANK_ORDER)

    def one() -> None:
        cards = list(PORTUGUESE_40)
        rng.shuffle(cards)
        hands = [cards[10 * k : 10 * k + 10] for k in range(4)]
        trump = cards[39][1]
        leader = 0
        points = [0, 0]
        for _ in range(10):
            trick: list[str] = []
            seat = leader
            for _ in range(4):
                hand = hands[seat]
                if trick:
                    same = [c for c in hand if c[1] == trick[0][1]]
                    choices = same or hand
                else:
                    choices = hand
                card = choices[rng.randrange(len(choices))]
                hand.remove(card)
                trick.append(card)
                seat = (seat + 1) % 4
            best = 0
            for i in range(1, 4):
                c, b = trick[i], trick[best]
                if (c[1] == b[1] and strength[c[0]] > strength[b[0]]) or (c[1] == trump != b[1]):
                    best = i
            leader = (leader + best) % 4
            points[leader % 2] += sum(PT_POINTS.get(c[0], 0) for c in trick)

    return _rate(one, seconds)


def run_rules_bench(games: dict[str, GameSpec], seconds: float, rounds: int = RULES_ROUNDS) -> RulesReport:
    """Measure every game and the baseline; return the JSON-ready report.

    Each is measured in ``rounds`` slices of ``seconds / rounds``, the baseline's and the
    games' interleaved, and the best slice of each is its rate: a busy machine slows a
    slice down and never speeds one up, so the best slices of two measures taken side by
    side are the fairest ratio (one slice each, measured a second apart, moved the ratio by
    a fifth on a shared machine).  ``deals`` counts every slice's deals."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    piece = seconds / rounds
    base_rate, base_n = 0.0, 0
    rates = {name: (0.0, 0) for name in sorted(games)}
    for _ in range(rounds):
        rate, n = bench_baseline(piece)
        base_rate, base_n = max(base_rate, rate), base_n + n
        for name in rates:
            rate, n = bench_game(games[name], piece)
            best, total = rates[name]
            rates[name] = (max(best, rate), total + n)
    out: RulesReport = {
        "seconds_per_game": seconds,
        "rounds": rounds,
        "baseline": {"name": "hand-coded sueca loop", "deals_per_second": round(base_rate, 1), "deals": base_n},
        "games": {},
    }
    for name, (rate, n) in rates.items():
        out["games"][name] = {
            "deals_per_second": round(rate, 1),
            "deals": n,
            "ms_per_deal": round(1000 / rate, 3),
            "ratio_to_baseline": round(rate / base_rate, 3),
        }
    sueca = out["games"].get("sueca")
    if sueca is not None:
        out["aim"] = {"game": "sueca", "deals_per_second": AIM_SUECA, "met": sueca["deals_per_second"] >= AIM_SUECA}
    return out


def bench_sim(sim: TrickSimulator, seconds: float, seed: int = 1, batch: int = SIM_BATCH) -> tuple[float, int]:
    """Deals per second of the batch simulator ``sim`` (a
    :class:`~p2pcards.players.simulators.TrickSimulator`): whole deals from shuffled decks with
    random players, ``batch`` at a time, every dealer in turn, default options."""
    import numpy as np

    rng = np.random.default_rng(seed)
    dealers = np.arange(batch, dtype=np.int64) % sim.seats

    def one() -> None:
        sim.play_deals(batch, rng, dealers)

    rate, n = _rate(one, seconds)
    return rate * batch, n * batch


def run_sim_bench(
    games: dict[str, GameSpec], seconds: float, check_positions: int = 0, seed: int = 1
) -> SimReport:
    """Time the batch simulator of every game that has one against its plugin and the
    hand-coded baseline; with ``check_positions`` > 0, also cross-check each simulator with
    its plugin on that many random positions.  Returns the JSON-ready report."""
    from p2pcards.players.simulators import cross_check, simulator_for

    if not seconds > 0:
        raise ValueError("the seconds per measurement must be positive")
    if check_positions < 0:
        raise ValueError("the positions to cross-check must be 0 or more")
    base_rate, base_n = bench_baseline(seconds, seed)
    out: SimReport = {
        "seconds_per_measure": seconds,
        "batch": SIM_BATCH,
        "baseline": {"name": "hand-coded sueca loop", "deals_per_second": round(base_rate, 1), "deals": base_n},
        "games": {},
    }
    for name in sorted(games):
        spec = games[name]
        sim = simulator_for(spec)
        if sim is None:
            continue
        rate, n = bench_sim(sim, seconds, seed)
        plugin_rate, plugin_n = bench_game(spec, seconds, seed)
        entry: SimRate = {
            "deals_per_second": round(rate, 1),
            "deals": n,
            "plugin": {"deals_per_second": round(plugin_rate, 1), "deals": plugin_n},
            "ratio_to_plugin": round(rate / plugin_rate, 2),
            "ratio_to_baseline": round(rate / base_rate, 2),
        }
        if check_positions:
            entry["cross_check"] = cross_check(spec, sim, check_positions, seed)
        out["games"][name] = entry
    sueca = out["games"].get("sueca")
    if sueca is not None:
        out["aim"] = {"game": "sueca", "deals_per_second": AIM_SIM, "met": sueca["deals_per_second"] >= AIM_SIM}
    if check_positions:
        out["cross_check_ok"] = all(g["cross_check"]["ok"] for g in out["games"].values())
    return out


def format_sim_report(report: SimReport) -> str:
    """The ``bench sim`` report as people read it: figures, ratios, the aim, the cross-check."""
    base = report["baseline"]
    lines = [f"baseline ({base['name']}): {base['deals_per_second']:.0f} deals/s"]
    for name, g in report["games"].items():
        lines.append(
            f"{name:<14} simulator {g['deals_per_second']:>9.0f} deals/s  "
            f"plugin {g['plugin']['deals_per_second']:>7.0f} deals/s  "
            f"{g['ratio_to_plugin']:.1f}x plugin  {g['ratio_to_baseline']:.1f}x baseline"
        )
    if "aim" in report:
        aim = report["aim"]
        verdict = "met" if aim["met"] else "NOT met"
        lines.append(f"aim: sueca simulator >= {aim['deals_per_second']} deals/s: {verdict}")
    for name, g in report["games"].items():
        check = g.get("cross_check")
        if check is None:
            continue
        differ = sum(check["differ"].values())
        detail = "" if not differ else " (" + ", ".join(f"{k} {v}" for k, v in check["differ"].items() if v) + ")"
        lines.append(
            f"cross-check {name}: {check['positions']} positions from {check['deals']} plugin deals, "
            f"{differ} differed{detail}; {check['replayed_deals']} simulator deals replayed in the plugin, "
            f"{check['replays_differ']} differed"
        )
    return "\n".join(lines)


def print_sim_bench(
    out: TextIO, games: dict[str, GameSpec], seconds: float, check_positions: int = 0, json: bool = False
) -> int:
    """Run ``bench sim`` and print its report (one JSON object with ``json``); the exit
    status is 1 when a cross-check found a difference, else 0.  Bad arguments raise
    ValueError with a message for people."""
    report = run_sim_bench(games, seconds, check_positions)
    print(json_module.dumps(report) if json else format_sim_report(report), file=out)
    return 0 if report.get("cross_check_ok", True) else 1
