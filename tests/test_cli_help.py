"""The command line's help: examples, a description for every command, text wrapped to the
terminal, and the numbering rule (people count from 1, --json from 0) said where it matters."""

from __future__ import annotations

import pytest

from p2pcards.cli import main

COMMANDS = [["games"], ["arena"], ["duel"], ["engine"], ["bench"], ["bench", "rules"], ["bench", "sim"],
            ["bench", "deck"], ["bench", "table"], ["play"], ["host"], ["join"], ["resume"], ["tables"], ["audit"],
            ["export"], ["history"], ["stats"]]


def help_text(cmd: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exc:
        main([*cmd, "--help"])
    assert exc.value.code == 0
    return capsys.readouterr().out


def description(text: str) -> str:
    """The paragraph between the usage and the first list of arguments."""
    after_usage = text.split("\n\n", 1)[1]
    return after_usage.split("\n\n", 1)[0] if not after_usage.startswith(("positional", "options")) else ""


def test_top_level_help_has_examples_and_points_to_each_command(capsys):
    text = help_text([], capsys)
    assert "Examples:" in text
    for example in ("p2pcards play sueca ", "p2pcards play sueca --host", "p2pcards tables",
                    "p2pcards play --join NAME", "p2pcards join NAME"):
        assert f"\n  {example}" in text, example
    assert "See `p2pcards COMMAND --help`" in text


@pytest.mark.parametrize("cmd", COMMANDS)
def test_every_command_has_a_description(cmd, capsys):
    text = help_text(cmd, capsys)
    assert len(description(text)) > 40, text[:400]


@pytest.mark.parametrize("cmd", [["host"], ["resume"], ["play"], ["audit"], ["join"], []])
def test_help_prose_is_wrapped_to_the_terminal(cmd, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "62")
    text = help_text(cmd, capsys)
    desc = description(text)
    assert desc and all(len(line) <= 60 for line in desc.splitlines()), desc
    # prose lines (not the indented JSON formats and examples) fit too
    prose = [line for line in text.splitlines() if line and not line[0].isspace() and " " in line]
    too_wide = [line for line in prose if len(line) > 60 and not line.startswith("usage:")]
    assert not too_wide, too_wide


def test_a_help_keeps_its_paragraphs_and_json_layout(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "62")
    text = help_text(["host"], capsys)
    assert '\n  {"type": "listening", "address": ADDR, "port": PORT, "game": NAME}\n' in text
    assert "\nExit status: 0 when the table is over;" in text  # a labelled paragraph starts a line
    assert "\nJSON output (--json): one object per line." in text


def test_both_timeouts_say_why_their_defaults_differ(capsys):
    host = " ".join(help_text(["host"], capsys).split())
    play = " ".join(help_text(["play"], capsys).split())
    assert "(default 60, suited to computer players; `play --host` has 300 since a person sits there" in host
    assert "(default 300, where `p2pcards host` has 60: at this table you, a person, hold a seat" in play


@pytest.mark.parametrize("cmd", [["arena"], ["host"], ["join"], ["resume"], ["audit"], ["bench", "deck"]])
def test_json_help_says_json_counts_from_0(cmd, capsys):
    text = " ".join(help_text(cmd, capsys).split())
    assert "JSON output (--json)" in text
    assert "Numbering: --json counts seats, deals, matches and teams from 0" in text
    assert "the lines printed for people count from 1" in text


def test_audit_help_documents_the_torn_tail(capsys):
    text = " ".join(help_text(["audit"], capsys).split())
    assert '"torn_tail": null or {"bytes": N, "seq": N}' in text
    assert "a torn last frame is only a warning" in text


def test_the_replay_keys_read_whole_in_80_columns(capsys, monkeypatch):
    """Each key of `replay --help` stays on its line with its meaning at 80 columns: no
    phrase is broken at the terminal's edge ("the deal's / start/end")."""
    monkeypatch.setenv("COLUMNS", "80")
    text = help_text(["replay"], capsys)
    keys = text[text.index("Keys:"):text.index("A replay only reads")].splitlines()
    assert all(len(line) <= 80 for line in keys), keys
    assert any(line.split()[-3:] == ["the", "deal's", "start/end"] or "Home/End   the deal's start/end" in line
               for line in keys), keys
    assert "       PgDn/PgUp  the next/previous deal" in text and "leave (Esc closes a window)" in text
