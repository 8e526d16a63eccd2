"""The terminal table's view model and the start screen's model, without a terminal."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from p2pcards.core import (
    GO_IN,
    PASS,
    PLAY,
    PORTUGUESE_40,
    PT_RANK_ORDER,
    TRUMP,
    DealState,
    Decision,
    Deck,
    Line,
    load_games,
    strength_table,
)
from p2pcards.tui.model import (
    GameInfo,
    SeatLabel,
    Snapshot,
    TableModel,
    card_label,
    is_red,
    sort_hand,
    too_small,
)
from p2pcards.tui.start_model import LanEntry, StartModel, parse_address
from p2pcards.words import STRINGS, Text, default_lang

REGISTRY = load_games()
PT = strength_table(PT_RANK_ORDER)


def make_model(game: str = "sueca", lang: str = "en", **snap: Any) -> tuple[TableModel, list[Any]]:
    spec = REGISTRY.get(game)
    seats = [SeatLabel(0, "Zé")] + [SeatLabel(s, f"Bot{s}", "heuristic", "here-fp") for s in range(1, spec.seats)]
    model = TableModel(GameInfo.of(spec, spec.resolve_options({})), seats, 0, Text(lang), speed=0.5, here="here-fp")
    chosen: list[Any] = []
    model.on_choice = chosen.append
    fields: dict[str, Any] = {"stage": "play", "in_deal": True, "strength": PT, "hand_sizes": (3,) * spec.seats,
                              "tricks_won": (0,) * spec.seats, "points_won": (0,) * spec.seats,
                              "totals": (0,) * len(spec.teams or range(spec.seats)), "dealer": spec.seats - 1}
    fields.update(snap)
    model.update(Snapshot(**fields))
    return model, chosen


HAND = ((7, "2S"), (3, "7H"), (5, "AS"), (9, "KH"), (11, "QC"))


def at_decision(deal: DealState) -> DealState:
    """``deal`` (full information) carried on to its next decision."""
    while not isinstance(deal.step(), Decision):
        deal.complete()
    return deal


def game_fields(deal: DealState, seat: int) -> dict[str, Any]:
    """The snapshot's fields that come from the game, as :func:`snapshot_of` takes them."""
    return {"dialog": tuple(deal.decision_lines(seat)), "facts": tuple(deal.facts()), "notes": tuple(deal.notes(seat)),
            "choices": tuple((c, deal.choice_line(seat, c)) for c in deal.legal(seat) if not isinstance(c, int))}


def test_strings_have_the_same_keys_in_both_languages_and_format():
    assert set(STRINGS["en"]) == set(STRINGS["pt"])
    assert Text("pt")("trump") == "Trunfo" and Text("en")("trump") == "Trump"
    assert Text("pt").suit("H") == "copas" and Text("en").suit("S") == "spades"
    with pytest.raises(ValueError):
        Text("fr")


def test_language_follows_the_locale():
    assert default_lang({"LANG": "pt_PT.UTF-8"}) == "pt"
    assert default_lang({"LC_ALL": "en_GB.UTF-8", "LANG": "pt_PT.UTF-8"}) == "en"
    assert default_lang({"LC_MESSAGES": "pt_BR"}) == "pt"
    assert default_lang({}) == "en"


def test_cards_show_rank_and_suit_symbol_and_colour():
    assert [card_label(c) for c in ("7H", "AS", "TC", "QD")] == ["7♥", "A♠", "10♣", "Q♦"]
    assert is_red("7H") and is_red("QD") and not is_red("AS") and not is_red("TC")


def test_hand_sorted_by_suit_then_rank_high_to_low():
    hand = sort_hand(HAND, PT)
    assert [c for _, c in hand] == ["AS", "2S", "7H", "KH", "QC"]


def test_seats_around_the_table_follow_the_direction_of_play():
    sueca, _ = make_model("sueca")
    assert [sueca.where(s) for s in range(4)] == ["bottom", "right", "top", "left"]  # anticlockwise
    copas, _ = make_model("copas")
    assert [copas.where(s) for s in range(4)] == ["bottom", "left", "top", "right"]  # clockwise
    bisca, _ = make_model("bisca")
    assert [bisca.where(s) for s in range(2)] == ["bottom", "top"]


