"""LAN discovery without a LAN: the TXT record, the fake, the announcer, the commands.

Everything here runs over :class:`p2pcards.testing.fake_lan.FakeLan` (and loopback TCP for the
lobby); the real multicast DNS runs in ``test_discovery_lan.py``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st

import p2pcards.discovery as discovery
from p2pcards.cli import main
from p2pcards.core import load_games
from p2pcards.discovery import (
    SERVICE_TYPE,
    Announcement,
    AnnouncementError,
    DiscoveryError,
    NotJoinable,
    TableAnnouncer,
    TableEvent,
    TableNotFound,
    announcing,
    check_joinable,
    check_table_name,
    collect_tables,
    decode_txt,
    default_table_name,
    encode_txt,
    find_table,
    listing,
    order_addresses,
    parse_announcement,
    select_interfaces,
    table_json,
    why_not_joinable,
)
from p2pcards.discovery.interfaces import NetInterface, announce_addresses, zeroconf_choice
from p2pcards.identity import Identity, load_or_create
from p2pcards.net import PROTO, ConnectError, host_table, join_table, parse_seat_spec
from p2pcards.testing.fake_lan import FakeDiscovery, FakeLan, open_fake

REGISTRY = load_games()
GAMES = REGISTRY.games
FP = "abcd-efgh-ijkl-mn23"


def ann(**changes: Any) -> Announcement:
    fields: dict[str, Any] = dict(proto=PROTO, game="sueca", rules_version=GAMES["sueca"].rules_version,
                                  seats_taken=1, seats_total=4, host_name="Zé", host_fingerprint=FP,
                                  options={"target": "4"})
    fields.update(changes)
    return Announcement(**fields)


def txt(*items: bytes) -> bytes:
    return b"".join(bytes([len(i)]) + i for i in items)


GOOD = [b"txtvers=1", b"proto=2", b"game=sueca", b"rules=1", b"seats=1/4", "host=Zé".encode(),
        b"fp=abcd-efgh-ijkl-mn23", b"o.target=4"]
GOOD_TXT = txt(*GOOD)


def good_with(*items: bytes) -> bytes:
    """GOOD with the strings of the same keys replaced by ``items`` (others appended)."""
    keys = {i.partition(b"=")[0] for i in items}
    return txt(*[g for g in GOOD if g.partition(b"=")[0] not in keys], *items)


# ---------------------------------------------------------------------- the TXT record
def test_txt_record_bytes_are_the_documented_format():
    assert encode_txt(ann()) == GOOD_TXT
    with_all = ann(deals=2, table_id="ab" * 32, options={"tie": "none", "target": "8"})
    pairs = decode_txt(encode_txt(with_all))
    assert list(pairs) == ["txtvers", "proto", "game", "rules", "seats", "host", "fp", "deals", "table",
                           "o.target", "o.tie"]
    assert parse_announcement(encode_txt(with_all)) == with_all


def test_txt_strings_follow_rfc_6763():
    pairs = decode_txt(txt(b"TxtVers=1", b"txtvers=2", b"flag", b"", b"=orphan", b"empty=", b"k=a=b"))
    assert pairs == {"txtvers": "1", "flag": None, "empty": "", "k": "a=b"}  # case-insensitive keys, first wins


def test_unknown_keys_are_ignored_so_hosts_may_add_some():
    assert parse_announcement(GOOD_TXT + txt(b"future=42", b"x-whatever")) == ann()


@pytest.mark.parametrize(("data", "message"), [
    (b"\x09txtvers=1\x20short", "runs past the end"),
    (bytes(1301), "at most 1300"),
    (txt(*GOOD[1:]), "txtvers) missing"),
    (good_with(b"proto"), "proto is missing"),
    (good_with(b"game="), "game is missing"),
    (txt(b"txtvers=2", b"game=sueca"), "txtvers) '2'"),
    (good_with(b"seats=5/4"), "bad seats 5/4"),
    (good_with(b"seats=one"), "seats is missing or not TAKEN/TOTAL"),
    (good_with(b"proto=x"), "proto is missing or not a number"),
    (good_with(b"fp=abcd-efgh-ijkl-mn01"), "bad host fingerprint"),
    (good_with(b"game=Sueca!"), "bad game name"),
    (good_with(b"host=Z\xe9"), "is not text"),
    (good_with(b"host=a\x07b"), "host name"),
    (good_with(b"o.Bad Name=1"), "bad option name"),
    (good_with(b"deals=0"), "deals is a positive integer"),
    (good_with(b"table=xyz"), "table id"),
])
def test_malformed_records_are_refused_with_a_reason(data, message):
    with pytest.raises(AnnouncementError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_announcement(data)
    table = listing("bad._p2pcards._tcp.local.", ["192.0.2.9"], 4000, data)
    assert table.announcement is None and table.problem
    reason = why_not_joinable(table, GAMES, PROTO)
    assert reason is not None and reason.startswith("malformed announcement:")


@given(st.binary(max_size=600), st.one_of(st.none(), st.integers(-5, 70000)))
def test_nothing_from_the_lan_crashes_a_listing(data, port):
    table = listing(f"x.{SERVICE_TYPE}", ["192.0.2.9", "garbage"], port, data)
    reason = why_not_joinable(table, GAMES, PROTO)
    assert (table.announcement is None) == (table.problem is not None)
    json.dumps(table_json(table, reason))


@given(st.lists(st.tuples(st.text(max_size=12), st.text(max_size=30)), max_size=12))
def test_garbage_key_values_never_crash(pairs):
    data = b"".join(bytes([min(len(item), 255)]) + item[:255]
                    for item in (f"{k}={v}".encode() for k, v in pairs))
    table = listing(f"x.{SERVICE_TYPE}", [], 1, GOOD_TXT + data)
    why_not_joinable(table, GAMES, PROTO)


def test_announcement_checks_itself():
    with pytest.raises(AnnouncementError):
        ann(seats_taken=5)
    with pytest.raises(AnnouncementError):
        ann(host_name="x" * 41)
    with pytest.raises(AnnouncementError):
        ann(options={"target": "\n"})
    assert ann().seats_free == 3 and ann().with_seats(4).seats_free == 0


# ---------------------------------------------------------------------- joinability
def _table(announcement: Announcement | None = None, addresses: tuple[str, ...] = ("192.0.2.9",),
           data: bytes | None = None) -> Any:
    raw = data if data is not None else encode_txt(announcement or ann())
    return listing(f"t.{SERVICE_TYPE}", addresses, 4000, raw)


@pytest.mark.parametrize(("announcement", "reason"), [
    (ann(), None),
    (ann(proto=PROTO + 1), f"the host speaks lobby protocol {PROTO + 1}; this peer speaks {PROTO}"),
    (ann(game="chess", options={}), "it plays chess, which is not installed here"),
    (ann(rules_version="99"), "it plays sueca rules version 99; the installed sueca has version"),
    (ann(seats_total=2), "sueca has 4 seats here; the table announces 2"),
    (ann(options={"target": "5"}), "its options do not fit the installed game: sueca: target must be"),
    (ann(options={"speed": "1"}), "unknown option 'speed'"),
    (ann(seats_taken=4), "every seat is taken"),
])
def test_why_a_table_cannot_be_joined(announcement, reason):
    got = why_not_joinable(_table(announcement), GAMES, PROTO)
    if reason is None:
        assert got is None
    else:
        assert got is not None and reason in got
        with pytest.raises(NotJoinable, match="cannot be joined"):
            check_joinable(_table(announcement), GAMES, PROTO)


def test_a_table_without_address_cannot_be_joined():
    assert why_not_joinable(_table(addresses=()), GAMES, PROTO) == "no address was resolved for its host"


def test_table_json_is_the_documented_contract():
    obj = table_json(_table(ann(deals=1)), None)
    assert obj == {
        "name": "t", "service": "t._p2pcards._tcp.local.", "game": "sueca", "rules_version": "1", "proto": PROTO,
        "options": {"target": "4"}, "seats": 4, "taken": 1, "free": 3, "deals": 1,
        "host": {"name": "Zé", "fingerprint": FP}, "table": None, "address": "192.0.2.9",
        "addresses": ["192.0.2.9"], "port": 4000, "joinable": True, "reason": None,
    }
    bad = table_json(_table(data=b"\x05hello"), "malformed announcement: ...")
    assert bad["game"] is None and bad["host"] is None and bad["joinable"] is False and bad["options"] == {}


# ---------------------------------------------------------------------- names and addresses
def test_table_names():
    assert check_table_name("Mesa do Zé") is None
    for bad in ("", "a.b", "host:4000", " x", "x" * 64, "tab\there"):
        assert check_table_name(bad), bad
    assert default_table_name("sueca", "Zé Manel!", FP) == "sueca-ZManel-abcd"
    assert check_table_name(default_table_name("sobe-e-desce", "x" * 40, FP)) is None


def test_addresses_on_this_network_come_first_then_ipv4():
    addrs = ["fe80::1%3", "2001:db8::1", "198.51.100.7", "10.213.0.1", "not-an-ip"]
    assert order_addresses(addrs, ["10.213.0.4/24"]) == ["10.213.0.1", "198.51.100.7", "2001:db8::1", "fe80::1%3"]
    assert order_addresses(addrs, ["2001:db8::5/64"])[0] == "2001:db8::1"


def test_interface_choice():
    eth = NetInterface("eth0", 2, ("10.0.0.2",), ("fe80::2",), ("10.0.0.2/24", "fe80::2/64"), True)
    v6 = NetInterface("wlan0", 3, (), ("fe80::3",), ("fe80::3/64",), True)
    down = NetInterface("eth1", 4, ("10.9.0.2",), (), ("10.9.0.2/24",), False)
    lo = NetInterface("lo", 1, ("127.0.0.1",), ("::1",), ("127.0.0.1/8",), False)
    found = [eth, v6, down, lo]
    assert select_interfaces(available=found) == [eth, v6]
    assert select_interfaces(ip_version="4", available=found) == [eth]
    assert select_interfaces(["eth1"], available=found) == [down]  # named: whatever its state
    with pytest.raises(DiscoveryError, match="no network interface eth9"):
        select_interfaces(["eth9"], available=found)
    with pytest.raises(DiscoveryError, match="has no IPv4 address"):
        select_interfaces(["wlan0"], "4", available=found)
    with pytest.raises(DiscoveryError, match="up and multicast-capable"):
        select_interfaces(available=[down, lo])
    assert zeroconf_choice([eth, v6], "all") == ["10.0.0.2", 2, 3]
    assert zeroconf_choice([eth, v6], "4") == ["10.0.0.2"]
    assert announce_addresses("0.0.0.0", [eth, v6]) == ["10.0.0.2"]
    assert announce_addresses("::", [eth, v6]) == ["fe80::2", "fe80::3"]
    assert announce_addresses("10.0.0.2", [eth]) == ["10.0.0.2"]


# ---------------------------------------------------------------------- the fake LAN
async def _next(events: Any, kind: str | None = None) -> TableEvent:
    with trio.fail_after(60):
        event: TableEvent = await events.receive()
    if kind is not None:
        assert event.kind == kind, event
    return event


async def test_fake_announce_update_withdraw():
    lan = FakeLan()
    host, browser = FakeDiscovery(lan), FakeDiscovery(lan)
    async with browser.browse() as events:
        reg = await host.announce("mesa", 4000, ann())
        first = await _next(events, "appear")
        assert first.table.name == "mesa" and first.table.port == 4000 and first.table.announcement == ann()
        assert first.table.addresses == ("192.0.2.1",)
        await host.update(reg, ann(seats_taken=2))
        assert (await _next(events, "update")).table.announcement == ann(seats_taken=2)
        clash = await FakeDiscovery(lan).announce("mesa", 4001, ann())
        assert clash.name == "mesa-2" and (await _next(events, "appear")).table.name == "mesa-2"
        await host.withdraw(reg)
        assert (await _next(events, "vanish")).table.name == "mesa"
        await host.withdraw(reg)  # idempotent
        with pytest.raises(DiscoveryError):
            await host.update(reg, ann())
    assert lan.services() == ["mesa-2"]


async def test_fake_crashed_host_vanishes_by_ttl(autojump_clock):
    lan = FakeLan()
    host = FakeDiscovery(lan, ttl=7)
    async with FakeDiscovery(lan).browse() as events:
        await host.announce("mesa", 4000, ann())
        await _next(events, "appear")
        host.crash()
        start = trio.current_time()
        await _next(events, "vanish")
        assert trio.current_time() - start == pytest.approx(7)
    with pytest.raises(DiscoveryError):
        await host.announce("again", 4000, ann())


async def test_open_fake_withdraws_on_exit():
    lan = FakeLan()
    async with open_fake(lan) as disco:
        await disco.announce("mesa", 4000, ann())
        assert lan.services() == ["mesa"]
    assert lan.services() == []


async def test_malformed_and_foreign_tables_are_listed_with_a_reason(autojump_clock):
    lan = FakeLan()
    lan.inject("garbage", b"\xff\x00\x01")
    lan.inject("chess", encode_txt(ann(game="chess", options={})))
    lan.inject("future", encode_txt(ann(proto=PROTO + 1)))
    lan.inject("ok", encode_txt(ann()))
    tables = await collect_tables(FakeDiscovery(lan), 1)
    reasons = {t.name: why_not_joinable(t, GAMES, PROTO) for t in tables}
    assert list(reasons) == ["chess", "future", "garbage", "ok"]
    assert reasons["ok"] is None
    assert "not installed" in str(reasons["chess"]) and "protocol" in str(reasons["future"])
    assert str(reasons["garbage"]).startswith("malformed announcement:")


async def test_find_table_by_name_and_not_found(autojump_clock):
    lan = FakeLan()
    lan.inject("Mesa do Zé", encode_txt(ann()))
    disco = FakeDiscovery(lan)
    assert (await find_table(disco, "mesa do zé", 1)).name == "Mesa do Zé"
    assert (await find_table(disco, f"Mesa do Zé.{SERVICE_TYPE}", 1)).name == "Mesa do Zé"
    start = trio.current_time()
    with pytest.raises(TableNotFound, match="no table named 'nope'"):
        await find_table(disco, "nope", 2.5)
    assert trio.current_time() - start == pytest.approx(2.5)


async def test_a_table_that_appears_later_is_found(autojump_clock):
    lan = FakeLan()
    async with trio.open_nursery() as nursery:
        async def later() -> None:
            await trio.sleep(1)
            lan.inject("late", encode_txt(ann()))
        nursery.start_soon(later)
        assert (await find_table(FakeDiscovery(lan), "late", 5)).name == "late"
        assert trio.current_time() == pytest.approx(1)


# ---------------------------------------------------------------------- the announcer
class _Recorder:
    """A browse on the fake LAN, recording (kind, name, seats taken) in the background."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str, int | None]] = []
        self.changed = trio.Event()

    async def run(self, disco: FakeDiscovery, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
                  ) -> None:
        async with disco.browse() as events:
            task_status.started()
            async for e in events:
                a = e.table.announcement
                self.seen.append((e.kind, e.table.name, a.seats_taken if a else None))
                self.changed.set()
                self.changed = trio.Event()

    async def until(self, count: int) -> None:
        with trio.fail_after(10):
            while len(self.seen) < count:
                await self.changed.wait()


