"""A transcript read from disk and followed to its end, with every deal the audit opened.

:func:`read_transcript` reads a log file (``DATA/tables/<id>/seatN.log``) and tells a torn
last frame (a process killed while it wrote) from damage (frames that stop following one
another before the end).  :func:`open_transcript` follows the messages with an observer
replica, as ``p2pcards audit`` does, and keeps for each closed deal the table's ``deal``
event and, when the audit opened the cards, the deal in the arena's record format
(:func:`p2pcards.core.records.deal_record`): hands at the start, events, tricks, result.
"""

from __future__ import annotations

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
        raise HistoryError(f"cannot read {path}: {exc.strerror or exc}") from None
    not_a_log = f"{path} is not a p2pcards transcript log"
    decoder = FrameDecoder()
    try:
        messages = decoder.feed(data)
    except FrameError as exc:
        at = len(data) - decoder.pending  # where the frame that breaks the rules starts
        whole = len(FrameDecoder().feed(data[:at])) if at else 0
        if whole:
            raise HistoryError(f"{path} is damaged after its first {whole} message(s), at byte {at}: {exc}; a log "
                               "cut short by a crash loses only the end of its last frame") from None
        raise HistoryError(f"{not_a_log}: {exc}") from None
    if not messages:
        what = (f"it holds no whole message: its {decoder.pending} bytes do not make a whole frame"
                if decoder.pending else "the file is empty")
        raise HistoryError(f"{not_a_log}: {what}")
    try:
        first = unpack(messages[0])
    except FrameError as exc:
        raise HistoryError(f"{not_a_log}: {exc}") from None
    if isinstance(first, dict) and first.get("kind") == "genesis" and first.get("v") != VERSION:
        raise HistoryError(f"{path}: it was written with protocol version {first.get('v')!r} of p2pcards; this "
                           f"version speaks protocol {VERSION} and cannot check it")
    try:
        env = parse_message(messages[0], None)
    except VersionError as exc:
        raise HistoryError(f"{path}: {exc}") from None
    except Exception as exc:  # noqa: BLE001 -- any failure: not a genesis
        raise HistoryError(f"{not_a_log}: its first message is not a table's genesis ({exc})") from None
    if env.kind != "genesis":
        raise HistoryError(f"{not_a_log}: its first message is not a table's genesis")
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
        raise HistoryError(f"the transcript is of another protocol version: {exc}") from None
    except (TranscriptError, FrameError, IndexError) as exc:
        raise HistoryError(f"the transcript does not start with a table's genesis: {exc}") from None
    try:
        spec = registry.get(genesis.game)
    except KeyError as exc:
        raise HistoryError(f"cannot read this table here: {exc.args[0]}") from None
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
        raise HistoryError(f"cannot read this table here: {reason}")
    out.events, out.error, out.count = [e.to_json() for e in followed.events], followed.error, followed.count
    return out
