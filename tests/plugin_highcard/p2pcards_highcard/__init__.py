"""Highcard: a two-player out-of-tree game that exists to prove plugins are real plugins.

Six cards (A, K, Q of spades and hearts), three each, dealt from the player after the
dealer.  The dealer leads; no need to follow suit; the higher card of the suit led wins
the trick (no trumps).  The player with more tricks wins the deal and the match.
"""

from __future__ import annotations

from typing import Any

from p2pcards.core import (
    Deal,
    DealState,
    Deck,
    GameRegistry,
    GameSpec,
    Match,
    Option,
    hookimpl,
    make_deck,
    strength_table,
)

DECK = make_deck("AKQ", "SH")


class HighcardDeal(DealState):
    strength = strength_table("AKQ")

    def _setup(self) -> None:
        self._push(Deal(1 - self.dealer, (0, 1, 2)))
        self._push(Deal(self.dealer, (3, 4, 5)), "_dealt")

    def _dealt(self, step: Deal) -> None:
        self._snapshot_hands()
        self._start_trick(self.dealer)

    def legal_plays(self, seat: int) -> list[Any]:
        return list(self.deck.hands[seat])

    def _must_follow(self) -> bool:
        return False

    def _result(self) -> dict[str, Any]:
        return {"tricks": self.trick_counts()}


class HighcardMatch(Match):
    totals_label = "tricks"

    def _new_deal(self, deck: Deck) -> HighcardDeal:
        return HighcardDeal(2, self.dealer, self.options, deck, self.deal_number)

    def _score(self, result: dict[str, Any]) -> None:
        self.totals = list(result["tricks"])
        self.winner = 0 if self.totals[0] > self.totals[1] else 1


#: The game's words in Portuguese: a plugin supplies them in ``texts`` (language -> key ->
#: string; the keys are GameSpec.text_keys()); a key left out shows the English words.
TEXTS = {
    "pt": {
        "title": "Carta Alta",
        "description": "2 jogadores, 6 cartas, ganha a carta mais alta",
        "option.colour": "cor",
        "option.colour.help": "não muda nada; mostra que as opções funcionam",
        "option.colour.plain": "simples",
        "option.colour.fancy": "vistosa",
    },
}

SPEC = GameSpec(
    name="highcard",
    title="Highcard",
    seats=2,
    deck=DECK,
    options=(Option("colour", ("plain", "fancy"), "has no effect; shows that options work"),),
    rules_version="1",
    new_match=lambda options, first_dealer: HighcardMatch(SPEC, options, first_dealer),
    description="2 players, 6 cards, highest card wins",
    texts=TEXTS,
)


@hookimpl
def p2pcards_register_games(registry: GameRegistry) -> None:
    registry.add_game(SPEC)
