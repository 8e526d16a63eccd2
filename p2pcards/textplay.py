"""Line-mode play against computer players (``p2pcards play --text``, or with no terminal).

The person sits in the first seat; computer players fill the other seats.  Every decision
of every game is asked as a line of text; nothing illegal is ever accepted.  Everything
that happens -- a card played, a trick taken, trumps turned up -- is printed as soon as it
happens, before the next question and before the deal's summary.  What the full-screen
table shows of a game besides the cards is told too, as it changes: the deal's public facts
(:meth:`~p2pcards.core.deal.DealState.facts`, on the screen's top line) as one line, the
person's notes (:meth:`~p2pcards.core.deal.DealState.notes`) as indented lines.  A game's own
event kinds read in the game's words (its ``event.KIND`` texts; see "How a game reaches the
screens" in :mod:`p2pcards.core`), or else as a plain line, "Seat 2: KIND CHOICE".

People see seats and deals numbered from 1 ("seat 2", "deal 1") and their own seat as
"you"; every line comes from :mod:`p2pcards.words` (the ``text_`` keys) in the language
of the table (``--lang``, as the full-screen table), or from the game itself: how its
results read, what its decisions are and the labels of its choices come from its spec and
deal state (:mod:`p2pcards.core`), in its own words -- nothing here names a game.

Data directory: line mode keeps no transcript and writes nothing of its own, but
``p2pcards play`` checks the data directory before a line-mode match exactly as it does
before a full-screen one (it loads, or creates on first use, the person's identity there),
so an unusable directory is refused in the same words and with the same exit status (2)
whichever way the match would be shown.

The module does no I/O of its own beyond the text streams it is given.
"""

from __future__ import annotations

import random
import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from p2pcards.core import PLAY, DealState, Decision, End, GameSpec, Line, SeatView, pretty
from p2pcards.players import bot_budget, make_player
from p2pcards.words import Text, game_word, line_text, summary_text

__all__ = ["play_text", "Quit"]

_ORDER = {s: i for i, s in enumerate("SHCD")}
#: The seat the person takes (0 on the wire; "seat 1" to people).
ME = 0
#: Words that leave the table, in any language.
_QUIT_WORDS = ("q", "quit", "sair")


#: How long (ms) a computer player that searches thinks per decision in line mode.
TEXT_THINK_MS = 300


class Quit(Exception):
    """The person asked to leave (q; ``on_purpose``) or the input ended (not on purpose)."""

    def __init__(self, on_purpose: bool) -> None:
        super().__init__("left" if on_purpose else "end of input")
        self.on_purpose = on_purpose


def _sort_key(card: str, strength: Mapping[str, int]) -> tuple[int, int]:
    return (_ORDER[card[1]], -strength.get(card[0], 0))


def _cap(text: str) -> str:
    """``text`` with its first letter in capitals (a name at the start of a sentence)."""
    return text[:1].upper() + text[1:]


