"""The Bisca game plugin for p2pcards (rules in :mod:`p2pcards_bisca.game`)."""

from p2pcards.core import GameRegistry, hookimpl
from p2pcards_bisca.game import SPEC, BiscaDeal, BiscaMatch

__all__ = ["SPEC", "BiscaDeal", "BiscaMatch", "p2pcards_register_games"]


@hookimpl
def p2pcards_register_games(registry: GameRegistry) -> None:
    registry.add_game(SPEC)
