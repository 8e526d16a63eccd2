"""The game contract: specs, options, steps, and the trick-taking deal state machine.

A deal is a deterministic state machine over *steps* (README, "Writing a game
plugin").  The driver asks :meth:`DealState.step` for the pending step and fulfils it:

* :class:`Deal` -- give deck positions to a seat (private; from the stock, or passed by
  another seat when ``source`` is a seat).  Call :meth:`DealState.complete`.
* :class:`Reveal` -- show positions to everyone (a played card, Sueca's trump card).
  The driver makes the cards known in the deck, then calls :meth:`~DealState.complete`.
* :class:`Locate` -- the seat holding a given card reveals it (Copas' two of clubs).
* :class:`Decision` -- one or more seats decide; :meth:`~DealState.legal` lists the
  choices of a seat whose hand this observer knows, :meth:`~DealState.apply` takes one.
* :class:`End` -- the deal is over; ``result`` is its JSON-ready result.

At any point the driver may end the deal with :meth:`DealState.forfeit` (a seat blamed for
cheating or voted out loses it as for a renúncia), computed from public information only.

In full information (:meth:`Deck.full`) every card is known and each step takes effect at
once; distributed, the runtime turns the same steps into mental-deck operations.  The
sequence of steps depends only on public information, so every peer computes the same one.

Choice formats, per :attr:`Decision.kind`:

* ``"play"`` -- a deck position from :meth:`~DealState.legal` (Bisca's variant adds
  ``("swap", position)``: exchange the two of trumps at ``position`` for the face-up
  trump card, then decide again).
* ``"trump"`` -- a suit letter or ``"turn"`` (Sobe e Desce).
* ``"pass"`` and ``"go_in"`` -- a tuple of distinct positions from the seat's hand whose
  length lies within :attr:`Decision.pick`; ``None`` declines (sits out) where
  :attr:`Decision.may_decline` allows.

A choice that is malformed or not the seat's to make raises :class:`IllegalChoice` and
changes nothing.  A well-formed play that breaks a hidden-information rule (follow suit,
must trump) is a *renúncia*: recorded when the observer knows the hand (own seat, full
information, the audit's replay), and ending the deal at once when it is evident from
public information (then the offender loses the deal by its game's renúncia rule).

How a game reaches the screens.  Everything a screen (the full-screen table, text mode, the
start screen, ``p2pcards games``) needs to know of a game is a field or a method of its
:class:`GameSpec`, its :class:`Match` class or its :class:`DealState` class -- not a pluggy
hook: pluggy keeps the one hook that registers games (``p2pcards_register_games``), and the
screens never name a game nor apply a game's rule.  A plugin supplies:

* its words, in English and other languages (:attr:`GameSpec.texts`, :meth:`GameSpec.text`);
* its play direction (:attr:`GameSpec.clockwise`), whether it has trumps
  (:attr:`GameSpec.trumps`), what the running counts of a deal are
  (:attr:`GameSpec.counts`) and where it comes in lists (:attr:`GameSpec.order`);
* how a deal's result and a match's totals read: :meth:`Match.deal_summary` and
  :meth:`Match.match_summary` give a :class:`Summary` (rows, columns, a highlight), which
  each screen lays out in its own way;
* its decision dialogs' words: :meth:`DealState.decision_lines` (what the pending decision
  is, and why it must or may be taken), :meth:`DealState.choice_line` (the label of a
  choice that is not a card), the dialog's title and buttons as the text keys
  ``decision.KIND.title``, ``decision.KIND.confirm``, ``decision.KIND.decline``;
* public facts and notes for the table: :meth:`DealState.facts`, :meth:`DealState.notes`
  (text mode prints them whenever they change);
* the words of its own event kinds (``DealState._event(KIND, seat, **fields)``, a kind
  other than the core's ``play`` and ``draw`` and the built-in ``trump``, ``go_in``,
  ``swap``, ``pass``), which text mode tells as they happen: the text key
  ``event.KIND.CHOICE`` when the event's ``choice`` is that word, else ``event.KIND``, a
  ``str.format`` template with the fields ``{who}`` (the event's seat, as the screen names
  it; ``{seat}`` too) and every field of the event as the person may know it (another
  seat's private cards are left out): a card or a list of cards as people read them
  (``7♥ A♠``), ``{to}`` a seat named like ``{who}``, ``{kind}`` the kind, a field the event
  lacks as ``?``.  Without such words, or with words the event cannot fill, the line is
  "Seat 2: KIND CHOICE" with whatever the event carries (its ``choice``, ``card`` or
  ``cards``).

Words reach a screen as :class:`Line` values: a text key of the game and the values of its
fields, seats apart (each screen names a seat its own way: "you", "seat 2", a name).
"""

