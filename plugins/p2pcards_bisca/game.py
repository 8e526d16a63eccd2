"""Bisca: two players, 40 cards, a face-up trump under the stock.

* Hands of 3 cards (option ``hand``: 3, 5, 7, 9 or 11), dealt first to the player after
  the dealer.  The next card is turned face up as trumps and lies under the stock: it is
  the last card drawn.
* The dealer leads the first trick.  While the stock has cards nobody must follow suit;
  once it is empty both must follow suit when they can (no obligation to beat).
* After each trick the winner draws first, then the other player.
* Option ``swap2=on``: on its turn, before it plays and while the stock lasts, a player
  may exchange the 2 of trumps from its hand for the face-up trump card (the choice
  ``("swap", position)``; it then plays as usual).  Showing any other card as the 2 of
  trumps breaks a public rule and is treated as a renúncia.
* Deal result and game points as in Sueca: more than 60 of 120 points wins; 61-90 one
  game point, 91-119 two, all the tricks four, 120 without all the tricks two; 60:60 none.
  The match goes to 4 game points (option ``target=8``: eight).
* Renúncia (only possible once the stock is empty): the opponent scores 4 game points.
  A forfeit (a player blamed for cheating or voted out, at any point of the deal) is
  scored the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict, cast

from p2pcards.core import (
    PORTUGUESE_40,
    PT_POINTS,
    PT_RANK_ORDER,
    STOCK,
    SWAP,
    Deal,
    DealResult,
    DealState,
    Deck,
    GameSpec,
    IllegalChoice,
    Legal,
    Line,
    Match,
    Option,
    Options,
    Plain,
    Play,
    Reveal,
    Summary,
    Swap,
    SwapEvent,
    TrumpEvent,
    bandeira_winner,
    game_points,
    pretty,
    strength_table,
)

__all__ = ["BiscaDeal", "BiscaMatch", "BiscaResult", "SPEC", "OPTIONS"]

OPTIONS = (
    Option("hand", (3, 5, 7, 9, 11), "cards in each hand"),
    Option("swap2", ("off", "on"), "may a player swap the 2 of trumps for the face-up trump card"),
    Option("target", (4, 8), "game points that win the match"),
)


class BiscaResult(TypedDict):
    """A deal's result, per player: card points, tricks, the game points earned;
    ``renuncia`` (the seat blamed) once the deal is over."""

    points: list[int]
    tricks: list[int]
    game_points: list[int]
    renuncia: NotRequired[int | None]


def _bisca(result: DealResult) -> BiscaResult:
    """A result this game gave (live, or read back from JSON), as its type."""
    return cast(BiscaResult, result)


def _is_swap(choice: Plain) -> bool:
    return isinstance(choice, (tuple, list)) and len(choice) == 2 and choice[0] == SWAP


class BiscaDeal(DealState):
    """One Bisca deal (module docstring).  ``stock`` lists stock positions in draw order."""

    strength = strength_table(PT_RANK_ORDER)
    points = PT_POINTS

    def __init__(self, dealer: int, options: Options, deck: Deck, number: int = 0) -> None:
        self.stock: list[int] = []
        super().__init__(2, dealer, options, deck, number)

    def _setup(self) -> None:
        h = int(self.options["hand"])
        first = 1 - self.dealer
        self._push(Deal(first, tuple(range(h))))
        self._push(Deal(self.dealer, tuple(range(h, 2 * h))))
        self.stock = list(range(2 * h + 1, 40)) + [2 * h]
        self._push(Reveal((2 * h,), None), "_on_trump_card")

    def _on_trump_card(self, step: Reveal) -> None:
        pos = step.positions[0]
        card = self.deck.cards[pos]
        assert card is not None
        self.trump = card[1]
        self.trump_card_pos = pos
        self._record(TrumpEvent(type="trump", seat=self.dealer, card=card))
        self._snapshot_hands()
        self._start_trick(self.dealer)

    def _must_follow(self) -> bool:
        """Following suit is compulsory once the stock is empty."""
        return not self.stock

    def legal_plays(self, seat: int) -> Sequence[Legal]:
        hand = self.deck.hands[seat]
        cards = self.deck.cards
        plays: list[Legal] = list(hand)
        if self.trick and not self.stock:
            led = cards[self.trick[0][1]][1]  # type: ignore[index]
            same: list[Legal] = [p for p in hand if cards[p][1] == led]  # type: ignore[index]
            if same:
                plays = same
        if self.stock and self.options["swap2"] == "on":
            two = "2" + self.trump  # type: ignore[operator]
            for p in hand:
                if cards[p] == two:
                    plays.append((SWAP, p))
        return plays

    def _on_play(self, seat: int, choice: Play | Swap) -> None:
        if not isinstance(choice, Swap):
            super()._on_play(seat, choice)
            return
        pos = choice.position
        if self.options["swap2"] != "on":
            raise IllegalChoice("the 2-of-trumps swap is not played at this table (swap2=off)")
        if not self.stock:
            raise IllegalChoice("the swap is only allowed while the stock lasts")
        if pos not in self.deck.hands[seat]:
            raise IllegalChoice(f"seat {seat} does not hold position {pos!r}")
        self._swapping = (seat, pos)
        self._push(Reveal((pos,), seat), "_on_swap_shown")

    def _on_swap_shown(self, step: Reveal) -> None:
        seat, pos = self._swapping
        card = self.deck.cards[pos]
        if card != "2" + self.trump:  # type: ignore[operator]
            # a public rule broken in the open: the deal ends as for a renúncia
            if self.renuncia is None:
                self.renuncia = seat
            self._end()
            return
        old = self.trump_card_pos
        assert old is not None
        took = self.deck.cards[old]
        self.deck.move(pos, STOCK)
        self.deck.move(old, seat)
        self.stock[-1] = pos
        self.trump_card_pos = pos
        self._record(SwapEvent(type="swap", seat=seat, card=card, took=took))
        self._ask_play(seat)

    def refusal(self, seat: int, choice: Plain) -> Line | None:
        """A card refused: once the stock is empty, the suit led must be followed."""
        return None if self.stock else self.follow_refusal(seat, choice, "refusal.follow_empty")

    def choice_line(self, seat: int, choice: Plain) -> Line | None:
        """The swap's label: which 2 of trumps goes for which face-up card."""
        if not _is_swap(choice) or self.trump is None or self.trump_card_pos is None:
            return None
        card = self.deck.cards[self.trump_card_pos]
        return Line("swap", {"two": pretty("2" + self.trump), "card": pretty(card) if card else "?"})

    def _after_trick(self, winner: int) -> None:
        if self.stock:
            self._draw(winner, (self.stock.pop(0),))
            self._draw(1 - winner, (self.stock.pop(0),))
        if self.deck.hands[winner] or self.stock:
            self._start_trick(winner)
        else:
            self._end()

    def public_info(self) -> dict[str, object]:
        return {"stock": len(self.stock)}

    def _result(self) -> BiscaResult:
        """Card points, tricks and game points per player; after a renúncia or forfeit the
        opponent of the offender scores 4.  Only won tricks are read: public cards."""
        pts = [self.taken_points(0), self.taken_points(1)]
        tricks = self.trick_counts()
        gp = [0, 0]
        if self.renuncia is not None:
            gp[1 - self.renuncia] = 4
        else:
            total_tricks = 20
            for s in (0, 1):
                gp[s] = game_points(pts[s], tricks[s] == total_tricks, 120, 2)
        return {"points": pts, "tricks": tricks, "game_points": gp}


