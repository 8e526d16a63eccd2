"""The engine protocol's positions (protocol/ENGINE.md): a request's game, seat, hand and
public history replayed through the game's own :class:`~p2pcards.core.deal.DealState`
over a deck that knows only the seat's cards and the cards shown to everyone, as a peer of
a network table does (:mod:`p2pcards.tools.engine` has the whole story and the protocol's
loop).  A history that cannot have happened raises :class:`EngineError` naming the problem.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from p2pcards.core import (
    GO_IN,
    PASS,
    PLAY,
    SWAP,
    TRUMP,
    Deal,
    DealState,
    Decision,
    End,
    GameSpec,
    IllegalChoice,
    Legal,
    Locate,
    OptionError,
    Plain,
    Reveal,
)
from p2pcards.core.deck import DISCARD, PLAYED, STOCK, DeckError
from p2pcards.core.plugins import GameRegistry

__all__ = ["REQUEST_FIELDS", "EngineError", "Position", "replay", "is_legal"]

#: Fields a position request may carry.
REQUEST_FIELDS: Final = (
    "id", "game", "options", "seat", "dealer", "hand", "events", "tricks", "match_deal", "match_totals",
    "sat_out", "bot", "think", "iterations", "seed",
)
#: Event types that may carry the private ``cards`` of the seat that gave or received them.
_PRIVATE: Final = ("pass", "draw", "go_in")


class EngineError(Exception):
    """A request the engine cannot answer; the message names the problem for the sender."""


# ---------------------------------------------------------------------- requests
def _int(value: object, name: str, lo: int, hi: int) -> int:
    if type(value) is not int:
        raise EngineError(f"{name} must be a whole number, not {json.dumps(value)[:40]}")
    if not lo <= value <= hi:
        raise EngineError(f"{name} must be between {lo} and {hi}, not {value}")
    return value


def _seat(value: object, name: str, seats: int) -> int:
    return _int(value, name, 0, seats - 1)


def _card(value: object, name: str, deck: frozenset[str]) -> str:
    if not isinstance(value, str) or value not in deck:
        raise EngineError(f"{name} must be a card of this game's deck such as \"7H\", not {json.dumps(value)[:40]}")
    return value


def _cards(value: object, name: str, deck: frozenset[str]) -> list[str]:
    if not isinstance(value, list):
        raise EngineError(f"{name} must be a list of cards, not {json.dumps(value)[:40]}")
    out = [_card(c, f"{name}[{i}]", deck) for i, c in enumerate(value)]
    if len(set(out)) != len(out):
        raise EngineError(f"{name} names a card twice")
    return out


def _ints(value: object, name: str, length: int) -> list[int]:
    if not isinstance(value, list) or len(value) != length or any(type(v) is not int for v in value):
        raise EngineError(f"{name} must be a list of {length} whole numbers")
    return list(value)


def _public(ev: Mapping[str, object], seat: int) -> dict[str, object]:
    """An event as ``seat`` knows it (the rule of :attr:`SeatView.events`), for comparing:
    private cards of other seats dropped, and so are null fields and empty card lists."""
    out = dict(ev)
    if "cards" in out and out.get("seat") != seat and out.get("to") != seat:
        del out["cards"]
    for key in [k for k, v in out.items() if v is None or (k == "cards" and v == [])]:
        del out[key]
    return out


def _show(ev: object) -> str:
    return json.dumps(ev, sort_keys=True)[:200]


class _Replay:
    """The deal as ``seat`` sees it, rebuilt from its starting cards and the events."""

    def __init__(self, spec: GameSpec, deal: DealState, seat: int, hand: list[str], events: list[object]) -> None:
        self.spec = spec
        self.deal = deal
        self.seat = seat
        self.hand = hand
        #: the seat's starting cards not yet given a position
        self.pending = list(hand)
        self.given = events
        self.checked = 0
        self.deck_cards = frozenset(spec.deck)

    # -- events given
    def event(self, offset: int, needed: str) -> tuple[str, Mapping[str, object]]:
        """The given event the deal will record ``offset`` events from now."""
        k = len(self.deal.events) + offset
        if k >= len(self.given):
            raise EngineError(f"the events stop too early: the deal needs {needed} next")
        ev = self.given[k]
        where = f"events[{k}]"
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise EngineError(f"{where} must be an object with a \"type\" and a \"seat\"")
        _seat(ev.get("seat"), f"{where}.seat", self.deal.seats)
        return where, ev

    def expect(self, offset: int, kinds: Sequence[str], seat: int, needed: str) -> tuple[str, Mapping[str, object]]:
        where, ev = self.event(offset, needed)
        if ev["type"] not in kinds:
            raise EngineError(f"{where}: the deal needs {needed} here, not a {ev['type']!r} event")
        if ev["seat"] != seat:
            raise EngineError(f"{where}: it is seat {seat}'s turn to {_VERB.get(kinds[0], kinds[0])}, "
                              f"not seat {ev['seat']}'s (out of turn)")
        return where, ev

    def compare(self) -> None:
        """Every event the deal has recorded since the last call must be the one given."""
        made = self.deal.events
        for k in range(self.checked, len(made)):
            mine = _public(made[k], self.seat)
            if k >= len(self.given):
                raise EngineError(f"the events stop too early: the deal goes on with {_show(mine)}")
            given = self.given[k]
            theirs = _public(given, self.seat) if isinstance(given, dict) else given
            if json.dumps(mine, sort_keys=True) != json.dumps(theirs, sort_keys=True):
                raise EngineError(f"events[{k}] does not follow from the history: the deal records "
                                  f"{_show(mine)} here, not {_show(theirs)}")
        self.checked = len(made)

    # -- cards and positions
    def where(self, card: str) -> str:
        """Where ``card`` is known to be, for messages."""
        if card in self.pending:
            return f"seat {self.seat} holds it"
        deck = self.deal.deck
        pos = deck.find(card)
        if pos is None:
            return "nowhere known"
        owner = deck.owner[pos]
        if owner == self.seat:
            return f"seat {self.seat} holds it"
        if owner == PLAYED:
            return "it was played already"
        if owner == DISCARD:
            return "it was discarded"
        if owner == STOCK:
            return "it lies face up under the stock" if pos in self.deal.shown else "it is in the stock"
        return f"seat {owner} is known to hold it"

    def place(self, card: str, pos: int, where: str) -> None:
        """Learn that ``pos`` holds ``card``, unless the card is known to be elsewhere."""
        deck = self.deal.deck
        found = deck.find(card)
        if (found is not None and found != pos) or card in self.pending:
            raise EngineError(f"{where}: {card} cannot be there: {self.where(card)}")
        try:
            deck.learn(pos, card)
        except DeckError:
            raise EngineError(f"{where}: {card} cannot be there: {deck.cards[pos]} is") from None

    def own_position(self, card: str, where: str) -> int:
        """The position of ``card`` in the seat's own hand."""
        deck = self.deal.deck
        pos = deck.find(card)
        if pos is not None and deck.owner[pos] != self.seat:
            raise EngineError(f"{where}: seat {self.seat} cannot show {card}: {self.where(card)}")
        if pos is None:
            raise EngineError(f"{where}: seat {self.seat} does not hold {card}")
        return pos

    def unknown(self, seat: int) -> list[int]:
        cards = self.deal.deck.cards
        return [p for p in self.deal.deck.hands[seat] if cards[p] is None]

    def position_for(self, seat: int, card: str, where: str) -> int:
        """A position of ``seat`` that holds ``card``: where it is known to be, else one of
        the seat's unknown positions, now known to hold it."""
        if seat == self.seat:
            return self.own_position(card, where)
        deck = self.deal.deck
        found = deck.find(card)
        if found is not None or card in self.pending:
            if found is not None and deck.owner[found] == seat:
                return found
            raise EngineError(f"{where}: seat {seat} cannot show {card}: {self.where(card)}")
        free = self.unknown(seat)
        if not free:
            raise EngineError(f"{where}: seat {seat} cannot show {card}: it holds no card that could be it")
        self.place(card, free[-1], where)
        return free[-1]

    def show_own(self, pos: int, card: str, where: str) -> None:
        """The seat shows ``card`` at its position ``pos`` (the dealer's trump card, a turned
        card): its own unshown positions are alike to others, so swap cards if need be."""
        deck = self.deal.deck
        old = deck.cards[pos]
        if old == card:
            return
        assert old is not None
        if card in self.pending:
            self.pending[self.pending.index(card)] = old
        else:
            other = deck.find(card)
            if other is None or deck.owner[other] != self.seat or other in self.deal.shown:
                raise EngineError(f"{where}: seat {self.seat} shows {card}, which is not in its hand")
            deck.cards[other] = old
        deck.cards[pos] = card

    # -- the replay
    def run(self) -> Decision:
        """Replay every event; return the decision the seat faces at the end of them."""
        deal = self.deal
        while True:
            self.compare()
            if deal.hands_at_start is not None and self.pending:
                raise EngineError(f"hand lists {len(self.hand)} cards, more than seat {self.seat} is dealt "
                                  f"({len(self.hand) - len(self.pending)})")
            step = deal.step()
            if type(step) is End:
                if len(deal.events) < len(self.given):
                    why = "" if deal.renuncia is None else f" (a renúncia by seat {deal.renuncia} ended it)"
                    raise EngineError(f"events[{len(deal.events)}] comes after the deal's end{why}")
                raise EngineError("the deal is over: there is nothing to decide")
            if type(step) is Decision:
                if len(deal.events) == len(self.given):
                    return self.position(step)
                self.decide(step)
            elif type(step) is Deal:
                self.deal_step(step)
            elif type(step) is Reveal:
                self.reveal(step)
            elif type(step) is Locate:
                self.locate(step)
            else:  # pragma: no cover - the contract has no other steps
                raise EngineError(f"the engine does not know the step {type(step).__name__}")

    def position(self, step: Decision) -> Decision:
        me = self.seat
        if me not in step.seats or me not in self.deal.undecided():
            whose = " and ".join(f"seat {s}" for s in step.seats)
            raise EngineError(f"it is not seat {me}'s turn to decide: {whose} must "
                              f"{_VERB.get(step.kind, step.kind)} next")
        if self.pending:
            raise EngineError(f"hand lists {len(self.hand)} cards but seat {me} has been dealt "
                              f"{len(self.hand) - len(self.pending)} so far")
        return step

    def deal_step(self, step: Deal) -> None:
        deal = self.deal
        if step.seat == self.seat and step.source == STOCK:
            if deal.hands_at_start is None:  # the hands are being dealt
                for pos in step.positions:
                    if not self.pending:
                        raise EngineError(f"hand lists {len(self.hand)} cards; seat {self.seat} is dealt more")
                    self.place(self.pending.pop(0), pos, "hand")
            else:
                where, ev = self.expect(0, ("draw",), self.seat, f"seat {self.seat}'s draw")
                cards = _cards(ev.get("cards"), f"{where}.cards", self.deck_cards)
                if len(cards) != len(step.positions):
                    raise EngineError(f"{where}: seat {self.seat} draws {len(step.positions)} cards here, "
                                      f"not {len(cards)}")
                for pos, card in zip(step.positions, cards):
                    self.place(card, pos, where)
        self.complete()

    def reveal(self, step: Reveal) -> None:
        where, ev = self.event(0, "the card shown")
        card = _card(ev.get("card"), f"{where}.card (a card is shown here)", self.deck_cards)
        if len(step.positions) != 1:
            raise EngineError("the engine does not replay several cards shown at once")
        pos = step.positions[0]
        if self.deal.deck.owner[pos] == self.seat:
            self.show_own(pos, card, where)
        else:
            self.place(card, pos, where)
        self.complete()

    def locate(self, step: Locate) -> None:
        deck = self.deal.deck
        if deck.find(step.card) is None:
            where, ev = self.event(0, f"the lead of {step.card}")
            if ev["type"] != "play" or ev.get("card") != step.card:
                raise EngineError(f"{where}: the holder of {step.card} must lead it here")
            self.position_for(_seat(ev["seat"], f"{where}.seat", self.deal.seats), step.card, where)
        self.complete()

    def complete(self) -> None:
        try:
            self.deal.complete()
        except (IllegalChoice, DeckError) as exc:
            raise EngineError(f"the history cannot be replayed: {exc}") from None

    def apply(self, seat: int, choice: Plain, where: str) -> None:
        try:
            self.deal.apply(seat, choice)
        except (IllegalChoice, DeckError) as exc:
            raise EngineError(f"{where}: {exc}") from None

    def decide(self, step: Decision) -> None:
        """Apply the decision the events record."""
        if step.kind == PLAY:
            self.play(step.seats[0])
        elif step.kind == TRUMP:
            seat = step.seats[0]
            where, ev = self.expect(0, ("trump",), seat, f"seat {seat}'s trump choice")
            choice = ev.get("choice")
            if choice not in self.deal.legal(seat):
                raise EngineError(f"{where}: {json.dumps(choice)[:40]} is not a trump choice")
            self.apply(seat, choice, where)
        elif step.kind in (PASS, GO_IN):
            choices = [(s, *self.pick(step, i, s)) for i, s in enumerate(sorted(step.seats))]
            for seat, choice, where in choices:
                self.apply(seat, choice, where)
        else:
            raise EngineError(f"the engine does not know {self.spec.name}'s decision {step.kind!r}")

    def play(self, seat: int) -> None:
        where, ev = self.expect(0, ("play", SWAP), seat, f"seat {seat}'s play")
        card = _card(ev.get("card"), f"{where}.card", self.deck_cards)
        pos = self.position_for(seat, card, where)
        choice: Legal = pos if ev["type"] == "play" else (SWAP, pos)
        if seat == self.seat and choice not in self.deal.legal(seat):
            what = "swap" if ev["type"] == SWAP else "play"
            raise EngineError(f"{where}: seat {seat} may not {what} {card} here (the rules do not allow it "
                              f"from its hand)")
        self.apply(seat, choice, where)

    def pick(self, step: Decision, offset: int, seat: int) -> tuple[tuple[int, ...] | None, str]:
        """The choice of ``seat`` in a pass or going-in decision, from its event."""
        kind = "pass" if step.kind == PASS else "go_in"
        where, ev = self.expect(offset, (kind,), seat, f"seat {seat}'s {kind}")
        if kind == "go_in":
            plays = ev.get("plays")
            if not isinstance(plays, bool):
                raise EngineError(f"{where}.plays must be true or false")
            if not plays:
                return None, where
        if seat == self.seat:
            cards = _cards(ev.get("cards"), f"{where}.cards", self.deck_cards)
            return tuple(self.own_position(c, where) for c in cards), where
        deck = self.deal.deck
        given = ev.get("cards")
        if kind == "pass":
            if ev.get("to") == self.seat:  # passed to this seat: it sees them
                cards = _cards(given, f"{where}.cards", self.deck_cards)
                free = self.unknown(seat)
                if len(cards) > len(free):
                    raise EngineError(f"{where}: seat {seat} cannot pass {len(cards)} cards")
                for card, pos in zip(cards, free):
                    self.place(card, pos, where)
                return tuple(free[: len(cards)]), where
            assert step.pick is not None
            lo, hi = step.pick
            count = lo if lo == hi else len(given) if isinstance(given, list) else -1
            if not lo <= count <= hi:
                raise EngineError(f"{where}: say which cards seat {seat} passes (\"cards\"), or at least how many")
        else:
            count = _int(ev.get("exchange"), f"{where}.exchange", 0, len(deck.hands[seat]))
        # the seat's cards known to all (a turned trump card) go only when the event names them
        named = set(given) if isinstance(given, list) and all(isinstance(c, str) for c in given) else set()
        known = [p for p in deck.hands[seat] if deck.cards[p] is not None and deck.cards[p] in named]
        chosen = (known + self.unknown(seat))[:count]
        if len(chosen) != count:
            raise EngineError(f"{where}: seat {seat} cannot give {count} cards")
        return tuple(chosen), where

    def check_tricks(self, tricks: object) -> None:
        cards = self.deal.deck.cards
        mine = [
            {"leader": t.leader, "seats": [s for s, _ in t.plays], "cards": [cards[p] for _, p in t.plays],
             "winner": t.winner}
            for t in self.deal.tricks
        ]
        if json.dumps(mine, sort_keys=True) != json.dumps(tricks, sort_keys=True):
            raise EngineError(f"tricks does not match the events, which give {json.dumps(mine)[:300]}")


