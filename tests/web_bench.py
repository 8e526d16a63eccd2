"""The browser table's aims, measured (not timed in tests): ``python -m tests.web_bench``.

* **page ready**: from asking for the address to the first view drawn, on a running peer;
* **a card played elsewhere**: two ``p2pcards web`` processes at one Bisca table on
  loopback, each with its page in one chromium; from the click on a card in the host's
  page to that card drawn in the joiner's page (both pages read one clock).  This is an
  upper bound of "the peer took the entry, the page shows it": it also counts the host's
  page, the host's peer and the link;
* **what the page weighs**: its JavaScript and CSS, as shipped.

Prints one JSON object: ``{"ready_ms": [...], "relay_ms": {"median": X, "max": X, "n": N},
"js_css_bytes": N}``.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.web_helpers import Peer, fixed_identity, launch_browser, open_page, state

STATIC = Path(__file__).resolve().parent.parent / "p2pcards" / "web" / "static"

#: In the joiner's page: the moment each card first shows in the trick.
WATCH = """() => {
  window.seenAt = {};
  new MutationObserver(() => {
    for (const el of document.querySelectorAll('.trick .played')) {
      const c = el.dataset.card;
      if (!(c in window.seenAt)) window.seenAt[c] = Date.now();
    }
  }).observe(document.getElementById('app'), {childList: true, subtree: true});
}"""


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="p2pcards-web-bench-"))
    fixed_identity(tmp / "host")
    fixed_identity(tmp / "joiner", "Rita")
    args = ("web", "--no-browser", "--json", "--no-lan", "--speed", "0")
    host, joiner = Peer(tmp / "host", *args), Peer(tmp / "joiner", *args)
    out: dict[str, object] = {}
    chromium = launch_browser()
    try:
        browser = next(chromium)
        ready = []
        for _ in range(5):
            ctx = browser.new_context()
            page = ctx.new_page()
            started = time.perf_counter()
            page.goto(host.url)
            page.wait_for_selector("body[data-version]")
            ready.append(round((time.perf_counter() - started) * 1000, 1))
            ctx.close()
        out["ready_ms"] = ready
        a = open_page(browser, host.url)
        a.click("button[data-view=host]")
        a.select_option("select[data-form=host][data-row=game]", label="Bisca")
        a.wait_for_timeout(200)
        a.click("form[data-form=host] button[data-a=go]")
        a.wait_for_selector("body[data-screen=lobby]")
        port = re.search(r"--join \S+:(\d+)", a.locator(".lobby").inner_text())
        assert port
        b = open_page(browser, joiner.url)
        b.click("button[data-view=join]")
        b.fill("input[data-key=address]", f"127.0.0.1:{port.group(1)}")
        b.click("button[data-a=join]")
        for p in (a, b):
            p.wait_for_selector("body[data-screen=table] .hand .card", timeout=30000)
        b.evaluate(WATCH)
        relay = []
        for _ in range(60):
            if state(a)["window"] or state(b)["window"]:
                break
            if state(a)["legal"]:
                card = a.locator(".hand .card.legal").first.get_attribute("data-card")
                clicked = a.evaluate("() => { const t = Date.now(); "
                                     "document.querySelector('.hand .card.legal').click(); return t; }")
                b.wait_for_function(f"() => window.seenAt && '{card}' in window.seenAt", timeout=10000)
                relay.append(b.evaluate(f"() => window.seenAt['{card}']") - clicked)
            elif state(b)["legal"]:
                b.locator(".hand .card.legal").first.click()
            time.sleep(0.05)
        out["relay_ms"] = {"median": statistics.median(relay), "max": max(relay), "n": len(relay)}
        out["js_css_bytes"] = sum(p.stat().st_size for p in STATIC.iterdir() if p.suffix in (".js", ".css"))
        print(json.dumps(out))
    finally:
        chromium.close()
        host.stop()
        joiner.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