from __future__ import annotations

import functools
import importlib
import random
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from p2pcards.core.cards import Card, Suit
from p2pcards.core.deck import PLAYED, STOCK, Deck
from p2pcards.core.scoring import next_dealer
from p2pcards.core.tricks import Trick, trick_winner

__all__ = [
    "Choice",
    "Deal",
    "Reveal",
    "Locate",
    "Decision",
    "End",
    "Step",
    "PLAY",
    "TRUMP",
    "PASS",
    "GO_IN",
    "SWAP",
    "Option",
    "OptionError",
    "IllegalChoice",
    "GameSpec",
    "DealState",
    "Match",
    "Line",
    "Summary",
]

Choice = Any
#: Handlers of queued steps that change nothing that follows them (see DealState.deals_ahead).
_PLAIN_HANDLERS: Final = (None, "_on_draw")
PLAY = "play"
TRUMP = "trump"
PASS = "pass"
GO_IN = "go_in"
SWAP = "swap"


@dataclass(frozen=True, slots=True)
class Deal:
    """Give ``positions`` to ``seat``; ``source`` is :data:`STOCK` or the passing seat."""

    seat: int
    positions: tuple[int, ...]
    source: int = STOCK


@dataclass(frozen=True, slots=True)
class Reveal:
    """Show ``positions`` to all; ``holder`` is the seat holding them (None: the stock)."""

    positions: tuple[int, ...]
    holder: int | None


@dataclass(frozen=True, slots=True)
class Locate:
    """The seat holding ``card`` reveals the position it sits at."""

    card: Card


@dataclass(frozen=True, slots=True)
class Decision:
    """``seats`` must decide (all at once when several; results apply in seat order)."""

    seats: tuple[int, ...]
    kind: str
    pick: tuple[int, int] | None = None
    may_decline: bool = False


@dataclass(frozen=True, slots=True)
class End:
    """The deal is over."""

    result: dict[str, Any]


Step = Deal | Reveal | Locate | Decision | End


class IllegalChoice(Exception):
    """A choice that is malformed, out of turn, or not the seat's to make."""


class OptionError(ValueError):
    """A table option that the game does not accept; the message is for people."""


@dataclass(frozen=True, slots=True)
class Option:
    """A table option (a variant of the game): its allowed values, default first."""

    name: str
    allowed: tuple[int | str, ...]
    help: str = ""

    @property
    def default(self) -> int | str:
        return self.allowed[0]

    def parse(self, game: str, text: str | int) -> int | str:
        """Parse a command-line value; raise :class:`OptionError` naming the game."""
        for value in self.allowed:
            if str(value) == str(text).strip().lower():
                return value
        names = [str(v) for v in self.allowed]
        choices = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        raise OptionError(f"{game}: {self.name} must be {choices}")


@dataclass(frozen=True, slots=True)
class Line:
    """Words a game gives a screen: ``key`` (a key of :meth:`GameSpec.text_keys`) and the
    values of its ``{fields}``; ``seats`` are the fields that name a seat, which each screen
    names its own way.  Card fields are already written as people read them (``7♥``)."""

    key: str
    fields: Mapping[str, Any] = field(default_factory=dict)
    seats: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Summary:
    """How a result reads, as a small table the screens lay out (never text).

    ``columns`` are text keys of the game (the columns' labels).  ``rows`` hold one
    ``(side, values)`` per side -- a team's index when the game has teams, else a seat --
    with a value per column: an int, or a string that is a text key of the game (shown in
    its words, which read on their own: "sat out") or else shown as it is (``"+3"``).
    ``highlight`` is a side to make stand out (None: none); ``notes`` are lines shown after
    the rows.
    """

    columns: tuple[str, ...]
    rows: tuple[tuple[int, tuple[int | str, ...]], ...]
    highlight: int | None = None
    notes: tuple[Line, ...] = ()