class _Words:
    """The table's words in one language: seats, sides, counts with their plurals."""

    def __init__(self, lang: str, spec: GameSpec) -> None:
        self.t = Text(lang)
        self.spec = spec

    def __call__(self, key: str, **fields: object) -> str:
        return self.t(key, **fields)

    def count(self, key: str, n: int, **fields: object) -> str:
        """``n`` things, singular or plural: ``count("text_tricks", 1)`` is "1 trick"."""
        return self.t.plural(key, n, **fields)

    def known(self, key: str) -> bool:
        return key in self.t

    def who(self, seat: int) -> str:
        """A seat as people name it: "you", or "seat 3" for wire seat 2."""
        return self.t("text_you") if seat == ME else self.t("text_seat", n=seat + 1)

    def joined(self, names: Sequence[str]) -> str:
        """"a", "a and b", "a, b and c"."""
        if len(names) <= 1:
            return "".join(names)
        return self.t("text_and", a=", ".join(names[:-1]), b=names[-1])

    def sides(self) -> list[tuple[int, ...]]:
        """The scoring sides in the order of the match totals: teams, or single seats."""
        if self.spec.teams:
            return [tuple(team) for team in self.spec.teams]
        return [(s,) for s in range(self.spec.seats)]

    def side(self, seats: Sequence[int]) -> str:
        return self.joined([self.who(s) for s in seats])

    def suit(self, suit: str) -> str:
        return self.t.suit(suit)

    def level(self, level: str) -> str:
        key = f"text_level_{level}"
        return self.t(key) if self.known(key) else level

    def totals(self, totals: Sequence[int]) -> str:
        return " · ".join(f"{self.side(seats)}: {v}" for seats, v in zip(self.sides(), totals))

    def seat_name(self, seat: int, first: bool) -> str:
        """A seat in the game's words: "You" opening a sentence, "you" or "seat 3" inside one."""
        return _cap(self.who(seat)) if first else self.who(seat)

    def side_name(self, side: int) -> str:
        sides = self.sides()
        return _cap(self.side(sides[side])) if 0 <= side < len(sides) else "?"

    def game(self, line: Line, **extra: object) -> str:
        """A line of the game's own words (:class:`~p2pcards.core.summary.Line`)."""
        return line_text(self.spec, self.t.lang, line, self.seat_name, **extra)

    def game_word(self, key: str, default: str) -> str:
        """The game's words for ``key``, else ``default``."""
        return self.spec.text(self.t.lang, key, default=default)


class _Person:
    def __init__(self, inp: TextIO, out: TextIO, spec: GameSpec, words: _Words) -> None:
        self.inp, self.out, self.spec, self.w = inp, out, spec, words
        #: the deal being played (its rank order sorts the hand; it words the decisions)
        self.deal: DealState | None = None

    @property
    def strength(self) -> Mapping[str, int]:
        return self.deal.strength if self.deal is not None else {}

    def label(self, choice: Any) -> str:
        """A choice that is not a card, in the game's words (as it is when it has none)."""
        line = self.deal.choice_line(ME, choice) if self.deal is not None else None
        return self.w.game(line) if line is not None else str(choice)

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def ask(self, prompt: str) -> str:
        self.out.write(prompt + ": ")
        self.out.flush()
        line = self.inp.readline()
        if not line or line.strip().lower() in _QUIT_WORDS:
            raise Quit(on_purpose=bool(line))
        return line.strip()

    def show(self, view: SeatView) -> list[tuple[int, str]]:
        w = self.w
        hand = sorted(view.hand, key=lambda pc: _sort_key(pc[1], self.strength))
        parts = []  # trumps once known (a game may have none), then the trick on the table
        if view.trump:
            parts.append(w("text_trump", suit=w.suit(view.trump)))
            if view.trump_card:
                parts[-1] += " " + w("text_trump_card", card=pretty(view.trump_card))
        if view.trick:
            parts.append(w("text_trick", plays="  ".join(f"{w.who(s)}: {pretty(c)}" for s, c in view.trick)))
        if parts:
            self.say(" | ".join(parts))
        self.say(w("text_hand", cards="  ".join(f"{i + 1}) {pretty(c)}" for i, (_, c) in enumerate(hand))))
        return hand

    def choose(self, view: SeatView, decision: Decision) -> Any:
        hand = self.show(view)
        legal = view.legal
        while True:
            try:
                return self._choose(decision, hand, legal)
            except ValueError as exc:
                self.say(f"  {exc}")

    def _choose(self, decision: Decision, hand: list[tuple[int, str]], legal: list[Any]) -> Any:
        w = self.w
        if decision.kind != PLAY and self.deal is not None:  # the game says what this decision is
            for line in self.deal.decision_lines(ME):
                self.say(w.game(line, k=0))
        if decision.kind != PLAY and decision.pick is None:
            return self._pick_choice(decision, legal)
        if decision.kind == PLAY:
            extras = [c for c in legal if not isinstance(c, int)]
            ok = [i + 1 for i, (p, _) in enumerate(hand) if p in legal]
            hint = w("text_play", numbers=", ".join(map(str, ok)))
            if extras:
                hint += w("text_play_extra", choice=self.label(extras[0]))
            text = self.ask(hint)
            if extras and text.lower() == "x":
                return extras[0]
            n = self._numbers(text, hand, 1, 1)[0]
            if hand[n][0] not in legal:
                raise ValueError(w("text_err_not_allowed", card=pretty(hand[n][1])))
            return hand[n][0]
        assert decision.pick is not None
        lo, hi = decision.pick
        if lo == hi:
            prompt = w("text_pick", cards=w.count("text_cards", lo))
        else:
            prompt = w("text_pick_range", lo=lo, hi=hi) + (w("text_pick_none") if lo == 0 else "")
        if decision.may_decline:
            prompt += w("text_pick_decline", decline=w.game_word(f"decision.{decision.kind}.decline",
                                                                   w("text_decline")))
        text = self.ask(prompt)
        if decision.may_decline and text.lower() == "n":
            return None
        picked = self._numbers(text, hand, lo, hi) if text else []
        if len(picked) < lo:
            raise ValueError(w.count("text_err_at_least", lo))
        return tuple(hand[i][0] for i in picked)

    def _pick_choice(self, decision: Decision, legal: list[Any]) -> Any:
        """One of a list of choices (a trump suit...), by its number, its value or its
        label in the game's words (the words alone, without symbols or notes, will do)."""
        w = self.w
        labels = [self.label(c) for c in legal]
        title = w.game_word(f"decision.{decision.kind}.title", w("text_choose"))
        text = self.ask(w("text_choices", title=title,
                          choices="  ".join(f"{i + 1}) {label}" for i, label in enumerate(labels))))
        said = text.strip().lower()
        for i, (choice, label) in enumerate(zip(legal, labels)):
            bare = re.sub(r"\(.*?\)", "", label).strip(" ♠♥♦♣").lower()
            if said in (str(i + 1), str(choice).lower(), label.lower(), bare):
                return choice
        raise ValueError(w("text_err_number", n=len(legal)))

    def _numbers(self, text: str, hand: list[tuple[int, str]], lo: int, hi: int) -> list[int]:
        w = self.w
        try:
            nums = [int(t) - 1 for t in text.replace(",", " ").split()]
        except ValueError:
            raise ValueError(w("text_err_numbers")) from None
        if not lo <= len(nums) <= hi or len(set(nums)) != len(nums):
            raise ValueError(w.count("text_err_exactly", lo) if lo == hi else w("text_err_range", lo=lo, hi=hi))
        for n in nums:
            if not 0 <= n < len(hand):
                raise ValueError(w("text_err_no_card", n=n + 1))
        return nums