async def test_announcer_follows_the_lobby(autojump_clock):
    lan = FakeLan()
    announced: list[str] = []
    rec = _Recorder()
    async with trio.open_nursery() as nursery:
        await nursery.start(rec.run, FakeDiscovery(lan))
        announcer = TableAnnouncer(FakeDiscovery(lan), "mesa", ann(), on_announced=lambda r: announced.append(r.name))
        await nursery.start(announcer.run)
        announcer.seats(1, 4)
        await trio.sleep(1)
        assert rec.seen == [] and lan.services() == []  # nothing before the lobby listens
        announcer.listening(4000)
        await rec.until(1)
        announcer.seats(2, 4)
        await rec.until(2)
        announcer.seats(3, 4)
        await rec.until(3)
        announcer.seats(4, 4)  # full: withdrawn
        await rec.until(4)
        announcer.seats(3, 4)  # someone left before the start: announced again
        await rec.until(5)
        announcer.close()  # the table starts
        await rec.until(6)
        announcer.seats(2, 4)  # nothing after close
        await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert rec.seen == [("appear", "mesa", 1), ("update", "mesa", 2), ("update", "mesa", 3), ("vanish", "mesa", 3),
                        ("appear", "mesa", 3), ("vanish", "mesa", 3)]
    assert announced == ["mesa", "mesa"] and lan.services() == []
    with pytest.raises(ValueError):
        announcer.seats(1, 2)


