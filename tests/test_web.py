"""The browser table without a browser: who the server refuses (no secret, a wrong one, a
foreign ``Host``, a WebSocket from another page, another machine), and what the page is
sent and may ask (the view models as JSON, the page's messages as the terminal's keys).

The server runs for real (``p2pcards web`` in a process of its own); requests and
WebSocket handshakes are written on a raw socket, so that every header is the test's.
"""

from __future__ import annotations

import base64
import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from p2pcards.core import PASS, PLAY, Decision, Line, load_games
from p2pcards.tui.model import GameInfo, SeatLabel, Snapshot, TableModel
from p2pcards.web.actions import table_action, table_key
from p2pcards.web.security import Guard, is_loopback
from p2pcards.web.views import deck_style, table_view
from p2pcards.words import Text
from tests.web_helpers import Peer, fixed_identity

REGISTRY = load_games()


def request(port: int, head: str, *, host: str | None = None, address: str = "127.0.0.1") -> tuple[int, str]:
    """Send a request's head (its first line and headers, no Host unless given) and read
    the answer's status and headers."""
    lines = head.strip("\n").split("\n")
    if host is not None:
        lines.insert(1, f"Host: {host}")
    raw = "\r\n".join(lines) + "\r\n\r\n"
    with socket.create_connection((address, port), timeout=10) as sock:
        sock.sendall(raw.encode())
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    status = data.split(b"\r\n", 1)[0].decode()
    return int(status.split()[1]), data.decode(errors="replace")


def upgrade(path: str, *extra: str) -> str:
    key = base64.b64encode(os.urandom(16)).decode()
    return "\n".join([f"GET {path} HTTP/1.1", "Upgrade: websocket", "Connection: Upgrade",
                      f"Sec-WebSocket-Key: {key}", "Sec-WebSocket-Version: 13", *extra])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    home = tmp_path_factory.mktemp("web") / "home"
    fixed_identity(home)
    peer = Peer(home, "web", "--no-browser", "--json", "--no-lan")
    yield peer
    peer.stop()


def parts(url: str) -> tuple[int, str]:
    found = re.match(r"http://127\.0\.0\.1:(\d+)/\?k=(\S+)$", url)
    assert found, url
    return int(found.group(1)), found.group(2)


def test_the_page_needs_its_secret_and_sets_it_in_a_cookie(server):
    port, secret = parts(server.url)
    here = f"127.0.0.1:{port}"
    assert request(port, "GET / HTTP/1.1", host=here)[0] == 403
    assert request(port, "GET /?k=wrong HTTP/1.1", host=here)[0] == 403
    assert request(port, f"GET /?k={secret}x HTTP/1.1", host=here)[0] == 403
    status, head = request(port, f"GET /?k={secret} HTTP/1.1", host=here)
    assert status == 200
    cookie = re.search(r"set-cookie: (p2pcards_key=[^;\r\n]+)([^\r\n]*)", head, re.IGNORECASE)
    assert cookie and cookie.group(1) == f"p2pcards_key={secret}"
    assert "httponly" in cookie.group(2).lower() and "samesite=strict" in cookie.group(2).lower()
    assert "frame-ancestors 'none'" in head and "script-src 'self'" in head
    # the page's files: with the cookie only
    assert request(port, "GET /static/app.js HTTP/1.1", host=here)[0] == 403
    assert request(port, f"GET /static/app.js HTTP/1.1\nCookie: p2pcards_key={secret}", host=here)[0] == 200
    assert request(port, "GET /static/app.js HTTP/1.1\nCookie: p2pcards_key=nope", host=here)[0] == 403
    assert request(port, f"GET /static/..%2Fpeer.py HTTP/1.1\nCookie: p2pcards_key={secret}", host=here)[0] == 404


def test_a_rebound_name_is_refused_even_with_the_secret(server):
    port, secret = parts(server.url)
    assert request(port, f"GET /?k={secret} HTTP/1.1", host=f"localhost:{port}")[0] == 200
    assert request(port, f"GET /?k={secret} HTTP/1.1", host=f"evil.example:{port}")[0] == 403
    assert request(port, f"GET /?k={secret} HTTP/1.1", host="127.0.0.1:1")[0] == 403
    assert request(port, f"GET /?k={secret} HTTP/1.1")[0] in (400, 403)  # no Host at all


