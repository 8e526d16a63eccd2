"""Hints (``h``) and finishing a forced deal (``f``) on the table screen: on the view model,
and on the real application driven by keys through a pipe against computer players."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import pytest

from p2pcards.core import PLAY, Decision
from p2pcards.history.db import History, db_path, rebuild
from p2pcards.players.hints import Hint
from p2pcards.table.transcript import Genesis, make_genesis, parse_message
from p2pcards.tui import runtime
from p2pcards.tui.runtime import LocalTable, ScreenTable
from tests import test_tui_app
from tests.test_tui_app import Typist, drive, local, person
from tests.test_tui_model import HAND, make_model


# ---------------------------------------------------------------------- the model
def test_h_asks_once_shows_the_hint_and_points_at_the_card():
    model, chosen = make_model(hand=HAND)
    asked: list[int] = []
    model.on_hint = lambda: asked.append(model.asked)
    model.ask(Decision((0,), PLAY), [3, 9])  # the hearts
    model.card_key("h")
    model.card_key("h")  # a second h while one is computed does nothing
    assert asked == [1] and model.hint_busy and model.prompt() == "hint: thinking…"
    assert model.show_hint(Hint(9, "wins", {"card": "K♥"}, "KH"), 1)
    assert model.prompt() == "hint: play K♥ — K♥ beats the cards on the table so far"
    assert model.hand_order()[model.cursor] == (9, "KH") and not model.hint_busy
    model.enter()  # the card under the cursor: the suggestion
    assert chosen == [9] and model.hint_line == ""


def test_a_late_hint_is_dropped_and_a_failed_one_says_no_hint():
    model, chosen = make_model(hand=HAND)
    model.ask(Decision((0,), PLAY), [3, 9])
    model.key("h")  # (not a letter key: nothing)
    model.card_key("h")
    model.card_key("3")  # decided meanwhile
    assert chosen
    assert not model.show_hint(Hint(9, "wins", {"card": "K♥"}), 1)
    assert model.hint_line == "" and not model.hint_busy
    model.ask(Decision((0,), PLAY), [3, 9])
    model.card_key("h")
    assert model.show_hint(None, 2) and model.prompt() == "no hint this time"
    pt, _ = make_model(hand=HAND, lang="pt")
    pt.ask(Decision((0,), PLAY), [3, 9])
    pt.card_key("h")
    assert pt.show_hint(Hint(3, "trump_in", {"card": "7♥", "suit": "S"}), 1)
    assert pt.prompt() == "dica: jogue 7♥ — não tem espadas: 7♥ corta com trunfo"


def test_h_at_a_table_without_hints_or_out_of_turn_says_so():
    model, _ = make_model(hand=HAND)
    model.on_hint = lambda: pytest.fail("nothing is computed")
    model.card_key("h")
    assert model.prompt() == "a hint is for your turn"
    model.hints_allowed = False
    model.ask(Decision((0,), PLAY), [3, 9])
    model.card_key("h")
    assert model.prompt() == "the host turned hints off at this table" and model.hint_line == ""


def test_f_only_when_offered_and_plays_a_forced_card_at_once():
    model, chosen = make_model(hand=HAND[:2])
    finished: list[bool] = []
    model.on_finish = lambda: finished.append(True)
    model.ask(Decision((0,), PLAY), [3])
    model.card_key("f")
    assert not finished and not chosen  # not offered: nothing
    model.offer_finish()
    assert model.notices()[0] == "the rest of the deal is forced: press f to finish it"
    model.card_key("f")
    assert finished == [True] and chosen == [3] and model.finishing
    assert model.notices()[0] == "finishing the deal…"
    model.deal_over({"deal": 0, "audit": {"verdict": "clean"}, "totals": [0, 0], "result": None})
    assert not model.finish_offered and not model.finishing


def test_the_computer_players_skip_their_pause_while_the_person_finishes():
    model, _ = make_model(hand=HAND)
    table = ScreenTable()
    table.model = model
    assert table.pace(0.8) == 0.8
    model.finish_offered = model.finishing = True
    assert table.pace(0.8) == 0.0


def test_the_host_form_has_a_hints_row_that_reaches_the_choice():
    from p2pcards.tui.start import start_fragments
    from p2pcards.tui.start_model import StartModel

    model = StartModel(list(test_tui_app.REGISTRY.games.values()), test_tui_app.Text("pt"))
    results: list[Any] = []
    model.on_exit = results.append
    model.view = "host"
    rows = model.host_form.rows()
    assert "hints" not in model.form.rows() and model.host_form.value("hints") == "allowed"
    model.row = rows.index("hints")
    model.right()
    text = "".join(f[1] for f in start_fragments(model, 30, 100))
    assert "Dicas" in text and "proibidas" in text
    model.row = len(rows) - 1
    model.enter()
    assert results[-1].kind == "host" and results[-1].hints is False
    model.view = "play"
    model.row = len(model.form.rows()) - 1
    model.enter()
    assert results[-1].kind == "play" and results[-1].hints is True  # local tables always allow hints


# ---------------------------------------------------------------------- on the screen, against the computer
class HintTypist(Typist):
    """Presses ``h`` at the first decision, waits for the hint, then plays the card under
    the cursor (the suggestion); afterwards plays as the typist does."""

    def __init__(self, model: Any, send: Any) -> None:
        super().__init__(model, send)
        self.tour_windows = False
        self.hinted: list[tuple[str, bool, int]] = []
        self.asked_h = False

    def react(self, screen: str) -> None:
        m = self.model
        if not self.hinted and m.decision is not None and m.overlay is None and m.text("your_turn") in screen:
            if not self.asked_h:
                self.asked_h = True
                self.send("h")
                return
            if m.hint_busy or not m.hint_line or m.hint_line not in screen:
                return
            card = m.hand_cards()[m.cursor]
            self.hinted.append((m.hint_line, bool(card.legal), card.position))
            self.answered = m.asked
            self.send("\r")
            return
        super().react(screen)


def test_h_on_a_local_table_shows_a_hint_on_a_legal_card_and_records_it(tmp_path, monkeypatch):
    monkeypatch.setattr(test_tui_app, "Typist", HintTypist)
    table = local("sueca", tmp_path, seed=3)
    played: list[Any] = []
    deliver = table.person.deliver
    table.person.deliver = lambda choice: (played.append(choice), deliver(choice))  # type: ignore[method-assign]
    typist, out = drive(table, timeout=90)
    assert table.outcome == "over" and isinstance(typist, HintTypist)
    ((line, legal, position),) = typist.hinted
    assert line.startswith("hint: play ") and " — " in line and legal and played[0] == position
    assert line in out.drawn()
    table.history.close()
    with History(db_path(tmp_path)) as history:
        rows = history.rows("hints")
        (match,) = history.matches()
    assert [(r[0], r[1], r[2], r[3], r[5]) for r in rows] == [(table.table_id.hex(), 0, 0, 0, 1)]
    assert rows[0][4] in line.replace("♠", "S").replace("♥", "H").replace("♦", "D").replace("♣", "C").replace(
        "10", "T")
    assert match["hints"] == [1, 0, 0, 0]
    rebuild(tmp_path, test_tui_app.REGISTRY)  # hints are in no transcript: a rebuild keeps them
    with History(db_path(tmp_path)) as history:
        assert history.rows("hints") == rows


def test_a_failing_hint_says_no_hint_and_the_table_plays_on(tmp_path, monkeypatch):
    monkeypatch.setattr(test_tui_app, "Typist", HintTypist)

    def broken(*args: Any, **kwargs: Any) -> Hint:
        raise RuntimeError("the search broke")

    monkeypatch.setattr(runtime, "suggest", broken)
    table = local("bisca", tmp_path, seed=2)
    typist, _ = drive(table, timeout=90)
    assert table.outcome == "over" and [h[0] for h in typist.hinted] == ["no hint this time"]  # type: ignore[attr-defined]
    table.history.close()
    with History(db_path(tmp_path)) as history:
        assert history.rows("hints") == []


def _forbid_hints(table: LocalTable) -> None:
    """The table's genesis, signed again with ``hints`` false (as `p2pcards host --no-hints` writes it)."""
    genesis = Genesis.from_body(parse_message(table.genesis, None).body)
    forbidden = dataclasses.replace(genesis, hints=False)
    table.genesis = make_genesis(table.me, forbidden)
    table.table_id = forbidden.table_id


