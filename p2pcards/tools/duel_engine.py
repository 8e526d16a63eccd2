"""Outside engines in a duel: a player that asks a program speaking the engine protocol.

``p2pcards duel --engine COMMAND --b engine:LEVEL`` seats, in B's seats, a player that
sends every decision of its seat to COMMAND as a position of the engine protocol
(protocol/ENGINE.md: the game, its options, the seat, the dealer, the seat's cards at the
deal's start and the deal's events as the seat knows them) and plays the choice it answers.
COMMAND may be another program, or this project's own ``engine`` run from another release,
so that a release's bots can be measured against an earlier one's on the same deals.

Each process that plays pairs starts COMMAND once and keeps it for all its requests (one
line out, one line in, in order); the engine is closed when the process ends.  Each
request names the level (``bot``), the worlds after ``@`` or the duel's ``--iterations``
(``iterations``), the duel's ``--think`` (``think``) and a ``seed`` drawn from the seat's
own random stream, so that a deterministic engine plays the same match again.

An engine that cannot be started, stops, says nothing for :data:`ANSWER_TIMEOUT_S`, refuses
a position, or answers something the rules do not allow raises :class:`EngineFailure`,
which names the engine and what went wrong: the duel stops and nothing is reported.
"""

from __future__ import annotations

import atexit
import json
import random
import select
import shlex
import subprocess
from collections.abc import Mapping, Sequence
from typing import IO, Final

from p2pcards.core import GO_IN, PASS, PLAY, SWAP, Decision, Plain
from p2pcards.core.view import SeatView

__all__ = ["ENGINE_PREFIX", "ANSWER_TIMEOUT_S", "EngineFailure", "EnginePlayer", "close_engines", "engine_levels",
           "position_events", "position_request"]

#: A duel's player ``engine:LEVEL`` (or ``engine:LEVEL@N``) is LEVEL of the outside engine.
ENGINE_PREFIX: Final = "engine:"
#: Longest wait for one answer, in seconds.
ANSWER_TIMEOUT_S: Final = 300.0
#: Longest answer line read, in bytes.
_MAX_LINE: Final = 1 << 20


class EngineFailure(Exception):
    """An outside engine that could not be started, stopped answering, or answered what a
    duel cannot play; the message names the engine and the problem."""


# ---------------------------------------------------------------------- positions
def position_events(view: SeatView) -> list[dict[str, object]]:
    """The deal's events as the engine protocol wants them from ``view``'s seat: the
    view's own (other seats' private cards left out), except that a turned trump card its
    chooser discarded is named in the chooser's ``go_in`` (its place is public: Sobe e
    Desce)."""
    events = [dict(ev) for ev in view.events]
    turned = {str(ev["card"]): ev.get("seat") for ev in events
              if ev.get("type") == "trump" and ev.get("choice") == "turn" and ev.get("card") is not None}
    if turned and view.trump_card is None:  # shown, and neither held nor face up any more
        played = set(view.played)
        for card, chooser in turned.items():
            if card in played or chooser == view.seat:
                continue
            for ev in events:
                if ev.get("type") == "go_in" and ev.get("seat") == chooser and "cards" not in ev:
                    ev["cards"] = [card]
    return events


def position_request(
    view: SeatView, game: str, options: Mapping[str, object], *, ident: object, bot: str, seed: int,
    iterations: int | None = None, think_ms: int | None = None,
) -> dict[str, object]:
    """The engine protocol's position of ``view``'s decision, in the first deal of a match
    (``match_deal`` 0; the view's match totals when it has them)."""
    dealt = view.dealt
    request: dict[str, object] = {
        "id": ident, "game": game, "options": dict(options), "seat": view.seat, "dealer": view.dealer,
        "hand": dealt, "events": position_events(view), "bot": bot, "seed": seed,
    }
    if view.match_totals:
        request["match_totals"] = list(view.match_totals)
    if iterations is not None:
        request["iterations"] = iterations
    if think_ms is not None:
        request["think"] = think_ms
    return request


def _position(view: SeatView, card: object, what: str) -> int:
    for pos, held in view.hand:
        if held == card:
            return pos
    raise EngineFailure(f"{what} {json.dumps(card)[:40]}, which the seat does not hold")


def _choice(view: SeatView, decision: Decision, choice: object, name: str) -> Plain:
    """The engine's ``choice`` (protocol form) as a legal choice of ``decision``."""
    what = f"the engine {name!r} answered"
    legal = view.legal
    if decision.kind == PLAY:
        if isinstance(choice, list) and len(choice) == 2 and choice[0] == SWAP:
            mine: Plain = (SWAP, _position(view, choice[1], what + " a swap of"))
        else:
            mine = _position(view, choice, what + " the card")
        if mine not in legal:
            raise EngineFailure(f"{what} {json.dumps(choice)[:60]}, which the rules do not allow here")
        return mine
    if decision.pick is not None and decision.kind in (PASS, GO_IN):
        if choice is None and decision.may_decline:
            return None
        if not isinstance(choice, list):
            raise EngineFailure(f"{what} {json.dumps(choice)[:60]} to a {decision.kind}: a list of cards is due")
        picked = tuple(_position(view, c, what + " the card") for c in choice)
        lo, hi = decision.pick
        if not lo <= len(picked) <= hi or len(set(picked)) != len(picked) or not set(picked) <= set(legal):
            raise EngineFailure(f"{what} {json.dumps(choice)[:60]}, which the rules do not allow here")
        return picked
    if choice not in legal:
        raise EngineFailure(f"{what} {json.dumps(choice)[:60]}, which the rules do not allow here")
    return choice


