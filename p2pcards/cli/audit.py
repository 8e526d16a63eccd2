"""``p2pcards audit``: a saved transcript checked offline, and several logs of one table
compared."""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from p2pcards.cli.common import CliError, _and, _count, _load


def cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    from pathlib import Path

    from p2pcards.net.store import FrameFile, StoreError, side_path

    try:
        from p2pcards.history import HistoryError
        from p2pcards.history.opened import read_transcript
        from p2pcards.table.audit import audit_transcript
    except ImportError:
        raise CliError("this build of p2pcards has no transcript audit (p2pcards.table.audit)") from None
    try:  # a torn last frame (a crash) is audited up to it, with a warning; anything else is not a log: exit 2
        read = [(path, read_transcript(path)) for path in args.logfile]
    except HistoryError as exc:
        raise CliError(str(exc)) from None
    logs = [(path, messages) for path, (messages, _) in read]
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
    disagreements = []
    longest = max(range(len(logs)), key=lambda i: len(logs[i][1]))
    for i, (path, messages) in enumerate(logs):
        ref_path, ref = logs[longest]
        if i == longest:
            continue
        part = next((k for k, (a, b) in enumerate(zip(messages, ref)) if a != b), None)
        if part is not None or len(messages) > len(ref):
            disagreements.append({"path": path, "with": ref_path, "seq": part if part is not None else len(ref)})
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
        if report.get("table") and report.get("game"):
            print(f"table {report['table'][:16]} of {report['game']}: {_count(len(messages), 'message')}", file=out)
        else:
            print(f"a transcript of {_count(len(messages), 'message')} whose genesis (its first message, which "
                  "names the table and the game) does not verify", file=out)
        torn = report["torn_tail"]
        if torn:
            print(f"WARNING: the last {torn['bytes']} bytes do not make a whole frame: message seq {torn['seq']} was "
                  "being written when the process stopped (it was never sent; `p2pcards resume` cuts it off); the "
                  "messages before it are audited", file=out)
        for d in report.get("deals", []):
            who = f" seat {d['seat'] + 1}" if d.get("seat") is not None else ""
            why = f": {d['reason']}" if d.get("reason") else ""
            print(f"deal {d['deal'] + 1}: {d['verdict']}{who}{why}", file=out)
        for v in report.get("votes", []):
            print(f"seat {v['seat'] + 1} was voted out in deal {v['deal'] + 1} (seq {v['seq']}) by seats "
                  f"{_and([str(s + 1) for s in v['voters']])}; a dummy from then on", file=out)
        if report.get("abandoned"):
            a = report["abandoned"]
            print(f"abandoned by seat {a['by'] + 1} in deal {a['deal'] + 1}, waiting for seat(s) "
                  f"{_and([str(s + 1) for s in a['waiting_for']])}: no winner", file=out)
        if report.get("rejected"):
            print(f"{report['rejected']} message(s) of this seat were not accepted by the table (kept apart, not "
                  "part of the transcript)", file=out)
        err = report.get("error")
        if err:
            who = "unattributed" if err.get("seat") is None else f"seat {err['seat'] + 1}"
            print(f"error at message seq {err.get('seq')} ({who}): {err.get('reason')}", file=out)
        if report.get("ok"):
            print(f"OK: totals {report.get('totals')}, transcript {str(report.get('transcript_hash'))[:16]}", file=out)
        else:
            print("FAULT: this transcript does not verify", file=out)
    for d in disagreements:
        print(f"DISAGREE: {d['path']} parts from {d['with']} at seq {d['seq']}: they are not the same transcript",
              file=out)
    return 0 if ok else 1
