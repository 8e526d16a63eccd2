"""The Sobe e Desce game plugin for p2pcards (rules in :mod:`p2pcards_sobe_e_desce.game`)."""

from p2pcards.core import GameRegistry, hookimpl
from p2pcards_sobe_e_desce.game import SPEC, SobeEDesceDeal, SobeEDesceMatch

__all__ = ["SPEC", "SobeEDesceDeal", "SobeEDesceMatch", "p2pcards_register_games"]


@hookimpl
def p2pcards_register_games(registry: GameRegistry) -> None:
    registry.add_game(SPEC)
