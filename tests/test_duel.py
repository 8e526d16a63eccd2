"""Duplicate matches (``p2pcards duel``): the statistics, the seating, the measures,
the same outcomes on any number of processes, the command's JSON, errors and Ctrl-C."""

from __future__ import annotations

import json
import math
import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from p2pcards.core import load_games
from p2pcards.players import RandomPlayer
from p2pcards.tools import duel as duel_module
from p2pcards.tools.duel import PairResult, percentile, play_pair, run_duel, summarize, wilson_interval
from tests.procs import ctrl_c_works

GAMES = ["sueca", "bisca", "copas", "sobe-e-desce"]
REGISTRY = load_games()


def spec_of(game: str):
    return REGISTRY.get(game)


def by_hand(successes: float, n: int, z: float) -> tuple[float, float]:
    """The Wilson score interval written out from its formula."""
    p = successes / n
    denominator = 1 + z**2 / n
    centre = (p + z**2 / (2 * n)) / denominator
    margin = z * math.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denominator
    return centre - margin, centre + margin


# ---------------------------------------------------------------------- statistics
@pytest.mark.parametrize(("successes", "n"), [(8, 10), (20, 40), (37.5, 40), (0, 5), (20, 20), (1, 1)])
def test_wilson_interval_is_the_formula(successes, n):
    z = 1.959963984540054
    low, high = wilson_interval(successes / n, n)
    want_low, want_high = by_hand(successes, n, z)
    assert low == pytest.approx(max(0.0, want_low), abs=1e-12)
    assert high == pytest.approx(min(1.0, want_high), abs=1e-12)
    assert low <= successes / n <= high


def test_wilson_interval_known_values():
    # 8 of 10 with z = 1.96: 0.4902 to 0.9433 (worked out by hand from the formula)
    low, high = wilson_interval(0.8, 10, z=1.96)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    # none of 10: the interval starts at 0 and is not empty, unlike the normal one
    low, high = wilson_interval(0.0, 10, z=1.96)
    assert low == 0.0 and round(high, 4) == 0.2775
    with pytest.raises(ValueError):
        wilson_interval(0.5, 0)


def test_percentiles_interpolate_between_ranks():
    values = [float(v) for v in range(100, 0, -1)]  # 100 .. 1, unsorted on purpose
    assert percentile(values, 50) == pytest.approx(50.5)
    assert percentile(values, 99) == pytest.approx(99.01)
    assert percentile(values, 0) == 1.0 and percentile(values, 100) == 100.0
    assert percentile([3.0], 99) == 3.0 and percentile([], 50) == 0.0


def test_ties_count_half_and_are_reported():
    spec = spec_of("sueca")
    outcomes = [1.0, 0.5, 0.0, 1.0, 0.5]
    results = [PairResult(i, 0, [], [], [], [60.0, 60.0], [60.0, 60.0], o) for i, o in enumerate(outcomes)]
    report = summarize(spec, results, {"a": [1.0, 2.0, 3.0], "b": []})
    assert (report["wins"], report["ties"], report["losses"]) == (2, 2, 1)
    assert report["win_rate"] == pytest.approx(3 / 5)
    want = by_hand(3, 5, 1.959963984540054)
    assert report["interval"] == pytest.approx(list(want), abs=1e-6)
    assert report["ms_per_decision"]["a"] == {"mean": 2.0, "p50": 2.0, "p99": 2.98, "decisions": 3}
    assert report["ms_per_decision"]["b"]["decisions"] == 0