def test_play_legal_highlighted_illegal_dimmed_cursor_skips_illegal():
    model, chosen = make_model(hand=HAND, trick=((3, "4H"),))
    assert all(hc.legal is None for hc in model.hand_cards())  # nothing to play yet: drawn plainly
    model.ask(Decision((0,), PLAY), [3, 9])  # the hearts
    cards = model.hand_cards()
    assert [(hc.label, hc.legal) for hc in cards] == [("A♠", False), ("2♠", False), ("7♥", True), ("K♥", True),
                                                     ("Q♣", False)]
    assert cards[2].cursor and model.status() == "your turn"
    model.right()
    assert model.hand_cards()[3].cursor
    model.right()  # wraps over the illegal cards
    assert model.hand_cards()[2].cursor
    model.digit(1)  # A♠: refused with a reason, and the cursor stays on a legal card
    assert chosen == [] and "A♠ is not allowed now" in model.prompt()
    assert model.hand_cards()[2].cursor
    model.enter()
    assert chosen == [3]
    model.ask(Decision((0,), PLAY), [3, 9])
    model.digit(4)
    assert chosen == [3, 9] and model.decision is None


def test_enter_space_and_click_play_the_card():
    for action in ("enter", "space", "click"):
        model, chosen = make_model(hand=HAND)
        model.ask(Decision((0,), PLAY), [p for p, _ in HAND])
        model.right()
        if action == "click":
            model.click_card(1)
        else:
            getattr(model, action)()
        assert chosen == [7], action  # the second card in hand order is 2♠, position 7


def test_copas_pass_marks_three_cards_then_passes_left():
    hand = ((0, "2C"), (1, "QS"), (2, "AH"), (3, "KH"), (4, "3D"))
    deal = at_decision(REGISTRY.get("copas").new_match({}, 3).new_deal(sorted(REGISTRY.get("copas").deck)))
    model, chosen = make_model("copas", hand=hand, **game_fields(deal, 0))
    model.ask(Decision((0, 1, 2, 3), PASS, (3, 3)), [p for p, _ in hand])
    assert model.mode == PASS and model.dialog_lines()[0] == "Pass 3 cards to the left, to Bot1"
    assert "Enter: Pass (0/3 marked)" in model.dialog_lines()[1]
    model.digit(1)
    model.enter()
    assert chosen == [] and model.message == "mark exactly 3 cards first"
    model.space()  # unmarks the card under the cursor (the first)
    assert model.picked == []
    for d in (1, 2, 3):
        model.digit(d)
    assert [hc.picked for hc in model.hand_cards()] == [True, True, True, False, False]
    model.enter()
    assert len(chosen) == 1 and sorted(chosen[0]) == sorted(p for p, _ in sort_hand(hand, PT)[:3])


def test_going_in_exchange_or_sit_out():
    model, chosen = make_model("sobe-e-desce", hand=HAND, dialog=(Line("go_in.text"), Line("go_in.may")))
    model.ask(Decision((0,), GO_IN, (0, 5), may_decline=True), [p for p, _ in HAND])
    assert "n: Sit out" in model.dialog_lines() and "You may sit this deal out." in model.dialog_lines()
    model.digit(2)
    model.enter()
    assert chosen == [(7,)]
    model.ask(Decision((0,), GO_IN, (0, 5), may_decline=True), [p for p, _ in HAND])
    model.sit_out()
    assert chosen[-1] is None
    model.ask(Decision((0,), GO_IN, (0, 5), may_decline=False), [p for p, _ in HAND])
    model.sit_out()  # not allowed: must play
    assert model.decision is not None and "n: Sit out" not in model.dialog_lines()
    model.enter()
    assert chosen[-1] == ()


def sobe_trump_fields() -> dict[str, Any]:
    """Seat 0 chooses trumps (dealer seat 3): the game's fields of that decision."""
    return game_fields(at_decision(REGISTRY.get("sobe-e-desce").new_match({}, 3).new_deal(list(PORTUGUESE_40))), 0)


def test_sobe_e_desce_trump_dialog():
    model, chosen = make_model("sobe-e-desce", hand=HAND[:3], **sobe_trump_fields())
    model.ask(Decision((0,), TRUMP), ["S", "H", "D", "C", "turn"])
    options = model.choice_options()
    assert [o[0] for o in options] == ["S", "H", "D", "C", "turn"] and options[0][3]
    assert "everyone plays" in options[1][1] and "tricks count double" in options[3][1]
    assert options[1][2] and not options[0][2]  # hearts in red
    assert model.dialog_lines()[0] == "You choose trumps: a suit, or turn the next card."
    assert "1-5" in model.dialog_lines()[1]
    model.left()
    model.enter()
    assert chosen == ["turn"]
    model.ask(Decision((0,), TRUMP), ["S", "H", "D", "C", "turn"])
    model.digit(2)
    assert chosen[-1] == "H"