async def test_announcer_withdraws_when_cancelled(autojump_clock):
    lan = FakeLan()
    async with trio.open_nursery() as nursery:
        announcer = TableAnnouncer(FakeDiscovery(lan), "mesa", ann())
        await nursery.start(announcer.run)
        announcer.listening(4000)
        await trio.sleep(1)
        assert lan.services() == ["mesa"]
        nursery.cancel_scope.cancel()
    assert lan.services() == []


class _Flaky(FakeDiscovery):
    def __init__(self, lan: FakeLan, failures: int) -> None:
        super().__init__(lan)
        self.failures = failures

    async def announce(self, *args: Any, **kwargs: Any) -> Any:
        if self.failures:
            self.failures -= 1
            raise DiscoveryError("multicast DNS failed: no buffer space")
        return await super().announce(*args, **kwargs)


async def test_announcer_reports_failures_and_retries(autojump_clock):
    lan = FakeLan()
    problems: list[str] = []
    async with trio.open_nursery() as nursery:
        announcer = TableAnnouncer(_Flaky(lan, 2), "mesa", ann(), on_problem=problems.append)
        await nursery.start(announcer.run)
        announcer.listening(4000)
        await trio.sleep(1)
        assert lan.services() == [] and len(problems) == 1
        await trio.sleep(discovery.tables.RETRY * 2)
        assert lan.services() == ["mesa"] and len(problems) == 2
        nursery.cancel_scope.cancel()


