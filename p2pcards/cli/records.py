"""``p2pcards export``, ``replay``, ``history``, ``stats`` and ``audit``: what was played,
read back (:mod:`p2pcards.history`; the replay's screen is :mod:`p2pcards.tui.replay`), and
saved transcripts checked offline, several logs of one table compared
(:mod:`p2pcards.table.audit`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from p2pcards.cli.common import CliError, _is_terminal, _load, _words


def cmd_export(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.export import run_export

    try:
        return run_export(args.logfile, args.json, out, _load(), _words())
    except HistoryError as exc:
        raise CliError.of(exc) from None


def cmd_replay(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.replay import follow_log
    from p2pcards.tui.replay import replay_match, seat_of_log
    from p2pcards.words import default_lang

    try:
        match = follow_log(args.logfile, _load())
    except HistoryError as exc:
        raise CliError.of(exc) from None
    seats = match.spec.seats
    if args.seat is not None and not 1 <= args.seat <= seats:
        raise CliError.said("err_replay_seat", title=match.spec.title, seats=seats, seat=args.seat)
    if not _is_terminal(out):
        raise CliError.said("err_replay_terminal")
    seat = args.seat - 1 if args.seat is not None else seat_of_log(Path(args.logfile))
    return replay_match(match, lang=args.start_lang or default_lang(), seat=seat)


def _text(args: argparse.Namespace) -> Any:
    """The words of a command's output for people: ``--lang`` (before the command), else
    the locale's language."""
    from p2pcards.words import Text, default_lang

    return Text(args.start_lang or default_lang())


def cmd_history(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.stats import run_history
    from p2pcards.identity import data_dir

    try:
        return run_history(data_dir(), args.game, args.player, args.json, args.rebuild, out, _load(), _text(args))
    except HistoryError as exc:
        raise CliError.of(exc) from None


def cmd_stats(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.history import HistoryError
    from p2pcards.history.stats import run_stats
    from p2pcards.identity import data_dir

    try:
        return run_stats(data_dir(), args.json, out, _load(), _text(args))
    except HistoryError as exc:
        raise CliError.of(exc) from None


def cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    logs, reports = _audit_logs(args.logfile)
    disagreements = _disagreements(logs)
    ok = all(r["ok"] for r in reports) and not disagreements
    if args.json:
        if len(logs) == 1:
            print(json.dumps(reports[0]), file=out)
        else:
            print(json.dumps({"ok": ok, "logs": [{"path": p, **r} for (p, _), r in zip(logs, reports)],
                              "agree": not disagreements, "disagreements": disagreements}), file=out)
        return 0 if ok else 1
    for (path, messages), report in zip(logs, reports):
        if len(logs) > 1:
            print(f"{path}:", file=out)
        _print_audit(report, len(messages), out)
    for d in disagreements:
        print(_words()("audit_disagree", path=d["path"], other=d["with"], seq=d["seq"]), file=out)
    return 0 if ok else 1


def _audit_logs(paths: list[str]) -> tuple[list[tuple[str, list[bytes]]], list[dict[str, Any]]]:
    """Each log's messages and its audit (a torn last frame, a crash, is audited up to it,
    with a warning; anything else that is not a log is an error: exit 2)."""

    from p2pcards.history import HistoryError
    from p2pcards.history.opened import read_transcript
    from p2pcards.net.store import FrameFile, StoreError, side_path
    from p2pcards.table.audit import audit_transcript

    try:
        read = [(path, read_transcript(path)) for path in paths]
    except HistoryError as exc:
        raise CliError.of(exc) from None
    registry = _load()
    reports = []
    for path, (messages, torn) in read:
        report = audit_transcript(messages, registry)
        try:
            report["rejected"] = len(FrameFile.read(side_path(Path(path), "rejected")))
        except StoreError:
            report["rejected"] = 0
        report["torn_tail"] = {"bytes": torn, "seq": len(messages)} if torn else None
        reports.append(report)
    return [(path, messages) for path, (messages, _) in read], reports


def _disagreements(logs: list[tuple[str, list[bytes]]]) -> list[dict[str, Any]]:
    """Where each log parts from the longest (none: they are one transcript)."""
    longest = max(range(len(logs)), key=lambda i: len(logs[i][1]))
    ref_path, ref = logs[longest]
    out = []
    for i, (path, messages) in enumerate(logs):
        if i == longest:
            continue
        part = next((k for k, (a, b) in enumerate(zip(messages, ref)) if a != b), None)
        if part is not None or len(messages) > len(ref):
            out.append({"path": path, "with": ref_path, "seq": part if part is not None else len(ref)})
    return out


def _print_audit(report: dict[str, Any], count: int, out: TextIO) -> None:
    """One log's audit, for people, in the command's language (the audit's own reasons stay
    as p2pcards.table says them)."""
    t = _words()

    def seats(items: list[int]) -> str:
        names = [str(s + 1) for s in items]
        return "".join(names) if len(names) < 2 else t("text_and", a=", ".join(names[:-1]), b=names[-1])

    messages = t.plural("audit_messages", count)
    if report.get("table") and report.get("game"):
        print(t("audit_head", table=report["table"][:16], game=report["game"], messages=messages), file=out)
    else:
        print(t("audit_no_genesis", messages=messages), file=out)
    torn = report["torn_tail"]
    if torn:
        print(t("audit_torn", bytes=torn["bytes"], seq=torn["seq"]), file=out)
    for d in report.get("deals", []):
        who = t("audit_seat", n=d["seat"] + 1) if d.get("seat") is not None else ""
        why = f": {d['reason']}" if d.get("reason") else ""
        verdict = t(f"audit_verdict_{d['verdict']}") if f"audit_verdict_{d['verdict']}" in t else d["verdict"]
        print(t("audit_deal", deal=d["deal"] + 1, verdict=verdict, who=who, why=why), file=out)
    for v in report.get("votes", []):
        print(t("audit_vote", seat=v["seat"] + 1, deal=v["deal"] + 1, seq=v["seq"], voters=seats(v["voters"])),
              file=out)
    for a in report.get("abandons", []):
        if a.get("taken_up"):
            behind = t("audit_behind", n=a["behind"]) if a.get("behind") else ""
            print(t("audit_taken_up", by=a["by"] + 1, behind=behind, deal=a["deal"] + 1, seq=a["seq"]), file=out)
    if report.get("abandoned"):
        a = report["abandoned"]
        behind = t("audit_behind", n=a["behind"]) if a.get("behind") else ""
        waiting = t.plural("audit_waiting", len(a["waiting_for"]), seats=seats(a["waiting_for"]))
        print(t("audit_abandoned", by=a["by"] + 1, behind=behind, deal=a["deal"] + 1, waiting=waiting), file=out)
    if report.get("rejected"):
        print(t.plural("audit_rejected", report["rejected"]), file=out)
    err = report.get("error")
    if err:
        who = t("audit_unattributed") if err.get("seat") is None else t("audit_seat_of", n=err["seat"] + 1)
        print(t("audit_error", seq=err.get("seq"), who=who, reason=err.get("reason")), file=out)
    if report.get("ok"):
        print(t("audit_ok", totals=report.get("totals"), transcript=str(report.get("transcript_hash"))[:16]),
              file=out)
    else:
        print(t("audit_fault"), file=out)