def test_the_websocket_needs_the_secret_and_the_page_s_own_origin(server):
    port, secret = parts(server.url)
    here = f"127.0.0.1:{port}"
    cookie = f"Cookie: p2pcards_key={secret}"
    origin = f"Origin: http://{here}"
    assert request(port, upgrade("/ws", cookie, origin), host=here)[0] == 101
    assert request(port, upgrade(f"/ws?k={secret}", origin), host=here)[0] == 101
    assert request(port, upgrade("/ws", origin), host=here)[0] == 403  # no secret
    assert request(port, upgrade("/ws", "Cookie: p2pcards_key=x", origin), host=here)[0] == 403
    assert request(port, upgrade("/ws", cookie, "Origin: http://evil.example"), host=here)[0] == 403
    assert request(port, upgrade("/ws", cookie, f"Origin: https://{here}"), host=here)[0] == 403
    assert request(port, upgrade("/ws", cookie), host=here)[0] == 403  # no Origin
    assert request(port, upgrade("/ws", cookie, "Origin: http://evil.example:1"),
                   host="evil.example:1")[0] == 403  # DNS rebinding: a foreign Host


def test_by_default_no_other_machine_reaches_the_page(server):
    from p2pcards.discovery.interfaces import local_addresses

    port, _ = parts(server.url)
    others = local_addresses()
    if not others:
        pytest.skip("this machine has no address but loopback")
    with pytest.raises(OSError):
        socket.create_connection((others[0], port), timeout=3).close()


def test_bound_to_the_lan_the_secret_still_guards_it(tmp_path):
    home = tmp_path / "home"
    fixed_identity(home)
    peer = Peer(home, "web", "--no-browser", "--json", "--no-lan", "--bind", "0.0.0.0")
    try:
        found = re.match(r"http://([0-9.]+):(\d+)/\?k=(\S+)$", peer.url)
        assert found, peer.url  # the address a phone on the LAN opens (else 127.0.0.1)
        port, secret = int(found.group(2)), found.group(3)
        assert request(port, "GET / HTTP/1.1", host=f"192.0.2.7:{port}")[0] == 403
        assert request(port, f"GET /?k={secret} HTTP/1.1", host=f"192.0.2.7:{port}")[0] == 200
        assert request(port, upgrade("/ws", f"Cookie: p2pcards_key={secret}", "Origin: http://evil.example"),
                       host=f"192.0.2.7:{port}")[0] == 403
    finally:
        peer.stop()


def test_the_guard_s_rules():
    guard = Guard("s3cret")
    guard.listening("127.0.0.1", 8080)
    assert guard.host_ok("127.0.0.1:8080") and guard.host_ok("LOCALHOST:8080")
    assert not guard.host_ok("127.0.0.1:8081") and not guard.host_ok(None)
    assert guard.key_ok("k=s3cret", None) and guard.key_ok("", "a=b; p2pcards_key=s3cret")
    assert not guard.key_ok("k=s3cre", "p2pcards_key=x") and not guard.key_ok("", "garbage;;=")
    assert guard.origin_ok("http://127.0.0.1:8080", "127.0.0.1:8080")
    assert not guard.origin_ok("null", "127.0.0.1:8080") and not guard.origin_ok(None, "127.0.0.1:8080")
    six = Guard("x")
    six.listening("::1", 9)
    assert six.host_ok("[::1]:9")
    lan = Guard("x")
    lan.listening("0.0.0.0", 9)
    assert lan.host_ok("192.168.1.2:9") and not lan.host_ok(None)
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.2") and not is_loopback("example.org")


# ---------------------------------------------------------------------- what the page is sent
def model(game: str = "copas", lang: str = "en") -> TableModel:
    spec = REGISTRY.get(game)
    labels = [SeatLabel(s, n, None if s == 0 else "random") for s, n in enumerate(["Zé", "Ana", "Rui", "Inês"])]
    return TableModel(GameInfo.of(spec, spec.resolve_options({})), labels[:spec.seats], 0, Text(lang))


def test_the_table_view_holds_the_person_s_cards_and_none_of_the_others():
    m = model()
    hand = (("2C", 0), ("AH", 1), ("QS", 2))
    m.update(Snapshot(stage="play", in_deal=True, hand=tuple((p, c) for c, p in hand), trick=((3, "7D"),),
                      hand_sizes=(3, 3, 4, 3), tricks_won=(0, 0, 0, 0), points_won=(0, 0, 0, 0),
                      deciding=(0,), decision_kind=PLAY))
    m.ask(Decision((0,), PLAY), [0])
    view = table_view(m)
    cards = set(re.findall(r'"([A2-9TJQK][SHDC])"', json.dumps(view)))
    assert cards == {"2C", "AH", "QS", "7D"}
    assert [c["legal"] for c in view["hand"]] == [c["card"] == "2C" for c in view["hand"]]
    assert view["trick"] == {m.where(3): "7D"} and view["turn"] and view["play"]
    assert [s["count"] for s in view["seats"]] == [3, 3, 4, 3] and not any(s["face"] for s in view["seats"])
    assert view["deck"] == "fr" and deck_style(REGISTRY.get("sueca")) == "pt"
    json.dumps(view)  # plain JSON