async def test_announcing_without_discovery_hosts_anyway():
    problems: list[str] = []

    def broken() -> Any:
        raise DiscoveryError("no network interface is up and multicast-capable")

    async with announcing(broken, "mesa", ann(), on_problem=problems.append) as announcer:
        assert announcer is None
    assert problems == ["no network interface is up and multicast-capable"]


# ---------------------------------------------------------------------- with the real lobby, on loopback
async def test_lobby_announces_seats_filling_and_joiners_find_it_by_name(tmp_path):
    """A real host and three joiners over loopback TCP, the announcement on the fake LAN."""
    lan = FakeLan()
    spec = REGISTRY.get("sueca")
    host_id = load_or_create(tmp_path / "host")
    rec = _Recorder()
    loopback = NetInterface("lo", 1, ("127.0.0.1",), (), ("127.0.0.0/8",), True)
    finals: list[dict[str, Any]] = []

    async def joiner(i: int) -> None:
        disco = FakeDiscovery(lan, interfaces=(loopback,))
        table = await find_table(disco, "mesa", 5)
        check_joinable(table, GAMES, PROTO)
        assert table.announcement is not None
        await join_table(table.addresses[0], table.port, me=Identity.generate(f"j{i}"), registry=REGISTRY,
                         data_dir=tmp_path / f"j{i}", level="random", seed=i,
                         expect_host=table.announcement.host_fingerprint,
                         on_event=lambda s, e: finals.append(e.to_json()) if e.type == "final" else None)

    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            await nursery.start(rec.run, FakeDiscovery(lan))
            template = ann(host_name=host_id.name, host_fingerprint=host_id.fingerprint, options={}, deals=1)
            async with open_fake(lan, interfaces=(loopback,)) as disco:
                announcer = TableAnnouncer(disco, "mesa", template, addresses=disco.addresses_for("127.0.0.1"))
                await nursery.start(announcer.run)
                async with trio.open_nursery() as table:
                    await table.start(lambda task_status: host_table(
                        spec, seats=parse_seat_spec("bot,remote,remote,remote", 4), host=host_id,
                        data_dir=tmp_path / "host", deals=1, timeout=20, bind="127.0.0.1", lobby_timeout=30,
                        on_listening=lambda a, p: announcer.listening(p), on_seats=announcer.seats,
                        on_table=lambda info: announcer.close(), task_status=task_status))
                    for i in (1, 2, 3):
                        await rec.until(i)  # one joiner at a time: each sees the seats taken so far
                        table.start_soon(joiner, i)
            await rec.until(4)
            nursery.cancel_scope.cancel()
    assert rec.seen == [("appear", "mesa", 1), ("update", "mesa", 2), ("update", "mesa", 3), ("vanish", "mesa", 3)]
    assert len(finals) == 3 and len({f["transcript_hash"] for f in finals}) == 1