def test_h_at_a_table_whose_host_forbids_hints_says_so_and_computes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(runtime, "suggest", lambda *a, **k: pytest.fail("no hint is computed"))
    table = LocalTable(test_tui_app.REGISTRY.get("bisca"), {}, me=person(), text=test_tui_app.Text("en"),
                       bots="random", seed=1, deals=1, speed=0, data_dir=None)
    _forbid_hints(table)
    said: list[str] = []

    def press_h(typist: Typist, app: Any) -> None:
        m = typist.model
        if not said and m.decision is not None and m.overlay is None and m.asked != typist.answered:
            typist.answered = m.asked  # a decision the typist has not answered: it waits while h is asked
            typist.send("h")
            said.append("h")
        elif said == ["h"] and m.message:
            said.append(m.message)
            typist.send("\x03")

    typist, out = drive(table, extra=press_h, tour=False)
    assert said[1] == "the host turned hints off at this table"
    assert not typist.model.hints_allowed and "the host turned hints off" in out.drawn()


class FinishTypist(Typist):
    """Plays as the typist does until the table offers to finish the deal, then presses
    ``f`` and answers nothing more."""

    def __init__(self, model: Any, send: Any) -> None:
        super().__init__(model, send)
        self.tour_windows = False
        self.pressed_at: int | None = None
        self.asked_after = False
        #: when each decision with two cards in hand was first seen (monotonic seconds)
        self.waited: dict[int, float] = {}

    def react(self, screen: str) -> None:
        m = self.model
        if self.pressed_at is None and m.finish_offered and m.decision is not None and m.overlay is None:
            if m.text("finish_offer") in screen:
                self.pressed_at = m.asked
                self.send("f")
            return
        if (self.pressed_at is None and m.decision is not None and len(m.snap.hand) == 2
                and time.monotonic() < self.waited.setdefault(m.asked, time.monotonic()) + WAIT_FOR_OFFER):
            return  # a person looks at the table a while: the check of the rest runs in a thread meanwhile
        if self.pressed_at is not None and m.decision is not None:
            self.asked_after = True  # (the test fails on it; the typist answers as usual)
        super().react(screen)


#: How long the typist waits, holding two cards, for the offer (the check runs in a worker
#: thread; on a loaded machine it may take a few seconds).
WAIT_FOR_OFFER = 15.0

#: A seed whose first Sueca deal, played by the typist against random computer players,
#: reaches a forced rest while the person still holds two cards.
FORCED_SEED = 10


def test_f_finishes_a_forced_deal_and_the_deal_ends(tmp_path, monkeypatch):
    monkeypatch.setattr(test_tui_app, "Typist", FinishTypist)
    table = local("sueca", tmp_path, seed=FORCED_SEED)
    typist, out = drive(table, timeout=90)
    assert isinstance(typist, FinishTypist)
    assert typist.pressed_at is not None, "the table offered to finish the deal"
    assert table.model.asked == typist.pressed_at and not typist.asked_after  # nothing asked after f
    assert table.outcome == "over" and typist.summaries == 1
    assert "press f to finish it" in out.drawn() and "Deal 1 is over" in out.drawn()
