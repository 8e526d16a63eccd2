"""The start screen (``p2pcards`` alone): layout, keys, the live LAN list, and the loop
that opens the chosen table.

The LAN list is fed by :mod:`p2pcards.discovery` (DNS-SD over multicast DNS) in a trio task
running as a guest of the screen's asyncio loop, as the table screen does
(:func:`p2pcards.tui.app.run_with_trio`).  Playing against the computer, hosting a LAN table
with the person at it, joining one (from the list or by address) or taking up a saved
table again opens the table screen (:mod:`p2pcards.tui.lan` for the LAN) and comes back
here when it ends; a past game chosen from "Past games" is replayed
(:mod:`p2pcards.tui.replay`, read-only) and the list comes back afterwards.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING

import trio
from prompt_toolkit.application import Application, get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from p2pcards.core import GameRegistry
from p2pcards.identity import Identity
from p2pcards.net.handshake import SeatSpec
from p2pcards.tui.app import INTERRUPTED, play_local, run_with_trio
from p2pcards.tui.lan import HostPlan, JoinPlan, ResumePlan, hosting_announcer, net_failure, play_lan
from p2pcards.tui.logfile import screen_logging
from p2pcards.tui.start_model import MENU, MENU_KEYS, LanEntry, SavedEntry, StartChoice, StartModel
from p2pcards.tui.start_views import VIEWS, Body
from p2pcards.words import Text

if TYPE_CHECKING:
    from p2pcards.discovery.base import Discovery
    from p2pcards.discovery.record import OpenTable, TableEvent
    from p2pcards.net.store import Manifest

__all__ = ["build_start_app", "run_start_screen", "saved_tables", "start_fragments", "lan_entry"]

log = logging.getLogger("p2pcards.tui")

OpenDiscovery = Callable[[], AbstractAsyncContextManager["Discovery"]]
#: Why a table seen on the LAN cannot be joined, in the screen's words (None: it can).
Judge = Callable[["OpenTable"], str | None]

START_STYLE = Style([
    ("title", "bg:#1f3b2d #ffffff bold"),
    ("body", ""),
    ("item", ""),
    ("item.cursor", "bg:#ffd75f #000000 bold"),
    ("value", "#5fafff bold"),
    ("help", "#8a8a8a italic"),
    ("error", "#ff5f5f bold"),
    ("placeholder", "#ffd75f italic"),
    ("keys", "bg:#444444 #ffffff"),
])


def lan_entry(table: OpenTable, reason: str | None) -> LanEntry:
    """A discovery :class:`~p2pcards.discovery.record.OpenTable` as the start screen lists it."""
    from p2pcards.discovery import order_addresses

    ann = table.announcement
    addresses = order_addresses(list(table.addresses))
    return LanEntry(
        service=table.service,
        name=table.name,
        game=ann.game if ann else "?",
        host=ann.host_name if ann else "?",
        address=addresses[0] if addresses else "",
        port=table.port,
        free=ann.seats_free if ann else 0,
        reason=reason,
        fingerprint=ann.host_fingerprint if ann else None,
    )


def start_fragments(model: StartModel, rows: int | None = None, columns: int | None = None) -> StyleAndTextTuples:
    """The body of the start screen for the current view (on a screen of ``rows`` by
    ``columns``, when known: the past games and the statistics show a page of what fits)."""
    if rows is not None and columns is not None:
        model.fit(rows, columns)
    body = Body()
    view = VIEWS.get(model.view)
    if view is not None:
        view(model, body)
    if model.error:
        body.line("", "")
        body.line("class:error", f"  {model.error}")
    return body.out


def create_start_key_bindings(model: StartModel) -> KeyBindings:
    """Keys of the start screen: arrows, Enter, Esc, q, digits in the menu, typing an address."""
    kb = KeyBindings()
    typing = Condition(lambda: model.typing)

    @kb.add("<any>", filter=typing)
    def _type(event: KeyPressEvent) -> None:
        model.type(event.data)

    for key, action in (("up", model.up), ("down", model.down), ("left", model.left), ("right", model.right),
                        ("enter", model.enter), ("backspace", model.backspace), ("q", model.quit),
                        ("pageup", model.page_up), ("pagedown", model.page_down)):
        kb.add(key)(lambda event, action=action: action())

    @kb.add("escape", eager=True)
    def _back(event: KeyPressEvent) -> None:
        model.back()

    @kb.add("c-c")
    def _quit(event: KeyPressEvent) -> None:
        model.interrupt()

    @kb.add("x", filter=Condition(lambda: model.view == "saved"))
    def _throw(event: KeyPressEvent) -> None:
        model.throw_away()

    for item, digit in MENU_KEYS.items():
        @kb.add(digit, filter=Condition(lambda: model.view == "menu"))
        def _digit(event: KeyPressEvent, at: int = MENU.index(item)) -> None:
            model.cursor = at
            model.enter()

    return kb


def _size() -> tuple[int, int]:
    """The running screen's rows and columns."""
    size = get_app().output.get_size()
    return size.rows, size.columns


