"""LAN discovery: tables announced and found with DNS-SD over multicast DNS (``_p2pcards._tcp``).

- :mod:`~p2pcards.discovery.record` -- the announcement (TXT record) and what a browser
  makes of it, sans-IO: parsing never raises on what the LAN sends.
- :mod:`~p2pcards.discovery.bridge` -- python-zeroconf bridged into trio
  (:func:`open_discovery`).
- :mod:`~p2pcards.discovery.tables` -- announcing a hosted table as its seats fill; listing
  and finding tables.

The TXT record format is specified in ``protocol/TRANSPORT.md`` ("Discovery").  The bridge
(and zeroconf with it) is imported on first use of :func:`open_discovery`, so that commands
that do not need the LAN do not pay for it.  The same interface in memory, for tests, is
:mod:`p2pcards.testing.fake_lan`.
"""

from typing import TYPE_CHECKING, Any

from p2pcards.discovery.base import DEFAULT_TTL, Discovery, Registration
from p2pcards.discovery.errors import DiscoveryError
from p2pcards.discovery.interfaces import IpVersion, NetInterface, list_interfaces, select_interfaces
from p2pcards.discovery.record import (
    SERVICE_TYPE,
    TXT_VERSION,
    Announcement,
    AnnouncementError,
    OpenTable,
    TableEvent,
    check_fingerprint,
    check_table_name,
    decode_txt,
    default_table_name,
    encode_txt,
    joinable_problem,
    listing,
    order_addresses,
    parse_announcement,
    table_json,
    why_not_joinable,
)
from p2pcards.discovery.tables import (
    NotJoinable,
    TableAnnouncer,
    TableNotFound,
    announcing,
    check_joinable,
    collect_tables,
    find_table,
    watch_tables,
)

if TYPE_CHECKING:
    from p2pcards.discovery.bridge import ZeroconfDiscovery, open_discovery


def __getattr__(name: str) -> Any:
    if name in ("open_discovery", "ZeroconfDiscovery"):
        from p2pcards.discovery import bridge

        return getattr(bridge, name)
    raise AttributeError(f"module 'p2pcards.discovery' has no attribute {name!r}")


__all__ = [
    "DEFAULT_TTL",
    "SERVICE_TYPE",
    "TXT_VERSION",
    "Announcement",
    "AnnouncementError",
    "Discovery",
    "DiscoveryError",
    "IpVersion",
    "NetInterface",
    "NotJoinable",
    "OpenTable",
    "Registration",
    "TableAnnouncer",
    "TableEvent",
    "TableNotFound",
    "ZeroconfDiscovery",
    "announcing",
    "check_fingerprint",
    "check_joinable",
    "check_table_name",
    "collect_tables",
    "decode_txt",
    "default_table_name",
    "encode_txt",
    "find_table",
    "joinable_problem",
    "list_interfaces",
    "listing",
    "open_discovery",
    "order_addresses",
    "parse_announcement",
    "select_interfaces",
    "table_json",
    "watch_tables",
    "why_not_joinable",
]
