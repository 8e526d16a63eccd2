"""What line mode tells of a deal: its events as they happen (in line mode's words for the
kinds it knows, in the game's words or as a plain line for the others), who took each
trick, the game's facts and the person's notes as they change, the deal's summary with the
audit's verdict, and the match's last lines."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from p2pcards.core import Card, DealState, Options, SeatView, pretty
from p2pcards.table.events import DealClosed
from p2pcards.textplay.words import ME, SUIT_ORDER, Words, cap
from p2pcards.words import game_word, summary_text

__all__ = ["Told", "deal_lines", "final_lines", "narrate"]

#: Prints one line.
Say = Callable[[str], None]


class Told:
    """How much of a deal's events and tricks the person has been told, and the game's
    facts and notes as last printed."""

    def __init__(self) -> None:
        self.events = 0
        self.tricks = 0
        self.facts: list[str] = []
        self.notes: list[str] = []


#: Event kinds of the core that text mode keeps quiet about (a draw shows in the hand).
_QUIET = ("draw",)


def narrate(w: Words, say: Say, deal: DealState, view: SeatView, told: Told) -> None:
    """Print what happened in ``deal`` since the last call: its new events, then whoever
    took a trick that was completed (called after every step, so at most one), then the
    game's facts and the person's notes when they changed (while the deal goes on).  An
    event of a kind text mode does not know is told as the person's seat may know it
    (``view``: without another seat's private cards)."""
    for ev, public in zip(deal.events[told.events:], view.events[told.events:]):
        line = _event_line(w, ev, public)
        if line:
            say("  " + line)
    told.events = len(deal.events)
    for trick in deal.tricks[told.tricks:]:
        say("  " + w.about("text_took_trick", trick.winner))
    told.tricks = len(deal.tricks)
    if deal.over:
        return
    facts = [w.game(line) for line in deal.facts()]
    if facts != told.facts and facts:  # facts that are gone are not announced
        say("  " + w("text_facts", facts=" · ".join(facts)))
    told.facts = facts
    notes = [w.game(line) for line in deal.notes(ME)]
    if notes != told.notes:
        for note in notes:
            say("    " + note)
    told.notes = notes


def _event_line(w: Words, ev: Mapping[str, object], public: Mapping[str, object]) -> str | None:
    """One event in words (None: nothing to say).  The kinds text mode knows read in its
    own words (from the whole event ``ev``: they show private cards only to whom they
    belong); any other kind, or a known kind with fields it cannot read, in the game's
    words or as a plain line, from the event as the person knows it (``public``)."""
    try:
        known = _known_event(w, ev)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        known = ""
    return _own_event(w, public) if known == "" else known


def _need_seat(ev: Mapping[str, object], key: str) -> int:
    """The seat an event's field names (TypeError: it names none)."""
    seat = ev[key]
    if not isinstance(seat, int):
        raise TypeError(f"{key} is no seat: {seat!r}")
    return seat


def _card(card: object) -> Card:
    """A card of an event (TypeError: no card)."""
    if not isinstance(card, str):
        raise TypeError(f"no card: {card!r}")
    return card


def _shown(card: object) -> str:
    """A card of an event as people read it (TypeError: no card)."""
    return pretty(_card(card))


def _known_event(w: Words, ev: Mapping[str, object]) -> str | None:
    """An event of a kind text mode knows in its words; None to keep quiet, "" for a kind
    it does not know."""
    seat = _need_seat(ev, "seat")
    kind = ev["type"]
    if kind == "play":
        return w.about("text_played", seat, card=_shown(ev["card"]))
    if kind == "trump" and ev.get("card"):
        card = _card(ev["card"])
        return w.about("text_turned", seat, card=pretty(card), suit=w.suit(card[1]))
    if kind == "trump":
        choice = ev.get("choice")
        suit = w.suit(choice) if isinstance(choice, str) and choice in SUIT_ORDER else str(choice)
        return w.about("text_chose_trump", seat, suit=suit)
    if kind == "go_in" and not ev["plays"]:
        return w.about("text_sat_out", seat)
    if kind == "go_in":
        exchange = ev.get("exchange", 0)
        if not isinstance(exchange, (int, float, str)):
            raise TypeError(f"exchange is no number: {exchange!r}")
        n = int(exchange)
        return w.count_about("text_went_in_exchanging", n, seat) if n else w.about("text_went_in", seat)
    if kind == "swap":
        return w.about("text_swapped", seat, card=_shown(ev["card"]), took=_shown(ev["took"]))
    if kind == "pass":
        return _pass_line(w, seat, _need_seat(ev, "to"), ev.get("cards") or [])
    if kind in _QUIET:
        return None
    return ""


def _pass_line(w: Words, seat: int, to: int, given: object) -> str:
    """Cards passed from ``seat`` to ``to`` (TypeError: no list of cards)."""
    if not isinstance(given, (list, tuple)):
        raise TypeError(f"cards are no list: {given!r}")
    cards = list(given)
    if to == ME:
        return w("text_passed_you", who=cap(w.who(seat)), cards=" ".join(map(_shown, cards)))
    if seat == ME:  # the cards are the person's to see only when the person passed them
        return w("text_passed_by_you", cards=" ".join(map(_shown, cards)), to=w.who(to))
    return w("text_passed", who=cap(w.who(seat)), cards=w.count("text_cards", len(cards)), to=w.who(to))


class _Fields(dict[str, str]):
    """An event's fields for a game's words: a field the event lacks reads "?"."""

    def __missing__(self, key: str) -> str:
        return "?"


def _own_event(w: Words, ev: Mapping[str, object]) -> str:
    """An event of a kind text mode does not know, in the game's words for it
    (``event.KIND.CHOICE``, else ``event.KIND``; first with ``_you`` after the key when
    the seat is the person's), or else "Seat 2: KIND CHOICE" with
    whatever the event carries; never an error, whatever its fields."""
    kind = str(ev.get("type", "?"))
    deck = set(w.spec.deck)
    fields = _Fields({str(k): _readable(v, deck) for k, v in ev.items()})
    fields["kind"] = kind
    choice = ev.get("choice")
    keys = [f"event.{kind}.{choice}"] if isinstance(choice, str) else []
    keys.append(f"event.{kind}")
    if type(ev.get("seat")) is int and ev.get("seat") == ME:  # the person's deed, in words of its own if any
        keys = [k + suffix for k in keys for suffix in ("_you", "")]
    for key in keys:
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


def _seat(w: Words, seat: object, first: bool) -> str:
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


def deal_lines(w: Words, event: DealClosed, void: str, verdict: str) -> list[str]:
    """The deal's result in words: per side, as the game says it reads, then the audit's
    ``verdict`` (as the screen's summary says it; ``void``: what a void deal reads)."""
    spec = w.spec
    res = event.result
    lines = [w("text_deal_over", n=event.deal + 1)]
    if res is None:
        lines.append("  " + void)
    else:
        lines += ["  " + line
                  for line in summary_text(spec, w.t.lang, spec.deal_summary(res), w.side_name, w.seat_name, mark=" *",
                                           me=ME)]
        if isinstance(renuncia := res.get("renuncia"), int):
            lines.append("  " + w.about("text_renuncia", renuncia))
    lines.append("  " + verdict)
    return lines


def final_lines(w: Words, winner: int | None, totals: Sequence[int], played: int,
                options: Options) -> list[str]:
    """The last lines: the match's tally as the game reads it, then who won, by name (or
    that nobody has yet)."""
    spec = w.spec
    if winner is None:
        return [w.count("text_no_winner", played)]
    lines = []
    if len(totals) == len(w.sides()):
        summary = spec.match_summary(totals, winner, options)
        if len(summary.columns) > 1 or summary.notes:  # more than the totals already said
            lines += summary_text(spec, w.t.lang, summary, w.side_name, w.seat_name, mark=" *", me=ME)
    side = w.sides()[winner]
    if ME in side and len(side) > 1:
        lines.append(w("text_winners_us", partners=w.joined([w.who(s) for s in side if s != ME])))
    elif ME in side:
        lines.append(w("text_winner_you"))
    elif len(side) > 1:
        lines.append(w("text_winners", names=w.side(side)))
    else:
        lines.append(w("text_winner", who=w.who(side[0])))
    return lines