# ---------------------------------------------------------------------- seating
@pytest.mark.parametrize("game", GAMES)
def test_each_hand_is_played_by_both_players_with_the_same_cards(game):
    spec = spec_of(game)
    options = spec.resolve_options()
    pair = play_pair(spec, options, "heuristic", "random", seed=5, pair=3)
    plays = 2 if game in ("sueca", "bisca") else 4
    assert len(pair.seats) == len(pair.hands) == len(pair.a) == plays
    # the same deal every time: the same cards to the same seats
    assert all(hands == pair.hands[0] for hands in pair.hands)
    assert len({tuple(map(tuple, hands)) for hands in pair.hands}) == 1
    for seat in range(spec.seats):
        holders = [sides[seat] for sides in pair.seats]
        assert holders.count("a") == 1, (seat, holders)  # A holds every hand exactly once
        assert "b" in holders  # ... and so does B
    if game == "sueca":
        assert pair.seats == [["a", "b", "a", "b"], ["b", "a", "b", "a"]]
    # A's value is its seats' measure, B's the mean of the others'
    for sides, values, a, b in zip(pair.seats, pair.values, pair.a, pair.b):
        a_vals = [v for v, s in zip(values, sides) if s == "a"]
        b_vals = [v for v, s in zip(values, sides) if s == "b"]
        assert a == sum(a_vals) / len(a_vals) and b == pytest.approx(sum(b_vals) / len(b_vals))
    # the next pair is another deal
    other = play_pair(spec, options, "heuristic", "random", seed=5, pair=4)
    assert other.hands[0] != pair.hands[0]


@pytest.mark.parametrize("game", GAMES)
def test_identical_players_tie_every_pair(game, monkeypatch):
    """With the same deterministic player everywhere, every play of a pair is the same game:
    A's and B's averages are equal only if A really sat in every hand's seat once."""
    monkeypatch.setattr(duel_module, "make_player", lambda level, spec, rng, **kw: RandomPlayer(random.Random(11)))
    spec = spec_of(game)
    report = run_duel(spec, spec.resolve_options(), "random", "heuristic", 12, seed=2)
    assert report["ties"] == 12, report["results"]
    assert report["mean"]["a"] == pytest.approx(report["mean"]["b"])
    assert report["win_rate"] == 0.5


# ---------------------------------------------------------------------- behaviour
def test_heuristic_beats_random_clearly_at_sueca():
    spec = spec_of("sueca")
    report = run_duel(spec, spec.resolve_options(), "heuristic", "random", 40, seed=1)
    assert report["win_rate"] >= 0.8 and report["interval"][0] > 0.6, report
    assert report["mean"]["a"] > 60 > report["mean"]["b"]
    assert report["mean"]["a"] + report["mean"]["b"] == pytest.approx(120)
    assert all(sum(r["a"]) / 2 > 60 for r in report["results"] if r["outcome"] == 1)
    # the other way round, the same deals: B (heuristic) wins them
    swapped = run_duel(spec, spec.resolve_options(), "random", "heuristic", 40, seed=1)
    assert swapped["win_rate"] <= 0.2 and swapped["interval"][1] < 0.4, swapped
    assert swapped["ms_per_decision"]["b"]["decisions"] == 40 * 2 * 20


@pytest.mark.parametrize("game", ["copas", "sobe-e-desce", "bisca"])
def test_heuristic_beats_random_where_lower_or_higher_is_better(game):
    spec = spec_of(game)
    report = run_duel(spec, spec.resolve_options(), "heuristic", "random", 20, seed=4)
    assert report["win_rate"] >= 0.75, report
    if report["measure"]["better"] == "lower":
        assert report["mean"]["a"] < report["mean"]["b"]
    else:
        assert report["mean"]["a"] > report["mean"]["b"]


# ---------------------------------------------------------------------- the command
@pytest.mark.parametrize("game", ["sueca", "copas"])
def test_jobs_do_not_change_the_outcomes(cli, game):
    args = ["duel", game, "--a", "heuristic", "--b", "random", "--pairs", "9", "--seed", "6", "--json"]
    code, one = cli(*args, "--jobs", "1")
    assert code == 0
    code, two = cli(*args, "--jobs", "2")
    assert code == 0
    one_report, two_report = json.loads(one), json.loads(two)
    assert one_report["jobs"] == 1 and two_report["jobs"] == 2
    assert one_report["results"] == two_report["results"]
    assert [r["pair"] for r in two_report["results"]] == list(range(9))
    for key in ("wins", "ties", "losses", "win_rate", "interval", "mean"):
        assert one_report[key] == two_report[key]


