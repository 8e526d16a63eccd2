"""A match taken apart for replaying: every deal of a transcript as a list of steps.

:func:`follow` reads a transcript's messages with an observer replica (as ``p2pcards
audit`` does) and keeps, for each deal, the deal's state after each decision:

* a deal the audit opened (its seeds came in and the deck checked out) is stepped through
  again with every card known -- the same cards and choices the audit replayed -- so every
  hand can be shown at every step;
* a deal that was never opened (voided, forfeited before its cards could be replayed, or
  still being played where the transcript stops) keeps what an observer saw: the cards as
  they were played, the hands only as counts.

Each deal keeps the table's ``deal`` event (result, verdict, totals; None for the deal the
transcript stops in) and each side's measure of it (:func:`p2pcards.history.db.deal_facts`)
for the charts.  Nothing here draws: :mod:`p2pcards.tui.replay` shows the steps on the
full-screen table.  Nothing here needs a key: a transcript is public, and a log copied from
another machine replays the same.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from p2pcards.core import Choice, DealState, Decision, End, GameRegistry, GameSpec, Match, load_games
from p2pcards.history import HistoryError
from p2pcards.history.db import deal_facts
from p2pcards.history.opened import read_transcript
from p2pcards.table.audit import replay_transcript
from p2pcards.table.events import DealClosed, Ended, Output
from p2pcards.table.table import Stage, Table
from p2pcards.table.transcript import Decoded, Genesis, SeatInfo

__all__ = ["DealSteps", "MatchSteps", "Step", "follow", "follow_log"]


@dataclass(frozen=True)
class Step:
    """A deal after one decision (or, first, as dealt): its state (a copy nobody changes),
    who decided what (``seat``, ``choice`` in the plain form the transcript carries, and the
    decision's ``kind``; None for the deal as dealt) and whether this decision closed a
    trick."""

    state: DealState
    seat: int | None = None
    #: a :data:`~p2pcards.core.Plain` (Any while the replay screen narrows its lists loosely)
    choice: Any = None
    kind: str | None = None
    trick_end: bool = False


@dataclass
class DealSteps:
    """One deal of the match (``deal``: the table's deal number, from 0)."""

    deal: int
    #: the match's totals before the deal
    totals_before: list[int]
    steps: list[Step] = field(default_factory=list)
    #: every hand is known at every step (the audit opened the deck)
    opened: bool = False
    #: the table's ``deal`` event (result, audit verdict, totals); None: the transcript
    #: stops inside this deal
    event: dict[str, Any] | None = None
    #: the game's measure of the deal per side (None where it has none), for the charts
    measures: list[float | None] = field(default_factory=list)

    @property
    def tricks(self) -> int:
        """Tricks closed in this deal's steps."""
        return sum(1 for s in self.steps if s.trick_end)


@dataclass
class MatchSteps:
    """A transcript taken apart (:func:`follow`)."""

    genesis: Genesis
    spec: GameSpec
    deals: list[DealSteps] = field(default_factory=list)
    #: the table's ``final`` event once the transcript reaches the table's end
    final: dict[str, object] | None = None
    #: the first message the observer refused: ``{seq, seat or None, reason}``
    error: dict[str, Any] | None = None
    #: messages followed, and the bytes of a torn last frame after them
    count: int = 0
    torn: int = 0

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return self.genesis.seats


def _advance(deal: DealState) -> None:
    """Carry out the steps that need nobody's decision, up to the next decision or the end."""
    while True:
        step = deal.step()
        if isinstance(step, (Decision, End)):
            return
        deal.complete()


def step_through(deal: DealState, choices: Sequence[tuple[int, Choice]]) -> list[Step]:
    """The steps of ``deal`` (a fresh deal with every card known) under ``choices``: the
    deal as dealt, then one step per choice.  Raises ``IllegalChoice`` as the audit would."""
    _advance(deal)
    steps = [Step(deal.copy())]
    for seat, choice in choices:
        step = deal.step()
        kind = step.kind if isinstance(step, Decision) else None
        before = len(deal.tricks)
        deal.apply(seat, choice)
        _advance(deal)
        steps.append(Step(deal.copy(), seat, choice.to_wire(), kind, len(deal.tricks) > before))
    return steps


class _Follower(Table):
    """An observer replica that keeps each deal's steps (module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.taken: list[DealSteps] = []
        self.final: dict[str, object] | None = None
        #: per deal number, the match as it stood before that deal (to step an opened deal again)
        self._before: dict[int, Match] = {}
        super().__init__(*args, **kwargs)

    def _steps_of(self, deal: int) -> DealSteps:
        if not self.taken or self.taken[-1].deal != deal or self.taken[-1].event is not None:
            totals = list(self.match.totals) if self.match is not None else []
            self.taken.append(DealSteps(deal, totals))
        return self.taken[-1]

    def receive(self, raw: bytes | Decoded) -> Output:
        out = super().receive(raw)
        for event in out.events:
            if isinstance(event, DealClosed):
                self._closed(event)
            elif isinstance(event, Ended):
                self.final = event.to_json()
        self._look()
        return out

    def _look(self) -> None:
        """Keep the observer's deal as it now is, if a decision was taken since last time
        (or, first, once the deal is dealt)."""
        game = self.game
        if game is None or self.finished or self.stage == Stage.SETUP:
            return
        taken = self._steps_of(self.deal_no)
        if self.match is not None and self.deal_no not in self._before:
            self._before[self.deal_no] = copy.deepcopy(self.match, {id(self.spec): self.spec})
        if taken.totals_before == [] and self.match is not None:
            taken.totals_before = list(self.match.totals)
        if taken.opened:
            return
        decided = len(self.choices)
        if not taken.steps:
            if decided or isinstance(game.step(), Decision):
                taken.steps.append(Step(game.copy()))
            return
        if decided <= len(taken.steps) - 1:
            # no new decision: the cards dealt or shown since then belong to the last step
            taken.steps[-1] = replace(taken.steps[-1], state=game.copy())
            return
        for index in range(len(taken.steps) - 1, decided):  # (a dummy's plays come several at once)
            before = taken.steps[-1].state
            seat, choice = self.choices[index]
            step = before.step()
            kind = step.kind if isinstance(step, Decision) else None
            taken.steps.append(Step(game.copy(), seat, choice.to_wire(), kind,
                                    len(game.tricks) > len(before.tricks)))

    def _closed(self, event: DealClosed) -> None:
        """A deal closed: an opened one is stepped again over its cards; keep its event."""
        taken = self._steps_of(event.deal)
        match = self._before.pop(event.deal, None)
        if event.replay is not None and match is not None:
            taken.totals_before = list(match.totals)
            taken.steps = step_through(match.new_deal(list(event.replay.deck.cards)),  # type: ignore[arg-type]
                                       event.choices)
            taken.opened = True
        taken.event = event.to_json()
        taken.measures = deal_facts(self.spec, event.result)[0]


def follow(messages: Sequence[bytes], registry: GameRegistry | None = None, *, torn: int = 0) -> MatchSteps:
    """Take the transcript ``messages`` (a genesis first) apart into deals and steps.

    Follows them to their end or to the first message the observer refuses (``error``:
    what comes before is kept).  Raises :class:`HistoryError` when the genesis is bad or
    names a game that is not installed here."""
    registry = registry if registry is not None else load_games()
    followed = replay_transcript(messages, registry, table_class=_Follower)
    table = followed.table
    if table is None or followed.genesis is None or followed.spec is None:
        reason = followed.error["reason"] if followed.error else "no replica"
        raise HistoryError.said("err_cannot_replay_table", reason=reason)
    assert isinstance(table, _Follower)
    out = MatchSteps(followed.genesis, followed.spec, [d for d in table.taken if d.steps or d.event is not None],
                     final=table.final, error=followed.error, count=followed.count, torn=torn)
    return out


def follow_log(path: str | Path, registry: GameRegistry | None = None) -> MatchSteps:
    """:func:`follow` for the transcript log at ``path`` (a torn last frame is left out and
    counted in ``torn``).  Raises :class:`HistoryError` for a file that is not a transcript."""
    messages, torn = read_transcript(Path(path))
    return follow(messages, registry, torn=torn)
