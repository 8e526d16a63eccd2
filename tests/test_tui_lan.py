"""A person at a LAN table on the terminal: hosting one, joining one, a link that drops.

The screens run for real (the lobby, then the table; pipe input, trio as asyncio's guest)
and the other players are real peers over TCP on loopback: headless joiners or a headless
host run as tasks of the same trio run.  A scripted typist plays the person's cards.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio
from prompt_toolkit.application import Application, create_app_session
from prompt_toolkit.input import create_pipe_input

from p2pcards.identity import Identity
from p2pcards.net import host_table, join_table, parse_seat_spec
from p2pcards.net.store import PERSON, load_manifest, manifest_path, read_log
from p2pcards.table.transcript import Genesis, parse_message
from p2pcards.tui.lan import HostPlan, JoinPlan, LanTable, lan_screens, run_lan_async
from p2pcards.tui.model import Snapshot
from p2pcards.words import Text
from tests.test_tui_app import REGISTRY, ScreenOutput, Typist, person, screen_text
from tests.test_tui_model import make_model


def drive_lan(table: LanTable, trio_main: Any = None, *, timeout: float = 60,
              on_lobby: Any = None, out: ScreenOutput | None = None) -> tuple[list[Typist], ScreenOutput, int]:
    """Run the LAN table's screens with a typist on the table screen (bounded), drawn on
    ``out`` (default 100 by 30)."""
    out = out if out is not None else ScreenOutput()
    typists: list[Typist] = []

    async def main() -> int:
        with create_pipe_input() as inp, create_app_session(input=inp, output=out):
            tasks: list[asyncio.Future[Any]] = []

            def on_app(app: Application[Any]) -> None:
                assert table.model is not None or not tasks
                changed = asyncio.Event()
                app.after_render += lambda _: changed.set()
                if tasks:  # the second screen: the table
                    typist = Typist(table.model, inp.send_text)
                    typist.tour_windows = False
                    typists.append(typist)
                    table.model.listeners.append(changed.set)
                else:
                    table.lobby.listeners.append(changed.set)

                async def along() -> None:
                    while True:
                        try:
                            await asyncio.wait_for(changed.wait(), 0.25)
                        except TimeoutError:
                            pass
                        changed.clear()
                        if app.is_done:
                            return
                        if typists and typists[0].model is table.model:
                            typists[0].react(screen_text(app))
                        elif on_lobby is not None:
                            on_lobby(table, inp.send_text)

                tasks.append(asyncio.ensure_future(along()))

            try:
                return await run_lan_async(table, lan_screens(table, input=inp, output=out, on_app=on_app),
                                           trio_main)
            finally:
                for task in tasks:
                    task.cancel()

    code = asyncio.run(asyncio.wait_for(main(), timeout))
    return typists, out, code


def lan_table(plan: HostPlan | JoinPlan, tmp_path: Path, me: Identity | None = None) -> LanTable:
    return LanTable(REGISTRY, plan, me=me or person(), text=Text("en"), data_dir=tmp_path / "me", speed=0)


async def wait_for_address(table: LanTable) -> tuple[str, int]:
    with trio.fail_after(20):
        while table.address is None:
            await trio.sleep(0.01)
    return table.address


def test_a_person_hosts_a_lan_table_and_plays_it_to_the_end(tmp_path):
    spec = REGISTRY.get("sueca")
    seats = parse_seat_spec("me,remote,bot:random,remote", 4, person=True)
    plan = HostPlan(spec, spec.resolve_options({}), seats, bind="127.0.0.1", deals=1)
    table = lan_table(plan, tmp_path)
    joiners: list[Any] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            _, port = await wait_for_address(table)
            for name in ("Ana", "Rui"):
                async def join(name: str = name) -> None:
                    node = await join_table("127.0.0.1", port, me=Identity.generate(name), registry=REGISTRY,
                                            data_dir=tmp_path / name, level="random", seed=7)
                    joiners.append(node)
                nursery.start_soon(join)
                await trio.sleep(0.2)  # Ana takes seat 1, Rui seat 3

    typists, out, code = drive_lan(table, main)
    assert code == 0 and table.outcome == "over", out.drawn()
    typist = typists[0]
    assert typist.summaries == 1 and "✓ Deal verified" in typist.log[0]
    assert typist.kinds.count("play") == 10
    drawn = out.drawn()
    # the lobby said where players join and counted the seats; the table shows who sits where
    assert "You host Sueca; you sit at seat 1." in drawn and f"127.0.0.1:{table.address[1]}" in drawn
    assert "Seats taken: 2 of 4." in drawn and "Seats taken: 4 of 4." in drawn
    assert "seat 2: Ana" in drawn  # and who took them
    assert "Ana" in drawn and "Rui" in drawn and "your turn" in drawn
    # the host's person is seat 0 of the genesis, a person (no bot level), with the host's keys
    me = person()
    mine = read_log(tmp_path / "me" / "tables" / table.table_id / "seat0.log")[0]
    genesis = Genesis.from_body(parse_message(mine[0], None).body)
    assert genesis.seats[0].signing == me.signing_public and genesis.seats[0].bot is None
    assert genesis.host_signing == me.signing_public and genesis.seats[2].bot == "random"
    assert [genesis.seats[i].name for i in (1, 3)] == ["Ana", "Rui"]
    # every peer holds the same transcript; the manifest marks the person's seat for resume
    for node in joiners:
        (seat,) = node.tables
        assert node.tables[seat].log == mine
    manifest = load_manifest(manifest_path(tmp_path / "me", bytes.fromhex(table.table_id), "host"))
    assert {(p.seat, p.identity, p.level) for p in manifest.peers} == {(0, "user", PERSON), (2, "file", "random")}
    assert manifest.finished


def test_a_person_joins_a_lan_table_from_the_screen(tmp_path):
    spec = REGISTRY.get("bisca")
    host = Identity.generate("Host")
    plan = JoinPlan("127.0.0.1", 0)
    table = lan_table(plan, tmp_path)
    nodes: list[Any] = []

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            async def hosting(task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
                nodes.append(await host_table(spec, seats=parse_seat_spec("bot:random,remote", 2), host=host,
                                              data_dir=tmp_path / "host", options={}, deals=1, bind="127.0.0.1",
                                              seed=5, task_status=task_status))
            _, port = await nursery.start(hosting)
            plan.port = port
            plan.expect_host = host.fingerprint
            await table.run()

    typists, out, code = drive_lan(table, main)
    assert code == 0 and table.outcome == "over", out.drawn()
    assert typists[0].summaries == 1 and "✓ Deal verified" in typists[0].log[0]
    drawn = out.drawn()
    assert "Seated at seat 2 of Bisca, hosted by Host." in drawn
    (host_node,) = nodes
    genesis = host_node.genesis
    assert genesis.seats[1].signing == person().signing_public and genesis.seats[1].bot is None
    assert host_node.tables[0].log == read_log(tmp_path / "me" / "tables" / table.table_id / "seat1.log")[0]
    manifest = load_manifest(manifest_path(tmp_path / "me", bytes.fromhex(table.table_id), "join"))
    assert [(p.seat, p.level) for p in manifest.peers] == [(1, PERSON)]


def _a_key_once_failed() -> Callable[[LanTable, Any], None]:
    """A lobby watcher that presses a key once the lobby shows why it failed."""
    pressed: list[bool] = []

    def on_lobby(t: LanTable, send: Any) -> None:
        if t.lobby.error is not None and not pressed:
            pressed.append(True)
            send("x")

    return on_lobby


def test_the_lobby_says_why_joining_failed_and_a_key_goes_back(tmp_path):
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    table = lan_table(JoinPlan("127.0.0.1", port), tmp_path)
    typists, out, code = drive_lan(table, on_lobby=_a_key_once_failed(), timeout=30)
    assert code == 1 and table.outcome == "failed" and not typists
    assert f"Could not play: cannot connect to 127.0.0.1:{port}" in out.drawn()
    assert "any key: back" in out.drawn()


def test_a_lobby_error_is_wrapped_not_cut_and_said_again_on_standard_error_on_exit(tmp_path, capsys):
    """On a narrow terminal the whole reason is on the screen, wrapped; once the screen is
    gone it is printed on standard error and the command exits 1 (issue 23, point 4)."""
    from p2pcards.cli.common import _left_note

    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    table = lan_table(JoinPlan("127.0.0.1", port), tmp_path)
    _, out, code = drive_lan(table, on_lobby=_a_key_once_failed(), timeout=30, out=ScreenOutput(rows=24, columns=40))
    assert code == 1 and code.error == table.lobby.error
    reason = table.lobby.error
    assert reason is not None and len(f"  Could not play: {reason}") > 40
    screen = [line.rstrip() for line in out.screens[-1].splitlines()]
    assert all(len(line) <= 40 for line in screen)
    said = " ".join(" ".join(line.split()) for line in screen)
    assert " ".join(f"Could not play: {reason}".split()) in said  # every word of it, in order
    assert _left_note(code) == 1
    assert capsys.readouterr().err == f"p2pcards: error: {reason}\n"


def test_q_in_the_lobby_leaves_a_hosted_table_that_never_filled(tmp_path):
    spec = REGISTRY.get("sueca")
    plan = HostPlan(spec, {}, parse_seat_spec(None, 4, person=True), bind="127.0.0.1")

    def on_lobby(t: LanTable, send: Any) -> None:
        if t.address is not None and "Seats taken: 1 of 4." in t.lobby.lines.get("seats", ""):
            send("q")

    table = lan_table(plan, tmp_path)
    _, out, code = drive_lan(table, on_lobby=on_lobby, timeout=30)
    assert code == 0 and table.outcome == "left"  # leaving on purpose is no failure
    assert getattr(code, "left", None) is False  # the table never started: nothing to take up again
    assert "Waiting for players…" in out.drawn()


def test_a_dropped_link_shows_reconnecting_until_it_is_back():
    model, _ = make_model(deciding=(1,))
    assert model.status() == "waiting for Bot1"
    model.link(frozenset({1}), False)
    assert model.status() == "waiting for Bot1 (reconnecting)"
    assert "disconnected" in model.seat_panel(1).detail
    model.link(frozenset({0}), False)  # never the person's own seat
    assert model.offline == {1}
    model.update(Snapshot(stage="setup", phase="shuffle", expected=2))
    assert model.status() == "shuffling… 3/4 · Bot1 reconnecting"
    model.link(frozenset({1}), True)
    assert model.status() == "shuffling… 3/4"
    model.update(replace(model.snap, stage="play", in_deal=True, deciding=(1,)))
    assert model.status() == "waiting for Bot1" and "disconnected" not in model.seat_panel(1).detail


def test_a_player_who_drops_is_shown_reconnecting_and_plays_on_after_resume(tmp_path):
    from p2pcards.net import resume_table

    spec = REGISTRY.get("bisca")
    plan = HostPlan(spec, spec.resolve_options({}), parse_seat_spec("me,remote", 2, person=True), bind="127.0.0.1",
                    deals=1)
    table = lan_table(plan, tmp_path)
    ana = Identity.generate("Ana")
    seen: dict[str, Any] = {}

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(table.run)
            _, port = await wait_for_address(table)
            with trio.CancelScope() as joiner:  # Ana's process, until it "dies"
                async def watch() -> None:
                    with trio.fail_after(30):
                        while table.model is None or table.model.asked < 3:
                            await trio.sleep(0.01)
                    joiner.cancel()

                async with trio.open_nursery() as inner:
                    inner.start_soon(watch)
                    await join_table("127.0.0.1", port, me=ana, registry=REGISTRY, data_dir=tmp_path / "ana",
                                     level="random", seed=3)
            assert table.model is not None
            with trio.fail_after(20):
                while 1 not in table.model.offline:
                    await trio.sleep(0.01)
            seen["offline"] = table.model.seat_panel(1).detail
            assert table.table_id is not None
            path = manifest_path(tmp_path / "ana", bytes.fromhex(table.table_id), "join")
            await resume_table(path, me=ana, registry=REGISTRY, data_dir=tmp_path / "ana")
            seen["back"] = set(table.model.offline)

    typists, out, code = drive_lan(table, main, timeout=90)
    assert code == 0 and table.outcome == "over", out.drawn()
    assert "disconnected" in seen["offline"] and "disconnected" in out.drawn()
    assert seen["back"] == set() and typists[0].summaries == 1 and "✓ Deal verified" in typists[0].log[0]


def test_a_network_failure_is_told_in_the_screens_language(tmp_path):
    from p2pcards.net import ConnectError, NetError, Refused, VotedOut
    from p2pcards.tui.lan import net_failure
    from p2pcards.words import Text

    pt, en = Text("pt"), Text("en")
    refused = Refused("seated", "this identity holds seat 2 of this table, which is being played: …")
    assert net_failure(refused, en).startswith("this identity already holds a seat at this table")
    assert net_failure(ConnectError("cannot connect to x"), en) == "cannot connect to x"  # the runtime's own words
    assert "já tem um lugar nesta mesa" in net_failure(refused, pt) and "identity" not in net_failure(refused, pt)
    full = Refused("full", "every seat at this table is taken")
    assert net_failure(full, pt) == "todos os lugares desta mesa estão ocupados"
    gone = ConnectError("cannot connect to 127.0.0.1:9: Connection refused")
    assert net_failure(gone, pt) == "não foi possível ligar (cannot connect to 127.0.0.1:9: Connection refused)"
    assert "votaram a sua saída" in net_failure(VotedOut("voted out"), pt)
    assert net_failure(NetError("something new"), pt) == "something new"  # no words for it: as it is
    assert net_failure(Refused("a-new-code", "why"), pt) == str(Refused("a-new-code", "why"))
    # on the lobby screen
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    table = LanTable(REGISTRY, JoinPlan("127.0.0.1", port), me=person(), text=pt, data_dir=tmp_path / "pt", speed=0)
    _, out, code = drive_lan(table, on_lobby=_a_key_once_failed(), timeout=30)
    assert code == 1 and "Não foi possível jogar: não foi possível ligar (cannot connect to 127.0.0.1" in out.drawn()
