"""Sobe e Desce: four players each for themselves, 40 cards, five tricks a deal; take
tricks to come down from 20 to 0.

* Everyone starts at 20 points; the match is won by reaching 0 or less.
* Dealing (anticlockwise, from the player after the dealer): 3 cards to each in play
  order -- deck positions 0-2 to the dealer's next seat, 3-5 to the one after, and so on.
  That first receiver is the *trump chooser*: it names a suit, or asks to **turn** -- the
  next card it would have been dealt (position 12) is dealt to it, shown to everyone,
  sets trumps and stays in its hand.  Then 2 more cards to each in the same order (the
  turner gets only one more), so everyone holds 5; positions 20-39 are the stock.
* Hearts as trumps: everyone must play this deal.  Clubs as trumps: every trick counts 2.
* Going in: from the trump chooser in play order, each player says whether it plays and
  which 0-5 of its cards it exchanges; those are discarded face down and replaced from
  the stock at once, before the next player decides.  Exchanging (even nothing) means
  playing.  Must play: the trump chooser, anyone at 5 points or less, anyone who sat out
  the two previous deals, and everyone when hearts are trumps.  If only one player
  plays, it takes all five tricks without play.
* Play, among those who play only: the trump chooser leads the first trick, the winner
  of each trick the next.  A leader holding the ace of trumps must lead it.  Follow suit
  if you can.  If you cannot and you hold a trump higher than every trump already in
  the trick (any trump when there is none), you must play one of those higher trumps;
  otherwise anything.  The highest trump wins, else the highest card of the suit led
  (rank A 7 K J Q 6 5 4 3 2).
* Scoring: a player with tricks subtracts its trick count (twice that with clubs); one
  who played and took no trick adds 5 (10 with clubs); one who sat out is unchanged.
* The match ends after a deal in which someone is at 0 or below: the lowest score wins;
  a tie goes to the player with more tricks in that deal, then to the earlier in play
  order from that deal's trump chooser.  Final tally (riscos): the winner receives the
  sum of the others' final scores, each loser loses its own final score.
* Renúncia: the offender adds 10 for the deal and is credited with no tricks; the others
  score the deal as played (when it ended early on an evident renúncia, with the tricks
  taken so far -- a player who played and has none then adds 5, or 10 with clubs).
* Forfeit (a seat blamed for cheating or voted out, :meth:`DealState.forfeit`): scored as
  a renúncia of that seat at whatever point the deal has reached.  The offender adds 10
  even if it sat out.  This project's decision for a forfeit before everyone has gone in
  (while dealing, choosing trumps or going in; "everyone has gone in" includes the draws
  after the last exchange): the others are unchanged -- nobody played a trick, so nobody
  took one or failed to.  ``played`` still says who had gone in, and the match's count of
  deals sat out follows it (a seat that had not decided yet counts as not having played).

Public inferences (for the evident renúncia of p2pcards.core): a seat that
cannot follow and does not play a higher trump holds no trump above the trick's highest
(none at all if the trick had no trump); a leader that does not lead the ace of trumps
does not hold it; the turned card is known to stay in the chooser's hand until it is
played or discarded.  Showing a card that contradicts these ends the deal at once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict, cast

from p2pcards.core import (
    DISCARD,
    GO_IN,
    PORTUGUESE_40,
    PT_RANK_ORDER,
    STOCK,
    TRUMP,
    Deal,
    DealResult,
    DealState,
    Decision,
    Deck,
    GameSpec,
    GoIn,
    GoInEvent,
    IllegalChoice,
    Legal,
    Line,
    Match,
    Options,
    Plain,
    Reveal,
    Summary,
    TrumpChoice,
    TrumpEvent,
    pretty,
    strength_table,
)

__all__ = [
    "SobeEDesceDeal",
    "SobeEDesceMatch",
    "SobeEDesceResult",
    "SPEC",
    "OPTIONS",
    "TRUMP_CHOICES",
    "TURN",
    "START_SCORE",
    "MUST_PLAY_AT",
    "MAX_SIT_OUT",
    "match_winner",
    "riscos",
]

#: No table options: the rules we play by have no variants of Sobe e Desce.
OPTIONS = ()
#: The trump chooser's choices: a suit letter, or turn the next card.
TURN = "turn"
TRUMP_CHOICES = ("S", "H", "D", "C", TURN)
#: Everyone's score at the start of a match.
START_SCORE = 20
#: Cards in a hand, cards of the first round, and the first stock position.
HAND = 5
FIRST_ROUND = 3
FIRST_STOCK = 20
#: Score at or below which a player must play.
MUST_PLAY_AT = 5
#: Consecutive deals sat out after which a player must play.
MAX_SIT_OUT = 2
#: Points a renúncia adds to the offender's score.
RENUNCIA_PENALTY = 10
#: Points added to a player who played and took no trick (doubled with clubs).
NO_TRICK_PENALTY = 5

STRENGTH = strength_table(PT_RANK_ORDER)


class SobeEDesceResult(TypedDict):
    """A deal's result, per player: whether it ``played`` (went in), the ``tricks`` it took,
    the ``delta`` it adds to its score and its ``scores`` after the deal; the deal's
    ``trump_chooser``; ``renuncia`` (the seat blamed) once the deal is over."""

    played: list[bool]
    tricks: list[int]
    delta: list[int]
    scores: list[int]
    trump_chooser: int
    renuncia: NotRequired[int | None]


def _sobe(result: DealResult) -> SobeEDesceResult:
    """A result this game gave (live, or read back from JSON), as its type."""
    return cast(SobeEDesceResult, result)


def riscos(final_scores: Sequence[int], winner: int) -> list[int]:
    """The final tally: the winner receives the sum of the others' final scores and each
    loser loses its own final score.

    >>> riscos([0, 11, 2, 5], 0)
    [18, -11, -2, -5]
    """
    out = [-s for s in final_scores]
    out[winner] = sum(s for i, s in enumerate(final_scores) if i != winner)
    return out


class SobeEDesceDeal(DealState):
    """One Sobe e Desce deal (module docstring).

    ``scores`` are the players' scores before this deal and ``sat_out`` how many deals in
    a row each has sat out; the match passes both.
    """

    strength = STRENGTH

    def __init__(
        self,
        dealer: int,
        options: Options,
        deck: Deck,
        number: int = 0,
        scores: Sequence[int] = (START_SCORE,) * 4,
        sat_out: Sequence[int] = (0,) * 4,
    ) -> None:
        self.scores = list(scores)
        self.sat_out = list(sat_out)
        self.chooser = (dealer + 1) % 4
        #: per seat: True plays, False sits out, None not yet decided
        self.playing: list[bool | None] = [None] * 4
        self.turned = False
        self._stock_next = FIRST_STOCK
        #: per seat: the stock positions it drew for the cards it exchanged
        self.drawn: list[list[int]] = [[] for _ in range(4)]
        super().__init__(4, dealer, options, deck, number)

    # ------------------------------------------------------------------ dealing
    def _setup(self) -> None:
        """3 cards to each from the dealer's next seat, then the chooser picks trumps."""
        for k in range(4):
            seat = (self.chooser + k) % 4
            start = FIRST_ROUND * k
            self._push(Deal(seat, tuple(range(start, start + FIRST_ROUND))))
        self._push(Decision((self.chooser,), TRUMP), "_on_trump")

    def _on_trump(self, seat: int, trump: TrumpChoice) -> None:
        """A suit letter sets trumps; ``"turn"`` deals the next card face up."""
        choice = trump.suit
        if choice not in TRUMP_CHOICES:
            raise IllegalChoice(f"seat {seat} must choose trumps from {', '.join(TRUMP_CHOICES)}, not {choice!r}")
        pos = FIRST_ROUND * 4  # the next card the chooser would be dealt
        if choice == TURN:
            self.turned = True
            self._push(Deal(seat, (pos,)))
            self._push(Reveal((pos,), seat), "_on_turned")
            return
        self.trump = choice
        self._record(TrumpEvent(type="trump", seat=seat, choice=choice, card=None))
        self._deal_rest()

    def _on_turned(self, step: Reveal) -> None:
        pos = step.positions[0]
        card = self.deck.cards[pos]
        assert card is not None
        self.trump = card[1]
        self.trump_card_pos = pos
        self._record(TrumpEvent(type="trump", seat=self.chooser, choice=TURN, card=card))
        self._deal_rest()

    def _deal_rest(self) -> None:
        """2 more cards to each in the same order; the turner already has one of its two."""
        base = FIRST_ROUND * 4
        for k in range(4):
            seat = (self.chooser + k) % 4
            start = base + 2 * k
            positions = tuple(range(start + (1 if k == 0 and self.turned else 0), start + 2))
            self._push(Deal(seat, positions), "_on_dealt" if k == 3 else None)

    def _on_dealt(self, step: Deal) -> None:
        self._snapshot_hands()
        self._ask_go_in(self.chooser)

    # ------------------------------------------------------------------ going in
    def must_play(self, seat: int) -> bool:
        """The trump chooser, anyone at 5 or less, anyone who sat out the two previous
        deals, and everyone when hearts are trumps (module docstring, "Going in")."""
        return (
            seat == self.chooser
            or self.scores[seat] <= MUST_PLAY_AT
            or self.sat_out[seat] >= MAX_SIT_OUT
            or self.trump == "H"
        )

    def _ask_go_in(self, seat: int) -> None:
        self._push(
            Decision((seat,), GO_IN, pick=(0, HAND), may_decline=not self.must_play(seat)),
            "_on_go_in",
        )

    def _on_go_in(self, seat: int, going: GoIn) -> None:
        """No positions (None) sits out; a tuple of positions plays and exchanges those
        cards: they are discarded face down and as many stock cards are drawn at once."""
        deck = self.deck
        choice = going.positions
        if choice is None:
            self.playing[seat] = False
            self._record(GoInEvent(type="go_in", seat=seat, plays=False, exchange=0, cards=[]))
        else:
            self.playing[seat] = True
            discarded = [deck.cards[p] for p in choice]
            for p in choice:
                deck.move(p, DISCARD)
            self._record(GoInEvent(type="go_in", seat=seat, plays=True, exchange=len(choice), cards=discarded))
            if choice:
                n = len(choice)
                self.drawn[seat] = list(range(self._stock_next, self._stock_next + n))
                self._draw(seat, self.drawn[seat])
                self._stock_next += n
        nxt = (seat + 1) % 4
        if nxt != self.chooser:
            self._ask_go_in(nxt)
            return
        self.active = [s for s in range(4) if self.playing[s]]
        if len(self.active) == 1:
            # alone: all five tricks without play (the last decider sat out: no draw pends)
            self._end()
        else:
            self._start_trick(self.chooser)

    # ------------------------------------------------------------------ play
    def legal_plays(self, seat: int) -> Sequence[Legal]:
        """Positions of the cards :meth:`allowed` lets ``seat`` play now."""
        hand = self.deck.hands[seat]
        cards = self.deck.cards
        ok = self.allowed([cards[p] for p in hand])  # type: ignore[misc]
        if len(ok) == len(hand):
            return list(hand)
        return [p for p in hand if cards[p] in ok]

    def allowed(self, hand: list[str]) -> list[str]:
        """The cards of ``hand`` playable to the current trick (module docstring, "Play"): lead
        the ace of trumps if held; follow suit if you can; else a trump higher than every
        trump in the trick (any trump if none) if you hold one; else anything."""
        trump = self.trump
        if not self.trick:
            ace = "A" + trump  # type: ignore[operator]
            return [ace] if ace in hand else hand
        led = self.deck.cards[self.trick[0][1]][1]  # type: ignore[index]
        same = [c for c in hand if c[1] == led]
        if same:
            return same
        top = self._top_trump()
        higher = [c for c in hand if c[1] == trump and STRENGTH[c[0]] > top]
        return higher or hand

    def _top_trump(self) -> int:
        """Strength of the highest trump in the current trick (-1 when none)."""
        cards = self.deck.cards
        trump = self.trump
        top = -1
        for _, p in self.trick:
            c = cards[p]
            if c[1] == trump and STRENGTH[c[0]] > top:  # type: ignore[index]
                top = STRENGTH[c[0]]  # type: ignore[index]
        return top

    def _infer(self, seat: int, card: str) -> None:
        """Public inferences beyond the core's void in the suit led: a leader not leading
        the ace of trumps lacks it; a seat that cannot follow and plays no higher trump
        lacks every trump above the trick's highest (every trump if the trick has none)."""
        trump = self.trump
        assert trump is not None
        if not self.trick:
            if card != "A" + trump:
                self.excluded[seat].add("A" + trump)
            return
        super()._infer(seat, card)
        led = self.led_suit
        if card[1] == led:
            return
        top = self._top_trump()
        if card[1] == trump and STRENGTH[card[0]] > top:
            return
        excluded = self.excluded[seat]
        for rank in PT_RANK_ORDER:
            if STRENGTH[rank] > top:
                excluded.add(rank + trump)
        if top < 0:
            self.voids[seat].add(trump)

    def _on_played(self, step: Reveal) -> None:
        """The core's play handling, plus one more evident renúncia: the chooser still
        holds the public turned card, and with it in hand this card could not be played
        (e.g. it failed to trump while the turned trump would have beaten the trick).
        The card is then marked as one the seat cannot show, which ends the deal."""
        pos, seat = step.positions[0], step.holder
        turned = self.trump_card_pos
        if turned is not None and turned != pos and self.deck.owner[turned] == seat:
            cards = self.deck.cards
            card = cards[pos]
            assert card is not None
            if card not in self.allowed([cards[turned], card]):  # type: ignore[list-item]
                self.excluded[seat].add(card)
        super()._on_played(step)

    # ------------------------------------------------------------------ words for screens
    def decision_lines(self, seat: int) -> list[Line]:
        """The trump choice says what the choices are; going in, whether the seat may sit
        out, or which rule makes it play (module docstring, "Going in")."""
        step = self.step()
        if not isinstance(step, Decision) or seat not in step.seats:
            return []
        if step.kind == TRUMP:
            return [Line("trump.text")]
        if step.kind != GO_IN:
            return []
        lines = [Line("go_in.text")]
        if step.may_decline:
            return lines + [Line("go_in.may")]
        if seat == self.chooser:
            why = Line("go_in.must_chooser")
        elif self.trump == "H":
            why = Line("go_in.must_hearts")
        elif self.scores[seat] <= MUST_PLAY_AT:
            why = Line("go_in.must_low", {"score": self.scores[seat], "limit": MUST_PLAY_AT})
        elif self.sat_out[seat] >= MAX_SIT_OUT:
            why = Line("go_in.must_sat_out", {"n": self.sat_out[seat]})
        else:
            why = Line("go_in.must")
        return lines + [why]

    def choice_line(self, seat: int, choice: Plain) -> Line | None:
        """A trump choice's label: the suit (with what hearts and clubs mean), or turning."""
        return Line(f"trump.{choice}") if choice in TRUMP_CHOICES else None

    def facts(self) -> list[Line]:
        return [Line("fact.double")] if self.multiplier == 2 else []

    def notes(self, seat: int) -> list[Line]:
        """The cards ``seat`` drew for those it exchanged, once it holds them, until the
        first trick is over (the going in of the others and the first trick are played
        with them in mind)."""
        cards = [self.deck.cards[p] for p in self.drawn[seat]]
        if self.tricks or not cards or any(c is None for c in cards):
            return []
        return [Line("note.drew", {"cards": " ".join(pretty(c) for c in cards if c is not None)})]

    def refusal(self, seat: int, choice: Plain) -> Line | None:
        """A card refused, by the rule of :meth:`allowed` it breaks: the ace of trumps
        leads when held; the suit led is followed; else a trump higher than the trick's
        (any trump when it has none)."""
        if type(choice) is not int or choice in self.legal_plays(seat) or self.trump is None:
            return None
        if not self.trick:
            return Line("refusal.lead_ace", {"card": pretty("A" + self.trump)})
        follow = self.follow_refusal(seat, choice)
        if follow is not None:
            return follow
        led = self.led_suit or ""
        if self._top_trump() < 0:
            return Line("refusal.trump", suits={"suit": led})
        return Line("refusal.overtrump", suits={"suit": led})

    # ------------------------------------------------------------------ helpers
    def _legal_other(self, seat: int, step: Decision) -> Sequence[Legal]:
        if step.kind == TRUMP:
            return list(TRUMP_CHOICES)
        return super()._legal_other(seat, step)

    # ------------------------------------------------------------------ result
    @property
    def multiplier(self) -> int:
        """Clubs as trumps: every trick counts 2 (and no trick costs 10)."""
        return 2 if self.trump == "C" else 1

    def public_info(self) -> dict[str, object]:
        return {
            "scores": list(self.scores),
            "sat_out": list(self.sat_out),
            "trump_chooser": self.chooser,
            "must_play": [self.must_play(s) for s in range(4)],
            "playing": list(self.playing),
            "multiplier": self.multiplier,
            "stock": self.deck.owner.count(STOCK),
        }

    @property
    def gone_in(self) -> bool:
        """Whether every player has said whether it plays (the deal reached trick play,
        or its end for a player left alone)."""
        return None not in self.playing

    def _result(self) -> SobeEDesceResult:
        """The deal's scoring (module docstring, "Scoring" and "Renúncia"), from public facts only.

        ``played`` says who went in, ``tricks`` the tricks each took (five for a player
        left alone), ``delta`` what each adds to its score, ``scores`` the scores after it.
        The offender of a renúncia or forfeit (``renuncia``) adds 10 and is credited with
        no tricks, whether or not it went in.  The others score the deal as played once
        everyone has gone in; a forfeit before then (during the deal, the trump choice or
        the going in) leaves the others unchanged -- nobody has played a trick, so nobody
        took one or failed to (this project's decision).
        """
        played = [bool(p) for p in self.playing]
        if len(self.active) == 1 and not self.tricks:
            tricks = [0] * 4
            tricks[self.active[0]] = HAND
        else:
            tricks = self.trick_counts()
        mult = self.multiplier
        delta = [0] * 4
        for s in range(4):
            if s == self.renuncia:
                tricks[s] = 0
                delta[s] = RENUNCIA_PENALTY
            elif not played[s] or not self.gone_in:
                continue
            elif tricks[s]:
                delta[s] = -tricks[s] * mult
            else:
                delta[s] = NO_TRICK_PENALTY * mult
        return {
            "played": played,
            "tricks": tricks,
            "delta": delta,
            "scores": [self.scores[s] + delta[s] for s in range(4)],
            "trump_chooser": self.chooser,
        }