def build_start_app(model: StartModel, *, input: Input | None = None,
                    output: Output | None = None) -> Application[StartChoice | None]:
    """The start screen application; its result is the person's :class:`StartChoice` (None: quit)."""
    t = model.text
    def title_line() -> StyleAndTextTuples:
        said = t("start_title_you", title=t("start_title"), name=model.name) if model.name else t("start_title")
        return [("class:title", f" {said} ")]

    title = Window(FormattedTextControl(title_line), height=1, style="class:title")
    body = Window(FormattedTextControl(lambda: start_fragments(model, *_size())), style="class:body")
    def keys_line() -> StyleAndTextTuples:
        said = {"play": "start_keys_form", "host": "start_keys_host"}.get(model.view, "start_keys")
        return [("class:keys", f" {t(said)} ")]

    keys = Window(FormattedTextControl(keys_line), height=1, style="class:keys")
    app: Application[StartChoice | None] = Application(
        layout=Layout(HSplit([title, Window(height=1), body, keys])),
        key_bindings=create_start_key_bindings(model),
        style=START_STYLE,
        full_screen=True,
        mouse_support=True,
        input=input,
        output=output,
    )

    def leave(choice: StartChoice | None) -> None:
        if app.future is not None and not app.future.done():
            app.exit(result=choice)

    model.on_exit = leave
    model.listeners.append(app.invalidate)
    return app


