"""What goes wrong with LAN discovery, for every part of it (the interfaces, the bridge,
the announcer, the commands)."""

from __future__ import annotations

__all__ = ["DiscoveryError"]


class DiscoveryError(Exception):
    """LAN discovery cannot work (no usable interface, a socket error...); ``str()`` is for people."""
