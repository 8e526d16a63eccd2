"""Forfeits and the dummy: two things the table protocol asks of the sans-IO rules core.

* :meth:`DealState.forfeit` ends a deal at any point as lost by a seat (blamed for cheating
  or voted out), scored by the game's renúncia rule from public information only: a
  full-information deal, an observer's deck that knows only public cards and a seat's deck
  that also knows its own hand give the same result.
* :func:`dummy_choice` decides for a voted-out seat whose cards are open: every peer computes
  the same choice from public facts, the dummy's hand and a seed, whatever else it knows.

Every deal here is driven the way a network peer drives one: the full-information deal
chooses, and partial replicas learn a card only when it is dealt to a seat they know or
shown to everyone (as ``p2pcards.table.table`` does with the cards its party opens).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import random
from collections.abc import Callable, Sequence
from typing import Any

import pytest

from p2pcards.core import (
    GO_IN,
    PASS,
    PLAY,
    PT_POINTS,
    TRUMP,
    Choice,
    Deal,
    DealState,
    Decision,
    End,
    GameSpec,
    Locate,
    Match,
    Reveal,
    SeatView,
    load_games,
)
from p2pcards.players import RandomPlayer, dummy_choice, make_player

REGISTRY = load_games()
GAMES = ["sueca", "bisca", "copas", "sobe-e-desce"]


# ---------------------------------------------------------------------- replicas
class Replica:
    """A partial copy of a deal: it learns the cards dealt to ``knows`` and public cards."""

    def __init__(self, deal: DealState, knows: Sequence[int]) -> None:
        self.deal = deal
        self.knows = set(knows)


class Table:
    """A full-information deal and partial replicas, driven by the same public history.

    ``actions`` counts what has happened: a deck step completed, or one seat's choice
    applied (a decision of several seats takes one action per seat).
    """

    def __init__(self, match: Match, cards: Sequence[str], knowers: Sequence[Sequence[int]]) -> None:
        self.match = match
        self.full = match.new_deal(cards)
        self.replicas = [Replica(match.new_deal(None), k) for k in knowers]
        self.actions = 0
        self._choices: dict[int, Choice] = {}

    @property
    def deals(self) -> list[DealState]:
        return [self.full] + [r.deal for r in self.replicas]

    def learn(self, deal: DealState, positions: Sequence[int]) -> None:
        for p in positions:
            card = self.full.deck.cards[p]
            assert card is not None
            deal.deck.learn(p, card)

    def advance(self, choose: Callable[[int, Decision], Choice]) -> bool:
        """One action; False once the deal is over."""
        step = self.full.step()
        if isinstance(step, End):
            return False
        if isinstance(step, Decision):
            seat = self.full.undecided()[0]
            choice = choose(seat, step)
            for deal in self.deals:
                deal.apply(seat, choice)
        else:
            for r in self.replicas:
                if isinstance(step, Deal) and step.seat in r.knows:
                    self.learn(r.deal, step.positions)
                elif isinstance(step, Reveal):
                    self.learn(r.deal, step.positions)
                elif isinstance(step, Locate):
                    pos = self.full.deck.find(step.card)
                    assert pos is not None
                    self.learn(r.deal, [pos])
            for deal in self.deals:
                deal.complete()
        self.actions += 1
        for r in self.replicas:  # the steps follow from public information only
            assert r.deal.step() == self.full.step()
            assert r.deal.undecided() == self.full.undecided()
        return True


def new_match(spec: GameSpec, rng: random.Random, options: dict[str, Any] | None = None) -> Match:
    """A match at a random dealer, deal number (Copas' passing) and scores (Sobe e Desce)."""
    match = spec.new_match(spec.resolve_options(options or {}), rng.randrange(spec.seats))
    match.deal_number = rng.randrange(4)
    if spec.name == "sobe-e-desce":
        match.totals = [rng.choice([20, 14, 5, 3]) for _ in range(4)]
        match.sat_out = [rng.choice([0, 0, 1, 2]) for _ in range(4)]  # type: ignore[attr-defined]
    return match


def shuffled(spec: GameSpec, rng: random.Random) -> list[str]:
    cards = list(spec.deck)
    rng.shuffle(cards)
    return cards


def random_chooser(table: Table, rng: random.Random) -> Callable[[int, Decision], Choice]:
    player = RandomPlayer(rng)
    return lambda seat, decision: player.choose(SeatView(table.full, seat), decision)


# ---------------------------------------------------------------------- forfeit rules
def expected_forfeit(game: str, deal: DealState, seat: int) -> dict[str, Any]:
    """The renúncia penalty (each plugin's docstring) for ``seat``, restated from the deal's public facts."""
    counts = [0] * deal.seats
    for t in deal.tricks:
        counts[t.winner] += 1
    won = [[str(deal.deck.cards[p]) for p in deal.won[s]] for s in range(deal.seats)]  # public cards
    if game in ("sueca", "bisca"):
        pts = [sum(PT_POINTS.get(c[0], 0) for c in won[s]) for s in range(deal.seats)]
        if game == "sueca":
            pts, counts = [pts[0] + pts[2], pts[1] + pts[3]], [counts[0] + counts[2], counts[1] + counts[3]]
        gp = [0, 0]
        gp[1 - seat % 2] = 4
        out: dict[str, Any] = {"points": pts, "tricks": counts, "game_points": gp}
        if game == "sueca":
            out["multiplier"] = deal.multiplier  # type: ignore[attr-defined]
    elif game == "copas":
        taken = [sum(1 if c[1] == "H" else 13 if c == "QS" else 0 for c in won[s]) for s in range(4)]
        out = {"points": [26 if s == seat else 0 for s in range(4)], "taken": taken, "moon": None}
    else:
        playing: list[bool | None] = deal.playing  # type: ignore[attr-defined]
        mult = 2 if deal.trump == "C" else 1
        gone_in = None not in playing
        active = [s for s in range(4) if playing[s]]
        if gone_in and len(active) == 1 and not deal.tricks:
            counts = [5 if s == active[0] else 0 for s in range(4)]
        delta = [0] * 4
        for s in range(4):
            if s == seat:
                counts[s] = 0
                delta[s] = 10
            elif gone_in and playing[s]:
                delta[s] = -counts[s] * mult if counts[s] else 5 * mult
        scores: list[int] = deal.scores  # type: ignore[attr-defined]
        out = {
            "played": [bool(p) for p in playing],
            "tricks": counts,
            "delta": delta,
            "scores": [scores[s] + delta[s] for s in range(4)],
            "trump_chooser": deal.chooser,  # type: ignore[attr-defined]
        }
    out["renuncia"] = seat
    return out


def check_forfeits(game: str, table: Table, seen: set[str]) -> None:
    """Forfeit copies of every replica for every seat: same result, by the rule, ended."""
    step = table.full.step()
    seen.add(type(step).__name__ + ("/" + step.kind if isinstance(step, Decision) else ""))
    if table.full.trick:
        seen.add("mid-trick")
    if isinstance(step, Decision) and table.full.undecided() != step.seats:
        seen.add("mid-decision")
    for seat in range(table.full.seats):
        results = []
        for deal in table.deals:
            d = copy.deepcopy(deal)
            d.forfeit(seat)
            assert d.over and d.renuncia == seat
            assert d.step() == End(d.result)  # type: ignore[arg-type]
            results.append(d.result)
        expected = expected_forfeit(game, table.full, seat)
        assert results[0] == expected, (table.actions, seat)
        assert all(r == results[0] for r in results[1:]), (table.actions, seat, results)


@pytest.mark.parametrize("game", GAMES)
def test_forfeit_at_every_point_is_public_and_follows_the_rule(game: str) -> None:
    """At every action of several deals, forfeiting gives the same penalty result on a
    full-information deal, an observer's deck and a seat's deck."""
    spec = REGISTRY.get(game)
    seen: set[str] = set()
    for seed in range(4 if game != "copas" else 5):
        rng = random.Random(f"forfeit/{game}/{seed}")
        options = {"swap2": "on"} if game == "bisca" else None
        match = new_match(spec, rng, options)
        table = Table(match, shuffled(spec, rng), [[], [seed % spec.seats]])
        choose = random_chooser(table, rng)
        check_forfeits(game, table, seen)
        while table.advance(choose):
            check_forfeits(game, table, seen)
        check_forfeits(game, table, seen)  # after the normal end
        assert table.full.result is not None and table.full.result["renuncia"] is None
    assert {"Deal", "Reveal", "Decision/play", "End", "mid-trick"} <= seen, seen
    if game == "copas":
        assert {"Decision/pass", "mid-decision", "Locate"} <= seen, seen
    if game == "sobe-e-desce":
        assert {"Decision/trump", "Decision/go_in"} <= seen, seen


@pytest.mark.parametrize("game", GAMES)
def test_forfeit_right_after_construction(game: str) -> None:
    """Nothing dealt yet: the offender takes the penalty, nobody else scores."""
    spec = REGISTRY.get(game)
    rng = random.Random(f"fresh/{game}")
    for seat in range(spec.seats):
        match = new_match(spec, rng)
        results = []
        for deal in (match.new_deal(shuffled(spec, rng)), match.new_deal(None)):
            deal.forfeit(seat)
            assert deal.over and deal.renuncia == seat and isinstance(deal.step(), End)
            results.append(deal.result)
        assert results[0] == results[1] == expected_forfeit(game, deal, seat)
        result = results[0]
        assert result is not None
        if game == "sueca":
            assert result["points"] == [0, 0] and result["game_points"][1 - seat % 2] == 4
        elif game == "bisca":
            assert result["game_points"] == [4 if s != seat else 0 for s in range(2)]
        elif game == "copas":
            assert result["points"] == [26 if s == seat else 0 for s in range(4)]
        else:
            assert result["delta"] == [10 if s == seat else 0 for s in range(4)]
            assert result["played"] == [False] * 4


def play_to(table: Table, rng: random.Random, stop: Callable[[DealState], bool]) -> None:
    choose = random_chooser(table, rng)
    while not stop(table.full):
        assert table.advance(choose), "the deal ended before the point the test wants"


def test_forfeit_after_normal_end_replaces_the_result() -> None:
    spec = REGISTRY.get("sueca")
    rng = random.Random("replace")
    table = Table(new_match(spec, rng), shuffled(spec, rng), [[]])
    play_to(table, rng, lambda d: d.over)
    normal = dict(table.full.result or {})
    assert normal["renuncia"] is None
    for deal in table.deals:
        deal.forfeit(0)
        assert deal.result != normal and deal.result is not None
        assert deal.renuncia == 0 and deal.result["game_points"] == [0, 4]
        assert deal.result["points"] == normal["points"], "the card points taken stay as played"
        assert deal.step() == End(deal.result)
        deal.forfeit(3)  # a later verdict replaces it again
        assert deal.renuncia == 3 and deal.result["game_points"] == [4, 0]


def test_forfeit_rejects_a_non_seat() -> None:
    spec = REGISTRY.get("bisca")
    deal = spec.new_match(spec.resolve_options({}), 0).new_deal(None)
    for bad in (-1, 2, "0", None):
        with pytest.raises(ValueError):
            deal.forfeit(bad)  # type: ignore[arg-type]
    assert not deal.over and isinstance(deal.step(), Deal)


def test_sobe_e_desce_forfeit_before_trick_play_leaves_the_others_unchanged() -> None:
    """Decision of this project: before everyone has gone in, only the offender scores
    (+10, even one that sat out); seats already in neither gain nor lose."""
    spec = REGISTRY.get("sobe-e-desce")
    seen = 0
    for seed in range(40):
        rng = random.Random(f"sobe-before/{seed}")
        match = spec.new_match({}, rng.randrange(4))
        table = Table(match, shuffled(spec, rng), [[]])
        full = table.full

        def stop(d: DealState) -> bool:
            step = d.step()
            return isinstance(step, Decision) and step.kind == GO_IN and d.playing.count(None) == 1  # type: ignore[attr-defined]

        play_to(table, rng, stop)
        playing = list(full.playing)  # type: ignore[attr-defined]
        went_in = [s for s in range(4) if playing[s]]
        sat_out = [s for s in range(4) if playing[s] is False]
        if not sat_out:
            continue
        seen += 1
        offender = sat_out[0]
        for deal in table.deals:
            d = copy.deepcopy(deal)
            d.forfeit(offender)
            assert d.result is not None
            assert d.result["delta"] == [10 if s == offender else 0 for s in range(4)]
            assert d.result["tricks"] == [0, 0, 0, 0]
            assert [s for s in range(4) if d.result["played"][s]] == went_in
        # once everyone has gone in, the deal is scored as played: a player in without tricks adds 5
        play_to(table, rng, lambda d: None not in d.playing)  # type: ignore[attr-defined]
        if len(full.active) > 1:
            full.forfeit(offender)
            mult = 2 if full.trump == "C" else 1
            assert full.result is not None
            assert full.result["delta"] == [
                10 if s == offender else 5 * mult if full.playing[s] else 0  # type: ignore[attr-defined]
                for s in range(4)
            ]
    assert seen >= 5


@pytest.mark.parametrize("game", GAMES)
def test_match_records_a_forfeited_deal(game: str) -> None:
    """The forfeited deal is scored into the match and the dealer rotates."""
    spec = REGISTRY.get(game)
    match = spec.new_match(spec.resolve_options({"target": 8} if game in ("sueca", "bisca") else {}), 1)
    rng = random.Random(f"record/{game}")
    table = Table(match, shuffled(spec, rng), [[]])
    play_to(table, rng, lambda d: bool(d.tricks) and bool(d.trick))
    observer = table.replicas[0].deal
    observer.forfeit(0)
    match.record(observer)
    assert match.dealer == 2 % spec.seats and match.deal_number == 1
    assert match.results[-1]["renuncia"] == 0
    if game == "sueca":
        assert match.totals == [0, 4] and not match.finished
    elif game == "bisca":
        assert match.totals == [0, 4] and not match.finished
    elif game == "copas":
        assert match.totals == [26, 0, 0, 0]
    else:
        assert match.totals[0] == 30 and match.results[-1]["delta"][0] == 10
    assert match.new_deal(None).dealer == match.dealer


# ---------------------------------------------------------------------- the dummy
def dummy_view(deal: DealState, seat: int) -> dict[str, Any]:
    """Everything a dummy view shows, for comparing replicas."""
    v = SeatView(deal, seat, dummy=True)
    return {
        "hand": v.hand, "legal": v.legal, "trump": v.trump, "trump_card": v.trump_card,
        "trick": v.trick, "tricks": v.tricks, "played": v.played, "events": v.events,
        "points": v.points_won, "voids": [v.voids(s) for s in range(v.seats)],
        "sizes": [v.hand_size(s) for s in range(v.seats)], "stock": v.stock_count,
        "cards": [v.card(p) for p in range(deal.deck.size)],
    }


def dummy_seed(table: Table) -> bytes:
    return hashlib.sha256(f"{table.full.dealer}/{table.actions}".encode()).digest()


def play_with_dummy(
    spec: GameSpec, seed: str, on_dummy: Callable[[Table, int, Decision], Choice] | None = None
) -> tuple[int, int]:
    """Play a deal where one seat is a dummy; at each of its decisions check that every
    replica computes the same view and choice.  Returns (dummy decisions, plays checked
    on the late replica).

    Replicas: an observer that learns the dummy's cards as they are dealt (public cards +
    the dummy's hand); a seat that also knows its own hand; and a *late* observer that
    learns the dummy's hand only when it must play (a dummy opened mid-deal: it never saw
    what the dummy passed, discarded or drew before).
    """
    rng = random.Random(seed)
    match = new_match(spec, rng, {"swap2": "on"} if spec.name == "bisca" else None)
    dummy = rng.randrange(spec.seats)
    other = (dummy + 1 + rng.randrange(spec.seats - 1)) % spec.seats
    table = Table(match, shuffled(spec, rng), [[dummy], [dummy, other], []])
    late = table.replicas[2].deal
    others = RandomPlayer(rng)
    decisions = late_plays = 0

    def choose(seat: int, decision: Decision) -> Choice:
        nonlocal decisions, late_plays
        if seat != dummy:
            return others.choose(SeatView(table.full, seat), decision)
        decisions += 1
        states = [table.full, table.replicas[0].deal, table.replicas[1].deal]
        if decision.kind == PLAY:
            table.learn(late, late.deck.hands[dummy])
            states.append(late)
            late_plays += 1
        views = [dummy_view(d, dummy) for d in states]
        assert all(v == views[0] for v in views[1:]), "a dummy view depends on what the peer knows"
        seed_bytes = dummy_seed(table)
        choices = [dummy_choice(spec, d, dummy, decision, seed_bytes) for d in states]
        assert all(c == choices[0] for c in choices[1:]), (decision, choices)
        if on_dummy is not None:
            on_dummy(table, dummy, decision)
        return choices[0]

    while table.advance(choose):
        pass
    results = [d.result for d in table.deals]
    assert all(r == results[0] for r in results[1:])
    return decisions, late_plays


@pytest.mark.parametrize("game", GAMES)
def test_dummy_choice_depends_only_on_public_facts_and_its_hand(game: str) -> None:
    spec = REGISTRY.get(game)
    kinds: set[str] = set()

    def is_heuristic(table: Table, dummy: int, decision: Decision) -> None:
        kinds.add(decision.kind)
        seed = dummy_seed(table)
        rng = random.Random(int.from_bytes(hashlib.sha256(b"p2pcards/dummy/v1\x00" + seed).digest(), "big"))
        bot = make_player("heuristic", spec, rng)
        assert type(bot) is not RandomPlayer
        view = SeatView(table.full, dummy, dummy=True)
        assert dummy_choice(spec, table.full, dummy, decision, seed) == bot.choose(view, decision)

    total = late = 0
    for n in range(25):
        d, lp = play_with_dummy(spec, f"dummy/{game}/{n}", is_heuristic)
        total += d
        late += lp
    assert total > 50 and late > 20
    wanted = {PLAY} | ({PASS} if game == "copas" else set()) | ({TRUMP, GO_IN} if game == "sobe-e-desce" else set())
    assert wanted <= kinds, kinds


@pytest.mark.parametrize("game", GAMES)
def test_dummy_seed_decides_the_random_player(game: str) -> None:
    """For a game without a heuristic the dummy is the random player: the same seed gives
    the same choice on every replica, different seeds different choices."""
    spec = dataclasses.replace(REGISTRY.get(game), heuristic_class=None)
    varied = 0

    def seeds_matter(table: Table, dummy: int, decision: Decision) -> None:
        nonlocal varied
        full = table.full
        legal = full.legal(dummy)
        if decision.pick is None and len(legal) < 3:
            return
        picks = set()
        for k in range(6):
            seed = b"seed %d" % k
            first = dummy_choice(spec, full, dummy, decision, seed)
            assert dummy_choice(spec, table.replicas[0].deal, dummy, decision, seed) == first
            rng = random.Random(int.from_bytes(hashlib.sha256(b"p2pcards/dummy/v1\x00" + seed).digest(), "big"))
            assert first == RandomPlayer(rng).choose(SeatView(full, dummy), decision)
            picks.add(repr(first))
        if len(picks) > 1:
            varied += 1

    for n in range(4):
        play_with_dummy(spec, f"dummy-random/{game}/{n}", seeds_matter)
    assert varied >= 3


def test_dummy_choice_refuses_what_it_cannot_compute() -> None:
    spec = REGISTRY.get("sueca")
    rng = random.Random("refuse")
    table = Table(new_match(spec, rng), shuffled(spec, rng), [[]])
    play_to(table, rng, lambda d: isinstance(d.step(), Decision))
    step = table.full.step()
    assert isinstance(step, Decision)
    seat = step.seats[0]
    with pytest.raises(ValueError):  # the observer does not know the seat's hand
        dummy_choice(spec, table.replicas[0].deal, seat, step, b"x")
    with pytest.raises(ValueError):  # not this seat's turn
        dummy_choice(spec, table.full, (seat + 1) % 4, step, b"x")
    with pytest.raises(ValueError):  # not the pending decision
        dummy_choice(spec, table.full, seat, Decision((seat,), PASS, (3, 3)), b"x")
    assert dummy_choice(spec, table.full, seat, step, b"x") in table.full.legal(seat)