#: What a seat does in a decision of each kind (or makes an event of each type), for messages.
_VERB: Final = {PLAY: "play", SWAP: "play", TRUMP: "choose trumps", PASS: "pass cards",
                GO_IN: "say whether it goes in", "draw": "draw"}


def is_legal(pos: Position, choice: Plain) -> bool:
    """Whether ``choice`` (in positions, as players give it) is legal in ``pos``."""
    deal, seat, decision = pos.deal, pos.seat, pos.decision
    legal = deal.legal(seat)
    if decision.pick is None:
        return bool(choice in legal)
    if choice is None:
        return decision.may_decline
    lo, hi = decision.pick
    return (
        isinstance(choice, (tuple, list)) and lo <= len(choice) <= hi and len(set(choice)) == len(choice)
        and all(p in legal for p in choice)
    )


@dataclass
class Position:
    """A position rebuilt from a request: the deal as ``seat`` sees it, the decision it faces."""

    spec: GameSpec
    deal: DealState
    seat: int
    decision: Decision
    match_totals: list[int]


def replay(request: Mapping[str, object], registry: GameRegistry) -> Position:
    """Rebuild the position of a request (its game, seat, hand and events); raise
    :class:`EngineError` naming the problem when the request is malformed or the history
    cannot have happened.  Only the position's fields are read (not the bot's)."""
    unknown = sorted(set(request) - set(REQUEST_FIELDS))
    if unknown:
        raise EngineError(f"unknown field {unknown[0]!r} (a request has {', '.join(REQUEST_FIELDS)})")
    name = request.get("game")
    if not isinstance(name, str):
        raise EngineError("game must be a game's name, e.g. \"sueca\"")
    try:
        spec = registry.get(name)
    except KeyError:
        raise EngineError(f"unknown game {name!r} (installed: {', '.join(sorted(registry.games))})") from None
    raw = request.get("options", {})
    if not isinstance(raw, dict) or any(type(v) not in (str, int) for v in raw.values()):
        raise EngineError("options must be an object of option names and values, e.g. {\"target\": 8}")
    try:
        options = spec.resolve_options(raw)
    except OptionError as exc:
        raise EngineError(str(exc)) from None
    seats = spec.seats
    seat = _seat(request.get("seat"), "seat", seats)
    dealer = _seat(request.get("dealer"), "dealer", seats)
    hand = _cards(request.get("hand"), "hand", frozenset(spec.deck))
    events = request.get("events", [])
    if not isinstance(events, list):
        raise EngineError("events must be a list of event objects")

    match = spec.new_match(options, dealer)
    match.deal_number = _int(request.get("match_deal", 0), "match_deal", 0, 1_000_000)
    if "match_totals" in request:
        match.totals = _ints(request["match_totals"], "match_totals", len(match.totals))
    if "sat_out" in request:
        if not isinstance(getattr(match, "sat_out", None), list):
            raise EngineError(f"sat_out is not a field of {spec.name}")
        sat_out = _ints(request["sat_out"], "sat_out", seats)
        if min(sat_out) < 0:
            raise EngineError("sat_out counts deals: it cannot be negative")
        match.sat_out = sat_out  # type: ignore[attr-defined]
    deal = match.new_deal(None)
    rebuilt = _Replay(spec, deal, seat, hand, events)
    decision = rebuilt.run()
    if "tricks" in request:
        rebuilt.check_tricks(request["tricks"])
    return Position(spec, deal, seat, decision, list(match.totals))
