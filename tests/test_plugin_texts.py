"""Game plugins supply their words (title, description, option labels, help and value labels)
in every language of the screens, and every screen shows them in the person's language; a
plugin that supplies none still works, in its own English words."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest

import p2pcards.cli as cli
from p2pcards.core import Decision, GameRegistry, GameSpec, Line, Match, Option, load_games
from p2pcards.identity import Identity
from p2pcards.textplay import play_text
from p2pcards.tui.lan import JoinPlan, LanTable
from p2pcards.tui.lobby_screen import LobbyModel
from p2pcards.tui.model import GameInfo, SeatLabel, Snapshot, TableModel
from p2pcards.tui.start import start_fragments
from p2pcards.tui.start_model import LanEntry, SavedEntry, StartModel
from p2pcards.words import LANGS, Text
from tests.plugin_highcard.p2pcards_highcard import SPEC as HIGHCARD

REGISTRY = load_games()
GAMES = sorted(REGISTRY.games)


#: Highcard's match with the contract's own summary (a plugin that writes none).
PlainMatch = type("PlainMatch", (HIGHCARD.match_class,), {"deal_summary": Match.__dict__["deal_summary"]})


def bare(**texts: dict[str, str]) -> GameSpec:
    """A game that supplies no words of its own (or only ``texts``), as a third-party plugin may."""
    return GameSpec(name="plain", title="Plain", seats=2, deck=HIGHCARD.deck,
                    options=(Option("speed", ("slow", 3), "how fast the cards go"),), rules_version="1",
                    match_class=PlainMatch, description="a game with English words only", texts=texts)


def drawn(model: StartModel) -> str:
    return "".join(f[1] for f in start_fragments(model))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("lang", [lang for lang in LANGS if lang != "en"])
def test_every_game_supplies_every_word_in_every_language(game: str, lang: str):
    """A new built-in option (or value) without its Portuguese words fails here."""
    spec = REGISTRY.get(game)
    words = spec.texts.get(lang, {})
    assert [key for key in spec.text_keys() if not words.get(key, "").strip()] == []
    assert set(words) <= set(spec.text_keys()), "a word for a key the game does not have (a typo?)"
    assert spec.text(lang, "description") != spec.description


def test_the_keys_are_the_title_description_and_each_option_and_value():
    spec = REGISTRY.get("sueca")
    keys = spec.text_keys()
    assert keys[:2] == ["title", "description"]
    assert {"option.tie", "option.tie.help", "option.tie.none", "option.tie.double", "option.target.8"} <= set(keys)
    assert spec.text("pt", "option.tie.double") == "a dobrar"
    assert spec.text("pt", "option.trump_card") == "carta de trunfo"
    assert spec.text("en", "option.tie.double") == "next deal double" and spec.text("en", "option.tie") == "60:60"


def test_a_game_without_words_falls_back_to_its_own_english():
    spec = bare()
    for lang in LANGS:
        assert spec.text(lang, "title") == "Plain"
        assert spec.text(lang, "description") == "a game with English words only"
        assert spec.text(lang, "option.speed") == "speed"
        assert spec.text(lang, "option.speed.help") == "how fast the cards go"
        assert spec.text(lang, "option.speed.slow") == "slow" and spec.text(lang, "option.speed.3") == "3"
    with pytest.raises(KeyError, match="plain has no words for 'option.colour'"):
        spec.text("pt", "option.colour")
    some = bare(pt={"title": "Simples", "option.speed.3": "depressa"})
    assert some.text("pt", "title") == "Simples" and some.text("en", "title") == "Plain"
    assert some.text("pt", "option.speed.3") == "depressa" and some.text("pt", "option.speed.slow") == "slow"
    assert some.text("pt", "description") == "a game with English words only"
    # and the start screen shows it, in its English words, on a Portuguese screen
    model = StartModel([spec], Text("pt"))
    model.view = "play"
    screen = drawn(model)
    assert "Plain" in screen and "a game with English words only" in screen
    model.row = model.form.rows().index("speed")
    model.right()
    assert "speed" in drawn(model) and "◀ 3 ▶" in drawn(model) and "how fast the cards go" in drawn(model)
    assert model.form.options() == {"speed": 3}


def test_the_start_screen_shows_the_games_words_and_keeps_the_values():
    model = StartModel([REGISTRY.get("sueca"), HIGHCARD], Text("pt"))
    model.view = "play"
    model.row = model.form.rows().index("tie")
    model.right()
    screen = drawn(model)
    assert "empate" in screen and "◀ a dobrar ▶" in screen
    assert "depois de um 60:60, se a mão seguinte conta a dobrar" in screen
    assert "4 jogadores em duas equipas" in screen
    assert "double" not in screen and "trump_card" not in screen
    chosen = []
    model.on_exit = chosen.append
    model.row = model.form.rows().index("start")
    model.enter()
    assert chosen[0].options["tie"] == "double"  # what the table gets is the value, not its label
    model.view = "host"
    model.row = 0
    model.right()
    screen = drawn(model)
    assert "◀ Carta Alta ▶" in screen and "cor" in screen and "◀ simples ▶" in screen
    assert "Highcard" not in screen
    english = StartModel([HIGHCARD], Text("en"))
    english.view = "play"
    assert "◀ Highcard ▶" in drawn(english) and "◀ plain ▶" in drawn(english) and "colour" in drawn(english)


def test_the_lan_and_saved_lists_name_the_game_in_the_screens_language(tmp_path: Path):
    model = StartModel([REGISTRY.get("sueca"), HIGHCARD], Text("pt"))
    model.view = "lan"
    model.table_seen("appear", LanEntry("t1.x", "t1", "highcard", "Ana", "192.0.2.1", 4000, 1, None))
    model.table_seen("appear", LanEntry("t2.x", "t2", "unknown-game", "Rui", "192.0.2.2", 4000, 1, "?"))
    screen = drawn(model)
    assert "Carta Alta" in screen and "highcard" not in screen and "unknown-game" in screen
    model.view = "saved"
    model.saved = [SavedEntry("ab" * 16, "highcard", "local", "", "unfinished", tmp_path / "m.json")]
    screen = drawn(model)
    assert "Carta Alta abababab" in screen and "highcard" not in screen


def test_the_lobby_names_the_game_in_the_screens_language(tmp_path: Path):
    lobby = LobbyModel(Text("pt"), {"highcard": HIGHCARD})
    assert lobby.game_title("highcard") == "Carta Alta" and lobby.game_title("other") == "other"
    assert LobbyModel(Text("en"), {"highcard": HIGHCARD}).game_title("highcard") == "Highcard"
    registry = GameRegistry()
    registry.add_game(HIGHCARD)
    table = LanTable(registry, JoinPlan("192.0.2.1", 4000), me=Identity.generate("Zé"), text=Text("pt"),
                     data_dir=tmp_path)
    assert table.lobby.game_title("highcard") == "Carta Alta"


def test_the_table_header_names_the_game_in_the_screens_language():
    def header(lang: str) -> str:
        seats = [SeatLabel(0, "Zé"), SeatLabel(1, "Bot1", "random", "fp")]
        model = TableModel(GameInfo.of(HIGHCARD, {"colour": "plain"}), seats, 0, Text(lang), here="fp")
        model.update(Snapshot(stage="play", in_deal=True, hand_sizes=(3, 3), tricks_won=(0, 0), points_won=(0, 0),
                              totals=(0, 0), dealer=1))
        return model.header()[0]

    assert header("pt").startswith("Carta Alta · mão 1")
    assert header("en").startswith("Highcard · deal 1")
    assert GameInfo.of(bare(), {}).title_in("pt") == "Plain"


def test_text_mode_first_line_names_the_game_in_its_language():
    out = io.StringIO()
    play_text(HIGHCARD, HIGHCARD.resolve_options({}), "random", 1, 1, io.StringIO("q\n"), out, lang="pt")
    assert out.getvalue().splitlines()[0].startswith("Carta Alta")
    out = io.StringIO()
    play_text(HIGHCARD, HIGHCARD.resolve_options({}), "random", 1, 1, io.StringIO("q\n"), out)
    assert "Highcard" in out.getvalue().splitlines()[0]


def games_output(*argv: str) -> str:
    out = io.StringIO()
    assert cli.main([*argv, "games"], out) == 0
    return out.getvalue()


def test_games_in_portuguese_and_unchanged_without_lang():
    pt = games_output("--lang", "pt")
    en = games_output()
    for name in GAMES:
        spec = REGISTRY.get(name)
        assert f"{spec.text('pt', 'title')} — {spec.text('pt', 'description')}" in pt
        assert f"{spec.title} — {spec.description}" in en and spec.text("pt", "description") not in en
        for o in spec.options:
            flag = f"-o {o.name}=" + "|".join(str(v) for v in o.allowed)
            # the values stay what is typed after -o; the words around them are the game's Portuguese
            assert f"{flag:<28} {spec.text('pt', f'option.{o.name}')}, por omissão {o.default}" in pt
            assert spec.text("pt", f"option.{o.name}.help") in pt
            label = spec.text("en", f"option.{o.name}.{o.default}")  # said beside the value when it differs
            default = str(o.default) + (f" ({label})" if label != str(o.default) else "")
            assert f"    {flag:<28} default {default}: {o.help}\n" in en
    assert "(4 jogos): jogos que ganham a partida (a bandeira)" in pt
    assert "default" not in pt and "players" not in pt
    assert "sobe-e-desce   Sobe e Desce — 4 players each for themselves, 5 tricks a deal, from 20 points down to 0 " \
           "(40 cards)\n" in en
    assert games_output("--lang", "en") == en


# ---------------------------------------------------------------------- plugins reach the screen
def highcard_deal(dealer: int = 1) -> Any:
    """A whole Highcard deal played in full information, every seat playing its first legal card."""
    match = HIGHCARD.new_match({}, dealer)
    deal = match.new_deal(list(HIGHCARD.deck))
    while not deal.over:
        step = deal.step()
        if isinstance(step, Decision):
            deal.apply(step.seats[0], deal.legal(step.seats[0])[0])
        else:
            deal.complete()
    match.record(deal)
    return match, deal


def highcard_model(lang: str) -> TableModel:
    seats = [SeatLabel(0, "Zé"), SeatLabel(1, "Ana", "random", "fp")]
    model = TableModel(GameInfo.of(HIGHCARD, {"colour": "plain"}), seats, 0, Text(lang), here="fp")
    model.update(Snapshot(stage="play", in_deal=True, hand_sizes=(3, 3), tricks_won=(0, 0), points_won=(0, 0),
                          totals=(0, 0), dealer=1, facts=(Line("fact.left", {"n": 3}),)))
    return model


@pytest.mark.parametrize(("lang", "rows", "note"), [
    ("en", ["You — high cards 2 ★", "Ana — high cards 1"], "The deal goes to you"),
    ("pt", ["Eu — cartas altas 2 ★", "Ana — cartas altas 1"], "A mão fica para si"),
])
def test_a_plugin_games_deal_summary_reads_as_the_plugin_describes_it(lang: str, rows: list[str], note: str):
    """A third-party game's result is laid out from its own Summary, in its own words, in the
    screen's language -- never as a raw dict."""
    match, deal = highcard_deal()
    assert sum(deal.result["tricks"]) == 3  # a real result has this shape
    model = highcard_model(lang)
    model.deal_over({"type": "deal", "deal": 0, "result": {"tricks": [2, 1], "renuncia": None},
                     "audit": {"verdict": "clean"}, "totals": [2, 1]})
    lines = model.summary_lines()
    assert lines[:3] == [*rows, note]
    assert not any("{" in x or "[" in x or "tricks:" in x for x in lines), lines
    assert model.header()[0].endswith("3 to play" if lang == "en" else "faltam 3")
    assert model.header()[1] == ""  # a game without trumps waits for none
    assert model.match_rule() == ("one deal, most high cards" if lang == "en" else "uma mão, mais cartas altas")