async def test_join_gives_up_a_host_that_is_not_the_announced_one(tmp_path):
    spec = REGISTRY.get("sueca")
    host_id = Identity.generate("host")
    freed = trio.Event()
    seats_seen: list[int] = []

    def on_seats(taken: int, total: int) -> None:
        seats_seen.append(taken)
        if seats_seen[-2:] == [2, 1]:
            freed.set()

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            _, port = await nursery.start(lambda task_status: host_table(
                spec, seats=parse_seat_spec("bot,remote,remote,remote", 4), host=host_id, data_dir=tmp_path,
                bind="127.0.0.1",
                lobby_timeout=15, on_seats=on_seats, task_status=task_status))
            with pytest.raises(ConnectError, match="not the one announced"):
                await join_table("127.0.0.1", port, me=Identity.generate("me"), registry=REGISTRY,
                                 data_dir=tmp_path / "me", expect_host="aaaa-bbbb-cccc-dddd")
            await freed.wait()  # the seat it held is free again (and would be announced again)
            nursery.cancel_scope.cancel()
    assert seats_seen[:3] == [1, 2, 1]


# ---------------------------------------------------------------------- the commands, over the fake
@pytest.fixture
def fake_lan(monkeypatch, home):
    """Every command's discovery is a FakeDiscovery on this LAN (and a fresh data directory)."""
    lan = FakeLan()
    opened: list[dict[str, Any]] = []

    def fake_open(**kwargs: Any) -> Any:
        opened.append(kwargs)
        return open_fake(lan, ttl=kwargs.get("ttl", 120))

    monkeypatch.setattr(discovery, "open_discovery", fake_open)
    lan.opened = opened  # type: ignore[attr-defined]
    return lan


