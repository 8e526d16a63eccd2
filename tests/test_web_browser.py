"""The browser table end to end: ``p2pcards web`` (or ``play --web``) in a process of its own,
Debian's chromium driven by Playwright, a person's clicks, taps and keys.

Covered: the start page to a Sueca deal and back, its replay stepped through and the
statistics page against ``stats --json``; a whole deal of every other game by clicks with
its dialogs (Copas' pass, Bisca's swap, Sobe e Desce's trumps and going in), one in
Portuguese on a phone; the Highcard test plugin; a second tab taking over, a closed tab
leaving the seat and the address taking it up again; two browsers at one LAN table on
loopback, the joiner's process killed and resumed.  Skipped, saying why, without chromium.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from p2pcards.words import Text
from tests.web_helpers import (
    Peer,
    browser_missing,
    click,
    fixed_identity,
    launch_browser,
    open_page,
    play_both,
    play_card,
    play_through,
    shoot,
    state,
)

pytestmark = pytest.mark.skipif(browser_missing() is not None, reason=str(browser_missing()))

EN = Text("en")
PT = Text("pt")
CARD = re.compile(r'"([A2-9TJQK][SHDC])"')


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    yield from launch_browser()


def web(tmp_path: Path, *args: str, name: str = "home", **kw: Any) -> Peer:
    home = tmp_path / name
    if not (home / "identity.key").exists():
        fixed_identity(home)
    return Peer(home, "web", "--no-browser", "--json", "--no-lan", "--speed", "0", *args, **kw)


def select(page: Any, form: str, row: str, label: str) -> None:
    before = page.evaluate("() => +document.body.dataset.version")
    page.select_option(f"select[data-form={form}][data-row={row}]", label=label)
    page.wait_for_function(f"() => +document.body.dataset.version > {before}")


def watch_secrets(page: Any) -> list[str]:
    """Every view the page is sent must name only the cards the person may know: those
    in the person's hand, on the table, the trump card, and those played before."""
    problems: list[str] = []
    known: set[str] = set()

    def frame(payload: Any) -> None:
        msg = json.loads(payload)
        view = msg.get("view")
        if not view or view.get("screen") != "table":
            return
        known.update(c["card"] for c in view["hand"])
        known.update(view["trick"].values())
        known.update(s for s in [view.get("trump_card")] if s)
        for win in [view.get("window") or {}]:
            known.update(p["card"] for p in win.get("cards", []))
        seen = set(CARD.findall(json.dumps(view)))
        if seen - known:
            problems.append(f"cards sent that the person may not know: {sorted(seen - known)}")

    page.on("websocket", lambda ws: ws.on("framereceived", frame))
    return problems


