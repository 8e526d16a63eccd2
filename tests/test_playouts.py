"""Property tests over random legal playouts of every game and every variant.

Each arena record is checked by an independent re-implementation of each game's rules
(``tests/rulecheck_<game>.py``), plus invariants every game shares.
"""

from __future__ import annotations

import importlib
import itertools
import random
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.core import PLAY, GameSpec, load_games
from p2pcards.core.view import SeatView
from p2pcards.players import RandomPlayer
from p2pcards.tools.arena import run_arena

REGISTRY = load_games()
GAMES = ["sueca", "bisca", "copas", "sobe-e-desce"]


def checker(game: str) -> Any:
    return importlib.import_module("tests.rulecheck_" + game.replace("-", "_")).check


def variants(spec: GameSpec) -> list[dict[str, Any]]:
    names = [o.name for o in spec.options]
    return [dict(zip(names, values, strict=True)) for values in itertools.product(*(o.allowed for o in spec.options))]


def match_should_be_over(game: str, totals: list[int], options: dict[str, Any]) -> bool:
    """Each game's end-of-match conditions, restated."""
    if game in ("sueca", "bisca"):
        return max(totals) >= options["target"]
    if game == "copas":
        low = min(totals)
        unique = totals.count(low) == 1
        return unique and (options["match"] == "single" or max(totals) >= 100)
    if game == "sobe-e-desce":
        return min(totals) <= 0
    raise AssertionError(game)


def common_checks(record: dict[str, Any], spec: GameSpec) -> None:
    deck = set(spec.deck)
    plays = [ev["card"] for ev in record["events"] if ev["type"] == "play"]
    assert len(plays) == len(set(plays)), "a card is played at most once"
    assert set(plays) <= deck
    assert [c for t in record["tricks"] for c in t["cards"]] == plays, "tricks hold the plays in order"
    dealt = [c for h in record["hands"] for c in h]
    assert len(dealt) == len(set(dealt)) and set(dealt) <= deck, "no card dealt twice"
    for t in record["tricks"]:
        assert t["winner"] in t["seats"]


def play_matches(
    game: str, options: dict[str, Any], seed: int, levels: list[str], deals: int
) -> Iterator[dict[str, Any]]:
    spec = REGISTRY.get(game)
    return run_arena(spec, spec.resolve_options(options), deals, seed, levels)


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 2**31))
def test_random_playouts_obey_the_rules(game: str, data: st.DataObject, seed: int) -> None:
    spec = REGISTRY.get(game)
    options = data.draw(st.sampled_from(variants(spec)), label="options")
    levels = data.draw(st.lists(st.sampled_from(["random", "heuristic"]), min_size=spec.seats, max_size=spec.seats))
    check = checker(game)
    resolved = spec.resolve_options(options)
    totals_before = None
    for record in play_matches(game, options, seed, levels, deals=6):
        if record["type"] == "summary":
            break
        common_checks(record, spec)
        check(record, resolved)
        assert record["match_over"] == match_should_be_over(game, record["totals"], resolved)
        if record["match_over"]:
            assert record["winner"] is not None
        totals_before = record["totals"]
    assert totals_before is not None


@pytest.mark.parametrize("game", GAMES)
def test_whole_matches_end_exactly_at_their_target(game: str) -> None:
    spec = REGISTRY.get(game)
    check = checker(game)
    for options in variants(spec)[:4]:
        resolved = spec.resolve_options(options)
        finished = 0
        for record in play_matches(game, options, 11, ["random"] * spec.seats, deals=60):
            if record["type"] == "summary":
                finished = record["matches_finished"]
                break
            check(record, resolved)
            assert record["match_over"] == match_should_be_over(game, record["totals"], resolved)
        assert finished >= 1, f"{game} {options}: no match finished in 60 deals"


@pytest.mark.parametrize("game", GAMES)
def test_two_thousand_arena_deals_are_legal(game: str) -> None:
    """The issue's acceptance run: ``p2pcards arena GAME --deals 2000 --seed 1 --json``
    (in-process, same code path as the CLI's default heuristic players)."""
    spec = REGISTRY.get(game)
    check = checker(game)
    options = spec.resolve_options({})
    n = 0
    for record in play_matches(game, {}, 1, ["heuristic"] * spec.seats, deals=2000):
        if record["type"] == "summary":
            assert record["deals"] == 2000
            break
        common_checks(record, spec)
        check(record, options)
        n += 1
    assert n == 2000


@pytest.mark.parametrize("game", GAMES)
def test_heuristic_beats_random(game: str) -> None:
    """The tips are worth something: heuristic players win more matches than random ones."""
    spec = REGISTRY.get(game)
    if spec.teams:
        levels = ["heuristic", "random"] * 2
        sides = ((0,), (1,))
    else:
        levels = ["heuristic"] + ["random"] * (spec.seats - 1)
        sides = None
    summary = list(play_matches(game, {}, 3, levels, deals=300))[-1]
    wins = summary["wins"]
    if sides is not None or spec.seats == 2:
        assert wins[0] > 2 * wins[1], wins
    else:
        assert wins[0] > max(wins[1:]), wins


@pytest.mark.parametrize("game", GAMES)
@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31))
def test_every_play_s_legality_check_agrees_with_the_legal_plays(game: str, seed: int) -> None:
    """The renúncia check of each play (``is_legal_play``, which a game may answer faster)
    says of every card a seat holds what ``legal_plays`` lists, at every play of a deal."""
    spec = REGISTRY.get(game)
    rng = random.Random(seed)
    cards = list(spec.deck)
    rng.shuffle(cards)
    deal = spec.new_match(spec.resolve_options(), rng.randrange(spec.seats)).new_deal(cards)
    player = RandomPlayer(rng)
    asked = 0
    for step in deal.decisions():
        for seat in step.seats:
            if step.kind == PLAY:
                legal = set(p for p in deal.legal_plays(seat) if type(p) is int)
                for pos in deal.deck.hands[seat]:
                    assert deal.is_legal_play(seat, pos) == (pos in legal), (seat, deal.deck.cards[pos])
                asked += 1
            deal.apply(seat, player.choose(SeatView(deal, seat), step))
    assert deal.over and deal.renuncia is None
    assert asked >= len(deal.tricks) * 2 or not deal.tricks  # (Sobe e Desce: one seat went in, no play)