def test_json_shape(cli):
    code, out = cli("duel", "sueca", "--a", "heuristic", "--b", "random", "--pairs", "5", "--seed", "3",
                    "--jobs", "1", "--json", "-o", "target=8")
    assert code == 0
    report = json.loads(out)
    assert {"game", "options", "a", "b", "seed", "think_ms", "iterations", "jobs", "pairs", "plays_per_pair",
            "seating", "measure", "wins", "ties", "losses", "win_rate", "interval", "mean", "ms_per_decision",
            "worlds_per_decision", "fallbacks", "seconds", "results"} <= set(report)
    assert report["options"]["target"] == 8 and report["seed"] == 3 and report["think_ms"] is None
    assert report["seating"] == [[0, 2], [1, 3]]  # 0-based in JSON
    assert report["measure"] == {"name": "card points", "better": "higher"}
    assert report["wins"] + report["ties"] + report["losses"] == report["pairs"] == len(report["results"]) == 5
    low, high = report["interval"]
    assert 0 <= low <= report["win_rate"] <= high <= 1
    for side in ("a", "b"):
        t = report["ms_per_decision"][side]
        assert set(t) == {"mean", "p50", "p99", "decisions"} and t["decisions"] == 5 * 2 * 20
        assert 0 <= t["p50"] <= t["p99"]
    for r in report["results"]:
        assert set(r) == {"pair", "dealer", "a", "b", "outcome"}
        assert 0 <= r["dealer"] < 4 and len(r["a"]) == len(r["b"]) == 2 and r["outcome"] in (0, 0.5, 1)


def test_a_search_s_worlds_and_fallbacks_are_reported_per_side(cli):
    """duel says how many worlds each side's search weighed per decision it searched, and
    how often it played the heuristic's choice instead (never silently); a side that
    searches nothing has no worlds (null)."""
    code, out = cli("duel", "sueca", "--a", "search", "--b", "heuristic", "--pairs", "1", "--iterations", "12",
                    "--jobs", "1", "--json")
    assert code == 0
    report = json.loads(out)
    worlds = report["worlds_per_decision"]
    assert worlds["b"] is None and report["fallbacks"] == {"a": {}, "b": {}}
    assert report["capped"] == {"a": 0, "b": 0}  # no time cap: nothing stopped short
    a = worlds["a"]
    assert set(a) == {"mean", "min", "max", "decisions"} and 1 <= a["min"] <= a["mean"] <= a["max"] <= 12
    assert 0 < a["decisions"] < report["ms_per_decision"]["a"]["decisions"]  # a single legal card is not searched
    code, text = cli("duel", "sueca", "--a", "search", "--b", "heuristic", "--pairs", "1", "--iterations", "12",
                     "--jobs", "1")
    assert f"A's search weighed {a['mean']:.1f} worlds per decision (from {a['min']} to {a['max']}" in text
    assert "B's search" not in text and "instead of a search's" not in text and "time cap" not in text


def test_a_time_cap_that_stops_searches_short_is_counted_per_side(cli):
    """With --iterations, --think caps each decision: a cap far too short for the worlds
    stops the searches, and duel counts them for the side that searches."""
    code, out = cli("duel", "sueca", "--a", "search", "--b", "heuristic", "--pairs", "1", "--iterations", "100000",
                    "--think", "5", "--jobs", "1", "--json")
    assert code == 0
    report = json.loads(out)
    assert report["capped"]["b"] == 0 and report["capped"]["a"] > 0
    assert report["worlds_per_decision"]["a"]["max"] < 100000
    code, text = cli("duel", "sueca", "--a", "search", "--b", "heuristic", "--pairs", "1", "--iterations", "100000",
                     "--think", "5", "--jobs", "1")
    assert re.search(r"A's time cap stopped [1-9][0-9]* decisions before their worlds", text)


