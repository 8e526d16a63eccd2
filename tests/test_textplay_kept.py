"""Line mode keeps every game as the full-screen table does (issue 23, point 2): the same
table machinery (every seat a peer, audited deals), the same transcript files, history
entries and "Your tables" / ``resume --list`` entries; a table left is taken up again
by the command the leave line names; and the screen's ``h``, ``l``, ``s`` and ``?``."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from p2pcards.core import load_games
from p2pcards.history.db import History, db_path
from p2pcards.net.store import log_path
from p2pcards.textplay import play_text
from tests.helpers import seeded_home
from tests.procs import ctrl_c_works

REGISTRY = load_games()


def p2pcards(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "P2PCARDS_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], input=stdin, capture_output=True, text=True,
                          timeout=180, env=env)


def left_prefix(stdout: str) -> str:
    """The table prefix of the leave line's resume command."""
    last = stdout.rstrip().splitlines()[-1]
    assert last.startswith("You left the table. Its transcript is kept: `p2pcards resume "), last
    return last.split("`p2pcards resume ", 1)[1].split("`", 1)[0]


def test_a_line_mode_game_left_is_kept_and_taken_up_again_by_the_command_it_names(tmp_path):
    home = tmp_path / "home"
    first = p2pcards(home, "play", "bisca", "--text", "--seed", "4", "--bots", "random", "--lang", "en",
                     "--deals", "1", stdin="1\n1\nq\n")
    assert first.returncode == 0, first.stderr
    prefix = left_prefix(first.stdout)
    # the same files as a screen's table: every seat's transcript, under DATA/tables/TABLE/
    (saved,) = [json.loads(x) for x in p2pcards(home, "resume", "--list", "--json").stdout.splitlines()]
    assert saved["role"] == "local" and saved["state"] == "unfinished" and saved["table"].startswith(prefix)
    table = bytes.fromhex(saved["table"])
    assert log_path(home, table, 0).is_file() and log_path(home, table, 1).is_file()
    # the command the leave line names takes the seat up again, in line mode without a terminal
    again = p2pcards(home, "--lang", "en", "resume", prefix, stdin="1\n2\n3\n" * 400)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith(f"Taking up table {prefix} of Bisca again")
    assert "The table stops here after 1 deal" in again.stdout and "Traceback" not in again.stderr
    (saved,) = [json.loads(x) for x in p2pcards(home, "resume", "--list", "--json").stdout.splitlines()]
    assert saved["state"] == "finished"
    (match,) = json.loads(p2pcards(home, "history", "--json").stdout)["matches"]
    assert match["table"] == saved["table"] and match["ended"] == "finished" and len(match["deals"]) == 1
    assert [s["kind"] for s in match["seats"]] == ["person", "bot"]
    audit = p2pcards(home, "audit", str(log_path(home, table, 0)), "--json")
    assert audit.returncode == 0 and json.loads(audit.stdout)["ok"] is True


def test_the_history_records_a_line_mode_match_as_it_is_played(tmp_path):
    spec = REGISTRY.get("copas")
    home = tmp_path / "home"
    out = io.StringIO()
    answers = "1 2 3\n" + "".join(f"{n}\n" for n in range(1, 14)) * 40
    assert play_text(spec, spec.resolve_options({}), "random", 3, 1, io.StringIO(answers), out, data_dir=home) == 0
    history = History(db_path(home))
    try:
        (match,) = history.matches()
    finally:
        history.close()
    assert match["game"] == "copas" and match["ended"] == "finished" and match["deals"] == 1
    assert [s["kind"] for s in match["seats"]] == ["person", "bot", "bot", "bot"]


def test_every_deal_in_line_mode_is_audited_and_says_so():
    spec = REGISTRY.get("sueca")
    out = io.StringIO()
    answers = io.StringIO("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n" * 40)
    code = play_text(spec, spec.resolve_options({}), "random", 2, 2, answers, out)
    assert code == 0
    assert out.getvalue().count("✓ Deal verified: shuffle, keys and every play check out.") == 2


def test_h_l_s_and_the_question_mark_answer_as_on_the_screen(tmp_path):
    """Each of the screen's keys is answered, then the question is asked again; a hint is
    recorded in the history (and whether it was followed)."""
    spec = REGISTRY.get("sueca")
    out = io.StringIO()
    home = tmp_path / "home"
    answers = "h\nl\ns\n?\n" + "".join(f"{n}\n" for n in range(1, 11)) * 40
    code = play_text(spec, spec.resolve_options({}), "random", 5, 1, io.StringIO(answers), out, data_dir=home)
    text = out.getvalue()
    assert code == 0, text[-2000:]
    first = text.index("Your hand:")
    asked = text[first:].split("You played", 1)[0]
    assert "hint: play " in asked and " — " in asked  # the suggestion and its reason
    assert "Last trick:\n    No trick has been played yet." in asked
    assert "Scores:\n    This deal\n     Us: 0 pts, 0 tricks" in asked
    assert "Keys:\n    1, 2, 3…  the card" in asked and "\n    q         leave the table" in asked
    assert "type the numbers shown before the cards" not in asked  # none of them is refused
    history = History(db_path(home))
    try:
        (hint,) = history.rows("hints")
    finally:
        history.close()
    assert hint[1:4] == (0, 0, 0) and hint[5] in (0, 1)  # deal 1, seat 1, its first decision; followed or not


def test_ctrl_c_in_line_mode_exits_130_and_keeps_the_table(tmp_path):
    home = seeded_home(tmp_path / "home", 7)
    env = {**os.environ, "P2PCARDS_HOME": str(home)}
    read, write = os.pipe()  # an input that never ends: the person is thinking
    proc = subprocess.Popen([sys.executable, "-m", "p2pcards", "--lang", "en", "play", "bisca", "--text", "--seed",
                             "7", "--bots", "random"], stdin=read, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, preexec_fn=ctrl_c_works)
    os.close(read)
    try:
        deadline = time.monotonic() + 60
        while not list((home / "tables").glob("*/seat0.log")) and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(write)
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    prefix = left_prefix(out)
    (saved,) = [json.loads(x) for x in p2pcards(home, "resume", "--list", "--json").stdout.splitlines()]
    assert saved["state"] == "unfinished" and saved["table"].startswith(prefix)
