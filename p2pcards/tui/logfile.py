"""While a screen is up, nothing but prompt-toolkit writes to the terminal.

A line written to standard error behind prompt-toolkit's back lands in the middle of the
drawn table and stays there until the next full redraw.  :func:`screen_logging` sends every
log record (the runtime's warnings about rejected messages, dropped links, votes; Python
warnings; asyncio's complaints) to a rotated file under the data directory for as long as a
screen runs, and puts the process's logging back as it was afterwards.  What a person must
know is shown by the screen itself (the status line, the seats' state, the verdicts), and a
message the person's replica refused is passed to ``on_refused`` for the screen to say.

The file is ``DATA/logs/p2pcards.log`` (DATA as in :func:`p2pcards.identity.data_dir`),
at most 1 MiB, with three older files kept (``p2pcards.log.1`` .. ``.3``).  If it cannot be
opened, records are dropped: a screen never fails for want of a log.
"""

from __future__ import annotations

import logging
import logging.handlers
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from p2pcards.net.node import REFUSED_RECORD

__all__ = ["LOG_BACKUPS", "LOG_BYTES", "log_path", "screen_logging"]

LOG_BYTES = 1 << 20
LOG_BACKUPS = 3


def log_path(data_dir: Path) -> Path:
    """Where the screens' log goes under ``data_dir``."""
    return data_dir / "logs" / "p2pcards.log"


class _Refused(logging.Handler):
    """Hands each refused-message record to the screen: ``(replica's seat, blamed seat)``."""

    def __init__(self, on_refused: Callable[[int, int | None], None]) -> None:
        super().__init__(logging.WARNING)
        self.on_refused = on_refused

    def emit(self, record: logging.LogRecord) -> None:
        refused = getattr(record, REFUSED_RECORD, None)
        if refused is not None:
            self.on_refused(*refused)


@contextmanager
def screen_logging(data_dir: Path | None,
                   on_refused: Callable[[int, int | None], None] | None = None) -> Iterator[Path | None]:
    """Route all logging to the data directory's log file (or nowhere) inside the block, and
    refused messages (warnings) to ``on_refused``; yields the file's path, or None when
    there is none."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level, logging.lastResort
    handler: logging.Handler
    path: Path | None = None
    try:
        if data_dir is None:
            raise OSError("no data directory")
        path = log_path(data_dir)
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(path, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS,
                                                       encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s [%(process)d] %(name)s %(levelname)s: %(message)s"))
    except OSError:
        handler, path = logging.NullHandler(), None
    root.handlers = [handler] + ([_Refused(on_refused)] if on_refused is not None else [])
    root.setLevel(logging.INFO)
    logging.lastResort = None  # nothing falls through to stderr
    logging.captureWarnings(True)
    try:
        yield path
    finally:
        logging.captureWarnings(False)
        root.handlers, level, logging.lastResort = saved[0], saved[1], saved[2]
        root.setLevel(level)
        handler.close()