def play_text(
    spec: GameSpec,
    options: Mapping[str, Any],
    bots: str,
    seed: int | None,
    deals: int | None,
    inp: TextIO,
    out: TextIO,
    *,
    lang: str = "en",
) -> int:
    """Play a match in line mode, in ``lang`` (en or pt); return the exit status: 0 at the
    end or when the person leaves with q, 130 when the input ends first."""
    words = _Words(lang, spec)
    seed = secrets.randbits(32) if seed is None else seed
    shuffler = random.Random(f"p2pcards-play/{seed}")
    person = _Person(inp, out, spec, words)
    players: list[Any] = [person] + [
        make_player(bots, spec, random.Random(f"p2pcards-play/{seed}/{s}"), **bot_budget(seed, TEXT_THINK_MS))
        for s in range(1, spec.seats)
    ]
    match = spec.new_match(options, shuffler.randrange(spec.seats))
    bots_key = "text_intro_one" if spec.seats == 2 else "text_intro_other"
    title = spec.text(lang, "title")  # the game's own words in the person's language
    person.say(words(bots_key, title=title, me=ME + 1, level=words.level(bots), first=ME + 2, last=spec.seats))
    if spec.teams:
        teams = [words.side(team) for team in spec.teams]
        person.say(words("text_teams", teams=words("text_against", a=teams[0], b=", ".join(teams[1:]))))
    played = 0
    try:
        while not match.finished and (deals is None or played < deals):
            cards = list(spec.deck)
            shuffler.shuffle(cards)
            deal = match.new_deal(cards)
            person.deal = deal
            person.say("\n" + words("text_deal", n=match.deal_number + 1, who=words.who(deal.dealer)))
            views = [SeatView(deal, s, match.totals) for s in range(spec.seats)]
            told = _Told()
            while True:
                _narrate(person, deal, views[ME], told)  # what just happened, before anything is asked
                step = deal.step()
                if isinstance(step, End):
                    break
                if not isinstance(step, Decision):
                    deal.complete()
                    continue
                for seat in step.seats:
                    deal.apply(seat, players[seat].choose(views[seat], step))
            match.record(deal)
            played += 1
            _summary(person, match.deal_number, deal.result or {})
            person.say(words("text_match", label=spec.text(lang, "totals"), totals=words.totals(match.totals)))
    except Quit as left:
        person.say("\n" + words("text_left"))
        return 0 if left.on_purpose else 130
    person.say("")
    _final(person, match.winner, match.totals, played, match.options)
    return 0


