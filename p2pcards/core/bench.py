"""``p2pcards bench rules``: full-information deals per second with random players.

One process, one core.  Each game is timed over whole deals driven by the same engine
the runtime uses.  The baseline, measured in the same run, is a hand-coded Sueca deal
loop (shuffle, deal, follow suit, resolve tricks, count points) with no engine at all:
the ratio says what the engine's generality costs.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from p2pcards.core.arena import play_deal
from p2pcards.core.cards import PORTUGUESE_40, PT_POINTS, PT_RANK_ORDER, strength_table
from p2pcards.core.game import GameSpec
from p2pcards.core.players import RandomPlayer

__all__ = ["bench_game", "bench_baseline", "run_rules_bench", "AIM_SUECA"]

#: deals per second the issue asks of Sueca (the search bot's ceiling)
AIM_SUECA = 1000


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
    state: dict[str, Any] = {"match": spec.new_match(options, 0)}

    def one() -> None:
        match = state["match"]
        if match.finished:
            match = state["match"] = spec.new_match(options, 0)
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


def run_rules_bench(games: dict[str, GameSpec], seconds: float) -> dict[str, Any]:
    """Measure every game and the baseline; return the JSON-ready report."""
    base_rate, base_n = bench_baseline(seconds)
    out: dict[str, Any] = {
        "seconds_per_game": seconds,
        "baseline": {"name": "hand-coded sueca loop", "deals_per_second": round(base_rate, 1), "deals": base_n},
        "games": {},
    }
    for name in sorted(games):
        rate, n = bench_game(games[name], seconds)
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
