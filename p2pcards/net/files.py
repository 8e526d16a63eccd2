"""One local peer's files at a table, written from its replica's outputs
(protocol/TRANSPORT.md, "Files"; :mod:`p2pcards.net.store` holds the formats).

Each :class:`~p2pcards.table.events.Output` of a replica is taken (:meth:`PeerFiles.take`)
and what several outputs ask for is written at once (:meth:`PeerFiles.commit`): the log cut
where a certificate took the place of entries, the new entries appended and fsync'd, this
seat's own entries the table did not accept kept apart (``<stem>.rejected``), and its own
votes and nays kept (``<stem>.side``) -- all before anything that follows from them is
sent.  Without a data directory nothing is written, and the counts are kept all the same.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from p2pcards.net.errors import NetError, ResumeError
from p2pcards.net.store import FrameFile, Manifest, StoreError, TableLog, log_path, save_manifest, side_path
from p2pcards.table.events import Output

__all__ = ["PeerFiles", "keep_manifest"]

log = logging.getLogger("p2pcards.net.files")


class PeerFiles:
    """The log, side and rejected files of seat ``seat`` (``stem`` names them) at table
    ``table_id`` in ``data_dir`` (None: no files).  ``saved``: what the log held when the
    seat was taken up again (the file goes on from there); ``secret``: written beside a
    new log."""

    def __init__(self, data_dir: Path | None, table_id: bytes, seat: int, stem: str, secret: bytes,
                 saved: Sequence[bytes] | None = None) -> None:
        self.data_dir = data_dir
        self.table_id = table_id
        self.seat = seat
        self.stem = stem
        self._secret = secret
        self._saved = list(saved) if saved is not None else None
        self.log: TableLog | None = None
        self.side: FrameFile | None = None
        self.rejected: FrameFile | None = None
        #: entries the log holds (on disk, or that would be)
        self.written = len(saved) if saved is not None else 0
        # what the outputs taken since the last commit ask for: the log cut to ``_cut``
        # entries, then ``_entries`` appended
        self._cut = self.written
        self._entries: list[bytes] = []
        self._superseded: list[bytes] = []
        self._signed: list[bytes] = []

    @property
    def path(self) -> Path | None:
        if self.data_dir is None:
            return None
        return log_path(self.data_dir, self.table_id, self.seat, self.stem)

    def open(self) -> None:
        """Open (or create) the files.  Raises :class:`NetError` (:class:`ResumeError` for a
        saved log that cannot be continued)."""
        path = self.path
        if path is None or self.log is not None:
            return
        assert self.data_dir is not None
        try:
            if self._saved is not None:
                self.log = TableLog.reopen(path, self._saved)
            else:
                self.log = TableLog(self.data_dir, self.table_id, self.seat, self._secret, stem=self.stem)
            self.side = FrameFile(side_path(path, "side"))
            self.rejected = FrameFile(side_path(path, "rejected"))
        except FileExistsError:
            raise NetError(f"{path} exists already") from None
        except StoreError as exc:
            raise ResumeError(str(exc)) from None
        except OSError as exc:
            raise NetError(f"cannot write the table log: {exc}") from None

    def take(self, out: Output) -> None:
        """Note what ``out`` asks to be written (:meth:`commit` writes it)."""
        if out.rewind is not None:
            if out.rewind <= self._cut:
                self._cut, self._entries = out.rewind, []
            else:
                del self._entries[out.rewind - self._cut:]
        self._entries += out.entries
        self._superseded += out.superseded
        self._signed += out.signed

    @property
    def pending(self) -> bool:
        """Whether anything taken is not written yet."""
        return self._cut != self.written or bool(self._entries or self._superseded or self._signed)

    def commit(self) -> None:
        """Write what the outputs taken since the last commit ask for (fsync'd)."""
        if self._superseded and self.rejected is not None:
            self.rejected.append(self._superseded)
        if self._cut < self.written:  # a certificate took the place of entries
            log.warning("seat %d: entries from seq %d on were superseded by a certificate; the log is cut there "
                        "(this seat's own are kept apart, in %s.rejected)", self.seat, self._cut, self.stem)
            if self.log is not None:
                self.log.truncate(self._cut)
        if self._entries and self.log is not None:
            self.log.append(self._entries)
        if self._signed and self.side is not None:
            self.side.append(self._signed)
        self.written = self._cut + len(self._entries)
        self._cut, self._entries, self._superseded, self._signed = self.written, [], [], []

    def set_aside(self, tail: Sequence[bytes]) -> None:
        """The last ``tail`` entries of the log were never confirmed by another seat: cut
        them from the log and keep them apart with the rejected ones."""
        if not tail or self.log is None:
            return
        if self.rejected is not None:
            self.rejected.append(tail)
        self.log.truncate(self.written - len(tail))
        self.written -= len(tail)
        self._cut = self.written
        log.warning("seat %d: its last %d message(s) were never confirmed by another seat; kept apart in "
                    "%s.rejected", self.seat, len(tail), self.stem)

    def close(self) -> None:
        for f in (self.log, self.side, self.rejected):
            if f is not None:
                f.close()


def keep_manifest(data_dir: Path, manifest: Manifest, ended: str | None = None) -> Manifest:
    """Save the process's ``manifest`` (marked finished, as ``ended``, when given): the
    manifest as saved.  A failure to write it is logged (the table plays on)."""
    if ended is not None:
        manifest = replace(manifest, finished=True, ended=ended)
    try:
        save_manifest(data_dir, manifest)
    except OSError as exc:
        log.warning("cannot write the table manifest: %s", exc)
    return manifest