def test_bisca_swap_of_the_two_of_trumps():
    hand = ((4, "2H"), (5, "AS"), (6, "3C"))
    model, chosen = make_model("bisca", hand=hand, trump="H", trump_card="7H", stock=20,
                               choices=((("swap", 4), Line("swap", {"two": "2♥", "card": "7♥"})),))
    model.ask(Decision((1,), PLAY), [4, 5, 6, ("swap", 4)])
    assert model.swap_prompt() == "x or click: swap your 2♥ for the trump card 7♥"
    model.do_swap()
    assert chosen == [("swap", 4)]


def test_status_line_says_what_happens_now():
    model, _ = make_model(stage="setup", in_deal=False, phase="commit", committed=2)
    assert model.status() == "shuffling… committing 2/4"
    model.update(Snapshot(stage="setup", phase="shuffle", expected=1))
    assert model.status() == "shuffling… 2/4"
    model.update(Snapshot(stage="setup", phase="lock", expected=3))
    assert model.status() == "locking the deck… 4/4"
    model.update(Snapshot(stage="play", in_deal=True, deciding=(2,), decision_kind=PLAY))
    assert model.status() == "waiting for Bot2"
    model.update(Snapshot(stage="seeds", in_deal=True))
    assert model.status() == "auditing the deal…"
    pt, _ = make_model(lang="pt", deciding=(1,))
    assert pt.status() == "à espera de Bot1"


def test_your_turn_is_said_once_the_table_asks():
    """Between the table seeing it is this seat's turn and asking, keys are ignored: the
    status must not say "your turn" yet."""
    model, chosen = make_model(deciding=(0,), decision_kind=PLAY, hand=HAND)
    assert model.status() == "your turn next…" and model.mode != PLAY
    model.ask(Decision((0,), PLAY), [7, 3])
    assert model.status() == "your turn" and model.mode == PLAY


def test_header_shows_trump_and_public_trump_card():
    model, _ = make_model(trump="H", trump_card="7H", trump_holder=3)
    left, trump = model.header()
    assert left.startswith("Sueca · deal 1") and trump == "Trump ♥ hearts · 7♥ with Bot3"
    bisca, _ = make_model("bisca", lang="pt", trump="S", trump_card="AS", trump_holder=None, stock=23)
    left, trump = bisca.header()
    assert "monte 23" in left and trump == "Trunfo ♠ espadas · A♠ debaixo do monte"  # the stock: monte
    copas, _ = make_model("copas", facts=(Line("fact.hearts_broken"),))
    assert copas.header() == ("Copas · deal 1 · hearts broken", "")  # no trumps in the game: none waited for
    sobe, _ = make_model("sobe-e-desce", trump="C", facts=(Line("fact.double"),))
    assert sobe.header() == ("Sobe e Desce · deal 1 · tricks count 2", "Trump ♣ clubs")
    none, _ = make_model("sobe-e-desce", lang="pt")
    assert none.header() == ("Sobe e Desce · mão 1", "Trunfo: ainda por escolher")


def test_trick_laid_toward_players_and_last_trick_kept_until_next_card():
    model, _ = make_model(trick=((1, "AS"), (2, "7S")))
    assert model.trick_cards() == ({"right": "AS", "top": "7S"}, None)
    model.update(Snapshot(stage="play", in_deal=True, trick=(),
                          last_trick=(1, ((1, "AS"), (2, "7S"), (3, "2S"), (0, "KS")), 1)))
    cards, winner = model.trick_cards()
    assert cards == {"right": "AS", "top": "7S", "left": "2S", "bottom": "KS"} and winner == "won by Bot1"
    assert model.last_trick_lines()[-1] == "won by Bot1"


def test_seat_panels_name_bots_and_who_runs_them():
    model, _ = make_model(deciding=(2,), hand_sizes=(10, 9, 9, 10), tricks_won=(0, 1, 0, 0))
    p = model.seat_panel(2)
    assert (p.name, p.marker, p.runs, p.cards, p.turn) == ("Bot2", "bot heuristic", "runs here", "9 cards", True)
    assert model.seat_panel(3).dealer and model.seat_panel(0).marker == "you"
    other = TableModel(model.game, [SeatLabel(0, "Zé"), SeatLabel(1, "X", "random", "abcd-efgh-ijkl-mnop"),
                                    SeatLabel(2, "Y"), SeatLabel(3, "Z")], 0, Text("en"), here="mine")
    assert other.seat_panel(1).runs == "runs on abcd-efgh" and other.seat_panel(2).marker == "person"


