"""``p2pcards play`` in line mode, driven through a pipe as a person would type."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest

import p2pcards.cli as cli
from p2pcards.core import load_games
from p2pcards.textplay import play_text
from p2pcards.words.en import EN
from p2pcards.words.pt import PT
from tests.helpers import european_faults

TEXT_EN = {k: v for k, v in EN.items() if k.startswith("text_")}
TEXT_PT = {k: v for k, v in PT.items() if k.startswith("text_")}


def typist(lines: int) -> io.StringIO:
    """A person who tries card 1, 2, 3... in turn; illegal tries are refused and asked again."""
    return io.StringIO("".join(f"{i % 10 + 1}\n" for i in range(lines)))


def every_game_typist() -> io.StringIO:
    """Over and over: "1 2 3" for a Copas pass, Enter to go in as dealt, 2 for trumps, a
    word that is no number at all, then the card numbers 1..13 (some past the hand's end)."""
    return io.StringIO(("1 2 3\n\n2\nabc\n" + "".join(f"{n}\n" for n in range(1, 14))) * 400)


def play(game: str, *, lang: str = "en", seed: int = 1, deals: int | None = 1, bots: str = "random",
         options: dict[str, str] | None = None, inp: io.StringIO | None = None) -> tuple[int, str]:
    spec = load_games().get(game)
    out = io.StringIO()
    by_lang = {} if lang == "en" else {"lang": lang}  # English is the default
    code = play_text(spec, spec.resolve_options(options or {}), bots, seed, deals, inp or every_game_typist(), out,
                     **by_lang)
    return code, out.getvalue()


def run_cli(args: list[str], home: object, stdin: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "P2PCARDS_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_whole_sueca_deal_by_typing():
    out = io.StringIO()
    spec = load_games().get("sueca")
    code = play_text(spec, spec.resolve_options({}), "heuristic", 1, 1, typist(2000), out)
    text = out.getvalue()
    assert code == 0
    assert text.count("You played") == 10
    assert sum(text.count(f"Seat {s} played") for s in (2, 3, 4)) == 30
    assert "Deal 1 is over:" in text and "Your hand: 1)" in text and "Trump:" in text


def test_illegal_card_is_refused_with_a_reason():
    out = io.StringIO()
    spec = load_games().get("sueca")
    play_text(spec, spec.resolve_options({}), "random", 4, 1, typist(2000), out)
    text = out.getvalue()
    assert "is not allowed now" in text or "there is no card" in text


def test_every_game_is_playable_in_line_mode():
    for name in ("bisca", "copas", "sobe-e-desce"):
        code, text = play(name, seed=2)
        assert code == 0, text[-2000:]
        assert "Deal 1 is over:" in text


def test_quit_and_end_of_input_leave_cleanly(tmp_path):
    proc = run_cli(["play", "sueca", "--seed", "3", "--lang", "en"], tmp_path, "q\n")
    assert proc.returncode == 0 and "You left the table." in proc.stdout  # leaving on purpose
    proc = run_cli(["play", "--seed", "3", "--lang", "en"], tmp_path, "")
    # a pipe that has said all it had to say leaves by choice too: 0, and the table is kept
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert proc.stdout.rstrip().splitlines()[-1].startswith("You left the table. Its transcript is kept: `p2pcards "
                                                            "resume ")


# ---------------------------------------------------------------- each play told at once


@pytest.mark.parametrize(("game", "seed"), [("sueca", 1), ("sueca", 7), ("copas", 3)])
def test_each_play_is_told_before_the_next_question(game, seed):
    """Before the person is shown the hand and asked, every card played so far has been
    told: the tricks done (four plays each) plus the cards now on the table.  The last
    trick is told before the deal's summary."""
    code, text = play(game, seed=seed)
    assert code == 0
    asked = [m.start() for m in re.finditer(r"^Your hand:", text, re.M)]
    assert len(asked) >= 10
    for k, at in enumerate(asked):
        before = text[:at]
        shown = before.rstrip("\n").rsplit("\n", 1)[-1]  # the trumps/trick line just above the hand
        on_table = len(re.findall(r"[♠♥♦♣]", shown.split("Trick:", 1)[1])) if "Trick:" in shown else 0
        tricks_done = before.count("took the trick")
        assert before.count(" played ") == 4 * tricks_done + on_table, (k, before[-600:])
        assert tricks_done == k or game == "copas"  # one question per trick (Copas asks the pass first)
    summary = text.index("Deal 1 is over:")
    assert text[:summary].count(" played ") == len(load_games().get(game).deck)
    assert text[:summary].count("took the trick") == len(load_games().get(game).deck) // 4
    assert text.count(" played ") == text[:summary].count(" played ")


def test_a_leading_computer_players_card_comes_before_the_question():
    code, text = play("sueca", seed=1, inp=typist(2000))
    first_question = text.index("Play a card")
    assert re.search(r"^  Seat \d played ", text[:first_question], re.M), text[:first_question]


# ---------------------------------------------------------------- language


def literal_words(template: str) -> list[str]:
    """The words of a template between its fields, e.g. "took the trick"."""
    pieces = re.split(r"\{[^}]*\}", template)
    return [p.strip(" :;,.!()-→·|+") for p in pieces if sum(ch.isalpha() for ch in p) >= 3]


def portuguese_and_english_runs(lang: str) -> str:
    runs = [play("sueca", lang=lang, seed=1), play("bisca", lang=lang, seed=3, deals=None, options={"swap2": "on"}),
            play("copas", lang=lang, seed=3, deals=None, options={"match": "single"}),
            play("sobe-e-desce", lang=lang, seed=1, deals=2),
            play("sueca", lang=lang, seed=2, inp=io.StringIO("1\n1\nq\n"))]
    assert [code for code, _ in runs] == [0, 0, 0, 0, 0]
    return "".join(text for _, text in runs)


def test_the_portuguese_table_has_no_english_line():
    text = portuguese_and_english_runs("pt")
    portuguese = " ".join(TEXT_PT.values())
    english = {w for template in TEXT_EN.values() for w in literal_words(template) if w and w not in portuguese}
    found = sorted(w for w in english if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text))
    assert found == [], found
    for key in ("text_played", "text_took_trick", "text_hand", "text_match", "text_left", "text_deal_over"):
        assert literal_words(PT[key])[0] in text, key
    assert "A partida acabou:" in text and "lugar 2" in text
    # the person is addressed in European Portuguese: their own deeds without a pronoun
    # ("Jogou 7♥"), never "você", never "eu" with a verb of the third person
    assert "  Jogou " in text and "  Levou a vaza" in text
    assert european_faults(text) == [], european_faults(text)


def test_the_english_table_still_speaks_english():
    text = portuguese_and_english_runs("en")
    for key in ("text_played", "text_took_trick", "text_hand", "text_match", "text_left", "text_deal_over"):
        assert literal_words(EN[key])[0] in text, key
    assert "The match is over:" in text and "jogou" not in text and "lugar" not in text


@pytest.mark.parametrize("args", [["--lang", "pt", "play", "sueca", "--text"],
                                  ["play", "sueca", "--text", "--lang", "pt"]])
def test_the_command_passes_the_language_on(args, tmp_path):
    proc = run_cli([*args, "--seed", "3"], tmp_path, "1\nq\n")
    assert proc.returncode == 0, proc.stderr
    assert "Saiu da mesa." in proc.stdout and "Sueca: está no lugar 1" in proc.stdout
    assert "You left" not in proc.stdout and "Your hand" not in proc.stdout


# ---------------------------------------------------------------- the data directory


def full_screen_refusal(home: object, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> str:
    """What ``p2pcards play sueca`` says on a terminal with this data directory."""
    import p2pcards.tui.app as app

    def no_table(*args: object, **kwargs: object) -> int:
        raise AssertionError("the full-screen table started")

    monkeypatch.setenv("P2PCARDS_HOME", str(home))
    monkeypatch.setattr("p2pcards.cli.play._is_terminal", lambda out: True)
    monkeypatch.setattr(app, "play_local", no_table)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        cli.main(["play", "sueca"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("p2pcards: error: ")
    return err


def assert_text_mode_refuses_the_same_way(home: object, full_screen: str) -> None:
    for args in (["play", "sueca", "--text", "--seed", "1"], ["play", "sueca", "--seed", "1"]):  # --text, or a pipe
        proc = run_cli(args, home, "1\n" * 200)
        assert proc.returncode == 2, proc.stdout[-500:]
        assert proc.stderr == full_screen
        assert proc.stdout == ""  # refused before the match starts
        assert "Traceback" not in proc.stderr


def test_a_data_directory_that_is_a_file_is_refused_as_on_the_full_screen(tmp_path, monkeypatch, capsys):
    home = tmp_path / "home"
    home.write_text("not a directory\n")
    assert_text_mode_refuses_the_same_way(home, full_screen_refusal(home, monkeypatch, capsys))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0,
                    reason="root writes through permission bits, so a read-only directory stops nothing")
def test_an_unwritable_data_directory_is_refused_as_on_the_full_screen(tmp_path, monkeypatch, capsys):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        home = locked / "p2pcards"
        assert_text_mode_refuses_the_same_way(home, full_screen_refusal(home, monkeypatch, capsys))
    finally:
        locked.chmod(0o700)


# ---------------------------------------------------------------- numbering and wording


def test_people_see_seats_and_deals_from_one_and_their_own_seat_as_you():
    code, text = play("sueca", seed=1, deals=2)
    assert code == 0
    assert text.startswith("Sueca: you are seat 1; computer players (random) sit in seats 2 to 4.")
    assert "Teams: you and seat 3 against seat 2 and seat 4" in text
    assert re.findall(r"\b[Ss]eat 1\b", text) == ["seat 1"]  # only "you are seat 1": the person is "you"
    assert not re.search(r"\b[Ss]eat 0\b|\bside \d|\b[Dd]eal 0\b", text)
    assert "--- Deal 1 · dealer: " in text and "--- Deal 2 · dealer: " in text and "Deal 2 is over:" in text
    assert "Seat 4 played" in text and "You played" in text and "Trick: " in text
    code, text = play("bisca", seed=1)
    assert text.startswith("Bisca: you are seat 1; the computer player (random) sits in seat 2.")


@pytest.mark.slow
def test_counts_take_the_singular_and_the_plural_right_in_both_languages():
    words = {"en": ("trick", "point", "game point", "card"), "pt": ("vaza", "ponto", "jogo", "carta")}
    for lang, nouns in words.items():
        text = (play("sobe-e-desce", lang=lang, seed=4, deals=4)[1]
                + play("bisca", lang=lang, seed=3, deals=None)[1] + play("copas", lang=lang, seed=1)[1])
        for noun in nouns:
            one = re.findall(rf"(?<![\d-])1 {noun}s\b", text)
            many = re.findall(rf"(?<![\d-])(?:0|[2-9]|\d\d+) {noun}(?!s)\b", text)
            assert one == [] and many == [], (lang, noun, one[:3], many[:3])
        assert re.search(rf"\b[2-9] {nouns[3]}s\b", text)  # (results read as the games say: "tricks 2")


def final_totals(text: str) -> dict[str, int]:
    """The last "Match (...): name: n · name: n" line, as a mapping."""
    line = [ln for ln in text.splitlines() if ln.startswith("Match (")][-1]
    return {name: int(v) for name, v in (part.rsplit(": ", 1) for part in line.split("): ", 1)[1].split(" · "))}


@pytest.mark.slow
def test_the_last_line_names_the_winners_in_words():
    code, text = play("sueca", seed=5, deals=None)
    assert code == 0
    last = text.rstrip("\n").splitlines()[-1]
    totals = final_totals(text)
    best = max(totals, key=lambda name: totals[name])
    assert totals[best] >= 4
    if best.startswith("you and "):
        assert last == f"The match is over: you and {best.removeprefix('you and ')} win!"
    else:
        assert last == f"The match is over: {best} win."
    for seed in (1, 2, 3):
        code, text = play("copas", seed=seed, deals=None, options={"match": "single"})
        last = text.rstrip("\n").splitlines()[-1]
        totals = final_totals(text)
        low = min(totals.values())
        assert last in [("The match is over: you win!" if name == "you" else f"The match is over: {name} wins.")
                        for name, v in totals.items() if v == low], last
    code, text = play("sueca", seed=1, deals=1)
    assert text.rstrip("\n").splitlines()[-1] == "The table stops here after 1 deal, before the match's end: no winner."


@pytest.mark.parametrize("game", ["sueca", "copas"])
def test_a_seed_replays_the_same_match_against_the_searching_computer(game, monkeypatch):
    """The default level searches; with --seed its budget is a number of worlds, not time,
    so the seed replays the same match even when the machine is slower the second time."""
    import p2pcards.players.search as search

    first = play(game, seed=9, bots="search")
    real = search.time.perf_counter
    monkeypatch.setattr(search.time, "perf_counter", lambda: real() * 3.0)  # a three times slower machine
    second = play(game, seed=9, bots="search")
    assert first == second and first[0] == 0 and "is over" in first[1]
