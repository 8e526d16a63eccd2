"""Replays of past tables (issue 16): a transcript taken apart into deals and steps, checked
against the same table's export (the arena records the audit opened); an interrupted log
and a broken one replayed up to where they stop; the replay screen stepped through by keys
(trick by trick, deal by deal, the deal list, the chart, another seat at the bottom) in
memory and in a real terminal; the ``replay`` command's errors."""

from __future__ import annotations

import asyncio
import shlex
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input

from p2pcards.core import PLAY, load_games
from p2pcards.history import HistoryError
from p2pcards.history.opened import read_transcript
from p2pcards.history.replay import MatchSteps, follow, follow_log
from p2pcards.net import log_path
from p2pcards.tui.cards import card_label, sort_hand
from p2pcards.tui.replay import FINAL, SUMMARY, ReplayModel, build_replay_app, run_replay, seat_of_log
from p2pcards.tui.snapshot import replay_snapshot
from p2pcards.words import Text
from tests.table_helpers import kinds
from tests.test_history import _export, _played
from tests.test_tui_app import ScreenOutput, screen_text
from tests.test_tui_tmux import REPO, Tmux

REGISTRY = load_games()
GAMES = {"sueca": 2, "bisca": 1, "copas": 1, "sobe-e-desce": 2}


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A table of each game played in memory to its end (bots; seat 0 a person): its seat 1 log."""
    out = {}
    for game, deals in GAMES.items():
        home = tmp_path_factory.mktemp(game)
        tid = _played(home, game, deals)
        out[game] = log_path(home, tid, 1)
    return out


def _plays(match: MatchSteps, index: int) -> list[tuple[int, str]]:
    """The cards played in a deal's steps, in order, with who played them."""
    deal = match.deals[index]
    out = []
    for step in deal.steps[1:]:
        if step.kind == PLAY and isinstance(step.choice, int):
            card = step.state.deck.cards[step.choice]
            assert card is not None
            out.append((step.seat, card))
    return out


def _record_plays(record: dict[str, Any]) -> list[tuple[int, str]]:
    return [(s, c) for t in record["tricks"] for s, c in zip(t["seats"], t["cards"])]


@pytest.mark.parametrize("game", list(GAMES))
def test_every_deal_steps_through_the_cards_the_audit_opened(logs, game):
    match = follow_log(logs[game], REGISTRY)
    code, records, summary = _export(logs[game])
    assert code == 0 and summary["finished"]
    assert match.final is not None and match.error is None and match.torn == 0
    assert len(match.deals) == len(records) == GAMES[game]
    for i, (deal, record) in enumerate(zip(match.deals, records)):
        assert deal.opened and deal.event is not None and deal.event["audit"]["verdict"] == "clean"
        assert deal.deal == record["deal"]
        # as dealt: every hand is the record's; then every card played, in order, by whom
        assert deal.steps[0].seat is None
        assert deal.steps[-1].state.hands_at_start == record["hands"]
        dealt = deal.steps[0].state  # (in Sobe e Desce the trump is chosen before all is dealt)
        assert all(set(c for c in dealt.deck.hand_cards(s) if c) <= set(record["hands"][s])
                   for s in range(match.spec.seats))
        # every card a seat decided to play, in order (a card the rules lead on their own,
        # as Copas' 2 of clubs, is in the tricks but was nobody's decision)
        everything = iter(_record_plays(record))
        decided = _plays(match, i)
        assert decided or not record["tricks"]  # (Sobe e Desce: one seat went in and took them unplayed)
        assert all(play in everything for play in decided)
        tricks = deal.steps[-1].state.tricks
        assert [t.winner for t in tricks] == [t["winner"] for t in record["tricks"]]
        assert deal.tricks == len(record["tricks"])
        last = deal.steps[-1].state
        assert last.over and last.result == record["result"] == deal.event["result"]
        assert len(deal.measures) == match.spec.sides
    assert match.final["totals"] == records[-1]["totals"]


