"""`p2pcards engine`: positions cut from arena records of every game, answered legally by a
subprocess; impossible histories and malformed lines answered with errors; the examples of
protocol/ENGINE.md answered as documented."""

from __future__ import annotations

import copy
import functools
import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from p2pcards.core import PLAY, SWAP, Decision, End, SeatView, load_games
from p2pcards.players import make_player
from p2pcards.players.simulators import simulator_for
from p2pcards.tools.arena import run_arena, seat_rng
from p2pcards.tools.engine import MAX_LINE, answer, answer_line
from p2pcards.tools.engine_replay import is_legal, replay

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = load_games()

#: (game, options, players, seed, deals): random players reach the odd corners (Bisca's swap,
#: Sobe e Desce's turned card discarded, sitting out), heuristic ones the usual play.
CASES = [
    ("sueca", {}, ["heuristic"] * 4, 3, 2),
    ("sueca", {"trump_card": "first"}, ["random", "heuristic"] * 2, 4, 1),
    ("bisca", {"swap2": "on"}, ["random", "heuristic"], 5, 3),
    ("bisca", {"hand": 5}, ["heuristic"] * 2, 6, 1),
    ("copas", {}, ["heuristic", "random"] * 2, 2, 4),  # deals 0-3 of a match: every passing direction
    ("sobe-e-desce", {}, ["random"] * 4, 0, 4),  # deal 1: the chooser discards the turned card
    ("sobe-e-desce", {}, ["heuristic"] * 4, 7, 4),
]


def seat_events(deal: Any, seat: int) -> list[dict[str, Any]]:
    """The deal's events as ``seat`` knows them: others' private cards left out, but the
    turned trump card kept where its holder discarded it (its position is public)."""
    turned = {e.get("card") for e in deal.events if e["type"] == "trump" and e.get("choice") == "turn"}
    out = []
    for ev in SeatView(deal, seat).events:
        ev = copy.deepcopy(ev)
        if ev["type"] == "go_in" and ev["seat"] != seat:
            kept = [c for c in deal.events[len(out)]["cards"] if c in turned]
            if kept:
                ev["cards"] = kept
        out.append(ev)
    return out


@functools.cache
def _positions(game: str, options: str, levels: tuple[str, ...], seed: int, deals: int) -> list[Any]:
    return list(_arena_positions(game, json.loads(options), list(levels), seed, deals))


def arena_positions(game: str, options: dict[str, Any], levels: list[str], seed: int, deals: int
                    ) -> list[tuple[dict[str, Any], dict[str, Any], Any, Decision]]:
    """:func:`_arena_positions`, computed once per case; copies, for tests to change."""
    return copy.deepcopy(_positions(game, json.dumps(options), tuple(levels), seed, deals))


def _arena_positions(game: str, options: dict[str, Any], levels: list[str], seed: int, deals: int
                    ) -> Iterator[tuple[dict[str, Any], dict[str, Any], Any, Decision]]:
    """Every decision of ``run_arena``'s deals: (request, arena record, full-information deal
    at that point, decision).  The arena is played again alongside with the same seeds, and
    must record the same events, so that each request is a cut of the arena's record."""
    spec = REGISTRY.get(game)
    resolved = spec.resolve_options(options)
    records = [r for r in run_arena(spec, resolved, deals, seed, levels) if r["type"] == "deal"]
    shuffler = random.Random(f"p2pcards-arena/{seed}/deck")
    players = [make_player(level, spec, seat_rng(seed, s)) for s, level in enumerate(levels)]
    match = spec.new_match(resolved, shuffler.randrange(spec.seats))
    for record in records:
        if match.finished:
            match = spec.new_match(resolved, shuffler.randrange(spec.seats))
        cards = list(spec.deck)
        shuffler.shuffle(cards)
        totals = list(match.totals)
        extra = {"sat_out": list(match.sat_out)} if hasattr(match, "sat_out") else {}
        deal = match.new_deal(cards)
        views = [SeatView(deal, s, totals) for s in range(spec.seats)]
        while True:
            step = deal.step()
            if type(step) is End:
                break
            if type(step) is not Decision:
                deal.complete()
                continue
            for seat in step.seats:
                k = len(deal.events)
                assert deal.events == record["events"][:k]
                hand = record["hands"][seat] if deal.hands_at_start is not None else deal.deck.hand_cards(seat)
                request = {"id": f"{game}/{record['deal']}/{k}/{seat}", "game": game, "options": options,
                           "seat": seat, "dealer": record["dealer"], "hand": hand,
                           "events": seat_events(deal, seat), "match_deal": record["match_deal"],
                           "match_totals": totals, **extra}
                yield request, record, copy.deepcopy(deal), step
            for seat in step.seats:
                deal.apply(seat, players[seat].choose(views[seat], step))
        match.record(deal)
        assert deal.events == record["events"], "the arena played differently"


