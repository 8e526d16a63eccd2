"""Discovery on a real (virtual) LAN: multicast DNS between network namespaces.

Four namespaces on one bridge (``tests/lan.py``); nothing leaves them.  Skipped, with the
reason, when not root or without iproute2.  The avahi check also needs the Debian packages
avahi-daemon, avahi-utils and dbus (it is skipped without them).

The table found and joined by name plays a whole Sueca match to the bandeira.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from p2pcards.identity import load_or_create
from p2pcards.net import PROTO
from tests.lan import Lan, built

TTL = 3  # seconds: the --mdns-ttl of the crashing host


@pytest.fixture(scope="module")
def lan() -> Any:
    yield from built(4)


def _tables(lan: Lan, i: int, home: Path, *extra: str) -> list[dict[str, Any]]:
    code, out, err = lan.run(i, "tables", "--json", "--wait", "1.5", *extra, home=home)
    assert code == 0, err
    tables: list[dict[str, Any]] = json.loads(out)["tables"]
    return tables


_BOGUS = """
import sys, trio
from zeroconf import ServiceInfo
from p2pcards.discovery import Announcement, open_discovery
from p2pcards.discovery.record import SERVICE_TYPE
from p2pcards.net import PROTO

async def main():
    async with open_discovery(ttl=5) as disco:
        chess = Announcement(proto=PROTO, game="chess", rules_version="1", seats_taken=1, seats_total=2,
                             host_name="kasparov", host_fingerprint="aaaa-bbbb-cccc-dddd")
        await disco.announce("chess-table", 4444, chess, ["10.213.0.3"])
        info = ServiceInfo(SERVICE_TYPE, "garbage." + SERVICE_TYPE, port=4445, properties=b"\\x09txtvers=9\\x03???",
                           server="garbage.local.", parsed_addresses=["10.213.0.3"], host_ttl=5, other_ttl=5)
        await trio.to_thread.run_sync(disco._zc.register_service, info)
        print("ready", flush=True)
        await trio.sleep(60)

trio.run(main)
"""


@pytest.mark.slow
def test_a_table_is_found_joined_by_name_and_played(lan: Lan, tmp_path: Path) -> None:
    host_home = tmp_path / "host"
    host_fp = load_or_create(host_home).fingerprint
    host = lan.spawn(1, "host", "sueca", "--seats", "bot,remote,remote,remote", "--json",
                     "--timeout", "30", "--lobby-timeout", "60", home=host_home)
    # other tables on the LAN: a game not installed here, and a record that cannot be read
    bogus = lan.spawn(3, home=tmp_path / "bogus", program=[sys.executable, "-c", _BOGUS])
    watcher = lan.spawn(4, "tables", "--watch", "--json", "--wait", "60", home=tmp_path / "watcher")
    port = host.next_json(lambda o: o["type"] == "listening")["port"]
    name = host.next_json(lambda o: o["type"] == "announced", timeout=15)["name"]
    assert name.startswith("sueca-")
    assert bogus.lines.get(timeout=15) == "ready\n", bogus.describe()

    listed = {t["name"]: t for t in _tables(lan, 2, tmp_path / "lister")}
    assert set(listed) == {name, "chess-table", "garbage"}
    ours = listed[name]
    assert ours["joinable"] and ours["reason"] is None
    assert (ours["game"], ours["seats"], ours["taken"], ours["free"], ours["deals"]) == ("sueca", 4, 1, 3, None)
    assert ours["address"] == lan.address(1) and ours["port"] == port
    assert ours["host"]["fingerprint"] == host_fp
    assert listed["chess-table"]["reason"] == "it plays chess, which is not installed here"
    assert listed["garbage"]["reason"].startswith("malformed announcement: TXT format version (txtvers) '9'")

    # neither can be joined by mistake
    mistake = lan.spawn(2, "join", "chess-table", "--wait", "5", home=tmp_path / "mistake")
    seen = [watcher.next_json(lambda o: o.get("table", {}).get("name") == name)]

    joiners = []
    for i in (2, 3, 4):  # one after the other, so that the watcher sees every seat taken
        j = lan.spawn(i, "join", name, "--json", "--bot", "random", home=tmp_path / f"joiner{i}")
        found = j.next_json(lambda o: o["type"] == "found")
        assert found["table"]["host"]["fingerprint"] == host_fp
        j.next_json(lambda o: o["type"] == "seated")
        joiners.append(j)
    lister = lan.spawn(3, "tables", "--json", "--wait", "2", home=tmp_path / "lister")

    assert mistake.wait(10) == 1 and "cannot be joined: it plays chess" in "".join(mistake.err), mistake.describe()
    bogus.kill()
    finals = []
    for proc in [host, *joiners]:
        final = proc.next_json(lambda o: o["type"] == "final", timeout=150)
        assert proc.wait(15) == 0, proc.describe()
        finals.append(final)
    assert len({f["transcript_hash"] for f in finals}) == 1 and finals[0]["deals"] >= 1
    assert finals[0]["winner"] is not None and max(finals[0]["totals"]) >= 4, "a whole match, to the bandeira"
    for proc in [host, *joiners]:
        assert "Traceback" not in "".join(proc.err) and "WARNING" not in "".join(proc.err), proc.describe()

    # the watcher saw the seats fill, then the table withdrawn as it started full
    while seen[-1]["type"] != "vanish":
        seen.append(watcher.next_json(lambda o: o.get("name", o.get("table", {}).get("name")) == name, timeout=10))
    watcher.interrupt()
    changes = [(o["type"], o.get("table", {}).get("taken")) for o in seen]
    changes = [c for k, c in enumerate(changes) if k == 0 or c != changes[k - 1]]
    assert changes == [("appear", 1), ("update", 2), ("update", 3), ("vanish", None)]
    # and a listing made once it was full does not show it
    assert lister.wait(10) == 0, lister.describe()
    assert name not in {t["name"] for t in json.loads("".join(lister.out))["tables"]}


def test_a_killed_host_vanishes_by_ttl_over_ipv6(lan: Lan, tmp_path: Path) -> None:
    host = lan.spawn(1, "host", "bisca", "--seats", "bot,remote", "--bind", "::", "--ip-version", "6",
                     "--mdns-ttl", str(TTL), "--table-name", "doomed", "--json", home=tmp_path / "host")
    host.next_json(lambda o: o["type"] == "announced", timeout=15)
    watcher = lan.spawn(2, "tables", "--watch", "--json", "--ip-version", "6", "--wait", "60",
                        home=tmp_path / "watcher")
    appear = watcher.next_json(lambda o: o["type"] == "appear", timeout=10)
    assert appear["table"]["name"] == "doomed"
    assert appear["table"]["address"] == "fd13:213::1"  # on this LAN, ahead of the link-local one
    assert any(a.startswith("fe80::213:1") for a in appear["table"]["addresses"])

    # alive, it stays listed past its TTL: the browser asks again before the records expire
    time.sleep(TTL + 0.5)
    assert not [line for line in watcher.out if '"vanish"' in line]

    host.kill()  # kill -9: no goodbye
    killed = time.monotonic()
    vanish = watcher.next_json(lambda o: o["type"] == "vanish", timeout=TTL + 8)
    gone_after = time.monotonic() - killed
    watcher.interrupt()
    assert vanish["name"] == "doomed"
    assert gone_after <= TTL + 2.5, gone_after


_BUS_CONF = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={path}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/>
  </policy>
</busconfig>
"""