def test_an_interrupted_log_shows_only_the_cards_played(logs):
    messages, _ = read_transcript(logs["sueca"])
    whole = follow(messages, REGISTRY)
    said = kinds(messages)
    plays = [i for i, kind in enumerate(said) if kind == "choice" and i > said.index("close")]
    cut = plays[len(plays) // 2]  # in the middle of the second deal's play
    part = follow(messages[:cut], REGISTRY)
    assert part.final is None and part.error is None
    assert [d.deal for d in part.deals] == [0, 1]
    assert part.deals[0].opened and part.deals[0].event == whole.deals[0].event
    last = part.deals[1]
    assert not last.opened and last.event is None
    plays = _plays(part, 1)
    assert plays and plays == _plays(whole, 1)[: len(plays)]
    # nobody's hidden cards are known: not at the bottom (but the face-up trump card, which
    # the dealer holds in Sueca), not face up
    for seat in range(4):
        snap = replay_snapshot(last.steps[-1].state, seat, deal=1, totals=last.totals_before, open_hands=False)
        assert {c for _, c in snap.hand} <= {snap.trump_card} and snap.dummy_hands == {}
        assert snap.hand_sizes[seat] > len(snap.hand)
    model = ReplayModel(part, Text("en"))
    model.go(len(model.frames) - 1)
    notes = model.notices()
    assert Text("en")("replay_hidden") in notes and Text("en")("replay_stops") in notes
    assert model.frames[-1][1] >= 0  # no result, no end of the match


def test_a_log_that_stops_before_any_card_is_dealt_says_so(logs):
    messages, _ = read_transcript(logs["bisca"])
    match = follow(messages[:3], REGISTRY)  # the genesis and the first shuffle steps
    assert match.deals == [] and match.final is None and match.error is None
    t = Text("en")
    model = ReplayModel(match, t)
    assert model.frames == [] and model.status() == t("replay_empty")
    assert t("replay_stops") in model.notices()
    for key in (model.next_trick, model.previous_trick, model.next_step, model.last_of_deal, model.next_deal,
                model.previous_deal, model.turn):
        key()  # nothing to step through: nothing breaks
    assert model.chart_lines() == [t("replay_no_deal")]
    assert model.extra_window("deals") == ([t("replay_no_deal")], t("replay_deals_keys"))
    # a table that ended there (abandoned while it waited): its end, and nothing else, is shown
    match.final = {"type": "final", "winner": None, "totals": [0, 0], "deals": 0, "abandoned": 1}
    model = ReplayModel(match, t)
    assert model.frames == [(-1, FINAL)] and model.overlay == "final" and model.final_lines()
    assert model.status() == t("replay_empty")
    model.first_of_deal()
    model.last_of_deal()
    model.next_deal()
    assert model.frame == (-1, FINAL)


def test_a_broken_log_replays_up_to_the_message_that_breaks_it(logs, tmp_path):
    data = logs["sueca"].read_bytes()
    messages, _ = read_transcript(logs["sueca"])
    at = sum(len(m) + 4 for m in messages[:30])  # inside message 30 (each frame: a 4-byte length, then it)
    at += 4 + len(messages[30]) // 2
    broken = tmp_path / "seat1.log"
    broken.write_bytes(data[:at] + bytes([data[at] ^ 0x55]) + data[at + 1:])
    match = follow_log(broken, REGISTRY)
    assert match.error is not None and match.error["seq"] == 30
    assert match.final is None and match.deals  # what came before is there
    model = ReplayModel(match, Text("en"))
    model.go(len(model.frames) - 1)
    assert any("breaks at message 30" in line for line in model.notices())


def test_what_is_not_a_transcript_is_refused_clearly(tmp_path):
    for name, content in (("empty.log", b""), ("text.log", b"hello, this is not a log\n" * 20),
                          ("zeros.log", bytes(1000))):
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(HistoryError, match="not a p2pcards transcript"):
            follow_log(path, REGISTRY)
    with pytest.raises(HistoryError, match="cannot read"):
        follow_log(tmp_path / "missing.log", REGISTRY)


def test_keys_step_trick_by_trick_deal_by_deal_and_from_every_seat(logs):
    match = follow_log(logs["sueca"], REGISTRY)
    t = Text("en")
    model = ReplayModel(match, t, seat=seat_of_log(logs["sueca"]) or 0)
    assert model.me == 1
    first = match.deals[0]
    assert model.frame == (0, 0)
    # as dealt: the bottom seat's hand, the three others face up
    start = first.steps[0].state
    assert sorted(c for _, c in model.snap.hand) == sorted(start.hands_at_start[1])
    assert {s: sorted(h) for s, h in model.snap.dummy_hands.items()} == {
        s: sorted(start.hands_at_start[s]) for s in (0, 2, 3)}
    for shown in model.snap.dummy_hands.values():  # face up as a hand is shown: by suit, high to low
        ordered = sort_hand(list(enumerate(shown)), model.snap.strength)
        assert [c for _, c in ordered] == list(shown)
        assert len({c[1] for c in shown}) > 1 and list(shown) != sorted(shown)
    assert "deals" in model.status()
    # → stops after each trick, then at the deal's result
    for trick in range(1, first.tricks + 1):
        model.next_trick()
        i, k = model.frame
        assert (i, first.steps[k].trick_end) == (0, True) and model.snap.tricks_played == trick
        assert model.snap.last_trick is not None and model.snap.trick == ()
    model.next_trick()
    assert model.frame == (0, SUMMARY) and model.overlay == "summary"
    assert any(line.startswith("✓") for line in model.summary_lines())
    model.previous_trick()
    assert model.frame == (0, len(first.steps) - 1)
    # one decision at a time, and it says who played what
    model.first_of_deal()
    model.next_step()
    step = first.steps[1]
    assert model.frame == (0, 1)
    assert model.snap.trick == ((step.seat, step.state.deck.cards[step.choice]),)
    assert model.status().endswith(t("replay_played", name=match.seats[step.seat].name,
                                     card=card_label(model.snap.trick[0][1])))
    model.last_of_deal()
    assert model.frame == (0, SUMMARY)
    # deal by deal; the deal list; the end of the match
    model.next_deal()
    assert model.frame == (1, 0) and model.snap.deal == 1
    assert model.snap.totals == tuple(first.event["totals"])
    model.previous_deal()
    assert model.frame == (0, 0)
    model.open("deals")
    assert model.overlay == "deals"
    lines, keys = model.extra_window("deals")
    assert len(lines) == 2 and lines[0].startswith("▸ Deal 1  ✓") and keys == t("replay_deals_keys")
    model.move_cursor(1)
    model.choose()
    assert model.frame == (1, 0) and model.overlay is None
    model.go(len(model.frames) - 1)
    assert model.frame[1] == FINAL and model.overlay == "final" and model.final_lines()
    # the chart: a bar per deal and side
    chart = model.chart_lines()
    assert any("┤" in line for line in chart)
    names = [label for label, _ in model.sides()]
    assert [line.strip() for line in chart if line.strip() in names] == names
    # another seat at the bottom: its cards there, the others face up
    model.first_of_deal()
    model.turn()
    assert model.me == 2
    second = match.deals[-1].steps[0].state
    assert sorted(c for _, c in model.snap.hand) == sorted(second.hands_at_start[2])
    assert 2 not in model.snap.dummy_hands and set(model.snap.dummy_hands) == {0, 1, 3}


def test_seat_panels_say_who_ran_each_seat(logs):
    match = follow_log(logs["bisca"], REGISTRY)
    t = Text("pt")
    model = ReplayModel(match, t, seat=0)
    person, bot = model.seat_panel(0), model.seat_panel(1)
    assert person.marker == t("person")
    assert person.runs == t("replay_key", fp="-".join(match.seats[0].fingerprint.split("-")[:2]))
    assert bot.marker == t("bot", level=model.level("random"))
    runs_on = match.seats[1].runs_on
    assert runs_on is not None and bot.runs == t("runs_on", fp="-".join(runs_on.split("-")[:2]))
    assert person.name == match.seats[0].name  # a replay has no "you"
    model.turn()
    assert model.seat_panel(1).marker == t("bot", level=model.level("random"))


def test_the_replay_screen_runs_by_keys(logs):
    match = follow_log(logs["copas"], REGISTRY)
    out = ScreenOutput()
    seen: list[str] = []

    async def main() -> None:
        with create_pipe_input() as inp, create_app_session(input=inp, output=out):
            model = ReplayModel(match, Text("en"), seat=3)
            app = build_replay_app(model, input=inp, output=out)

            def look(_: Any) -> None:
                seen.append(screen_text(app))

            app.after_render += look
            # → twice, the deal list (opened, closed), the chart, End, then q
            inp.send_text("\x1b[C\x1b[Cd")
            task = asyncio.ensure_future(app.run_async())
            for keys in ("\x1b", "c", "\x1b", "\x1b[F", "q"):
                await asyncio.sleep(0.3)
                inp.send_text(keys)
            await asyncio.wait_for(task, 10)
            seen.append(f"AT {model.frame}")

    asyncio.run(asyncio.wait_for(main(), 30))
    screens = "\n".join(seen)
    assert "Deals" in screens and "Points per deal" in screens and "Deal 1  ✓" in screens
    assert seen[-1] == f"AT {(0, SUMMARY)}"
    assert any("won by" in s for s in seen)


def test_run_replay_refuses_garbage_before_any_screen(tmp_path):
    path = tmp_path / "seat0.log"
    path.write_bytes(b"\x00\x00\x00\x05hello")
    with pytest.raises(HistoryError):
        run_replay(path, lang="en")


def test_the_replay_command_says_what_is_wrong(logs, home, cli, tmp_path, capsys):
    garbage = tmp_path / "garbage.log"
    garbage.write_bytes(b"not a log at all")
    for argv, words in (
        ([str(tmp_path / "nowhere.log")], "cannot read"),
        ([str(garbage)], "not a p2pcards transcript"),
        ([str(logs["sueca"]), "--seat", "5"], "seats 1 to 4, not 5"),
        ([str(logs["sueca"]), "--seat", "x"], "invalid int value"),
        ([str(logs["sueca"])], "run it in a terminal"),
    ):
        with pytest.raises(SystemExit) as stop:
            cli("replay", *argv)
        err = capsys.readouterr().err
        assert stop.value.code == 2 and words in err, (argv, err)
        assert "Traceback" not in err
    with pytest.raises(SystemExit) as stop:
        cli("replay", "--help")
    out = capsys.readouterr().out
    assert stop.value.code == 0 and "PgDn/PgUp" in out and "Exit status" in out


def test_a_copied_log_replays_in_a_real_terminal(logs, tmp_path):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (.ci/run installs it)")
    copy = tmp_path / "elsewhere" / "from-rui.log"
    copy.parent.mkdir()
    copy.write_bytes(logs["sueca"].read_bytes())
    match = follow_log(copy, REGISTRY)
    names = [s.name for s in match.seats]
    tm = Tmux(tmp_path / "tmux.sock")
    command = (f"cd {shlex.quote(str(REPO))} && env P2PCARDS_HOME={shlex.quote(str(tmp_path / 'home'))} "
               f"LC_ALL=C.UTF-8 {shlex.quote(sys.executable)} -m p2pcards --lang pt replay "
               f"{shlex.quote(str(copy))} --seat 3; echo EXIT=$?; sleep 30")
    tm.start(command)
    try:
        screen = tm.wait("the first deal as dealt", lambda s: "mão 1 de 2 · passo 0" in s)
        assert names[2] in screen and "dá as cartas" in screen
        tm.send("End")
        screen = tm.wait("the deal's result", lambda s: "Fim da mão 1" in s)
        assert "✓" in screen
        tm.send("PageDown")
        tm.wait("the second deal", lambda s: "mão 2 de 2 · passo 0" in s)
        tm.send("q")
        tm.wait("the command's end", lambda s: "EXIT=0" in s)
    finally:
        tm.kill()


def test_a_renuncia_and_a_bad_shuffle_replay_with_their_verdicts():
    from tests.table_helpers import make_net, run
    from tests.test_table import BadShuffler, Revoker

    t = Text("en")
    Revoker.cheated = False
    net = run(make_net("sueca", deals=3, table_class={1: Revoker}))
    assert Revoker.cheated
    match = follow(list(net.tables[2].log), REGISTRY)
    caught = [d for d in match.deals if d.event is not None and d.event["audit"]["verdict"] == "renuncia"]
    assert len(caught) == 1 and caught[0].opened  # the audit opened it: every hand is shown
    model = ReplayModel(match, t, seat=2)
    model.go(model.frames.index((match.deals.index(caught[0]), SUMMARY)))
    name = match.seats[1].name
    assert any(line.startswith("✗") and name in line for line in model.summary_lines())
    assert "R" in model.deal_line(caught[0]).split()

    net = run(make_net("sueca", deals=2, table_class={2: BadShuffler}), tolerate=True)
    match = follow(list(net.tables[0].log), REGISTRY)
    (deal,) = match.deals
    assert deal.event is not None and deal.event["audit"]["verdict"] == "fault" and not deal.opened
    model = ReplayModel(match, t, seat=0)
    lines, _ = model.extra_window("deals")
    assert "✗" in lines[0]
    model.go(model.frames.index((0, SUMMARY)))
    assert any(line.startswith("✗") and match.seats[2].name in line for line in model.summary_lines())
