"""The person's own peer with a page: the screens of ``p2pcards`` (the start page, a LAN
table's lobby, the table, a replay) run in trio, and one page shows them.

:class:`WebPeer` is the start screen's loop (:func:`p2pcards.tui.start.run_start_screen`)
with a page instead of a terminal: it waits for the person's choice on the start page,
opens that table -- against the computer (:class:`~p2pcards.tui.runtime.LocalTable`), on
the LAN (:class:`~p2pcards.tui.lan.LanTable`: host, join, resume) or a replay
(:class:`~p2pcards.tui.replay.ReplayModel`) -- and comes back to the start page when the
person leaves it.  The tables are the terminal's own, with the same view models; only the
drawing differs (:mod:`p2pcards.web.views`) and the keys come from the page
(:mod:`p2pcards.web.actions`).  Everything runs in one trio run, the HTTP server's tasks
included, so a page's message is a plain call on a model.

**One peer, one page.**  A second page that connects takes over: the first is told so and
closed.  A page that goes away (its tab closed) for longer than :data:`GRACE` seconds (a
reload comes back sooner) leaves the seat as ``q`` does: the table's transcript is kept,
and the next page that connects takes the seat up again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import trio

from p2pcards.core import GameRegistry
from p2pcards.identity import Identity
from p2pcards.tui.lan import HostPlan, JoinPlan, LanTable, ResumePlan, hosting_announcer, net_failure
from p2pcards.tui.model import TableModel
from p2pcards.tui.runtime import FINISH_GRACE, LocalTable, ScreenTable
from p2pcards.tui.start_model import StartChoice, StartModel
from p2pcards.web.actions import replay_action, start_action, table_action
from p2pcards.web.pages import PAGE_WORDS, replay_view, stats_data
from p2pcards.web.views import lobby_view, start_view, table_view, words
from p2pcards.words import Text

__all__ = ["GRACE", "Page", "WebPeer"]

log = logging.getLogger("p2pcards.web")

#: Seconds a page may be gone (a reload) before its seat is left as ``q`` leaves it.
GRACE: Final = 3.0

OpenDiscovery = Callable[[], AbstractAsyncContextManager[Any]]
Plan = StartChoice | HostPlan | JoinPlan | ResumePlan


@dataclass
class Page:
    """A page connected to the peer: its socket, what wakes its sender, and the language
    its words were last sent in."""

    socket: Any
    wake: trio.Event = field(default_factory=trio.Event)
    taken: bool = False
    stopped: bool = False
    lang: str | None = None


class WebPeer:
    """The person's peer and its page (module docstring).

    ``first`` is what to open before the start page (``p2pcards play --web``); ``seed`` and
    ``deals`` apply to the tables against the computer it opens; ``open_disco`` opens LAN
    discovery for the live list (None: no list); ``announce``: whether a table hosted from
    the page is announced on the LAN.
    """

    def __init__(self, registry: GameRegistry, *, me: Identity, lang: str, data_dir: Path, speed: float = 0.8,
                 open_disco: OpenDiscovery | None = None, announce: bool = True, grace: float = GRACE,
                 first: Plan | None = None, seed: int | None = None, deals: int | None = None) -> None:
        self.registry = registry
        self.me = me
        self.text = Text(lang)
        self.data_dir = data_dir
        self.speed = speed
        self.open_disco = open_disco
        self.announce = announce
        self.grace = grace
        self.first = first
        self.seed = "" if seed is None else str(seed)
        self.deals = deals
        #: start, lobby, table or replay
        self.screen = "start"
        self.start = self._start_model()
        self.table: ScreenTable | None = None
        self.model: TableModel | None = None
        self.notice = ""
        #: why the name the page sent cannot be one ("": none sent, or it was kept)
        self.name_error = ""
        #: a table left because its page went away: the next page takes it up again
        self.resume_path: Path | None = None
        self.page: Page | None = None
        self.version = 0
        self.done = trio.Event()
        self._choice: StartChoice | None = None
        self._chosen = trio.Event()
        self._left = trio.Event()
        self._left_by_close = False
        self._tasks: trio.Nursery | None = None
        self._grace: trio.CancelScope | None = None
        self._stats: dict[str, Any] | None = None
        #: told what happens, as ``web --json`` prints it (a table opened, a table left)
        self.report: Callable[[dict[str, Any]], None] = lambda obj: None

    # ------------------------------------------------------------------ what the page sees
    def changed(self) -> None:
        """Something on the screen changed: the page is sent the new view."""
        self.version += 1
        if self.page is not None:
            self.page.wake.set()

    def view(self) -> dict[str, Any]:
        if self.screen == "lobby" and isinstance(self.table, LanTable):
            lobby = self.table.lobby
            out = lobby_view(lobby.lines.values(), lobby.status, lobby.error, self.text)
        elif self.screen == "replay" and self.model is not None:
            out = replay_view(self.model)
        elif self.screen == "table" and self.model is not None:
            out = table_view(self.model)
        else:
            out = start_view(self.start, notice=self.notice, seed=self.seed)
            if self.start.view == "stats":
                out["stats_data"] = self._stats
            # a name never chosen is asked on the start page, once (as the terminal asks it)
            out["me"] = {"name": self.me.name, "ask": not self.me.named, "error": self.name_error}
        out["lang"] = self.text.lang
        out["version"] = self.version
        return out

    # ------------------------------------------------------------------ a page
    async def serve_page(self, socket: Any) -> None:
        """A page connected (its WebSocket accepted): it takes over from any other, and is
        sent every view until it goes."""
        page = Page(socket)
        old, self.page = self.page, page
        if old is not None:
            old.taken = True
            old.wake.set()
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
        if self.resume_path is not None and self.screen == "start" and not self._chosen.is_set():
            path, self.resume_path = self.resume_path, None
            self._choose(StartChoice("resume", path=path))
        try:
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._send, page, nursery.cancel_scope)
                await self._receive(page)
                nursery.cancel_scope.cancel()
        finally:
            if self.page is page:
                self.page = None
                self._start_grace()

    async def _receive(self, page: Page) -> None:
        from starlette.websockets import WebSocketDisconnect

        while not page.taken:
            try:
                raw = await page.socket.receive_text()
            except (WebSocketDisconnect, RuntimeError, KeyError):
                return
            try:
                msg = json.loads(raw)
            except ValueError:
                continue
            if isinstance(msg, dict) and not page.taken:
                try:
                    self.act(msg)
                except Exception:  # noqa: BLE001 -- a page's message never takes the peer down
                    log.exception("the page's message %r failed", msg)
                self.changed()

    async def _send(self, page: Page, scope: trio.CancelScope) -> None:
        sent = -1
        try:
            while True:
                if page.taken or page.stopped:
                    what = "taken" if page.taken else "stopped"
                    await page.socket.send_text(json.dumps({"t": what, "words": self._words()}))
                    await page.socket.close(4001 if page.taken else 1000)
                    scope.cancel()
                    return
                if page.lang != self.text.lang:
                    page.lang = self.text.lang
                    await page.socket.send_text(json.dumps({"t": "words", "words": self._words()}))
                if sent != self.version:
                    sent = self.version
                    await page.socket.send_text(json.dumps({"t": "view", "view": self.view()}))
                await page.wake.wait()
                page.wake = trio.Event()
        except Exception:  # noqa: BLE001 -- a page that went away mid-send: its receiver ends too
            log.debug("a page went away", exc_info=True)
            scope.cancel()

    def _words(self) -> dict[str, str]:
        return words(self.text, PAGE_WORDS)

    def _start_grace(self) -> None:
        if self._tasks is None or self.screen == "start":
            return
        scope = self._grace = trio.CancelScope()

        async def wait() -> None:
            with scope:
                await trio.sleep(self.grace)
                if self.page is None:
                    self._page_gone()

        try:
            self._tasks.start_soon(wait)
        except RuntimeError:
            pass

    def _page_gone(self) -> None:
        """The page stayed away: leave the table (or the lobby, or the replay) as ``q`` does."""
        if self.screen in ("table", "lobby", "replay"):
            self._left_by_close = True
            self._left.set()

    def refused(self, seat: int, blame: int | None) -> None:
        """A replica of this process refused a message (blaming ``blame``): the person's says so."""
        if self.table is not None:
            self.table.refused(seat, blame)

    def stop(self) -> None:
        """The peer is stopping: the page is told so."""
        if self.page is not None:
            self.page.stopped = True
            self.page.wake.set()

    # ------------------------------------------------------------------ from the page
    def act(self, msg: dict[str, Any]) -> None:
        a = msg.get("a")
        if a == "lang" and msg.get("lang") in ("en", "pt"):
            self._language(msg["lang"])
        elif self.screen == "start" and a == "name":
            self._name(msg.get("name"))
        elif self.screen == "start":
            self.notice = ""
            self.seed = start_action(self.start, msg, self.seed)
        elif self.screen == "lobby" and isinstance(self.table, LanTable):
            if a in ("leave", "lobby_leave"):
                self.table.lobby.leave()
            elif a in ("ok", "continue"):
                self.table.lobby.key()
        elif self.screen == "replay" and self.model is not None:
            from p2pcards.tui.replay import ReplayModel

            if isinstance(self.model, ReplayModel):
                replay_action(self.model, msg)
        elif self.screen == "table" and self.model is not None:
            table_action(self.model, msg)

    def _name(self, name: Any) -> None:
        """The name the person chose on the start page, kept in the identity (marked as
        chosen: not asked again); empty keeps the one suggested, as Enter does on the terminal."""
        from p2pcards.identity import MAX_NAME, check_name, load_or_create

        chosen = (name if isinstance(name, str) else "").strip() or self.me.name
        if check_name(chosen) is not None:
            self.name_error = self.text("web_name_bad", n=MAX_NAME)
            return
        self.name_error = ""
        self.me = load_or_create(self.data_dir, chosen)

    def _language(self, lang: str) -> None:
        self.text = text = Text(lang)
        self.start.text = text
        if self.model is not None:
            self.model.text = text
        if isinstance(self.table, LanTable):
            self.table.text = text
            self.table.lobby.text = text
        if self.start.view == "stats":
            self.start.stats = self.start.stats_source()

    # ------------------------------------------------------------------ the screens in turn
    def _start_model(self) -> StartModel:
        from p2pcards.tui.start import saved_tables

        model = StartModel(list(self.registry.games.values()), self.text, discovery=self.open_disco is not None)
        model.saved = saved_tables(self.data_dir, self.me)
        model.history_from(self.data_dir)
        lines = model.stats_source

        def stats() -> list[str]:
            self._stats = stats_data(self.data_dir, self.registry, self.text)
            return lines()

        model.stats_source = stats
        model.page = 10_000  # a page shows every row; it scrolls by itself
        model.on_exit = self._choose
        model.listeners.append(self.changed)
        return model

    def _choose(self, choice: StartChoice | None) -> None:
        if not self._chosen.is_set():
            self._choice = choice
            self._chosen.set()

    async def run(self) -> None:
        """The start page and the tables chosen from it, until the person quits."""
        async with trio.open_nursery() as tasks:
            self._tasks = tasks
            plan = self.first
            while True:
                past_at = None
                if plan is not None:
                    await self._open(plan)
                    if isinstance(plan, StartChoice) and plan.kind == "replay" and not self.notice:
                        past_at = self.start.past_cursor
                self.screen = "start"
                self.model = self.table = None
                self.start = self._start_model()
                if past_at is not None:  # back from a replay: the past games again, at that row
                    self.start.reopen_past(past_at)
                self.changed()
                plan = await self._start_page()
                if plan is None:
                    break
            tasks.cancel_scope.cancel()
        self.done.set()
        self.report({"type": "stopped"})
        self.stop()

    async def _start_page(self) -> StartChoice | None:
        self._chosen = trio.Event()
        if self.resume_path is not None and self.page is not None:
            path, self.resume_path = self.resume_path, None
            return StartChoice("resume", path=path)
        async with trio.open_nursery() as nursery:
            if self.open_disco is not None:
                nursery.start_soon(self._watch_lan, self.start)
            await self._chosen.wait()
            nursery.cancel_scope.cancel()
        return self._choice

    async def _watch_lan(self, model: StartModel) -> None:
        """Keep the start page's list of LAN tables live."""
        from p2pcards.discovery import DiscoveryError, joinable_problem, watch_tables
        from p2pcards.net import PROTO
        from p2pcards.tui.start import lan_entry

        def seen(event: Any) -> None:
            problem = joinable_problem(event.table, self.registry.games, PROTO)
            why = None if problem is None else self.text(f"lan_why_{problem[0]}", **problem[1])
            model.table_seen(event.kind, lan_entry(event.table, why))

        assert self.open_disco is not None
        try:
            async with self.open_disco() as disco:
                await watch_tables(disco, None, seen)
        except DiscoveryError as exc:
            model.discovery_failed(str(exc))
        except Exception as exc:  # noqa: BLE001 -- the list is a convenience; the page goes on
            log.exception("LAN discovery failed")
            model.discovery_failed(f"{type(exc).__name__}: {exc}")

    async def _open(self, plan: Plan) -> None:
        """Open what the person chose; a choice that cannot be opened is said on the start page."""
        from p2pcards.history import HistoryError
        from p2pcards.net import ResumeError
        from p2pcards.net.store import StoreError

        t = self.text
        self.notice = ""
        try:
            await self._open_plan(plan)
        except ResumeError as exc:
            self.notice = t("saved_failed", error=net_failure(exc, t))
        except StoreError as exc:
            self.notice = t("saved_failed", error=str(exc))
        except HistoryError as exc:
            self.notice = t("past_failed", error=str(exc))

    async def _open_plan(self, plan: Plan) -> None:
        from p2pcards.net.handshake import SeatSpec
        from p2pcards.net.resume import joined_before
        from p2pcards.net.store import load_manifest

        if isinstance(plan, (HostPlan, JoinPlan, ResumePlan)):
            await self._run_lan(LanTable(self.registry, plan, me=self.me, text=self.text, data_dir=self.data_dir,
                                         speed=self.speed))
            return
        kind = plan.kind
        if kind in ("play", "host"):
            spec = self.registry.get(plan.game)
            options = spec.resolve_options({k: str(v) for k, v in plan.options.items()})
            if kind == "play":
                seed = int(self.seed) if self.seed.isdigit() else None
                table = LocalTable(spec, options, me=self.me, text=self.text, bots=plan.level, seed=seed,
                                   deals=self.deals, speed=self.speed, data_dir=self.data_dir)
                await self._run_local(table)
                return
            seats = [SeatSpec("me")] + [SeatSpec("remote")] * plan.remote
            seats += [SeatSpec("bot", plan.level)] * (spec.seats - len(seats))
            announce = hosting_announcer(spec, options, seats, self.me) if self.announce else None
            await self._open_plan(HostPlan(spec, options, seats, announce=announce, hints=plan.hints))
        elif kind == "join":
            back = joined_before(self.data_dir, self.me, address=(plan.host, plan.port))
            await self._open_plan(ResumePlan(back.path) if back is not None
                                  else JoinPlan(plan.host, plan.port, expect_host=plan.fingerprint))
        elif kind == "resume" and plan.path is not None:
            if load_manifest(plan.path).role == "local":
                await self._run_local(LocalTable.resume(plan.path, self.registry, me=self.me, text=self.text,
                                                        speed=self.speed))
            else:
                await self._open_plan(ResumePlan(plan.path))
        elif kind == "replay" and plan.path is not None:
            await self._replay(plan.path)

    def _show(self, model: TableModel, screen: str) -> None:
        self.model = model
        self.screen = screen
        model.listeners.append(self.changed)
        self.changed()

    async def _until_left(self, table: LocalTable | LanTable) -> None:
        """Run ``table`` until the person leaves it (or the page goes away), then stop it."""
        self._left = left = trio.Event()
        self._left_by_close = False
        ran = trio.Event()

        async def run() -> None:
            try:
                await table.run()
            finally:
                ran.set()
                self.changed()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(run)
            await left.wait()
            table.cancel()
            with trio.move_on_after(FINISH_GRACE + 2):
                await ran.wait()
            nursery.cancel_scope.cancel()
        if table.outcome == "left" and self.model is not None:
            path = self._manifest(table)
            resumable = path is not None and path.is_file()
            if resumable:
                self.notice = self.text("web_left")
                if self._left_by_close:
                    self.resume_path = path
            self.report({"type": "left", "table": self._table_hex(table), "closed": self._left_by_close,
                         "resumable": resumable})

    @staticmethod
    def _table_hex(table: LocalTable | LanTable) -> str | None:
        tid = table.table_id
        return tid.hex() if isinstance(tid, bytes) else tid

    def _opened(self, table: LocalTable | LanTable, model: TableModel) -> None:
        """The table screen of ``table`` is shown."""
        self._show(model, "table")
        self.report({"type": "table", "table": self._table_hex(table), "game": model.game.name, "seat": model.me})

    def _manifest(self, table: ScreenTable) -> Path | None:
        """The manifest that takes ``table`` up again (None: it keeps none)."""
        from p2pcards.net.store import manifest_path

        if isinstance(table, LocalTable):
            return manifest_path(self.data_dir, table.table_id, "local") if table.manifest is not None else None
        if isinstance(table, LanTable) and table.table_id is not None:
            if isinstance(table.plan, ResumePlan):
                return table.plan.path
            role = "host" if isinstance(table.plan, HostPlan) else "join"
            return manifest_path(self.data_dir, bytes.fromhex(table.table_id), role)
        return None

    async def _run_local(self, table: LocalTable) -> None:
        self.table = table
        self._opened(table, table.model)
        table.model.on_exit = lambda: self._left.set()
        await self._until_left(table)

    async def _run_lan(self, table: LanTable) -> None:
        self.table = table
        self.model = None
        self.screen = "lobby"
        lobby = table.lobby
        lobby.listeners.append(self.changed)

        def lobby_over(result: str | None) -> None:
            if result == "table" and table.model is not None:
                self._opened(table, table.model)
                table.model.on_exit = lambda: self._left.set()
            else:
                self._left.set()

        lobby.on_exit = lobby_over
        self.changed()
        await self._until_left(table)

    async def _replay(self, path: Path) -> None:
        from p2pcards.history.replay import follow_log
        from p2pcards.tui.replay import ReplayModel, seat_of_log

        match = await trio.to_thread.run_sync(follow_log, path, self.registry)
        seat = seat_of_log(path)
        model = ReplayModel(match, self.text, seat=seat if seat is not None else 0, here=self.me.fingerprint)
        self._left = left = trio.Event()
        model.on_exit = left.set
        self._show(model, "replay")
        await left.wait()
