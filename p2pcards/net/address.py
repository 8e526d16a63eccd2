"""Table addresses as people type them: ``HOST:PORT``.

One parser for every place that reads an address (``p2pcards join``, ``play --join``, the
start screen's "join by address"), so that they accept and refuse the same things.  An IPv6
address goes in brackets (``[::1]:4000``, ``[fe80::1%eth0]:4000``): without them its last
group could not be told from the port.  :func:`format_host_port` writes an address so that
:func:`parse_host_port` reads it back.
"""

from __future__ import annotations

import ipaddress

__all__ = ["AddressError", "format_host_port", "parse_host_port"]


class AddressError(ValueError):
    """Not a ``HOST:PORT``; the message says what is wrong with it."""


def parse_host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[IPv6]:PORT`` too) as ``(host, port)``, the host without brackets.

    Raises :class:`AddressError` for a missing or empty host, a port that is not a number
    from 1 to 65535, or an IPv6 address without its brackets.
    """
    host, sep, port = text.strip().rpartition(":")
    if not sep:
        raise AddressError("no port: write HOST:PORT")
    if host.startswith("[") or host.endswith("]"):
        if not (host.startswith("[") and host.endswith("]")):
            raise AddressError(f"unbalanced brackets in {host!r}")
        host = host[1:-1]
        try:
            ipaddress.IPv6Address(host.partition("%")[0])
        except ValueError:
            raise AddressError(f"{host!r} in brackets is not an IPv6 address") from None
    elif ":" in host:
        raise AddressError("an IPv6 address goes in brackets, e.g. [::1]:4000")
    if not host:
        raise AddressError("no host before the port")
    if any(c.isspace() for c in host):
        raise AddressError(f"the host {host!r} has a space in it")
    if not port:
        raise AddressError("no port after the colon")
    if not (port.isascii() and port.isdigit()):
        raise AddressError(f"the port {port!r} is not a number")
    number = int(port)
    if not 0 < number < 65536:
        raise AddressError(f"the port {number} is not between 1 and 65535")
    return host, number


def format_host_port(host: str, port: int) -> str:
    """``host:port``, an IPv6 address in brackets: what :func:`parse_host_port` reads back."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
