"""Copas (Hearts): four players each for themselves, the French 52-card deck, and the aim
of taking as few hearts as possible and not the queen of spades.

* 13 cards each, dealt in blocks of 13 from the player after the dealer.  Seats are
  numbered in play order and Copas goes clockwise, so a seat's *left* neighbour is the
  next seat in play order (seat + 1), its right neighbour seat - 1, and seat + 2 sits across.
* Passing: in deal ``k`` of the match (counting from 0) everyone passes 3 cards to the
  left when ``k % 4 == 0``, to the right when 1, across when 2; nobody passes when 3.
  Everyone chooses at once, before seeing what it will receive; the cards then move in
  seat order.
* The holder of the two of clubs (after passing) leads it to the first trick.  Follow suit
  if you can, otherwise play anything -- except that on the first trick nobody may play a
  point card (a heart or the queen of spades) unless the hand holds nothing else.
* Hearts may not be led until a heart or the queen of spades has been played, unless the
  leader holds only hearts (``hearts=free``: no such restriction).  Whether hearts are
  "broken" is public.
* Ranks, high to low: A K J Q 10 9 ... 2, as the source lists them (``ranks=standard``:
  A K Q J 10 ... 2).  No trumps: the highest card of the suit led wins; the winner leads.
* Scoring: each heart taken is 1 point, the queen of spades 13 (26 in all).  A player who
  takes all 26 scores 0 and every other player 26 (shooting the moon).
* Match: it ends after the deal in which someone reaches 100; the lowest total wins.  If
  the lowest total is shared, another deal is played.  ``match=single``: one deal, the
  lowest wins; the same tie rule applies (this project's decision: while the lowest total
  is shared another deal is played, and totals keep adding up).
* Renúncia (revoke): the offender scores 26 for the deal and everyone else 0.  A revoke
  that is evident from public facts ends the deal at once (p2pcards.core).
  A forfeit (a player blamed for cheating or voted out, at any point of the deal, passing
  included) is scored the same way.

Public inferences beyond the core's must-follow voids: a player who, on the first trick,
cannot follow clubs and plays a point card shows it holds no card without points; a
player who leads a heart before hearts are broken shows it holds only hearts.

The source site's own tally (``26 - X`` per player, 104 for taking all 26) is given by
:func:`site_tally` for reference only; this project scores as above.

On the screens: play goes clockwise, there are no trumps, a deal's running count is the
points taken; the dialog of the passing says where the cards go and to whom, and during
the first trick the table tells who led the two of clubs (it is played for its holder).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NotRequired, TypedDict, cast

from p2pcards.core import (
    FRENCH_52,
    PASS,
    Card,
    Deal,
    DealResult,
    DealState,
    Decision,
    Deck,
    GameSpec,
    Legal,
    Line,
    Locate,
    Match,
    Option,
    Options,
    PassCards,
    PassEvent,
    Plain,
    Play,
    Summary,
    strength_table,
)

__all__ = [
    "CopasDeal",
    "CopasMatch",
    "CopasResult",
    "SPEC",
    "OPTIONS",
    "RANK_ORDERS",
    "STRENGTHS",
    "CARD_POINTS",
    "PASS_DIRECTIONS",
    "PASS_OFFSETS",
    "TARGET",
    "pass_direction",
    "card_points",
    "is_point_card",
    "site_tally",
    "copas_site_tally",
    "match_winner",
]

OPTIONS = (
    Option("ranks", ("portuguese", "standard"), "rank order: A K J Q 10.. (the source) or A K Q J 10.."),
    Option("hearts", ("broken", "free"), "whether hearts may be led only once a point card was played"),
    Option("match", (100, "single"), "play until someone reaches 100, or a single deal"),
)

#: Rank order, high to low, per ``ranks`` option (the source's A K J Q by default).
RANK_ORDERS: dict[str, str] = {"portuguese": "AKJQT98765432", "standard": "AKQJT98765432"}
STRENGTHS: dict[str, dict[str, int]] = {k: strength_table(v) for k, v in RANK_ORDERS.items()}

#: Points of every card: each heart 1, the queen of spades 13, the rest 0 (26 in all).
CARD_POINTS: dict[Card, int] = {c: (13 if c == "QS" else 1 if c[1] == "H" else 0) for c in FRENCH_52}
TOTAL_POINTS = 26

#: Passing cycle by deal number within the match: left, right, across, none.
PASS_DIRECTIONS = ("left", "right", "across", "none")
#: Seat offset in play order of each direction (clockwise: left is the next seat).
PASS_OFFSETS: dict[str, int] = {"left": 1, "right": 3, "across": 2, "none": 0}
#: Points at which a match ends ("ends after the deal in which someone reaches 100").
TARGET = 100

TWO_OF_CLUBS: Card = "2C"
QUEEN_OF_SPADES: Card = "QS"
_NON_POINT_SPADES = frozenset(c for c in FRENCH_52 if c[1] == "S" and c != QUEEN_OF_SPADES)


class CopasResult(TypedDict):
    """A deal's result, per player: the penalty ``points`` it scores (after the moon rule, or
    a renúncia's penalty), the points it ``taken``, who shot the ``moon`` (None: nobody);
    ``renuncia`` (the seat blamed) once the deal is over."""

    points: list[int]
    taken: list[int]
    moon: int | None
    renuncia: NotRequired[int | None]


def _copas(result: DealResult) -> CopasResult:
    """A result this game gave (live, or read back from JSON), as its type."""
    return cast(CopasResult, result)


def pass_direction(number: int) -> str:
    """Where cards go in deal ``number`` (0-based) of a match: left, right, across, none."""
    return PASS_DIRECTIONS[number % 4]


def card_points(card: Card) -> int:
    """Copas points of ``card``: a heart 1, the queen of spades 13, others 0."""
    return CARD_POINTS[card]


def is_point_card(card: Card) -> bool:
    """Whether ``card`` is a heart or the queen of spades."""
    return card[1] == "H" or card == QUEEN_OF_SPADES


def copas_site_tally(points: Sequence[int], total: int = TOTAL_POINTS) -> list[int]:
    """The source site's Copas tally, ``26 - X`` per player (its worked example: takes 2, 0,
    13, 11 -> 24, 26, 13, 15).

    >>> copas_site_tally([2, 0, 13, 11])
    [24, 26, 13, 15]
    """
    return [total - p for p in points]


def site_tally(taken: Sequence[int]) -> list[int]:
    """The source site's riscos for a deal from the raw points taken (reference only).

    ``26 - X`` each; a player who takes all 26 gets 104 and the others nothing.

    >>> site_tally([2, 0, 13, 11])
    [24, 26, 13, 15]
    """
    if TOTAL_POINTS in taken:
        return [104 if t == TOTAL_POINTS else 0 for t in taken]
    return copas_site_tally(taken, TOTAL_POINTS)


def match_winner(totals: Sequence[int], match: int | str) -> int | None:
    """The seat that has won the match after a deal, or None if another deal is due.

    ``match=100``: someone has reached 100 and the lowest total is not shared.
    ``match=single``: the lowest total is not shared (a shared one plays another deal).
    """
    low = min(totals)
    if list(totals).count(low) > 1:
        return None
    if match == "single" or max(totals) >= TARGET:
        return list(totals).index(low)
    return None


class CopasDeal(DealState):
    """One Copas deal (module docstring)."""

    points: Mapping[str, int] = {}

    def __init__(self, dealer: int, options: Options, deck: Deck, number: int = 0) -> None:
        #: rank -> strength for this table's rank order (option ``ranks``)
        self.strength = STRENGTHS[str(options["ranks"])]
        #: whether a heart or the queen of spades has been played (public)
        self.hearts_broken = False
        self.direction = pass_direction(number)
        self._hearts_free = options["hearts"] == "free"
        super().__init__(4, dealer, options, deck, number)

    # ------------------------------------------------------------------ dealing, passing
    def _setup(self) -> None:
        """Deal 13 cards to each seat in blocks, starting after the dealer."""
        for k in range(4):
            seat = (self.dealer + 1 + k) % 4
            self._push(Deal(seat, tuple(range(13 * k, 13 * k + 13))), "_on_dealt" if k == 3 else None)

    def pass_target(self, seat: int) -> int | None:
        """The seat that ``seat`` passes to in this deal (None: no passing)."""
        off = PASS_OFFSETS[self.direction]
        return None if off == 0 else (seat + off) % 4

    def _on_dealt(self, step: Deal) -> None:
        self._snapshot_hands()
        if self.direction == "none":
            self._locate_two_of_clubs()
        else:
            self._push(Decision((0, 1, 2, 3), PASS, (3, 3)), "_on_pass")

    def _on_pass(self, choices: dict[int, PassCards]) -> None:
        """Everyone has chosen: move the cards in seat order, then find the two of clubs."""
        for seat in sorted(choices):
            target = self.pass_target(seat)
            assert target is not None
            self._push(Deal(target, choices[seat].positions, source=seat), "_on_passed")
        self._locate_two_of_clubs()

    def _on_passed(self, step: Deal) -> None:
        cards = self.deck.cards
        self._record(PassEvent(type="pass", seat=step.source, to=step.seat, cards=[cards[p] for p in step.positions]))

    def _locate_two_of_clubs(self) -> None:
        self._push(Locate(TWO_OF_CLUBS), "_on_two_of_clubs")

    def _on_two_of_clubs(self, step: Locate) -> None:
        """The holder of the two of clubs leads it: that seat plays that position."""
        pos = self.deck.find(TWO_OF_CLUBS)
        assert pos is not None
        seat = self.deck.owner[pos]
        self.leader = seat
        self._on_play(seat, Play(pos))

    # ------------------------------------------------------------------ play
    def legal_plays(self, seat: int) -> Sequence[Legal]:
        """Positions ``seat`` may play now.

        Leading the first trick: the two of clubs only.  Following: the suit led if the
        hand has it; otherwise anything, but on the first trick no heart nor the queen of
        spades while the hand holds another card.  Leading later: anything, but no heart
        before hearts are broken unless the hand holds only hearts (``hearts=free``: anything).
        """
        hand = self.deck.hands[seat]
        cards = self.deck.cards
        trick = self.trick
        if trick:
            led = cards[trick[0][1]][1]  # type: ignore[index]
            same = [p for p in hand if cards[p][1] == led]  # type: ignore[index]
            if same:
                return same
            if not self.tricks:
                safe = [p for p in hand if not CARD_POINTS[cards[p]]]  # type: ignore[index]
                if safe:
                    return safe
            return list(hand)
        if not self.tricks:
            return [p for p in hand if cards[p] == TWO_OF_CLUBS]
        if self.hearts_broken or self._hearts_free:
            return list(hand)
        other = [p for p in hand if cards[p][1] != "H"]  # type: ignore[index]
        return other if other else list(hand)

    def _infer(self, seat: int, card: Card) -> None:
        """Public inferences from a play, then note whether hearts are now broken.

        Besides the core's must-follow voids: a point card thrown on the first trick shows
        a hand of point cards only; a heart led while hearts are unbroken shows a hand of
        hearts only.
        """
        super()._infer(seat, card)
        point = card[1] == "H" or card == QUEEN_OF_SPADES
        if self.trick:
            if point and not self.tricks:
                self.voids[seat].update("CD")
                self.excluded[seat].update(_NON_POINT_SPADES)
        elif card[1] == "H" and not self.hearts_broken and not self._hearts_free and self.tricks:
            self.voids[seat].update("SDC")
        if point:
            self.hearts_broken = True

    def taken_points(self, seat: int) -> int:
        """Copas points in the tricks ``seat`` won (hearts 1, queen of spades 13)."""
        cards = self.deck.cards
        return sum(CARD_POINTS[cards[p]] for p in self.won[seat])  # type: ignore[index,misc]

    def _result(self) -> CopasResult:
        """``points`` after the moon rule (or the renúncia or forfeit penalty: 26 for the
        offender, 0 for the others), raw ``taken``, ``moon``.  Only won tricks are read."""
        taken = [self.taken_points(s) for s in range(4)]
        moon: int | None = None
        if self.renuncia is not None:
            points = [TOTAL_POINTS if s == self.renuncia else 0 for s in range(4)]
        elif TOTAL_POINTS in taken:
            moon = taken.index(TOTAL_POINTS)
            points = [0 if s == moon else TOTAL_POINTS for s in range(4)]
        else:
            points = list(taken)
        return {"points": points, "taken": taken, "moon": moon}

    def public_info(self) -> dict[str, object]:
        """Public facts for views: whether hearts are broken, and this deal's passing."""
        return {"hearts_broken": self.hearts_broken, "pass_direction": self.direction}

    # ------------------------------------------------------------------ words for screens
    def decision_lines(self, seat: int) -> list[Line]:
        """The passing: how many cards go, which way, to whom."""
        target = self.pass_target(seat)
        if target is None or seat not in self.undecided():
            return []
        return [Line(f"pass.{self.direction}", seats={"name": target})]

    def facts(self) -> list[Line]:
        return [Line("fact.hearts_broken")] if self.hearts_broken else []

    def refusal(self, seat: int, choice: Plain) -> Line | None:
        """A card refused, by the rule of :meth:`legal_plays` it breaks: the 2♣ opens the
        deal; the suit led is followed; no points on the first trick while the hand has
        another card; no heart led before hearts are broken."""
        if type(choice) is not int or choice in self.legal_plays(seat):
            return None
        if self.trick:
            return self.follow_refusal(seat, choice) or Line("refusal.first_trick")
        if not self.tricks:
            return Line("refusal.two_clubs")
        return Line("refusal.hearts")

    def notes(self, seat: int) -> list[Line]:
        """Who led the two of clubs (played for its holder): told while the first trick is
        played, and while it stays on the table before the second one starts."""
        if not self.tricks and self.trick:
            lead = self.trick[0][0]
        elif len(self.tricks) == 1 and not self.trick:
            lead = self.tricks[0].leader
        else:
            return []
        if lead == seat:
            return [Line("note.two_clubs_you")]
        return [Line("note.two_clubs", seats={"name": lead})]


