"""Whole matches of every game among separate OS processes over TCP on loopback.

One ``p2pcards host`` process (seat 0 a random bot) and one ``p2pcards join`` process per
remote seat play a match to its end; every peer must finish with the same transcript,
every deal audited clean, and every log verified by ``p2pcards audit``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards.core import load_games

GAMES = ["sueca", "bisca", "copas", "sobe-e-desce"]
TIMEOUT = 240


def _spawn(args: list[str], home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "P2PCARDS_HOME": str(home)}
    return subprocess.Popen([sys.executable, "-m", "p2pcards", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_a_whole_match_among_os_processes(game: str, tmp_path: Path) -> None:
    seats = load_games().get(game).seats
    spec = ",".join(["bot:random"] + ["remote"] * (seats - 1))
    host = _spawn(["host", game, "--bind", "127.0.0.1", "--port", "0", "--seats", spec, "--json",
                   "--timeout", "60", "--lobby-timeout", "60"], tmp_path / "host")
    procs = [host]
    try:
        assert host.stdout is not None
        first = json.loads(host.stdout.readline())
        assert first["type"] == "listening", first
        for i in range(1, seats):
            procs.append(_spawn(["join", f"127.0.0.1:{first['port']}", "--bot", "random", "--json"],
                                tmp_path / f"join{i}"))
        outputs = [p.communicate(timeout=TIMEOUT) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    finals = []
    for p, (out, err) in zip(procs, outputs, strict=True):
        assert p.returncode == 0, err[-3000:]
        events = [json.loads(line) for line in out.splitlines() if line.strip()]
        deals = [e for e in events if e["type"] == "deal"]
        final = events[-1]
        assert final["type"] == "final" and final["winner"] is not None, final
        assert deals and all(d["audit"]["verdict"] == "clean" for d in deals)
        assert deals[-1]["match_over"], "the match was played to its end"
        finals.append(final)
    assert len({f["transcript_hash"] for f in finals}) == 1
    logs = [Path(f["log"]).read_bytes() for f in finals]
    assert all(log == logs[0] for log in logs), "every peer holds the same transcript, byte for byte"
    audit = subprocess.run([sys.executable, "-m", "p2pcards", "audit", finals[0]["log"], "--json"],
                           capture_output=True, text=True, timeout=120)
    assert audit.returncode == 0 and json.loads(audit.stdout)["winner"] == finals[0]["winner"]