def test_a_pick_s_dialog_and_the_clicks_that_answer_it():
    m = model()
    chosen: list[Any] = []
    m.on_choice = chosen.append
    m.update(Snapshot(stage="play", in_deal=True, hand=((0, "2C"), (1, "AH"), (2, "QS"), (3, "5D")),
                      hand_sizes=(4, 4, 4, 4), deciding=(0,), decision_kind=PASS,
                      dialog=(Line("pass_to", {"n": 3}, {"who": 1}),)))
    m.ask(Decision((0,), PASS, pick=(3, 3)), [])
    view = table_view(m)
    assert view["dialog"]["kind"] == PASS and view["dialog"]["pick"] == [3, 3] and view["dialog"]["picked"] == 0
    assert view["dialog"]["confirm"] and view["dialog"]["decline"] is None
    table_action(m, {"a": "confirm"})
    assert not chosen and "3" in m.message  # too few cards marked: the model says so
    for i in (0, 1, 2):
        table_action(m, {"a": "card", "index": i})
    assert table_view(m)["dialog"]["picked"] == 3
    table_action(m, {"a": "confirm"})
    assert len(chosen) == 1 and len(chosen[0]) == 3


def test_the_page_s_keys_are_the_terminal_s():
    m = model("sueca")
    chosen: list[Any] = []
    m.on_choice = chosen.append
    m.update(Snapshot(stage="play", in_deal=True, hand=((0, "AS"), (1, "7S"), (2, "KH")), hand_sizes=(3, 3, 3, 3),
                      deciding=(0,), decision_kind=PLAY))
    m.ask(Decision((0,), PLAY), [0, 1])
    table_key(m, "?")
    assert table_view(m)["window"]["kind"] == "help"
    table_key(m, "escape")
    table_key(m, "right")
    table_key(m, "enter")
    assert len(chosen) == 1
    table_key(m, "q")
    assert table_view(m)["window"]["kind"] == "quit"
    left: list[bool] = []
    m.on_exit = lambda: left.append(True)
    table_action(m, {"a": "leave_yes"})
    assert left == [True]
    m.offer_finish()
    assert table_view(m)["finish"]
    for junk in ({"a": "card", "index": -1}, {"a": "card", "index": True}, {"a": "nope"}, {"a": "key", "key": 3},
                 {"a": "window", "which": "x"}, {}):
        table_action(m, junk)  # ignored, never an error


def test_a_click_plays_the_card_the_page_showed_or_nothing():
    """A click names the card it was on: after the hand changed under it (a card played by a
    key a moment before), the same place holds another card and the click is dropped."""
    m = model("sueca")
    chosen: list[Any] = []
    m.on_choice = chosen.append
    m.update(Snapshot(stage="play", in_deal=True, hand=((0, "AS"), (1, "7S"), (2, "KH")), hand_sizes=(3, 3, 3, 3),
                      deciding=(0,), decision_kind=PLAY))
    m.ask(Decision((0,), PLAY), [0, 1, 2])
    shown = [c["card"] for c in table_view(m)["hand"]]
    table_action(m, {"a": "card", "index": 0, "card": shown[1]})  # a view that is no more
    assert chosen == []
    table_action(m, {"a": "card", "index": 1, "card": shown[1]})
    assert len(chosen) == 1


class _Calls:
    """A stand-in for the table's model that keeps the calls made on it (and has the state
    that the page's messages are checked against)."""

    def __init__(self, **state: Any) -> None:
        self.calls: list[tuple[Any, ...]] = []
        self.popup, self.modal, self.picking, self.choosing, self.choice_cursor = None, [], False, False, 0
        self.__dict__.update(state)

    def __getattr__(self, name: str) -> Any:
        return lambda *args: self.calls.append((name, *args))


