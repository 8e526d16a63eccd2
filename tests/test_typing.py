"""The package's types are checked with the suite: a type error fails the tests like a bug."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
def test_mypy_strict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``mypy`` with the project's config ([tool.mypy]: strict, p2pcards and plugins) passes."""
    try:
        from mypy import api
    except ImportError:
        pytest.skip("mypy is not installed: pip install -e '.[test]'")
    monkeypatch.chdir(ROOT)  # the config's `files` are relative to the repo root
    stdout, stderr, status = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / "mypy-cache")]
    )
    assert status == 0, f"mypy reported errors (exit status {status}):\n{stdout}{stderr}"
