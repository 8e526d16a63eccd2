"""The terminal table as an application, driven by keys through a pipe (no terminal).

Each test runs the real application -- layout, key bindings, trio in guest mode on the
asyncio loop, the person and the computer players as peers on in-memory links -- with
``create_pipe_input()`` and an output that records what is drawn.  A scripted typist
reads the view model after every change and types what a person would.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from prompt_toolkit.application import create_app_session, get_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.mouse_events import MouseButton, MouseEvent, MouseEventType
from prompt_toolkit.output import DummyOutput

from p2pcards.core import GO_IN, PASS, PLAY, TRUMP, Decision, load_games
from p2pcards.discovery import Announcement, encode_txt
from p2pcards.identity import Identity, load_or_create
from p2pcards.net import PROTO, log_path, unfinished_tables
from p2pcards.net.store import Manifest, StoreError, read_log
from p2pcards.table.audit import audit_transcript
from p2pcards.testing.fake_lan import FakeLan, open_fake
from p2pcards.tui.app import build_app, run_local_table, run_with_trio
from p2pcards.tui.lan import LanTable, run_lan_table
from p2pcards.tui.layout import hand_fragments
from p2pcards.tui.lobby_screen import LobbyModel
from p2pcards.tui.model import GameInfo, SeatLabel, Snapshot, TableModel
from p2pcards.tui.runtime import LocalTable
from p2pcards.tui.start import _Browser, build_start_app, run_start_screen
from p2pcards.tui.start_model import StartModel
from p2pcards.tui.style import build_style
from p2pcards.words import Text

REGISTRY = load_games()
RIGHT = "\x1b[C"
DOWN = "\x1b[B"


class ScreenOutput(DummyOutput):
    """An output of a given (changeable) size that keeps, as text, every screen drawn on it."""

    def __init__(self, rows: int = 30, columns: int = 100, *, cells: bool = False) -> None:
        self.size = Size(rows=rows, columns=columns)
        self.screens: list[str] = []
        #: with ``cells``: the last screen as rows of (character, style) -- colours can be checked
        self.keep_cells = cells
        self.cells: list[list[tuple[str, str]]] = []

    def get_size(self) -> Size:
        return self.size

    def flush(self) -> None:
        """The renderer flushes after each screen: keep that screen as text."""
        screen = screen_text(get_app())
        if screen and (not self.screens or self.screens[-1] != screen):
            self.screens.append(screen)
        last = getattr(get_app().renderer, "_last_screen", None)
        if self.keep_cells and last is not None:
            self.cells = [[(last.data_buffer[y][x].char, last.data_buffer[y][x].style)
                           for x in range(self.size.columns)] for y in range(self.size.rows)]

    def drawn(self) -> str:
        """Every screen the application drew, one after another."""
        return "\n".join(self.screens)


def screen_text(app: Any) -> str:
    """The screen as last rendered, as text (from the renderer's screen buffer)."""
    screen = getattr(app.renderer, "_last_screen", None)
    if screen is None:
        return ""
    size = app.output.get_size()
    return "\n".join("".join(screen.data_buffer[y][x].char for x in range(size.columns)).rstrip()
                     for y in range(size.rows))


def person(name: str = "Zé", named: bool = True) -> Identity:
    """A person whose name was chosen (``named``: the start screen does not ask it)."""
    digest = hashlib.sha256(name.encode()).digest()
    return Identity(Ed25519PrivateKey.from_private_bytes(digest), X25519PrivateKey.from_private_bytes(digest), name,
                    named)


def click(model: TableModel, index: int) -> None:
    """A mouse click on the index-th card of the hand, through the fragment's handler."""
    for fragment in hand_fragments(model, 100):
        if len(fragment) == 3 and "┌" in fragment[1]:
            if index == 0:
                fragment[2](MouseEvent(position=None, event_type=MouseEventType.MOUSE_UP,  # type: ignore[arg-type]
                                       button=MouseButton.LEFT, modifiers=frozenset()))
                return
            index -= 1
    raise AssertionError("no such card on screen")


class Typist:
    """Types what a person would, after every change of the model: plays legal cards by
    Enter, digits, arrows and Space, or a mouse click; marks three cards to pass; goes in,
    exchanging a card or sitting out; chooses trumps; opens and closes every window; reads
    each summary."""

    def __init__(self, model: TableModel, send: Callable[[str], None]) -> None:
        self.model = model
        self.send = send
        self.answered = 0
        self.windows_seen: set[str] = set()
        self.kinds: list[str] = []
        self.summaries = 0
        self.final = False
        self.swapped = False
        self.log: list[str] = []
        #: before the first answer: open and close every window by its key, one at a time
        self.tour_windows = True
        self._tour = [("?", "help"), ("?", None), ("s", "scores"), ("s", None), ("l", "last"), ("l", None),
                      ("q", "quit"), ("n", None)]
        self._expect: tuple[str | None] | None = None
        self.screen = ""

    def tour(self) -> bool:
        """One step of the window tour; True once it is over."""
        m = self.model
        if self._expect is not None:
            (want,) = self._expect
            titles = {"help": "help_title", "scores": "scores", "last": "last_trick", "quit": "quit_title"}
            if m.overlay != want or (want is not None and m.text(titles[want]) not in self.screen):
                return False
            self.windows_seen.add(want or "")
            self._expect = None
        if not self._tour:
            self.tour_windows = False
            return True
        key, want = self._tour.pop(0)
        self._expect = (want,)
        self.send(key)
        return False

    def react(self, screen: str) -> None:
        """Act on what the model says -- once the screen shows it."""
        m = self.model
        self.screen = screen
        if m.popup is not None and not self.tour_windows:
            return
        if m.popup is None and m.overlay is not None:
            self._close_window(m.overlay, screen)
            return
        if m.decision is None or m.asked == self.answered or m.text("your_turn") not in screen:
            return
        if self.tour_windows and not self.tour():
            return
        self.answered = m.asked
        kind = m.decision.kind
        self.kinds.append(kind)
        self._decide(kind, len(self.kinds))

    def _close_window(self, key: str, screen: str) -> None:
        """A summary, the match's end or an error on top: read it (logged) and close it,
        once it is drawn."""
        m = self.model
        over = "final_title" if (m.final or {}).get("winner") is not None else "final_title_stopped"
        titles = {"summary": m.text("summary_title", n=len(m.history)), "final": m.text(over),
                  "error": m.text("error_title")}
        if key in titles and titles[key] not in screen:
            return  # not drawn yet
        if key == "summary" and len(m.history) > self.summaries:
            self.summaries = len(m.history)
            self.log.append("\n".join(m.summary_lines()))
            self.send("\r")
        elif key in ("final", "error") and not self.final:
            self.final = True
            self.log.append("\n".join(m.final_lines() or [m.error or ""]))
            self.send("\r")

    def _decide(self, kind: str, n: int) -> None:
        """Answer the ``n``-th decision, of ``kind``, each time in another of the ways the keys allow."""
        m = self.model
        assert m.decision is not None
        if kind == PLAY:
            cards = m.hand_cards()
            legal = [hc.index for hc in cards if hc.legal]
            if m.swap is not None and not self.swapped:
                self.swapped = True
                self.send("x")
            elif n % 4 == 1:
                self.send("\r")  # the cursor starts on a legal card
            elif n % 4 == 2 and legal[-1] < 10:
                self.send(str((legal[-1] + 1) % 10))
            elif n % 4 == 3 and len(legal) > 1:
                self.send(RIGHT + " ")
            else:
                click(m, legal[0])
        elif kind == PASS:
            self.send("123\r")
        elif kind == GO_IN:
            if m.decision.may_decline and n % 2:
                self.send("n")
            else:
                self.send("2\r")
        elif kind == TRUMP:
            self.send("5" if n % 2 else RIGHT + "\r")


def drive(table: LocalTable, *, output: ScreenOutput | None = None, timeout: float = 40,
          extra: Callable[[Typist, Any], None] | None = None, tour: bool = True) -> tuple[Typist, ScreenOutput]:
    """Run ``table`` on screen with a typist until the application exits (bounded);
    ``tour=False``: the typist opens no window before its first answer."""
    out = output or ScreenOutput()

    async def main() -> None:
        with create_pipe_input() as inp, create_app_session(input=inp, output=out):
            app = build_app(table.model, input=inp, output=out)
            typist = Typist(table.model, inp.send_text)
            typist.tour_windows = tour
            changed = asyncio.Event()
            table.model.listeners.append(changed.set)
            app.after_render += lambda _: changed.set()
            holder.append(typist)

            async def type_along() -> None:
                while not app.is_done:
                    try:
                        await asyncio.wait_for(changed.wait(), 0.25)
                    except TimeoutError:
                        pass
                    changed.clear()
                    screen = screen_text(app)
                    typist.react(screen)
                    if extra is not None:
                        extra(typist, app)

            task = asyncio.ensure_future(type_along())
            try:
                await run_with_trio(app, table.run, table.cancel,
                                    lambda exc: table.model.stopped(f"{type(exc).__name__}: {exc}"))
            finally:
                task.cancel()

    holder: list[Typist] = []
    asyncio.run(asyncio.wait_for(main(), timeout))
    return holder[0], out


def local(game: str, tmp_path: Path, *, options: dict[str, Any] | None = None, deals: int = 1, seed: int = 1,
          lang: str = "en") -> LocalTable:
    spec = REGISTRY.get(game)
    return LocalTable(spec, spec.resolve_options(options or {}), me=person(), text=Text(lang), bots="random",
                      seed=seed, deals=deals, speed=0, data_dir=tmp_path)


@pytest.mark.parametrize(("game", "options", "deals"), [
    ("sueca", {}, 1),
    ("bisca", {"swap2": "on", "hand": "9"}, 1),
    ("copas", {}, 1),
    ("sobe-e-desce", {}, 4),
])
def test_a_whole_deal_of_every_game_by_keys(game, options, deals, tmp_path):
    table = local(game, tmp_path, options=options, deals=deals)
    typist, out = drive(table)
    assert table.outcome == "over" and typist.final
    assert typist.summaries == deals
    assert all("✓ Deal verified" in s for s in typist.log[:deals]), typist.log
    assert {"help", "scores", "last", "quit"} <= typist.windows_seen
    spec = REGISTRY.get(game)
    if game == "copas":
        assert typist.kinds[0] == PASS
    if game == "sobe-e-desce":
        assert TRUMP in typist.kinds and typist.kinds.count(GO_IN) == 4  # the person chose trumps once
    if game in ("sueca", "bisca"):
        hand = 10 if game == "sueca" else 20
        assert typist.kinds.count(PLAY) - int(typist.swapped) == hand
    drawn = out.drawn()
    assert spec.title in drawn and "your turn" in drawn and "Deal 1 is over" in drawn
    assert "♠" in drawn and ("♥" in drawn or "♦" in drawn)
    # the person's peer kept its transcript
    assert log_path(tmp_path, table.table_id, 0).stat().st_size > 0


def test_portuguese_table_and_windows(tmp_path):
    table = local("sueca", tmp_path, lang="pt", seed=2)
    typist, out = drive(table)
    drawn = out.drawn()
    assert table.outcome == "over"
    assert "Trunfo" in drawn and "é a sua vez" in drawn and "Mão verificada" in drawn
    assert "Teclas" in drawn and "Última vaza" in drawn and "Sair da mesa?" in drawn


def test_leaving_with_ctrl_c_keeps_the_log(tmp_path):
    table = local("sueca", tmp_path, deals=None)  # type: ignore[arg-type]

    def interrupt(typist: Typist, app: Any) -> None:
        if typist.model.asked >= 3:
            typist.send("\x03")

    typist, _ = drive(table, extra=interrupt)
    assert table.outcome == "left"
    log = log_path(tmp_path, table.table_id, 0)
    assert log.stat().st_size > 0 and log.with_suffix(".secret").exists()
    # every local peer closed its log; the person's is a valid transcript up to where it stopped
    from p2pcards.table.wire import FrameDecoder

    frames = FrameDecoder().feed(log.read_bytes())
    assert len(frames) > 10


def leave_after(asked: int) -> Callable[[Typist, Any], None]:
    def interrupt(typist: Typist, app: Any) -> None:
        if typist.model.asked >= asked and not getattr(typist, "interrupted", False):
            typist.interrupted = True  # type: ignore[attr-defined]
            typist.send("\x03")

    return interrupt


def test_a_table_left_with_ctrl_c_is_taken_up_again_where_it_stopped(tmp_path):
    me = load_or_create(tmp_path, "Zé")
    spec = REGISTRY.get("bisca")
    table = LocalTable(spec, spec.resolve_options({}), me=me, text=Text("en"), bots="random", seed=4, deals=2,
                       speed=0, data_dir=tmp_path)
    drive(table, extra=leave_after(3))
    assert table.outcome == "left"
    path = log_path(tmp_path, table.table_id, 0)
    before, _ = read_log(path)
    (found,) = unfinished_tables(tmp_path, me)
    assert found.manifest.role == "local" and found.table == table.table_id.hex()
    assert "against the computer" in found.describe()
    assert found.manifest.speed == 0  # the pace it was started at, which resume takes it up at
    with pytest.raises(StoreError, match="bad pace"):
        Manifest.from_bytes(dataclasses.replace(found.manifest, speed=99.0).to_bytes())
    resumed = LocalTable.resume(found.path, REGISTRY, me=me, text=Text("en"))
    assert resumed.model.speed == 0
    typist, out = drive(resumed)
    assert resumed.outcome == "over" and typist.final and typist.summaries == 2
    after, _ = read_log(path)
    assert after[:len(before)] == before and len(after) > len(before)  # continued, not started again
    for seat in range(1, spec.seats):  # every computer player's replica holds the same transcript
        assert read_log(log_path(tmp_path, table.table_id, seat))[0] == after
    report = audit_transcript(after, REGISTRY)
    assert report["ok"] and [d["verdict"] for d in report["deals"]] == ["clean", "clean"]
    assert not unfinished_tables(tmp_path, me)  # over: nothing left to resume


def test_resume_says_it_is_catching_up_and_keeps_the_earlier_deals(tmp_path):
    """Taken up again, the screen says that it catches up (not "shuffling… 0/2" at deal 1)
    until the replica is rebuilt, and the deals panel keeps the deals played before."""
    me = load_or_create(tmp_path, "Zé")
    spec = REGISTRY.get("bisca")
    table = LocalTable(spec, spec.resolve_options({}), me=me, text=Text("en"), bots="random", seed=4, deals=2,
                       speed=0, data_dir=tmp_path)

    def leave_in_deal_2(typist: Typist, app: Any) -> None:
        m = typist.model
        if m.history and m.snap.deal == 1 and m.decision is not None and not getattr(typist, "left", False):
            typist.left = True  # type: ignore[attr-defined]
            typist.send("\x03")

    drive(table, extra=leave_in_deal_2)
    assert table.outcome == "left" and len(table.model.history) == 1
    (found,) = unfinished_tables(tmp_path, me)
    resumed = LocalTable.resume(found.path, REGISTRY, me=me, text=Text("en"), speed=0)
    assert resumed.model.status().startswith("catching up: the table is rebuilt from its transcript")
    assert "deal 1" not in resumed.model.header()[0]
    _, out = drive(resumed)
    assert "catching up" in out.screens[0] and "committing 0/2" not in out.screens[0]
    assert resumed.outcome == "over"
    assert [d["deal"] for d in resumed.model.history] == [0, 1]  # deal 1 kept its place in the panel
    assert "catching up" not in out.screens[-1]


def test_a_table_left_on_screen_is_finished_by_resume_without_a_screen(tmp_path):
    me = load_or_create(tmp_path, "Zé")
    spec = REGISTRY.get("bisca")
    table = LocalTable(spec, spec.resolve_options({}), me=me, text=Text("en"), bots="random", seed=5, deals=1,
                       speed=0, data_dir=tmp_path)
    drive(table, extra=leave_after(2))
    assert table.outcome == "left"
    env = {**os.environ, "P2PCARDS_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "p2pcards", "resume", "--json"], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[0]["type"] == "resumed" and lines[0]["role"] == "local" and lines[0]["table"] == table.table_id.hex()
    assert [o["type"] for o in lines[1:]] == ["table", "deal", "final"]
    assert lines[2]["audit"]["verdict"] == "clean"
    assert not unfinished_tables(tmp_path, me)


def test_q_then_y_leaves(tmp_path):
    table = local("bisca", tmp_path, deals=None)  # type: ignore[arg-type]

    def leave(typist: Typist, app: Any) -> None:
        if typist.model.asked >= 2 and typist.model.overlay is None:
            typist.send("qy")

    drive(table, extra=leave)
    assert table.outcome == "left"


def test_resize_relays_out_and_too_small_says_so(tmp_path):
    table = local("sueca", tmp_path)
    out = ScreenOutput(rows=30, columns=100)
    seen: dict[str, bool] = {}

    def resize(typist: Typist, app: Any) -> None:
        asked = typist.model.asked
        if asked == 2 and "small" not in seen:
            seen["small"] = True
            out.size = Size(rows=15, columns=50)
            app.invalidate()
        elif "small" in seen and "big" not in seen and "too small" in typist.screen:
            seen["big"] = True
            out.size = Size(rows=24, columns=80)
            app.invalidate()

    typist, _ = drive(table, output=out, extra=resize)
    drawn = out.drawn()
    assert "The terminal is too small: 50×15" in drawn
    assert table.outcome == "over" and typist.kinds.count(PLAY) == 10  # nothing was lost


def test_a_failing_peer_is_shown_and_the_table_left(tmp_path):
    table = local("sueca", tmp_path, deals=None)  # type: ignore[arg-type]

    class Broken:
        def choose(self, view: Any, decision: Any) -> Any:
            raise RuntimeError("this computer player is broken")

    table.seats[2].player.inner = Broken()
    typist, out = drive(table)
    assert table.outcome == "failed" and "this computer player is broken" in typist.log[-1]
    assert "The table stopped" in out.drawn()


def test_start_screen_lists_lan_tables_live_and_opens_a_game(tmp_path):
    lan = FakeLan()
    ann = Announcement(proto=PROTO, game="sueca", rules_version=REGISTRY.get("sueca").rules_version, seats_taken=1,
                       seats_total=4, host_name="Ana", host_fingerprint="abcd-efgh-ijkl-mnop")
    lan.inject("sueca-Ana-abcd", encode_txt(ann), port=4123, addresses=("192.0.2.10",))
    model = StartModel(list(REGISTRY.games.values()), Text("en"))
    out = ScreenOutput()

    async def main() -> Any:
        with create_pipe_input() as inp, create_app_session(input=inp, output=out):
            app = build_start_app(model, input=inp, output=out)
            browser = _Browser(model, lambda: open_fake(lan), lambda table: None)
            changed = asyncio.Event()
            model.listeners.append(changed.set)
            app.after_render += lambda _: changed.set()
            inp.send_text("3")  # tables on the LAN

            async def pick() -> None:
                while "sueca-Ana-abcd:" not in screen_text(app):  # the table is listed live
                    await asyncio.wait_for(changed.wait(), 10)
                    changed.clear()
                inp.send_text("\r")

            task = asyncio.ensure_future(pick())
            try:
                return await run_with_trio(app, browser.run, browser.cancel)
            finally:
                task.cancel()

    choice = asyncio.run(asyncio.wait_for(main(), 30))
    assert choice.kind == "join" and (choice.host, choice.port) == ("192.0.2.10", 4123)
    assert "sueca-Ana-abcd: Sueca hosted by Ana at 192.0.2.10:4123 — 3 free seats" in out.drawn()


def test_start_screen_plays_a_game_and_comes_back(tmp_path, monkeypatch):
    import p2pcards.tui.start as start_module

    out = ScreenOutput()
    played: list[tuple[str, dict[str, Any], str]] = []
    with create_pipe_input() as inp:
        def play(spec: Any, options: Any, **kw: Any) -> int:
            played.append((spec.name, dict(options), kw["bots"]))
            table = LocalTable(spec, options, me=person(), text=Text("en"), bots=kw["bots"], seed=3, speed=0,
                               data_dir=tmp_path)
            left: list[bool] = []

            def leave() -> None:
                if table.model.asked == 1 and not left:
                    left.append(True)
                    inp.send_text("qy")

            table.model.listeners.append(leave)
            code = run_local_table(table, input=kw["input"], output=kw["output"])
            inp.send_text(f"4127.0.0.1:{closed}\r")  # back at the menu: join by address
            return code

        def play_lan(registry: Any, plan: Any, **kw: Any) -> int:
            joins.append(plan)
            table = LanTable(registry, plan, me=person(), text=Text("en"), data_dir=tmp_path, speed=0)

            def read_error() -> None:
                if table.lobby.error is not None and not table.lobby.ended:
                    inp.send_text("x")

            table.lobby.listeners.append(read_error)
            code = run_lan_table(table, input=kw["input"], output=kw["output"])
            inp.send_text("q")  # back at the menu: quit
            return code

        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            closed = s.getsockname()[1]
        joins: list[Any] = []
        monkeypatch.setattr(start_module, "play_local", play)
        monkeypatch.setattr(start_module, "play_lan", play_lan)
        inp.send_text("1" + RIGHT + DOWN * 5 + "\r")  # play against the computer: Bisca, Start
        with create_app_session(input=inp, output=out):
            code = run_start_screen(REGISTRY, me=person(), lang="en", data_dir=tmp_path, input=inp, output=out,
                                    lan=False)
    assert code == 0 and played == [("bisca", {"hand": 3, "swap2": "off", "target": 4}, "search")]  # the default
    drawn = out.drawn()
    assert "Play against the computer" in drawn and "Bisca · deal 1" in drawn
    assert [(p.host, p.port) for p in joins] == [("127.0.0.1", closed)]
    assert f"Could not play: cannot connect to 127.0.0.1:{closed}" in drawn


def test_line_mode_stays_reachable_and_no_terminal_means_no_full_screen(tmp_path):
    env = {**os.environ, "P2PCARDS_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "p2pcards", "play", "bisca", "--text", "--seed", "3"],
                          input="q\n", capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0 and "You left the table." in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "p2pcards"], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0 and "usage: p2pcards" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "p2pcards", "play", "--speed", "-1"], capture_output=True,
                          text=True, timeout=60, env=env)
    assert proc.returncode == 2 and "--speed must be between 0 and 10" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "p2pcards", "resume", "--speed", "11"], capture_output=True,
                          text=True, timeout=60, env=env)  # the pace of a table taken up again: the same bounds
    assert proc.returncode == 2 and "--speed must be between 0 and 10" in proc.stderr


