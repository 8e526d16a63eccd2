"""Random schedules (a property test): messages delivered in any order, some dropped (the
runtime's sync brings them again), honest processes restarted at any step from their logs
and the votes and nays they kept, and one dishonest peer among them (tests/attackers.py).
Whatever the schedule, no honest seat is ever voted out or blamed, and the honest replicas
never end on different chains."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.table.table import Table
from p2pcards.testing.table_mesh import OBSERVER, LocalMesh
from tests import attackers
from tests.table_helpers import deals_of, make_net

ATTACKER = 1
#: Dishonest peers that act by themselves (no router needed), and None: all honest.
KINDS: list[type[Table] | None] = [None, attackers.InstantVoter, attackers.RetroVoter, attackers.FalseDisputer,
                                   attackers.PastClaimer, attackers.GarbledSealer, attackers.SeedWithholder,
                                   attackers.Framer, attackers.Prober]
STEPS = 6_000


@dataclass
class _Chaos(LocalMesh):
    """A mesh that delivers its queue in a random order and drops some messages."""

    rng: random.Random = field(default_factory=random.Random)
    drop: float = 0.0
    dropped: int = 0

    def step(self) -> bool:
        queue = self._queue
        if len(queue) > 1:
            queue.rotate(-self.rng.randrange(len(queue)))  # any of them comes first
        if queue and self.rng.random() < self.drop:
            queue.popleft()
            self.dropped += 1
            return True
        return super().step()


def _restart(net: Any, mesh: _Chaos, seat: int) -> None:
    old = net.tables[seat]
    fresh = Table(net.genesis, net.spec, net.ids[seat], net.secrets[seat])
    out = fresh.restore(list(old.log), list(mesh.signed.get(seat, [])))
    net.tables[seat] = mesh.tables[seat] = fresh
    mesh.send(seat, out.send)


@pytest.mark.slow
@settings(max_examples=12)
@given(seed=st.integers(0, 2**32 - 1), kind=st.sampled_from(KINDS), drop=st.sampled_from([0.0, 0.02, 0.05]),
       restarts=st.integers(0, 3))
def test_no_schedule_blames_or_splits_the_honest_seats(seed: int, kind: type[Table] | None, drop: float,
                                                       restarts: int) -> None:
    rng = random.Random(seed)
    net = make_net("copas", deals=1, seed=seed % 1000, table_class={ATTACKER: kind} if kind else None)
    mesh = _Chaos(dict(enumerate(net.tables)), dict(enumerate(net.players)), observer=net.observer, rng=rng,
                  drop=drop)
    net.mesh = mesh
    honest = [s for s in range(4) if kind is None or s != ATTACKER]
    restart_at = sorted(rng.randrange(1, 600) for _ in range(restarts))
    mesh.start()
    for step in range(STEPS):
        while restart_at and step >= restart_at[0]:
            restart_at.pop(0)
            _restart(net, mesh, rng.choice(honest))
        if not mesh.step():
            break
    else:
        raise AssertionError(f"no end after {STEPS} steps")
    logs = [net.tables[s].log for s in honest]
    longest = max(logs, key=len)
    assert all(log == longest[: len(log)] for log in logs), "honest replicas on different chains"
    assert all(net.tables[s].finished for s in honest), "an honest replica did not reach the end"
    assert all(t.log == longest for t in (net.tables[s] for s in honest))
    for t in [*(net.tables[s] for s in honest), net.observer]:
        assert all(v["seat"] not in honest for v in t.outvotes), "an honest seat was voted out"
    for deal in deals_of([e.to_json() for e in mesh.events.get(OBSERVER, [])]):
        assert deal["audit"]["seat"] not in honest, deal["audit"]