def test_from_the_start_page_a_sueca_deal_its_replay_and_the_statistics(browser, tmp_path):
    peer = web(tmp_path)
    try:
        page = open_page(browser, peer.url)
        problems = watch_secrets(page)
        page.reload()
        page.wait_for_selector("body[data-screen=start]")
        assert page.locator(".menu .nav").count() == 8  # every entry of the terminal's start screen
        click(page, "button[data-lang=pt]")  # the page speaks Portuguese, in the terminal's words
        assert page.locator(".menu .nav").all_inner_texts()[:2] == [PT("start_play"), PT("start_host")]
        click(page, "button[data-lang=en]")
        shoot(page, "start")
        page.keyboard.press("1")  # the menu's keys are the terminal's: 1 plays against the computer
        page.wait_for_selector("form[data-form=play]")
        select(page, "play", "level", EN("level_random"))
        page.fill("input[data-key=seed]", "1")
        click(page, "form[data-form=play] button[data-a=go]")
        page.wait_for_selector(".hand .card.legal", timeout=30000)
        shoot(page, "table")
        # the terminal's keys: help, then a hint, then a card by its digit
        page.keyboard.press("?")
        page.wait_for_selector(".window[data-kind=help]")
        page.keyboard.press("Escape")
        page.wait_for_selector(".window", state="detached")
        page.keyboard.press("h")
        page.wait_for_function("() => /hint: /.test(document.querySelector('.prompt').textContent)", timeout=30000)
        assert page.locator(".hand .card.cursor.legal").count() == 1  # the hint's card is under the cursor
        page.keyboard.press("Enter")
        page.wait_for_function("() => document.querySelectorAll('.hand .card').length === 9")
        # the hint's card depends on how far its search got, so the rest of the deal may differ
        # from run to run: the person plays every card (no "finish the deal" taken)
        done = play_through(page, until="summary", finish=False)
        assert done.plays == 9
        assert "✓ " + EN("verified") in done.window_texts[-1]
        assert "Sueca · deal 1" in done.headers
        click(page, ".window button[data-a=continue]")  # the next deal: then leave the table
        page.wait_for_selector(".hand .card")
        click(page, "button[data-a=leave]")
        page.wait_for_selector(".window[data-kind=quit]")
        click(page, "button[data-a=leave_yes]")
        page.wait_for_selector("body[data-screen=start] .notice", timeout=15000)
        assert page.locator(".notice").inner_text() == EN("web_left")
        assert not problems, problems

        click(page, "button.nav[data-view=saved]")
        assert EN("saved_unfinished") in page.locator(".list .row").first.inner_text()

        # the replay, stepped through
        click(page, "button.nav[data-view=past]")
        click(page, ".list .row")
        page.wait_for_selector("body[data-screen=replay]")
        status = page.locator("#status")
        assert status.inner_text().startswith("deal 1 of 2 · step 0 of ")
        click(page, "button[data-do=next_trick]")
        click(page, "button[data-do=next_step]")
        assert re.match(r"deal 1 of 2 · step \d+ of \d+ · \w+ played \S+", status.inner_text()), status.inner_text()
        page.keyboard.press("End")  # the deal's end: its result
        page.wait_for_selector(".window[data-kind=summary]")
        assert "✓ " + EN("verified") in page.locator(".window").inner_text()
        page.keyboard.press("ArrowLeft")  # the last trick taken
        page.wait_for_selector(".window", state="detached")
        assert page.locator(".trick .played").count() == 4
        click(page, "button[data-which=deals]")
        assert page.locator(".window .deals .row").count() == 2
        click(page, ".window .deals .row", nth=0)
        click(page, "button[data-which=charts]")
        assert page.locator(".window svg.lines polyline").count() == 2  # a line per team
        click(page, ".window button[data-a=close]")
        click(page, "button[data-a=leave]")
        page.wait_for_selector("body[data-screen=start] .start-body[data-view=past]")

        # the statistics: the numbers of `stats --json`, drawn
        click(page, "button.nav[data-view=stats]")
        page.wait_for_selector("table.stats")
        shoot(page, "stats")
        env = {"P2PCARDS_HOME": str(peer.home), "PATH": "/usr/bin:/bin"}
        stats = json.loads(subprocess.run([sys.executable, "-m", "p2pcards", "stats", "--json"], env=env,
                                          capture_output=True, text=True, check=True, timeout=60).stdout)
        rows = 0
        for player in stats["players"]:
            for game, numbers in player["games"].items():
                row = page.locator(f"tr[data-player='{player['fingerprint']}'][data-game='{game}']")
                for key in ("matches", "won", "deals", "deals_won"):
                    assert row.locator(f"[data-stat={key}]").inner_text() == str(numbers[key])
                rows += 1
        assert rows == 1 and stats["bots"]  # the person, at Sueca; the computer's record is by level
        bars = page.locator("svg.chart.bars .value").evaluate_all("els => els.map(e => e.textContent)")
        assert bars == [f"{g['won']}/{g['matches']}" for p in stats["players"] for g in p["games"].values()] + \
            [f"{x['won']}/{x['matches']}" for x in stats["partnerships"] + stats["bots"]]
        assert page.locator("svg.lines polyline").count() == 2  # the last match's points per deal
        assert not page.errors, page.errors
        click(page, "button.nav.quit")
        page.wait_for_selector("body[data-screen=stopped]")
        assert peer.wait() == 0
    finally:
        peer.stop()


