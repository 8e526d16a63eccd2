"""Highcard: two players, six cards, the higher card of the suit led takes the trick.

* The deck: A, K, Q of spades and of hearts.  Three cards each, dealt from the player
  after the dealer.
* The dealer chooses who leads the first trick: itself, or the other player
  (option ``lead=dealer``: the dealer always leads, nobody chooses).
* No need to follow suit, no trumps: the higher card of the suit led takes the trick, and
  its winner leads the next.
* The player who takes more of the three tricks wins the deal, and the match: a match is
  one deal.
* A forfeit (a player blamed for cheating, or voted out) gives the other player all three
  tricks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict, cast

from p2pcards.core import (
    Deal,
    DealResult,
    DealState,
    Decision,
    Deck,
    GameSpec,
    IllegalChoice,
    Legal,
    Line,
    Match,
    Option,
    Plain,
    Summary,
    Word,
    make_deck,
    strength_table,
)

#: The decision the dealer takes, and its two choices: lead, or let the other player lead.
LEAD = "lead"
LEAD_CHOICES = ("lead", "pass")


class HighcardResult(TypedDict):
    """A deal's result: the tricks each player took (and, added by the core, the seat
    blamed for a renúncia or a forfeit)."""

    tricks: list[int]
    renuncia: NotRequired[int | None]


def tricks_of(result: DealResult) -> list[int]:
    """The tricks of a result this game gave (live, or read back from JSON)."""
    return cast(HighcardResult, result)["tricks"]


class HighcardDeal(DealState):
    """One deal (module docstring): steps, legal plays, the result, and its words."""

    strength = strength_table("AKQ")

    def _setup(self) -> None:
        """Queue the first steps: three cards to each player, the dealer last."""
        self.passed = False
        self._push(Deal(1 - self.dealer, (0, 1, 2)))
        self._push(Deal(self.dealer, (3, 4, 5)), "_dealt")

    def _dealt(self, step: Deal) -> None:
        self._snapshot_hands()
        if self.options["lead"] == "dealer":
            self._start_trick(self.dealer)
        else:
            self._push(Decision((self.dealer,), LEAD), "_on_lead")

    def _on_lead(self, seat: int, choice: Word) -> None:
        """The dealer's choice, a word; anything but "lead" or "pass" changes nothing."""
        if choice.word not in LEAD_CHOICES:
            raise IllegalChoice(f"seat {seat} must choose lead or pass, not {choice.word!r}")
        self.passed = choice.word == "pass"
        self._event(LEAD, seat, choice=choice.word)
        self._start_trick(1 - seat if self.passed else seat)

    def _legal_other(self, seat: int, step: Decision) -> Sequence[Legal]:
        return LEAD_CHOICES

    def legal_plays(self, seat: int) -> Sequence[Legal]:
        """Any card: nobody has to follow suit."""
        return self.deck.hands[seat]

    def _must_follow(self) -> bool:
        return False

    def _result(self) -> HighcardResult:
        """Tricks per player; after a forfeit, all three to the other player."""
        if self.renuncia is not None:
            tricks = [0, 0]
            tricks[1 - self.renuncia] = 3
            return {"tricks": tricks}
        return {"tricks": self.trick_counts()}

    # the words of the deal for the screens (text keys of TEXTS)
    def decision_lines(self, seat: int) -> list[Line]:
        """What the dealer decides, in its dialog."""
        step = self.step()
        if isinstance(step, Decision) and step.kind == LEAD:
            return [Line("lead.text", seats={"name": 1 - seat})]
        return []

    def choice_line(self, seat: int, choice: Plain) -> Line | None:
        """The dealer's two choices: "I lead", or the other player leads."""
        if choice == "lead":
            return Line("lead.lead")
        if choice == "pass":
            return Line("lead.pass", seats={"name": 1 - seat})
        return None

    def facts(self) -> list[Line]:
        """The top line says how many tricks are left."""
        return [Line("fact.left", {"n": 3 - len(self.tricks)})]

    def notes(self, seat: int) -> list[Line]:
        """The player the dealer let lead is told so, until its first card."""
        if self.passed and seat != self.dealer and not self.tricks and not self.trick:
            return [Line("note.passed", seats={"name": self.dealer})]
        return []


