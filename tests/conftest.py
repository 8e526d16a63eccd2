"""What the whole suite shares: the data directory, a runner for the ``p2pcards`` command,
Hypothesis profiles, and the ``slow`` marker.

Hypothesis profiles (``HYPOTHESIS_PROFILE``; README, "Tests"):

* ``ci`` (the default, what ``.ci/run`` runs): quick -- each property test runs the number
  of examples it asks for (Hypothesis's 100 where it asks for none), no deadline (a
  shuffle with proofs takes longer than Hypothesis's 200 ms on a busy machine);
* ``thorough`` (``HYPOTHESIS_PROFILE=thorough``): ten times as many, up to
  :data:`THOROUGH_EXAMPLES` a test, including the tests that pin a small number because
  each example plays a whole deal.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

#: The most examples a property test runs under the ``thorough`` profile.
THOROUGH_EXAMPLES = 1000

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", settings.get_profile("ci"), max_examples=THOROUGH_EXAMPLES)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)  # an unknown name fails the run, saying which ones there are

#: ``cli(*argv)``: run ``p2pcards ARGV`` in this process; its exit status and what it printed.
Cli = Callable[..., tuple[int, str]]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under the ``thorough`` profile, a property test that pins its number of examples
    runs ten times as many (at most :data:`THOROUGH_EXAMPLES`)."""
    if PROFILE != "thorough":
        return
    done: set[int] = set()  # a parametrized test is one function behind several items
    for item in items:
        test = getattr(item, "obj", None)
        pinned = getattr(test, "_hypothesis_internal_use_settings", None)  # what @settings left on it
        if test is None or not hasattr(test, "hypothesis") or pinned is None or id(test) in done:
            continue
        done.add(id(test))
        if pinned.max_examples < THOROUGH_EXAMPLES:
            more = min(pinned.max_examples * 10, THOROUGH_EXAMPLES)
            test._hypothesis_internal_use_settings = settings(pinned, max_examples=more)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh data directory (``$P2PCARDS_HOME``: identity, tables, logs) for this test."""
    path = tmp_path / "home"
    monkeypatch.setenv("P2PCARDS_HOME", str(path))
    return path


@pytest.fixture
def cli() -> Cli:
    """Run the ``p2pcards`` command in this process: ``code, out = cli("games", "--json")``."""

    from p2pcards.cli import main  # here, not at the top: a broken cli.py fails its own tests only

    def run(*argv: str) -> tuple[int, str]:
        out = io.StringIO()
        code = main(list(argv), out)
        return code, out.getvalue()

    return run