def match_winner(scores: Sequence[int], tricks: Sequence[int], chooser: int) -> int | None:
    """The winner once someone is at 0 or below: the lowest score; a tie goes to more
    tricks in the last deal, then to the earlier in play order from its trump chooser."""
    if min(scores) > 0:
        return None
    return min(range(4), key=lambda s: (scores[s], -tricks[s], (s - chooser) % 4))


class SobeEDesceMatch(Match):
    """Deals until someone is at 0 or below; ``totals`` are the four scores."""

    totals_label = "points"
    value_label = "deal score"
    lower_is_better = True

    @classmethod
    def deal_value(cls, spec: GameSpec, result: DealResult, seat: int) -> float | None:
        """What the deal adds to ``seat``'s score, ``delta`` (scores count down to 0)."""
        return float(_sobe(result)["delta"][seat])

    def __init__(self, spec: GameSpec, options: Options, first_dealer: int) -> None:
        super().__init__(spec, options, first_dealer)
        self.totals = [START_SCORE] * 4
        #: consecutive deals each seat has sat out
        self.sat_out = [0] * 4

    def _new_deal(self, deck: Deck) -> SobeEDesceDeal:
        return SobeEDesceDeal(self.dealer, self.options, deck, self.deal_number, self.totals, self.sat_out)

    def _score(self, result: DealResult) -> None:
        res = _sobe(result)
        self.totals = [t + d for t, d in zip(self.totals, res["delta"], strict=True)]
        self.sat_out = [0 if p else n + 1 for n, p in zip(self.sat_out, res["played"], strict=True)]
        self.winner = match_winner(self.totals, res["tricks"], res["trump_chooser"])

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        if self.winner is not None:
            out["riscos"] = riscos(self.totals, self.winner)
        return out

    @classmethod
    def deal_summary(cls, result: DealResult, sides: int) -> Summary:
        """Per player: went in or sat out, tricks, what it adds, its score after the deal."""
        res = _sobe(result)
        rows = tuple((s, ("played" if res["played"][s] else "sat_out", res["tricks"][s],
                          f"{res['delta'][s]:+d}", res["scores"][s])) for s in range(sides))
        went = [s for s in range(sides) if res["played"][s]]
        alone = len(went) == 1 and res["tricks"][went[0]] == HAND  # the others all sat out: no play
        notes = (Line("summary.alone", seats={"name": went[0]}),) if alone else ()
        return Summary(("went_in", "tricks", "delta", "score"), rows, notes=notes)

    @classmethod
    def match_summary(cls, totals: Sequence[int], winner: int | None, options: Options) -> Summary:
        """The scores and, once the match is won, the riscos (module docstring)."""
        if winner is None:
            return super().match_summary(totals, winner, options)
        tally = riscos(totals, winner)
        return Summary(("totals", "riscos"), tuple((s, (totals[s], f"{tally[s]:+d}")) for s in range(len(totals))),
                       winner)


