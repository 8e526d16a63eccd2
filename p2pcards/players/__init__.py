"""Computer players: one interface for bots and people, built on the rules core.

* :mod:`~p2pcards.players.base` -- the :class:`Player` interface, the random player, the
  levels' table (:data:`LEVELS`: who decides, and a search's effort), the budget of a
  match's searching players;
* :mod:`~p2pcards.players.levels` -- the levels (:func:`make_player`) and the dummy's rule
  (:func:`dummy_choice`);
* :mod:`~p2pcards.players.heuristics` -- building blocks for a game's heuristic player;
* :mod:`~p2pcards.players.search`, :mod:`~p2pcards.players.sampling`,
  :mod:`~p2pcards.players.fastsim` -- the searching player: sampled worlds, the batch
  simulator;
* :mod:`~p2pcards.players.hints` -- a hint for a person and whether a deal's rest is forced.

The package re-exports the names of ``base`` and ``levels``; the search and its parts
(numpy) are imported from their modules, on first use (``make_player("search", ...)``
does), so that a command that never searches does not pay for them.

Nothing here imports trio, prompt_toolkit, zeroconf or does I/O (a test enforces it).
"""

from p2pcards.players.base import LEVELS, Level, Player, RandomPlayer, bot_budget
from p2pcards.players.levels import (
    DUMMY_DOMAIN,
    PLAYER_LEVELS,
    TABLE_CAP_MS,
    TABLE_LEVEL,
    dummy_choice,
    dummy_rng,
    make_player,
)

__all__ = [
    "Player", "RandomPlayer", "Level", "LEVELS", "bot_budget",
    "PLAYER_LEVELS", "TABLE_LEVEL", "TABLE_CAP_MS", "make_player", "dummy_choice", "dummy_rng", "DUMMY_DOMAIN",
]