@functools.cache
def _load_object(path: str) -> Any:
    """The object a ``"module:Name"`` string names (imported on first use)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@dataclass(frozen=True)
class GameSpec:
    """What a plugin registers for one game.

    ``match_class`` is the game's :class:`Match`; :meth:`new_match` builds one (options
    resolved, see :meth:`resolve_options`).  ``heuristic_class`` (if any) is the game's
    tip-following computer player, given as the class or as ``"module:Class"``, which the
    core imports the first time a player is made (:attr:`heuristic`); it is built as
    ``cls(rng)``.  ``simulator`` (if any) is the game's batch simulator for the search
    player, a :class:`~p2pcards.players.fastsim.TrickSimulator` given as the object or as
    ``"module:NAME"`` (:attr:`batch_simulator`).

    How the game shows (module docstring): ``clockwise`` (play goes clockwise: the next
    seat in play order sits to a player's left), ``trumps`` (False: the game has none, and
    screens do not wait for them), ``counts`` (the running counts of a deal that screens
    show: ``"points"``, card points taken, and/or ``"tricks"``), ``order`` (where the game
    comes in lists of games: lower first, then by name).

    ``title``, ``description`` and the options' names, values and help are the game's
    English words.  ``texts`` gives its words in other languages (language -> key ->
    string; keys in :meth:`text_keys`); :meth:`text` is what screens show, falling back
    to the English words for a language or key the plugin does not supply.  Only the
    words shown change: option values on the command line and on the wire stay as they are.
    """

    name: str
    title: str
    seats: int
    deck: tuple[Card, ...]
    options: tuple[Option, ...]
    rules_version: str
    match_class: type[Match]
    heuristic_class: type[Any] | str | None = None
    teams: tuple[tuple[int, ...], ...] | None = None
    description: str = ""
    doc: str = field(default="", repr=False)
    texts: Mapping[str, Mapping[str, str]] = field(default_factory=dict, repr=False, hash=False)
    simulator: Any = field(default=None, repr=False, hash=False, compare=False)
    clockwise: bool = False
    trumps: bool = True
    counts: tuple[str, ...] = ("tricks",)
    order: int = 100

    def __post_init__(self) -> None:
        for what, value in (("heuristic_class", self.heuristic_class), ("simulator", self.simulator)):
            if isinstance(value, str) and (value.count(":") != 1 or not all(value.split(":"))):
                raise ValueError(f"{self.name}: {what} {value!r} is not 'module:Name'")

    def new_match(self, options: Mapping[str, Any], first_dealer: int) -> Match:
        """A new match: ``options`` over the defaults (a bad one raises OptionError),
        ``first_dealer`` deals first."""
        return self.match_class(self, self.resolve_options(options), first_dealer)

    @property
    def heuristic(self) -> Callable[[random.Random], Any] | None:
        """What builds the game's heuristic player from a ``random.Random`` (None: none)."""
        h = self.heuristic_class
        if isinstance(h, str):
            loaded: Callable[[random.Random], Any] = _load_object(h)
            return loaded
        return h

    @property
    def batch_simulator(self) -> Any:
        """The game's batch simulator (:mod:`p2pcards.players.fastsim`) for the search player,
        or None.  ``simulator`` gives it as the object or as ``"module:NAME"``, imported
        the first time it is asked for."""
        sim = self.simulator
        if isinstance(sim, str):
            return _load_object(sim)
        return sim

    @property
    def sides(self) -> int:
        """How many sides score: teams, or else players."""
        return len(self.teams) if self.teams else self.seats

    def deal_summary(self, result: Mapping[str, Any]) -> Summary:
        """How the deal ``result`` reads (:meth:`Match.deal_summary`); a result the game's
        summary cannot read (a damaged or foreign record) reads as :class:`Match`'s default."""
        try:
            return self.match_class.deal_summary(result, self.sides)
        except (KeyError, IndexError, TypeError, ValueError):
            return Match.deal_summary(result, self.sides)

    def match_summary(self, totals: Sequence[int], winner: int | None, options: Mapping[str, Any]) -> Summary:
        """How a match's ``totals`` read (:meth:`Match.match_summary`)."""
        return self.match_class.match_summary(totals, winner, options)

    def text_keys(self) -> list[str]:
        """The keys of the game's words: ``title``, ``description``, then per option
        ``option.NAME`` (its label), ``option.NAME.help`` and ``option.NAME.VALUE`` (the
        label of each allowed value), then the game's own keys (those its :attr:`texts`
        has in any language: summary columns, dialogs, facts; their English words are
        under ``"en"``), in order."""
        keys = ["title", "description"]
        for o in self.options:
            keys += [f"option.{o.name}", f"option.{o.name}.help", *(f"option.{o.name}.{v}" for v in o.allowed)]
        base = set(keys)
        extra = {k for words in self.texts.values() for k in words if k not in base}
        return keys + sorted(extra)

    def text(self, lang: str, key: str, default: str | None = None) -> str:
        """The game's words for ``key`` (see :meth:`text_keys`) in ``lang``: the plugin's
        translation, else its English words (``texts["en"]``; for the title, description,
        option name and help, the spec's own; for a value, as written on the command line;
        for ``totals``, the match's :attr:`Match.totals_label`).  An unknown key returns
        ``default``, or raises KeyError when there is none."""
        found = self.texts.get(lang, {}).get(key)
        if found is None:
            found = self.texts.get("en", {}).get(key)
        if found is not None:
            return found
        if key == "title":
            return self.title
        if key == "description":
            return self.description
        if key == "totals":
            return self.match_class.totals_label
        for o in self.options:
            if key == f"option.{o.name}":
                return o.name
            if key == f"option.{o.name}.help":
                return o.help
            for v in o.allowed:
                if key == f"option.{o.name}.{v}":
                    return str(v)
        if default is not None:
            return default
        raise KeyError(f"{self.name} has no words for {key!r}")

    def resolve_options(self, raw: Mapping[str, str | int] | None = None) -> dict[str, Any]:
        """Defaults overlaid with ``raw``; unknown names and bad values raise OptionError."""
        known = {o.name: o for o in self.options}
        out: dict[str, Any] = {o.name: o.default for o in self.options}
        for key, text in (raw or {}).items():
            opt = known.get(key)
            if opt is None:
                if known:
                    hint = "options: " + ", ".join(sorted(known))
                else:
                    hint = "it has no options"
                raise OptionError(f"{self.name}: unknown option {key!r} ({hint})")
            out[key] = opt.parse(self.name, text)
        return out