def test_start_screen_lists_saved_tables_and_takes_an_unfinished_one_up_again(tmp_path, monkeypatch):
    """"Your tables" lists what ``resume --list`` lists: the unfinished table first (Enter
    takes it up again, from its files), an ended one with how it ended (Enter explains)."""
    import dataclasses

    import p2pcards.tui.app as app_module
    from p2pcards.net.store import load_manifest, save_manifest

    me = load_or_create(tmp_path, "Zé")
    spec = REGISTRY.get("bisca")
    table = LocalTable(spec, spec.resolve_options({}), me=me, text=Text("en"), bots="random", seed=4, deals=2,
                       speed=0, data_dir=tmp_path)
    drive(table, extra=leave_after(3))
    (found,) = unfinished_tables(tmp_path, me)
    gone = dataclasses.replace(load_manifest(found.path), table=bytes(range(32)), finished=True, ended="unknown")
    save_manifest(tmp_path, gone)
    resumed: list[Any] = []

    def run_local(t: Any, **kw: Any) -> int:
        resumed.append(t)
        inp.send_text("q")  # back at the menu: quit
        return 0  # the person left the table with q (Ctrl-C, 130, would end the start screen too)

    monkeypatch.setattr(app_module, "run_local_table", run_local)
    out = ScreenOutput()
    with create_pipe_input() as inp:
        inp.send_text("5" + DOWN + "\r" + DOWN + "\r")  # your tables; the ended one; then the unfinished one
        with create_app_session(input=inp, output=out):
            code = run_start_screen(REGISTRY, me=me, lang="en", data_dir=tmp_path, input=inp, output=out, lan=False)
    assert code == 0
    drawn = out.drawn()
    # one row per table: when it was last played, the game and table, against whom, its state
    said = " ".join(drawn.split())  # (a long row wraps)
    assert re.search(rf"\d{{4}}-\d\d-\d\d \d\d:\d\d Bisca {table.table_id.hex()[:8]} against the computer \(Ana\): "
                     "unfinished: Enter takes it up again", said)
    assert "Bisca 00010203 against the computer: ended: the table went on without you" in said
    assert "That table has ended: there is nothing to take up" in drawn
    assert len(resumed) == 1 and resumed[0].table_id == table.table_id and resumed[0].manifest.role == "local"
    assert resumed[0].model.speed == 0, "taken up at the pace it was played at, not the start screen's"