class BiscaMatch(Match):
    """Deals until a player reaches the target."""

    value_label = "card points"

    @classmethod
    def deal_value(cls, spec: GameSpec, result: DealResult, seat: int) -> float | None:
        """The card points ``seat`` took (more than 60 of the 120 wins the deal)."""
        return float(_bisca(result)["points"][seat])

    def __init__(self, spec: GameSpec, options: Options, first_dealer: int) -> None:
        super().__init__(spec, options, first_dealer)
        self.totals = [0, 0]

    def _new_deal(self, deck: Deck) -> BiscaDeal:
        return BiscaDeal(self.dealer, self.options, deck, self.deal_number)

    def _score(self, result: DealResult) -> None:
        gp = _bisca(result)["game_points"]
        self.totals = [self.totals[0] + gp[0], self.totals[1] + gp[1]]
        self.winner = bandeira_winner(self.totals, int(self.options["target"]))

    @classmethod
    def deal_summary(cls, result: DealResult, sides: int) -> Summary:
        """Per player: card points, tricks and the game points earned (highlighted when any)."""
        res = _bisca(result)
        gp = res["game_points"]
        rows = tuple((s, (res["points"][s], res["tricks"][s], f"+{gp[s]}")) for s in range(sides))
        best = max(range(sides), key=lambda s: gp[s])
        return Summary(("points", "tricks", "game_points"), rows, best if gp[best] else None)


