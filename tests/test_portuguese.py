"""Portuguese everywhere a person reads (first contact: "Portuguese stops at the table"):
each command's output for people and its errors, with ``--lang pt``, in a data directory
where tables were played, checked for English words left; numbers with a decimal comma.

argparse's own usage lines stay English (they are argparse's); the error line under them
is ours.  ``--json`` outputs are a contract and stay as they are (tests/test_history.py,
tests/test_cli.py)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pytest

from p2pcards.core import OptionError, load_games
from p2pcards.net import log_path
from p2pcards.words import Text
from tests.test_history import _played

#: English words that have no business in a Portuguese line (none of them is Portuguese:
#: not "a", "no", "de"...; not "bot", a Portuguese word too).
ENGLISH = set("""
    the and of with won win wins lost deal deals match matches table tables player players points pts
    error warning note not unfinished finished abandoned voided ended seat seats you your is are was were
    be been has have it its this that these there here in on at to by for from or an cannot can could
    expected got must between unknown choose installed none computer hosted joined against trick tricks card
    cards turned played interrupted argument arguments invalid value required unrecognized file directory
    such message messages transcript log whose than more least only yet winner team last per read open start
    starts prefix identity found free nobody several name one choice
""".split())


def english_left(text: str) -> set[str]:
    """The English words of ``text``, leaving out argparse's usage lines, commands in
    backquotes, values in quotes, paths, flags and their values (KEY=a|b), metavariables
    (GAME, TABLE), JSON objects (a deal's result), and anything with a digit in it
    (fingerprints, table ids, cards)."""
    kept = []
    usage = False
    for line in text.splitlines():
        usage = line.startswith("usage:") or (usage and line.startswith(" "))
        if not usage:
            kept.append(line)
    text = "\n".join(kept)
    text = re.sub(r"por omissão \S+", " ", text)  # `games`: a default as it is typed after -o KEY=
    text = re.sub(r"\{[^{}]*\}", " ", text)  # a deal's result as JSON: the arena's record (`arena --help`)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"'[^']*'", " ", text)
    found = set()
    for token in text.split():
        if any(c in token for c in "/=|") or token.startswith("-") or any(c.isdigit() for c in token):
            continue
        for word in re.findall(r"[^\W\d_]+", token):
            if not word.isupper() and word.lower() in ENGLISH:
                found.add(word.lower())
    return found


def decimal_points(text: str) -> list[str]:
    """Numbers written with a decimal point (an IP address is not one)."""
    return re.findall(r"(?<![\d.])\d+\.\d+(?![\d.])", text)


@pytest.fixture
def played(home: Path) -> Path:
    """A data directory with a Sueca table and a Bisca table played to their end."""
    _played(home, "sueca", 1)
    table = _played(home, "bisca", 1)
    return log_path(home, table, 0)


def _run(cli, capsys, *argv: str) -> tuple[int, str]:
    """``p2pcards --lang pt ARGV``: its exit status, and what it wrote (out and err)."""
    capsys.readouterr()
    try:
        code, out = cli("--lang", "pt", *argv)
    except SystemExit as stop:
        code, out = int(stop.code or 0), ""
    err = capsys.readouterr()
    return code, out + err.out + err.err


def test_every_command_and_error_speaks_portuguese(played, cli, capsys, monkeypatch, tmp_path):
    empty, torn = tmp_path / "empty.log", tmp_path / "torn.log"
    empty.write_bytes(b"")
    torn.write_bytes(b"\x00\x00")
    cut = tmp_path / "cut.log"  # a whole log and the start of a frame: a process stopped while it wrote
    cut.write_bytes(played.read_bytes() + b"\x00\x00\x01")
    runs = [
        ["history", "--rebuild"], ["history"], ["history", "--game", "sueca"], ["history", "--player", "ninguém"],
        ["stats"], ["resume", "--list"], ["games"], ["audit", str(played)], ["audit", str(cut)],
        ["export", str(played)], ["export", str(cut)], ["arena", "sueca", "--deals", "2"],
        ["duel", "sueca", "--a", "random", "--b", "heuristic", "--pairs", "1", "--jobs", "1"],
        # errors: ours, and argparse's lines under its usage
        ["history", "--game", "xadrez"], ["history", "--player", " "], ["audit", str(tmp_path / "missing.log")],
        ["replay", str(tmp_path / "missing.log")], ["export", str(empty)], ["audit", str(torn)],
        ["audit", str(tmp_path)],
        ["replay", str(played), "--seat", "9"], ["resume", "zzz"], ["play", "sueca", "--seed", "x"], ["bogus"],
        ["arena", "sueca", "--players", "random"], ["play", "sueca", "--bots", "x"], ["play", "sueca", "--speed", "20"],
        ["play", "sueca", "-o", "foo"], ["play", "sueca", "--host", "--join", "x"],
        ["host", "sueca", "--port", "99999"],
        ["host"], ["play", "xadrez"], ["play", "sueca", "-o", "target=9"], ["tables", "--wait", "0"],
        # not here: a detail said by another layer, in English, after our words (a bad HOST:PORT, --seats
        # SPEC or table name: p2pcards.net and p2pcards.discovery say what is wrong with it)
    ]
    left = {}
    for argv in runs:
        code, said = _run(cli, capsys, *argv)
        assert said.strip(), argv
        if english_in := english_left(said):
            left[" ".join(argv)] = (sorted(english_in), said)
        assert not decimal_points(said), (argv, said)
    assert not left, "\n".join(f"p2pcards --lang pt {k}: {words}\n{said}" for k, (words, said) in left.items())


def test_an_interrupted_command_says_so_in_portuguese(home, cli, capsys, monkeypatch):
    def interrupted(args, out):
        raise KeyboardInterrupt

    monkeypatch.setattr("p2pcards.cli.parser.cmd_stats", interrupted)
    code, said = _run(cli, capsys, "stats")
    assert code == 130 and said.strip() == "interrompido"
    capsys.readouterr()
    code, _ = cli("stats")
    assert code == 130 and capsys.readouterr().err.strip() == "interrupted"  # English stays as it was


def test_text_mode_in_portuguese(home, cli, capsys, monkeypatch):
    """A deal begun in line mode, its keys asked, the scores, then leaving: no English,
    and European forms (the trump card is turned: virou)."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("?\ns\nl\nq\n"))
    code, said = _run(cli, capsys, "play", "sueca", "--text", "--seed", "3", "--deals", "1", "--name", "Zé")
    assert code == 0 and "virou" in said.lower() and "voltou" not in said.lower()  # ("Virou": the person turned it)
    assert english_left(said) == set(), said


def test_portuguese_numbers_have_a_decimal_comma():
    t = Text("pt")
    assert t("speed", s=0.8) == "ritmo 0,8 s"
    assert Text("en")("speed", s=0.8) == "pace 0.8 s"
    assert t("hint_why_value", margin=2.5, worlds=40).startswith("cerca de 2,5 pontos")
    assert t("speed", s=1.0) == "ritmo 1 s"


def test_the_errors_keep_their_english_words_in_english(home, cli, capsys):
    """``str()`` of an error is its English words, as before: other programs and logs read it."""
    from p2pcards.history import HistoryError
    from p2pcards.history.opened import read_transcript

    with pytest.raises(HistoryError) as caught:
        read_transcript(home / "missing.log")
    assert str(caught.value) == f"cannot read {home / 'missing.log'}: No such file or directory"
    assert caught.value.words("pt") == f"não é possível ler {home / 'missing.log'}: o ficheiro não existe"


def test_the_tables_on_the_lan_in_portuguese(cli, capsys, home, monkeypatch):
    """``tables`` over the fake LAN: one table to join, one that cannot be joined, one whose
    announcement cannot be read; and none at all, with the wait's decimal comma."""
    import p2pcards.discovery as discovery
    from p2pcards.discovery.record import encode_txt
    from p2pcards.testing.fake_lan import FakeLan, open_fake
    from tests.test_discovery import ann

    lan = FakeLan()
    monkeypatch.setattr(discovery, "open_discovery", lambda **kwargs: open_fake(lan, ttl=120))
    code, said = _run(cli, capsys, "tables", "--wait", "0.2")
    assert code == 0 and said == "nenhuma mesa encontrada na rede local em 0,2 s\n"
    lan.inject("Mesa do Zé", encode_txt(ann(deals=2)), port=4100, addresses=["10.0.0.9"])
    lan.inject("xadrez", encode_txt(ann(game="chess", options={})), port=4101, addresses=["10.0.0.8"])
    lan.inject("estragada", b"\x03abc")
    code, said = _run(cli, capsys, "tables", "--wait", "0.2")
    assert code == 0 and "3 de 4 lugares livres, aberta por Zé" in said and "joga chess" in said
    assert "para entrar: p2pcards play --join 'Mesa do Zé'" in said
    # a malformed announcement's detail is p2pcards.discovery's own (English), after our words
    lines = [line for line in said.splitlines() if not line.startswith("estragada:")]
    assert english_left("\n".join(lines)) == set(), said


def test_a_table_on_the_network_told_in_portuguese(monkeypatch):
    """The lines ``host``, ``join`` and ``resume`` print for people (not --json), in Portuguese:
    seated, the table starting, resumed, a vote, a dispute, a fork, a deal and the end."""
    from p2pcards.cli import common
    from p2pcards.cli.printer import _TablePrinter

    class Told:
        def __init__(self, **event: object) -> None:
            self.event = event

        def to_json(self) -> dict[str, object]:
            return dict(self.event)

    monkeypatch.setattr(common, "LANG", "pt")
    out = io.StringIO()
    printer = _TablePrinter(out, False)
    printer.data = Path("/dados")
    printer.seated({"seat": 1, "game": "sueca", "host": {"name": "Zé"}, "timeout": 2.5})
    seats = [{"seat": s, "name": f"p{s}", "fingerprint": "abcd", "bot": None if s == 0 else "random",
              "runs_on": None if s < 2 else "efgh"} for s in range(4)]
    printer.on_table({"table": "ab" * 32, "game": "sueca", "seats": seats, "local_seats": [0]})
    printer.resumed({"table": "ab" * 32, "game": "sueca", "seats": [0, 2], "finished": False, "seq": 40,
                     "deals_done": 1})
    printer.on_event(0, Told(type="vote_out", against=1, voters=[0, 2, 3], deal=0))
    printer.on_event(0, Told(type="dispute", accuser=2, against=3, deal=1, reason="uma razão"))
    printer.on_event(0, Told(type="fork", against=3, seq=12, deal=1))
    printer.on_event(0, Told(type="deal", deal=1, dealer=0, trump="H", result={"points": [70, 50]}, totals=[1, 0],
                             audit={"verdict": "clean", "seat": None, "reason": None}, match_over=True, winner=0))
    printer.on_event(0, Told(type="final", winner=None, deals=2, totals=[1, 0], transcript_hash="cd" * 32,
                             abandoned={"by": 3, "behind": 2, "deal": 1}))
    said = out.getvalue()
    assert "2,5 s" in said and "votado fora por lugar 1 (p0), lugar 3 (p2) e lugar 4 (p3)" in said
    assert "computador aleatório" in said
    assert english_left(said) == set(), said


def test_the_locale_chooses_portuguese_when_lang_does_not(home, cli, capsys, monkeypatch):
    """No --lang: a Portuguese locale speaks Portuguese, errors and argparse's lines too;
    --lang en wins over it."""
    monkeypatch.setenv("LC_ALL", "pt_PT.UTF-8")
    capsys.readouterr()
    with pytest.raises(SystemExit):
        cli("history", "--game", "xadrez")
    assert capsys.readouterr().err.startswith("p2pcards: erro: jogo desconhecido 'xadrez' (instalados: bisca, ")
    with pytest.raises(SystemExit):
        cli("play", "sueca", "--deals", "x")
    assert capsys.readouterr().err.endswith("p2pcards play: erro: argumento --deals: 'x' não é um número inteiro\n")
    with pytest.raises(SystemExit):
        cli("--lang", "en", "history", "--game", "xadrez")
    assert capsys.readouterr().err.startswith("p2pcards: error: unknown game 'xadrez'")


def test_an_option_the_game_refuses_is_said_in_the_command_s_words(cli, capsys):
    """The rules say what is wrong with an option once, with the words' key and fields
    (no second check in the command line that could drift from the rules')."""
    spec = load_games().get("sueca")
    with pytest.raises(OptionError) as refused:
        spec.resolve_options({"target": "9"})
    assert refused.value.key == "err_option_value" and str(refused.value) == "sueca: target must be 4 or 8"
    assert Text("pt")(refused.value.key, **refused.value.fields) == "sueca: target tem de ser 4 ou 8"
    with pytest.raises(OptionError) as refused:
        spec.resolve_options({"nope": "1"})
    assert refused.value.key == "err_option_unknown" and refused.value.fields["option"] == "nope"
    code, said = _run(cli, capsys, "arena", "sueca", "-o", "target=9")
    assert code == 2 and "sueca: target tem de ser 4 ou 8" in said