# ---------------------------------------------------------------------- keys and drawing, on a model
def press(model: TableModel, keys: str = "", done: Callable[[], bool] = lambda: True, *, rows: int = 30,
          columns: int = 100) -> ScreenOutput:
    """Draw ``model`` on the real application, type ``keys`` through a pipe, wait until
    ``done()`` (bounded) and one more drawing, then close; returns what was drawn."""
    out = ScreenOutput(rows=rows, columns=columns, cells=True)

    async def main() -> None:
        with create_pipe_input() as inp, create_app_session(input=inp, output=out):
            app = build_app(model, input=inp, output=out)

            async def wait_then_close() -> None:
                for _ in range(200):
                    if done():
                        break
                    await asyncio.sleep(0.02)
                app.invalidate()
                await asyncio.sleep(0.1)
                if not app.is_done:
                    app.exit()

            task = asyncio.ensure_future(wait_then_close())
            try:
                await app.run_async(pre_run=lambda: inp.send_text(keys))
            finally:
                task.cancel()

    asyncio.run(asyncio.wait_for(main(), 20))
    return out


def _model(game: str, lang: str = "en", **snap: Any) -> tuple[TableModel, list[Any]]:
    from tests.test_tui_model import make_model

    return make_model(game, lang, **snap)


def test_letters_reach_the_cards_after_the_tenth_and_arrows_up_down_the_trump_list():
    from tests.test_tui_model import COPAS_HAND

    model, chosen = _model("copas", hand=COPAS_HAND, hand_sizes=(13,) * 4)
    model.ask(Decision((0,), PLAY), [p for p, _ in COPAS_HAND])
    out = press(model, "b", lambda: bool(chosen))
    assert chosen == [model.hand_order()[11][0]]  # b: the 12th card
    assert "1-9, 0, a-c: that card" in out.screens[0]
    assert " a " in out.screens[0].replace("▼", " ") and " c" in out.screens[0]  # each key over its card
    sobe, picked = _model("sobe-e-desce", hand=((0, "AS"),))
    sobe.ask(Decision((0,), TRUMP), ["S", "H", "D", "C", "turn"])
    press(sobe, DOWN + DOWN + "\x1b[A" + "\r", lambda: bool(picked))
    assert picked == ["H"]