# ---------------------------------------------------------------------- the process
class _Engine:
    """One running engine: a request line out, its answer line in."""

    def __init__(self, command: Sequence[str]) -> None:
        self.name = shlex.join(command)
        self.asked = 0
        try:
            self.proc = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except (OSError, ValueError) as exc:
            raise EngineFailure(f"cannot start the engine {self.name!r}: {exc}") from None

    def _pipes(self) -> tuple[IO[bytes], IO[bytes]]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        return self.proc.stdin, self.proc.stdout

    def ask(self, request: Mapping[str, object]) -> dict[str, object]:
        stdin, stdout = self._pipes()
        try:
            stdin.write(json.dumps(request).encode() + b"\n")
            stdin.flush()
        except OSError:
            raise self._gone() from None
        ready, _, _ = select.select([stdout], [], [], ANSWER_TIMEOUT_S)
        if not ready:
            raise EngineFailure(f"the engine {self.name!r} did not answer within {ANSWER_TIMEOUT_S:g} s")
        raw = stdout.readline(_MAX_LINE)
        if not raw:
            raise self._gone()
        try:
            answer = json.loads(raw)
        except ValueError:
            raise EngineFailure(f"the engine {self.name!r} answered a line that is not JSON: {raw[:80]!r}") from None
        if not isinstance(answer, dict) or answer.get("id") != request.get("id"):
            raise EngineFailure(f"the engine {self.name!r} answered out of turn: {raw[:80]!r}")
        if "error" in answer:
            raise EngineFailure(f"the engine {self.name!r} refused a position: {str(answer['error'])[:300]}")
        return answer

    def _gone(self) -> EngineFailure:
        try:
            code = self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            code = None
        return EngineFailure(f"the engine {self.name!r} stopped answering (exit status {code})")

    def close(self) -> None:
        stdin, _ = self._pipes()
        try:
            stdin.close()
            self.proc.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


_ENGINES: dict[tuple[str, ...], _Engine] = {}


def _engine(command: Sequence[str]) -> _Engine:
    """This process's engine ``command``, started at its first use."""
    key = tuple(command)
    if key not in _ENGINES:
        if not _ENGINES:
            atexit.register(close_engines)
        _ENGINES[key] = _Engine(key)
    return _ENGINES[key]


def close_engines() -> None:
    """Close every engine this process started (a duel played in this process ends)."""
    while _ENGINES:
        _ENGINES.popitem()[1].close()


def engine_levels(command: Sequence[str]) -> list[str]:
    """The levels the engine ``command`` offers (its answer to ``{"cmd": "bots"}``), asked
    of a process started for the question and closed after it."""
    engine = _Engine(command)
    try:
        answer = engine.ask({"id": "bots", "cmd": "bots"})
    finally:
        engine.close()
    bots = answer.get("bots")
    if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
        raise EngineFailure(f"the engine {engine.name!r} answered {{\"cmd\": \"bots\"}} without a list of bots")
    return bots


# ---------------------------------------------------------------------- the player
class EnginePlayer:
    """The level ``level`` of the outside engine ``command`` in one seat of a duel (module
    docstring); after each choice, what the engine said of its effort (``last_worlds``,
    ``last_fallback``, ``last_capped``, ``last_slip``), as a duel counts them."""

    def __init__(self, command: Sequence[str], level: str, game: str, options: Mapping[str, object],
                 rng: random.Random, *, iterations: int | None = None, think_ms: int | None = None) -> None:
        self.command = tuple(command)
        self.level = level
        self.game = game
        self.options = dict(options)
        self.rng = rng
        self.iterations = iterations
        self.think_ms = think_ms
        self.last_worlds = 0
        self.last_fallback: str | None = None
        self.last_capped = False
        self.last_slip = False

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        engine = _engine(self.command)
        engine.asked += 1
        request = position_request(view, self.game, self.options, ident=engine.asked, bot=self.level,
                                   seed=self.rng.randrange(1 << 31), iterations=self.iterations,
                                   think_ms=self.think_ms)
        try:
            answer = engine.ask(request)
        except EngineFailure:
            _ENGINES.pop(self.command, None)
            engine.close()
            raise
        if answer.get("kind") != decision.kind:
            raise EngineFailure(f"the engine {engine.name!r} answered a {json.dumps(answer.get('kind'))[:20]} "
                                f"to a {decision.kind} decision")
        worlds = answer.get("worlds", 0)
        self.last_worlds = worlds if type(worlds) is int and worlds > 0 else 0
        fallback = answer.get("fallback")
        self.last_fallback = fallback if isinstance(fallback, str) else None
        self.last_capped = answer.get("capped") is True
        self.last_slip = answer.get("slip") is True
        return _choice(view, decision, answer.get("choice"), engine.name)
