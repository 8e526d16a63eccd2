"""The browser table at LAN tables on loopback, end to end: ``p2pcards play --web --host``
in a process of its own, the other seats real processes (a dishonest peer of
tests/attackers.py among them) or ``play --web --join NAME`` found on a fake LAN, and
Debian's chromium driven by Playwright.

Covered: a message refused by the person's replica, said in the page with whom it
blames; the sender's process killed, voted out by the others, and played as a dummy, its
cards face up, in the next deal; a table joined by its name on the LAN and hosted from the
command line, both pages at the table.  Skipped, saying why, without chromium.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from p2pcards.tui.logfile import log_path
from p2pcards.words import Text
from tests.procs import LOOPBACK, Proc
from tests.web_helpers import Peer, browser_missing, click, fixed_identity, launch_browser, open_page, play_through

pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing()))

EN = Text("en")

#: Seconds a seat may stay silent before the others vote it out, at these tables: short,
#: so that a killed seat goes soon, and long enough for a page clicked by a test on a busy
#: machine (the person's own seat is under the same clock).
TIMEOUT = 5


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


def host_on_the_web(home: Path, game: str, seats: str, *args: str) -> Peer:
    """``play GAME --web --host`` on loopback, unannounced: the person's page serves it."""
    return Peer(home, "play", game, "--web", "--no-browser", "--host", "--seats", seats, "--bind", LOOPBACK,
                "--no-announce", "--speed", "0", "--lang", "en", *args)


def lobby_port(page: Any) -> int:
    """The port the lobby says others join at."""
    page.wait_for_selector("body[data-screen=lobby]")
    found = re.search(r"--join \S+:(\d+)", page.locator(".lobby").inner_text())
    assert found, page.locator(".lobby").inner_text()
    return int(found.group(1))


def test_a_refused_message_a_vote_and_a_dummy_shown_in_the_page(browser, tmp_path):
    """Sueca: the person hosts, two computer players of the host's process and Mallory,
    a process of its own, which writes a card in the person's place the moment the person
    must play.  The person's replica refuses it, and the page says so, blaming Mallory;
    Mallory's process is then killed: the page shows the seat offline, the others vote it
    out at the timeout (the deal's result says so), and in the next deal it is a dummy
    whose cards lie face up and are played for it, to the match's end."""
    home = tmp_path / "host"
    fixed_identity(home, "Zé")
    host = host_on_the_web(home, "sueca", "me,bot:random,bot:random,remote", "--timeout", str(TIMEOUT),
                           "--deals", "2", "-o", "target=8")
    fixed_identity(tmp_path / "mallory", "Mallory")
    mallory = None
    try:
        page = open_page(browser, host.url)
        mallory = Proc(tmp_path, "mallory", tmp_path / "mallory", "out-of-turn", f"{LOOPBACK}:{lobby_port(page)}",
                       module="tests.attackers")
        page.wait_for_selector("body[data-screen=table]", timeout=30000)
        assert "Mallory" in page.locator(".seat[data-seat='3'] h3").inner_text()

        # the person's turn: Mallory's card for it comes first, and is refused
        page.wait_for_selector(".hand .card.legal", timeout=30000)
        page.wait_for_function("t => document.querySelector('.notices').innerText.includes(t)",
                               arg=EN("refused_blame", name="Mallory"), timeout=20000)
        # the person's own replica refused it, while the person had yet to choose (the
        # attacker says what it tried only when it ends; it is killed first)
        refusals = [line for line in log_path(home).read_text().splitlines() if "seat 0 rejected" in line]
        assert any("blames seat 3" in line and "out of turn" in line for line in refusals), refusals
        mallory.kill()
        page.wait_for_selector(".seat[data-seat='3'].offline", timeout=20000)

        done = play_through(page, until="summary", timeout=60)
        assert "Mallory was silent past the timeout and was voted out" in done.window_texts[-1], done.window_texts
        click(page, ".window button[data-a=continue]")

        dummy = page.locator(".seat[data-seat='3']")
        page.wait_for_selector(".seat[data-seat='3'] .face-up .mini", timeout=30000)
        assert EN("dummy") in dummy.locator(".who").inner_text()
        done = play_through(page, until="final", timeout=60)
        assert "✓ " + EN("verified") in done.window_texts[0], done.window_texts
        assert not page.errors, page.errors
    finally:
        if mallory is not None:
            mallory.kill()
        host.stop()
