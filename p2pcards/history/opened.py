"""A transcript read from disk and followed to its end, with every deal the audit opened.

:func:`read_transcript` reads a log file (``DATA/tables/<id>/seatN.log``) and tells a torn
last frame (a process killed while it wrote) from damage (frames that stop following one
another before the end).  :func:`open_transcript` follows the messages with an observer
replica, as ``p2pcards audit`` does, and keeps for each closed deal the table's ``deal``
event and, when the audit opened the cards, the deal in the arena's record format
(:func:`p2pcards.core.records.deal_record`): hands at the start, events, tricks, result.
"""

from __future__ import annotations

import errno
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2pcards.core import GameRegistry, GameSpec
from p2pcards.core.records import play_record
from p2pcards.history import HistoryError
from p2pcards.table.audit import replay_transcript
from p2pcards.table.events import DealClosed, Ended, TableEvent
from p2pcards.table.transcript import VERSION, Genesis, TranscriptError, VersionError, parse_message
from p2pcards.table.wire import FrameDecoder, FrameError, unpack

__all__ = ["Opened", "open_transcript", "read_transcript"]


def read_transcript(path: Path | str) -> tuple[list[bytes], int]:
    """The messages of the log at ``path`` and the number of bytes of a torn last frame
    after them (0: none).  Raises :class:`HistoryError` for a file that cannot be read, is
    not a transcript, or is damaged before its end (``p2pcards audit`` says the same).

    A torn last frame is what a crash in the middle of a write leaves: ``p2pcards resume``
    (:func:`p2pcards.net.store.read_log`) cuts it off and goes on, and so do the readers of a
    log.  Frames that stop following one another before the end are damage, not a crash."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        known = {errno.ENOENT: "ENOENT", errno.EACCES: "EACCES", errno.EISDIR: "EISDIR"}.get(exc.errno or 0)
        reason: object = HistoryError.said(f"os_error_{known}") if known else exc.strerror or str(exc)
        raise HistoryError.said("err_read", path=str(path), reason=reason) from None
    decoder = FrameDecoder()
    try:
        messages = decoder.feed(data)
    except FrameError as exc:
        at = len(data) - decoder.pending  # where the frame that breaks the rules starts
        whole = len(FrameDecoder().feed(data[:at])) if at else 0
        if whole:
            raise HistoryError.said("err_log_damaged", path=str(path), whole=whole, at=at, error=str(exc)) from None
        raise HistoryError.said("err_not_a_log", path=str(path), error=str(exc)) from None
    if not messages:
        if decoder.pending:
            raise HistoryError.said("err_not_a_log_partial", path=str(path), n=decoder.pending)
        raise HistoryError.said("err_not_a_log_empty", path=str(path))
    try:
        first = unpack(messages[0])
    except FrameError as exc:
        raise HistoryError.said("err_not_a_log", path=str(path), error=str(exc)) from None
    if isinstance(first, dict) and first.get("kind") == "genesis" and first.get("v") != VERSION:
        raise HistoryError.said("err_log_version", path=str(path), theirs=first.get("v"), ours=VERSION)
    try:
        env = parse_message(messages[0], None)
    except VersionError as exc:
        raise HistoryError(f"{path}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 -- any failure: not a genesis
        raise HistoryError.said("err_not_a_log_genesis", path=str(path), error=str(exc)) from None
    if env.kind != "genesis":
        raise HistoryError.said("err_not_a_log_no_genesis", path=str(path))
    return messages, decoder.pending


@dataclass
class Opened:
    """Where a transcript leads (:func:`open_transcript`)."""

    genesis: Genesis
    spec: GameSpec
    #: the table's ``deal`` events, one per closed deal, as a live replica emits them
    events: list[dict[str, Any]] = field(default_factory=list)
    #: the table's ``final`` event, once the transcript reaches the table's end
    final: dict[str, Any] | None = None
    #: per deal number, the deal in the arena's record format, for the deals the audit opened
    records: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: the first message the observer refuses: ``{seq, seat or None, reason}`` (None: none)
    error: dict[str, Any] | None = None
    #: messages followed (the genesis included)
    count: int = 0

    @property
    def table_id(self) -> bytes:
        return self.genesis.table_id


def open_transcript(messages: Sequence[bytes], registry: GameRegistry) -> Opened:
    """Follow ``messages`` (a genesis first) with an observer replica to their end or to
    the first message it refuses (``error``).  Raises :class:`HistoryError` when the
    genesis is bad or names a game that is not installed here."""
    try:
        genesis = Genesis.from_body(parse_message(messages[0], None).body)
    except VersionError as exc:
        raise HistoryError.said("err_transcript_version", error=str(exc)) from None
    except (TranscriptError, FrameError, IndexError) as exc:
        raise HistoryError.said("err_transcript_genesis", error=str(exc)) from None
    try:
        spec = registry.get(genesis.game)
    except KeyError as exc:
        raise HistoryError.said("err_cannot_read_table", reason=exc.args[0]) from None
    out = Opened(genesis, spec)

    def on_event(event: TableEvent) -> None:
        if isinstance(event, Ended):
            out.final = event.to_json()
        elif isinstance(event, DealClosed) and event.replay is not None:
            out.records[event.deal] = {**play_record(spec, 0, event.deal, event.replay),
                                       "totals": list(event.totals), "match_over": event.match_over,
                                       "winner": event.winner}

    followed = replay_transcript(messages, registry, spec=spec, on_event=on_event)
    if followed.table is None:
        reason = followed.error["reason"] if followed.error else "no replica"
        raise HistoryError.said("err_cannot_read_table", reason=reason)
    out.events, out.error, out.count = [e.to_json() for e in followed.events], followed.error, followed.count
    return out