def fits(page: Any) -> list[str]:
    """What sticks out of a phone's screen: the page scrolling sideways, a card of the hand
    or a button beyond the edge."""
    return list(page.evaluate("""() => {
      const out = [];
      const w = window.innerWidth;
      const wide = document.documentElement.scrollWidth;
      if (wide > w + 1) out.push(`scrolls sideways: ${wide}`);
      for (const el of document.querySelectorAll('.hand .card, .tools button, .dialog button')) {
        const r = el.getBoundingClientRect();
        if (r.left < -1 || r.right > w + 1) out.push(`${el.className} at ${r.left}..${r.right}`);
      }
      return out;
    }"""))


GAMES = {
    # Bisca in Portuguese on a phone, tapped: its swap of the two of trumps for the trump card
    "bisca": (["-o", "swap2=on", "-o", "hand=9", "--seed", "2", "--lang", "pt"], True),
    # Copas: the pass of three cards, through its dialog
    "copas": (["--seed", "1"], False),
    # Sobe e Desce: choosing trumps and going in
    "sobe-e-desce": (["--seed", "1"], False),
}


def test_the_start_page_asks_a_name_never_chosen_and_the_table_shows_it(browser, tmp_path):
    """An identity made without a name (``p2pcards web`` run first, not a terminal's ``play``):
    the start page asks it above the menu, with the login name it has now in the field;
    the name kept goes into the identity, the page stops asking, and a table shows it."""
    from p2pcards.identity import load_or_create

    home = tmp_path / "home"
    suggested = load_or_create(home).name
    peer = web(tmp_path)
    try:
        page = open_page(browser, peer.url)
        page.wait_for_selector("form[data-form=name]")
        assert page.input_value("input[data-key=name]") == suggested
        page.fill("input[data-key=name]", "x" * 41)
        click(page, "form[data-form=name] button[data-a=name]")
        assert page.locator("form[data-form=name] .error").inner_text() == EN("web_name_bad", n=40)
        page.fill("input[data-key=name]", "Inês")
        click(page, "form[data-form=name] button[data-a=name]")
        page.wait_for_selector("form[data-form=name]", state="detached")
        kept = load_or_create(home)
        assert (kept.name, kept.named) == ("Inês", True)
        page.reload()
        page.wait_for_selector("body[data-screen=start]")
        assert page.locator("form[data-form=name]").count() == 0

        click(page, "button[data-view=play]")
        click(page, "form[data-form=play] button[data-a=go]")
        page.wait_for_selector("body[data-screen=table] .hand .card", timeout=30000)
        assert "Inês" in page.locator(".seat[data-seat='0']").inner_text()
        assert not page.errors, page.errors
    finally:
        peer.stop()


@pytest.mark.parametrize("game", list(GAMES))
def test_a_whole_deal_by_clicks_with_the_game_s_dialogs(browser, tmp_path, game):
    args, phone = GAMES[game]
    t = PT if "pt" in args else EN
    home = tmp_path / "home"
    fixed_identity(home)
    peer = Peer(home, "play", game, "--web", "--no-browser", "--deals", "1", "--speed", "0", "--bots", "random", *args)
    try:
        page = open_page(browser, peer.url, width=390 if phone else 1200, height=844 if phone else 800, phone=phone)
        problems: list[str] = []

        def look(page: Any, s: dict[str, Any]) -> None:
            if phone and s["legal"] and not problems:
                problems.extend(fits(page) or ["ok"])
                shoot(page, "phone")
            if s["dialog"] == "pass":
                shoot(page, "dialog")

        done = play_through(page, until="final", seen=look)
        assert problems == (["ok"] if phone else []), problems
        assert done.windows == ["summary", "final"]
        assert "✓ " + t("verified") in done.window_texts[0]
        assert not page.errors, page.errors
        if game == "bisca":
            assert done.swaps == 1 and done.plays == 20  # the swap, then the twenty cards
            assert any(h.startswith("Bisca · mão 1") for h in done.headers), done.headers
            assert t("final_title_stopped") in done.window_texts[-1]
        elif game == "copas":
            assert done.dialogs[0] == "pass" and "Pass three cards" in done.dialog_texts[0]
        else:
            assert "trump" in done.dialogs and "go_in" in done.dialogs
        click(page, ".window button[data-a=continue]")  # back to the start page
        page.wait_for_selector("body[data-screen=start]")
        click(page, "button.nav.quit")
        assert peer.wait() == 0
    finally:
        peer.stop()


