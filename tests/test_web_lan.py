"""The browser table at LAN tables, end to end: ``p2pcards play --web --host`` in a process
of its own, the other seats real processes -- a dishonest peer of tests/attackers.py on
loopback, or ``play --web --join NAME`` on a LAN of network namespaces (tests/lan.py: the
name is found by multicast DNS, which loopback does not carry) -- and Debian's chromium
driven by Playwright (on the LAN, one in each machine's namespace, where its peer serves
the page on that machine's loopback).

Covered: a message refused by the person's replica, said in the page with whom it
blames; the sender's process killed, voted out by the others, and played as a dummy, its
cards face up, in the next deal; a table hosted from the command line and joined by its
name on the LAN, both pages at the table through a deal.  Skipped, saying why, without
chromium (and the LAN test without root or iproute2).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from p2pcards.tui.logfile import log_path
from p2pcards.words import Text
from tests.lan import Lan, built
from tests.procs import LOOPBACK, Proc
from tests.web_helpers import (
    CHROMIUM,
    Peer,
    browser_missing,
    chromium,
    click,
    fixed_identity,
    open_page,
    play_both,
    play_through,
    start_playwright,
    state,
)

pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing()))

EN = Text("en")

#: Seconds a seat may stay silent before the others vote it out, at these tables: short,
#: so that a killed seat goes soon, and long enough for a page clicked by a test on a busy
#: machine (the person's own seat is under the same clock).
TIMEOUT = 5


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    yield from start_playwright()


@pytest.fixture(scope="module")
def browser(playwright: Any) -> Iterator[Any]:
    yield from chromium(playwright)


@pytest.fixture
def lan() -> Iterator[Lan]:
    yield from built(2)


@contextmanager
def browser_on(playwright: Any, lan: Lan, i: int, where: Path) -> Iterator[Any]:
    """A chromium in LAN host ``i``'s namespace: its pages reach that host's loopback,
    where the peer there serves its page."""
    script = where / f"chromium-{i}"
    script.write_text(f'#!/bin/sh\nexec ip netns exec {lan.hosts[i - 1]} {CHROMIUM} "$@"\n')
    script.chmod(0o755)
    with contextmanager(chromium)(playwright, str(script)) as browser:
        yield browser


def host_on_the_web(home: Path, game: str, seats: str, *args: str) -> Peer:
    """``play GAME --web --host`` on loopback, unannounced: the person's page serves it."""
    return Peer(home, "play", game, "--web", "--no-browser", "--host", "--seats", seats, "--bind", LOOPBACK,
                "--no-announce", "--speed", "0", "--lang", "en", *args)


def lobby_port(page: Any) -> int:
    """The port the lobby says others join at."""
    page.wait_for_selector("body[data-screen=lobby]")
    page.wait_for_function(r"() => /--join \S+:\d+/.test(document.querySelector('.lobby').innerText)")
    found = re.search(r"--join \S+:(\d+)", page.locator(".lobby").inner_text())
    assert found, page.locator(".lobby").inner_text()
    return int(found.group(1))


@pytest.mark.slow
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


def test_a_table_hosted_from_the_command_line_and_joined_by_its_name_on_the_lan(playwright, lan, tmp_path):
    """Two machines of a LAN (network namespaces on a bridge, tests/lan.py; multicast DNS
    between them): Zé runs ``play sueca --web --host --table-name mesa-do-ze``, Ana
    ``play --web --join mesa-do-ze`` -- a name, found on the LAN, not an address.  Each
    page (a chromium on that machine) shows the table with the other person at it, and
    the two play the first deal through by clicks to its verified result."""
    fixed_identity(tmp_path / "ze", "Zé")
    fixed_identity(tmp_path / "ana", "Ana")
    on = [["ip", "netns", "exec", ns] for ns in lan.hosts]
    peers: list[Peer] = []
    try:
        with browser_on(playwright, lan, 1, tmp_path) as zes, browser_on(playwright, lan, 2, tmp_path) as anas:
            peers.append(Peer(tmp_path / "ze", "play", "sueca", "--web", "--no-browser", "--host",
                              "--seats", "me,remote,bot:random,bot:random", "--table-name", "mesa-do-ze",
                              "--speed", "0", "--lang", "en", prefix=on[0]))
            host = open_page(zes, peers[0].url)
            host.wait_for_selector("body[data-screen=lobby]")
            peers.append(Peer(tmp_path / "ana", "play", "--web", "--no-browser", "--join", "mesa-do-ze",
                              "--speed", "0", "--lang", "en", prefix=on[1]))
            joiner = open_page(anas, peers[1].url)
            for page in (host, joiner):
                page.wait_for_selector("body[data-screen=table] .hand .card", timeout=30000)
            assert "Ana" in host.locator(".seat[data-seat='1'] h3").inner_text()
            assert "Zé" in joiner.locator(".seat[data-seat='0'] h3").inner_text()

            played = play_both([host, joiner], until=lambda _: all(state(p)["window"] == "summary"
                                                                   for p in (host, joiner)))
            assert played == [10, 10], played
            results = [page.locator(".window").inner_text() for page in (host, joiner)]
            for text in results:
                assert "✓ " + EN("verified") in text, results
            assert not host.errors and not joiner.errors, (host.errors, joiner.errors)
    finally:
        for peer in peers:
            peer.stop()
