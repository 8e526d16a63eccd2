"""What the browser table's tests share: ``p2pcards web`` (or ``play --web``) in a process of
its own, Debian's chromium driven by Playwright, and a player that clicks through a page.

The browser is launched from ``/usr/bin/chromium`` (``.ci/run`` installs it; Playwright
downloads nothing), headless, with a fresh profile; a test skips, saying why, where it is
missing.  The player (:func:`play_through`) reads the page as a person would -- the window
on top, the decision dialog, the lit cards -- and clicks; it waits for the page's next view
(``body[data-version]``) after every click, so that it never clicks a stale card.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.identity import Identity
from tests.procs import ctrl_c_works

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
REPO = Path(__file__).resolve().parent.parent


def browser_missing() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not os.access(CHROMIUM, os.X_OK):
        return f"{CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)"
    return None


def launch_browser() -> Iterator[Any]:
    """One headless chromium (a module's ``browser`` fixture yields from it; each test
    opens its own context), or a skip that says why there is none."""
    for p in start_playwright():
        yield from chromium(p)


def start_playwright() -> Iterator[Any]:
    """Playwright (one per thread: a module that launches several browsers shares it), or a
    skip that says why there is no browser."""
    why = browser_missing()
    if why is not None:
        pytest.skip(why)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


def chromium(p: Any, executable: str = CHROMIUM) -> Iterator[Any]:
    """A headless chromium of Playwright ``p`` (``executable``: a script that starts
    :data:`CHROMIUM` somewhere else, such as in a network namespace), closed afterwards."""
    # launch() starts chromium on a fresh profile of its own (a temporary user-data-dir,
    # removed afterwards); every test's context is a fresh one in it
    browser = p.chromium.launch(executable_path=executable, headless=True, args=CHROMIUM_ARGS)
    try:
        yield browser
    finally:
        browser.close()


def fixed_identity(home: Path, name: str = "Zé") -> Identity:
    """The person's identity in ``home``, the same in every run: with ``--seed`` a table
    against the computer then deals the same cards run after run.  The name is one the
    person chose (``named``): no screen asks it again."""
    digest = hashlib.sha256(name.encode()).digest()
    me = Identity(Ed25519PrivateKey.from_private_bytes(digest), X25519PrivateKey.from_private_bytes(digest), name,
                  True)
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    (home / "identity.key").write_bytes(me.to_bytes())
    (home / "identity.key").chmod(0o600)
    return me


class Peer:
    """``p2pcards ARGS`` (a command that serves the page) in a process of its own, started
    through ``prefix`` if given (``ip netns exec NS``: on a machine of tests/lan.py); ``url``
    is the page's address, read from what it prints."""

    def __init__(self, home: Path, *args: str, pythonpath: Path | None = None, timeout: float = 30,
                 prefix: Sequence[str] = ()) -> None:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "P2PCARDS_LANG", "BROWSER")}
        env.update(P2PCARDS_HOME=str(home), BROWSER="true", PYTHONUNBUFFERED="1")
        if pythonpath is not None:
            env["PYTHONPATH"] = str(pythonpath)
        self.home = home
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen([*prefix, sys.executable, "-m", "p2pcards", *args], stdout=subprocess.PIPE,
                                     stderr=self.log, stdin=subprocess.DEVNULL, env=env, cwd=REPO, text=True,
                                     preexec_fn=ctrl_c_works)  # Ctrl-C works even under `pytest &`
        #: the JSON lines it printed (``web --json``), as they come
        self.lines: list[dict[str, Any]] = []
        self._printed: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.url = self._address(timeout)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if line.startswith("{"):
                self.lines.append(json.loads(line))
            self._printed.put(line)
        self._printed.put(None)

    def _address(self, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._printed.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                break
            if line is None:
                break
            found = re.search(r"http://\S+", line)
            if found:
                return found.group(0).rstrip('",')
        self.stop()
        raise AssertionError(f"no address from p2pcards: {self.stderr()}")

    def line(self, kind: str, timeout: float = 30) -> dict[str, Any]:
        """The first JSON line of type ``kind`` it printed (waiting for it)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for obj in self.lines:
                if obj.get("type") == kind:
                    return obj
            time.sleep(0.05)
        raise AssertionError(f"no {kind!r} line: {self.lines}; {self.stderr()[-2000:]}")

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read().decode(errors="replace")

    def kill(self) -> None:
        """Kill the process at once (as a crash would)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(10)

    def stop(self, timeout: float = 15) -> int:
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return -9

    def wait(self, timeout: float = 20) -> int:
        return self.proc.wait(timeout)


def open_page(browser: Any, url: str, *, width: int = 1200, height: int = 800, phone: bool = False) -> Any:
    """A new context's page on ``url`` (``phone``: a small touch screen, tapped rather than
    clicked); its page errors are collected in ``page.errors``."""
    extra = {"is_mobile": True, "has_touch": True, "device_scale_factor": 2} if phone else {}
    ctx = browser.new_context(viewport={"width": width, "height": height}, **extra)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.touch = phone
    page.goto(url)
    page.wait_for_selector("body[data-version]", timeout=15000)
    return page


#: The page's state in one round trip: the window on top, the dialog, the hand.
STATE = """() => {
  const win = document.querySelector('.window');
  const dlg = document.querySelector('.dialog');
  const pick = dlg && dlg.querySelector('button[data-a=confirm]');
  const m = pick && pick.textContent.match(/\\((\\d+)\\/(\\d+)\\)/);
  return {
    version: +document.body.dataset.version, screen: document.body.dataset.screen,
    window: win && win.dataset.kind, windowText: win && win.innerText,
    dialog: dlg && dlg.dataset.kind, dialogText: dlg && dlg.innerText,
    options: dlg ? dlg.querySelectorAll('button[data-a=choice]').length : 0,
    pick: m ? [+m[1], +m[2]] : null, decline: !!(dlg && dlg.querySelector('button[data-a=decline]')),
    legal: document.querySelectorAll('.hand .card.legal').length,
    hand: document.querySelectorAll('.hand .card').length,
    swap: !!document.querySelector('.prompt button[data-a=swap]'),
    finish: !!document.querySelector('.prompt button[data-a=finish]'),
    status: (document.getElementById('status') || {}).textContent || '',
    header: (document.querySelector('.bar .head') || {}).textContent || '',
  };
}"""

ACTIONABLE = ("() => document.querySelector('.window, .dialog, .hand .card.legal') !== null "
              "|| document.body.dataset.screen === 'start'")


def state(page: Any) -> dict[str, Any]:
    return dict(page.evaluate(STATE))


def click(page: Any, selector: str, *, nth: int = 0, timeout: float = 30) -> None:
    """Click (a tap on a touch screen) and wait for the page's next view."""
    before = page.evaluate("() => +document.body.dataset.version")
    target = page.locator(selector).nth(nth)
    if getattr(page, "touch", False):
        target.tap()
    else:
        target.click()
    page.wait_for_function(f"() => +document.body.dataset.version > {before}", timeout=timeout * 1000)


#: The cards of the person's hand, as one string.
HELD = "() => Array.from(document.querySelectorAll('.hand .card'), e => e.dataset.card).join(' ')"


def play_card(page: Any, *, timeout: float = 30) -> None:
    """Click the first lit card and wait until the table has taken it (the hand holds other
    cards, or a window is on top): a view may come in the meantime that still lights the
    same cards (a hint or a forced-rest check of the table done), and a second click on it
    would land, once retried, on whatever card is lit next."""
    held = page.evaluate(HELD)
    click(page, ".hand .card.legal", timeout=timeout)
    page.wait_for_function(f"() => ({HELD})() !== {json.dumps(held)} || document.querySelector('.window') !== null",
                           timeout=timeout * 1000)


@dataclass
class Played:
    """What :func:`play_through` saw and did."""

    plays: int = 0
    dialogs: list[str] = field(default_factory=list)
    dialog_texts: list[str] = field(default_factory=list)
    windows: list[str] = field(default_factory=list)
    window_texts: list[str] = field(default_factory=list)
    swaps: int = 0
    finished: int = 0
    headers: set[str] = field(default_factory=set)


def play_through(page: Any, *, until: str = "final", swap: bool = True, finish: bool = True,
                 choose: Callable[[dict[str, Any]], int] | None = None, steps: int = 600,
                 timeout: float = 60, seen: Callable[[Any, dict[str, Any]], None] | None = None) -> Played:
    """Play by clicks, as a person would, until the window ``until`` (``final``,
    ``summary``) is on top: the first lit card, the first choice of a dialog (``choose``
    may pick another), the first cards of a pick, the game's other choice of a play once
    (``swap``), "finish the deal" when offered (``finish``), and Continue on a deal's
    result; ``seen(page, state)`` sees the page before each step."""
    done = Played()
    for _ in range(steps):
        page.wait_for_function(ACTIONABLE, timeout=timeout * 1000)
        s = state(page)
        done.headers.add(s["header"])
        if seen is not None:
            seen(page, s)
        if s["window"]:
            if s["window"] not in ("help", "scores", "last"):
                done.windows.append(s["window"])
                done.window_texts.append(s["windowText"])
            if s["window"] == until:
                return done
            if s["window"] in ("final", "error"):
                raise AssertionError(f"the table ended: {s['windowText']}")
            click(page, ".window button[data-a=continue], .window button[data-a=close]")
        elif s["dialog"]:
            done.dialogs.append(s["dialog"])
            done.dialog_texts.append(s["dialogText"])
            if s["pick"] is not None:
                hi = s["pick"][1]
                for i in range(hi):
                    click(page, ".hand .card", nth=i)
                click(page, ".dialog button[data-a=confirm]")
            else:
                click(page, ".dialog button[data-a=choice]", nth=choose(s) if choose is not None else 0)
        elif s["swap"] and swap and done.swaps == 0:
            done.swaps += 1
            click(page, ".prompt button[data-a=swap]")
        elif s["finish"] and finish and done.finished == 0:
            done.finished += 1
            click(page, ".prompt button[data-a=finish]")
        elif s["legal"]:
            done.plays += 1
            play_card(page)
        elif s["screen"] == "start":
            raise AssertionError("back on the start page before the table ended")
    raise AssertionError(f"not over after {steps} steps: {state(page)}")


def turn(page: Any) -> str | None:
    """One move on a page if it has one: a lit card clicked ("played"); the window on top
    (its kind); None when the page waits for the others."""
    s = state(page)
    if s["window"]:
        return str(s["window"])
    if s["legal"]:
        play_card(page)
        return "played"
    return None


def play_both(pages: list[Any], *, until: Any, timeout: float = 60) -> list[int]:
    """Play on every page by turns until ``until(cards played on each page)`` is true."""
    deadline = time.monotonic() + timeout
    played = [0] * len(pages)
    while not until(played):
        assert time.monotonic() < deadline, [state(p) for p in pages]
        moves = [turn(p) == "played" for p in pages]
        played = [n + m for n, m in zip(played, moves)]
        if not any(moves):
            time.sleep(0.05)
    return played


def shoot(page: Any, name: str) -> None:
    """A screenshot for the README, when ``P2PCARDS_SCREENSHOTS`` names a directory."""
    where = os.environ.get("P2PCARDS_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"))