def test_hearts_and_diamonds_are_red_even_under_the_cursor():
    from tests.test_tui_model import HAND

    model, _ = _model("sueca", hand=HAND, trick=((1, "7D"),), dummies=(2,), dummy_hands={2: ("AH", "KS")})
    model.ask(Decision((0,), PLAY), [3, 9])  # the hearts: legal, one under the cursor
    out = press(model)
    style = build_style()
    colours = {style.get_attrs_for_style_str(st).color for row in out.cells for ch, st in row if ch in "♥♦"}
    blacks = {style.get_attrs_for_style_str(st).color for row in out.cells for ch, st in row if ch in "♠♣"}
    assert colours and colours <= {"c00000", "ff6b6b"} and "000000" not in colours
    assert "c00000" not in blacks


def test_a_long_hint_wraps_under_the_table_instead_of_being_cut():
    hand = ((7, "2S"), (3, "7H"), (5, "AS"), (9, "KH"), (11, "QC"))
    model, _ = _model("sueca", hand=hand, hand_sizes=(5, 5, 5, 5))
    model.ask(Decision((0,), PLAY), [7, 3, 5, 9, 11])
    model.hint_line = ("hint: play A♠ — about 12 points better than the next best choice over 300 sampled deals, "
                       "and your partner is winning the trick")
    out = press(model, columns=72)
    lines = out.screens[-1].splitlines()
    start = next(i for i, line in enumerate(lines) if "hint: play A♠" in line)
    said = " ".join(" ".join(line.split()) for line in lines[start:start + 3])
    assert " ".join(model.hint_line.split()) in said