def test_tables_json_lists_every_table_with_the_reason(cli, fake_lan):
    fake_lan.inject("ok", encode_txt(ann()), port=4100, addresses=["10.0.0.9"])
    fake_lan.inject("chess", encode_txt(ann(game="chess", options={})))
    fake_lan.inject("bad", b"\x03abc")
    code, out = cli("tables", "--json", "--wait", "0.3", "--interface", "eth7", "--ip-version", "4")
    assert code == 0
    tables = json.loads(out)["tables"]
    assert [t["name"] for t in tables] == ["bad", "chess", "ok"]
    ok = tables[2]
    assert ok["joinable"] and ok["reason"] is None and ok["address"] == "10.0.0.9" and ok["port"] == 4100
    assert ok["free"] == 3 and ok["host"] == {"name": "Zé", "fingerprint": FP} and ok["options"] == {"target": "4"}
    assert not tables[1]["joinable"] and "not installed" in tables[1]["reason"]
    assert tables[0]["reason"].startswith("malformed announcement")
    assert fake_lan.opened == [{"interfaces": ["eth7"], "ip_version": "4", "ttl": 120}]


def test_tables_for_people(cli, fake_lan):
    code, out = cli("tables", "--wait", "0.2")
    assert code == 0 and out == "no table found on the local network within 0.2 s\n"
    fake_lan.inject("Mesa do Zé", encode_txt(ann(deals=2)), port=4100, addresses=["10.0.0.9"])
    code, out = cli("tables", "--wait", "0.2")
    assert out == ("Mesa do Zé: sueca (target=4), 2 deal(s), 3 of 4 seats free, host Zé [abcd-efgh-ijkl-mn23] "
                   "at 10.0.0.9:4100; join with: p2pcards play --join 'Mesa do Zé' (a computer player: "
                   "p2pcards join 'Mesa do Zé')\n")