def in_positions(deal: Any, decision: Decision, choice: Any) -> Any:
    """A protocol choice as deck positions of the full-information ``deal``."""
    cards = deal.deck.cards
    if decision.kind == PLAY:
        return (SWAP, cards.index(choice[1])) if isinstance(choice, list) else cards.index(choice)
    if decision.pick is not None:
        return None if choice is None else tuple(cards.index(c) for c in choice)
    return choice


def check_legal(deal: Any, seat: int, decision: Decision, choice: Any) -> None:
    """The answer is a legal choice of ``seat``: it is one of the legal ones, and the
    full-information deal takes it without a renúncia."""
    mine = in_positions(deal, decision, choice)
    legal = deal.legal(seat)
    if decision.pick is None:
        assert mine in legal, (choice, legal)
    elif mine is None:
        assert decision.may_decline
    else:
        lo, hi = decision.pick
        assert lo <= len(mine) <= hi and set(mine) <= set(legal) and len(set(mine)) == len(mine)
    before = deal.renuncia
    deal.apply(seat, mine)
    assert deal.renuncia == before


def run_engine(lines: list[bytes], timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "p2pcards", "engine"], input=b"".join(lines),
                          capture_output=True, timeout=timeout, cwd=ROOT)


def encode(request: Any) -> bytes:
    return json.dumps(request).encode() + b"\n"


# ---------------------------------------------------------------------- every game, every decision
@pytest.mark.parametrize("game", sorted({c[0] for c in CASES}))
def test_the_engine_answers_every_decision_of_arena_deals_legally(game):
    positions = [p for case in CASES if case[0] == game for p in arena_positions(*case)]
    kinds = {p[3].kind for p in positions}
    assert kinds >= {"sueca": {PLAY}, "bisca": {PLAY}, "copas": {PLAY, "pass"},
                     "sobe-e-desce": {PLAY, "trump", "go_in"}}[game]
    done = run_engine([encode(p[0]) for p in positions])
    assert done.returncode == 0, done.stderr.decode()
    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(answers) == len(positions)
    for (request, _record, deal, decision), got in zip(positions, answers):
        assert got.get("id") == request["id"] and "error" not in got, (request, got)
        assert got["kind"] == decision.kind
        check_legal(deal, request["seat"], decision, got["choice"])


@pytest.mark.parametrize("case", [CASES[2], CASES[4], CASES[5]], ids=lambda c: c[0])
def test_other_seats_cards_in_the_events_are_not_used(case):
    """Cut straight from the record, the events carry every seat's passes, draws and
    discards: the engine answers as it does with the seat's own knowledge only."""
    for request, record, _deal, _decision in arena_positions(*case):
        raw = dict(request, events=record["events"][: len(request["events"])])
        assert answer(raw, REGISTRY) == answer(request, REGISTRY)


def test_the_same_request_gets_the_same_answer_and_the_bot_and_seed_are_used():
    request, _record, deal, decision = next(p for p in arena_positions(*CASES[0]) if len(p[2].tricks) == 3)
    first = answer(dict(request, seed=7), REGISTRY)
    assert answer(dict(request, seed=7), REGISTRY) == first
    picks = {answer(dict(request, bot="random", seed=s), REGISTRY)["choice"] for s in range(30)}
    assert len(picks) > 1  # a random bot with different seeds
    for choice in picks:
        check_legal(copy.deepcopy(deal), request["seat"], decision, choice)


