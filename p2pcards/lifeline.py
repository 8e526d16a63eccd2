"""Processes a command starts die with it.

A command that starts other processes (``duel``'s workers, ``bench table``'s peers) must
not leave them running when it is killed, even by a ``kill -9`` that gives it no chance to
clean up.

* :func:`die_with` -- call it first thing in a worker (a pool's initializer) with the
  command's pid: the worker ends when the command does, whoever its parent is (a
  forkserver's workers are its children, not the command's, and keep it alive).
* :func:`child_preexec` -- ``preexec_fn`` for :class:`subprocess.Popen`: the same for a
  program started by exec (the request survives exec; the child's new program need not
  know about it).
"""

from __future__ import annotations

import ctypes
import os
import select
import signal
import threading
import time
from collections.abc import Callable
from typing import Final

__all__ = ["die_with", "child_preexec"]

#: ``prctl(2)`` option: the signal this process gets when its parent thread exits.
_PR_SET_PDEATHSIG: Final = 1
#: How often the fallback thread looks at its parent (where the kernel cannot tell).
_WATCH_EVERY: Final = 0.5


def _prctl() -> Callable[..., int] | None:
    """libc's ``prctl`` (Linux), or None.  Looked up before any fork: a child between
    fork and exec must not load libraries."""
    if os.uname().sysname != "Linux":
        return None
    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
        return prctl
    except (OSError, AttributeError):
        return None


def _deathsig(prctl: Callable[..., int] | None, sig: int) -> bool:
    """Ask the kernel for ``sig`` when the parent exits; False where it cannot be asked."""
    return prctl is not None and int(prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)) == 0


def die_with(pid: int, sig: int = signal.SIGTERM) -> None:
    """End this process (``sig``) when process ``pid`` ends: call it first thing in a
    worker.  A daemon thread waits for ``pid`` (a pidfd where the system has one, which
    tells even while the dead process is a zombie; else it looks twice a second)."""
    def kill() -> None:
        os.kill(os.getpid(), sig)

    try:
        fd = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    except ProcessLookupError:
        kill()
        return
    except OSError:
        fd = None

    def watch() -> None:
        if fd is not None:
            select.select([fd], [], [])
        else:
            while True:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                except PermissionError:
                    pass
                time.sleep(_WATCH_EVERY)
        kill()

    threading.Thread(target=watch, name="p2pcards-lifeline", daemon=True).start()


def child_preexec() -> Callable[[], None]:
    """A ``preexec_fn`` that makes the started program die with this process (Linux; a
    no-op elsewhere, where a program started by exec cannot be watched from inside)."""
    parent, prctl = os.getpid(), _prctl()

    def preexec() -> None:
        if _deathsig(prctl, signal.SIGTERM) and os.getppid() != parent:
            os._exit(1)

    return preexec