def test_tables_watch_prints_changes(cli, fake_lan):
    fake_lan.inject("ok", encode_txt(ann()))
    code, out = cli("tables", "--watch", "--json", "--wait", "0.2")
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(x["type"], x["table"]["name"]) for x in lines] == [("appear", "ok")]


def test_tables_help_documents_the_json_contract(capsys):
    with pytest.raises(SystemExit):
        main(["tables", "--help"])
    text = capsys.readouterr().out
    assert "JSON output (--json)" in text and "Exit status" in text and '"joinable": BOOL' in text


def test_tables_without_a_usable_interface_exits_1(monkeypatch, capsys):
    def no_lan(**kwargs: Any) -> Any:
        raise DiscoveryError("no network interface is up and multicast-capable")

    monkeypatch.setattr(discovery, "open_discovery", no_lan)
    assert main(["tables", "--wait", "0.1"]) == 1
    assert capsys.readouterr().err == "p2pcards: error: no network interface is up and multicast-capable\n"


@pytest.mark.parametrize(("args", "message"), [
    (["join", "a.b"], "expected a table name or HOST:PORT"),
    (["join", "mesa", "--wait", "0"], "--wait must be more than 0"),
    (["join", "mesa", "--host-fingerprint", "zzz"], "--host-fingerprint: a fingerprint is"),
    (["join", "mesa", "--ip-version", "5"], "invalid choice"),
    (["tables", "--wait", "-1"], "--wait must be more than 0"),
    (["host", "sueca", "--table-name", "a:b"], "--table-name: a table name"),
    (["host", "sueca", "--mdns-ttl", "0"], "--mdns-ttl must be between 1 and 4500"),
])
def test_bad_lan_options_exit_2(args, message, capsys, fake_lan):
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_join_by_name_refuses_what_it_cannot_join(fake_lan, capsys):
    fake_lan.inject("chess", encode_txt(ann(game="chess", options={})))
    assert main(["join", "chess", "--wait", "5"]) == 1  # at once: found, and refused
    assert "p2pcards: error: table 'chess' cannot be joined: it plays chess, which is not installed here" in \
        capsys.readouterr().err
    assert main(["join", "localhost", "--wait", "0.2"]) == 1
    assert "no table named 'localhost' answered on the LAN within 0.2 s" in capsys.readouterr().err
    fake_lan.inject("ok", encode_txt(ann()))
    assert main(["join", "ok", "--wait", "0.5", "--host-fingerprint", "aaaa-bbbb-cccc-dddd"]) == 1
    assert "is announced by host abcd-efgh-ijkl-mn23, not aaaa-bbbb-cccc-dddd" in capsys.readouterr().err


def test_host_announces_and_withdraws_when_it_closes(cli, fake_lan, capsys):
    """The lobby times out: the table was announced, and is withdrawn when the host gives up."""
    code, out = cli("host", "bisca", "--seats", "bot,remote", "--lobby-timeout", "1", "--table-name", "Mesa do Zé",
                    "--json", "--mdns-ttl", "9")
    assert code == 1 and "did not fill" in capsys.readouterr().err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [x["type"] for x in lines] == ["listening", "announced"]
    assert lines[1] == {"type": "announced", "name": "Mesa do Zé", "service": f"Mesa do Zé.{SERVICE_TYPE}",
                        "port": lines[0]["port"]}
    assert fake_lan.opened[0]["ttl"] == 9
    assert fake_lan.services() == []