def _deal_event(result: dict[str, Any] | None, verdict: str = "clean", seat: int | None = None,
                totals: list[int] | None = None, over: bool = False, reason: str | None = None,
                kind: str | None = None) -> dict[str, Any]:
    return {"type": "deal", "deal": 0, "dealer": 3, "trump": "H", "result": result,
            "audit": {"verdict": verdict, "seat": seat, "kind": kind, "reason": reason},
            "totals": totals or [1, 0], "match_over": over, "winner": None}


def test_deal_summary_with_audit_verdict_and_continue_key():
    model, _ = make_model()
    resumed: list[bool] = []
    model.on_continue = lambda: resumed.append(True)
    model.deal_over(_deal_event({"points": [70, 50], "tricks": [6, 4], "game_points": [1, 0], "multiplier": 1,
                                 "renuncia": None}))
    lines = model.summary_lines()
    assert lines[0] == "Us (You & Bot2) — points 70, tricks 6, game points +1 ★"  # ★: the side that scored
    assert lines[1] == "Them (Bot1 & Bot3) — points 50, tricks 4, game points +0"
    assert "✓ Deal verified: shuffle, keys and every play check out." in lines
    assert model.overlay == "summary" and lines[-1] == "Match: Us 1 · Them 0"
    model.digit(1)  # keys other than Enter/Space do nothing under a summary
    model.enter()
    assert resumed == [True] and model.overlay is None
    model.deal_over(_deal_event({"points": [0, 120], "tricks": [0, 10], "game_points": [4, 0], "multiplier": 1,
                                 "renuncia": 1}, verdict="renuncia", seat=1, reason="seat 1 did not follow suit",
                                kind="renuncia"))
    assert "✗ Renúncia by Bot1: a card the rules did not allow" in model.summary_lines()
    lost = {"points": [0, 0], "tricks": [0, 0], "game_points": [0, 4], "multiplier": 1, "renuncia": 2}
    model.deal_over(_deal_event(lost, verdict="fault", seat=2, reason="bad key"))
    assert "✗ Fault by Bot2: bad key — Bot2 loses the deal." in model.summary_lines()
    model.deal_over(_deal_event(lost, verdict="vote-out", seat=2, reason="silent"))
    assert ("✗ Bot2 was silent past the timeout and was voted out: Bot2 loses the deal and is a dummy from now on."
            in model.summary_lines())
    model.deal_over(_deal_event(None, verdict="void", seat=None, reason="nobody to blame"))
    assert model.summary_lines()[0] == "This deal is void and scores nothing."


def test_a_dummy_is_shown_face_up_on_every_screen_and_a_seat_voted_out_watches():
    model, _ = make_model(in_deal=True, dummies=(1,), dummy_hands={1: ("AS", "7H")}, hand_sizes=(10, 2, 10, 10))
    panel = model.seat_panel(1)
    assert panel.marker == "dummy (voted out)" and panel.cards == "A♠ 7♥"
    assert model.seat_panel(2).cards == "10 cards"
    watcher, _ = make_model(in_deal=True, dummies=(0,), voted_out=True, hand_sizes=(10, 10, 10, 10))
    assert watcher.seat_panel(0).marker == "you (voted out: watching)"
    assert watcher.status().startswith("you were voted out")


def test_match_end_tally_per_game():
    model, _ = make_model()
    exits: list[bool] = []
    model.on_exit = lambda: exits.append(True)
    model.table_over({"type": "final", "winner": 0, "totals": [4, 2], "deals": 5, "transcript_hash": "00"})
    assert model.final_lines()[0] == "You and your partner win!" and model.status() == "the table is over"
    model.enter()
    assert exits == [True]
    sobe, _ = make_model("sobe-e-desce", lang="pt")
    sobe.table_over({"type": "final", "winner": 1, "totals": [11, 0, 2, 5], "deals": 9, "transcript_hash": "00"})
    lines = sobe.final_lines()
    assert lines[0] == "Bot1 ganha a partida!" and lines[2] == "Contas finais (até 0)"
    assert lines[3:] == ["  Eu — pontos 11, riscos -11", "  Bot1 — pontos 0, riscos +18 ★",
                         "  Bot2 — pontos 2, riscos -2", "  Bot3 — pontos 5, riscos -5"]
    copas, _ = make_model("copas")
    copas.table_over({"type": "final", "winner": None, "totals": [3, 10, 9, 4], "deals": 1, "transcript_hash": "0"})
    lines = copas.final_lines()
    assert lines[0].startswith("The table stopped after the deals") and "lowest wins" in lines[2]


