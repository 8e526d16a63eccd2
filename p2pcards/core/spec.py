"""What a plugin registers for one game: :class:`GameSpec`, and the game's
:class:`Match` (the deals of a match, dealer rotation, totals, winner) that a spec builds
and that knows its spec.

The two name each other (a spec builds its match class, a match reads its spec), so they
share a module.  The plugin contract as a whole is in :mod:`p2pcards.core`'s docstring.
"""

from __future__ import annotations

import functools
import importlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pcards.core.cards import Card
from p2pcards.core.deal import DealState
from p2pcards.core.deck import Deck
from p2pcards.core.options import Option, OptionError, Options, OptionValue
from p2pcards.core.scoring import next_dealer
from p2pcards.core.steps import DealResult
from p2pcards.core.summary import Summary
from p2pcards.core.view import Chooser

__all__ = ["GameSpec", "Match"]


@functools.cache
def _load_object(path: str) -> Any:
    """The object a ``"module:Name"`` string names (imported on first use)."""
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@functools.lru_cache(maxsize=32)
def _card_set(deck: tuple[Card, ...]) -> frozenset[Card]:
    """The cards of a game's deck, as a set (each deal's cards are checked against it)."""
    return frozenset(deck)


@dataclass(frozen=True)
class GameSpec:
    """What a plugin registers for one game.

    ``match_class`` is the game's :class:`Match`; :meth:`new_match` builds one (options
    resolved, see :meth:`resolve_options`).  ``heuristic_class`` (if any) is the game's
    tip-following computer player, given as the class or as ``"module:Class"``, which the
    core imports the first time a player is made (:attr:`heuristic`); it is built as
    ``cls(rng)``.  ``simulator`` (if any) is the game's batch simulator for the search
    player, a :class:`~p2pcards.players.simulators.TrickSimulator` given as the object or as
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
    heuristic_class: Callable[[random.Random], Chooser] | str | None = None
    teams: tuple[tuple[int, ...], ...] | None = None
    description: str = ""
    doc: str = field(default="", repr=False)
    texts: Mapping[str, Mapping[str, str]] = field(default_factory=dict, repr=False, hash=False)
    simulator: object = field(default=None, repr=False, hash=False, compare=False)
    clockwise: bool = False
    trumps: bool = True
    counts: tuple[str, ...] = ("tricks",)
    order: int = 100

    def __post_init__(self) -> None:
        for what, value in (("heuristic_class", self.heuristic_class), ("simulator", self.simulator)):
            if isinstance(value, str) and (value.count(":") != 1 or not all(value.split(":"))):
                raise ValueError(f"{self.name}: {what} {value!r} is not 'module:Name'")

    def new_match(self, options: Options, first_dealer: int) -> Match:
        """A new match: ``options`` over the defaults (a bad one raises OptionError),
        ``first_dealer`` deals first."""
        return self.match_class(self, self.resolve_options(options), first_dealer)

    @property
    def heuristic(self) -> Callable[[random.Random], Chooser] | None:
        """What builds the game's heuristic player from a ``random.Random`` (None: none)."""
        h = self.heuristic_class
        if isinstance(h, str):
            loaded: Callable[[random.Random], Chooser] = _load_object(h)
            return loaded
        return h

    @property
    def batch_simulator(self) -> object:
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

    def deal_summary(self, result: DealResult) -> Summary:
        """How the deal ``result`` reads (:meth:`Match.deal_summary`); a result the game's
        summary cannot read (a damaged or foreign record) reads as :class:`Match`'s default."""
        try:
            return self.match_class.deal_summary(result, self.sides)
        except (KeyError, IndexError, TypeError, ValueError):
            return Match.deal_summary(result, self.sides)

    def match_summary(self, totals: Sequence[int], winner: int | None, options: Options) -> Summary:
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

    def resolve_options(self, raw: Mapping[str, str | int] | None = None) -> dict[str, OptionValue]:
        """Defaults overlaid with ``raw``; unknown names and bad values raise OptionError."""
        known = {o.name: o for o in self.options}
        out: dict[str, OptionValue] = {o.name: o.default for o in self.options}
        for key, text in (raw or {}).items():
            opt = known.get(key)
            if opt is None and known:
                options = ", ".join(sorted(known))
                raise OptionError(f"{self.name}: unknown option {key!r} (options: {options})", "err_option_unknown",
                                  game=self.name, option=str(key), options=options)
            if opt is None:
                raise OptionError(f"{self.name}: unknown option {key!r} (it has no options)", "err_option_none",
                                  game=self.name, option=str(key))
            out[key] = opt.parse(self.name, text)
        return out


class Match:
    """A match: a sequence of deals, the dealer rotating, scores adding up.

    Subclasses implement :meth:`_new_deal` and :meth:`_score`; they keep ``totals``
    (per side: team or player) and set ``winner`` when the match is over.
    """

    #: what ``totals`` counts, for people and JSON consumers
    totals_label = "game points"
    #: what :meth:`deal_value` measures, for people ("card points"); empty: the game gives none
    value_label = ""
    #: whether a lower :meth:`deal_value` -- and lower ``totals`` -- are the better ones
    #: (penalty points)
    lower_is_better = False

    def __init__(self, spec: GameSpec, options: Options, first_dealer: int) -> None:
        if not 0 <= first_dealer < spec.seats:
            raise ValueError(f"first dealer {first_dealer} is not a seat of {spec.name}")
        self.spec = spec
        self.options = dict(options)
        self.seats = spec.seats
        self.dealer = first_dealer
        self.deal_number = 0
        self.results: list[DealResult] = []
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
        if cards is None:
            return self._new_deal(Deck(self.seats, size))
        own = _card_set(self.spec.deck)
        if len(cards) == size == len(own) and own == set(cards):  # the common case, one set built
            return self._new_deal(Deck(self.seats, size, cards))
        deck = Deck.full(self.seats, cards)  # raises for a card twice
        # none twice and as many: the same cards if none is foreign
        if len(cards) != size or not own.issuperset(cards):
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

    def _score(self, result: DealResult) -> None:
        """Add a deal's ``result`` (its :meth:`DealState._result`, with ``renuncia``) to the
        totals; set ``winner`` when the match is over."""
        raise NotImplementedError

    def summary(self) -> dict[str, object]:
        """JSON-ready state of the match: ``winner`` (side or null), ``totals``, deals."""
        return {"winner": self.winner, "totals": list(self.totals), "deals": self.deal_number}

    @classmethod
    def deal_summary(cls, result: DealResult, sides: int) -> Summary:
        """How a deal's ``result`` reads for people, per side (``sides`` of them).

        Default: a column for each entry of the result that has a number per side,
        labelled by its key (a game gives its words for it in its texts)."""
        numbers = {k: [int(x) for x in v] for k, v in result.items()
                   if isinstance(v, (list, tuple)) and len(v) == sides and all(isinstance(x, int) for x in v)}
        rows = tuple((side, tuple(values[side] for values in numbers.values())) for side in range(sides))
        return Summary(tuple(numbers), rows)

    @classmethod
    def deal_value(cls, spec: GameSpec, result: DealResult, seat: int) -> float | None:
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
    def match_summary(cls, totals: Sequence[int], winner: int | None, options: Options) -> Summary:
        """How a match's ``totals`` read (at its end, ``winner`` is the winning side).
        Default: one column, ``totals`` (:attr:`totals_label`), the winner highlighted."""
        return Summary(("totals",), tuple((side, (int(v),)) for side, v in enumerate(totals)), winner)
