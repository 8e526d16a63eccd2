"""A person at a LAN table on the terminal: hosting one, or joining one.

:class:`LanTable` runs :func:`~p2pcards.net.host_table` (with the person in the ``me``
seat and the host's computer players paced for the screen) or
:func:`~p2pcards.net.join_table` (with the person as the joining peer) in trio, a guest of
the screen's asyncio loop as for a table against the computer
(:mod:`p2pcards.tui.runtime`).  The lobby screen (:mod:`p2pcards.tui.lobby_screen`) shows where
players join and how many seats are taken, or whom the person is seated with; when the
table starts the table screen takes over, with the seats of the genesis.  A link to
another process that drops shows "waiting for … (reconnecting)" until that process comes
back (``p2pcards resume`` on its side) or is voted out.  Leaving (q, Ctrl-C) keeps the
logs: ``p2pcards resume`` takes the person's seat again.

A person's seat is silent while the person thinks, so a table hosted here waits longer
for a seat (:data:`PERSON_TIMEOUT`) than a headless ``p2pcards host`` (60 s).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import trio
from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from p2pcards.core import GameRegistry, GameSpec, Options
from p2pcards.discovery.commands import NoAnnouncer
from p2pcards.discovery.interfaces import local_addresses
from p2pcards.identity import Identity
from p2pcards.net import NetError, Refused, host_table, join_table, log_path, resume_table, single_error
from p2pcards.net.handshake import SeatSpec
from p2pcards.players import Player
from p2pcards.tui.app import build_app, exit_status, run_with_trio
from p2pcards.tui.fields import mapping, maybe_str, need_int, need_str, numbers, options_of, records
from p2pcards.tui.lobby_screen import LobbyModel, build_lobby_app, end_if_ended
from p2pcards.tui.logfile import screen_logging
from p2pcards.tui.model import GameInfo, SeatLabel, TableModel
from p2pcards.tui.runtime import PacedBot, ScreenTable
from p2pcards.words import Text

if TYPE_CHECKING:
    from p2pcards.discovery.tables import TableAnnouncer

__all__ = ["HostPlan", "JoinPlan", "LanTable", "ResumePlan", "PERSON_TIMEOUT", "hosting_announcer", "local_addresses",
           "lan_screens", "play_lan", "run_lan_async", "run_lan_table"]

log = logging.getLogger("p2pcards.tui")

#: Seconds a table hosted from the screen waits for a seat before voting it out.
PERSON_TIMEOUT: Final = 300.0

#: ``announce(line)``: an async context manager that announces the table on the LAN while
#: it fills and yields hooks ``listening(port)``, ``seats(taken, total)``, ``close()``.
Announce = Callable[[Callable[[dict[str, object], str], None]],
                    AbstractAsyncContextManager["TableAnnouncer | NoAnnouncer"]]


@dataclass
class HostPlan:
    """Host a table of ``spec``: ``seats`` has exactly one ``me`` (the person)."""

    spec: GameSpec
    options: Options
    seats: Sequence[SeatSpec]
    port: int = 0
    bind: str = "0.0.0.0"
    deals: int | None = None
    timeout: float = PERSON_TIMEOUT
    lobby_timeout: float = 3600.0
    announce: Announce | None = None
    #: False: the host forbids hints at the table (written in its genesis)
    hints: bool = True


@dataclass
class JoinPlan:
    """Join the table at ``host:port`` (``expect_host``: the announced host's fingerprint),
    or, with ``locate``, the one that coroutine finds on the LAN (address, port, fingerprint)."""

    host: str = ""
    port: int = 0
    expect_host: str | None = None
    locate: Callable[[], Awaitable[tuple[str, int, str]]] | None = None
    name: str = ""
    lobby_timeout: float = 3600.0


@dataclass
class ResumePlan:
    """Take the person's seat of an unfinished LAN table again (``path``: its manifest)."""

    path: Path


def hosting_announcer(spec: GameSpec, options: Options, seats: Sequence[SeatSpec], me: Identity,
                      args: argparse.Namespace | None = None, deals: int | None = None) -> Announce:
    """Announce a table hosted from the screen on the LAN, as ``p2pcards host`` does
    (``args``: its LAN settings; default: every interface, the default TTL)."""
    from p2pcards.discovery.commands import hosting, hosting_defaults, make_announcement

    settings = args if args is not None else hosting_defaults()
    announcement = make_announcement(spec, options, seats, me, deals)
    remote = sum(s.kind == "remote" for s in seats)
    return lambda line: hosting(settings, announcement, remote, line)


class LanTable(ScreenTable):
    """The person at a LAN table (module docstring): ``plan`` says host or join."""

    def __init__(
        self,
        registry: GameRegistry,
        plan: HostPlan | JoinPlan | ResumePlan,
        *,
        me: Identity,
        text: Text,
        data_dir: Path,
        speed: float = 0.8,
    ) -> None:
        self.registry = registry
        self.plan = plan
        self.me = me
        self.text = text
        self.data_dir = data_dir
        self.speed = speed
        self.lobby = LobbyModel(text, registry.games)
        super().__init__()
        self.model: TableModel | None = None
        self.seat: int | None = None
        self.table_id: str | None = None
        #: where the hosted table listens, once it does
        self.address: tuple[str, int] | None = None

    # ------------------------------------------------------------------ in trio
    def _pace(self, player: Player) -> Player:
        return PacedBot(player, lambda: self.pace(self.model.speed if self.model is not None else self.speed),
                        self.gate)

    def _table_started(self, info: Mapping[str, object]) -> None:
        """The genesis is known (the table's description, :func:`~p2pcards.net.peer.describe_table`):
        build the table screen's model with its seats."""
        spec = self.registry.games[need_str(info, "game")]
        local = numbers(info["local_seats"])
        labels = [SeatLabel(need_int(s, "seat"), need_str(s, "name"), maybe_str(s, "bot"), maybe_str(s, "runs_on"),
                            maybe_str(s, "fingerprint")) for s in records(info["seats"])]
        mine = [s.seat for s in labels if s.seat in local and s.bot is None and s.fingerprint == self.me.fingerprint]
        seat = mine[0]
        self.table_id = table_id = need_str(info, "table")
        path = str(log_path(self.data_dir, bytes.fromhex(table_id), seat))
        model = TableModel(GameInfo.of(spec, options_of(info["options"])), labels, seat, self.text, speed=self.speed,
                           here=self.me.fingerprint, log_path=path)
        model.catching_up = isinstance(self.plan, ResumePlan)  # until the person's replica is rebuilt from its log
        self._attach(model)
        self.seat = seat
        self.lobby.started()

    def _on_link(self, seats: frozenset[int], up: bool) -> None:
        if self.model is not None:
            self.model.link(seats, up)

    def failed(self, reason: str) -> None:
        self.outcome = "failed"
        if self.model is None:
            self.lobby.failed(reason)
        else:
            self.model.stopped(reason)

    async def run(self) -> None:
        """Host or join, then play the table to its end (or until cancelled)."""
        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            self._scope = scope
            try:
                with single_error():
                    async with trio.open_nursery() as tasks:  # the table, and the screen's hints
                        self._tasks = tasks
                        if isinstance(self.plan, HostPlan):
                            await self._host(self.plan)
                        elif isinstance(self.plan, JoinPlan):
                            await self._join(self.plan)
                        else:
                            await self._resume(self.plan)
                        tasks.cancel_scope.cancel()
            except NetError as exc:
                self.failed(net_failure(exc, self.text))
            except Exception as exc:  # noqa: BLE001 -- shown to the person rather than a traceback on the screen
                log.exception("the LAN table failed")
                self.failed(f"{type(exc).__name__}: {exc}")
        if scope.cancelled_caught and self.outcome == "running":
            self.outcome = "left"

    async def _host(self, plan: HostPlan) -> None:
        t = self.text
        me_seat = [i for i, s in enumerate(plan.seats) if s.kind == "me"][0]
        self.lobby.say("what", t("lobby_hosting", game=plan.spec.text(t.lang, "title"), seat=me_seat + 1))
        self.lobby.wait(t("lobby_fill"))
        opener = plan.announce(self._line) if plan.announce is not None else nullcontext(NoAnnouncer())
        async with opener as lan:

            def on_listening(address: str, port: int) -> None:
                self.address = (address, port)
                lan.listening(port)
                if address in ("0.0.0.0", "::"):
                    shown = local_addresses()[:3] or ["127.0.0.1"]  # no network: this machine only
                    where = " · ".join(f"{a}:{port}" for a in shown)
                else:
                    where = f"{address}:{port}"
                self.lobby.say("where", t("lobby_listening", address=where))

            def on_seats(taken: int, total: int) -> None:
                lan.seats(taken, total)
                self.lobby.say("seats", t("lobby_seats", taken=taken, total=total))

            def on_joiners(names: Mapping[int, str]) -> None:  # who, under how many
                who = " · ".join(t("lobby_joined", seat=seat + 1, name=name) for seat, name in names.items())
                if who or "who" in self.lobby.lines:
                    self.lobby.say("who", who)

            def on_table(info: Mapping[str, object]) -> None:
                lan.close()
                self._table_started(info)

            await host_table(plan.spec, seats=plan.seats, host=self.me, data_dir=self.data_dir, options=plan.options,
                             deals=plan.deals, timeout=plan.timeout, bind=plan.bind, port=plan.port,
                             lobby_timeout=plan.lobby_timeout, on_event=self._on_event, on_table=on_table,
                             on_listening=on_listening, on_seats=on_seats, on_joiners=on_joiners,
                             on_link=self._on_link,
                             person=self.person, wrap_bot=self._pace, hints=plan.hints, recorder=self.history)

    def _line(self, obj: Mapping[str, object], text: str) -> None:
        """A line of the LAN announcer (``announced``) for the lobby."""
        if obj.get("type") == "announced":
            self.lobby.say("announced", self.text("lobby_announced", name=obj.get("name", "?")))

    async def _join(self, plan: JoinPlan) -> None:
        t = self.text
        host, port, expect = plan.host, plan.port, plan.expect_host
        if plan.locate is not None:
            self.lobby.wait(t("lobby_locating", name=plan.name))
            host, port, expect = await plan.locate()
        self.lobby.wait(t("lobby_connecting", address=f"{host}:{port}"))

        def on_seated(info: Mapping[str, object]) -> None:
            self.lobby.say("seated", t("lobby_seated", seat=need_int(info, "seat") + 1,
                                       game=self.lobby.game_title(need_str(info, "game")),
                                       host=mapping(info["host"])["name"]))
            self.lobby.wait(t("lobby_start"))

        await join_table(host, port, me=self.me, registry=self.registry, data_dir=self.data_dir,
                         lobby_timeout=plan.lobby_timeout, on_seated=on_seated, on_table=self._table_started,
                         on_event=self._on_event, expect_host=expect, player=self.person, on_link=self._on_link,
                         table_name=plan.name or None, recorder=self.history)


    async def _resume(self, plan: ResumePlan) -> None:
        t = self.text

        def on_resumed(info: Mapping[str, object]) -> None:
            self.lobby.say("resumed", t("lobby_resumed", table=need_str(info, "table")[:16],
                                        game=self.lobby.game_title(need_str(info, "game")), deals=info["deals_done"]))
            self.lobby.wait(t("lobby_taking_up") if info.get("taking_up") else t("lobby_reconnecting"))

        await resume_table(plan.path, me=self.me, registry=self.registry, data_dir=self.data_dir,
                           on_resumed=on_resumed, on_table=self._table_started, on_event=self._on_event,
                           person=self.person, on_link=self._on_link, recorder=self.history)


#: What sees each screen of a LAN table before it runs: the lobby's application, then the table's.
OnApp = Callable[[Application[str | None] | Application[None]], None]


def lan_screens(table: LanTable, *, input: Input | None = None, output: Output | None = None,
                on_app: OnApp | None = None) -> Callable[[], Awaitable[None]]:
    """The screens of a LAN table in turn: the lobby, then (once the table started) the
    table; ``on_app`` sees each application before it runs (tests type along)."""

    async def screens() -> None:
        lobby_app = build_lobby_app(table.lobby, input=input, output=output)
        if on_app is not None:
            on_app(lobby_app)
        result = await lobby_app.run_async(pre_run=end_if_ended(lobby_app, table.lobby))
        if result == "table" and table.model is not None:
            app = build_app(table.model, input=input, output=output)
            if on_app is not None:
                on_app(app)
            await app.run_async()

    return screens


async def run_lan_async(table: LanTable, screens: Callable[[], Awaitable[None]],
                        trio_main: Callable[[], Awaitable[object]] | None = None) -> int:
    """Run ``screens`` with ``trio_main`` (default: the table's run) as trio's guest; the exit status."""

    def trio_failed(error: BaseException) -> None:
        table.failed(f"{type(error).__name__}: {error}")

    await run_with_trio(screens, trio_main or table.run, table.cancel, trio_failed)
    interrupted = table.lobby.interrupted or (table.model is not None and table.model.interrupted)
    error = table.model.error if table.model is not None else table.lobby.error
    # left in the lobby: nothing to take up
    return exit_status(table.outcome, resumable=table.model is not None, interrupted=interrupted, error=error,
                       table=table.table_id or "", ended=table.model.final_lines() if table.model is not None else ())


def net_failure(exc: NetError, text: Text) -> str:
    """A network failure in the screen's language: by its kind (and a refusal by its code),
    with the runtime's own one-line message as the detail; that message as it is when
    the language has no words for the kind."""
    key = f"net_refused_{exc.code}" if isinstance(exc, Refused) else f"net_{type(exc).__name__}"
    return text(key, detail=str(exc)) if key in text else str(exc)


def run_lan_table(table: LanTable, *, input: Input | None = None, output: Output | None = None) -> int:
    """The lobby screen, then the table screen, until the table ends or the person leaves.

    Exit status: 0 when the table is over or the person left it, 130 when the person
    interrupted it (Ctrl-C), 1 when it failed.
    """
    with screen_logging(table.data_dir, on_refused=table.refused):
        return asyncio.run(run_lan_async(table, lan_screens(table, input=input, output=output)))


def play_lan(
    registry: GameRegistry,
    plan: HostPlan | JoinPlan | ResumePlan,
    *,
    me: Identity,
    lang: str,
    data_dir: Path | None,
    speed: float = 0.8,
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    """``p2pcards play --host`` / ``--join`` (or ``resume``): the person at a LAN table on the full screen."""
    if data_dir is None:
        from p2pcards.identity import data_dir as default_data_dir

        data_dir = default_data_dir()
    table = LanTable(registry, plan, me=me, text=Text(lang), data_dir=data_dir, speed=speed)
    return run_lan_table(table, input=input, output=output)