class HighcardMatch(Match):
    """One deal; the player with more tricks wins."""

    totals_label = "tricks"
    value_label = "tricks"  # what deal_value counts: the search player tries to make it high

    @classmethod
    def deal_value(cls, spec: GameSpec, result: DealResult, seat: int) -> float | None:
        """How the deal went for ``seat``: its tricks (what `duel` compares)."""
        return float(tricks_of(result)[seat])

    def _new_deal(self, deck: Deck) -> HighcardDeal:
        return HighcardDeal(2, self.dealer, self.options, deck, self.deal_number)

    def _score(self, result: DealResult) -> None:
        self.totals = list(tricks_of(result))
        self.winner = 0 if self.totals[0] > self.totals[1] else 1

    @classmethod
    def deal_summary(cls, result: DealResult, sides: int) -> Summary:
        """Tricks per player; the one with more takes the deal, highlighted and named."""
        tricks = tricks_of(result)
        best = 0 if tricks[0] > tricks[1] else 1
        return Summary(("tricks",), tuple((s, (tricks[s],)) for s in range(sides)), best,
                       (Line("deal_to", seats={"name": best}),))


#: The game's words: language -> key -> string.  English beyond the spec's own fields
#: (title, description, options), and everything in Portuguese.
TEXTS = {
    "en": {
        "tricks": "high cards",
        "totals": "high cards",
        "match_rule": "one deal, most high cards",
        "deal_to": "The deal goes to {name}",
        "fact.left": "{n} to play",
        "decision.lead.title": "Who leads",
        "lead.text": "You dealt: who leads the first trick, you or {name}?",
        "lead.lead": "I lead",
        "lead.pass": "{name} leads",
        "note.passed": "{name} lets you lead the first trick",
        # the dealer's choice as text mode tells it: event.KIND, or event.KIND.CHOICE
        "event.lead": "{who} chose who leads the first trick",
        "event.lead.lead": "{who} chose to lead the first trick",
        "event.lead.pass": "{who} let the other player lead the first trick",
    },
    "pt": {
        "title": "Carta Alta",
        "description": "2 jogadores, 6 cartas, ganha a carta mais alta",
        "option.colour": "cor",
        "option.colour.help": "não muda nada; mostra que as opções funcionam",
        "option.colour.plain": "simples",
        "option.colour.fancy": "vistosa",
        "option.lead": "primeira vaza",
        "option.lead.help": "quem abre a primeira vaza: quem dá escolhe, ou abre sempre quem dá",
        "option.lead.choice": "escolhe quem dá",
        "option.lead.dealer": "abre quem dá",
        "tricks": "cartas altas",
        "totals": "cartas altas",
        "match_rule": "uma mão, mais cartas altas",
        "deal_to": "A mão fica para {name}",
        "fact.left": "faltam {n}",
        "decision.lead.title": "Quem abre",
        "lead.text": "Deu as cartas: abre a primeira vaza ou deixa {name} abrir?",
        "lead.lead": "Abro eu",
        "lead.pass": "Abre {name}",
        "note.passed": "{name} deixa-o abrir a primeira vaza",
        "event.lead": "{who} escolheu quem abre a primeira vaza",
        "event.lead.lead": "{who} escolheu abrir a primeira vaza",
        "event.lead.pass": "{who} deixou o outro jogador abrir a primeira vaza",
        "event.lead.lead_you": "Escolheu abrir a primeira vaza",
        "event.lead.pass_you": "Deixou o outro jogador abrir a primeira vaza",
    },
}

SPEC = GameSpec(
    name="highcard",
    title="Highcard",
    seats=2,
    deck=make_deck("AKQ", "SH"),
    options=(
        Option("colour", ("plain", "fancy"), "has no effect; shows that options work"),
        Option("lead", ("choice", "dealer"), "who leads the first trick: the dealer's choice, or the dealer"),
    ),
    rules_version="1",
    match_class=HighcardMatch,
    # imported the first time a computer player is made ("module:Class")
    heuristic_class=f"{__package__}.heuristic:HighcardHeuristic",
    description="2 players, 6 cards, highest card wins",
    doc=__doc__ or "",
    texts=TEXTS,
    trumps=False,
)