# ---------------------------------------------------------------------- impossible histories
def sueca_position() -> dict[str, Any]:
    """Seat 1 of a Sueca deal deciding in the third trick (as cut from an arena record)."""
    return next(p[0] for p in arena_positions(*CASES[0]) if p[0]["seat"] == 1 and len(p[2].tricks) == 2)


def error_of(request: dict[str, Any]) -> str:
    got = answer(request, REGISTRY)
    assert set(got) == {"id", "error"}, got
    return str(got["error"])


def test_a_card_played_twice_is_refused():
    request = sueca_position()
    events = request["events"]
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    first = events[plays[0]]["card"]
    for i in plays[4:6]:  # in the second trick, by another seat, then by the seat itself
        again = dict(request, events=events[:i] + [dict(events[i], card=first)] + events[i + 1:])
        assert error_of(again) == f"events[{i}]: seat {events[i]['seat']} cannot show {first}: it was played already"
    assert {events[i]["seat"] for i in plays[4:6]} == {1, 2}


def test_a_card_of_the_seat_played_by_another_is_refused():
    request = sueca_position()
    events = request["events"]
    played = {e["card"] for e in events if e["type"] == "play"}
    mine = next(c for c in request["hand"] if c not in played)
    i = next(i for i, e in enumerate(events) if e["type"] == "play" and e["seat"] != 1)
    events[i] = dict(events[i], card=mine)
    message = error_of(request)
    assert message == f"events[{i}]: seat {events[i]['seat']} cannot show {mine}: seat 1 holds it"


def test_out_of_turn_is_refused():
    request = sueca_position()
    events = request["events"]
    i = next(i for i, e in enumerate(events) if e["type"] == "play")
    events[i] = dict(events[i], seat=(events[i]["seat"] + 1) % 4)
    assert "out of turn" in error_of(request)


def test_a_play_the_seats_known_hand_does_not_allow_is_refused():
    # seat 1 leads the first trick; make seat 1 fail to follow the suit led later while it holds it
    for request, _record, deal, _decision in arena_positions(*CASES[0]):
        events, seat = request["events"], request["seat"]
        hand = set(request["hand"])
        for i, ev in enumerate(events):
            if ev["type"] != "play" or ev["seat"] != seat or i == 0 or events[i - 1]["type"] != "play":
                continue
            trick_start = i - len([e for e in events[max(1, i - 3):i] if e["type"] == "play"])
            led = events[trick_start]["card"][1]
            later = {e["card"] for e in events[i:] if e["type"] == "play"}
            off = [c for c in hand - later if c[1] != led and c != ev["card"]]
            if ev["card"][1] == led and off and trick_start < i and deal.tricks:
                bad = dict(request, events=events[:i] + [dict(ev, card=off[0])] + events[i + 1:])
                message = error_of(bad)
                if "may not play" in message:
                    assert f"seat {seat} may not play {off[0]}" in message
                    return
    pytest.fail("no position to try")


def test_events_after_the_deals_end_and_a_finished_deal_are_refused():
    record = next(r for r in run_arena(REGISTRY.get("sueca"), REGISTRY.get("sueca").resolve_options(), 1, 3,
                                       ["heuristic"] * 4))
    request = {"game": "sueca", "seat": 0, "dealer": record["dealer"], "hand": record["hands"][0],
               "events": record["events"]}
    assert error_of(request) == "the deal is over: there is nothing to decide"
    request["events"] = record["events"] + [{"type": "play", "seat": 0, "card": "AS"}]
    assert error_of(request) == f"events[{len(record['events'])}] comes after the deal's end"


def test_a_position_where_it_is_not_the_seats_turn_is_refused():
    request, record, _deal, decision = next(p for p in arena_positions(*CASES[0]) if p[0]["seat"] == 1
                                            and len(p[2].tricks) == 2)
    assert decision.seats == (1,)
    other = dict(request, seat=3, hand=record["hands"][3])
    assert error_of(other) == "it is not seat 3's turn to decide: seat 1 must play next"


