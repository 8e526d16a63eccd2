"""The engine protocol: our computer players for outside programs, one JSON line at a time.

An outside referee, GUI or program sends a *position* -- the game, its options, the seat,
the dealer, the seat's cards at the deal's start and the public history of the deal in the
arena's event vocabulary -- and gets back the choice of one of our bots for that seat, in
the same vocabulary (protocol/ENGINE.md has the whole protocol).

The engine rebuilds the position as the seat sees it
(:mod:`p2pcards.tools.engine_replay`): it replays the events through the game's own
:class:`DealState` over a deck that knows only the seat's cards and the cards shown to
everyone, as a peer of a network table does.  Other seats' cards have no place yet: when
an event says seat X played card C, the engine gives C to one of X's positions whose
card it does not know (they are alike to this observer).  Every event the deal records
on the way must match the event given; a history that cannot have happened is answered
with an error naming the problem.

:func:`answer` and :func:`answer_line` are pure (a request in, an answer out, never an
exception for bad input); :func:`serve` is the loop over standard input and output.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping
from typing import BinaryIO, Final, NoReturn, TextIO

from p2pcards.core import SWAP, DealState, Decision, GoIn, PassCards, Plain, Play, Swap, from_wire
from p2pcards.core.plugins import GameRegistry, load_games
from p2pcards.core.view import SeatView
from p2pcards.tools.engine_replay import EngineError, _int, is_legal, replay

__all__ = ["MAX_LINE", "answer", "answer_line", "serve"]

#: Longest request line accepted, in bytes (without its newline).
MAX_LINE: Final = 1 << 20
#: Commands besides positions.
COMMANDS: Final = ("games", "bots", "quit")
#: Longest think budget accepted, in milliseconds, and largest iteration budget.
MAX_THINK_MS: Final = 60_000
MAX_ITERATIONS: Final = 10_000_000


# ---------------------------------------------------------------------- answers
def _choice_out(deal: DealState, decision: Decision, choice: Plain) -> object:
    """A choice in positions (a legal one) as the protocol says it: cards, a suit, lists, null."""
    cards = deal.deck.cards
    value = from_wire(decision.kind, choice)
    if isinstance(value, Swap):
        return [SWAP, cards[value.position]]
    if isinstance(value, Play):
        return cards[value.position]
    if isinstance(value, (PassCards, GoIn)):
        return None if value.positions is None else [cards[p] for p in value.positions]
    return value.to_wire()


def _choose(request: Mapping[str, object], registry: GameRegistry) -> dict[str, object]:
    from p2pcards import players

    bot = request.get("bot", "heuristic")
    if bot not in players.PLAYER_LEVELS:
        raise EngineError(f"unknown bot {json.dumps(bot)[:40]} (choose from {', '.join(players.PLAYER_LEVELS)})")
    think = request.get("think")
    if think is not None:
        think = _int(think, "think", 1, MAX_THINK_MS)
    iterations = request.get("iterations")
    if iterations is not None:
        iterations = _int(iterations, "iterations", 1, MAX_ITERATIONS)
    seed = request.get("seed", 0)
    if type(seed) is not int:
        raise EngineError("seed must be a whole number")
    pos = replay(request, registry)
    deal, seat, decision = pos.deal, pos.seat, pos.decision
    player = players.make_player(bot, pos.spec, random.Random(seed), think_ms=think, iterations=iterations)
    choice = player.choose(SeatView(deal, seat, pos.match_totals), decision)
    if not is_legal(pos, choice):
        raise EngineError(f"the bot {bot!r} chose something the rules do not allow: {choice!r}")
    answer: dict[str, object] = {"kind": decision.kind, "choice": _choice_out(deal, decision, choice)}
    if hasattr(player, "last_worlds"):  # a bot that searches says its effort, and any fallback
        answer["worlds"] = player.last_worlds
        if (reason := getattr(player, "last_fallback", None)) is not None:
            answer["fallback"] = reason
        if getattr(player, "last_capped", False):
            answer["capped"] = True
        if getattr(player, "last_slip", False):
            answer["slip"] = True
    return answer


def _command(request: Mapping[str, object], registry: GameRegistry) -> dict[str, object]:
    from p2pcards import players

    cmd = request["cmd"]
    if cmd == "games":
        return {"games": [
            {"name": s.name, "title": s.title, "seats": s.seats, "deck": list(s.deck),
             "options": [{"name": o.name, "default": o.default, "allowed": list(o.allowed)} for o in s.options]}
            for s in sorted(registry.games.values(), key=lambda s: s.name)
        ]}
    if cmd == "bots":
        return {"bots": list(players.PLAYER_LEVELS), "default": "heuristic"}
    if cmd == "quit":
        return {"quit": True}
    raise EngineError(f"unknown cmd {json.dumps(cmd)[:40]} (commands: {', '.join(COMMANDS)})")


def _good_id(value: object) -> bool:
    """Whether ``value`` may be a request's ``id``: a string, a finite number or null."""
    if value is None or type(value) in (str, int):
        return True
    return type(value) is float and math.isfinite(value)


def answer(request: object, registry: GameRegistry) -> dict[str, object]:
    """The answer to one decoded request: a choice, a command's answer or an error.  Never
    raises for bad input (an unexpected failure is answered as an internal error)."""
    if not isinstance(request, dict):
        return {"id": None, "error": "a request must be a JSON object"}
    ident = request.get("id")
    if not _good_id(ident):
        return {"id": None, "error": "id must be a string, a number or null"}
    try:
        body = _command(request, registry) if "cmd" in request else _choose(request, registry)
    except EngineError as exc:
        return {"id": ident, "error": str(exc)}
    except Exception as exc:  # never a traceback: the sender gets a line, the engine goes on
        return {"id": ident, "error": f"internal error: {type(exc).__name__}: {exc}"}
    return {"id": ident, **body}


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def answer_line(line: bytes, registry: GameRegistry) -> dict[str, object]:
    """The answer to one request line (bytes, without its newline or with it)."""
    if len(line.rstrip(b"\r\n")) > MAX_LINE:
        return {"id": None, "error": f"line longer than {MAX_LINE} bytes"}
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        return {"id": None, "error": "the line is not UTF-8 text"}
    try:
        request = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        return {"id": None, "error": f"the line is not JSON: {str(exc)[:120]}"}
    return answer(request, registry)


def serve(stdin: BinaryIO, stdout: TextIO, registry: GameRegistry | None = None) -> int:
    """Answer request lines from ``stdin`` on ``stdout`` until end of input or ``quit``;
    return the exit status (0).  Blank lines are skipped; a line longer than
    :data:`MAX_LINE` is read to its end and answered with an error."""
    if registry is None:
        registry = load_games()
    while True:
        line = stdin.readline(MAX_LINE + 2)
        if not line:
            return 0
        if len(line.rstrip(b"\r\n")) > MAX_LINE:
            while not line.endswith(b"\n"):  # drop the rest of the line
                line = stdin.readline(1 << 16)
                if not line:
                    break
            reply: dict[str, object] = {"id": None, "error": f"line longer than {MAX_LINE} bytes"}
        elif not line.strip():
            continue
        else:
            reply = answer_line(line, registry)
        stdout.write(json.dumps(reply) + "\n")
        stdout.flush()
        if reply.get("quit") is True:
            return 0
