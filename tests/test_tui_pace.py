"""The full-screen table's computer players: paced, gated, and thinking off the trio thread."""

from __future__ import annotations

import random
import threading
from typing import Any

import trio

from p2pcards.core import load_games
from p2pcards.core.view import SeatView
from p2pcards.tui.runtime import Gate, PacedBot

SPEC = load_games().get("sueca")


class _Recorder:
    def __init__(self, thinks: bool) -> None:
        self.thinks = thinks
        self.threads: list[str] = []

    def choose(self, view: SeatView, decision: Any) -> Any:
        self.threads.append(threading.current_thread().name)
        return view.legal[0]


def _position() -> tuple[SeatView, Any]:
    match = SPEC.new_match(SPEC.resolve_options(), 0)
    cards = list(SPEC.deck)
    random.Random(5).shuffle(cards)
    deal = match.new_deal(cards)
    while type(deal.step()).__name__ != "Decision":
        deal.complete()
    seat = deal.step().seats[0]
    return SeatView(deal, seat), deal.step()


async def test_a_thinking_bot_thinks_in_a_worker_thread_and_a_quick_one_does_not():
    view, decision = _position()
    for thinks in (True, False):
        inner = _Recorder(thinks)
        bot = PacedBot(inner, lambda: 0.0, Gate())
        choice = await bot.achoose(view, decision)
        assert choice in view.legal
        in_trio = threading.current_thread().name in inner.threads
        assert in_trio is not thinks


async def test_a_closed_gate_holds_the_decision_until_it_opens():
    view, decision = _position()
    inner = _Recorder(True)
    gate = Gate()
    gate.close()
    bot = PacedBot(inner, lambda: 0.0, gate)
    got: list[Any] = []

    async def decide() -> None:
        got.append(await bot.achoose(view, decision))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(decide)
        await trio.sleep(0.05)
        assert not got and not inner.threads
        gate.open()
    assert got and got[0] in view.legal


def test_a_searching_bot_is_capped_at_the_pace_within_bounds():
    from p2pcards.players import bot_budget
    from p2pcards.tui.runtime import think_budget

    assert [think_budget(s) for s in (0.0, 0.05, 0.8, 3.0)] == [100, 100, 800, 1000]
    assert bot_budget(None, 800) == {"cap_ms": 800}  # the level's worlds, within the pace
    assert bot_budget(7, 800) == {}  # a seeded match: the level's worlds, no clock (replayed, whatever the load)
