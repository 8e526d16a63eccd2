"""A person's name (issue 23, point 7): chosen once (the start screen, ``play`` on a
terminal, ``--name``), kept in the identity, shown at the table; two seats of one name are
told apart by their keys' fingerprints."""

from __future__ import annotations

import os
import subprocess
import sys

from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import create_pipe_input

from p2pcards.core import load_games
from p2pcards.identity import Identity, load_or_create, told_apart
from p2pcards.tui.model import GameInfo, SeatLabel, Snapshot, TableModel
from p2pcards.tui.start import run_start_screen
from p2pcards.words import Text
from tests.test_tui_app import ScreenOutput

REGISTRY = load_games()


def run(home: object, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "P2PCARDS_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_name_given_once_is_kept_in_the_identity_and_said_at_the_table(tmp_path):
    home = tmp_path / "home"
    proc = run(home, "play", "bisca", "--text", "--bots", "random", "--name", "Zé", "--lang", "en", stdin="q\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Bisca: you (Zé) are seat 1;")
    me = load_or_create(home)
    assert me.name == "Zé" and me.named
    proc = run(home, "--lang", "pt", "play", "bisca", "--text", "--bots", "random", stdin="q\n")  # not given: kept
    assert proc.stdout.startswith("Bisca: está no lugar 1, como Zé;")
    proc = run(home, "play", "bisca", "--text", "--name", " ", stdin="q\n")
    assert proc.returncode == 2 and "--name: a name is 1 to 40 printable characters" in proc.stderr
    assert load_or_create(home).name == "Zé"


def test_a_login_name_never_chosen_is_not_said_as_if_chosen(tmp_path):
    home = tmp_path / "home"
    proc = run(home, "play", "bisca", "--text", "--bots", "random", "--lang", "en", stdin="q\n")
    assert proc.stdout.startswith("Bisca: you are seat 1;")  # a pipe is not asked; the login name stays unchosen
    assert not load_or_create(home).named


def test_the_start_screen_asks_the_name_the_first_time_and_keeps_it(tmp_path):
    me = load_or_create(tmp_path)  # a new identity: the login name, never chosen
    assert not me.named
    kept: list[str] = []

    def rename(name: str) -> Identity:
        kept.append(name)
        return load_or_create(tmp_path, name)

    out = ScreenOutput()
    with create_pipe_input() as inp:
        inp.send_text("\x7f" * 50 + "Ana Rita\r" + "q")  # the login name erased, a name typed; then quit
        with create_app_session(input=inp, output=out):
            code = run_start_screen(REGISTRY, me=me, lang="en", data_dir=tmp_path, input=inp, output=out, lan=False,
                                    rename=rename)
    assert code == 0 and kept == ["Ana Rita"]
    drawn = out.drawn()
    assert "Your name at the tables" in drawn and "you are Ana Rita" in drawn
    again = load_or_create(tmp_path)
    assert again.name == "Ana Rita" and again.named
    out = ScreenOutput()
    with create_pipe_input() as inp:
        inp.send_text("q")  # the second time: straight to the menu, nothing asked
        with create_app_session(input=inp, output=out):
            run_start_screen(REGISTRY, me=again, lang="en", data_dir=tmp_path, input=inp, output=out, lan=False,
                             rename=rename)
    assert "Your name at the tables" not in out.drawn() and kept == ["Ana Rita"]


def test_two_seats_of_one_name_are_told_apart_by_their_fingerprints():
    assert told_apart([("root", "aaaa-bbbb-cccc-dddd"), ("Ana", "x"), ("root", "eeee-ffff-0000-1111")]) == \
        ["root (aaaa)", "Ana", "root (eeee)"]
    assert told_apart([("root", "aaaa-bbbb-cccc-dddd"), ("root", "aaaa-cccc-cccc-dddd")]) == \
        ["root (aaaa-bbbb)", "root (aaaa-cccc)"]
    assert told_apart([("Ana", "a"), ("Rui", "b")]) == ["Ana", "Rui"]
    spec = REGISTRY.get("sueca")
    seats = [SeatLabel(0, "root", fingerprint="6bg4-5umt-4e5m-yfk3"), SeatLabel(1, "Ana", "search", "x"),
             SeatLabel(2, "root", fingerprint="lmrk-6ylz-4wx6-jkhd"), SeatLabel(3, "Rui", "search", "x")]
    model = TableModel(GameInfo.of(spec, spec.resolve_options({})), seats, 0, Text("en"))
    model.update(Snapshot(stage="play", in_deal=True, deciding=(2,), hand_sizes=(10,) * 4, tricks_won=(0,) * 4,
                          points_won=(0,) * 4))
    model.link([2], up=False)
    assert model.status() == "waiting for root (lmrk) (reconnecting)"
    assert model.seat_panel(0).name == "root (6bg4)" and model.seat_panel(1).name == "Ana"
