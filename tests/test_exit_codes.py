"""Exit status of the full-screen table: leaving on purpose is 0, a failure 1, an interrupt 130
(Ctrl-C on the screen as outside it: one rule for every way of playing, issue 23 point 10).

The local table runs for real (prompt-toolkit on a pipe input, trio as its guest, every seat
a peer), driven by keys as in tests/test_tui_app.py; the person leaves with ``q`` then ``y``.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import p2pcards.cli as cli
from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.tui.app import run_local_table
from p2pcards.tui.runtime import LocalTable
from p2pcards.words import Text

REGISTRY = load_games()


def person() -> Identity:
    digest = hashlib.sha256(b"Z\xc3\xa9").digest()
    return Identity(Ed25519PrivateKey.from_private_bytes(digest), X25519PrivateKey.from_private_bytes(digest), "Zé",
                    named=True)


def local(tmp_path: Path, **kw: Any) -> LocalTable:
    spec = REGISTRY.get("bisca")
    return LocalTable(spec, spec.resolve_options({}), me=person(), text=Text("en"), bots="random", seed=3, speed=0,
                      data_dir=tmp_path, **kw)


def run_typing(table: LocalTable, when: Any, keys: str) -> int:
    """Run ``table`` on screen; type ``keys`` once ``when(model)`` holds."""
    with create_pipe_input() as inp:
        typed: list[bool] = []

        def type_once() -> None:
            if not typed and when(table.model):
                typed.append(True)
                inp.send_text(keys)

        table.model.listeners.append(type_once)
        return run_local_table(table, input=inp, output=DummyOutput())


def test_q_confirmed_exits_0_and_says_how_to_take_the_table_up_again(tmp_path, capsys):
    table = local(tmp_path, deals=None)
    code = run_typing(table, lambda m: m.asked >= 1 and m.overlay is None, "qy")
    assert table.outcome == "left"
    assert code == 0  # leaving on purpose is no failure
    assert cli._left_note(code) == 0
    err = capsys.readouterr().err
    # the exact command for this table, which works whatever other tables are unfinished
    assert f"you left the table before its end; its transcript is kept: `p2pcards resume {table.table_id.hex()[:8]}` " \
           "takes your seat again" in err
    assert table.model.resume_command() == f"p2pcards resume {table.table_id.hex()[:8]}"


def test_ctrl_c_on_the_screen_exits_130_and_says_how_to_take_the_table_up_again(tmp_path, capsys):
    table = local(tmp_path, deals=None)
    code = run_typing(table, lambda m: m.asked >= 1 and m.overlay is None, "\x03")
    assert table.outcome == "left" and table.model.interrupted
    assert code == 130 and code.left  # an interrupt, as outside the screen; the table is kept
    assert cli._left_note(code) == 130
    assert "you left the table before its end" in capsys.readouterr().err


def test_ctrl_c_on_the_start_screen_exits_130_and_q_exits_0(tmp_path):
    from prompt_toolkit.application import create_app_session

    from p2pcards.tui.start import run_start_screen

    for keys, status in (("\x03", 130), ("q", 0)):
        with create_pipe_input() as inp:
            inp.send_text(keys)
            with create_app_session(input=inp, output=DummyOutput()):
                code = run_start_screen(REGISTRY, me=person(), lang="en", data_dir=tmp_path, input=inp,
                                        output=DummyOutput(), lan=False)
        assert code == status, keys


def test_ctrl_c_in_a_lan_lobby_is_an_interrupt_and_leaves_nothing_to_take_up():
    from p2pcards.tui.app import exit_status
    from p2pcards.tui.lobby_screen import LobbyModel

    lobby = LobbyModel(Text("en"))
    lobby.interrupt()
    assert lobby.ended and lobby.interrupted
    status = exit_status("left", resumable=False, interrupted=lobby.interrupted)
    assert status == 130 and not status.left


def test_a_table_played_to_its_end_exits_0_without_the_note(tmp_path, capsys):
    table = local(tmp_path, deals=1)
    # a table over: the person reads the final window and leaves it with q
    code = run_typing_every(table)
    assert table.outcome == "over" and code == 0
    assert cli._left_note(code) == 0
    printed = capsys.readouterr()
    assert "you left the table" not in printed.err
    # the match's end is said again once the screen is gone: who won, and the tally
    final = [line for line in table.model.final_lines() if line.strip()]
    assert final and printed.out.splitlines() == final
    assert "Tally" in printed.out or "tally" in printed.out.lower()


def run_typing_every(table: LocalTable) -> int:
    """Play on: Enter on every decision (the cursor starts on a legal card) and every window."""
    with create_pipe_input() as inp:
        answered = [0]

        def react() -> None:
            m = table.model
            if m.overlay in ("summary", "final", "error") and m.popup is None:
                inp.send_text("\r")
            elif m.decision is not None and m.asked != answered[0]:
                answered[0] = m.asked
                inp.send_text("\r")

        table.model.listeners.append(react)
        return run_local_table(table, input=inp, output=DummyOutput())


def test_a_failed_table_exits_1_and_says_why_on_standard_error(tmp_path, capsys):
    table = local(tmp_path, deals=None)

    class Broken:
        def choose(self, view: Any, decision: Any) -> Any:
            raise RuntimeError("this computer player is broken")

    table.seats[1].player.inner = Broken()
    code = run_typing_every(table)  # the person plays until the table stops, then leaves its window
    assert table.outcome == "failed" and code == 1
    assert not getattr(code, "left", False)
    # the screen said why; once it is gone, standard error says it again
    assert cli._left_note(code) == 1
    assert capsys.readouterr().err == "p2pcards: error: RuntimeError: this computer player is broken\n"


def test_an_interrupt_outside_the_screen_exits_130(monkeypatch, capsys):
    def interrupted(args: Any, out: Any) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr("p2pcards.cli.parser.cmd_games", interrupted)
    assert cli.main(["games"], io.StringIO()) == 130
    assert "interrupted" in capsys.readouterr().err


@pytest.mark.parametrize("outcome", ["over", "left", "failed", "running"])
def test_every_outcome_has_its_status(outcome):
    from p2pcards.tui.app import exit_status

    status = exit_status(outcome)
    assert status == {"over": 0, "left": 0, "failed": 1, "running": 1}[outcome]
    assert status.left == (outcome == "left")
    assert not exit_status(outcome, resumable=False).left  # left in a LAN lobby: no table to take up
