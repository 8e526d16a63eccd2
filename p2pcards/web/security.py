"""Who may talk to the person's peer over HTTP: the guard in front of every request.

The page drives a seat (it plays the person's cards), so the server lets nothing else
drive it:

* it listens on ``127.0.0.1`` by default, on a free port: no other machine reaches it;
* every run has its own secret (:func:`new_secret`), given in the address
  (``/?k=SECRET``) and kept by the page in a cookie (``HttpOnly``, ``SameSite=Strict``);
  every request and every WebSocket must carry one of them, else it is refused (403);
* on a loopback address the ``Host`` header must name that address (``127.0.0.1:PORT``,
  ``localhost:PORT``): a page whose name was rebound to 127.0.0.1 (DNS rebinding) is
  refused even before its missing secret;
* a WebSocket must come from the page itself: its ``Origin`` is ``http://`` and the
  ``Host`` it was sent to.  A page of another site, which the browser would give the
  cookie to on a WebSocket, is refused.

With ``--bind`` the server is reachable from the LAN: anyone who has the address, secret
included, drives the seat, and the traffic is plain HTTP that others on the network can
read.  The secret still keeps out whoever does not have the address.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

__all__ = ["COOKIE", "Guard", "GuardMiddleware", "is_loopback", "new_secret"]

#: The cookie that carries the secret once the page has been opened with it.
COOKIE = "p2pcards_key"

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


def new_secret() -> str:
    """A fresh secret for one run: 32 random bytes, URL-safe."""
    return secrets.token_urlsafe(32)


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address to bind, or a name) is this machine only."""
    if host in ("localhost", ""):
        return host == "localhost"
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass
class Guard:
    """The checks (module docstring); ``hosts`` are the ``Host`` values accepted (None: any,
    when the server is bound beyond loopback), set once the port is known."""

    secret: str
    hosts: frozenset[str] | None = field(default_factory=frozenset)

    def listening(self, bind: str, port: int) -> None:
        """The server listens on ``bind``:``port``: a loopback address accepts only its own names."""
        if is_loopback(bind):
            shown = f"[{bind.strip('[]')}]" if ":" in bind.strip("[]") else bind
            self.hosts = frozenset({f"{shown}:{port}", f"localhost:{port}"})
        else:
            self.hosts = None

    def host_ok(self, host: str | None) -> bool:
        if self.hosts is None:
            return host is not None
        return host is not None and host.lower() in self.hosts

    def key_ok(self, query: str, cookie_header: str | None) -> bool:
        """The secret is in the query (``k=``) or in the cookie."""
        given = parse_qs(query).get("k", [])
        if cookie_header:
            jar: SimpleCookie = SimpleCookie()
            try:
                jar.load(cookie_header)
            except Exception:  # noqa: BLE001 -- a malformed cookie header is no key
                jar = SimpleCookie()
            if COOKIE in jar:
                given.append(jar[COOKIE].value)
        return any(hmac.compare_digest(k.encode(), self.secret.encode()) for k in given)

    def origin_ok(self, origin: str | None, host: str | None) -> bool:
        """A WebSocket's ``Origin`` is the page's own: ``http://HOST``."""
        return origin is not None and host is not None and origin.lower() == f"http://{host.lower()}"

    def check(self, scope: Scope) -> str | None:
        """Why a request is refused (None: it may pass)."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        host = headers.get("host")
        if not self.host_ok(host):
            return "this server answers only at its own address"
        if not self.key_ok(scope.get("query_string", b"").decode("latin-1"), headers.get("cookie")):
            return "this page needs its key: open the address p2pcards printed (with ?k=...)"
        if scope["type"] == "websocket" and not self.origin_ok(headers.get("origin"), host):
            return "a WebSocket only from the page itself"
        return None


class GuardMiddleware:
    """Refuses (403) every HTTP request and WebSocket that :meth:`Guard.check` refuses,
    before the application sees it."""

    def __init__(self, app: ASGIApp, guard: Guard) -> None:
        self.app = app
        self.guard = guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        why = self.guard.check(scope)
        if why is None:
            await self.app(scope, receive, send)
            return
        body = (why + "\n").encode()
        headers = [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]
        if scope["type"] == "websocket":
            # refused before the handshake: the server answers 403 (the denial-response
            # extension carries the reason where the server has it)
            if "websocket.http.response" in scope.get("extensions", {}):
                await send({"type": "websocket.http.response.start", "status": 403, "headers": headers})
                await send({"type": "websocket.http.response.body", "body": body})
            else:
                await send({"type": "websocket.close", "code": 1008})
            return
        await send({"type": "http.response.start", "status": 403, "headers": headers})
        await send({"type": "http.response.body", "body": body})
