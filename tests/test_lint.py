"""The code is linted with the suite: a ``ruff check`` finding fails the tests like a bug
(beside the strict type check, tests/test_typing.py)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _ruff() -> str | None:
    """The venv's ruff (beside its python), else one on PATH."""
    beside = Path(sys.executable).parent / "ruff"
    return str(beside) if beside.is_file() else shutil.which("ruff")


def test_ruff_check() -> None:
    """``ruff check p2pcards plugins tests`` with the project's config ([tool.ruff]) passes."""
    ruff = _ruff()
    if ruff is None:
        pytest.skip("ruff is not installed: pip install -e '.[test]'")
    proc = subprocess.run([ruff, "check", "--no-cache", "p2pcards", "plugins", "tests"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"ruff reported problems (exit status {proc.returncode}):\n{proc.stdout}{proc.stderr}"
