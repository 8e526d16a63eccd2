"""``p2pcards play`` in line mode, driven through a pipe as a person would type."""

from __future__ import annotations

import io
import subprocess
import sys

from p2pcards.core import load_games
from p2pcards.textplay import play_text


def typist(lines: int) -> io.StringIO:
    """A person who tries card 1, 2, 3... in turn; illegal tries are refused and asked again."""
    return io.StringIO("".join(f"{i % 10 + 1}\n" for i in range(lines)))


def test_a_whole_sueca_deal_by_typing():
    out = io.StringIO()
    spec = load_games().get("sueca")
    code = play_text(spec, spec.resolve_options({}), "heuristic", 1, 1, typist(2000), out)
    text = out.getvalue()
    assert code == 0
    assert text.count("You played") == 10
    assert sum(text.count(f"Seat {s} played") for s in (1, 2, 3)) == 30
    assert "Deal over:" in text and "Your hand: 1)" in text and "Trump:" in text


def test_illegal_card_is_refused_with_a_reason():
    out = io.StringIO()
    spec = load_games().get("sueca")
    play_text(spec, spec.resolve_options({}), "random", 4, 1, typist(2000), out)
    text = out.getvalue()
    assert "is not allowed now" in text or "there is no card" in text


def test_every_game_is_playable_in_line_mode():
    registry = load_games()
    for name in ("bisca", "copas", "sobe-e-desce"):
        spec = registry.get(name)
        # numbers for cards and passes; "1 2 3" for Copas passing; Enter to go in as dealt
        script = "".join(["1 2 3\n", "\n", "S\n"] + [f"{i % 13 + 1}\n" for i in range(3000)])
        out = io.StringIO()
        code = play_text(spec, spec.resolve_options({}), "random", 2, 1, io.StringIO(script), out)
        assert code == 0, out.getvalue()[-2000:]
        assert "Deal over:" in out.getvalue()


def test_quit_and_end_of_input_leave_cleanly():
    proc = subprocess.run([sys.executable, "-m", "p2pcards", "play", "sueca", "--seed", "3"],
                          input="q\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130 and "You left the table." in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "p2pcards", "play", "--seed", "3"],
                          input="", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 130 and "Traceback" not in proc.stderr
