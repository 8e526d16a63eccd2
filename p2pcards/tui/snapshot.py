"""What the table screen shows of a table: the game (:class:`GameInfo`), who sits where
(:class:`SeatLabel`) and an immutable :class:`Snapshot` of the person's replica, copied out
of the live :class:`~p2pcards.table.table.Table` by :func:`snapshot_of` whenever it changes;
and what the screen draws of it, a card of the hand (:class:`HandCard`) and a seat
(:class:`SeatPanel`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypedDict

from p2pcards.core import PLAY, Card, DealState, Decision, GameSpec, Legal, Line, Options
from p2pcards.core.view import SeatView
from p2pcards.table.table import Table
from p2pcards.tui.cards import sort_hand
from p2pcards.words import game_word

__all__ = ["GameInfo", "HandCard", "SeatLabel", "SeatPanel", "Snapshot", "replay_snapshot", "snapshot_of"]


@dataclass(frozen=True)
class GameInfo:
    """What the screen needs of the game: names, seats, teams, direction, whether it has
    trumps, the running counts of a deal, options, the title in each language the game
    supplies it in (``titles``; :meth:`title_in`), and the spec itself for the game's
    words and summaries (None: a game known by name only)."""

    name: str
    title: str
    seats: int
    teams: tuple[tuple[int, ...], ...] | None = None
    clockwise: bool = False
    options: Options = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)
    trumps: bool = True
    counts: tuple[str, ...] = ("tricks",)
    spec: GameSpec | None = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, spec: GameSpec, options: Options) -> GameInfo:
        titles = {lang: spec.text(lang, "title") for lang in spec.texts}
        return cls(spec.name, spec.title, spec.seats, spec.teams, spec.clockwise, dict(options), titles,
                   spec.trumps, tuple(spec.counts), spec)

    def word(self, lang: str, key: str, default: str) -> str:
        """The game's words for ``key`` in ``lang``, else ``default``."""
        found = game_word(self.spec, lang, key)
        return default if found is None else found

    def title_in(self, lang: str) -> str:
        """The game's title in ``lang`` (its own title when the game gives none in that language)."""
        return self.titles.get(lang, self.title)


@dataclass(frozen=True)
class SeatLabel:
    """Who sits in a seat: name, bot level (None: a person), fingerprint of who runs it,
    and the seat's own key's fingerprint (two seats of one name are told apart by it)."""

    seat: int
    name: str
    bot: str | None = None
    runs_on: str | None = None
    fingerprint: str | None = None


@dataclass(frozen=True)
class Snapshot:
    """One instant of the person's replica, copied out so that it never changes under the screen.

    ``stage`` is the table's (``setup`` while the deck is shuffled, ``play``, ``seeds``
    while the deal is audited) or ``over``; ``phase`` the mental deck's round during setup.
    ``deciding`` are the seats the pending decision waits for.  Everything else is the
    seat's view (:class:`~p2pcards.core.view.SeatView`) of the deal, empty between deals.
    """

    deal: int = 0
    stage: str = "setup"
    phase: str = "commit"
    committed: int = 0
    expected: int | None = None
    deciding: tuple[int, ...] = ()
    decision_kind: str | None = None
    dealer: int | None = None
    hand: tuple[tuple[int, Card], ...] = ()
    trick: tuple[tuple[int, Card], ...] = ()
    last_trick: tuple[int, tuple[tuple[int, Card], ...], int] | None = None
    tricks_played: int = 0
    trump: str | None = None
    trump_card: Card | None = None
    trump_holder: int | None = None
    stock: int | None = None
    hand_sizes: tuple[int, ...] = ()
    tricks_won: tuple[int, ...] = ()
    points_won: tuple[int, ...] = ()
    totals: tuple[int, ...] = ()
    active: tuple[int, ...] = ()
    info: Mapping[str, object] = field(default_factory=dict)
    strength: Mapping[str, int] = field(default_factory=dict)
    in_deal: bool = False
    #: seats voted out: their cards are dealt face up (``dummy_hands``), every peer plays them
    dummies: tuple[int, ...] = ()
    dummy_hands: Mapping[int, tuple[Card, ...]] = field(default_factory=dict)
    #: True once the person's own seat was voted out (the screen only watches)
    voted_out: bool = False
    #: cards passed to the person this deal and who passed them
    received: tuple[Card, ...] = ()
    received_from: int | None = None
    #: the game's public facts (top line), its notes for the person, the lines of the
    #: person's pending decision, and the labels of its choices that are not cards
    facts: tuple[Line, ...] = ()
    notes: tuple[Line, ...] = ()
    dialog: tuple[Line, ...] = ()
    choices: tuple[tuple[Legal, Line | None], ...] = ()
    #: why each card of the person's hand that may not be played now is refused, in the
    #: game's words (:meth:`~p2pcards.core.deal.DealState.refusal`), while the person plays
    refusals: Mapping[int, Line] = field(default_factory=dict)


class _Table(TypedDict, total=False):
    """The fields of a :class:`Snapshot` that come from the table, not from the deal's view."""

    deal: int
    stage: str
    phase: str
    committed: int
    expected: int | None
    totals: tuple[int, ...]
    dummies: tuple[int, ...]
    voted_out: bool
    dummy_hands: Mapping[int, tuple[Card, ...]]