def test_the_leave_dialog_says_the_command_that_takes_the_table_up_again():
    model, _ = _model("sueca")
    model.log_path = "/home/ze/.local/share/p2pcards/tables/6a6d89a9f00d/seat0.log"
    said = " ".join(" ".join(line.split()) for line in press(model, "q").screens[-1].splitlines())
    assert "The table is kept: `p2pcards resume 6a6d89a9` takes your seat again." in said


def test_too_small_wraps_on_a_tiny_terminal(tmp_path):
    model, _ = _model("sueca")
    out = press(model, rows=10, columns=40)
    said = " ".join(" ".join(line.split()) for line in out.screens[-1].splitlines())
    assert "The terminal is too small: 40×10; the table needs 72×20." in said


def test_seat_names_and_states_are_never_cut_mid_word():
    spec = REGISTRY.get("sueca")
    seats = [SeatLabel(0, "Zé"), SeatLabel(1, "Maximiliano Bartolomeu", "heuristic", "x"),
             SeatLabel(2, "Rui"), SeatLabel(3, "Inês")]
    model = TableModel(GameInfo.of(spec, spec.resolve_options({})), seats, 0, Text("en"), here="x")
    model.update(Snapshot(stage="play", in_deal=True, hand_sizes=(10,) * 4, tricks_won=(0, 10, 0, 0),
                          points_won=(0,) * 4, totals=(0, 0)))
    model.link([1, 3], False)
    screen = press(model, rows=20, columns=72).screens[-1]
    assert re.search(r"disconnecte(?!d)", screen) is None and "disconnected" in screen
    assert "Maximiliano Bartolomeu" not in screen and "Maximil" in screen and "…" in screen
    for line in screen.splitlines():  # every line of a seat: whole words, or an ellipsis
        assert not re.search(r"heuristi(?!c)|tricks 1(?!0)", line), line


