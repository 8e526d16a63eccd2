"""The Sueca game plugin for p2pcards (rules in :mod:`p2pcards_sueca.game`)."""

from p2pcards.core import GameRegistry, hookimpl
from p2pcards_sueca.game import SPEC, SuecaDeal, SuecaMatch

__all__ = ["SPEC", "SuecaDeal", "SuecaMatch", "p2pcards_register_games"]


@hookimpl
def p2pcards_register_games(registry: GameRegistry) -> None:
    registry.add_game(SPEC)
