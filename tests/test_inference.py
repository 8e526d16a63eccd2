"""The sampler's inference as a game asks for it (p2pcards/players/inference.py's
:class:`Inference`, applied by p2pcards/players/sampling.py): Bisca's asks every play of
the other player of the heuristic and redraws the cards it drew since its last play until
the heuristic would have made it, when the other plays as the heuristic does."""

from __future__ import annotations

import random
from collections.abc import Iterator

from p2pcards.core import Decision, SeatView, load_games
from p2pcards.players import make_player
from p2pcards.players import sampling as sampling_module
from p2pcards.players.inference import Inference
from p2pcards.players.sampling import WorldSampler, settled
from p2pcards.players.search import SearchPlayer
from p2pcards_bisca.fastsim import BiscaSimulator
from tests.helpers import run_until_decision

BISCA = load_games().get("bisca")
#: Bisca's own (from its simulator), and the same without the play redraws
REDRAWN = BiscaSimulator.inference
PLAIN = Inference(agree=REDRAWN.agree)


def views(deals: int, after: int = 4, other: str = "heuristic") -> Iterator[SeatView]:
    """Seat 0's views in Bisca deals of a heuristic player against ``other``, once the
    other has made ``after`` plays."""
    for number in range(deals):
        cards = list(BISCA.deck)
        random.Random(f"inference/{number}").shuffle(cards)
        deal = BISCA.new_match({}, number % 2).new_deal(cards)
        players = [make_player("heuristic", BISCA, random.Random(0)), make_player(other, BISCA, random.Random(1))]
        while type(step := run_until_decision(deal)) is Decision:
            for seat in step.seats:
                view = SeatView(deal, seat)
                if seat == 0 and sum(1 for e in view.events if e.get("seat") == 1 and e["type"] == "play") >= after:
                    yield view
                deal.apply(seat, players[seat].choose(view, step))


def test_bisca_search_weighs_its_worlds_by_its_simulators_inference(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    made: list[WorldSampler] = []

    class Recording(WorldSampler):
        def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(sampling_module, "WorldSampler", Recording)
    player = SearchPlayer(BISCA, random.Random(1), iterations=4)
    view = next(views(1, after=10))
    player.choose(view, view.decision)  # type: ignore[arg-type]
    assert len(made) == 1 and made[0].inference is REDRAWN
    assert REDRAWN.agree > 1 and REDRAWN.redraw_plays
    # every play of the other player is asked, the latest eight weighed one by one
    plays = [i for i, (s, _) in enumerate(made[0].actions) if s == 1]
    assert set(plays) <= made[0].infer_at and len(made[0].weigh_at) == 8 < len(plays)


def test_play_redraws_make_more_worlds_agree_with_every_play() -> None:
    """Worlds in which the heuristic would have made each of the other player's plays
    (weight ``agree``): about half with the redraws, a third without (measured)."""
    agreeing = {True: 0, False: 0}
    total = 0
    for n, view in enumerate(views(6)):
        if n % 3:
            continue
        model = make_player("heuristic", BISCA, random.Random(0))
        for redraw, inference in ((True, REDRAWN), (False, PLAIN)):
            sampler = WorldSampler(BISCA, view, model.choose, inference)
            rng = random.Random(n)
            for _ in range(10):
                world = sampler.sample(rng)
                assert world is not None
                agreeing[redraw] += world.weight >= inference.agree
        total += 10
    assert total >= 60
    assert agreeing[False] > 0
    assert agreeing[True] > 1.3 * agreeing[False], agreeing


def test_play_redraws_never_change_a_play_already_weighed() -> None:
    """A card is redrawn only where the seat drew it after its last play asked about: the
    world's cards, replayed again with no redraws, weigh exactly what they weighed."""
    model = make_player("heuristic", BISCA, random.Random(0))
    checked = agreed = 0
    for n, view in enumerate(views(4, after=2)):
        sampler = WorldSampler(BISCA, view, model.choose, REDRAWN)
        rng = random.Random(n)
        for _ in range(3):
            world = sampler.sample(rng)
            assert world is not None
            cards = list(world.state.deck.cards)
            again = sampler.world(cards, None)  # no random stream: no redraws
            assert again is not None and again.weight == world.weight
            assert again.state.deck.cards == cards
            checked += 1
            agreed += world.weight >= REDRAWN.agree
    assert checked > 100 and agreed > 10


def test_bisca_worlds_resumed_with_redraws_are_the_worlds_replayed_from_the_start() -> None:
    model = make_player("heuristic", BISCA, random.Random(0))
    compared = 0
    for n, view in enumerate(views(3, after=1)):
        if n % 2:
            continue
        short = WorldSampler(BISCA, view, model.choose, REDRAWN)
        full = WorldSampler(BISCA, view, model.choose, REDRAWN)
        full.full_replay = True
        for t in range(2):
            a, b = short.sample(random.Random(t)), full.sample(random.Random(t))
            assert a is not None and b is not None
            assert a.weight == b.weight and a.state.deck.cards == b.state.deck.cards
            compared += 1
    assert compared > 20


def test_the_inference_settles_on_whether_the_other_plays_as_the_heuristic() -> None:
    """Against the heuristic, Bisca's inference is kept and its first worlds are handed
    out first; against a player that does not play as the heuristic (the random player),
    the default inference weighs the worlds (no redraws, no reward for agreeing)."""
    model = make_player("heuristic", BISCA, random.Random(0))
    kept = {"heuristic": 0, "random": 0}
    asked = dict(kept)
    for other in kept:
        for n, view in enumerate(views(8, after=6, other=other)):
            if n % 4:
                continue
            sampler = settled(BISCA, view, model.choose, REDRAWN, random.Random(n))
            if sampler.inference is REDRAWN:
                kept[other] += 1
                assert 1 <= len(sampler.drawn) <= REDRAWN.probe
                first = sampler.drawn[-1]
                assert sampler.sample(random.Random(0)) is first
            else:
                assert sampler.inference == Inference() and not sampler.drawn
            asked[other] += 1
    assert min(asked.values()) >= 10
    assert kept["heuristic"] >= 0.8 * asked["heuristic"] and kept["random"] <= 0.2 * asked["random"], (kept, asked)
    # a game whose inference asks nothing more draws nothing first
    view = next(views(1))
    assert not settled(BISCA, view, model.choose, Inference(), random.Random(0)).drawn


def test_a_kept_inference_weighs_its_games_multiple_of_the_levels_worlds(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Bisca's inference, when kept, triples the worlds of a decision (about half of them
    agree with every play and weigh most); the default inference weighs the level's."""
    from p2pcards.players import search as search_module

    made: list[WorldSampler] = []

    def recording(*args, **kwargs) -> WorldSampler:  # type: ignore[no-untyped-def]
        made.append(settled(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(search_module, "settled", recording)
    assert REDRAWN.worlds == 3 and Inference().worlds == 1
    seen = {1: 0, 3: 0}
    for other in ("heuristic", "random"):
        for n, view in enumerate(views(6, after=3, other=other)):
            if n % 5:
                continue
            player = SearchPlayer(BISCA, random.Random(n), iterations=4)
            made.clear()
            player.choose(view, view.decision)  # type: ignore[arg-type]
            if not made:
                continue  # one legal card: no search
            factor = made[-1].inference.worlds
            assert player.last_worlds == 4 * factor, (other, n, factor, player.last_worlds)
            seen[factor] += 1
    assert min(seen.values()) >= 2, seen