@pytest.fixture(scope="module")
def highcard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.test_plugin_walkthrough import install_highcard

    return install_highcard(tmp_path_factory.mktemp("highcard") / "site")


def test_the_highcard_plugin_plays_a_whole_deal_in_the_page_in_its_own_words(browser, tmp_path, highcard):
    home = tmp_path / "home"
    fixed_identity(home)
    peer = Peer(home, "play", "highcard", "--web", "--no-browser", "--deals", "1", "--speed", "0", "--seed", "1",
                pythonpath=highcard)
    try:
        page = open_page(browser, peer.url)
        done = play_through(page, until="final")
        assert any(h.startswith("Highcard · deal 1 · ") and h.endswith(" to play") for h in done.headers), done.headers
        assert done.dialogs == ["lead"]  # with this seed the person deals, and chooses who leads
        assert "Who leads" in done.dialog_texts[0] and "who leads the first trick, you or Ana?" in done.dialog_texts[0]
        assert "I lead" in done.dialog_texts[0] and "Ana leads" in done.dialog_texts[0]
        assert "You — high cards" in done.window_texts[0] and "Ana — high cards" in done.window_texts[0]
        assert "one deal, most high cards" in done.window_texts[-1]
        assert not page.errors, page.errors
    finally:
        peer.stop()


#: A seed whose first Sueca deal, played as this test plays it (the first lit card) against
#: random computer players, comes to a rest that is forced for everyone while the person
#: (of fixed_identity) still holds two cards.  Found by playing seeds 1, 2, ... through this
#: test, waiting a few seconds for the offer at two cards; 15 is the first.  The deals
#: follow from the seats' keys, the seed and the table protocol: a change of the protocol's
#: deal derivation (the first dealer's draw, the genesis) calls for finding it again.
FORCED_SEED = 15


def test_the_page_finishes_a_forced_deal_by_its_button_and_the_deal_ends_audited(browser, tmp_path):
    home = tmp_path / "home"
    fixed_identity(home)
    peer = Peer(home, "play", "sueca", "--web", "--no-browser", "--deals", "1", "--speed", "0", "--bots", "random",
                "--seed", str(FORCED_SEED))
    try:
        page = open_page(browser, peer.url)
        plays = 0
        while True:
            page.wait_for_selector(".hand .card.legal", timeout=30000)
            if state(page)["hand"] == 2:
                break
            assert not state(page)["finish"], state(page)
            play_card(page)
            plays += 1
        assert plays == 8
        # the table looks at the rest in a worker thread, then offers it: a notice and a button
        page.wait_for_selector(".prompt button[data-a=finish]", timeout=30000)
        assert EN("finish_offer") in page.locator(".notices").inner_text()
        assert page.locator(".prompt button[data-a=finish]").inner_text() == EN("web_finish")
        click(page, ".prompt button[data-a=finish]")
        # no card is clicked any more: the person's two forced cards go by themselves
        page.wait_for_selector(".window[data-kind=summary]", timeout=30000)
        assert "✓ " + EN("verified") in page.locator(".window").inner_text()
        assert state(page)["hand"] == 0 and not page.errors, page.errors
    finally:
        peer.stop()