@pytest.mark.parametrize("extra", [["--no-announce"], ["--bind", "127.0.0.1"], ["--seats", "bot,bot"]])
def test_host_does_not_announce_what_nobody_could_join(cli, extra, fake_lan):
    args = ["host", "bisca", "--seats", "bot,remote", "--lobby-timeout", "0.3", "--deals", "1", "--json", *extra]
    _, out = cli(*args)
    assert "announced" not in out and fake_lan.opened == []


def test_join_by_name_prints_the_table_found_then_dials_it(cli, fake_lan, capsys):
    fake_lan.inject("mesa", encode_txt(ann()), port=1, addresses=["127.0.0.1"])
    code, out = cli("join", "MESA", "--wait", "0.5", "--json")
    assert code == 1 and "cannot connect to 127.0.0.1:1" in capsys.readouterr().err
    found = json.loads(out)
    assert found["type"] == "found" and found["table"]["name"] == "mesa" and found["table"]["port"] == 1


def test_what_the_host_command_announces(cli, fake_lan, monkeypatch):
    announced: list[Announcement] = []

    class Recording(FakeDiscovery):
        async def announce(self, name: str, port: int, announcement: Announcement, addresses: Any = None) -> Any:
            announced.append(announcement)
            return await super().announce(name, port, announcement, addresses)

    monkeypatch.setattr(discovery, "open_discovery", lambda **kwargs: _opened(Recording(fake_lan)))
    code, out = cli("host", "sueca", "--seats", "bot,remote,bot:random,remote", "--lobby-timeout", "0.5",
                    "--deals", "2", "-o", "target=8")
    assert code == 1
    me = load_or_create()
    name = default_table_name("sueca", me.name, me.fingerprint)
    assert (f"announced on the local network as '{name}'; people join with: p2pcards play --join {name} "
            f"(a computer player: p2pcards join {name})") in out
    assert announced == [Announcement(
        proto=PROTO, game="sueca", rules_version=GAMES["sueca"].rules_version, seats_taken=2, seats_total=4,
        host_name=me.name, host_fingerprint=me.fingerprint, deals=2,
        options={k: str(v) for k, v in GAMES["sueca"].resolve_options({"target": "8"}).items()})]


@asynccontextmanager
async def _opened(disco: FakeDiscovery) -> AsyncIterator[FakeDiscovery]:
    try:
        yield disco
    finally:
        await disco.close()


@pytest.mark.parametrize("announcement", [ann(proto=PROTO + 1), ann(game="chess", options={}), ann(rules_version="99"),
                                          ann(seats_total=2), ann(options={"target": "5"}), ann(seats_taken=4)])
def test_the_start_screen_says_why_in_its_language(announcement):
    """The same reasons as codes with their details, said by the start screen in pt (and in
    en as `tables` says them)."""
    from p2pcards.core import load_games
    from p2pcards.discovery import joinable_problem
    from p2pcards.tui.start import _discovery
    from p2pcards.words import Text

    code, details = joinable_problem(_table(announcement), GAMES, PROTO)  # type: ignore[misc]
    assert f"lan_why_{code}" in Text("pt")
    _, make_judge = _discovery()
    registry = load_games()
    said_pt = make_judge(registry, Text("pt"))(_table(announcement))
    said_en = make_judge(registry, Text("en"))(_table(announcement))
    english = why_not_joinable(_table(announcement), GAMES, PROTO)
    assert said_pt and said_en and english and said_pt != said_en
    assert all(str(v) in said_pt for v in details.values() if isinstance(v, int) or v in ("chess", "99"))
    assert not set(said_pt.split()) & {"the", "seat", "seats", "installed", "plays"}, said_pt
