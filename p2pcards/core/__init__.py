"""The sans-IO trick-taking core: cards, decks, positions, tricks, scoring, the game
state machine contract, seat views and plugin hooks.  The computer players are in
:mod:`p2pcards.players`, on top of this package.

Nothing here imports trio, prompt_toolkit, zeroconf or does I/O (a test enforces it).

The game contract -- what a plugin implements -- is spread over :mod:`~p2pcards.core.steps`
(the steps and choice kinds), :mod:`~p2pcards.core.choices` (a choice's plain form and its
value), :mod:`~p2pcards.core.events` (the events a deal records),
:mod:`~p2pcards.core.options` (table options), :mod:`~p2pcards.core.summary`
(:class:`Line`, :class:`Summary`), :mod:`~p2pcards.core.deal` (:class:`DealState`) and
:mod:`~p2pcards.core.spec` (:class:`GameSpec`, :class:`Match`); every name is importable
from here.

The game contract: specs, options, steps, and the trick-taking deal state machine
------------------------------------------------------------------------------------

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

Choice formats, per :attr:`Decision.kind`, in the plain form (:meth:`~DealState.legal`
lists it, the screens hand it back, the transcript carries it) and as the value a handler
receives (:mod:`~p2pcards.core.choices`: :meth:`~DealState.apply` takes either and reads
a plain one with :func:`from_wire`):

* ``"play"`` -- a deck position from :meth:`~DealState.legal` (:class:`Play`); Bisca's
  variant adds ``("swap", position)`` (:class:`Swap`): exchange the two of trumps at
  ``position`` for the face-up trump card, then decide again.
* ``"trump"`` -- a suit letter or ``"turn"`` (Sobe e Desce; :class:`TrumpChoice`).
* ``"pass"`` and ``"go_in"`` -- a tuple (or list) of distinct positions from the seat's
  hand whose length lies within :attr:`Decision.pick`; ``None`` declines (sits out) where
  :attr:`Decision.may_decline` allows (:class:`PassCards`, :class:`GoIn`).
* a game's own kind -- a word (:class:`Word`).

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
* why a card may not be played now, when a screen refuses it: :meth:`DealState.refusal`
  (the rule in the game's words, e.g. the suit that must be followed:
  :meth:`DealState.follow_refusal` makes that line);
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
fields, seats apart (each screen names a seat its own way: "you", "seat 2", a name) and
suits apart (each screen names a suit in its language).
"""

from p2pcards.core.cards import (
    FRENCH_52,
    PORTUGUESE_40,
    PT_POINTS,
    PT_RANK_ORDER,
    RANKS,
    SUIT_NAMES,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    Suit,
    make_deck,
    parse_card,
    pretty,
    rank_of,
    strength_table,
    suit_of,
)
from p2pcards.core.choices import (
    TURN,
    Choice,
    GoIn,
    Legal,
    PassCards,
    Plain,
    Play,
    Swap,
    TrumpChoice,
    Word,
    from_wire,
    is_choice,
)
from p2pcards.core.deal import DealState
from p2pcards.core.deck import DISCARD, PLAYED, STOCK, Deck, DeckError
from p2pcards.core.events import (
    DrawEvent,
    Event,
    GameEvent,
    GoInEvent,
    PassEvent,
    PlayEvent,
    SwapEvent,
    TrumpEvent,
)
from p2pcards.core.options import Option, OptionError, Options, OptionValue
from p2pcards.core.plugins import (
    GameRegistry,
    PluginProblem,
    get_plugin_manager,
    hookimpl,
    hookspec,
    load_games,
)
from p2pcards.core.scoring import (
    bandeira_winner,
    game_points,
    next_dealer,
    running_totals,
)
from p2pcards.core.spec import GameSpec, Match
from p2pcards.core.steps import (
    GO_IN,
    PASS,
    PLAY,
    SWAP,
    TRUMP,
    Deal,
    DealResult,
    Decision,
    End,
    IllegalChoice,
    Locate,
    Reveal,
    Step,
)
from p2pcards.core.summary import Line, Summary
from p2pcards.core.tricks import Trick, card_points, follow_suit, higher_trumps, trick_winner
from p2pcards.core.view import Chooser, SeatView

__all__ = [
    "FRENCH_52", "PORTUGUESE_40", "PT_POINTS", "PT_RANK_ORDER", "RANKS", "SUIT_NAMES",
    "SUIT_SYMBOLS", "SUITS", "Card", "Suit", "make_deck", "parse_card", "pretty", "rank_of",
    "strength_table", "suit_of",
    "DISCARD", "PLAYED", "STOCK", "Deck", "DeckError",
    "GO_IN", "PASS", "PLAY", "SWAP", "TRUMP", "Deal", "DealResult", "DealState", "Decision",
    "End", "GameSpec", "IllegalChoice", "Line", "Locate", "Match", "Option", "OptionError",
    "Reveal", "Step", "Summary", "Options", "OptionValue",
    "GameRegistry", "PluginProblem", "get_plugin_manager", "hookimpl", "hookspec",
    "load_games",
    "bandeira_winner", "game_points", "next_dealer", "running_totals",
    "Trick", "card_points", "follow_suit", "higher_trumps", "trick_winner",
    "SeatView", "Chooser",
    "Choice", "Plain", "Legal", "Play", "Swap", "TrumpChoice", "PassCards", "GoIn", "Word", "TURN",
    "from_wire", "is_choice",
    "Event", "PlayEvent", "DrawEvent", "TrumpEvent", "SwapEvent", "PassEvent", "GoInEvent", "GameEvent",
]
