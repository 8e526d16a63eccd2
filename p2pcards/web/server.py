"""The page's server: a small Starlette application served by Hypercorn's trio worker
inside the peer's own trio run, and :func:`run_web`, what ``p2pcards web`` runs.

Three routes, all behind the guard (:mod:`p2pcards.web.security`): ``/`` the page (it
sets the secret's cookie), ``/static/...`` its script, style and icon (shipped in the
wheel, no build step), and ``/ws`` the WebSocket the page talks to the peer through
(:meth:`~p2pcards.web.peer.WebPeer.serve_page`).  The page is sent with a strict content
security policy (nothing from elsewhere, no inline script) and may not be framed.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
import threading
import webbrowser
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

import trio

from p2pcards.web.peer import WebPeer
from p2pcards.web.security import COOKIE, Guard, GuardMiddleware, new_secret

__all__ = ["STATIC", "build_app", "run_web", "serve"]

log = logging.getLogger("p2pcards.web")

#: The page's files.
STATIC = Path(__file__).resolve().parent / "static"

_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                               "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def build_app(peer: WebPeer, guard: Guard) -> Any:
    """The ASGI application of ``peer``'s page, behind ``guard``."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import FileResponse, Response
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket

    async def page(request: Request) -> Response:
        response = FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8", headers=_HEADERS)
        response.set_cookie(COOKIE, guard.secret, httponly=True, samesite="strict", path="/")
        return response

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        path = (STATIC / name).resolve()
        if "/" in name or not path.is_relative_to(STATIC) or not path.is_file() or name == "index.html":
            return Response("not found\n", status_code=404, media_type="text/plain")
        return FileResponse(path, headers=_HEADERS)

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        await peer.serve_page(websocket)

    return GuardMiddleware(Starlette(routes=[
        Route("/", page),
        Route("/static/{name}", static),
        WebSocketRoute("/ws", socket),
    ]), guard)


async def serve(app: Any, bind: str, port: int, *, shutdown: trio.Event,
                task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``app`` on ``bind``:``port`` (0: a free port) until ``shutdown``; reports the port."""
    from hypercorn.config import Config
    from hypercorn.trio import serve as hypercorn_serve

    config = Config()
    config.bind = [f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("p2pcards.web.server")
    config.graceful_timeout = 1.0
    config.websocket_max_message_size = 64 * 1024
    config.h2_max_inbound_frame_size = 64 * 1024

    async def started(task_status: trio.TaskStatus[list[str]] = trio.TASK_STATUS_IGNORED) -> None:
        await hypercorn_serve(app, config, shutdown_trigger=shutdown.wait, task_status=task_status)

    async with trio.open_nursery() as nursery:
        binds = await nursery.start(started)
        task_status.started(int(binds[0].rsplit(":", 1)[1]))


def page_url(bind: str, port: int, secret: str) -> str:
    """The page's address, with its secret: on every interface (``0.0.0.0``, ``::``) the
    machine's first LAN address, the one a phone on the LAN opens."""
    host = bind
    if bind in ("0.0.0.0", "::", ""):
        from p2pcards.discovery.interfaces import local_addresses

        host = (local_addresses() or ["127.0.0.1"])[0]
    return f"http://{f'[{host}]' if ':' in host else host}:{port}/?k={secret}"


def run_web(peer: WebPeer, *, bind: str = "127.0.0.1", port: int = 0, browser: bool = True, json_out: bool = False,
            out: TextIO | None = None, on_url: Callable[[str], None] | None = None) -> int:
    """Run ``peer`` with its page until the person quits from the page (or Ctrl-C): print
    the address (and open the browser on it, unless ``browser`` is False).  Exit status
    0; 130 when interrupted."""
    from p2pcards.tui.logfile import screen_logging

    out = out if out is not None else sys.stdout
    guard = Guard(new_secret())
    app = build_app(peer, guard)
    interrupted = False

    async def ctrl_c(everything: trio.CancelScope) -> None:
        """Ctrl-C stops everything by cancelling it.  Left to trio, it raises
        KeyboardInterrupt in whatever code runs when it comes, and Hypercorn's server
        swallows one raised in its own tasks (it splits KeyboardInterrupt out of their
        exception group and returns): the page went on, and the process with it.  After
        the first, a second Ctrl-C is trio's again."""
        nonlocal interrupted
        with trio.open_signal_receiver(signal.SIGINT) as signals:
            async for _ in signals:
                interrupted = True
                everything.cancel()
                return

    async def main() -> None:
        async with trio.open_nursery() as outer:
            if threading.current_thread() is threading.main_thread():
                outer.start_soon(ctrl_c, outer.cancel_scope)
            await page()
            outer.cancel_scope.cancel()

    async def page() -> None:
        shutdown = trio.Event()
        async with trio.open_nursery() as nursery:
            bound = await nursery.start(lambda task_status: serve(app, bind, port, shutdown=shutdown,
                                                                  task_status=task_status))
            guard.listening(bind, bound)
            url = page_url(bind, bound, guard.secret)
            if json_out:
                print(json.dumps({"type": "listening", "url": url, "address": bind, "port": bound}), file=out,
                      flush=True)
                peer.report = lambda obj: print(json.dumps(obj), file=out, flush=True)
            else:
                print(peer.text("web_serving", url=url), file=out, flush=True)
            if on_url is not None:
                on_url(url)
            if browser:
                await trio.to_thread.run_sync(webbrowser.open, url)
            await peer.run()
            with trio.move_on_after(0.5):  # the page is told that the peer stopped
                while peer.page is not None:
                    await trio.sleep(0.02)
            shutdown.set()

    with screen_logging(peer.data_dir, on_refused=peer.refused):
        try:
            trio.run(main)
        except KeyboardInterrupt:
            return 130
        except BaseExceptionGroup as group:  # Ctrl-C met in a nursery (every table closes its logs first)
            if group.split(KeyboardInterrupt)[1] is not None:
                raise
            return 130
    return 130 if interrupted else 0
