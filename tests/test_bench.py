"""``p2pcards bench rules`` prints figures and ratios (no timing is asserted)."""

from __future__ import annotations

import io
import json
import pstats

import pytest

from p2pcards.cli import main


def test_bench_rules_json_shape():
    out = io.StringIO()
    assert main(["bench", "rules", "--seconds", "0.05", "--rounds", "2", "--json"], out) == 0
    report = json.loads(out.getvalue())
    assert report["baseline"]["deals_per_second"] > 0 and report["rounds"] == 2
    assert {"sueca", "bisca", "copas", "sobe-e-desce"} <= set(report["games"])
    for g in report["games"].values():
        assert g["deals_per_second"] > 0 and g["deals"] >= 1 and g["ratio_to_baseline"] > 0
    assert report["aim"]["game"] == "sueca" and isinstance(report["aim"]["met"], bool)


def test_bench_rules_human_output():
    out = io.StringIO()
    assert main(["bench", "rules", "--seconds", "0.05"], out) == 0
    text = out.getvalue()
    assert "baseline" in text and "x baseline" in text and "aim: sueca" in text


def test_bench_table_runs_four_processes_and_reports(tmp_path):
    out = io.StringIO()
    profile = tmp_path / "joiner.prof"
    assert main(["bench", "table", "--deals", "1", "--json", "--profile", str(profile)], out) == 0
    report = json.loads(out.getvalue())
    # the processor time from the table's start leaves Python's start-up and the handshake out
    in_play, whole = report["table_cpu_ms_per_deal_per_process"], report["cpu_ms_per_deal_per_process"]
    assert len(in_play) == 4 and all(0 < a < b for a, b in zip(in_play, whole))
    assert report["profile"] == str(profile)
    stats = pstats.Stats(str(profile))  # one replica's profile: it ran the table's code
    assert any("table/replica.py" in f for f, _, _ in stats.stats)
    assert report["deals"] == 1 and len(report["ms_per_deal"]) == 1 and report["ms_per_deal"][0] > 0
    assert len(report["bytes_sent_per_seat"]) == 4 and min(report["bytes_sent_per_seat"]) > 1000
    assert len(report["peak_rss_mb_per_process"]) == 4
    assert len(report["cpu_ms_per_deal_per_process"]) == 4 and min(report["cpu_ms_per_deal_per_process"]) > 0
    assert report["baseline"]["cpu_ms_per_deal_per_replica"] > 0
    assert report["baseline"]["ms_per_deal"] > 0 and report["ratio_to_baseline"] > 0
    assert report["baseline"]["deals"] == 1  # as many deals as over the network
    assert isinstance(report["aims"]["met"], bool)
    assert report["messages_per_deal"] > 40 and report["fsync_ms"] > 0


def test_bench_sim_command_times_and_cross_checks_the_simulators():
    out = io.StringIO()
    assert main(["bench", "sim", "--seconds", "0.05", "--check", "300", "--json"], out) == 0
    report = json.loads(out.getvalue())
    assert {"sueca", "bisca"} <= set(report["games"])
    for g in report["games"].values():
        assert g["deals_per_second"] > 0 and g["plugin"]["deals_per_second"] > 0
        assert g["cross_check"]["positions"] >= 300 and g["cross_check"]["ok"]
    assert report["cross_check_ok"] is True and report["aim"]["game"] == "sueca"


def test_bench_rules_takes_the_best_slice_of_each_rate_and_counts_every_slice(monkeypatch):
    import p2pcards.tools.bench_rules as bench_rules

    slices = iter([(1000.0, 10), (900.0, 9), (1500.0, 15), (1200.0, 12)])  # baseline, game, baseline, game
    monkeypatch.setattr(bench_rules, "bench_baseline", lambda seconds: next(slices))
    monkeypatch.setattr(bench_rules, "bench_game", lambda spec, seconds: next(slices))
    report = bench_rules.run_rules_bench({"sueca": object()}, 1.0, rounds=2)  # type: ignore[dict-item]
    assert report["baseline"]["deals_per_second"] == 1500.0 and report["baseline"]["deals"] == 25
    assert report["games"]["sueca"]["deals_per_second"] == 1200.0 and report["games"]["sueca"]["deals"] == 21
    assert report["games"]["sueca"]["ratio_to_baseline"] == 0.8 and report["rounds"] == 2


def test_bench_rules_refuses_no_rounds(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["bench", "rules", "--rounds", "0"], io.StringIO())
    assert stop.value.code == 2
    assert "--rounds must be positive" in capsys.readouterr().err


def test_bench_sim_refuses_bad_numbers(capsys):
    for argv, words in ((["--seconds", "0"], "positive"), (["--check", "-1"], "0 or more")):
        with pytest.raises(SystemExit) as stop:
            main(["bench", "sim", *argv], io.StringIO())
        assert stop.value.code == 2
        assert words in capsys.readouterr().err


def test_bench_table_says_its_deals_in_the_singular_and_its_aims_verdict(monkeypatch):
    import p2pcards.tools.bench_table as bench_table

    report = {"deals": 1, "ms_per_deal": [900.0], "ms_per_deal_mean": 900.0, "bytes_sent_per_seat": [5000] * 4,
              "peak_rss_mb_per_process": [60.0] * 4, "messages_per_deal": 60, "fsync_ms": 1.0,
              "cpu_ms_per_deal_per_process": [150.0] * 4, "table_cpu_ms_per_deal_per_process": [120.0] * 4,
              "profile": "/tmp/p.prof",
              "baseline": {"note": "in one process", "ms_per_deal": 300.0, "cpu_ms_per_deal_per_replica": 140.0},
              "ratio_to_baseline": 3.0,
              "aims": {"met": False, "ms_per_deal": 500.0, "rss_mb": 100.0}}
    monkeypatch.setattr(bench_table, "run_table_bench", lambda deals, profile: report)
    out = io.StringIO()
    assert main(["bench", "table", "--deals", "1"], out) == 0
    text = out.getvalue()
    assert text.startswith("1 audited Sueca deal, four processes on loopback\n")
    assert "aims: <= 500 ms per deal, <= 100 MB per peer: NOT met" in text
    assert "from the table's start (no Python start-up, no handshake): [120.0, 120.0, 120.0, 120.0]" in text
    assert "profile of the first joining process: /tmp/p.prof" in text