def test_windows_quit_asks_first_and_escape_closes():
    model, _ = make_model()
    exits: list[bool] = []
    model.on_exit = lambda: exits.append(True)
    for key, window in (("l", "last"), ("s", "scores"), ("?", "help")):
        model.key(key)
        assert model.overlay == window
        model.key(key)
        assert model.overlay is None
    model.key("q")
    assert model.overlay == "quit"
    model.sit_out()  # n: stay
    assert model.overlay is None and exits == []
    model.key("q")
    model.escape()
    assert model.overlay is None
    model.key("q")
    model.key("y")
    assert exits == [True]
    model.interrupt()
    assert exits == [True, True]


def test_pace_keys_and_too_small():
    model, _ = make_model()
    model.key("+")
    assert model.speed == 0.7
    for _ in range(10):
        model.key("-")
    assert model.speed == 0.0
    assert too_small(60, 30) and too_small(100, 10) and not too_small(80, 24)


def test_score_panel_per_side_and_match():
    model, _ = make_model(points_won=(30, 11, 4, 0), tricks_won=(2, 1, 1, 0), totals=(2, 1))
    lines = model.score_lines()
    assert " Us: 34 pts, 3 tricks" in lines and " Them: 11 pts, 1 trick" in lines
    assert "Match · game points to 4" in lines and " Us: 2" in lines
    copas, _ = make_model("copas", points_won=(0, 13, 2, 0), totals=(10, 20, 30, 40))
    assert " Bot1: 13 points" in copas.score_lines() and "Match · lowest wins" in copas.score_lines()


# ---------------------------------------------------------------------- start screen
@pytest.mark.parametrize("lang", ["en", "pt"])
def test_every_shipped_option_and_value_has_a_label_in_each_language(lang):
    """The start screen's forms show the game's words, never a raw option key like
    ``trump_card`` or ``swap2``: every shipped game gives each option and each value its
    own words in each language (the fallback would show the key as written on the
    command line)."""
    from p2pcards.core import load_games
    for spec in load_games().games.values():
        words = spec.texts.get(lang, {})
        for o in spec.options:
            assert f"option.{o.name}" in words, (spec.name, lang, o.name)
            assert "_" not in spec.text(lang, f"option.{o.name}")
            for v in o.allowed:
                assert f"option.{o.name}.{v}" in words, (spec.name, lang, o.name, v)


def test_start_screen_menu_form_and_choices():
    model = StartModel(list(REGISTRY.games.values()), Text("en"))
    results: list[Any] = []
    model.on_exit = results.append
    assert [s.name for s in model.form.games][:4] == ["sueca", "bisca", "copas", "sobe-e-desce"]
    model.enter()  # play against the computer
    assert model.view == "play" and model.form.rows() == ["game", "trump_card", "target", "all_points", "tie",
                                                           "level", "start"]
    model.right()  # game: bisca
    assert model.form.spec.name == "bisca" and model.form.rows()[1:4] == ["hand", "swap2", "target"]
    model.down()
    model.right()
    model.right()  # hand 7
    model.down()
    model.right()  # swap2 on (Enter would start: the keys line says so)
    model.down()
    model.down()
    model.left()  # level: from search (the default, the strongest) to heuristic
    model.left()  # casual
    model.left()  # random
    assert not results
    model.enter()  # on the level's row: Enter starts with the form as it stands
    assert results[-1].kind == "play" and results[-1].game == "bisca" and results[-1].level == "random"
    assert results[-1].options == {"hand": 7, "swap2": "on", "target": 4}