@pytest.mark.parametrize(("msg", "state", "calls"), [
    ({"a": "card", "index": 2}, {}, [("click_card", 2)]),
    ({"a": "card", "index": 64}, {}, []),
    ({"a": "choice", "index": 1}, {"choosing": True}, [("enter",)]),
    ({"a": "choice", "index": 1}, {}, []),
    ({"a": "confirm"}, {"picking": True}, [("enter",)]),
    ({"a": "confirm"}, {}, []),
    ({"a": "decline"}, {}, [("sit_out",)]),
    ({"a": "swap"}, {}, [("do_swap",)]),
    ({"a": "hint"}, {}, [("hint",)]),
    ({"a": "finish"}, {}, [("finish",)]),
    ({"a": "window", "which": "s"}, {}, [("key", "s")]),
    ({"a": "window", "which": "q"}, {}, []),
    ({"a": "close"}, {}, [("escape",)]),
    ({"a": "continue"}, {"modal": ["summary"]}, [("enter",)]),
    ({"a": "continue"}, {"modal": ["summary"], "popup": "help"}, []),
    ({"a": "continue"}, {}, []),
    ({"a": "leave"}, {}, [("key", "q")]),
    ({"a": "leave"}, {"popup": "quit"}, []),
    ({"a": "leave_yes"}, {"popup": "quit"}, [("on_exit",)]),
    ({"a": "leave_yes"}, {}, []),
    ({"a": "pace", "which": "-"}, {}, [("key", "-")]),
    ({"a": "pace", "which": "q"}, {}, []),
    ({"a": ["swap"]}, {}, []),
    ({"a": None}, {}, []),
])
def test_each_message_of_the_page_at_the_table_is_one_call(msg: dict[str, Any], state: dict[str, Any],
                                                          calls: list[tuple[Any, ...]]):
    """Every message the page may send at the table, and what it calls on the model when
    the model is in a state that allows it (and nothing otherwise)."""
    m = _Calls(**state)
    table_action(m, msg)  # type: ignore[arg-type]
    assert m.calls == calls
    assert m.choice_cursor == (1 if calls and msg["a"] == "choice" else 0)


def test_portuguese_views_speak_portuguese(tmp_path: Path):
    m = model("sueca", "pt")
    m.update(Snapshot(stage="play", in_deal=True, hand=((0, "AS"),), hand_sizes=(1, 1, 1, 1), trump="H",
                      deciding=(1,), decision_kind=PLAY))
    view = table_view(m)
    assert "Trunfo" in view["trump"] and view["status"].startswith("à espera")


def test_the_terminal_start_screen_opens_the_browser_table_and_comes_back(tmp_path):
    """The terminal's start screen has the entry (8): it runs the browser table (here a
    stand-in) and the start screen comes back when the person quits it there (9 quits)."""
    from prompt_toolkit.application import create_app_session
    from prompt_toolkit.input import create_pipe_input

    from p2pcards.tui.start import run_start_screen
    from tests.test_tui_app import ScreenOutput

    out = ScreenOutput()
    opened: list[bool] = []
    with create_pipe_input() as inp:
        def open_web() -> int:
            opened.append(True)
            inp.send_text("9")  # back on the start screen: quit
            return 0

        inp.send_text("8")
        with create_app_session(input=inp, output=out):
            code = run_start_screen(REGISTRY, me=fixed_identity(tmp_path / "home"), lang="en", data_dir=tmp_path,
                                    input=inp, output=out, lan=False, open_web=open_web)
    assert code == 0 and opened == [True]
    assert "8. Open in the browser" in out.drawn() and "9. Quit" in out.drawn()


def test_seats_voted_out_show_their_cards_and_a_refused_message_says_whom_it_blames():
    m = model("sueca")
    m.update(Snapshot(stage="play", in_deal=True, hand=((0, "AS"),), hand_sizes=(1, 1, 1, 1), dummies=(2,),
                      dummy_hands={2: ("7H",)}, deciding=(1,), decision_kind=PLAY))
    m.refused(1)
    m.link([3], False)  # the process of seat 3 went away
    view = table_view(m)
    partner = view["seats"][2]
    assert partner["face"] == ["7H"] and partner["marker"] == m.text("dummy")
    assert m.text("refused_blame", name="Ana") in view["notices"]
    assert view["seats"][3]["offline"] and m.text("offline") in view["seats"][3]["detail"]