#: The game's own words (GameSpec.text): English beyond the spec's fields, and Portuguese.
TEXTS = {
    "en": {
        "went_in": "going in",
        "played": "played",
        "sat_out": "sat out",
        "tricks": "tricks",
        "delta": "adds",
        "score": "score",
        "totals": "points",
        "riscos": "riscos",
        "match_rule": "down to 0",
        "fact.double": "tricks count 2",
        "note.drew": "you drew {cards}",
        "summary.alone": "{name} alone went in: the five tricks without play",
        "summary.alone_you": "You alone went in: the five tricks without play",
        "decision.trump.title": "Choose trumps",
        "trump.text": "You choose trumps: a suit, or turn the next card.",
        "trump.S": "♠ spades",
        "trump.H": "♥ hearts (everyone plays)",
        "trump.D": "♦ diamonds",
        "trump.C": "♣ clubs (tricks count double)",
        "trump.turn": "turn the next card",
        "decision.go_in.title": "Going in",
        "decision.go_in.confirm": "Play",
        "decision.go_in.decline": "Sit out",
        "go_in.text": "Going in: choose the cards to exchange (none: play the cards as dealt).",
        "go_in.may": "You may sit this deal out.",
        "go_in.must": "You must play this deal.",
        "go_in.must_chooser": "You must play this deal: you chose trumps, and the trump chooser always plays.",
        "go_in.must_hearts": "You must play this deal: hearts are trumps, so everyone plays.",
        "go_in.must_low": "You must play this deal: you are at {score} points, and at {limit} or less you must "
                          "play.",
        "go_in.must_sat_out": "You must play this deal: you sat out the {n} deals before it.",
        "refusal.lead_ace": "you hold the ace of trumps ({card}): it must lead",
        "refusal.follow": "you hold {suit}, the suit led, and must follow it",
        "refusal.trump": "you hold no {suit}, the suit led: you must play a trump",
        "refusal.overtrump": "you hold no {suit}, the suit led: you must play a trump higher than those in the trick",
    },
    "pt": {
        "title": "Sobe e Desce",
        "description": "4 jogadores, cada um por si, 5 vazas por mão, dos 20 pontos até 0",
        "went_in": "entrar",
        "played": "jogou",
        "sat_out": "não jogou",
        "tricks": "vazas",
        "delta": "soma",
        "score": "pontos",
        "totals": "pontos",
        "riscos": "riscos",
        "match_rule": "até 0",
        "fact.double": "vazas valem 2",
        "note.drew": "recebeu do monte {cards}",
        "summary.alone": "{name} entrou sozinho: as cinco vazas sem jogar",
        "summary.alone_you": "Entrou sozinho: as cinco vazas sem jogar",
        "decision.trump.title": "Escolher o trunfo",
        "trump.text": "Escolha o trunfo: um naipe, ou virar a carta seguinte.",
        "trump.S": "♠ espadas",
        "trump.H": "♥ copas (todos jogam)",
        "trump.D": "♦ ouros",
        "trump.C": "♣ paus (cada vaza conta a dobrar)",
        "trump.turn": "virar a carta seguinte",
        "decision.go_in.title": "Entrar",
        "decision.go_in.confirm": "Jogar",
        "decision.go_in.decline": "Não jogar",
        "go_in.text": "Entrar: escolha as cartas a trocar (nenhuma: joga com as cartas que tem).",
        "go_in.may": "Pode não jogar esta mão.",
        "go_in.must": "Tem de jogar esta mão.",
        "go_in.must_chooser": "Tem de jogar esta mão: escolheu o trunfo, e quem escolhe o trunfo joga sempre.",
        "go_in.must_hearts": "Tem de jogar esta mão: copas são trunfo, por isso todos jogam.",
        "go_in.must_low": "Tem de jogar esta mão: está com {score} pontos, e com {limit} ou menos é obrigado a jogar.",
        "go_in.must_sat_out": "Tem de jogar esta mão: não jogou as {n} mãos anteriores.",
        "refusal.lead_ace": "tem o ás de trunfo ({card}): tem de sair com ele",
        "refusal.follow": "tem {suit}, o naipe da vaza, e tem de assistir",
        "refusal.trump": "não tem {suit}, o naipe da vaza: tem de jogar trunfo",
        "refusal.overtrump": "não tem {suit}, o naipe da vaza: tem de jogar um trunfo mais alto que os da vaza",
    },
}

SPEC = GameSpec(
    name="sobe-e-desce",
    title="Sobe e Desce",
    seats=4,
    deck=PORTUGUESE_40,
    options=OPTIONS,
    rules_version="1",
    match_class=SobeEDesceMatch,
    heuristic_class="p2pcards_sobe_e_desce.heuristic:SobeEDesceHeuristic",
    simulator="p2pcards_sobe_e_desce.fastsim:SIMULATOR",
    description="4 players each for themselves, 5 tricks a deal, from 20 points down to 0",
    doc=__doc__ or "",
    texts=TEXTS,
    order=4,
)
