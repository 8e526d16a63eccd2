"""Full-information play in one process: the arena, the benchmark and tests.

The arena stands in for the shuffle with a seeded PRNG: the same seed gives the same
deals, choices and records, byte for byte.  It drives the very state machines the
distributed runtime drives, fulfilling every deck step at once.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from p2pcards.core import DealResult, DealState, GameSpec, Options
from p2pcards.core.records import deal_record
from p2pcards.core.view import SeatView
from p2pcards.players import Player, make_player

__all__ = ["play_deal", "run_arena", "seat_rng"]


def seat_rng(seed: int, seat: int) -> random.Random:
    """The private random stream of the computer player in ``seat`` (arena only)."""
    return random.Random(f"p2pcards-arena/{seed}/seat/{seat}")


def play_deal(
    deal: DealState, players: Sequence[Player], match_totals: Sequence[int] = ()
) -> DealResult:
    """Drive ``deal`` to its end with full information; return its result."""
    views = [SeatView(deal, s, match_totals) for s in range(deal.seats)]
    for step in deal.decisions():
        for seat in step.seats:
            deal.apply(seat, players[seat].choose(views[seat], step))
    assert deal.result is not None
    return deal.result


def run_arena(
    spec: GameSpec,
    options: Options,
    deals: int,
    seed: int,
    levels: Sequence[str],
) -> Iterator[dict[str, object]]:
    """Play ``deals`` deals (new matches as matches end); yield each deal's record, then
    a summary object."""
    if len(levels) != spec.seats:
        raise ValueError(f"{spec.name} needs {spec.seats} players, got {len(levels)}")
    shuffler = random.Random(f"p2pcards-arena/{seed}/deck")
    players = [make_player(level, spec, seat_rng(seed, s)) for s, level in enumerate(levels)]
    match_index = 0
    match = spec.new_match(options, shuffler.randrange(spec.seats))
    wins: list[int] = []
    for index in range(deals):
        if match.finished:
            match_index += 1
            match = spec.new_match(options, shuffler.randrange(spec.seats))
        cards = list(spec.deck)
        shuffler.shuffle(cards)
        deal = match.new_deal(cards)
        play_deal(deal, players, match.totals)
        match.record(deal)
        if match.winner is not None:
            while len(wins) <= match.winner:
                wins.append(0)
            wins[match.winner] += 1
        yield deal_record(spec, match_index, index, deal, match)
    sides = len(match.totals)
    wins += [0] * (sides - len(wins))
    yield {
        "type": "summary",
        "game": spec.name,
        "options": dict(options),
        "players": list(levels),
        "seed": seed,
        "deals": deals,
        "matches_finished": sum(wins),
        "wins": wins,
    }
