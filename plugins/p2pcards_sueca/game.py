"""Sueca: four players in two teams (seats 0+2 against 1+3), 40 cards, trumps from the
dealer's card.

* 10 cards each, dealt from the player after the dealer; the dealer's last card
  (option ``trump_card=first``: its first) is shown to all and stays in its hand.
* The player after the dealer leads the first trick.  Follow suit if you can; otherwise
  play anything (no obligation to trump).  The winner of a trick leads the next.
* More than 60 of the 120 card points wins the deal: 61-90 one game point, 91-119 two,
  all ten tricks (capote) four, 120 points without all tricks two (``all_points=4``: four).
  60:60 scores nothing (``tie=double``: the next deal counts double).
* A match (bandeira) goes to 4 game points (``target=8``: eight).
* Renúncia: the offending team loses the deal and the opponents score 4 game points.
  A forfeit (a seat blamed for cheating or voted out, at any point of the deal) is
  scored the same way, its team being the offending team.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict, cast

from p2pcards.core import (
    PORTUGUESE_40,
    PT_POINTS,
    PT_RANK_ORDER,
    Deal,
    DealResult,
    DealState,
    Deck,
    GameSpec,
    Legal,
    Line,
    Match,
    Option,
    Options,
    Plain,
    Reveal,
    Summary,
    TrumpEvent,
    bandeira_winner,
    game_points,
    strength_table,
)

__all__ = ["SuecaDeal", "SuecaMatch", "SuecaResult", "SPEC", "OPTIONS"]

OPTIONS = (
    Option("trump_card", ("last", "first"), "which of the dealer's cards is shown as trumps"),
    Option("target", (4, 8), "game points that win the match (a bandeira)"),
    Option("all_points", (2, 4), "game points for 120 card points without all the tricks"),
    Option("tie", ("none", "double"), "after 60:60, whether the next deal counts double"),
)

TEAMS = ((0, 2), (1, 3))
#: The four deals of ten of each dealer: to the seats after the dealer, ten cards each in
#: deck order (made once: a step is an immutable value).
_DEALS = tuple(
    tuple(Deal((dealer + 1 + k) % 4, tuple(range(10 * k, 10 * k + 10))) for k in range(4))
    for dealer in range(4)
)


class SuecaResult(TypedDict):
    """A deal's result, per team (0+2, 1+3): card points, tricks, the game points earned,
    the deal's multiplier; ``renuncia`` (the seat blamed) once the deal is over."""

    points: list[int]
    tricks: list[int]
    game_points: list[int]
    multiplier: int
    renuncia: NotRequired[int | None]


def _sueca(result: DealResult) -> SuecaResult:
    """A result this game gave (live, or read back from JSON), as its type."""
    return cast(SuecaResult, result)


class SuecaDeal(DealState):
    """One Sueca deal (module docstring)."""

    strength = strength_table(PT_RANK_ORDER)
    points = PT_POINTS

    def __init__(
        self, dealer: int, options: Options, deck: Deck, number: int = 0,
        multiplier: int = 1,
    ) -> None:
        self.multiplier = multiplier
        super().__init__(4, dealer, options, deck, number)

    def _setup(self) -> None:
        for step in _DEALS[self.dealer]:
            self._push(step)
        pos = 39 if self.options["trump_card"] == "last" else 30
        self._push(Reveal((pos,), self.dealer), "_on_trump_card")

    def _on_trump_card(self, step: Reveal) -> None:
        pos = step.positions[0]
        card = self.deck.cards[pos]
        assert card is not None
        self.trump = card[1]
        self.trump_card_pos = pos
        self._record(TrumpEvent(type="trump", seat=self.dealer, card=card))
        self._snapshot_hands()
        self._start_trick((self.dealer + 1) % 4)

    def legal_plays(self, seat: int) -> Sequence[Legal]:
        """Follow suit if you can; otherwise anything (no obligation to trump)."""
        hand = self.deck.hands[seat]  # given as it is: the engine's ``legal`` copies it
        if not self.trick:
            return hand
        cards = self.deck.cards
        led = cards[self.trick[0][1]][1]  # type: ignore[index]
        same = [p for p in hand if cards[p][1] == led]  # type: ignore[index]
        return same if same else hand

    def is_legal_play(self, seat: int, position: int) -> bool:
        """As :meth:`legal_plays` says, without listing them: a lead, a card of the suit led,
        or a card of a hand with none of it."""
        if not self.trick:
            return True
        cards = self.deck.cards
        led = cards[self.trick[0][1]][1]  # type: ignore[index]
        return cards[position][1] == led or all(cards[p][1] != led for p in self.deck.hands[seat])  # type: ignore[index]

    def _result(self) -> SuecaResult:
        """Card points and tricks per team (0+2, 1+3) and the game points they earn; after a
        renúncia or forfeit the offending team (``renuncia % 2``) loses the deal and the
        opponents score 4 (not multiplied).  Only won tricks are read: public cards."""
        per_seat = [self.taken_points(s) for s in range(4)]
        counts = self.trick_counts()
        pts = [per_seat[0] + per_seat[2], per_seat[1] + per_seat[3]]
        tricks = [counts[0] + counts[2], counts[1] + counts[3]]
        gp = [0, 0]
        if self.renuncia is not None:
            gp[1 - self.renuncia % 2] = 4
        else:
            for team in (0, 1):
                gp[team] = self.multiplier * game_points(
                    pts[team], tricks[team] == 10, 120, int(self.options["all_points"])
                )
        return {"points": pts, "tricks": tricks, "game_points": gp, "multiplier": self.multiplier}

    def facts(self) -> list[Line]:
        """The deal after a 60:60 counts double (option ``tie=double``)."""
        return [Line("fact.double")] if self.multiplier == 2 else []

    def refusal(self, seat: int, choice: Plain) -> Line | None:
        """A card refused: the suit led must be followed (assistir) while the hand has it."""
        return self.follow_refusal(seat, choice)