def test_the_casual_level_s_slips_are_counted_per_side(cli):
    """A duel of the casual level counts the plays where it took its second-best card
    (about half of those it searched); the search level never slips."""
    code, out = cli("duel", "sueca", "--a", "casual", "--b", "search", "--pairs", "1", "--iterations", "4",
                    "--jobs", "1", "--json")
    assert code == 0
    report = json.loads(out)
    searched = report["worlds_per_decision"]["a"]["decisions"]
    assert report["slips"]["b"] == 0 and 0.2 * searched <= report["slips"]["a"] <= 0.8 * searched
    code, text = cli("duel", "sueca", "--a", "casual", "--b", "search", "--pairs", "1", "--iterations", "4",
                     "--jobs", "1")
    assert f"A slipped at {report['slips']['a']} plays (took its second-best card)" in text
    assert "B slipped" not in text


def test_a_search_that_fails_is_counted_as_a_fallback_in_the_duel(monkeypatch):
    from p2pcards.players.search import SearchPlayer

    def broken(self, *args, **kwargs):
        raise RuntimeError("a bug in the search")

    monkeypatch.setattr(SearchPlayer, "_search", broken)
    spec = REGISTRY.get("bisca")
    report = run_duel(spec, spec.resolve_options(), "search", "heuristic", 1, seed=1, iterations=5)
    fell = report["fallbacks"]
    assert isinstance(fell, dict) and fell["b"] == {} and set(fell["a"]) == {"failed"} and fell["a"]["failed"] > 0
    assert report["worlds_per_decision"] == {"a": None, "b": None}


def test_human_output_counts_seats_from_1(cli):
    code, out = cli("duel", "copas", "--a", "heuristic", "--b", "random", "--pairs", "3", "--jobs", "1")
    assert code == 0
    assert "copas: A heuristic against B random, 3 pairs (12 deals), seed 0" in out
    assert "A in seat 1, then 2, then 3, then 4; B in the other seats" in out
    assert "penalty points per deal (lower is better)" in out and "95 % interval" in out
    assert "A heuristic" in out and "B random" in out and "total " in out
    code, out = cli("duel", "sueca", "--a", "random", "--b", "random", "--pairs", "1", "--jobs", "1")
    assert "A in seats 1 and 3, then 2 and 4" in out and "1 pair (2 deals)" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["chess", "--a", "random", "--b", "random"], "unknown game 'chess'"),
        (["sueca", "--a", "genius", "--b", "random"], "--a: unknown player 'genius'"),
        (["sueca", "--a", "random", "--b", "genius"], "--b: unknown player 'genius'"),
        (["sueca", "--a", "random", "--b", "random", "--pairs", "0"], "--pairs must be at least 1"),
        (["sueca", "--a", "random", "--b", "random", "--think", "0"], "--think must be a positive"),
        (["sueca", "--a", "random", "--b", "random", "--think", "-5"], "--think must be a positive"),
        (["sueca", "--a", "random", "--b", "random", "--jobs", "0"], "--jobs must be at least 1"),
        (["sueca", "--a", "random", "--b", "random", "--iterations", "0"], "--iterations must be at least 1"),
        (["sueca", "--a", "random", "--b", "random", "-o", "target=9"], "sueca: target must be 4 or 8"),
        (["sueca", "--a", "random", "--b", "random", "--pairs", "many"], "invalid int value"),
        (["sueca", "--b", "random"], "the following arguments are required: --a"),
        (["sueca", "--a", "heuristic@5", "--b", "random"], "--a: heuristic does not search: it takes no worlds"),
        (["sueca", "--a", "random", "--b", "search@0"], "--b: 'search@0': the worlds after @ must be a whole number"),
        (["sueca", "--a", "search@x", "--b", "random"], "--a: 'search@x': the worlds after @ must be a whole number"),
        (["sueca", "--a", "nobody@5", "--b", "random"], "--a: unknown player 'nobody'"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(cli, capsys, args, message):
    with pytest.raises(SystemExit) as exc:
        cli("duel", *args)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_help_documents_the_json_and_its_numbering(capsys):
    from p2pcards.cli import main

    with pytest.raises(SystemExit):
        main(["duel", "--help"])
    text = capsys.readouterr().out
    assert "JSON output (--json)" in text and "counts seats" in text and "Wilson" in text
    assert "Copas" in text and "Sobe e Desce" in text


# ---------------------------------------------------------------------- Ctrl-C
def _descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (Linux /proc)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat.rsplit(")", 1)[1].split()
            if fields[0] != "Z":
                parents[int(entry.name)] = int(fields[1])
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _start_duel() -> tuple[subprocess.Popen[str], set[int]]:
    """``p2pcards duel`` with two workers, in a process group of its own, SIGINT at its
    default whatever the suite was started with; returns it once its workers run."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "p2pcards", "duel", "sueca", "--a", "heuristic", "--b", "heuristic",
         "--pairs", "1000000", "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, preexec_fn=ctrl_c_works,
    )
    deadline = time.monotonic() + 60
    workers: set[int] = set()
    # two workers, the forkserver they are forked from and the resource tracker
    while time.monotonic() < deadline and len(workers) < 4 and proc.poll() is None:
        time.sleep(0.2)
        workers = _descendants(proc.pid)
    return proc, workers


def _kill_group(proc: subprocess.Popen[str]) -> None:
    """Whatever is left of the duel's process group, killed (its pipes close with it)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()


def _until_gone(pids: set[int], timeout: float = 15.0) -> set[int]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.1)
    return {p for p in pids if _alive(p)}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_ctrl_c_stops_the_workers_and_exits_130():
    proc, workers = _start_duel()
    try:
        assert len(workers) >= 4, "the workers did not start"
        time.sleep(1.5)  # let them play
        os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C on a terminal does: the whole group
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            _kill_group(proc)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    assert not _until_gone(workers)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_a_killed_duel_takes_its_workers_with_it():
    """``kill -9`` gives the command no chance to clean up: its workers still end, because
    each asked to die with the process it was forked from (p2pcards.lifeline)."""
    proc, workers = _start_duel()
    try:
        assert len(workers) >= 4, "the workers did not start"
        os.kill(proc.pid, signal.SIGKILL)  # the command alone, not its group
        proc.wait(30)
        left = _until_gone(workers)
        assert not left, f"processes of the duel still run after it was killed: {sorted(left)}"
    finally:
        _kill_group(proc)