def test_the_lobby_tells_people_their_command_first():
    model = LobbyModel(Text("en"))
    model.say("where", model.text("lobby_listening", address="192.0.2.5:4000"))
    text = "".join(f[1] for f in model.fragments())
    person = text.index("p2pcards play --join 192.0.2.5:4000")
    assert person < text.index("p2pcards join 192.0.2.5:4000")  # the headless computer player's comes second
    assert "\n  A computer player joins with" in text


@pytest.mark.parametrize(("columns", "rows"), [(80, 24), (100, 30)])
def test_a_decision_s_dialog_leaves_the_side_panel_in_view(columns, rows):
    """Sobe e Desce's trump choice: its dialog floats over the table, and every line of the
    side panel (the scores one decides by) is still on the screen."""
    sobe, _ = _model("sobe-e-desce", hand=((0, "AS"), (1, "7H"), (2, "KD")), totals=(20, 12, 7, 20))
    sobe.ask(Decision((0,), TRUMP), ["S", "H", "D", "C", "turn"])
    screen = press(sobe, columns=columns, rows=rows).screens[-1]
    assert sobe.dialog_title() in screen
    panel = [line.strip() for line in sobe.score_lines() if line.strip()]
    assert panel
    for line in panel:
        assert line[:20] in screen, (line, screen)