def test_start_screen_join_by_address_and_lan_list():
    model = StartModel(list(REGISTRY.games.values()), Text("en"))
    results: list[Any] = []
    model.on_exit = results.append
    model.cursor = 3
    model.enter()
    model.type("10.0.0.7:")
    model.enter()
    assert model.error.startswith("expected HOST:PORT") and not results
    model.type("4012")
    model.quit()  # q types while typing an address
    model.backspace()
    model.enter()
    assert results[-1].kind == "join" and (results[-1].host, results[-1].port) == ("10.0.0.7", 4012)
    assert parse_address("[fe80::1]:99") == ("fe80::1", 99) and parse_address("host") is None
    model.back()
    model.cursor = 2
    model.enter()
    e = LanEntry("t1._p2pcards._tcp.local.", "t1", "sueca", "Ana", "192.0.2.1", 4000, 3, None)
    model.table_seen("appear", e)
    model.table_seen("appear", LanEntry("t0.x", "t0", "copas", "Rui", "192.0.2.2", 4001, 0, "every seat is taken"))
    assert [t.name for t in model.tables()] == ["t0", "t1"]
    model.enter()
    assert model.error == "every seat is taken"
    model.down()
    model.enter()
    assert results[-1].kind == "join" and results[-1].port == 4000
    model.table_seen("vanish", e)
    assert [t.name for t in model.tables()] == ["t0"]
    model.back()
    model.cursor = 1
    model.enter()  # host a LAN table: the form has the seats for LAN players
    assert model.view == "host" and model.host_form.rows()[-3:] == ["remote", "level", "start"]
    rows = model.host_form.rows()
    model.row = rows.index("remote")
    assert model.host_form.value("remote") == "3"
    model.left()
    model.left()  # 1 player on the LAN, two computer players
    assert model.host_form.value("remote") == "1"
    model.left()  # wraps round to 3
    assert model.host_form.value("remote") == "3"
    model.right()
    model.row = len(rows) - 1
    model.enter()
    assert results[-1].kind == "host" and results[-1].game == "sueca" and results[-1].remote == 1
    model.view = "lan"
    model.table_seen("appear", LanEntry("t2.x", "t2", "bisca", "Inês", "192.0.2.3", 4002, 1, None, "ab-cd"))
    model.lan_cursor = [t.name for t in model.tables()].index("t2")
    model.enter()  # the announced host's fingerprint goes along, to be checked when seated
    assert results[-1].kind == "join" and results[-1].fingerprint == "ab-cd"
    model.back()
    model.quit()
    assert results[-1] is None