class CopasMatch(Match):
    """Deals until the match condition holds (option ``match``); lowest total wins."""

    totals_label = "points"
    value_label = "penalty points"
    lower_is_better = True

    @classmethod
    def deal_value(cls, spec: GameSpec, result: DealResult, seat: int) -> float | None:
        """The penalty points ``seat`` scores in the deal, after the moon rule."""
        return float(_copas(result)["points"][seat])

    def __init__(self, spec: GameSpec, options: Options, first_dealer: int) -> None:
        super().__init__(spec, options, first_dealer)
        self.totals = [0, 0, 0, 0]

    def _new_deal(self, deck: Deck) -> CopasDeal:
        return CopasDeal(self.dealer, self.options, deck, self.deal_number)

    def _score(self, result: DealResult) -> None:
        self.totals = [t + p for t, p in zip(self.totals, _copas(result)["points"], strict=True)]
        self.winner = match_winner(self.totals, self.options["match"])

    @classmethod
    def deal_summary(cls, result: DealResult, sides: int) -> Summary:
        """Per player: the points taken and those scored (after the moon rule); who shot
        the moon stands out."""
        res = _copas(result)
        rows = tuple((s, (res["taken"][s], res["points"][s])) for s in range(sides))
        moon = res.get("moon")
        notes = (Line("moon", seats={"name": moon}),) if moon is not None else ()
        return Summary(("taken", "points"), rows, moon, notes)