class SuecaMatch(Match):
    """Deals until a team reaches the target (a bandeira)."""

    value_label = "card points"

    @classmethod
    def deal_value(cls, spec: GameSpec, result: DealResult, seat: int) -> float | None:
        """The card points of ``seat``'s team (more than 60 of the 120 wins the deal)."""
        return float(_sueca(result)["points"][seat % 2])

    def __init__(self, spec: GameSpec, options: Options, first_dealer: int) -> None:
        super().__init__(spec, options, first_dealer)
        self.totals = [0, 0]
        self.multiplier = 1

    def _new_deal(self, deck: Deck) -> SuecaDeal:
        return SuecaDeal(self.dealer, self.options, deck, self.deal_number, self.multiplier)

    def _score(self, result: DealResult) -> None:
        res = _sueca(result)
        gp = res["game_points"]
        self.totals = [self.totals[0] + gp[0], self.totals[1] + gp[1]]
        tie = res["renuncia"] is None and res["points"] == [60, 60]
        self.multiplier = 2 if tie and self.options["tie"] == "double" else 1
        self.winner = bandeira_winner(self.totals, int(self.options["target"]))

    @classmethod
    def deal_summary(cls, result: DealResult, sides: int) -> Summary:
        """Per team: card points, tricks and the game points earned (highlighted when any)."""
        res = _sueca(result)
        gp: Sequence[int] = res["game_points"]
        rows = tuple((team, (res["points"][team], res["tricks"][team], f"+{gp[team]}")) for team in range(sides))
        best = max(range(sides), key=lambda team: gp[team])
        return Summary(("points", "tricks", "game_points"), rows, best if gp[best] else None)


#: The game's own words (GameSpec.text): English beyond the spec's fields, and Portuguese.
TEXTS = {
    "en": {
        "points": "points",
        "tricks": "tricks",
        "game_points": "game points",
        "totals": "game points",
        "match_rule": "game points to {target}",
        "fact.double": "this deal counts double",
        "refusal.follow": "you hold {suit}, the suit led, and must follow it",
        "option.trump_card": "trump card",
        "option.trump_card.last": "the last",
        "option.trump_card.first": "the first",
        "option.target": "bandeira",
        "option.target.4": "4 game points",
        "option.target.8": "8 game points",
        "option.all_points": "120 points",
        "option.all_points.2": "2 game points",
        "option.all_points.4": "4 game points",
        "option.tie": "60:60",
        "option.tie.none": "no effect",
        "option.tie.double": "next deal double",
    },
    "pt": {
        "points": "pontos",
        "tricks": "vazas",
        "game_points": "jogos",
        "totals": "jogos",
        "match_rule": "jogos até {target}",
        "fact.double": "esta mão conta a dobrar",
        "refusal.follow": "tem {suit}, o naipe da vaza, e tem de assistir",
        "title": "Sueca",
        "description": "4 jogadores em duas equipas, 40 cartas, trunfo pela carta de quem dá",
        "option.trump_card": "carta de trunfo",
        "option.trump_card.help": "qual das cartas de quem dá fica à vista como trunfo",
        "option.trump_card.last": "a última",
        "option.trump_card.first": "a primeira",
        "option.target": "bandeira",
        "option.target.help": "jogos que ganham a partida (a bandeira)",
        "option.target.4": "4 jogos",
        "option.target.8": "8 jogos",
        "option.all_points": "120 pontos",
        "option.all_points.help": "jogos por fazer os 120 pontos sem levar todas as vazas",
        "option.all_points.2": "2 jogos",
        "option.all_points.4": "4 jogos",
        "option.tie": "empate",
        "option.tie.help": "depois de um 60:60, se a mão seguinte conta a dobrar",
        "option.tie.none": "sem efeito",
        "option.tie.double": "a dobrar",
    },
}

SPEC = GameSpec(
    name="sueca",
    title="Sueca",
    seats=4,
    deck=PORTUGUESE_40,
    options=OPTIONS,
    rules_version="1",
    match_class=SuecaMatch,
    heuristic_class="p2pcards_sueca.heuristic:SuecaHeuristic",
    simulator="p2pcards_sueca.fastsim:SIMULATOR",
    teams=TEAMS,
    description="4 players in two teams, 40 cards, trumps from the dealer's card",
    doc=__doc__ or "",
    texts=TEXTS,
    counts=("points", "tricks"),
    order=1,
)
