"""The terminal table as a prompt-toolkit application, with trio running in guest mode.

prompt-toolkit runs on asyncio; the table's peers run on trio.  :func:`run_with_trio`
starts trio as a *guest* of the application's asyncio loop
(``trio.lowlevel.start_guest_run(..., run_sync_soon_threadsafe=loop.call_soon_threadsafe,
host_uses_signal_set_wakeup_fd=True)``): both run on one thread, trio's I/O waits happen
in a helper thread and its scheduler ticks are callbacks on the asyncio loop.  Trio tasks
update the view model and call ``app.invalidate()`` (through the model's listeners); key
handlers reach trio only through the trio token (:meth:`LocalTable.soon`).  When the
application exits, the table's cancel scope is cancelled and the loop waits for trio to
finish, so every peer closes its log before the process ends.

Tests pass ``input=create_pipe_input()`` and ``output=DummyOutput()`` (inside
``create_app_session``) and drive a whole deal by keys.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

import trio
from outcome import Error, Outcome
from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.output import Output

from p2pcards.core import GameSpec, Options
from p2pcards.identity import Identity
from p2pcards.players import TABLE_LEVEL
from p2pcards.tui.keys import create_key_bindings
from p2pcards.tui.layout import build_layout
from p2pcards.tui.logfile import screen_logging
from p2pcards.tui.model import TableModel
from p2pcards.tui.runtime import LocalTable
from p2pcards.tui.style import build_style
from p2pcards.words import Text

__all__ = ["build_app", "run_with_trio", "play_local", "run_local_table"]

#: What a screen run with trio ends with (its application's result).
_Result = TypeVar("_Result")


def build_app(model: TableModel, *, input: Input | None = None, output: Output | None = None,
              key_bindings: KeyBindings | None = None, mouse: bool = True) -> Application[None]:
    """The full-screen table application for ``model``; exits when the model asks to leave.
    ``key_bindings``: the keys (default: a table's, :func:`create_key_bindings`; a replay
    has its own); ``mouse``: whether clicks reach the model."""
    app: Application[None] = Application(
        layout=build_layout(model),
        key_bindings=key_bindings if key_bindings is not None else create_key_bindings(model),
        style=build_style(),
        full_screen=True,
        mouse_support=mouse,
        input=input,
        output=output,
    )

    def leave() -> None:
        if not app.future or app.future.done():
            return
        app.exit()

    model.on_exit = leave
    model.listeners.append(app.invalidate)
    return app


async def run_with_trio(
    app: Application[_Result] | Callable[[], Awaitable[_Result]],
    trio_main: Callable[[], Awaitable[object]],
    cancel: Callable[[], None],
    on_trio_error: Callable[[BaseException], None] | None = None,
) -> _Result:
    """Run ``app`` on this asyncio loop with ``trio_main`` as trio's guest; return the app's result.

    ``app`` is an application, or a coroutine function that runs one or more in turn (a
    LAN table: the lobby screen, then the table screen).  ``cancel()`` is called when it
    ends, and this coroutine then waits for trio to finish.  An exception escaping
    ``trio_main`` while the screens run goes to ``on_trio_error`` (the screen keeps
    running so that the person can read it).
    """
    loop = asyncio.get_running_loop()
    trio_done: asyncio.Future[BaseException | None] = loop.create_future()
    ui_done = False

    def done_callback(outcome: Outcome[object]) -> None:
        error = outcome.error if isinstance(outcome, Error) else None
        if error is not None and on_trio_error is not None and not ui_done:
            on_trio_error(error)
        if not trio_done.done():
            trio_done.set_result(error)

    trio.lowlevel.start_guest_run(
        trio_main,
        run_sync_soon_threadsafe=loop.call_soon_threadsafe,
        run_sync_soon_not_threadsafe=loop.call_soon,
        done_callback=done_callback,
        host_uses_signal_set_wakeup_fd=True,
    )
    try:
        return await (app.run_async() if isinstance(app, Application) else app())
    finally:
        ui_done = True
        cancel()
        await trio_done


class ExitStatus(int):
    """A table screen's exit status that also says whether the person left the table on
    purpose before its end, so that it can be taken up again (``left``; ``p2pcards`` then
    says how, with the table's id in ``table``), and why a table failed (``error``: the
    screen showed it; ``p2pcards`` prints it again once the screen is gone).  It is an
    ``int``: callers that only want the status use it as one.  ``ended``: a table played
    to its end says how (the match's final window, as lines), for ``p2pcards`` to print
    once the screen is gone."""

    left: bool = False
    table: str = ""
    error: str = ""
    ended: tuple[str, ...] = ()


#: The exit status of an interrupt (Ctrl-C), as a shell gives a process that SIGINT ended.
INTERRUPTED = 130


def exit_status(outcome: str, *, resumable: bool = True, interrupted: bool = False, error: str | None = None,
                table: str = "", ended: Sequence[str] = ()) -> ExitStatus:
    """The exit status for a table screen's ``outcome``, by the one rule of every way of
    playing (``p2pcards --help``): 0 when the table is over or the person left it (``q``,
    confirmed: leaving on purpose is no failure), 130 when the person ``interrupted`` it
    (Ctrl-C on the screen, as outside it), 1 when it failed or could not be played to its
    end.  ``left`` is set when the person left (or interrupted) a table that ``resumable``
    says started (it has a transcript to take up again: ``table``, its id in hex); a table
    that failed carries its ``error``."""
    if interrupted and outcome in ("left", "running"):
        status = ExitStatus(INTERRUPTED)
        status.left = resumable
    else:
        status = ExitStatus(0 if outcome in ("over", "left") else 1)
        status.left = outcome == "left" and resumable
    status.table = table
    if outcome == "over":
        status.ended = tuple(ended)
    if status == 1:
        status.error = error or ""
    return status


def run_local_table(table: LocalTable, *, input: Input | None = None, output: Output | None = None) -> int:
    """Run ``table`` on screen to its end or until the person leaves.

    Exit status (:func:`exit_status`): 0 when the table is over or the person left it,
    130 when the person interrupted it (Ctrl-C), 1 when it failed.
    """
    app = build_app(table.model, input=input, output=output)

    def trio_failed(error: BaseException) -> None:
        table.model.stopped(f"{type(error).__name__}: {error}")

    with screen_logging(table.data_dir, on_refused=table.refused):
        asyncio.run(run_with_trio(app, table.run, table.cancel, trio_failed))
    return exit_status(table.outcome, interrupted=table.model.interrupted, error=table.model.error,
                       table=table.table_id.hex(), ended=table.model.final_lines())


def play_local(
    spec: GameSpec,
    options: Options,
    *,
    me: Identity,
    lang: str,
    bots: str = TABLE_LEVEL,
    seed: int | None = None,
    deals: int | None = None,
    speed: float = 0.8,
    data_dir: Path | None = None,
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    """``p2pcards play``: a match against computer players on the full-screen table."""
    table = LocalTable(spec, options, me=me, text=Text(lang), bots=bots, seed=seed, deals=deals, speed=speed,
                       data_dir=data_dir)
    return run_local_table(table, input=input, output=output)