def test_tui_layers_stay_out_of_the_view_model_and_sans_io_layers():
    code = ("import sys, p2pcards.tui.model, p2pcards.tui.start_model, p2pcards.core, p2pcards.table.table; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('prompt_toolkit', 'trio')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


# ---------------------------------------------------------------------- dialogs and polish
COPAS_HAND = ((0, "AS"), (1, "KS"), (2, "QS"), (3, "AH"), (4, "KH"), (5, "QH"), (6, "AC"), (7, "KC"), (8, "QC"),
              (9, "AD"), (10, "KD"), (11, "QD"), (12, "JD"))


def test_copas_a_fourth_mark_is_refused_and_says_why():
    model, chosen = make_model("copas", hand=COPAS_HAND[:5], info={"pass_direction": "right"})
    model.ask(Decision((0, 1, 2, 3), PASS, (3, 3)), [p for p, _ in COPAS_HAND[:5]])
    for d in (1, 2, 3, 4):
        model.digit(d)
    marked = [hc.label for hc in model.hand_cards() if hc.picked]
    assert marked == ["A♠", "K♠", "Q♠"]  # the first mark stays; the fourth is refused
    assert "3 cards are marked already" in model.dialog_lines()[-1]
    model.digit(1)  # unmarking works, and then a new mark does
    model.digit(4)
    assert [hc.label for hc in model.hand_cards() if hc.picked] == ["K♠", "Q♠", "A♥"]
    model.enter()
    assert len(chosen[0]) == 3


def test_every_card_of_a_copas_hand_has_a_key_and_the_prompt_says_which():
    model, chosen = make_model("copas", hand=COPAS_HAND, hand_sizes=(13,) * 4)
    model.ask(Decision((0,), PLAY), [p for p, _ in COPAS_HAND])
    keys = [hc.key for hc in model.hand_cards()]
    assert keys == list("1234567890abc")
    assert "1-9, 0, a-c: that card" in model.prompt()
    assert any(line.startswith("1-9, 0, a-c") for line in model.help_lines())
    model.card_key("c")  # the 13th card in hand order
    assert chosen == [model.hand_order()[12][0]]
    short, _ = make_model("sueca", hand=HAND)
    short.ask(Decision((0,), PLAY), [p for p, _ in HAND])
    assert "1-5: that card" in short.prompt()  # the keys there are, not more
    pt, _ = make_model("copas", lang="pt", hand=COPAS_HAND[:11], dialog=(Line("pass.left", seats={"name": 1}),))
    pt.ask(Decision((0, 1, 2, 3), PASS, (3, 3)), [p for p, _ in COPAS_HAND[:11]])
    assert "Espaço, 1-9, 0, a ou um clique marca uma carta" in pt.dialog_lines()[1]


def test_copas_two_of_clubs_lead_is_announced_and_received_cards_marked():
    hand = ((40, "3C"), (41, "4H"), (42, "9S"))
    lead = (Line("note.two_clubs", seats={"name": 2}),)
    model, _ = make_model("copas", hand=hand, trick=((2, "2C"),), received=("4H", "9S"), received_from=3,
                          notes=lead)
    assert model.notices() == ["Bot2 leads 2♣: whoever holds 2♣ opens the first trick",
                               "Bot3 passed you 4♥ 9♠ (marked *)"]
    assert [(hc.label, hc.received) for hc in model.hand_cards()] == [("9♠", True), ("4♥", True), ("3♣", False)]
    first = ((2, "2C"), (3, "5C"), (0, "3C"), (1, "KC"))
    model.update(Snapshot(stage="play", in_deal=True, trick=(), last_trick=(2, first, 1), tricks_played=1,
                          received=("4H",), received_from=3, notes=lead))
    cards, winner = model.trick_cards()  # the first trick stays on the table like any other
    assert cards == {"top": "2C", "right": "5C", "bottom": "3C", "left": "KC"} and winner == "won by Bot1"
    assert model.notices()[0].startswith("Bot2 leads 2♣")
    model.update(Snapshot(stage="play", in_deal=True, trick=((1, "AS"),), last_trick=(2, first, 1), tricks_played=1))
    assert model.notices() == []  # the next trick started
    mine, _ = make_model("copas", lang="pt", trick=((0, "2C"),), notes=(Line("note.two_clubs_you"),))
    assert mine.notices() == ["O seu 2♣ foi jogado por si: quem tem o 2♣ abre a primeira vaza"]


@pytest.mark.parametrize(("info", "trump", "reason"), [
    ({"trump_chooser": 0, "scores": [20, 20, 20, 20], "sat_out": [0, 0, 0, 0]}, "S", "you chose trumps"),
    ({"trump_chooser": 1, "scores": [20, 20, 20, 20], "sat_out": [0, 0, 0, 0]}, "H", "hearts are trumps"),
    ({"trump_chooser": 1, "scores": [4, 20, 20, 20], "sat_out": [0, 0, 0, 0]}, "S", "you are at 4 points"),
    ({"trump_chooser": 1, "scores": [12, 20, 20, 20], "sat_out": [2, 0, 0, 0]}, "D", "you sat out the 2 deals"),
])
def test_sobe_e_desce_must_play_says_which_rule(info, trump, reason):
    """The reason comes from the game's own deal state, at its going-in decision."""
    from p2pcards_sobe_e_desce.game import SobeEDesceDeal

    dealer = (info["trump_chooser"] - 1) % 4
    deal = at_decision(SobeEDesceDeal(dealer, {}, Deck.full(4, list(PORTUGUESE_40)),
                                      0, info["scores"], info["sat_out"]))
    deal.apply(deal.chooser, trump)
    at_decision(deal)
    while 0 not in deal.undecided():  # the players before the person go in, exchanging nothing
        deal.apply(deal.undecided()[0], ())
        at_decision(deal)
    model, _ = make_model("sobe-e-desce", hand=HAND, trump=trump, **game_fields(deal, 0))
    model.ask(Decision((0,), GO_IN, (0, 5), may_decline=False), [p for p, _ in HAND])
    line = model.dialog_lines()[1]
    assert line.startswith("You must play this deal: ") and reason in line
    pt, _ = make_model("sobe-e-desce", lang="pt", hand=HAND, trump=trump, **game_fields(deal, 0))
    pt.ask(Decision((0,), GO_IN, (0, 5), may_decline=False), [p for p, _ in HAND])
    assert pt.dialog_lines()[1].startswith("Tem de jogar esta mão: ")


def test_sobe_e_desce_trump_list_moves_with_up_and_down_too():
    model, chosen = make_model("sobe-e-desce", hand=HAND[:3], **sobe_trump_fields())
    model.ask(Decision((0,), TRUMP), ["S", "H", "D", "C", "turn"])
    model.down()
    model.down()
    model.up()
    assert model.choice_cursor == 1 and "↑/↓" in model.dialog_lines()[1]
    model.enter()
    assert chosen == ["H"]


def test_portuguese_words_for_bots_the_stock_and_leaving():
    model, _ = make_model(lang="pt")
    panel = model.seat_panel(1)
    assert (panel.marker, panel.runs) == ("bot heurístico", "neste computador")
    assert "heuristic" not in panel.marker and make_model()[0].seat_panel(1).marker == "bot heuristic"
    exits: list[bool] = []
    model.on_exit = lambda: exits.append(True)
    model.key("q")
    assert "y " not in model.text("quit_keys")
    model.key("s")  # "sim"
    assert exits == [True]
    english, _ = make_model()
    english.key("q")
    english.key("s")  # in English, s is not yes: it shows the scores
    assert english.overlay == "scores"


def test_singular_and_plural_and_you_inside_a_sentence():
    model, _ = make_model("sobe-e-desce", tricks_won=(1, 0, 2, 0))
    assert " You: 1 trick" in model.score_lines() and " Bot2: 2 tricks" in model.score_lines()
    copas, _ = make_model("copas", lang="pt", points_won=(1, 0, 13, 0))
    assert " Eu: 1 ponto" in copas.score_lines() and " Bot2: 13 pontos" in copas.score_lines()
    model.update(Snapshot(stage="play", in_deal=True, last_trick=(1, ((1, "AS"), (0, "7S")), 0)))
    assert model.last_trick_lines()[-1] == "won by you" and model.trick_cards()[1] == "won by you"
    pt, _ = make_model(lang="pt", last_trick=(1, ((1, "AS"), (0, "7S")), 0))
    # European Portuguese: the person's own trick without "você" ("ganha: você" before)
    assert pt.last_trick_lines()[-1] == "a vaza é sua" and pt.last_trick_lines()[0] == "Bot1: A♠"
    other, _ = make_model(lang="pt", last_trick=(1, ((1, "AS"), (0, "7S")), 1))
    assert other.last_trick_lines()[-1] == "ganha: Bot1"
    held, _ = make_model(trump="H", trump_card="7H", trump_holder=0)
    assert held.header()[1].endswith("7♥ with you")
    held.deal_over(_deal_event(None, verdict="fault", seat=0, reason="bad key"))
    assert "✗ Fault by you: bad key — you lose the deal." in held.summary_lines()


def test_help_is_one_aligned_column_in_both_languages():
    for lang in ("en", "pt"):
        model, _ = make_model(lang=lang)
        lines = model.help_lines()
        width = max(len(line.split("  ")[0]) for line in lines)
        for line in lines:
            assert line[width:width + 2] == "  " and line[width + 2] != " ", (lang, line)


def test_a_refused_message_is_told_under_the_trick_until_the_deal_is_over():
    from p2pcards.words import Text

    model, _ = make_model("sueca")
    assert model.notices() == []
    model.refused(2)
    (line,) = model.notices()
    assert "refused" in line and model.name(2) in line and "blamed" in line
    model.refused(None)
    assert model.notices() == [model.text("refused_nobody")]
    model.deal_over({"type": "deal", "deal": 0, "result": {}, "totals": [0, 0], "verdict": "clean"})
    assert model.notices() == []
    model.text = Text("pt")
    model.refused(1)
    assert "recusada" in model.notices()[0]


def test_a_verdict_says_why_in_the_tables_language_not_in_the_wire_numbering():
    from p2pcards.words import Text

    model, _ = make_model()
    lost = {"points": [0, 0], "tricks": [0, 0], "game_points": [0, 4], "multiplier": 1, "renuncia": 2}
    event = _deal_event(lost, verdict="fault", seat=2, kind="bad-shuffle",
                        reason="seat 2's shuffle proof does not verify")
    model.deal_over(event)
    assert "✗ Fault by Bot2: a shuffle that does not prove itself — Bot2 loses the deal." in model.summary_lines()
    model.text = Text("pt")
    model.deal_over(event)
    line = next(x for x in model.summary_lines() if x.startswith("✗"))
    assert "um baralhar sem prova válida" in line and "shuffle" not in line and "seat 2" not in line
    model.deal_over(_deal_event(lost, verdict="fault", seat=2, kind="something-new", reason="a new fault"))
    assert any("a new fault" in x for x in model.summary_lines())  # a kind this screen does not know: as sent


@pytest.mark.parametrize("lang", ["en", "pt"])
def test_the_help_window_wraps_each_meaning_under_itself_at_80_columns(lang, monkeypatch):
    """At 80×24 a key's meaning that does not fit goes on under the meanings' column, not
    under the keys, so that the column of keys stays readable."""
    from p2pcards.tui import layout

    model, _ = make_model(lang=lang)
    model.key("?")
    assert model.overlay == "help"
    monkeypatch.setattr(layout, "terminal_size", lambda: (80, 24))
    rows = "".join(text for _, text, *_ in layout.overlay_fragments(model)).split("\n")
    keys = [line.split("\t", 1) for line in model.text("help").split("\n")]
    column = max(len(k[0]) for k in keys if len(k) == 2) + 2  # where the meanings start
    body = [row[1:] for row in rows if row.startswith(" ")]
    wrapped = [row for row in body if row.strip() and row[:column].strip() == "" ]
    assert wrapped, body  # some meaning is long enough to wrap at this width
    assert all(row.startswith(" " * column) and not row[column].isspace() for row in wrapped), wrapped
    assert all(len(row) <= 80 - 8 + 1 for row in body), body