def test_a_plugin_games_deal_summary_in_text_mode_in_both_languages():
    for lang, row, note in (("en", "  You — high cards", "The deal goes to"),
                            ("pt", "  Eu — cartas altas", "A mão fica para")):
        out = io.StringIO()
        play_text(HIGHCARD, HIGHCARD.resolve_options({}), "random", 1, 1, io.StringIO("1\n1\n1\n"), out, lang=lang)
        text = out.getvalue()
        assert row in text and note in text and "'tricks'" not in text and "tricks: [" not in text, text


def test_a_game_without_a_summary_of_its_own_reads_by_columns_not_as_a_dict():
    spec = bare()
    summary = spec.deal_summary({"tricks": [2, 1], "renuncia": None})
    assert summary.columns == ("tricks",) and summary.rows == ((0, (2,)), (1, (1,)))
    model = TableModel(GameInfo.of(spec, {}), [SeatLabel(0, "Zé"), SeatLabel(1, "Ana")], 0, Text("en"))
    model.deal_over({"type": "deal", "deal": 0, "result": {"tricks": [2, 1], "renuncia": None},
                     "audit": {"verdict": "clean"}, "totals": [2, 1]})
    assert model.summary_lines()[:2] == ["You — tricks 2", "Ana — tricks 1"]


