"""Hints without a screen (p2pcards/players/hints.py): the genesis field that forbids them,
the search's scores and the one-line reasons, whether the rest of a deal is forced, and
the hints kept in the history database."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from p2pcards.core import PLAY, DealState, Decision, End, GameSpec, SeatView, load_games, trick_winner
from p2pcards.history.db import History, SeatFacts, TableFacts, db_path, rebuild
from p2pcards.history.stats import run_history
from p2pcards.identity import Identity
from p2pcards.net import make_table
from p2pcards.players import make_player
from p2pcards.players.hints import Hint, _deck_orders, explain, frozen_view, rest_is_forced, suggest, suggestion_code
from p2pcards.players.sampling import WorldSampler
from p2pcards.players.search import SearchPlayer
from p2pcards.table.transcript import Genesis, SeatInfo, TranscriptError, make_genesis, parse_message
from p2pcards.words import Text

GAMES = load_games()
SUECA = GAMES.get("sueca")


# ---------------------------------------------------------------------- the genesis
IDS = [Identity.generate(f"p{s}") for s in range(4)]


def _genesis(**extra: Any) -> tuple[Identity, Genesis]:
    ids = IDS
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, None, None) for i in ids]
    raw = make_table(ids[0], SUECA, infos, nonce=bytes(16), **extra)
    return ids[0], Genesis.from_body(parse_message(raw, None).body)


def test_a_genesis_that_forbids_hints_round_trips_and_is_another_table():
    host, allowed = _genesis()
    _, forbidden = _genesis(hints=False)
    assert allowed.hints and "hints" not in allowed.body()  # every table before the field: the same bytes
    assert not forbidden.hints and forbidden.body()["hints"] is False
    assert forbidden.table_id != allowed.table_id
    again = Genesis.from_body(parse_message(make_genesis(host, forbidden), None).body)
    assert again == forbidden and again.table_id == forbidden.table_id


@pytest.mark.parametrize("bad", [1, 0, "yes", True, None, "false"])
def test_a_genesis_with_a_bad_hints_value_is_malformed(bad):
    _, genesis = _genesis()
    body = {**genesis.body(), "hints": bad}
    with pytest.raises(TranscriptError, match="malformed genesis"):
        Genesis.from_body(body)
    with pytest.raises(TranscriptError, match="malformed genesis"):
        Genesis.from_body({**genesis.body(), "hint": False})


# ---------------------------------------------------------------------- positions
def positions(spec: GameSpec, seed: int, keep: Callable[[SeatView], bool], options: dict[str, Any] | None = None
              ) -> list[tuple[DealState, SeatView]]:
    """The decisions of a deal played by the heuristic players whose view ``keep`` takes:
    (a copy of the full deal there, the seat's view of it)."""

    match = spec.new_match(options or {}, seed % spec.seats)
    cards = list(spec.deck)
    random.Random(seed).shuffle(cards)
    deal = match.new_deal(cards)
    players = [make_player("heuristic", spec, random.Random(s)) for s in range(spec.seats)]
    out = []
    while True:
        step = deal.step()
        if type(step) is End:
            return out
        if type(step) is Decision:
            for seat in deal.undecided():
                view = SeatView(deal, seat)
                if keep(view):
                    copy = deal.copy()
                    out.append((copy, SeatView(copy, seat)))
                deal.apply(seat, players[seat].choose(view, step))
        else:
            deal.complete()


def two_left(view: SeatView) -> bool:
    """The second-last trick of a Sueca deal (two cards in the seat's hand)."""
    return len(view.hand) == 2


def test_last_to_play_with_one_card_to_follow_the_rest_is_forced():
    """Hand-made by the rules: last to play in the second-last trick, with one card of the
    suit led: that card, then everyone's last card -- whatever the others hold."""
    found = 0
    for seed in range(12):
        for _, view in positions(SUECA, seed, two_left):
            if len(view.trick) == 3 and len(view.legal) == 1:
                assert rest_is_forced(SUECA, view)
                found += 1
    assert found >= 2


def test_a_real_choice_left_means_no_offer():
    """Two cards that may be played, now or by a seat still to play (in some world)."""
    mine = later = 0
    for seed in range(12):
        for _, view in positions(SUECA, seed, two_left):
            if len(view.legal) == 2:
                assert not rest_is_forced(SUECA, view)
                mine += 1
            elif len(view.trick) < 3:  # one card to follow, but a seat after may hold two of the suit, or none
                assert not rest_is_forced(SUECA, view)
                later += 1
    assert mine >= 5 and later >= 1


def test_the_forced_test_gives_up_past_its_limit_and_never_reads_the_hidden_cards():
    for seed in range(12):
        for deal, view in positions(SUECA, seed, two_left):
            ways = sum(1 for _ in _deck_orders(WorldSampler(SUECA, view)))
            if len(view.trick) == 3 and len(view.legal) == 1 and ways > 1:
                assert rest_is_forced(SUECA, view, limit=ways)
                assert not rest_is_forced(SUECA, view, limit=ways - 1)  # one way too many: given up
                # the same view over a deck that knows nothing else gives the same answer
                hidden = [p for s in range(4) if s != view.seat for p in deal.deck.hands[s]]
                for p in hidden:
                    deal.deck.cards[p] = None  # type: ignore[call-overload]
                assert rest_is_forced(SUECA, SeatView(deal, view.seat))
                return
    pytest.fail("no position found")


# ---------------------------------------------------------------------- suggestions and reasons
def test_the_search_exposes_its_scores_and_the_best_is_chosen():
    deal, view = positions(SUECA, 5, lambda v: len(v.hand) == 6 and len(v.legal) > 1)[0]
    player = SearchPlayer(SUECA, random.Random(1), iterations=30)
    choice = player.choose(view, view.decision)  # type: ignore[arg-type]
    scores = dict(player.last_scores)
    assert set(scores) == set(view.legal) and choice == max(view.legal, key=lambda c: scores[c])
    one = positions(SUECA, 5, lambda v: len(v.legal) == 1)[0][1]
    player.choose(one, one.decision)  # type: ignore[arg-type]
    assert player.last_scores == []


def _facts_hold(spec: GameSpec, view: SeatView, card: str, reason: str, fields: dict[str, Any]) -> None:
    """The reason's fact is true of the view."""
    rules = spec.new_match(view.options, view.dealer).new_deal()
    strength = rules.strength  # type: ignore[attr-defined]
    out = [c for c in spec.deck if c not in view.hand_cards and c not in view.played]
    cards = [c for _, c in view.trick]
    team = next(t for t in spec.teams if view.seat in t)
    if reason in ("top", "top_risk", "top_trump"):
        assert not cards and not [c for c in out if c[1] == card[1] and strength[c[0]] > strength[card[0]]]
        assert (reason == "top_trump") == (card[1] == view.trump)
        assert (reason == "top_risk") == any(c[1] == view.trump for c in out) or reason == "top_trump"
    elif reason in ("partner", "partner_points"):
        winner = view.trick[trick_winner(cards, view.trump, strength)][0]
        assert winner in team and winner != view.seat
    elif reason in ("wins", "wins_last", "trump_in"):
        assert trick_winner([*cards, card], view.trump, strength) == len(cards)
        assert (reason == "trump_in") == (card[1] == view.trump != cards[0][1])
    elif reason == "cheapest":
        hand = dict(view.hand)
        assert not any(trick_winner([*cards, hand[p]], view.trump, strength) == len(cards) for p in view.legal)
    elif reason == "lead_cheap":
        assert not cards and rules.points.get(card[0], 0) == 0  # type: ignore[attr-defined]


def test_every_reason_is_true_and_reads_in_both_languages():
    seen: set[str] = set()
    texts = [Text("en"), Text("pt")]
    for seed in range(4):
        for _, view in positions(SUECA, seed, lambda v: v.decision is not None and v.decision.kind == PLAY):
            hand = dict(view.hand)
            for choice in view.legal:
                reason, fields = explain(SUECA, view, view.decision, choice, [(choice, 3.0), (-1, 1.0)], 9)  # type: ignore[arg-type]
                seen.add(reason)
                _facts_hold(SUECA, view, hand[choice], reason, fields)
                for t in texts:
                    assert f"hint_why_{reason}" in t
                    t(f"hint_why_{reason}", **{k: (t.suit(v) if k == "suit" else v) for k, v in fields.items()})
    assert {"only", "top_risk", "partner", "partner_points", "wins", "trump_in", "cheapest", "value"} <= seen, seen


def test_suggest_reads_only_the_view_and_gives_a_legal_choice_with_a_reason():
    for game in ("sueca", "bisca", "copas", "sobe-e-desce"):
        spec = GAMES.get(game)
        views = positions(spec, 2, lambda v: v.decision is not None and len(v.legal) > 1)
        for _, view in views[:: max(len(views) // 3, 1)][:3]:
            hint = suggest(spec, frozen_view(view), view.decision, rng=random.Random(1), think_ms=60)  # type: ignore[arg-type]
            assert isinstance(hint, Hint)
            if view.decision.pick is None:  # type: ignore[union-attr]
                assert hint.choice in view.legal
            assert f"hint_why_{hint.reason}" in Text("en") and hint.code == suggestion_code(view, hint.choice)


# ---------------------------------------------------------------------- the history
def _facts(n: int) -> TableFacts:
    seats = tuple(SeatFacts(s, s % 2, f"p{s}", f"fp{s}", "person" if s == 0 else "bot", None, None) for s in range(4))
    return TableFacts(f"{n:064x}", SUECA, {}, 1000 + n, None, seats)


def test_hints_are_recorded_counted_per_seat_and_kept_by_a_rebuild(tmp_path):
    with History(db_path(tmp_path)) as history:
        history.record_hint(_facts(1), 0, 0, 2, "7H")
        history.record_hint(_facts(1), 0, 0, 2, "7H", True)  # the person followed it
        history.record_hint(_facts(1), 1, 0, 0, "AS", False)
        history.record_hint(_facts(1), 1, 2, 0, "2C")
        assert history.rows("hints") == [(f"{1:064x}", 0, 0, 2, "7H", 1), (f"{1:064x}", 1, 0, 0, "AS", 0),
                                         (f"{1:064x}", 1, 2, 0, "2C", None)]
        assert history.matches()[0]["hints"] == [2, 0, 1, 0]
    out = io.StringIO()
    assert run_history(tmp_path, None, None, True, False, out, GAMES) == 0
    assert json.loads(out.getvalue())["matches"][0]["hints"] == [2, 0, 1, 0]
    rebuild(tmp_path, GAMES)  # no transcript of that table here: it goes, and its hints with it
    with History(db_path(tmp_path)) as history:
        assert history.rows("hints") == []


def test_host_no_hints_writes_it_into_the_genesis(home, cli):
    from p2pcards.net.store import read_log

    found = {}
    for flag in ([], ["--no-hints"]):
        code, out = cli("host", "sueca", "--seats", "bot:random,bot:random,bot:random,bot:random", "--deals", "1",
                        "--json", "--no-announce", "--bind", "127.0.0.1", "--linger", "0", *flag)
        assert code == 0
        table = json.loads(out.splitlines()[1])["table"]
        messages, _ = read_log(home / "tables" / table / "seat0.log")
        found[bool(flag)] = Genesis.from_body(parse_message(messages[0], None).body).hints
    assert found == {False: True, True: False}


def test_play_host_no_hints_reaches_the_host_plan_and_is_refused_elsewhere(home, cli, capsys, monkeypatch):
    import p2pcards.cli.play as play_cli
    import p2pcards.tui.lan as lan

    plans: list[Any] = []
    monkeypatch.setattr(play_cli, "_is_terminal", lambda out: True)
    monkeypatch.setattr(lan, "play_lan", lambda registry, plan, **kw: plans.append(plan) or 0)
    for flag in ([], ["--no-hints"]):
        code, _ = cli("play", "sueca", "--host", "--no-announce", "--bind", "127.0.0.1", *flag)
        assert code == 0
    assert [p.hints for p in plans] == [True, False]
    for argv in (["play", "sueca", "--no-hints"], ["play", "sueca", "--join", "127.0.0.1:9", "--no-hints"]):
        with pytest.raises(SystemExit) as stop:
            cli(*argv)
        assert stop.value.code == 2 and "--no-hints is for a table you host" in capsys.readouterr().err


def test_host_json_table_says_whether_hints_are_allowed(home, cli):
    from p2pcards.cli.help import HOST_EPILOG

    said = {}
    for flag in ([], ["--no-hints"]):
        code, out = cli("host", "sueca", "--seats", "bot:random,bot:random,bot:random,bot:random", "--deals", "1",
                        "--json", "--no-announce", "--bind", "127.0.0.1", "--linger", "0", *flag)
        assert code == 0
        table = json.loads(out.splitlines()[1])
        assert table["type"] == "table"
        said[bool(flag)] = table["hints"]
    assert said == {False: True, True: False}
    assert '"hints": BOOL (false: the host forbade hints' in HOST_EPILOG  # the --json contract says so
