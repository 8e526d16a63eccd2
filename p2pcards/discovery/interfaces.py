"""Which network interfaces multicast DNS uses.

By default every interface that is up, multicast-capable and not a loopback; ``--interface``
names them instead.  On Linux the flags come from ``/sys/class/net``; elsewhere every
interface with a non-loopback address is taken.  Addresses come from ``ifaddr``.  This is
the one scan of the machine's interfaces: the screens' "join at" hints
(:func:`local_addresses`) read it too.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from p2pcards.discovery.errors import DiscoveryError

__all__ = ["IpVersion", "NetInterface", "list_interfaces", "local_addresses", "select_interfaces", "zeroconf_choice",
           "announce_addresses"]

_IFF_UP = 0x1
_IFF_LOOPBACK = 0x8
_IFF_MULTICAST = 0x1000
_SYS = Path("/sys/class/net")


#: Which IP versions to use for multicast DNS: IPv4, IPv6 or both.
IpVersion = Literal["4", "6", "all"]


@dataclass(frozen=True, slots=True)
class NetInterface:
    """One network interface: its addresses (IPv6 without scope) and networks (CIDR)."""

    name: str
    index: int
    ipv4: tuple[str, ...]
    ipv6: tuple[str, ...]
    networks: tuple[str, ...]
    usable: bool  # up, multicast-capable, not a loopback


def _usable(name: str, addresses: Sequence[str]) -> bool:
    flags_file = _SYS / name / "flags"
    try:
        flags = int(flags_file.read_text().strip(), 16)
    except (OSError, ValueError):
        # not Linux (or no sysfs): any interface with a non-loopback address
        return any(not ipaddress.ip_address(a).is_loopback for a in addresses)
    if not flags & _IFF_UP or not flags & _IFF_MULTICAST or flags & _IFF_LOOPBACK:
        return False
    try:
        state = (_SYS / name / "operstate").read_text().strip()
    except OSError:
        state = "unknown"
    return state not in ("down", "lowerlayerdown", "notpresent")


def list_interfaces() -> list[NetInterface]:
    """Every interface of this machine with at least one address."""
    import ifaddr

    out = []
    for adapter in ifaddr.get_adapters():
        v4: list[str] = []
        v6: list[str] = []
        nets: list[str] = []
        for ip in adapter.ips:
            if isinstance(ip.ip, tuple):
                v6.append(ip.ip[0])
                nets.append(f"{ip.ip[0]}/{ip.network_prefix}")
            else:
                v4.append(ip.ip)
                nets.append(f"{ip.ip}/{ip.network_prefix}")
        if not v4 and not v6:
            continue
        out.append(NetInterface(adapter.nice_name, int(adapter.index or 0), tuple(v4), tuple(v6), tuple(nets),
                                _usable(adapter.nice_name, v4 + v6)))
    return out


def local_addresses(available: Sequence[NetInterface] | None = None) -> list[str]:
    """This machine's IPv4 addresses on its networks, for "join at" hints: those of every
    usable interface (up, multicast-capable, not a loopback), without repeats."""
    found = list_interfaces() if available is None else available
    return list(dict.fromkeys(a for i in found if i.usable for a in i.ipv4 if not ipaddress.ip_address(a).is_loopback))


def select_interfaces(names: Sequence[str] = (), ip_version: IpVersion = "all",
                      available: Sequence[NetInterface] | None = None) -> list[NetInterface]:
    """The interfaces to use: those ``names`` (any state), or by default every usable one.

    Only interfaces with an address of ``ip_version`` count.  Raises
    :class:`DiscoveryError` for an unknown name or when nothing is left.
    """
    found = list(list_interfaces() if available is None else available)

    def has_family(i: NetInterface) -> bool:
        return bool((i.ipv4 and ip_version != "6") or (i.ipv6 and ip_version != "4"))

    if names:
        by_name = {i.name: i for i in found}
        unknown = [n for n in names if n not in by_name]
        if unknown:
            known = ", ".join(sorted(by_name)) or "none"
            raise DiscoveryError(f"no network interface {', '.join(unknown)} with an address (interfaces: {known})")
        chosen = [by_name[n] for n in dict.fromkeys(names)]
        missing = [i.name for i in chosen if not has_family(i)]
        if missing:
            raise DiscoveryError(f"interface {', '.join(missing)} has no IPv{ip_version} address")
        return chosen
    chosen = [i for i in found if i.usable and has_family(i)]
    if not chosen:
        family = "" if ip_version == "all" else f" with an IPv{ip_version} address"
        raise DiscoveryError(f"no network interface is up and multicast-capable{family}; "
                             "join by HOST:PORT, or name one with --interface")
    return chosen


def zeroconf_choice(interfaces: Sequence[NetInterface], ip_version: IpVersion) -> list[str | int]:
    """The ``interfaces`` argument of ``zeroconf.Zeroconf``: IPv4 addresses, IPv6 interface indexes."""
    out: list[str | int] = []
    if ip_version != "6":
        out += [a for i in interfaces for a in i.ipv4]
    if ip_version != "4":
        out += [i.index for i in interfaces if i.ipv6 and i.index]
    return out


def announce_addresses(bind: str, interfaces: Sequence[NetInterface]) -> list[str]:
    """The addresses to announce for a lobby listening on ``bind``: every IPv4 address of
    ``interfaces`` for ``0.0.0.0``, every IPv6 one for ``::`` (trio's IPv6 listeners are
    IPv6-only), else ``bind`` itself."""
    if bind in ("0.0.0.0", ""):
        return [a for i in interfaces for a in i.ipv4]
    if bind == "::":
        return [a for i in interfaces for a in i.ipv6]
    return [bind]