#: The game's own words (GameSpec.text): English beyond the spec's fields, and Portuguese.
TEXTS = {
    "en": {
        "points": "points",
        "tricks": "tricks",
        "game_points": "game points",
        "totals": "game points",
        "match_rule": "game points to {target}",
        "swap": "swap your {two} for the trump card {card}",
        "refusal.follow_empty": "the stock is empty: you hold {suit}, the suit led, and must follow it",
        "option.hand": "cards in hand",
        "option.hand.3": "3 cards",
        "option.hand.5": "5 cards",
        "option.hand.7": "7 cards",
        "option.hand.9": "9 cards",
        "option.hand.11": "11 cards",
        "option.swap2": "swap the 2",
        "option.swap2.off": "no",
        "option.swap2.on": "yes",
        "option.target": "match",
        "option.target.4": "4 game points",
        "option.target.8": "8 game points",
    },
    "pt": {
        "points": "pontos",
        "tricks": "vazas",
        "game_points": "jogos",
        "totals": "jogos",
        "match_rule": "jogos até {target}",
        "swap": "trocar o seu {two} pelo trunfo {card}",
        "refusal.follow_empty": "o monte acabou: tem {suit}, o naipe da vaza, e tem de assistir",
        "title": "Bisca",
        "description": "2 jogadores, 40 cartas, compra-se do monte depois de cada vaza",
        "option.hand": "cartas na mão",
        "option.hand.help": "quantas cartas tem cada jogador na mão",
        "option.hand.3": "3 cartas",
        "option.hand.5": "5 cartas",
        "option.hand.7": "7 cartas",
        "option.hand.9": "9 cartas",
        "option.hand.11": "11 cartas",
        "option.swap2": "trocar o 2",
        "option.swap2.help": "se um jogador pode trocar o 2 de trunfo pela carta de trunfo à vista",
        "option.swap2.off": "não",
        "option.swap2.on": "sim",
        "option.target": "partida",
        "option.target.help": "jogos que ganham a partida",
        "option.target.4": "4 jogos",
        "option.target.8": "8 jogos",
    },
}

SPEC = GameSpec(
    name="bisca",
    title="Bisca",
    seats=2,
    deck=PORTUGUESE_40,
    options=OPTIONS,
    rules_version="1",
    match_class=BiscaMatch,
    heuristic_class="p2pcards_bisca.heuristic:BiscaHeuristic",
    simulator="p2pcards_bisca.fastsim:SIMULATOR",
    description="2 players, 40 cards, draw from the stock after each trick",
    doc=__doc__ or "",
    texts=TEXTS,
    counts=("points", "tricks"),
    order=2,
)