class DealState:
    """One deal of a trick-taking game, as a state machine over steps (module docstring).

    Subclasses implement :meth:`_setup` (queue the first steps), :meth:`legal_plays`,
    :meth:`_result` and optionally the hooks documented on each method.  State that is
    public (``trump``, ``tricks``, ``voids``, ``events``...) is what every peer holds.
    """

    #: rank -> strength used to resolve tricks; set by subclasses.
    strength: Mapping[str, int] = {}
    #: rank -> card points; set by subclasses that count points.
    points: Mapping[str, int] = {}

    def __init__(
        self, seats: int, dealer: int, options: Mapping[str, Any], deck: Deck, number: int = 0
    ) -> None:
        self.seats = seats
        self.dealer = dealer
        self.options = options
        self.deck = deck
        self.number = number
        self.trump: Suit | None = None
        #: public face-up trump card position (Sueca's dealer card, Bisca's under-stock card)
        self.trump_card_pos: int | None = None
        self.active: list[int] = list(range(seats))
        self.leader: int | None = None
        self.trick: list[tuple[int, int]] = []
        self.tricks: list[Trick] = []
        self.won: list[list[int]] = [[] for _ in range(seats)]
        self.voids: list[set[Suit]] = [set() for _ in range(seats)]
        self.excluded: list[set[Card]] = [set() for _ in range(seats)]
        self.events: list[dict[str, Any]] = []
        #: positions revealed to everyone (by Reveal and Locate steps)
        self.shown: set[int] = set()
        self.hands_at_start: list[list[Card | None]] | None = None
        self.renuncia: int | None = None
        self.result: dict[str, Any] | None = None
        self._queue: deque[tuple[Step, str | None]] = deque()
        self._pending: dict[int, Choice] = {}
        self._setup()

    # ------------------------------------------------------------------ driver API
    def step(self) -> Step:
        """The pending step."""
        return self._queue[0][0]

    @property
    def over(self) -> bool:
        return self.result is not None

    def deals_ahead(self) -> tuple[Deal, ...]:
        """The deals from the stock queued right after the pending one, which the deal will
        carry out whatever the cards turn out to be (an opening deal of several hands).

        A table may deal them together with the pending deal: each seat then sends its
        keys for all of them at once, one message instead of one per deal.  Empty unless
        the pending step is a deal from the stock.  The run stops at the first step that is
        not a deal from the stock, and after a deal whose handler may change what follows
        (any handler but the draw's, :meth:`_on_draw`, which only records an event).
        """
        if not self._queue:
            return ()
        head, handler = self._queue[0]
        if not (isinstance(head, Deal) and head.source == STOCK) or handler not in _PLAIN_HANDLERS:
            return ()
        out: list[Deal] = []
        for step, handler in list(self._queue)[1:]:
            if not (isinstance(step, Deal) and step.source == STOCK):
                break
            out.append(step)
            if handler not in _PLAIN_HANDLERS:
                break
        return tuple(out)

    def decisions(self) -> Iterator[Decision]:
        """With full information: each decision as it comes, fulfilling every deck step in
        between (:meth:`complete`), until the deal ends.  The caller takes the decision's
        choices (:meth:`apply`) before asking for the next one."""
        while True:
            step = self._queue[0][0]
            if isinstance(step, End):
                return
            if isinstance(step, Decision):
                yield step
            else:
                self.complete()

    def complete(self) -> None:
        """Fulfil the pending :class:`Deal`, :class:`Reveal` or :class:`Locate` step."""
        step, handler = self._queue[0]
        deck = self.deck
        if isinstance(step, Deal):
            for pos in step.positions:
                if step.source != deck.owner[pos]:
                    raise IllegalChoice(f"position {pos} is not held by {step.source}")
                deck.move(pos, step.seat)
        elif isinstance(step, Reveal):
            for pos in step.positions:
                if deck.cards[pos] is None:
                    raise IllegalChoice(f"position {pos} was not revealed")
            self.shown.update(step.positions)
        elif isinstance(step, Locate):
            found = deck.find(step.card)
            if found is None:
                raise IllegalChoice(f"{step.card} was not located")
            self.shown.add(found)
        else:
            raise IllegalChoice(f"{type(step).__name__} is not completed by the deck")
        self._queue.popleft()
        if handler is not None:
            getattr(self, handler)(step)

    def undecided(self) -> tuple[int, ...]:
        """Seats of the pending decision that have not decided yet (in seat order)."""
        step = self._queue[0][0]
        if not isinstance(step, Decision):
            return ()
        return tuple(s for s in step.seats if s not in self._pending)

    def legal(self, seat: int) -> list[Choice]:
        """Legal choices (or, for picks, the items to pick from) of ``seat`` now."""
        step = self._queue[0][0]
        if not isinstance(step, Decision) or seat not in step.seats:
            return []
        if step.kind == PLAY:
            return self.legal_plays(seat)
        return self._legal_other(seat, step)

    def apply(self, seat: int, choice: Choice) -> None:
        """Take ``seat``'s choice for the pending decision."""
        step, handler = self._queue[0]
        if not isinstance(step, Decision):
            raise IllegalChoice(f"no decision is pending (the next step is {type(step).__name__})")
        if seat not in step.seats:
            raise IllegalChoice(f"it is not seat {seat}'s turn to decide")
        if seat in self._pending:
            raise IllegalChoice(f"seat {seat} has already decided")
        if step.pick is not None:
            choice = self._check_pick(seat, step, choice)
        assert handler is not None
        if len(step.seats) == 1:
            self._run(handler, seat, choice)
            return
        self._pending[seat] = choice
        if len(self._pending) == len(step.seats):
            choices = dict(sorted(self._pending.items()))
            self._pending = {}
            self._run(handler, choices)

    def forfeit(self, seat: int) -> None:
        """End the deal at once as lost by ``seat`` (blamed for cheating, or voted out).

        Rule: the seat is the offender of a renúncia, whatever point
        the deal has reached -- before anything is dealt, mid-trick, during a non-play
        decision, or after the deal has ended (its result is then replaced).  Pending steps
        and undecided choices are dropped, ``renuncia`` becomes ``seat`` and the game's
        :meth:`_result` gives the penalty result, which :class:`End` carries.

        The result depends only on public information (the decisions taken and the cards
        in tricks), never on cards this observer happens to know: an observer, a seat and
        a full-information replay of the same public history compute the same result.
        """
        if type(seat) is not int or not 0 <= seat < self.seats:
            raise ValueError(f"{seat!r} is not a seat of this deal")
        self._pending = {}
        self.renuncia = seat
        self._end()

    def _run(self, handler: str, *args: Any) -> None:
        """Pop the pending decision and run its handler; a handler raises
        :class:`IllegalChoice` only before it changes anything, so put the step back."""
        entry = self._queue.popleft()
        try:
            getattr(self, handler)(*args)
        except IllegalChoice:
            self._queue.appendleft(entry)
            raise

    def _check_pick(self, seat: int, step: Decision, choice: Choice) -> Choice:
        if choice is None:
            if step.may_decline:
                return None
            raise IllegalChoice(f"seat {seat} may not decline this {step.kind}")
        assert step.pick is not None
        lo, hi = step.pick
        if not isinstance(choice, (tuple, list)) or not all(
            type(p) is int for p in choice
        ):
            raise IllegalChoice(f"a {step.kind} is a list of positions, not {choice!r}")
        picked = tuple(choice)
        if not lo <= len(picked) <= hi or len(set(picked)) != len(picked):
            raise IllegalChoice(f"a {step.kind} takes {lo}..{hi} distinct positions, got {picked!r}")
        hand = self.deck.hands[seat]
        for p in picked:
            if p not in hand:
                raise IllegalChoice(f"seat {seat} does not hold position {p}")
        return picked

    # ------------------------------------------------------------------ queue helpers
    def _push(self, step: Step, handler: str | None = None) -> None:
        self._queue.append((step, handler))

    def _end(self) -> None:
        """Finish the deal: compute the result and queue :class:`End`."""
        self._queue.clear()
        self.result = self._result()
        self.result["renuncia"] = self.renuncia
        self._push(End(self.result))

    def _snapshot_hands(self) -> None:
        """Record the hands 'dealt at the start' (for records and bots' memory)."""
        self.hands_at_start = [self.deck.hand_cards(s) for s in range(self.seats)]

    def _event(self, kind: str, seat: int, **fields: Any) -> None:
        ev: dict[str, Any] = {"type": kind, "seat": seat}
        ev.update(fields)
        self.events.append(ev)

    def _draw(self, seat: int, positions: Sequence[int]) -> None:
        """Queue a deal of stock positions to ``seat`` recorded as a draw event."""
        self._push(Deal(seat, tuple(positions)), "_on_draw")

    def _on_draw(self, step: Deal) -> None:
        self._event("draw", step.seat, cards=[self.deck.cards[p] for p in step.positions])

    # ------------------------------------------------------------------ trick play
    def next_seat(self, seat: int) -> int:
        """The next active seat in play order."""
        n = self.seats
        nxt = (seat + 1) % n
        active = self.active
        if len(active) != n:
            while nxt not in active:
                nxt = (nxt + 1) % n
        return nxt

    def _ask_play(self, seat: int) -> None:
        self._push(Decision((seat,), PLAY), "_on_play")

    def _start_trick(self, leader: int) -> None:
        self.leader = leader
        self._ask_play(leader)

    @property
    def led_suit(self) -> Suit | None:
        if not self.trick:
            return None
        return self.deck.cards[self.trick[0][1]][1]  # type: ignore[index]

    def trick_cards(self) -> list[Card]:
        cards = self.deck.cards
        return [cards[p] for _, p in self.trick]  # type: ignore[misc]

    def _on_play(self, seat: int, choice: Choice) -> None:
        if type(choice) is not int or choice not in self.deck.hands[seat]:
            raise IllegalChoice(f"seat {seat} cannot play {choice!r}: not a position it holds")
        if self.renuncia is None and self.deck.knows_hand(seat):
            if choice not in self.legal_plays(seat):
                self.renuncia = seat
        self._push(Reveal((choice,), seat), "_on_played")
        self._playing = (seat, choice)

    def _on_played(self, step: Reveal) -> None:
        seat, pos = self._playing
        card = self.deck.cards[pos]
        assert card is not None
        evident = card[1] in self.voids[seat] or card in self.excluded[seat]
        self._infer(seat, card)
        self.deck.move(pos, PLAYED)
        self.trick.append((seat, pos))
        self._event("play", seat, card=card)
        if evident:
            if self.renuncia is None:
                self.renuncia = seat
            self._end()
            return
        if len(self.trick) < len(self.active):
            self._ask_play(self.next_seat(seat))
            return
        cards = self.trick_cards()
        i = trick_winner(cards, self.trump, self.strength)
        winner = self.trick[i][0]
        assert self.leader is not None
        self.tricks.append(Trick(self.leader, tuple(self.trick), winner))
        self.won[winner].extend(p for _, p in self.trick)
        self.trick = []
        self._after_trick(winner)

    def _after_trick(self, winner: int) -> None:
        """Hook: what follows a trick (draws, end of deal).  Default: next trick or end."""
        if self.deck.hands[winner]:
            self._start_trick(winner)
        else:
            self._end()

    def _infer(self, seat: int, card: Card) -> None:
        """Hook: public inferences from a play (default: must-follow voids)."""
        led = self.led_suit
        if led is not None and card[1] != led and self._must_follow():
            self.voids[seat].add(led)

    def _must_follow(self) -> bool:
        """Hook: whether following suit is compulsory right now."""
        return True

    # ------------------------------------------------------------------ for subclasses
    def _setup(self) -> None:
        raise NotImplementedError

    def legal_plays(self, seat: int) -> list[Choice]:
        """Positions ``seat`` may play now (its hand must be known to this observer)."""
        raise NotImplementedError

    def _legal_other(self, seat: int, step: Decision) -> list[Choice]:
        """Legal choices for non-play decisions; for picks, the positions to pick from."""
        if step.pick is not None:
            return list(self.deck.hands[seat])
        raise NotImplementedError

    def _result(self) -> dict[str, Any]:
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    def public_info(self) -> dict[str, Any]:
        """Hook: game-specific public facts for views (scores, trump chooser...).

        Screens read two keys when present: ``stock`` (cards left in the stock) and
        ``playing`` (per seat: True plays this deal, False sits it out, None has not said)."""
        return {}

    # ------------------------------------------------------------------ words for screens
    def decision_lines(self, seat: int) -> list[Line]:
        """Hook: what the pending decision of ``seat`` is, for its dialog (and text mode):
        e.g. where the cards go, why the seat must play.  Screens add their own key hints;
        a line may use the field ``k`` (how many cards the person has marked), which the
        screen fills in.  Default: nothing."""
        return []

    def choice_line(self, seat: int, choice: Choice) -> Line | None:
        """Hook: the label of ``choice``, a legal choice of ``seat`` that is not a card
        (a trump suit, an exchange...).  Default None: screens show the choice as it is."""
        return None

    def facts(self) -> list[Line]:
        """Hook: public facts of the deal for the table's top line (e.g. tricks count
        double).  Default: none."""
        return []

    def notes(self, seat: int) -> list[Line]:
        """Hook: what the rules did on their own that ``seat`` should be told now (e.g. a
        card led for a player); screens show them while the method returns them."""
        return []

    def taken_points(self, seat: int) -> int:
        """Card points in the tricks ``seat`` won."""
        pts = self.points
        cards = self.deck.cards
        return sum(pts.get(cards[p][0], 0) for p in self.won[seat])  # type: ignore[index,misc]

    def trick_counts(self) -> list[int]:
        counts = [0] * self.seats
        for t in self.tricks:
            counts[t.winner] += 1
        return counts