class _Told:
    """How much of a deal's events and tricks the person has been told, and the game's
    facts and notes as last printed."""

    def __init__(self) -> None:
        self.events = 0
        self.tricks = 0
        self.facts: list[str] = []
        self.notes: list[str] = []


#: Event kinds of the core that text mode keeps quiet about (a draw shows in the hand).
_QUIET = ("draw",)


def _narrate(person: _Person, deal: DealState, view: SeatView, told: _Told) -> None:
    """Print what happened in ``deal`` since the last call: its new events, then whoever
    took a trick that was completed (called after every step, so at most one), then the
    game's facts and the person's notes when they changed (while the deal goes on).  An
    event of a kind text mode does not know is told as the person's seat may know it
    (``view``: without another seat's private cards)."""
    w = person.w
    for ev, public in zip(deal.events[told.events:], view.events[told.events:]):
        line = _event_line(person, ev, public)
        if line:
            person.say("  " + line)
    told.events = len(deal.events)
    for trick in deal.tricks[told.tricks:]:
        person.say("  " + w("text_took_trick", who=_cap(w.who(trick.winner))))
    told.tricks = len(deal.tricks)
    if deal.over:
        return
    facts = [w.game(line) for line in deal.facts()]
    if facts != told.facts and facts:  # facts that are gone are not announced
        person.say("  " + w("text_facts", facts=" · ".join(facts)))
    told.facts = facts
    notes = [w.game(line) for line in deal.notes(ME)]
    if notes != told.notes:
        for note in notes:
            person.say("    " + note)
    told.notes = notes


def _event_line(person: _Person, ev: Mapping[str, Any], public: Mapping[str, Any]) -> str | None:
    """One event in words (None: nothing to say).  The kinds text mode knows read in its
    own words (from the whole event ``ev``: they show private cards only to whom they
    belong); any other kind, or a known kind with fields it cannot read, in the game's
    words or as a plain line, from the event as the person knows it (``public``)."""
    try:
        known = _known_event(person.w, ev)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        known = ""
    return _own_event(person.w, public) if known == "" else known


def _known_event(w: _Words, ev: Mapping[str, Any]) -> str | None:
    """An event of a kind text mode knows in its words; None to keep quiet, "" for a kind
    it does not know."""
    seat = ev["seat"]
    who = _cap(w.who(seat))
    kind = ev["type"]
    if kind == "play":
        return w("text_played", who=who, card=pretty(ev["card"]))
    if kind == "trump" and ev.get("card"):
        return w("text_turned", who=who, card=pretty(ev["card"]), suit=w.suit(ev["card"][1]))
    if kind == "trump":
        choice = ev.get("choice")
        suit = w.suit(choice) if choice in _ORDER else str(choice)
        return w("text_chose_trump", who=who, suit=suit)
    if kind == "go_in" and not ev["plays"]:
        return w("text_sat_out", who=who)
    if kind == "go_in":
        n = int(ev.get("exchange", 0))
        return w.count("text_went_in_exchanging", n, who=who) if n else w("text_went_in", who=who)
    if kind == "swap":
        return w("text_swapped", who=who, card=pretty(ev["card"]), took=pretty(ev["took"]))
    if kind == "pass":
        to = ev["to"]
        cards = list(ev.get("cards") or [])
        if to == ME:
            return w("text_passed_you", who=who, cards=" ".join(map(pretty, cards)))
        # the cards are the person's to see only when the person passed them
        shown = " ".join(map(pretty, cards)) if seat == ME else w.count("text_cards", len(cards))
        return w("text_passed", who=who, cards=shown, to=w.who(to))
    if kind in _QUIET:
        return None
    return ""


