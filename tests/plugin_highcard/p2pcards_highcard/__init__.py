"""The Highcard game plugin for p2pcards (rules in :mod:`p2pcards_highcard.game`).

A plugin that exists to show that plugins are real plugins: nothing under ``p2pcards/``
names it, and everything the screens show of it comes from its own package.
"""

from p2pcards.core import GameRegistry, hookimpl

from .game import SPEC, HighcardDeal, HighcardMatch

__all__ = ["SPEC", "HighcardDeal", "HighcardMatch", "p2pcards_register_games"]


@hookimpl
def p2pcards_register_games(registry: GameRegistry) -> None:
    registry.add_game(SPEC)
