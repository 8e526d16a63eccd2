"""The Copas (Hearts) game plugin for p2pcards (rules in :mod:`p2pcards_copas.game`)."""

from p2pcards.core import GameRegistry, hookimpl
from p2pcards_copas.game import SPEC, CopasDeal, CopasMatch

__all__ = ["SPEC", "CopasDeal", "CopasMatch", "p2pcards_register_games"]


@hookimpl
def p2pcards_register_games(registry: GameRegistry) -> None:
    registry.add_game(SPEC)
