"""Files only their owner may read, written so that a crash leaves the old one or the new one.

The user's identity (``identity.key``), a bot's identity, a table's manifest: each is written
to a temporary file beside it (mode 0600, in a 0700 directory), fsync'd, renamed over the old
one, and then the directory is fsync'd too, so that the rename itself survives a power cut.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["fsync_dir", "write_private"]


def write_private(path: Path, data: bytes) -> None:
    """Write ``path`` atomically, owner-only (0600), fsync'd with its directory (made 0700 if new)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    fsync_dir(path.parent)


def fsync_dir(directory: Path) -> None:
    """Make the entries of ``directory`` (a file created or renamed there) durable; a file
    system that cannot fsync a directory is left as it is."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
