"""Line-mode play against computer players (``p2pcards play``).

The person sits in seat 0; computer players fill the other seats.  Every decision of
every game is asked as a line of text; nothing illegal is ever accepted.  The full-screen
table of a later release replaces this; the game engine underneath is the same.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping
from typing import Any, TextIO

from p2pcards.core import GO_IN, PASS, PLAY, TRUMP, Decision, End, GameSpec, SeatView, pretty
from p2pcards.core.cards import PT_RANK_ORDER, SUIT_NAMES, strength_table
from p2pcards.core.players import make_player

__all__ = ["play_text", "Quit"]

_ORDER = {s: i for i, s in enumerate("SHCD")}


class Quit(Exception):
    """The person asked to leave (q, or end of input)."""


def _sort_key(card: str, strength: Mapping[str, int]) -> tuple[int, int]:
    return (_ORDER[card[1]], -strength.get(card[0], 0))


class _Person:
    def __init__(self, inp: TextIO, out: TextIO, spec: GameSpec) -> None:
        self.inp, self.out, self.spec = inp, out, spec
        self.strength = strength_table(PT_RANK_ORDER if len(spec.deck) == 40 else "AKQJT98765432")

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        self.out.write(prompt)
        self.out.flush()
        line = self.inp.readline()
        if not line or line.strip().lower() in ("q", "quit"):
            raise Quit
        return line.strip()

    def show(self, view: SeatView) -> list[tuple[int, str]]:
        hand = sorted(view.hand, key=lambda pc: _sort_key(pc[1], self.strength))
        trump = view.trump
        line = f"Trump: {SUIT_NAMES[trump]} " if trump else "Trump: none yet "
        if view.trump_card:
            line += f"(card {pretty(view.trump_card)}) "
        if view.trick:
            line += "| Trick: " + "  ".join(f"seat {s}: {pretty(c)}" for s, c in view.trick)
        self.say(line)
        self.say("Your hand: " + "  ".join(f"{i + 1}) {pretty(c)}" for i, (_, c) in enumerate(hand)))
        return hand

    def choose(self, view: SeatView, decision: Decision) -> Any:
        hand = self.show(view)
        legal = view.legal
        while True:
            try:
                return self._choose(view, decision, hand, legal)
            except ValueError as exc:
                self.say(f"  {exc}")

    def _choose(self, view: SeatView, decision: Decision, hand: list[tuple[int, str]], legal: list[Any]) -> Any:
        if decision.kind == TRUMP:
            text = self.ask(f"Choose trumps ({', '.join(legal)}): ").strip()
            for choice in legal:
                if choice.lower() == text.lower():
                    return choice
            raise ValueError(f"type one of {', '.join(legal)}")
        if decision.kind == PLAY:
            extras = [c for c in legal if isinstance(c, tuple)]
            ok = [i + 1 for i, (p, _) in enumerate(hand) if p in legal]
            hint = f"Play a card ({', '.join(map(str, ok))})"
            if extras:
                hint += ", or s to swap the 2 of trumps"
            text = self.ask(hint + ": ")
            if extras and text.lower() == "s":
                return extras[0]
            n = self._numbers(text, hand, 1, 1)[0]
            if hand[n][0] not in legal:
                raise ValueError(f"{pretty(hand[n][1])} is not allowed now (follow the rules of the trick)")
            return hand[n][0]
        assert decision.pick is not None
        lo, hi = decision.pick
        if decision.kind == PASS:
            text = self.ask(f"Pass {lo} cards (numbers separated by spaces): ")
        elif decision.kind == GO_IN:
            may = "n to sit out, " if decision.may_decline else ""
            text = self.ask(f"Going in: {may}Enter to play as dealt, or the numbers of cards to exchange: ")
            if decision.may_decline and text.lower() == "n":
                return None
        else:
            text = self.ask(f"Choose {lo}..{hi} cards: ")
        picked = self._numbers(text, hand, lo, hi) if text else []
        if len(picked) < lo:
            raise ValueError(f"choose at least {lo}")
        return tuple(hand[i][0] for i in picked)

    @staticmethod
    def _numbers(text: str, hand: list[tuple[int, str]], lo: int, hi: int) -> list[int]:
        try:
            nums = [int(t) - 1 for t in text.replace(",", " ").split()]
        except ValueError:
            raise ValueError("type card numbers as shown before each card") from None
        if not lo <= len(nums) <= hi or len(set(nums)) != len(nums):
            raise ValueError(f"choose {lo} card(s)" if lo == hi else f"choose {lo} to {hi} different cards")
        for n in nums:
            if not 0 <= n < len(hand):
                raise ValueError(f"there is no card {n + 1}")
        return nums


def play_text(
    spec: GameSpec,
    options: Mapping[str, Any],
    bots: str,
    seed: int | None,
    deals: int | None,
    inp: TextIO,
    out: TextIO,
) -> int:
    """Play a match in line mode; return the exit status (0, or 130 when abandoned)."""
    seed = secrets.randbits(32) if seed is None else seed
    shuffler = random.Random(f"p2pcards-play/{seed}")
    person = _Person(inp, out, spec)
    players: list[Any] = [person] + [
        make_player(bots, spec, random.Random(f"p2pcards-play/{seed}/{s}")) for s in range(1, spec.seats)
    ]
    match = spec.new_match(options, shuffler.randrange(spec.seats))
    person.say(f"{spec.title}: you are seat 0; computer players ({bots}) sit in seats 1..{spec.seats - 1}. q quits.")
    if spec.teams:
        person.say("Teams: " + " against ".join("+".join(map(str, t)) for t in spec.teams))
    played = 0
    try:
        while not match.finished and (deals is None or played < deals):
            cards = list(spec.deck)
            shuffler.shuffle(cards)
            deal = match.new_deal(cards)
            person.say(f"\n--- Deal {match.deal_number + 1}, dealer seat {deal.dealer} ---")
            views = [SeatView(deal, s, match.totals) for s in range(spec.seats)]
            shown = 0
            while True:
                step = deal.step()
                if isinstance(step, End):
                    break
                if not isinstance(step, Decision):
                    deal.complete()
                    continue
                for seat in step.seats:
                    deal.apply(seat, players[seat].choose(views[seat], step))
                shown = _narrate(person, deal.events, shown)
            _narrate(person, deal.events, shown)
            match.record(deal)
            played += 1
            res = {k: v for k, v in (deal.result or {}).items() if v is not None}
            person.say(f"Deal over: {res}")
            person.say(f"Match ({match.totals_label}): {match.totals}")
    except Quit:
        person.say("\nYou left the table.")
        return 130
    if match.finished:
        person.say(f"\nMatch over: side {match.winner} wins with {match.totals}.")
    return 0


def _narrate(person: _Person, events: list[dict[str, Any]], shown: int) -> int:
    for ev in events[shown:]:
        who = "You" if ev["seat"] == 0 else f"Seat {ev['seat']}"
        if ev["type"] == "play":
            person.say(f"  {who} played {pretty(ev['card'])}")
        elif ev["type"] == "trump" and ev.get("card"):
            person.say(f"  {who} turned {pretty(ev['card'])}: trumps")
        elif ev["type"] == "trump":
            person.say(f"  {who} chose trumps: {ev.get('choice')}")
        elif ev["type"] == "go_in":
            person.say(f"  {who} " + (f"plays, exchanging {ev.get('exchange', 0)}" if ev["plays"] else "sits out"))
        elif ev["type"] == "swap":
            person.say(f"  {who} swapped {pretty(ev['card'])} for {pretty(ev['took'])}")
    return len(events)