def test_histories_that_stop_short_or_disagree_are_refused():
    request = next(p[0] for p in arena_positions(*CASES[2]) if p[0]["seat"] == 0 and len(p[0]["events"]) > 8)
    events = request["events"]
    last_draw = max(i for i, e in enumerate(events) if e["type"] == "draw")
    cut = dict(request, events=events[: last_draw])
    assert "the events stop too early" in error_of(cut)
    mine = request["hand"][0]  # the face-up trump card cannot be one of the seat's cards
    wrong = dict(request, events=[dict(events[0], card=mine)] + events[1:])
    assert error_of(wrong) == f"events[0]: {mine} cannot be there: seat 0 holds it"
    leader, other = events[1]["seat"], 1 - events[1]["seat"]
    wrong = dict(request, events=events[:1] + [dict(events[1], seat=other)] + events[2:])
    assert error_of(wrong) == f"events[1]: it is seat {leader}'s turn to play, not seat {other}'s (out of turn)"
    assert error_of(dict(request, tricks=[])).startswith("tricks does not match the events")
    record_tricks = next(p[1] for p in arena_positions(*CASES[2]) if p[0]["id"] == request["id"])["tricks"]
    done = sum(1 for e in events if e["type"] == "play") // 2
    assert "error" not in answer(dict(request, tricks=record_tricks[:done]), REGISTRY)


def test_the_turned_card_is_discarded_only_when_the_event_says_so():
    """Sobe e Desce: whether the chooser discarded the turned trump card is public; a
    history that leaves it out while the chooser later shows it cannot hold it is refused."""
    positions = [p for p in arena_positions(*CASES[5]) if p[1]["deal"] == 1 and p[3].kind == PLAY]
    request = positions[-1][0]
    named = [i for i, e in enumerate(request["events"]) if e["type"] == "go_in" and e.get("cards")
             and e["seat"] != request["seat"]]
    assert named, "the case should have the chooser discard the turned card"
    assert "error" not in answer(request, REGISTRY)
    events = [dict(e) for e in request["events"]]
    for i in named:
        del events[i]["cards"]
    assert "error" in answer(dict(request, events=events), REGISTRY)


@pytest.mark.parametrize(("change", "needle"), [
    ({"game": "whist"}, "unknown game 'whist'"),
    ({"game": 3}, "game must be"),
    ({"options": {"target": 9}}, "sueca: target must be 4 or 8"),
    ({"options": {"colour": "red"}}, "unknown option 'colour'"),
    ({"options": [1]}, "options must be"),
    ({"seat": "1"}, "seat must be a whole number"),
    ({"seat": 4}, "seat must be between 0 and 3"),
    ({"seat": True}, "seat must be a whole number"),
    ({"dealer": None}, "dealer must be a whole number"),
    ({"hand": "AS"}, "hand must be a list of cards"),
    ({"hand": ["ZZ"]}, "hand[0] must be a card"),
    ({"hand": ["AS", "AS"]}, "names a card twice"),
    ({"events": {}}, "events must be a list"),
    ({"events": [17]}, "events[0] must be an object"),
    ({"bot": "deep-blue"}, "unknown bot"),
    ({"think": 0}, "think must be between"),
    ({"iterations": "many"}, "iterations must be a whole number"),
    ({"seed": 1.5}, "seed must be a whole number"),
    ({"match_totals": [1]}, "match_totals must be a list of 2 whole numbers"),
    ({"sat_out": [0, 0, 0, 0]}, "sat_out is not a field of sueca"),
    ({"colour": 1}, "unknown field 'colour'"),
    ({"cmd": "dance"}, "unknown cmd"),
])
def test_malformed_requests_get_an_error_naming_the_problem(change, needle):
    request = dict(sueca_position(), **change)
    assert needle in error_of(request)


def test_hands_that_do_not_fit_are_refused():
    request = sueca_position()
    assert "seat 1 is dealt more" in error_of(dict(request, hand=request["hand"][:9]))
    extra = next(c for c in REGISTRY.get("sueca").deck if c not in request["hand"])
    assert "more than seat 1 is dealt" in error_of(dict(request, hand=[*request["hand"], extra]))


