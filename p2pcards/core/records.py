"""A finished deal as a JSON record: the one ``p2pcards arena --json`` prints, the one a
history's opened deal shows (:mod:`p2pcards.history.opened`), the one the tests' rule
checkers read.  Plain data from the deal's state, no player and no I/O.
"""

from __future__ import annotations

from p2pcards.core.deal import DealState
from p2pcards.core.spec import GameSpec, Match

__all__ = ["deal_record", "play_record"]


def deal_record(spec: GameSpec, match_index: int, index: int, deal: DealState, match: Match) -> dict[str, object]:
    """The JSON object the arena prints for a finished deal (see ``p2pcards arena --help``)."""
    return {**play_record(spec, match_index, index, deal), "totals": list(match.totals),
            "match_over": match.finished, "winner": match.winner}


def play_record(spec: GameSpec, match_index: int, index: int, deal: DealState) -> dict[str, object]:
    """:func:`deal_record` but the match's fields (``totals``, ``match_over``, ``winner``)."""
    cards = deal.deck.cards
    return {
        "type": "deal",
        "game": spec.name,
        "match": match_index,
        "deal": index,
        "match_deal": deal.number,
        "dealer": deal.dealer,
        "trump": deal.trump,
        "hands": deal.hands_at_start,
        "events": deal.events,
        "tricks": [
            {
                "leader": t.leader,
                "seats": [s for s, _ in t.plays],
                "cards": [cards[p] for _, p in t.plays],
                "winner": t.winner,
            }
            for t in deal.tricks
        ],
        "result": deal.result,
    }