class _Fields(dict[str, str]):
    """An event's fields for a game's words: a field the event lacks reads "?"."""

    def __missing__(self, key: str) -> str:
        return "?"


def _own_event(w: _Words, ev: Mapping[str, Any]) -> str:
    """An event of a kind text mode does not know, in the game's words for it
    (``event.KIND.CHOICE``, else ``event.KIND``), or else "Seat 2: KIND CHOICE" with
    whatever the event carries; never an error, whatever its fields."""
    kind = str(ev.get("type", "?"))
    deck = set(w.spec.deck)
    fields = _Fields({str(k): _readable(v, deck) for k, v in ev.items()})
    fields["kind"] = kind
    choice = ev.get("choice")
    keys = [f"event.{kind}.{choice}"] if isinstance(choice, str) else []
    for key in [*keys, f"event.{kind}"]:
        template = game_word(w.spec, w.t.lang, key)
        if template is None:
            continue
        # the seats an event names, as people name them ("You" opening the sentence)
        fields["who"] = fields["seat"] = _seat(w, ev.get("seat"), template.startswith(("{who}", "{seat}")))
        if "to" in ev:
            fields["to"] = _seat(w, ev.get("to"), template.startswith("{to}"))
        try:
            return template.format_map(fields)
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            break  # words the event cannot fill: the plain line
    what = next((fields[k] for k in ("choice", "card", "cards") if fields.get(k)), "")
    return w("text_event", who=_seat(w, ev.get("seat"), True), kind=kind, choice=what).rstrip()


def _seat(w: _Words, seat: object, first: bool) -> str:
    """A seat an event names, as people name it ("?" for anything that is no seat)."""
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < w.spec.seats:
        return w.seat_name(seat, first)
    return "?"


def _readable(value: object, deck: set[str]) -> str:
    """An event's field as people read it: a card "7♥", cards "7♥ A♠", a list "a, b",
    nothing (None) as ""."""
    if value is None:
        return ""
    if isinstance(value, str):
        return pretty(value) if value in deck else value
    if isinstance(value, (list, tuple)):
        if value and all(isinstance(v, str) and v in deck for v in value):
            return " ".join(pretty(v) for v in value)
        return ", ".join(_readable(v, deck) for v in value)
    return str(value)


def _summary(person: _Person, number: int, res: Mapping[str, Any]) -> None:
    """The deal's result in words: per side, as the game says it reads."""
    w = person.w
    spec = person.spec
    person.say(w("text_deal_over", n=number))
    for line in summary_text(spec, w.t.lang, spec.deal_summary(res), w.side_name, w.seat_name, mark=" *"):
        person.say("  " + line)
    if res.get("renuncia") is not None:
        person.say("  " + w("text_renuncia", who=w.who(res["renuncia"])))


def _final(person: _Person, winner: int | None, totals: Sequence[int], played: int,
           options: Mapping[str, Any]) -> None:
    """The last lines: the match's tally as the game reads it, then who won, by name (or
    that nobody has yet)."""
    w = person.w
    spec = person.spec
    if winner is None:
        person.say(w.count("text_no_winner", played))
        return
    if len(totals) == len(w.sides()):
        summary = spec.match_summary(totals, winner, options)
        if len(summary.columns) > 1 or summary.notes:  # more than the totals already said
            for line in summary_text(spec, w.t.lang, summary, w.side_name, w.seat_name, mark=" *"):
                person.say(line)
    side = w.sides()[winner]
    if ME in side and len(side) > 1:
        person.say(w("text_winners_us", partners=w.joined([w.who(s) for s in side if s != ME])))
    elif ME in side:
        person.say(w("text_winner_you"))
    elif len(side) > 1:
        person.say(w("text_winners", names=w.side(side)))
    else:
        person.say(w("text_winner", who=w.who(side[0])))