def test_lines_that_are_not_requests():
    assert answer_line(b"{", REGISTRY)["error"].startswith("the line is not JSON")
    assert answer_line(b"\xff\xfe", REGISTRY)["error"] == "the line is not UTF-8 text"
    assert answer_line(b"[1, 2]", REGISTRY)["error"] == "a request must be a JSON object"
    assert answer_line(b'{"id": NaN}', REGISTRY)["error"].startswith("the line is not JSON")
    assert answer_line(b"[" * 100_000, REGISTRY)["error"].startswith("the line is not JSON")
    for ident in (b"[1]", b"1e999", b"true"):
        assert answer_line(b'{"id": %s, "cmd": "bots"}' % ident, REGISTRY) == {
            "id": None, "error": "id must be a string, a number or null"}
    bots = answer_line(b'{"id": 5, "cmd": "bots"}', REGISTRY)["bots"]
    assert bots == ["random", "casual", "heuristic", "search"]  # weakest first


# ---------------------------------------------------------------------- the process
def test_the_process_answers_bad_lines_and_goes_on_until_end_of_input():
    good = sueca_position()
    lines = [
        b"not json\n",
        b"\n",
        b'{"id": "big", "game": "' + b"x" * (MAX_LINE + 10) + b'"}\n',
        b"\xff\n",
        encode({"id": "g", "cmd": "games"}),
        encode(dict(good, id="pos")),
        b"[" * 50_000 + b"\n",
        encode(dict(good, id="impossible", seat=3)),
        encode(dict(good, id="last")),  # no newline at the end of input
    ]
    lines[-1] = lines[-1].rstrip(b"\n")
    done = run_engine(lines)
    assert done.returncode == 0 and done.stderr == b""
    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert [a["id"] for a in answers] == [None, None, None, "g", "pos", None, "impossible", "last"]
    assert answers[1]["error"] == f"line longer than {MAX_LINE} bytes"
    assert {g["name"] for g in answers[3]["games"]} >= {"sueca", "bisca", "copas", "sobe-e-desce"}
    assert answers[4]["kind"] == "play" and answers[4]["choice"] in good["hand"]
    assert "error" in answers[6] and answers[7] == dict(answers[4], id="last")


def test_quit_ends_the_process_and_empty_input_is_fine():
    done = run_engine([encode({"id": 1, "cmd": "quit"}), encode({"id": 2, "cmd": "bots"})])
    assert done.returncode == 0
    assert [json.loads(line) for line in done.stdout.decode().splitlines()] == [{"id": 1, "quit": True}]
    done = run_engine([])
    assert done.returncode == 0 and done.stdout == b""


