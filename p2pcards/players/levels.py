"""The computer players' levels and the dummy's rule.

:func:`make_player` builds a player of one of :data:`PLAYER_LEVELS` (the random player,
the game's heuristic, the search of :mod:`p2pcards.players.search` at the effort its
level fixes: :data:`~p2pcards.players.base.LEVELS`);
:func:`dummy_choice` decides for a network table's dummy, the same on every peer.
"""

from __future__ import annotations

import hashlib
import random

from p2pcards.core import DealState, Decision, GameSpec, Plain
from p2pcards.core.view import SeatView
from p2pcards.players.base import LEVELS, Player, RandomPlayer

__all__ = ["make_player", "PLAYER_LEVELS", "TABLE_LEVEL", "TABLE_CAP_MS", "dummy_choice", "dummy_rng", "DUMMY_DOMAIN"]

#: Names accepted by :func:`make_player` (and the CLI's ``--players``), weakest first.
PLAYER_LEVELS = tuple(LEVELS)
#: The computer players' level at a table against the computer unless the person picks
#: another (``play --bots``, the start screen): the strongest, which keeps the table's pace
#: (on the screen its thinking time is the pause between plays).
TABLE_LEVEL = "search"
#: The most time a computer player of a network table (the host's, a joining or resuming
#: process's) takes over a decision: the table never waits longer for one.
TABLE_CAP_MS = 1000


def make_player(
    level: str,
    spec: GameSpec,
    rng: random.Random,
    *,
    think_ms: int | None = None,
    iterations: int | None = None,
    cap_ms: int | None = None,
) -> Player:
    """A computer player of ``level`` (one of :data:`PLAYER_LEVELS`) for ``spec``.

    Games without a heuristic of their own get the random player for ``heuristic``.
    The budget matters only to levels that search (the others ignore it): a level's effort
    is a number of worlds per decision, whatever the machine (``iterations`` sets another;
    its end-game depth and its slips stay the level's);
    ``cap_ms`` caps a decision's time over it (a table's pace: :data:`TABLE_CAP_MS`);
    ``think_ms`` without ``iterations`` is a time budget instead of an effort.
    A searching level is :class:`~p2pcards.players.search.SearchPlayer` (imported on first
    use: it brings numpy).
    """
    kind = LEVELS.get(level)
    if kind is None:
        raise ValueError(f"unknown player {level!r} (choose from {', '.join(PLAYER_LEVELS)})")
    if kind.player == "random":
        return RandomPlayer(rng)
    if kind.player == "heuristic":
        if spec.heuristic is None:
            return RandomPlayer(rng)
        player: Player = spec.heuristic(rng)
        return player
    from p2pcards.players.search import SearchPlayer

    if iterations is None and think_ms is None:
        iterations = kind.worlds
    return SearchPlayer(spec, rng, think_ms=think_ms, iterations=iterations, cap_ms=cap_ms,
                        solve_plays=kind.solve_plays, mistakes=kind.mistakes)


#: Domain tag of the dummy's random stream (version 1 of the derivation).
DUMMY_DOMAIN = b"p2pcards/dummy/v1\x00"


def dummy_rng(seed: bytes) -> random.Random:
    """The dummy's random stream for ``seed``: ``Random`` seeded with the big-endian
    integer of ``sha256(DUMMY_DOMAIN + seed)``."""
    return random.Random(int.from_bytes(hashlib.sha256(DUMMY_DOMAIN + bytes(seed)).digest(), "big"))


def dummy_choice(spec: GameSpec, state: DealState, seat: int, decision: Decision, seed: bytes) -> Plain:
    """The choice of the *dummy* in ``seat`` for the pending ``decision``.

    A seat voted out of a network table becomes a dummy, like bridge's: its cards are open
    and every peer computes its decisions itself (protocol/PROTOCOL.md, "Silence: votes and
    dummies").  The rule: the game's heuristic player (the random player for a game without
    one), fresh for this decision, with the random stream :func:`dummy_rng` of ``seed``,
    choosing from the seat's dummy view (:class:`SeatView` with ``dummy=True``: public
    facts and the dummy's current hand, nothing a peer may know privately).  Every peer
    that knows the dummy's hand therefore computes the same choice from the same seed,
    whatever else its deck knows.

    Raises ValueError when ``decision`` is not pending for ``seat`` or when this observer
    does not know every card the dummy holds.
    """
    step = state.step()
    if step != decision or seat not in state.undecided():
        raise ValueError(f"seat {seat} has no pending {decision.kind!r} decision")
    if not state.deck.knows_hand(seat):
        raise ValueError(f"the dummy's hand (seat {seat}) is not known to this observer")
    player = make_player("heuristic", spec, dummy_rng(seed))
    return player.choose(SeatView(state, seat, dummy=True), decision)
