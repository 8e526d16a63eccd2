"""End to end in a real terminal: ``p2pcards play sueca --seed 1`` inside tmux, a whole deal
played by keystrokes (send-keys), the screen read at every step (capture-pane).

Skipped only when tmux is missing (``.ci/run`` installs it).  Every wait is bounded.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

REPO = Path(__file__).resolve().parent.parent
CARD = re.compile(r"│\s*(10|[AKQJ2-9])([♠♥♦♣])│")


class Tmux:
    """One detached tmux server and session of our own (its own socket), 100x30."""

    def __init__(self, socket: Path) -> None:
        self.socket = str(socket)

    def tmux(self, *args: str) -> str:
        out = subprocess.run(["tmux", "-u", "-S", self.socket, "-f", "/dev/null", *args], capture_output=True,
                             text=True, timeout=10)
        if out.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {out.stderr.strip()}")
        return out.stdout

    def start(self, command: str) -> None:
        self.tmux("new-session", "-d", "-s", "p2", "-x", "100", "-y", "30", command)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "p2")

    def send(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "p2", *keys)

    def wait(self, what: str, test: Callable[[str], bool], timeout: float = 20.0) -> str:
        """Read the screen until ``test`` holds (at most ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if test(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")

    def command_pid(self) -> int | None:
        """The process the pane's shell runs now (None between commands; Linux /proc)."""
        shell = self.tmux("display-message", "-p", "-t", "p2", "#{pane_pid}").strip()
        try:
            children = Path(f"/proc/{shell}/task/{shell}/children").read_text().split()
        except OSError:
            return None
        return int(children[0]) if children else None

    def kill(self) -> None:
        subprocess.run(["tmux", "-S", self.socket, "kill-server"], capture_output=True, timeout=10)


def hand(screen: str) -> list[str]:
    """The cards of the person's hand, as drawn (the line of boxed card faces)."""
    for line in screen.splitlines():
        cards = CARD.findall(line)
        if cards and line.count("│") == 2 * len(cards):
            return [rank + suit for rank, suit in cards]
    return []


def my_turn(screen: str) -> bool:
    """Whether the status says it is the person's turn now ("your turn", not the "your
    turn next…" shown while the players before them play)."""
    return "your turn" in screen.replace("your turn next", "")


def above_hand(screen: str) -> str:
    """The table part of the screen (everything above the prompt and hand)."""
    lines = screen.splitlines()
    return "\n".join(lines[:22])


def test_a_whole_sueca_deal_by_keystrokes_in_tmux(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    tm = Tmux(tmp_path / "tmux.sock")
    command = (f"cd {shlex.quote(str(REPO))} && env P2PCARDS_HOME={shlex.quote(str(home))} LC_ALL=C.UTF-8 "
               f"{shlex.quote(sys.executable)} -m p2pcards play sueca --seed 1 --deals 1 --speed 0.05 --lang en; "
               "echo EXIT=$?; sleep 30")
    tm.start(command)
    try:
        # the first time on a terminal, the person's name is asked (Enter would keep the login name)
        screen = tm.wait("the name asked", lambda s: "Your name at the tables" in s, timeout=30)
        tm.send("Zé", "Enter")
        screen = tm.wait("the table", lambda s: "your turn" in s or "waiting for" in s, timeout=30)
        assert "Sueca · deal 1" in screen and "Trump" in screen
        assert "Zé" in screen  # the person's seat, under the name chosen
        assert "Ana" in screen and "Rui" in screen and "Inês" in screen and "bot search" in screen  # the default level
        seen_on_table = 0
        refused = 0
        for turn in range(10):
            left = 10 - turn
            # the person's turn, the cursor on a card
            screen = tm.wait(f"turn {turn + 1}, the cursor on a card",
                             lambda s, n=left: my_turn(s) and len(hand(s)) == n and "▼" in s)
            cards = hand(screen)
            tm.send("1")  # try the first card: played if legal, else refused with a reason
            screen = tm.wait("the first card played or refused",
                             lambda s, n=left: len(hand(s)) == n - 1 or "is not allowed now" in s)
            played = cards[0]
            if "is not allowed now" in screen:
                refused += 1
                marker = [line for line in screen.splitlines() if "▼" in line][0]
                faces = [line for line in screen.splitlines() if CARD.search(line)][-1]
                played = hand(faces)[(marker.index("▼") - faces.index("│")) // 5]
                tm.send("Enter")  # the card under the cursor, always a legal one
                screen = tm.wait("the chosen card played", lambda s, n=left: len(hand(s)) == n - 1)
            assert played not in hand(screen)
            if played in above_hand(screen):
                seen_on_table += 1
        assert seen_on_table >= 1
        screen = tm.wait("the deal's summary", lambda s: "Deal 1 is over" in s, timeout=30)
        assert "✓ Deal verified" in screen and "Match: Us" in screen
        assert re.search(r"Us \(.* & Rui\) — points \d+, tricks \d+", screen)
        tm.send("Enter")
        screen = tm.wait("the end of the table", lambda s: "The table is over" in s)  # --deals 1: no winner
        assert "Final tally" in screen and "before the match's end: no winner" in screen
        tm.send("Enter")
        tm.wait("the command's exit", lambda s: "EXIT=" in s)
        assert "EXIT=0" in tm.screen()
    finally:
        tm.kill()
    assert len(list(home.glob("tables/*"))) == 1  # taken up again, not a new table
    logs = list(home.glob("tables/*/seat0.log"))
    assert len(logs) == 1 and logs[0].stat().st_size > 0
    audit = subprocess.run([sys.executable, "-m", "p2pcards", "audit", str(logs[0])], capture_output=True,
                           text=True, timeout=60)
    assert audit.returncode == 0 and "deal 1: clean" in audit.stdout
    from p2pcards.identity import load_or_create

    me = load_or_create(home)  # kept in the identity, and not asked again
    assert me.name == "Zé" and me.named


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _play_until(tm: Tmux, done: str, limit: int = 60) -> int:
    """Press Enter at each "your turn" (the cursor starts on a legal card) until ``done``
    is on the screen; the number of cards played (bounded by ``limit``)."""
    played = 0
    for _ in range(limit):
        screen = tm.wait("the person's turn or the end", lambda s: my_turn(s) or done in s, timeout=30)
        if done in screen:
            return played
        cards = hand(screen)
        for attempt in range(3):  # a key typed as the turn is drawn, before the table asks, is not a play
            tm.send("Enter")  # the hand changes: a card fewer, or another drawn from the stock already
            try:
                tm.wait("the card played", lambda s, c=cards: (hand(s) and hand(s) != c) or done in s, timeout=5)
                break
            except AssertionError:
                if attempt == 2:
                    raise
        played += 1
    raise AssertionError(f"{done!r} not reached after {limit} cards")


def test_a_person_hosts_a_lan_table_in_tmux_and_a_computer_player_joins(tmp_path):
    home, bot_home = tmp_path / "home", tmp_path / "bot"
    home.mkdir()
    bot_home.mkdir()
    port = _free_port()
    tm = Tmux(tmp_path / "tmux.sock")
    command = (f"cd {shlex.quote(str(REPO))} && env P2PCARDS_HOME={shlex.quote(str(home))} LC_ALL=C.UTF-8 "
               f"{shlex.quote(sys.executable)} -m p2pcards play bisca --host --bind 127.0.0.1 --port {port} "
               "--no-announce --deals 1 --speed 0.05 --lang en --name Ana; echo EXIT=$?; sleep 30")
    tm.start(command)
    joiner = None
    try:
        screen = tm.wait("the lobby", lambda s: "Seats taken: 1 of 2." in s, timeout=30)
        assert "You host Bisca; you sit at seat 1." in screen and f"127.0.0.1:{port}" in screen
        joiner = subprocess.Popen([sys.executable, "-m", "p2pcards", "join", f"127.0.0.1:{port}", "--bot", "random",
                                   "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                  env={**__import__("os").environ, "P2PCARDS_HOME": str(bot_home)})
        screen = tm.wait("the table", lambda s: "Bisca · deal 1" in s, timeout=30)
        assert "bot random" in screen
        assert _play_until(tm, "Deal 1 is over") == 20  # Bisca deals 3 cards, then one from the stock each trick
        assert "✓ Deal verified" in tm.screen()
        tm.send("Enter")
        tm.wait("the end of the table", lambda s: "Final tally" in s)
        tm.send("Enter")
        tm.wait("the command's exit", lambda s: "EXIT=" in s)
        assert "EXIT=0" in tm.screen()
        out, err = joiner.communicate(timeout=60)
        assert joiner.returncode == 0, err
        assert '"type": "final"' in out
    finally:
        tm.kill()
        if joiner is not None and joiner.poll() is None:
            joiner.kill()
            joiner.wait(timeout=10)
    (log,) = home.glob("tables/*/seat0.log")
    assert log.read_bytes() == next(bot_home.glob("tables/*/seat1.log")).read_bytes()


def test_ctrl_c_then_resume_takes_the_seat_again_in_tmux(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    tm = Tmux(tmp_path / "tmux.sock")
    env = f"cd {shlex.quote(str(REPO))} && env P2PCARDS_HOME={shlex.quote(str(home))} LC_ALL=C.UTF-8 "
    py = shlex.quote(sys.executable)
    command = (f"{env}{py} -m p2pcards play bisca --seed 3 --deals 1 --speed 0.05 --bots heuristic --lang en "
               "--name Ana; echo LEFT=$?; "
               f"{env}{py} -m p2pcards resume; echo EXIT=$?; sleep 30")  # at the pace it was played at
    tm.start(command)
    try:
        first = hand(tm.wait("the table", lambda s: my_turn(s) and len(hand(s)) == 3, timeout=30))
        tm.send("Enter")
        screen = tm.wait("the second turn", lambda s: my_turn(s) and len(hand(s)) == 3 and hand(s) != first,
                         timeout=30)
        kept = hand(screen)
        playing = tm.command_pid()
        assert playing is not None
        tm.send("C-c")
        tm.wait("`play` to exit and `resume` to start", lambda s: tm.command_pid() not in (None, playing), timeout=30)
        screen = tm.wait("the table again", lambda s: my_turn(s) and "Bisca · deal 1" in s, timeout=30)
        assert sorted(hand(screen)) == sorted(kept)  # the same hand, where it was left
        assert _play_until(tm, "Deal 1 is over") >= 1
        assert "✓ Deal verified" in tm.screen()
        tm.send("Enter")
        tm.wait("the end of the table", lambda s: "Final tally" in s)
        tm.send("Enter")
        tm.wait("the command's exit", lambda s: "EXIT=" in s)
        assert "EXIT=0" in tm.screen()
        assert "LEFT=130" in tm.screen()  # Ctrl-C is an interrupt, on the screen as outside it
    finally:
        tm.kill()
    assert len(list(home.glob("tables/*"))) == 1  # taken up again, not a new table


def _turn(tm: Tmux) -> int:
    """If it is this screen's turn, play the card under the cursor: 1 if a card went."""
    screen = tm.screen()
    if not my_turn(screen):
        return 0
    cards = hand(screen)
    tm.send("Enter")
    try:
        tm.wait("the card played", lambda s, c=cards: hand(s) != c or "is over" in s, timeout=5)
    except AssertionError:
        return 0  # a key typed as the turn was drawn: asked again
    return 1


STRAY = re.compile(r"p2pcards:|WARNING|INFO|Traceback|rejected a message")


@pytest.mark.slow
def test_a_person_who_joins_is_killed_and_comes_back_with_the_same_command_in_tmux(tmp_path):
    """Two people on loopback, each on a full screen in tmux: Rui hosts Sueca with two
    computer players, Ana joins with `play --join`.  Ana's process is killed with SIGKILL
    mid-deal: Rui's screen shows her disconnected, says truthfully whose turn it is and
    shows no stray log line.  Ana runs the same `play --join` again: she is back in her seat
    (not refused as "full"), both play two deals to the end, both deals verified."""
    import os
    import signal

    homes = {who: tmp_path / who for who in ("rui", "ana")}
    for home in homes.values():
        home.mkdir()
    port = _free_port()
    py = shlex.quote(sys.executable)

    def command(who: str, args: str) -> str:
        """The command in a shell of its own that writes its pid and becomes p2pcards; then
        its exit status stays on the screen."""
        inner = (f"echo $$ > {shlex.quote(str(homes[who] / 'pid'))}; cd {shlex.quote(str(REPO))} && exec env "
                 f"P2PCARDS_HOME={shlex.quote(str(homes[who]))} LOGNAME={who} USER={who} LC_ALL=C.UTF-8 "
                 f"{py} -m p2pcards {args}")
        return f"sh -c {shlex.quote(inner)}; echo EXIT=$?; sleep 60"

    rui, ana = Tmux(tmp_path / "rui.sock"), Tmux(tmp_path / "ana.sock")
    rui.start(command("rui", f"play sueca --host --bind 127.0.0.1 --port {port} --no-announce "
                             "--seats me,remote,bot,bot --timeout 30 --deals 2 --speed 0.05 --lang en --name rui"))
    join = f"play sueca --join 127.0.0.1:{port} --speed 0.05 --lang en --name ana"
    try:
        rui.wait("the lobby", lambda s: "Seats taken" in s, timeout=30)
        ana.start(command("ana", join))
        rui.wait("the table", lambda s: "Sueca · deal 1" in s, timeout=30)
        ana.wait("the table", lambda s: "Sueca · deal 1" in s, timeout=30)
        # each plays a few cards, then Ana's process dies
        played = {rui: 0, ana: 0}
        for _ in range(200):
            for tm in (rui, ana):
                played[tm] += _turn(tm)
            if min(played.values()) >= 2:
                break
            time.sleep(0.1)
        assert min(played.values()) >= 2, played
        os.kill(int((homes["ana"] / "pid").read_text()), signal.SIGKILL)
        ana.wait("the kill", lambda s: "EXIT=137" in s, timeout=10)
        ana.kill()
        screen = rui.wait("Ana shown disconnected", lambda s: "disconnected" in s, timeout=30)
        screen = rui.wait("a settled status", lambda s: my_turn(s) or "waiting for ana" in s, timeout=30)
        assert not STRAY.search(screen), f"a stray line on the screen:\n{screen}"
        if not my_turn(screen):
            assert "waiting for ana (reconnecting)" in screen  # not a computer player's name
        # the same command again: back in the seat
        ana = Tmux(tmp_path / "ana2.sock")
        ana.start(command("ana", join))
        ana.wait("the table again", lambda s: "Sueca · deal" in s and bool(hand(s)), timeout=40)
        rui.wait("Ana back", lambda s: "disconnected" not in s, timeout=30)
        for deal in (1, 2):
            done = {tm: False for tm in (rui, ana)}
            for _ in range(60):
                for tm in (rui, ana):
                    screen = tm.screen()
                    assert not STRAY.search(screen), f"a stray line on the screen:\n{screen}"
                    if f"Deal {deal} is over" in screen:
                        done[tm] = True
                    else:
                        _turn(tm)
                if all(done.values()):
                    break
                time.sleep(0.1)
            assert all(done.values()), f"deal {deal} did not end on both screens"
            for tm in (rui, ana):
                assert "✓ Deal verified" in tm.wait("the verdict", lambda s: "verified" in s, timeout=20)
                tm.send("Enter")
        for tm in (rui, ana):
            tm.wait("the end of the table", lambda s: "Final tally" in s, timeout=30)
            tm.send("Enter")
            assert "EXIT=0" in tm.wait("the command's exit", lambda s: "EXIT=" in s, timeout=30)
    finally:
        rui.kill()
        ana.kill()
    logs = [p.read_bytes() for home in homes.values() for p in home.glob("tables/*/seat*.log")]
    assert len(logs) == 4 and len(set(logs)) == 1, "every seat's log is the same"
    assert (homes["rui"] / "logs" / "p2pcards.log").exists(), "the warnings went to the log file"