def test_engine_help_says_the_protocol_counts_from_0():
    done = subprocess.run([sys.executable, "-m", "p2pcards", "engine", "--help"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    text = " ".join(done.stdout.split())
    assert "protocol/ENGINE.md" in text and "the protocol counts seats, deals and matches from 0" in text


# ---------------------------------------------------------------------- the documented examples
def documented_examples() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(request, answer) pairs of protocol/ENGINE.md's examples: each JSON block with
    "events" followed by the block of its answer."""
    text = (ROOT / "protocol" / "ENGINE.md").read_text(encoding="utf-8")
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.S)]
    return [(a, b) for a, b in zip(blocks, blocks[1:]) if isinstance(a, dict) and "events" in a]


def test_every_example_of_engine_md_gets_a_legal_answer_of_the_documented_shape():
    examples = documented_examples()
    assert {req["game"] for req, _ in examples} >= {"sueca", "bisca", "copas", "sobe-e-desce"}
    for request, documented in examples:
        got = answer(request, REGISTRY)
        assert "error" not in got, (request["game"], got)
        assert set(got) == set(documented) and got["kind"] == documented["kind"] and got["id"] == documented["id"]
        assert type(got["choice"]) is type(documented["choice"])
        pos = replay(request, REGISTRY)
        cards = pos.deal.deck.cards
        choice = got["choice"]
        if got["kind"] == PLAY:
            mine = (SWAP, cards.index(choice[1])) if isinstance(choice, list) else cards.index(choice)
        elif isinstance(choice, list):
            mine = tuple(cards.index(c) for c in choice)
        else:
            mine = choice
        assert is_legal(pos, mine)


def same(got: dict[str, Any]) -> dict[str, Any]:
    """An answer with the cards of a pass or an exchange in a set order (their order is free)."""
    choice = got.get("choice")
    return dict(got, choice=sorted(choice)) if got.get("kind") != PLAY and isinstance(choice, list) else got


@pytest.mark.parametrize("case", [CASES[0], CASES[1], CASES[5]], ids=["last", "first", "turned"])
def test_the_order_of_the_hand_does_not_matter(case):
    """The dealer's shown trump card, or the chooser's turned card, may come anywhere in
    ``hand``: the seat's own unshown cards are alike to the others."""
    tried = 0
    for request, _record, _deal, _decision in arena_positions(*case):
        shown = {e.get("card") for e in request["events"] if e["type"] == "trump"}
        if not shown & set(request["hand"]):
            continue
        tried += 1
        for order in (request["hand"][::-1], sorted(request["hand"])):
            assert same(answer(dict(request, hand=order), REGISTRY)) == same(answer(request, REGISTRY))
    assert tried


@pytest.mark.parametrize("game", sorted({c[0] for c in CASES}))
def test_the_search_bot_answers_through_the_engine_legally_and_reproducibly(game):
    """The strongest bot through the protocol: every answer legal, and with an iteration
    budget the same request gets the same answer (outside referees replay our bots)."""
    positions = [p for case in CASES if case[0] == game for p in arena_positions(*case)][::7][:6]
    for request, _record, deal, decision in positions:
        asked = dict(request, bot="search", iterations=6, seed=3)
        got = answer(asked, REGISTRY)
        assert "error" not in got, got
        assert answer(asked, REGISTRY) == got
        check_legal(copy.deepcopy(deal), request["seat"], decision, got["choice"])
        # its effort said: worlds weighed (up to the budget, three times it in Bisca while its inference
        # holds; 0 for a single legal choice), no fallback
        most = 6 * simulator_for(REGISTRY.get(game)).inference.worlds
        assert isinstance(got["worlds"], int) and 0 <= got["worlds"] <= most and "fallback" not in got, got
        assert "worlds" not in answer(dict(request, bot="heuristic"), REGISTRY)
        assert "capped" not in got  # no time given: the worlds, whatever the clock


def test_a_think_time_that_stops_the_search_s_worlds_short_is_said_in_the_answer():
    """With ``iterations``, ``think`` caps the decision; stopped short, the answer says so."""
    said = 0
    for request, _record, _deal, _decision in [p for case in CASES if case[0] == "sueca"
                                                for p in arena_positions(*case)][::7][:6]:
        got = answer(dict(request, bot="search", iterations=1_000_000, think=5, seed=3), REGISTRY)
        assert "error" not in got, got
        if got["worlds"]:  # searched (not a single legal card): stopped far short of a million
            assert got["capped"] is True and got["worlds"] < 1_000_000, got
            said += 1
    assert said


def test_a_casual_bot_s_slips_are_said_in_the_answer_and_replayed_by_its_seed():
    """The casual level takes its second-best card in about half the plays it searches;
    the answer says so (``"slip": true``), the same request gets the same answer, and the
    search level never slips."""
    positions = [p for case in CASES if case[0] == "sueca" for p in arena_positions(*case)][::3][:16]
    slips = searched = 0
    for request, _record, _deal, _decision in positions:
        asked = dict(request, bot="casual", iterations=4, seed=5)
        got = answer(asked, REGISTRY)
        assert "error" not in got and answer(asked, REGISTRY) == got, got
        assert got.get("slip", True) is True  # said only when it slipped
        if got["worlds"]:
            searched += 1
            slips += "slip" in got
        assert "slip" not in answer(dict(request, bot="search", iterations=4, seed=5), REGISTRY)
    assert searched >= 6 and 0 < slips < searched