# ---------------------------------------------------------------------- a plugin's own measure
def test_a_plugin_game_is_measured_by_its_own_deal_value_and_one_without_is_refused():
    """The measure comes from the game's plugin (Match.deal_value), not from a list of games
    in the core: the highcard test plugin counts tricks; a game that gives no value is refused."""
    import dataclasses

    from p2pcards.core import Match
    from p2pcards.tools.duel import measure_for
    from tests.plugin_highcard.p2pcards_highcard import SPEC as HIGHCARD

    measure = measure_for(HIGHCARD)
    assert measure.name == "tricks" and not measure.lower_is_better
    assert measure.values({"tricks": [2, 1], "renuncia": None}) == [2.0, 1.0]
    report = run_duel(HIGHCARD, HIGHCARD.resolve_options(), "heuristic", "random", 6, seed=3)
    assert report["pairs"] == 6 and all(r["a"] and r["b"] for r in report["results"])
    assert all(sum(x) == 3 for r in report["results"] for x in zip(r["a"], r["b"]))  # 3 tricks a deal
    mute = type("MuteMatch", (HIGHCARD.match_class,), {"deal_value": Match.__dict__["deal_value"]})
    with pytest.raises(ValueError, match="gives no deal value"):
        measure_for(dataclasses.replace(HIGHCARD, name="mute", match_class=mute))


def test_a_side_may_name_its_own_worlds(cli):
    """LEVEL@N plays a searching level at N worlds a decision, whatever --iterations says
    for the other side."""
    code, out = cli("duel", "sueca", "--a", "search@3", "--b", "casual", "--pairs", "1", "--iterations", "5",
                    "--jobs", "1", "--json")
    assert code == 0
    report = json.loads(out)
    worlds = report["worlds_per_decision"]
    assert report["a"] == "search@3" and (worlds["a"]["min"], worlds["a"]["max"]) == (3, 3)
    assert (worlds["b"]["min"], worlds["b"]["max"]) == (5, 5)  # the bad ones: test_bad_input_exits_2...
