"""What used to be written twice is written once: the host:port parser, the interface scan,
the owner-only file writer; the benchmark's modp-2048 group lives with the benchmark; and the
suite's own Hypothesis profiles (tests/conftest.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.core import load_games
from p2pcards.discovery.interfaces import NetInterface
from p2pcards.net.address import AddressError, format_host_port, parse_host_port
from p2pcards.tui.start_model import LanEntry, StartModel, parse_address
from p2pcards.words import Text
from tests import conftest


# ---------------------------------------------------------------------- HOST:PORT
@pytest.mark.parametrize(("text", "expected"), [
    ("192.168.1.20:40123", ("192.168.1.20", 40123)),
    ("mesa.local:1", ("mesa.local", 1)),
    (" localhost:65535 ", ("localhost", 65535)),
    ("[::1]:4000", ("::1", 4000)),
    ("[fe80::1%eth0]:4000", ("fe80::1%eth0", 4000)),
])
def test_host_port_is_read_the_same_everywhere(text: str, expected: tuple[str, int]) -> None:
    assert parse_host_port(text) == expected
    assert parse_address(text) == expected  # the start screen's "join by address"


@pytest.mark.parametrize(("text", "why"), [
    ("fe80::1", "brackets"),  # read as host "fe80:" and port 1 before
    ("::1:4000", "brackets"),
    ("[::1:4000", "brackets"),
    ("[mesa.local]:4000", "not an IPv6 address"),
    (":4000", "no host"),
    ("[]:4000", "not an IPv6 address"),
    ("mesa local:4000", "space"),
    ("localhost", "no port"),
    ("localhost:", "no port"),
    ("localhost:0", "between 1 and 65535"),
    ("localhost:65536", "between 1 and 65535"),
    ("localhost:-1", "not a number"),
    ("localhost:40a", "not a number"),
    ("localhost:\u0664\u0660\u0660\u0660", "not a number"),  # Arabic-Indic digits: str.isdigit() says yes
])
def test_a_bad_address_is_refused_with_its_reason(text: str, why: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(AddressError, match=why):
        parse_host_port(text)
    assert parse_address(text) is None
    if ":" not in text:
        return  # p2pcards join takes it for a table's name on the LAN
    from p2pcards.cli import main

    with pytest.raises(SystemExit) as exc:  # p2pcards join: one clear line, exit status 2
        main(["join", text])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert "expected HOST:PORT" in err and why in err, err


@given(st.one_of(st.ip_addresses().map(str), st.from_regex(r"[a-z][a-z0-9-]{0,20}(\.[a-z]{2,5})?", fullmatch=True)),
       st.integers(1, 65535))
def test_an_address_written_is_read_back(host: str, port: int) -> None:
    assert parse_host_port(format_host_port(host, port)) == (host, port)


def test_a_table_seen_on_the_lan_at_an_ipv6_address_is_joined_there() -> None:
    model = StartModel(list(load_games().games.values()), Text("en"))
    results: list[Any] = []
    model.on_exit = results.append
    model.cursor = 2
    model.enter()
    model.table_seen("appear", LanEntry("t1._p2pcards._tcp.local.", "t1", "sueca", "Ana", "fe80::1:2", 4000, 3, None))
    model.enter()
    assert results and (results[-1].host, results[-1].port) == ("fe80::1:2", 4000), model.error


# ---------------------------------------------------------------------- the interface scan
def test_the_join_hint_comes_from_the_one_interface_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2pcards.discovery import interfaces
    from p2pcards.tui import lan

    found = [
        NetInterface("lo", 1, ("127.0.0.1",), ("::1",), ("127.0.0.1/8",), False),
        NetInterface("eth0", 2, ("192.0.2.5",), ("fe80::5",), ("192.0.2.5/24",), True),
        NetInterface("docker0", 3, ("172.17.0.1",), (), ("172.17.0.1/16",), False),  # down
        NetInterface("eth0:1", 4, ("192.0.2.5", "198.51.100.7"), (), ("192.0.2.5/24",), True),
    ]
    monkeypatch.setattr(interfaces, "list_interfaces", lambda: found)
    assert lan.local_addresses() == interfaces.local_addresses() == ["192.0.2.5", "198.51.100.7"]


# ---------------------------------------------------------------------- owner-only files
def test_identity_is_written_owner_only_and_its_directory_fsyncd(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from p2pcards.identity import load_or_create

    synced: list[str] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append("dir" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    home = tmp_path / "home"
    load_or_create(home, "Ana")
    assert synced == ["file", "dir"]  # the rename survives a power cut too
    load_or_create(home, "Rui")  # a new name rewrites the file the same way
    assert synced == ["file", "dir"] * 2
    assert stat.S_IMODE((home / "identity.key").stat().st_mode) == 0o600
    assert [p.name for p in home.iterdir()] == ["identity.key"]  # no temporary file left behind
    assert load_or_create(home).name == "Rui"


# ---------------------------------------------------------------------- the benchmark's group
def test_modp2048_is_the_benchmarks_not_the_decks() -> None:
    import p2pcards.mental
    from p2pcards.mental import GroupError, group_by_name
    from p2pcards.tools.bench_deck import Modp2048

    assert not hasattr(p2pcards.mental, "Modp2048") and not hasattr(p2pcards.mental.group, "Modp2048")
    with pytest.raises(GroupError):
        group_by_name("modp2048")
    group = Modp2048()
    group.validate(group.hash_to_element(b"card"))


# ---------------------------------------------------------------------- Hypothesis profiles
def test_the_thorough_profile_runs_ten_times_the_examples_a_test_pins(monkeypatch: pytest.MonkeyPatch) -> None:
    @settings(max_examples=7)
    @given(st.integers())
    def pinned(n: int) -> None:
        pass

    @settings(max_examples=400)
    @given(st.integers())
    def many(n: int) -> None:
        pass

    class Item:
        def __init__(self, obj: object) -> None:
            self.obj = obj

    items: Any = [Item(pinned), Item(pinned), Item(many), Item(lambda: None)]  # a parametrized test: two items
    conftest.pytest_collection_modifyitems(items)
    assert pinned._hypothesis_internal_use_settings.max_examples == 7  # type: ignore[attr-defined]
    monkeypatch.setattr(conftest, "PROFILE", "thorough")
    conftest.pytest_collection_modifyitems(items)
    assert pinned._hypothesis_internal_use_settings.max_examples == 70  # type: ignore[attr-defined]
    assert many._hypothesis_internal_use_settings.max_examples == conftest.THOROUGH_EXAMPLES  # type: ignore[attr-defined]
    assert settings.get_profile("thorough").max_examples == conftest.THOROUGH_EXAMPLES
    assert settings.get_profile("ci").deadline is None