#: The game's own words (GameSpec.text): English beyond the spec's fields, and Portuguese.
TEXTS = {
    "en": {
        "taken": "took",
        "points": "points",
        "totals": "points",
        "match_rule": "lowest wins",
        "moon": "{name} shot the moon!",
        "moon_you": "You shot the moon!",
        "fact.hearts_broken": "hearts broken",
        "decision.pass.title": "Pass three cards",
        "decision.pass.confirm": "Pass",
        "pass.left": "Pass 3 cards to the left, to {name}",
        "pass.right": "Pass 3 cards to the right, to {name}",
        "pass.across": "Pass 3 cards across, to {name}",
        "note.two_clubs": "{name} leads 2♣: whoever holds 2♣ opens the first trick",
        "note.two_clubs_you": "Your 2♣ was led for you: whoever holds 2♣ opens the first trick",
        "refusal.follow": "you hold {suit}, the suit led, and must follow it",
        "refusal.first_trick": "no heart nor Q♠ on the first trick while you hold another card",
        "refusal.two_clubs": "the 2♣ opens the first trick",
        "refusal.hearts": "no heart may lead before hearts are broken (a heart or Q♠ played), "
                          "unless you hold only hearts",
        "option.ranks": "rank order",
        "option.ranks.portuguese": "Portuguese",
        "option.ranks.standard": "standard",
        "option.hearts": "leading hearts",
        "option.hearts.broken": "once broken",
        "option.hearts.free": "any time",
        "option.match": "match",
        "option.match.100": "to 100",
        "option.match.single": "one deal",
    },
    "pt": {
        "taken": "apanhou",
        "points": "pontos",
        "totals": "pontos",
        "match_rule": "ganha o mais baixo",
        "moon": "{name} apanhou tudo!",
        "moon_you": "Apanhou tudo!",
        "fact.hearts_broken": "copas já saíram",
        "decision.pass.title": "Passar três cartas",
        "decision.pass.confirm": "Passar",
        "pass.left": "Passe 3 cartas para a esquerda ({name})",
        "pass.right": "Passe 3 cartas para a direita ({name})",
        "pass.across": "Passe 3 cartas para a frente ({name})",
        "note.two_clubs": "{name} sai com o 2♣: quem tem o 2♣ abre a primeira vaza",
        "note.two_clubs_you": "O seu 2♣ foi jogado por si: quem tem o 2♣ abre a primeira vaza",
        "refusal.follow": "tem {suit}, o naipe da vaza, e tem de assistir",
        "refusal.first_trick": "na primeira vaza não se joga copas nem a dama de espadas enquanto tiver outra carta",
        "refusal.two_clubs": "a primeira vaza abre com o 2♣",
        "refusal.hearts": "não se sai a copas antes de as copas saírem (uma copa ou a dama de espadas jogada), "
                          "a não ser que só tenha copas",
        "title": "Copas",
        "description": "4 jogadores, cada um por si, 52 cartas, fugir às copas e à dama de espadas",
        "option.ranks": "ordem",
        "option.ranks.help": "ordem das cartas: A K J Q 10.. (a das regras de origem) ou A K Q J 10..",
        "option.ranks.portuguese": "portuguesa",
        "option.ranks.standard": "habitual",
        "option.hearts": "sair a copas",
        "option.hearts.help": "se só se pode sair a copas depois de jogada uma carta de pontos",
        "option.hearts.broken": "depois de saírem",
        "option.hearts.free": "sempre",
        "option.match": "partida",
        "option.match.help": "jogar até alguém chegar aos 100 pontos, ou uma só mão",
        "option.match.100": "até 100",
        "option.match.single": "uma mão",
    },
}

SPEC = GameSpec(
    name="copas",
    title="Copas",
    seats=4,
    deck=FRENCH_52,
    options=OPTIONS,
    rules_version="1",
    match_class=CopasMatch,
    heuristic_class="p2pcards_copas.heuristic:CopasHeuristic",
    simulator="p2pcards_copas.fastsim:SIMULATOR",
    teams=None,
    description="4 players each for themselves, 52 cards, avoid hearts and the queen of spades",
    doc=__doc__ or "",
    texts=TEXTS,
    clockwise=True,
    trumps=False,
    counts=("points",),
    order=3,
)