def snapshot_of(table: Table) -> Snapshot:
    """Copy what the person may see out of a live :class:`~p2pcards.table.table.Table`."""
    stage = "over" if table.finished else str(table.stage)
    party = table.party
    phase = str(getattr(party.phase, "value", party.phase))
    totals = tuple(table.match.totals) if table.match is not None else ()
    dummies = tuple(table.dummies)
    base: _Table = {
        "deal": table.deal_no,
        "stage": stage,
        "phase": phase,
        "committed": len(party.commitments()),
        "expected": table.expected(),
        "totals": totals,
        "dummies": dummies,
        "voted_out": bool(table.voted_out),
    }
    game = table.game
    view = table.view()
    if game is None or view is None:
        return Snapshot(**base)
    base["dummy_hands"] = {s: _face_up(game, s) for s in dummies}
    return _in_deal(game, view, base, ask=True)


def replay_snapshot(game: DealState, seat: int, *, deal: int, totals: Sequence[int], open_hands: bool) -> Snapshot:
    """What ``seat`` saw of ``game`` (a deal being replayed from a transcript) at this
    point: its own cards where they are known, and with ``open_hands`` every other seat's
    cards face up (the audit opened the deck).  No decision is asked of anybody."""
    base: _Table = {"deal": deal, "stage": "over" if game.over else "play", "phase": "deal", "totals": tuple(totals)}
    view = SeatView(game, seat, totals)
    if open_hands:
        base["dummy_hands"] = {s: _face_up(game, s) for s in range(game.seats) if s != seat}
    return _in_deal(game, view, base, ask=False)


def _face_up(game: DealState, seat: int) -> tuple[Card, ...]:
    """``seat``'s known cards as its own hand is shown: by suit, then rank from high to low."""
    known = [(i, c) for i, c in enumerate(game.deck.hand_cards(seat)) if c is not None]
    return tuple(c for _, c in sort_hand(known, getattr(game, "strength", {}) or {}))


def _in_deal(game: DealState, view: SeatView, base: _Table, *, ask: bool) -> Snapshot:
    """The snapshot of a deal in progress for ``view``'s seat; ``ask``: fill in the dialog
    of the seat's pending decision (a live table), else leave it out (a replay)."""
    step = game.step()
    deciding: tuple[int, ...] = ()
    kind = None
    if isinstance(step, Decision) and not game.over:
        deciding = tuple(game.undecided())
        kind = step.kind
    tricks = view.tricks
    last = None
    if tricks:
        leader, plays, winner = tricks[-1]
        last = (leader, tuple(plays), winner)
    trump_card = view.trump_card
    holder = None
    if trump_card is not None and game.trump_card_pos is not None:
        owner = game.deck.owner[game.trump_card_pos]
        holder = owner if owner >= 0 else None
    info = dict(game.public_info())
    stock = info.get("stock")
    n = view.seats
    received: tuple[Card, ...] = ()
    giver = None
    for ev in view.events:
        if ev.get("type") == "pass" and ev.get("to") == view.seat and ev.get("cards"):
            received += tuple(ev["cards"])
            giver = ev.get("seat")
    me = view.seat
    dialog: tuple[Line, ...] = ()
    choices: tuple[tuple[Legal, Line | None], ...] = ()
    refusals: dict[int, Line] = {}
    if ask and me in deciding:
        dialog = tuple(game.decision_lines(me))
        legal = view.legal
        choices = tuple((c, game.choice_line(me, c)) for c in legal if not isinstance(c, int))
        if kind == PLAY:
            refusals = {p: line for p, _ in view.hand if p not in legal and (line := game.refusal(me, p)) is not None}
    return Snapshot(
        **base,
        deciding=deciding,
        decision_kind=kind,
        dealer=view.dealer,
        hand=tuple((p, c) for p, c in view.hand if c is not None),
        trick=tuple(view.trick),
        last_trick=last,
        tricks_played=len(tricks),
        trump=view.trump,
        trump_card=trump_card,
        trump_holder=holder,
        stock=stock if isinstance(stock, int) else None,
        hand_sizes=tuple(view.hand_size(s) for s in range(n)),
        tricks_won=tuple(view.tricks_won),
        points_won=tuple(view.points_won),
        active=tuple(view.active),
        info=info,
        strength=dict(getattr(game, "strength", {}) or {}),
        in_deal=True,
        received=received,
        received_from=giver,
        facts=tuple(game.facts()),
        notes=tuple(game.notes(me)),
        dialog=dialog,
        choices=choices,
        refusals=refusals,
    )


@dataclass(frozen=True)
class HandCard:
    """One card of the person's hand as drawn: place, label, colour and state."""

    index: int
    position: int
    card: Card
    label: str
    red: bool
    #: True legal, False illegal (dimmed), None: nothing to play now (drawn plainly)
    legal: bool | None
    cursor: bool
    picked: bool
    #: the key that plays or marks it (:data:`CARD_KEYS`), or "" beyond the last key
    key: str
    #: passed to the person this deal
    received: bool = False


@dataclass(frozen=True)
class SeatPanel:
    """One seat as drawn around the table."""

    seat: int
    where: str  # bottom, right, top, left
    name: str
    marker: str
    runs: str
    cards: str
    detail: str
    turn: bool
    dealer: bool
    you: bool
    active: bool
