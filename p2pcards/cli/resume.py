"""``p2pcards resume``: taking up again the seats of a table this process was playing, with
a terminal on the full-screen table; ``resume --list``."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from p2pcards.cli.common import (
    CliError,
    _identity,
    _is_terminal,
    _left_note,
    _load,
    _run_net,
    _words,
)
from p2pcards.cli.printer import _network_start, _TablePrinter
from p2pcards.core import GameRegistry


def _resume(found: Any, me: Any, registry: GameRegistry, printer: _TablePrinter, linger: float,
            abandon: bool = False, text: bool = False, lang: str | None = None, speed: float | None = None) -> int:
    """Take up ``found``'s seats: the person's seat on the full-screen table on a terminal,
    in line mode at a table against the computer with ``text`` or without a terminal (as
    ``play`` does), else (``--json``, ``--abandon``, a LAN table without a terminal) every
    seat headless, the person's by a computer player."""
    from p2pcards.net import resume_table
    from p2pcards.net.store import PERSON

    if any(p.level == PERSON for p in found.manifest.peers) and not printer.json and not abandon:
        if _is_terminal(printer.out) and not text:
            return _resume_on_screen(found, me, registry, printer.data, lang, speed)
        if found.manifest.role == "local":
            return _resume_in_lines(found, me, registry, printer.out, lang)

    async def main() -> None:
        await resume_table(found.path, me=me, registry=registry, data_dir=printer.data, on_resumed=printer.resumed,
                           on_table=printer.on_table, on_event=printer.on_event, linger=linger, abandon=abandon,
                           recorder=printer.recorder)

    return _run_net(main)


def _resume_on_screen(found: Any, me: Any, registry: GameRegistry, data: Any, lang: str | None = None,
                      speed: float | None = None) -> int:
    """A table with the person's seat, resumed on the full-screen table."""
    from p2pcards.net import ResumeError
    from p2pcards.tui.app import run_local_table
    from p2pcards.tui.lan import ResumePlan, play_lan
    from p2pcards.tui.runtime import LocalTable
    from p2pcards.words import Text, default_lang

    lang = lang or default_lang()
    if found.manifest.role == "local":
        try:
            table = LocalTable.resume(found.path, registry, me=me, text=Text(lang), speed=speed)
        except ResumeError as exc:
            print(_words()("cli_error", reason=exc), file=sys.stderr)
            return 1
        return _left_note(run_local_table(table), lang)
    return _left_note(play_lan(registry, ResumePlan(found.path), me=me, lang=lang, data_dir=data,
                               speed=0.8 if speed is None else speed), lang)


def _resume_in_lines(found: Any, me: Any, registry: GameRegistry, out: TextIO, lang: str | None) -> int:
    """A table against the computer with the person's seat, resumed in line mode."""
    from p2pcards.net import ResumeError
    from p2pcards.textplay import resume_text
    from p2pcards.words import default_lang

    try:
        return resume_text(found.path, registry, me=me, lang=lang or default_lang(), inp=sys.stdin, out=out)
    except ResumeError as exc:
        print(_words()("cli_error", reason=exc), file=sys.stderr)
        return 1


def describe_saved(found: Any) -> str:
    """A table this identity played here, in one line for people, in the command's
    language: its id, game, role, seats and where (``p2pcards.net``'s ``describe()``, in
    words)."""
    t = _words()
    m = found.manifest
    if m.role == "local":
        where = t("resume_local")
    elif m.dial:
        where = t("resume_joined", address=f"{m.dial[0]}:{m.dial[1]}")
    else:
        where = t("resume_hosted_port", port=m.listen[1]) if m.listen else t("resume_hosted")
    role = t(f"resume_role_{m.role}") if f"resume_role_{m.role}" in t else m.role
    return t("resume_row", table=m.table_hex[:16], game=m.game, role=role, where=where,
             seats_word=t.plural("resume_seats", len(m.seats)), seats=", ".join(str(s + 1) for s in m.seats))


def cmd_resume_list(args: argparse.Namespace, out: TextIO) -> int:
    """``resume --list``: every table this identity played here, unfinished or ended."""
    from p2pcards.identity import data_dir
    from p2pcards.net import unfinished_tables

    me = _identity()
    found = unfinished_tables(data_dir(), me, prefix=args.table, ended=True)
    for f in found:
        m = f.manifest
        obj = {"type": "saved", "table": m.table_hex, "game": m.game, "role": m.role, "seats": list(m.seats),
               "state": f.state, "path": str(f.path.parent), "may_take_up": f.may_take_up}
        state = f"{f.state}_takeup" if f.may_take_up else f.state
        text = f"{describe_saved(f)}: {_words()(f'resume_state_{state}', prefix=m.table_hex[:8])}"
        print(json.dumps(obj) if args.json else text, file=out)
    if not args.json:
        note = _older_note()
        if not found:
            print(_words()("resume_none", data=data_dir(), older=note), file=out)
        elif note:
            print(note.strip(" ()").capitalize(), file=out)
    return 0


def _older_note() -> str:
    """A sentence about tables saved by an older p2pcards, which cannot be resumed ('' if none)."""
    from p2pcards.identity import data_dir
    from p2pcards.net.store import older_manifests

    older = older_manifests(data_dir())
    if not older:
        return ""
    return _words()("resume_older", n=len(older))


def cmd_resume(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.net import unfinished_tables

    prefix = args.table
    if prefix is not None and (not prefix or any(c not in "0123456789abcdefABCDEF" for c in prefix)):
        raise CliError.said("err_table_prefix", prefix=prefix)
    if args.list:
        return cmd_resume_list(args, out)
    if args.speed is not None and not 0 <= args.speed <= 10:
        raise CliError.said("err_speed")
    registry = _load()
    linger, me, printer = _network_start(args, out, registry)
    found = unfinished_tables(printer.data, me, prefix=prefix, abandoned=prefix is not None)
    if not found:
        t = _words()
        which = t("err_no_unfinished_which", prefix=prefix) if prefix else ""
        print(t("cli_error", reason=t("err_no_unfinished", which=which, data=printer.data, older=_older_note())),
              file=sys.stderr)
        return 1
    if len(found) > 1:
        raise CliError.said("err_several_unfinished", names="; ".join(describe_saved(f) for f in found))
    if args.abandon and found[0].manifest.role == "local":
        return _throw_away(found[0], printer)
    return _resume(found[0], me, registry, printer, linger, args.abandon, args.text, args.start_lang, args.speed)


def _throw_away(found: Any, printer: _TablePrinter) -> int:
    """``resume --abandon`` of a table against the computer: every seat is this process's,
    so nobody is asked; the table ends abandoned, with no winner (manifest and history)."""
    from p2pcards.net.store import StoreError
    from p2pcards.tui.runtime import throw_away

    m = found.manifest
    try:
        throw_away(found.path)
    except StoreError as exc:
        t = _words()
        print(t("cli_error", reason=t("err_cannot_abandon", table=m.table_hex[:16], error=exc)), file=sys.stderr)
        return 1
    printer.line({"type": "abandoned", "table": m.table_hex, "game": m.game, "role": m.role},
                 _words()("resume_thrown", table=m.table_hex[:16], game=m.game, path=found.path.parent))
    return 0
