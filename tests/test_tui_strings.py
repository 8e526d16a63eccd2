"""Every word on the full-screen table, start screen and lobby comes from the translation
table: the two languages have the same keys and fields, and a Portuguese screen shows no
English word of the English table (a string built outside :mod:`p2pcards.words` would)."""

from __future__ import annotations

import re
import string
from pathlib import Path

import pytest

from p2pcards.tui.lobby_screen import LobbyModel
from p2pcards.tui.start import start_fragments
from p2pcards.tui.start_model import LanEntry, StartModel
from p2pcards.words import STRINGS, Text
from p2pcards.words.en import EN
from p2pcards.words.pt import PT
from tests.helpers import european_faults
from tests.test_tui_app import REGISTRY, drive, local

WORD = re.compile(r"[A-Za-z]{3,}")


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def _words(texts: list[str]) -> set[str]:
    return {w.lower() for t in texts for w in WORD.findall(re.sub(r"\{[^}]*\}", " ", t))}


def english_only() -> set[str]:
    """Words of the English strings that no Portuguese string uses ("won", "trick", "heuristic"...)."""
    return _words([v for k, v in EN.items() if v != PT[k]]) - _words(list(PT.values()))


def plugin_english_only() -> set[str]:
    """Words of what the game plugins supply in English (titles, descriptions, option names,
    values and help) that neither their Portuguese words nor the Portuguese table use."""
    english, portuguese = [], []
    for spec in REGISTRY.games.values():
        english += [spec.title, spec.description]
        for o in spec.options:
            english += [o.name, o.help, *map(str, o.allowed)]
        portuguese += [spec.text("pt", key) for key in spec.text_keys()]
    return _words(english) - _words(portuguese) - _words(list(PT.values()))


def english_in(screen: str) -> set[str]:
    """English words of the table or of a game plugin on a Portuguese screen, leaving out
    file paths (the transcript's path in the leave dialog)."""
    words = english_only() | plugin_english_only()
    screen = re.sub(r"\S*/\S*", " ", screen)
    return {w for w in _words([screen]) if w in words}


def test_both_languages_have_the_same_keys_and_fields():
    assert set(STRINGS["en"]) == set(STRINGS["pt"])
    assert {k for k in EN if _fields(EN[k]) != _fields(PT[k])} == set()


def test_portuguese_is_european_portuguese():
    """One variant, European Portuguese: "você" (Brazilian, and a slight in Portugal) is in no
    word of the table, the commands or a game; the person's own deeds have words of their own
    (``KEY_you``), and the check below does find the faults it looks for."""
    texts = list(PT.values()) + [spec.text("pt", key) for spec in REGISTRY.games.values() for key in spec.text_keys()]
    assert [x for x in texts if re.search(r"\bvocê\b", x, re.IGNORECASE)] == []
    assert european_faults("Você jogou 7♥ · Eu levou a vaza · ganha: você") == ["Você", "Eu levou", "você"]
    assert european_faults("Jogou 7♥ · Levou a vaza · a vaza é sua · A mão fica para si · Abro eu") == []


def test_the_word_list_is_a_real_check():
    """The check would see a string left in English: the words it looks for are the table's
    and the game plugins'."""
    words = english_only()
    assert {"won", "trick", "heuristic", "stock", "leaves"} <= words
    assert english_in("ganha: você · won by you · /a/tables/b/seat0.log") == {"won", "you"}
    assert {"dealer", "double", "broken", "standard", "swap", "hand"} <= plugin_english_only()
    screen = "Sueca · empate ◀ double ▶ whether hearts may be led"
    assert english_in(screen) == {"double", "whether", "hearts", "may", "led"}


@pytest.mark.parametrize("game", sorted(REGISTRY.games))
def test_portuguese_play_form_shows_no_english_word_of_the_game(game: str):
    """Every row of the play and host forms, at every value of every option: the game's title,
    description, option labels, values and help all in Portuguese."""
    spec = REGISTRY.get(game)
    model = StartModel([spec], Text("pt"))
    screens = []
    for view in ("play", "host"):
        model.view = view
        form = model.active_form
        for row, name in enumerate(form.rows()):
            model.row = row
            for o in spec.options:
                if o.name == name:
                    for _ in o.allowed:
                        screens.append("".join(f[1] for f in start_fragments(model)))
                        model.right()
            screens.append("".join(f[1] for f in start_fragments(model)))
    drawn = "\n".join(screens)
    assert spec.text("pt", "description") in drawn
    for o in spec.options:
        assert all(spec.text("pt", f"option.{o.name}.{v}") in drawn for v in o.allowed)
    assert english_in(drawn) == set()


@pytest.mark.parametrize(("game", "seed"), [("sueca", 2), ("copas", 1)])
def test_a_portuguese_deal_shows_no_english_word(game: str, seed: int, tmp_path: Path):
    table = local(game, tmp_path, lang="pt", seed=seed)
    typist, out = drive(table)
    assert table.outcome == "over" and typist.final
    drawn = out.drawn()
    assert "Teclas" in drawn and "Sair da mesa?" in drawn and "Última vaza" in drawn  # the windows were drawn
    assert "bot aleatório" in drawn  # the level of the computer players, in words of the screen
    if game == "copas":
        assert "passou-lhe" in drawn and "2♣" in drawn
    assert english_in(drawn) == set()
    assert european_faults(drawn) == []


def test_portuguese_start_screen_and_lobby_show_no_english_word():
    text = Text("pt")
    model = StartModel(list(REGISTRY.games.values()), text)
    screens = []
    for view in ("menu", "play", "host", "lan", "join", "saved"):
        model.view = view
        screens.append("".join(f[1] for f in start_fragments(model)))
    model.view = "play"
    model.row = model.form.rows().index("level")
    screens.append("".join(f[1] for f in start_fragments(model)))
    model.view = "lan"
    model.table_seen("appear", LanEntry("t1.x", "t1", "sueca", "Ana", "192.0.2.1", 4000, 1, None))
    screens.append("".join(f[1] for f in start_fragments(model)))
    lobby = LobbyModel(text)
    lobby.say("what", text("lobby_hosting", game="Sueca", seat=1))
    lobby.say("where", text("lobby_listening", address="192.0.2.1:4000"))
    lobby.say("seats", text("lobby_seats", taken=1, total=4))
    lobby.wait(text("lobby_fill"))
    screens.append("".join(f[1] for f in lobby.fragments()) + lobby.keys_line())
    drawn = "\n".join(screens)
    assert "pesquisa (o mais forte)" in drawn and "1 lugar livre" in drawn  # the default level, in Portuguese
    assert english_in(drawn) == set()
