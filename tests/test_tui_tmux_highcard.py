"""A third-party game on the full-screen table, end to end: the Highcard test plugin,
installed through its entry point into a directory of its own, is played for a whole deal
by keystrokes in tmux, in English and in Portuguese.  Its decision dialog, the top line's
fact, the deal's summary and the final tally read in the plugin's own words and columns.

Skipped only when tmux is missing (``.ci/run`` installs it).  Every wait is bounded.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.identity import Identity
from p2pcards.words import Text
from tests.test_plugin_walkthrough import install_highcard
from tests.test_tui_tmux import REPO, Tmux, hand

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return install_highcard(tmp_path_factory.mktemp("highcard") / "site")


#: Per language: the plugin's words the screens must show (its TEXTS), the key that
#: answers its "who leads" dialog, and who then leads.
CASES = {
    "en": {
        "header": "Highcard · deal 1 · 3 to play",
        "dialog": ["Who leads", "You dealt: who leads the first trick, you or Ana?", "1 I lead", "2 Ana leads"],
        "key": "1",
        "rows": ("You — high cards", "Ana — high cards"),
        "note": ("The deal goes to you", "The deal goes to Ana"),
        "rule": "one deal, most high cards",
    },
    "pt": {
        "header": "Carta Alta · mão 1 · faltam 3",
        "dialog": ["Quem abre", "Deu as cartas: abre a primeira vaza ou deixa Ana abrir?", "1 Abro eu",
                   "2 Abre Ana"],
        "key": "2",
        "rows": ("Eu — cartas altas", "Ana — cartas altas"),
        "note": ("A mão fica para si", "A mão fica para Ana"),
        "rule": "uma mão, mais cartas altas",
    },
}


def fixed_identity(home: Path) -> None:
    """The person's identity in ``home``, always the same: with ``--seed`` the table's
    secrets are fixed too, so the deal (and who deals it) repeats run after run."""
    me = Identity(Ed25519PrivateKey.from_private_bytes(bytes(range(32))),
                  X25519PrivateKey.from_private_bytes(bytes(range(32, 64))), "Zé", named=True)  # not asked
    home.mkdir(mode=0o700)
    (home / "identity.key").write_bytes(me.to_bytes())
    (home / "identity.key").chmod(0o600)


def play_out(tm: Tmux, t: Text, done: str) -> int:
    """Press Enter at each of the person's turns (the cursor starts on a legal card) until
    ``done`` is on the screen; the number of cards played."""
    played = 0
    for _ in range(6):
        screen = tm.wait("the person's turn or the end", lambda s: t("your_turn") in s or done in s, timeout=30)
        if done in screen:
            return played
        cards = hand(screen)
        for attempt in range(3):  # a key typed as the turn is drawn, before the table asks, is not a play
            tm.send("Enter")
            try:
                tm.wait("the card played", lambda s, c=cards: hand(s) != c or done in s, timeout=5)
                break
            except AssertionError:
                if attempt == 2:
                    raise
        played += 1
    raise AssertionError(f"{done!r} not reached")


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_whole_highcard_deal_on_the_full_screen_table_in_tmux(tmp_path: Path, site: Path, lang: str):
    case = CASES[lang]
    t = Text(lang)
    home = tmp_path / "home"
    fixed_identity(home)
    tm = Tmux(tmp_path / "tmux.sock")
    # seed 3 (with this identity): the person deals, so the person answers the plugin's dialog
    command = (f"cd {shlex.quote(str(REPO))} && env PYTHONPATH={shlex.quote(str(site))} "
               f"P2PCARDS_HOME={shlex.quote(str(home))} LC_ALL=C.UTF-8 {shlex.quote(sys.executable)} -m p2pcards "
               f"play highcard --seed 3 --deals 1 --speed 0.05 --lang {lang}; echo EXIT=$?; sleep 30")
    tm.start(command)
    try:
        screen = tm.wait("the plugin's dialog", lambda s: case["dialog"][0] in s, timeout=30)
        assert case["header"] in screen
        for line in case["dialog"]:
            assert line in screen, line
        assert len(hand(screen)) == 3 and "lead." not in screen
        tm.send(case["key"])
        done = t("summary_title", n=1)
        assert play_out(tm, t, done) == 3
        screen = tm.wait("the deal's summary", lambda s: t("verified") in s, timeout=30)
        mine, hers = (re.search(re.escape(row) + r" (\d)( ★)? ", screen) for row in case["rows"])
        assert mine is not None and hers is not None, screen
        taken = int(mine.group(1)), int(hers.group(1))
        assert sum(taken) == 3  # the plugin's column: tricks per player, the deal's winner starred
        assert (mine.group(2), hers.group(2)) == ((" ★", None) if taken[0] > taken[1] else (None, " ★"))
        assert case["note"][0 if taken[0] > taken[1] else 1] in screen
        assert "'tricks'" not in screen and "tricks: [" not in screen and "{" not in screen
        tm.send("Enter")
        screen = tm.wait("the end of the match", lambda s: t("final_title") in s)
        assert f"{t('tally')} ({case['rule']})" in screen
        assert all(re.search(re.escape(row) + r" \d", screen) for row in case["rows"])
        tm.send("Enter")
        assert "EXIT=0" in tm.wait("the command's exit", lambda s: "EXIT=" in s)
    finally:
        tm.kill()
    # and the log of the deal, audited by a p2pcards that finds the game through the plugin only
    (log,) = home.glob("tables/*/seat0.log")
    env = {**os.environ, "PYTHONPATH": str(site), "P2PCARDS_HOME": str(home)}
    audit = subprocess.run([sys.executable, "-m", "p2pcards", "audit", str(log)], capture_output=True, text=True,
                           env=env, timeout=60)
    assert audit.returncode == 0 and "deal 1: clean" in audit.stdout, audit.stdout + audit.stderr