_AVAHI_CONF = """[server]
use-ipv4=yes
use-ipv6=no
allow-interfaces=lan0
enable-dbus=yes
[publish]
disable-publishing=yes
"""


def _avahi_browse(lan: Lan, bus: str, home: Path) -> list[list[str]]:
    """Resolved entries (`avahi-browse -rtp`) of _p2pcards._tcp seen from host 3."""
    proc = lan.spawn(3, home=home, program=["avahi-browse", "-r", "-t", "-p", "_p2pcards._tcp"],
                     env={"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={bus}"})
    assert proc.wait(15) == 0, proc.describe()
    return [line.rstrip("\n").split(";") for line in proc.out if line.startswith("=")]


@pytest.mark.skipif(not all(shutil.which(p) for p in ("avahi-daemon", "avahi-browse", "dbus-daemon", "unshare")),
                    reason="the avahi check needs the Debian packages avahi-daemon, avahi-utils and dbus")
def test_avahi_browse_sees_the_table_and_its_goodbye(lan: Lan, tmp_path: Path) -> None:
    bus = str(tmp_path / "bus")
    (tmp_path / "bus.conf").write_text(_BUS_CONF.format(path=bus))
    (tmp_path / "avahi.conf").write_text(_AVAHI_CONF)
    env = {"DBUS_SYSTEM_BUS_ADDRESS": f"unix:path={bus}"}
    dbus = lan.spawn(3, home=tmp_path, program=["dbus-daemon", "--nofork", "--config-file", str(tmp_path / "bus.conf")])
    deadline = time.monotonic() + 10
    while not Path(bus).exists():
        assert time.monotonic() < deadline and dbus.popen.poll() is None, dbus.describe()
        time.sleep(0.05)
    # a private /run/avahi-daemon (for its pid file), so a daemon of the machine's own is no obstacle
    avahi = lan.spawn(3, home=tmp_path, env=env, program=[
        "unshare", "-m", "sh", "-c", "mkdir -p /run/avahi-daemon && mount -t tmpfs none /run/avahi-daemon && "
        f"exec avahi-daemon --no-drop-root --no-chroot --no-rlimits -f {tmp_path / 'avahi.conf'}"])
    host = lan.spawn(1, "host", "bisca", "--seats", "bot,remote", "--table-name", "Mesa do Zé", "--json",
                     home=tmp_path / "host")
    port = host.next_json(lambda o: o["type"] == "listening")["port"]
    host.next_json(lambda o: o["type"] == "announced", timeout=15)
    entries: list[list[str]] = []
    deadline = time.monotonic() + 15
    while not entries:
        assert avahi.popen.poll() is None, avahi.describe()
        assert time.monotonic() < deadline, "avahi-browse never resolved the table"
        entries = [e for e in _avahi_browse(lan, bus, tmp_path) if e[3] == "Mesa\\032do\\032Z\\195\\169"]
    entry = entries[0]  # =;IFACE;PROTO;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;TXT
    assert entry[4] == "_p2pcards._tcp" and entry[7] == lan.address(1) and entry[8] == str(port)
    txt = entry[9]
    for item in ('"txtvers=1"', '"game=bisca"', '"seats=1/2"', f'"proto={PROTO}"'):
        assert item in txt, txt

    host.interrupt()  # Ctrl-C: the host withdraws the table with a goodbye
    assert host.wait(15) == 130, host.describe()
    stopped = time.monotonic()
    # avahi keeps a record for one second after its goodbye (RFC 6762 §10.1); far less than its TTL (120 s)
    while [e for e in _avahi_browse(lan, bus, tmp_path) if e[3] == "Mesa\\032do\\032Z\\195\\169"]:
        assert time.monotonic() - stopped < 10, "avahi still lists the table after its goodbye"
        time.sleep(0.5)
    avahi.kill()
    dbus.kill()