def test_one_page_a_second_tab_takes_over_a_closed_tab_leaves_and_the_address_takes_the_seat_again(browser, tmp_path):
    peer = web(tmp_path)
    try:
        first = open_page(browser, peer.url)
        click(first, "button[data-view=play]")
        select(first, "play", "level", EN("level_random"))
        click(first, "form[data-form=play] button[data-a=go]")
        table = peer.line("table")
        first.wait_for_selector(".hand .card.legal", timeout=30000)
        click(first, ".hand .card.legal")
        first.wait_for_function("() => document.querySelectorAll('.hand .card').length === 9")
        cards = first.locator(".hand .card").evaluate_all("els => els.map(e => e.dataset.card)")

        second = first.context.new_page()  # a second tab of the same browser
        second.goto(peer.url)
        first.wait_for_selector("body[data-screen=taken]")
        assert EN("web_taken") in first.locator(".notice-page").inner_text()
        second.wait_for_selector("body[data-screen=table] .hand .card")
        assert second.locator(".hand .card").evaluate_all("els => els.map(e => e.dataset.card)") == cards

        second.close()  # the tab closed: the seat is left as q leaves it
        left = peer.line("left", timeout=20)
        assert left == {"type": "left", "table": table["table"], "closed": True, "resumable": True}

        third = first.context.new_page()  # the address again: the seat is taken up again
        third.goto(peer.url)
        third.wait_for_selector("body[data-screen=table] .hand .card.legal", timeout=30000)
        assert third.locator(".hand .card").evaluate_all("els => els.map(e => e.dataset.card)") == cards
        assert [x["table"] for x in peer.lines if x["type"] == "table"] == [table["table"]] * 2
        assert not first.errors, first.errors
    finally:
        peer.stop()


@pytest.mark.slow
def test_two_browsers_at_one_lan_table_the_joiner_killed_and_resumed(browser, tmp_path):
    fixed_identity(tmp_path / "joiner", "Rita")
    host = web(tmp_path, name="host")
    joiner = web(tmp_path, name="joiner")
    try:
        page = open_page(browser, host.url)
        click(page, "button[data-view=host]")
        select(page, "host", "game", "Bisca")
        click(page, "form[data-form=host] button[data-a=go]")
        page.wait_for_selector("body[data-screen=lobby]")
        # the address comes once the host listens, a moment after the lobby is drawn
        page.wait_for_function(r"() => /--join \S+:\d+/.test(document.querySelector('.lobby').innerText)")
        port = re.search(r"--join \S+:(\d+)", page.locator(".lobby").inner_text())
        assert port, page.locator(".lobby").inner_text()

        other = open_page(browser, joiner.url, width=390, height=844, phone=True)  # a second browser: a phone
        click(other, "button[data-view=join]")
        other.fill("input[data-key=address]", f"127.0.0.1:{port.group(1)}")
        click(other, "button[data-a=join]")
        for p in (page, other):
            p.wait_for_selector("body[data-screen=table] .hand .card", timeout=30000)
        table = host.line("table")["table"]
        assert joiner.line("table")["table"] == table
        assert "Rita" in page.locator(".seat.top h3").inner_text()

        play_both([page, other], until=lambda played: played[1] >= 2)
        joiner.kill()  # the joiner's process dies
        page.wait_for_selector(".seat.top.offline", timeout=20000)
        assert EN("offline") in page.locator(".seat.top").inner_text()

        joiner = web(tmp_path, name="joiner")  # started again: "Your tables" takes the seat up again
        again = open_page(browser, joiner.url)
        click(again, "button[data-view=saved]")
        assert EN("saved_unfinished") in again.locator(".list .row").first.inner_text()
        click(again, ".list .row")
        again.wait_for_selector("body[data-screen=table] .hand .card", timeout=30000)
        assert joiner.line("table")["table"] == table
        page.wait_for_selector(".seat.top:not(.offline)", timeout=20000)
        shoot(page, "lan")

        play_both([page, again], until=lambda _: all(state(p)["window"] == "summary" for p in (page, again)))
        for p in (page, again):
            assert "✓ " + EN("verified") in p.locator(".window").inner_text()
        assert not page.errors and not again.errors
    finally:
        host.stop()
        joiner.stop()