class Match:
    """A match: a sequence of deals, the dealer rotating, scores adding up.

    Subclasses implement :meth:`_new_deal` and :meth:`_score`; they keep ``totals``
    (per side: team or player) and set ``winner`` when the match is over.
    """

    #: what ``totals`` counts, for people and JSON consumers
    totals_label = "game points"
    #: what :meth:`deal_value` measures, for people ("card points"); empty: the game gives none
    value_label = ""
    #: whether a lower :meth:`deal_value` is the better one (penalty points)
    lower_is_better = False

    def __init__(self, spec: GameSpec, options: Mapping[str, Any], first_dealer: int) -> None:
        if not 0 <= first_dealer < spec.seats:
            raise ValueError(f"first dealer {first_dealer} is not a seat of {spec.name}")
        self.spec = spec
        self.options = dict(options)
        self.seats = spec.seats
        self.dealer = first_dealer
        self.deal_number = 0
        self.results: list[dict[str, Any]] = []
        self.totals: list[int] = []
        self.winner: int | None = None

    @property
    def finished(self) -> bool:
        return self.winner is not None

    def new_deal(self, cards: Sequence[Card] | None = None) -> DealState:
        """The next deal; ``cards`` (the shuffled deck) gives full information."""
        if self.finished:
            raise RuntimeError("the match is over")
        size = len(self.spec.deck)
        deck = Deck.full(self.seats, cards) if cards is not None else Deck(self.seats, size)
        if cards is not None and sorted(cards) != sorted(self.spec.deck):
            raise ValueError(f"not a {self.spec.name} deck")
        return self._new_deal(deck)

    def record(self, deal: DealState) -> None:
        """Score a finished deal into the match and rotate the dealer."""
        if deal.result is None:
            raise RuntimeError("the deal is not over")
        self._score(deal.result)
        self.results.append(deal.result)
        self.deal_number += 1
        self.dealer = next_dealer(self.dealer, self.seats)

    def void(self) -> None:
        """Skip a deal that cannot be scored (a deck fault): no score, the dealer rotates."""
        self.results.append({"void": True})
        self.deal_number += 1
        self.dealer = next_dealer(self.dealer, self.seats)

    def _new_deal(self, deck: Deck) -> DealState:
        raise NotImplementedError

    def _score(self, result: dict[str, Any]) -> None:
        raise NotImplementedError

    def summary(self) -> dict[str, Any]:
        """JSON-ready state of the match: ``winner`` (side or null), ``totals``, deals."""
        return {"winner": self.winner, "totals": list(self.totals), "deals": self.deal_number}

    @classmethod
    def deal_summary(cls, result: Mapping[str, Any], sides: int) -> Summary:
        """How a deal's ``result`` reads for people, per side (``sides`` of them).

        Default: a column for each entry of the result that has a number per side,
        labelled by its key (a game gives its words for it in its texts)."""
        columns = tuple(k for k, v in result.items()
                        if isinstance(v, (list, tuple)) and len(v) == sides
                        and all(isinstance(x, int) for x in v))
        rows = tuple((side, tuple(int(result[c][side]) for c in columns)) for side in range(sides))
        return Summary(columns, rows)

    @classmethod
    def deal_value(cls, spec: GameSpec, result: Mapping[str, Any], seat: int) -> float | None:
        """How one deal went for ``seat``, as one number read from the deal's ``result``
        (:attr:`value_label` says what it is, :attr:`lower_is_better` which way is good):
        what a computer player that searches tries to make best, and what ``p2pcards duel``
        compares.  A game with teams gives its team's number.  Default None: the game gives
        none (the search player then plays the game's heuristic, and duel refuses it)."""
        return None

    @classmethod
    def gives_deal_value(cls) -> bool:
        """Whether the game gives a :meth:`deal_value` of its own (its plugin overrides this
        class's, which gives none): what the search player and ``p2pcards duel`` need."""
        return getattr(cls.deal_value, "__func__", None) is not getattr(Match.deal_value, "__func__", None)

    @classmethod
    def match_summary(cls, totals: Sequence[int], winner: int | None, options: Mapping[str, Any]) -> Summary:
        """How a match's ``totals`` read (at its end, ``winner`` is the winning side).
        Default: one column, ``totals`` (:attr:`totals_label`), the winner highlighted."""
        return Summary(("totals",), tuple((side, (int(v),)) for side, v in enumerate(totals)), winner)