async def test_the_start_page_lists_the_lan_s_tables_live_and_joins_one(tmp_path):
    """The peer itself, in this trio run, with a fake LAN: the list fills as a table is
    announced; choosing it joins it (here nobody answers: the lobby says so, and the start
    page comes back); Quit ends the peer."""
    import trio

    from p2pcards.discovery import Announcement, encode_txt
    from p2pcards.net import PROTO
    from p2pcards.testing.fake_lan import FakeLan, open_fake
    from p2pcards.web.peer import WebPeer

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    lan = FakeLan()
    peer = WebPeer(REGISTRY, me=fixed_identity(tmp_path / "home"), lang="en", data_dir=tmp_path / "home",
                   open_disco=lambda: open_fake(lan))

    async def until(test: Any) -> None:
        with trio.fail_after(20):
            while not test():
                await trio.sleep(0.02)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(peer.run)
        await until(lambda: peer.screen == "start")
        peer.act({"a": "view", "view": "lan"})
        assert peer.view()["lan_note"] == Text("en")("lan_none")
        ann = Announcement(proto=PROTO, game="sueca", rules_version=REGISTRY.get("sueca").rules_version,
                           seats_taken=1, seats_total=4, host_name="Ana", host_fingerprint="abcd-efgh-ijkl-mnop")
        lan.inject("sueca-Ana-abcd", encode_txt(ann), port=closed, addresses=("127.0.0.1",))
        await until(lambda: peer.view()["lan"])
        row = peer.view()["lan"][0]
        assert row["name"] == "sueca-Ana-abcd" and f"127.0.0.1:{closed}" in row["text"] and row["reason"] is None
        peer.act({"a": "lan", "index": 0})
        await until(lambda: peer.screen == "lobby" and peer.view()["error"])
        assert f"cannot connect to 127.0.0.1:{closed}" in peer.view()["error"]
        peer.act({"a": "ok"})
        await until(lambda: peer.screen == "start")
        peer.act({"a": "quit"})
    assert peer.done.is_set()


def test_ctrl_c_stops_the_server_with_status_130_and_no_traceback(tmp_path):
    import signal

    home = tmp_path / "home"
    fixed_identity(home)
    peer = Peer(home, "web", "--no-browser", "--json", "--no-lan")
    peer.proc.send_signal(signal.SIGINT)
    assert peer.wait() == 130
    assert "Traceback" not in peer.stderr()


#: ``p2pcards web`` whose Ctrl-C comes while Hypercorn's own task runs: its listeners' loop
#: is wrapped so as to signal the process first (where, left to trio, it became a
#: KeyboardInterrupt that Hypercorn swallowed, and the page went on for ever).
_CTRL_C_IN_THE_SERVER = """
import os, signal, sys
import trio
serve_listeners = trio.serve_listeners
async def signalled(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    await trio.sleep(0)
    return await serve_listeners(*args, **kwargs)
trio.serve_listeners = signalled
from p2pcards.cli import main
sys.exit(main(["web", "--no-browser", "--json", "--no-lan"]))
"""


def test_ctrl_c_that_comes_while_the_server_s_own_code_runs_stops_it_too(tmp_path):
    home = tmp_path / "home"
    fixed_identity(home)
    env = {**os.environ, "P2PCARDS_HOME": str(home), "BROWSER": "true"}
    done = subprocess.run([sys.executable, "-c", _CTRL_C_IN_THE_SERVER], env=env, capture_output=True, text=True,
                          timeout=30, stdin=subprocess.DEVNULL)
    assert done.returncode == 130, done.stderr
    assert "Traceback" not in done.stderr


def test_the_start_page_asks_a_name_never_chosen_once_and_keeps_it_in_the_identity(tmp_path):
    from p2pcards.identity import load_or_create
    from p2pcards.web.peer import WebPeer

    home = tmp_path / "home"
    me = load_or_create(home)  # made without a name: the login name, never chosen
    assert not me.named
    peer = WebPeer(REGISTRY, me=me, lang="pt", data_dir=home)
    assert peer.view()["me"] == {"name": me.name, "ask": True, "error": ""}
    peer.act({"a": "name", "name": "x" * 41})  # not a name: said in the page's language, nothing kept
    assert peer.view()["me"]["error"] == Text("pt")("web_name_bad", n=40)
    assert not load_or_create(home).named
    peer.act({"a": "name", "name": "  Inês "})
    kept = load_or_create(home)
    assert (kept.name, kept.named, kept.fingerprint) == ("Inês", True, me.fingerprint)
    assert peer.me.name == "Inês" and peer.view()["me"] == {"name": "Inês", "ask": False, "error": ""}
    peer.act({"a": "name", "name": ""})  # empty keeps the name it has
    assert load_or_create(home).name == "Inês"
    assert WebPeer(REGISTRY, me=load_or_create(home), lang="en", data_dir=home).view()["me"]["ask"] is False