def test_the_spec_takes_the_match_class_and_loads_the_heuristic_lazily():
    sueca = REGISTRY.get("sueca")
    assert sueca.heuristic_class == "p2pcards_sueca.heuristic:SuecaHeuristic"
    assert sueca.heuristic is not None and type(sueca.heuristic(__import__("random").Random(1))).__name__ \
        == "SuecaHeuristic"
    match = sueca.new_match({"target": "8"}, 2)  # options resolved: defaults filled, values parsed
    assert isinstance(match, sueca.match_class) and match.options["target"] == 8 and match.dealer == 2
    assert bare().heuristic is None  # a game without one: the random player plays its heuristic level
    with pytest.raises(ValueError, match="heuristic_class 'no_colon' is not 'module:Name'"):
        GameSpec(name="x", title="X", seats=2, deck=HIGHCARD.deck, options=(), rules_version="1",
                 match_class=HIGHCARD.match_class, heuristic_class="no_colon")
    # the batch simulator too is named and loaded on first use
    from p2pcards.players.simulators import TrickSimulator, simulator_for

    assert sueca.simulator == "p2pcards_sueca.fastsim:SIMULATOR"
    assert isinstance(simulator_for(sueca), TrickSimulator) and simulator_for(bare()) is None
    with pytest.raises(ValueError, match="simulator 'x:' is not 'module:Name'"):
        GameSpec(name="x", title="X", seats=2, deck=HIGHCARD.deck, options=(), rules_version="1",
                 match_class=HIGHCARD.match_class, simulator="x:")