class _Browser:
    """The trio task that keeps the LAN list live (a guest of the screen's loop)."""

    def __init__(self, model: StartModel, open_disco: OpenDiscovery | None, judge: Judge):
        self.model = model
        self.open_disco = open_disco
        self.judge = judge
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None

    async def run(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        if self.open_disco is None:
            return
        from p2pcards.discovery import DiscoveryError, watch_tables

        with trio.CancelScope() as scope:
            self._scope = scope
            try:
                async with self.open_disco() as disco:
                    await watch_tables(disco, None, self._seen)
            except DiscoveryError as exc:
                self.model.discovery_failed(str(exc))
            except Exception as exc:  # noqa: BLE001 -- the list is a convenience; the screen goes on
                log.exception("LAN discovery failed")
                self.model.discovery_failed(f"{type(exc).__name__}: {exc}")

    def failed(self, exc: BaseException) -> None:
        """Trio itself ended with an error: the list says so; the screen goes on."""
        self.model.discovery_failed(f"{type(exc).__name__}: {exc}")

    def _seen(self, event: TableEvent) -> None:
        self.model.table_seen(event.kind, lan_entry(event.table, self.judge(event.table)))

    def cancel(self) -> None:
        if self._token is None or self._scope is None:
            return
        try:
            self._token.run_sync_soon(self._scope.cancel)
        except trio.RunFinishedError:
            pass


def _discovery() -> tuple[OpenDiscovery | None, Callable[[GameRegistry, Text], Judge]]:
    """``open_discovery`` and a judge of joinability (why a table cannot be joined, in the
    screen's language), or (None, ...) when discovery is absent."""
    try:
        from p2pcards.discovery import joinable_problem, open_discovery
        from p2pcards.net import PROTO
    except ImportError:
        return None, lambda registry, text: (lambda table: None)

    def judge(registry: GameRegistry, text: Text) -> Judge:
        def why(table: OpenTable) -> str | None:
            problem = joinable_problem(table, registry.games, PROTO)
            return None if problem is None else text(f"lan_why_{problem[0]}", **problem[1])

        return why

    return open_discovery, judge


def saved_tables(data_dir: Path | None, me: Identity) -> list[SavedEntry]:
    """The tables of ``me`` saved under ``data_dir``, unfinished ones first, the most
    recently played first within each (as ``p2pcards resume --list`` finds them), but for
    the tables against the computer the person threw away; each with when it was last
    played, who else sat at it and the score so far (from the history, when it has the
    match)."""
    if data_dir is None:
        return []
    from p2pcards.net import unfinished_tables
    from p2pcards.net.store import PERSON

    scores = _scores(data_dir)
    out = []
    for found in unfinished_tables(data_dir, me, ended=True):
        m = found.manifest
        if m.role == "local" and m.ended == "abandoned":
            continue  # thrown away
        where = f"{m.dial[0]}:{m.dial[1]}" if m.role == "join" and m.dial else (
            str(m.listen[1]) if m.listen else "")  # a port alone: the screen says "port N" in its language
        try:
            played = max(p.stat().st_mtime for p in found.path.parent.iterdir())
        except (OSError, ValueError):
            played = 0.0
        totals, deals = scores.get(m.table_hex, ((), 0))
        entry = SavedEntry(m.table_hex, m.game, m.role, where, found.state, found.path,
                           any(p.level == PERSON for p in m.peers), played, _others(found.path, m), totals, deals)
        out.append((entry.state != "unfinished", -played, entry))
    return [e for *_, e in sorted(out, key=lambda x: (x[0], x[1], x[2].table))]


def _scores(data_dir: Path) -> dict[str, tuple[tuple[int, ...], int]]:
    """Each recorded match's totals and deals, by table id (none when there is no history)."""
    from p2pcards.history import HistoryError
    from p2pcards.history.db import History, db_path

    if not db_path(data_dir).is_file():
        return {}
    try:
        with History(db_path(data_dir)) as history:
            return {m["table_id"]: (tuple(m["totals"]), int(m["deals"])) for m in history.matches()}
    except (HistoryError, OSError):
        return {}


def _others(path: Path, manifest: Manifest) -> tuple[str, ...]:
    """The names of the other seats (all but the person's own; at a table with no person's
    seat, all but this process's), from the table's genesis (the first message of one of
    its logs); () when it cannot be read."""
    from p2pcards.identity import told_apart
    from p2pcards.net.store import PERSON, read_log
    from p2pcards.table.transcript import Genesis, parse_message

    own = {p.seat for p in manifest.peers if p.level == PERSON} or set(manifest.seats)
    for peer in manifest.peers:
        try:
            messages, _ = read_log(path.parent / f"{peer.stem}.log")
            genesis = Genesis.from_body(parse_message(messages[0], None).body)
        except Exception:  # noqa: BLE001 -- a label of the list: left out when unreadable
            continue
        names = told_apart([(s.name, s.fingerprint) for s in genesis.seats])
        return tuple(name for seat, name in enumerate(names) if seat not in own)
    return ()


def _joined_before(data_dir: Path | None, me: Identity, host: str, port: int) -> Path | None:
    """The manifest of this identity's unfinished table joined at ``host:port``, if any:
    joining there again takes that seat up again."""
    from p2pcards.net.resume import joined_before

    found = joined_before(data_dir, me, address=(host, port)) if data_dir is not None else None
    return found.path if found is not None else None


def _resume_chosen(registry: GameRegistry, choice: StartChoice, *, me: Identity, lang: str, speed: float,
                   data_dir: Path | None, input: Input | None, output: Output | None) -> tuple[str, int]:
    """Take up the saved table ``choice.path`` on the screen; returns a message for the
    start screen when it cannot be ('' otherwise) and the table's exit status."""
    from p2pcards.net import ResumeError
    from p2pcards.net.store import StoreError, load_manifest
    from p2pcards.tui.app import run_local_table
    from p2pcards.tui.runtime import LocalTable

    assert choice.path is not None
    text = Text(lang)
    try:
        if load_manifest(choice.path).role == "local":
            table = LocalTable.resume(choice.path, registry, me=me, text=text)  # at the pace it was played at
            return "", run_local_table(table, input=input, output=output)
        return "", play_lan(registry, ResumePlan(choice.path), me=me, lang=lang, speed=speed, data_dir=data_dir,
                            input=input, output=output)
    except ResumeError as exc:
        return text("saved_failed", error=net_failure(exc, text)), 1
    except StoreError as exc:
        return text("saved_failed", error=str(exc)), 1


def _throw_away_chosen(choice: StartChoice, text: Text) -> str:
    """Throw away the table against the computer ``choice.path`` (:func:`throw_away`);
    what "Your tables" then says."""
    from p2pcards.net.store import StoreError
    from p2pcards.tui.runtime import throw_away

    assert choice.path is not None
    try:
        manifest = throw_away(choice.path)
    except StoreError as exc:
        return text("saved_failed", error=str(exc))
    return text("saved_thrown", table=manifest.table_hex[:8])


def _replay_chosen(registry: GameRegistry, choice: StartChoice, *, lang: str, input: Input | None,
                   output: Output | None) -> tuple[str, int]:
    """Replay the past game whose transcript is ``choice.path`` (read-only); returns a
    message for the start screen when it cannot be ('' otherwise) and the replay's exit
    status."""
    from p2pcards.history import HistoryError
    from p2pcards.tui.replay import run_replay  # here: a screen of its own, loaded when used

    assert choice.path is not None
    try:
        return "", run_replay(choice.path, lang=lang, registry=registry, input=input, output=output)
    except HistoryError as exc:
        return Text(lang)("past_failed", error=str(exc)), 1


def _start_model(registry: GameRegistry, text: Text, me: Identity, data_dir: Path | None, *, discovery: bool,
                 on_name: Callable[[str], None]) -> StartModel:
    """A fresh start screen for ``me``: its games, the saved tables and past games of ``data_dir``
    (``discovery``: whether it lists the LAN's tables; ``on_name`` keeps a name typed in)."""
    model = StartModel(list(registry.games.values()), text, discovery=discovery, name=me.name, ask_name=not me.named)
    model.on_name = on_name
    model.saved = saved_tables(data_dir, me)
    model.history_from(data_dir)
    return model


def _new_table_chosen(registry: GameRegistry, choice: StartChoice, *, me: Identity, lang: str, speed: float,
                      data_dir: Path | None, input: Input | None, output: Output | None) -> int:
    """Play against the computer (``choice.kind`` ``play``) or host a LAN table with the
    person at it (``host``), as the form said; the table's exit status."""
    spec = registry.get(choice.game)
    options = spec.resolve_options({k: str(v) for k, v in choice.options.items()})
    if choice.kind == "play":
        return play_local(spec, options, me=me, lang=lang, bots=choice.level, speed=speed, data_dir=data_dir,
                          input=input, output=output)
    seats = [SeatSpec("me")] + [SeatSpec("remote")] * choice.remote
    seats += [SeatSpec("bot", choice.level)] * (spec.seats - len(seats))
    plan = HostPlan(spec, options, seats, announce=hosting_announcer(spec, options, seats, me), hints=choice.hints)
    return play_lan(registry, plan, me=me, lang=lang, speed=speed, data_dir=data_dir, input=input, output=output)


def _join_chosen(registry: GameRegistry, choice: StartChoice, *, me: Identity, lang: str, speed: float,
                 data_dir: Path | None, input: Input | None, output: Output | None) -> tuple[str, int]:
    """Join the table at ``choice``'s address -- or, when this identity's unfinished seat
    there is saved, take it up again (:func:`_resume_chosen`); a message for the start
    screen ('' for none) and the table's exit status."""
    back = _joined_before(data_dir, me, choice.host, choice.port)
    if back:
        return _resume_chosen(registry, StartChoice("resume", path=back), me=me, lang=lang, speed=speed,
                              data_dir=data_dir, input=input, output=output)
    join = JoinPlan(choice.host, choice.port, expect_host=choice.fingerprint)
    return "", play_lan(registry, join, me=me, lang=lang, speed=speed, data_dir=data_dir, input=input, output=output)


def _keep_name(named: list[Identity], me: Identity, rename: Callable[[str], Identity] | None, name: str) -> None:
    """The name typed on the start screen: kept (``rename``), the identity with it in ``named``."""
    named.append(rename(name) if rename is not None else Identity(me.signing_key, me.sealing_key, name, True))


def run_start_screen(
    registry: GameRegistry,
    *,
    me: Identity,
    lang: str,
    data_dir: Path | None,
    input: Input | None = None,
    output: Output | None = None,
    open_disco: OpenDiscovery | None = None,
    lan: bool = True,
    speed: float = 0.8,
    open_web: Callable[[], int] | None = None,
    rename: Callable[[str], Identity] | None = None,
) -> int:
    """The start screen; plays the tables chosen from it and comes back, until quit.

    ``open_disco`` opens LAN discovery (default: multicast DNS when
:mod:`p2pcards.discovery` is installed); ``lan=False`` lists no tables.  ``open_web``
    runs the browser table (``p2pcards web``) when the person chooses it, until the person
    quits it there; the start screen then comes back.  ``rename``
    keeps the name the person types when ``me``'s was never chosen (the first view asks
    it) and returns the identity with it; None: the name is used for this run only.

    Exit status: 0 when the person quits; 130 when the person interrupts (Ctrl-C) the start
    screen or a table opened from it (the table's own status, which says whether a table
    was left to take up again).
    """
    text = Text(lang)
    default_open, make_judge = _discovery()
    opener = (open_disco if open_disco is not None else default_open) if lan else None
    judge = make_judge(registry, text)
    pending = ""
    past_at: int | None = None  # back from a replay: the past games again, at that row
    saved_again: str | None = None  # back from throwing a table away: "Your tables", saying so
    while True:
        named: list[Identity] = []
        model = _start_model(registry, text, me, data_dir, discovery=opener is not None,
                             on_name=functools.partial(_keep_name, named, me, rename))
        if pending:
            model.show(pending)
            pending = ""
        elif past_at is not None:
            model.reopen_past(past_at)
        elif saved_again is not None:
            model.reopen_saved(saved_again)
        past_at = saved_again = None
        app = build_start_app(model, input=input, output=output)
        browser = _Browser(model, opener, judge)
        with screen_logging(data_dir):
            choice = asyncio.run(run_with_trio(app, browser.run, browser.cancel, browser.failed))
        if named:
            me = named[-1]
        if choice is None:
            return INTERRUPTED if model.interrupted else 0
        status = 0
        if choice.kind in ("play", "host"):
            status = _new_table_chosen(registry, choice, me=me, lang=lang, speed=speed, data_dir=data_dir,
                                       input=input, output=output)
        elif choice.kind == "join":
            pending, status = _join_chosen(registry, choice, me=me, lang=lang, speed=speed, data_dir=data_dir,
                                           input=input, output=output)
        elif choice.kind == "resume":
            pending, status = _resume_chosen(registry, choice, me=me, lang=lang, speed=speed, data_dir=data_dir,
                                             input=input, output=output)
        elif choice.kind == "replay":
            pending, status = _replay_chosen(registry, choice, lang=lang, input=input, output=output)
            past_at = model.past_cursor
        elif choice.kind == "web":
            if open_web is None:
                pending = text("start_web_none")
            else:  # Ctrl-C in the browser table's terminal stops the command, as at a table
                status = open_web()
        elif choice.kind == "abandon":
            saved_again = _throw_away_chosen(choice, text)
        if status == INTERRUPTED:  # Ctrl-C at a table: the command stops, as everywhere
            return status
