"""Dishonest peers in the mesh runtime (nodes over in-memory streams, trio's mock clock):
what only the runtime can get right -- here, an equivocation at the last place that the
attacker shows one way to some links and another way to the others, and a choice out of
turn refused while the person it was meant for still thinks."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import trio
import trio.testing

from p2pcards.net import Node, log_path
from p2pcards.table.audit import audit_transcript
from p2pcards.table.events import Output
from tests import attackers
from tests.test_voteout_net import REGISTRY, _Deaf, _frames, _run, _table, _wire


class _Loud(attackers.CrossWaitEquivocator):
    """Sends both of its plays; the links choose which one each process hears."""

    def decide(self, choice: Any) -> Output:
        had = self.second
        out = super().decide(choice)
        if had is None and self.second is not None:
            out.send.append(self.second)
        return out


class _OneBranch(_Deaf):
    """The attacker's link, as one honest process hears it: only one of the two plays
    (``second``: only the second one; else only the first), in everything it sends."""

    def __init__(self, attacker: attackers.CrossWaitEquivocator, second: bool) -> None:
        super().__init__(trio.testing.memory_stream_pair()[0], author=-1, from_seq=0)
        self.attacker, self.second = attacker, second

    def drops(self, payload: bytes) -> bool:
        t = self.attacker
        if t.second is None:
            return False
        first = t.log[_signed_seq(t.second)] if len(t.log) > _signed_seq(t.second) else None
        return payload == (first if self.second else t.second)


def _signed_seq(raw: bytes) -> int:
    from tests.test_voteout_net import _signed

    return int(_signed(raw)["seq"])


#: Tables (fixed keys, so the same hands every run) whose first deal offers the attacker two
#: last cards of a trick that give the lead to different sides (the first one does).
SEEDS = (1, 3, 4)


async def test_an_equivocation_at_the_last_place_is_found_by_the_idle_sync(tmp_path, autojump_clock):
    """Seat 0 hears one play of seat 1 for the last card of a trick, seats 2 and 3 the
    other, each branch waiting for a seat of the other.  At half the timeout each process
    asks the others for the deal so far: the two plays meet, every honest process writes
    or takes the fork certificate, and seat 1 loses the deal -- nobody is voted out."""
    for attempt in SEEDS:  # the hand must offer two such cards at a trick's end
        spec, raw, seats = _table("sueca", deals=2, timeout=4.0, seed=attempt)
        made: list[_Loud] = []

        def table_class(*a: Any, made: list[_Loud] = made, **kw: Any) -> _Loud:
            made.append(_Loud(*a, **kw))
            return made[-1]

        nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"run{attempt}" / f"n{i}", linger=0,
                      table_class=table_class if i == 1 else attackers.Table)
                 for i, s in enumerate(seats)]
        attacker = made[0]
        _wire(nodes, {(0, 1): _OneBranch(attacker, second=False), (2, 1): _OneBranch(attacker, second=True),
                      (3, 1): _OneBranch(attacker, second=True)})
        await _run(nodes)
        if attacker.tried:
            break
    assert attacker.tried, "the attack happened"
    table_id = nodes[0].table_id
    logs = [_frames(log_path(nodes[s].data_dir, table_id, s)) for s in (0, 2, 3)]
    assert all(x == logs[0] for x in logs), "the honest processes hold one transcript"
    report = audit_transcript(logs[0], REGISTRY)
    first = report["deals"][0]
    assert (first["verdict"], first["seat"], first["kind"]) == ("fault", 1, "equivocation"), first
    assert report["votes"] == [], "nobody was voted out: the evidence settled it"


class _Thinker:
    """The person's seat as the node sees it -- an asynchronous player that ``listens`` --
    taking ``think`` seconds over each decision; ``seen`` keeps, for each, what its replica
    had refused by the time it answered."""

    listens = True

    def __init__(self, inner: Any, think: float) -> None:
        self.inner, self.think = inner, think
        self.node: Node | None = None
        self.seen: list[list[str]] = []

    async def achoose(self, view: Any, decision: Any) -> Any:
        await trio.sleep(self.think)
        assert self.node is not None
        self.seen.append([f"{exc.blame}: {exc.reason}" for _, exc in self.node.rejections[0]])
        return self.inner.choose(view, decision)

    def choose(self, view: Any, decision: Any) -> Any:
        return self.inner.choose(view, decision)


async def test_a_choice_out_of_turn_is_refused_while_the_person_it_was_meant_for_thinks(tmp_path, autojump_clock):
    """Seat 3 writes a choice for seat 0's place the moment seat 0 must choose.  Seat 0 is
    a person, who takes a while: the node files what arrives meanwhile, so the person's
    replica refuses it, blaming seat 3, before the person has chosen (a screen says so
    then, not after); the deal goes on as if it had never been sent."""
    spec, raw, seats = _table("sueca", deals=1, timeout=30.0, seed=1)
    thinker = _Thinker(seats[0].player, think=2.0)
    seats[0] = dataclasses.replace(seats[0], player=thinker)
    made: list[attackers.OutOfTurn] = []

    def table_class(*a: Any, **kw: Any) -> attackers.OutOfTurn:
        made.append(attackers.OutOfTurn(*a, **kw))
        return made[-1]

    nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"n{i}", linger=0,
                  table_class=table_class if i == 3 else attackers.Table) for i, s in enumerate(seats)]
    thinker.node = nodes[0]
    _wire(nodes, {})
    await _run(nodes)
    assert made[0].tried, "the attack happened"
    assert any(line.startswith("3: out of turn") for line in thinker.seen[0]), thinker.seen[0]
    report = audit_transcript(_frames(log_path(nodes[0].data_dir, nodes[0].table_id, 0)), REGISTRY)
    assert report["ok"] and report["votes"] == [] and len(thinker.seen) == 10, report


class _Slow:
    """A computer player that takes ``think`` seconds over each decision (not listening)."""

    def __init__(self, inner: Any, think: float) -> None:
        self.inner, self.think = inner, think

    async def achoose(self, view: Any, decision: Any) -> Any:
        await trio.sleep(self.think)
        return self.inner.choose(view, decision)

    def choose(self, view: Any, decision: Any) -> Any:
        return self.inner.choose(view, decision)


class _Counter(_Thinker):
    """A listening person who takes ``think`` seconds over each decision and counts how
    often each kind of decision was asked, and how often a question was withdrawn."""

    def __init__(self, inner: Any, think: float) -> None:
        super().__init__(inner, think)
        self.asked: dict[str, int] = {}
        self.withdrawn = 0

    async def achoose(self, view: Any, decision: Any) -> Any:
        self.asked[decision.kind] = self.asked.get(decision.kind, 0) + 1
        try:
            await trio.sleep(self.think)
        except trio.Cancelled:
            self.withdrawn += 1
            raise
        return self.inner.choose(view, decision)


@pytest.mark.parametrize("me", [0, 2, 3])
async def test_a_pass_is_asked_once_while_the_others_passes_come_in(tmp_path, autojump_clock, me):
    """Copas' pass is decided by every seat (written in seat order).  The others' passes
    arriving while the person thinks do not move the person's decision, whatever the
    person's seat: it is asked once, never withdrawn (a withdrawn question would clear the
    cards the person had marked)."""
    spec, raw, seats = _table("copas", deals=1, timeout=30.0, seed=2)
    person = _Counter(seats[me].player, think=2.0)
    seats[me] = dataclasses.replace(seats[me], player=person)
    for i in range(4):  # the others pass a moment after the person is asked, one after the other
        if i != me:
            seats[i] = dataclasses.replace(seats[i], player=_Slow(seats[i].player, 0.2 * (i + 1)))
    nodes = [Node(raw, spec, [s], data_dir=tmp_path / f"n{i}", linger=0) for i, s in enumerate(seats)]
    person.node = nodes[me]
    _wire(nodes, {})
    await _run(nodes)
    assert person.asked.get("pass") == 1 and person.withdrawn == 0, (person.asked, person.withdrawn)
    assert person.asked.get("play") in (12, 13)  # (the two of clubs is led for its holder)