def test_a_games_own_keys_are_among_its_text_keys():
    keys = HIGHCARD.text_keys()
    assert {"tricks", "deal_to", "fact.left", "match_rule"} <= set(keys) and keys[:2] == ["title", "description"]
    assert HIGHCARD.text("pt", "deal_to") == "A mão fica para {name}"
    assert bare(en={"extra": "Extra"}).text("pt", "extra") == "Extra"  # English when a language lacks it
    assert bare().text("pt", "nothing", default="-") == "-"


SCREENS = ["tui/model.py", "tui/windows.py", "tui/layout.py", "tui/app.py", "tui/start.py", "tui/start_model.py",
           "tui/start_past.py", "tui/keys.py", "tui/cards.py", "words/text.py", "words/en.py", "words/pt.py",
           "words/games.py", "textplay/__init__.py", "textplay/words.py", "textplay/narration.py", "textplay/seat.py"]


@pytest.mark.parametrize("path", SCREENS)
def test_the_screens_name_no_game_and_apply_no_games_rule(path: str):
    """What differs between games comes from the games: the screens hold no game's name,
    title or rule constant (the Portuguese word for hearts, "copas", is a suit's name)."""
    source = (Path(cli.__file__).parent.parent / path).read_text(encoding="utf-8").lower()
    source = source.replace('"suit_h": "copas"', "").replace("hearts / copas", "")
    for spec in REGISTRY.games.values():
        for word in {spec.name, spec.title.lower(), spec.name.replace("-", "_")}:
            assert word not in source, (path, word)
    for constant in ("must_play_at", "max_sit_out", "clockwise_games", "trump_choices", "preferred = ", "2c\""):
        assert constant not in source, (path, constant)
