"""Each replica audits a deal with what its party derived and checked while it played
(``live``); over several deals it reaches, deal by deal, what the offline audit reaches."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from p2pcards.table.audit import replay_transcript
from tests.table_helpers import REGISTRY, make_net, run

# the module, not the function p2pcards.mental re-exports under the same name
mental_audit = importlib.import_module("p2pcards.mental.deck_audit")


@pytest.fixture
def proven(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int | None, int, int]]:
    """(trusted seat, locking seat, how many of its elements the openings proved), per lock checked."""
    out: list[tuple[int | None, int, int]] = []
    opened_right = mental_audit._Auditor._opened_right

    def spy(self: Any, message: Any) -> set[int]:
        positions: set[int] = opened_right(self, message)
        out.append((self.trusted, message.seat, len(positions)))
        return positions

    monkeypatch.setattr(mental_audit._Auditor, "_opened_right", spy)
    return out


def test_every_deal_of_a_match_is_audited_live_as_offline(proven: list[tuple[int | None, int, int]]) -> None:
    # (to 8 game points: a deal gives at most 4, so the match has at least two deals)
    net = run(make_net("sueca", deals=3, options={"target": "8"}))
    deals = [[e for e in events if e["type"] == "deal"] for events in net.events]
    assert len(deals[0]) >= 2 and all(d == deals[0] for d in deals)
    proven.clear()
    offline = replay_transcript(net.tables[0].log, REGISTRY)
    assert offline.error is None and proven and all(trusted is None and n == 0 for trusted, _, n in proven)
    for events in net.events:
        assert [e for e in events if e["type"] == "deal"] == [e.to_json() for e in offline.events]
    assert [e.to_json() for e in offline.events] == deals[0]


def test_the_last_lock_is_proven_by_the_openings_elsewhere(proven: list[tuple[int | None, int, int]]) -> None:
    net = run(make_net("sueca", deals=2, options={"target": "8"}))
    deals = len([e for e in net.events[0] if e["type"] == "deal"])
    # every replica checks the final deck (seat 3's lock) against the seeds rather than
    # recomputing the rounds; each saw all 40 cards opened, so none of its elements is
    # multiplied again there (the observer, which holds no seat, checks them all)
    seated = [p for p in proven if p[0] is not None]
    assert sorted(seated) == sorted([(s, 3, 40) for s in range(4)] * deals)
    assert [p for p in proven if p[0] is None] == [(None, 3, 0)] * deals
