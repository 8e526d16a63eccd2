"""One deal of a trick-taking game as a state machine over steps (the contract is in
:mod:`p2pcards.core`'s docstring): :class:`DealState`, with the trick-taking machinery
every game shares.  A game subclasses it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from typing import Final, Self, cast

from p2pcards.core.cards import Card, Suit
from p2pcards.core.choices import PLAYS, Choice, GoIn, Legal, PassCards, Plain, Play, Swap, from_wire
from p2pcards.core.deck import PLAYED, STOCK, Deck
from p2pcards.core.events import DrawEvent, Event, GameEvent, PlayEvent
from p2pcards.core.options import Options
from p2pcards.core.steps import PLAY, Deal, DealResult, Decision, End, IllegalChoice, Locate, Reveal, Step
from p2pcards.core.summary import Line
from p2pcards.core.tricks import Trick, trick_winner

__all__ = ["DealState"]

#: Handlers of queued steps that change nothing that follows them (see DealState.deals_ahead).
_PLAIN_HANDLERS: Final = (None, "_on_draw")
#: Containers inside a deal's lists that :meth:`DealState.copy` copies too.
_CONTAINERS: Final = (list, set)
#: Steps asked again and again (a play of each seat, a played card shown), made once each
#: with their handlers, as the queue holds them: a step is an immutable value, and a deal of
#: forty cards asks for eighty of them.
_PLAY_ASKS: dict[int, tuple[Decision, str]] = {}
_PLAY_REVEALS: dict[tuple[int, int], tuple[Reveal, str]] = {}
#: How many positions have a ready-made play (:data:`~p2pcards.core.choices.PLAYS`).
_PLAY_COUNT: Final = len(PLAYS)


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
        self, seats: int, dealer: int, options: Options, deck: Deck, number: int = 0
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
        self.events: list[Event] = []
        #: positions revealed to everyone (by Reveal and Locate steps)
        self.shown: set[int] = set()
        self.hands_at_start: list[list[Card | None]] | None = None
        self.renuncia: int | None = None
        self.result: DealResult | None = None
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

    def copy(self) -> Self:
        """An independent copy of the deal, to play on from here (much cheaper than a deep
        copy: what the search player, hints and replays do many times a decision).

        Its attributes are copied one level deep (lists of lists or sets twice, the deck by
        :meth:`Deck.copy`); the values inside them (cards, tuples, steps, events) are never
        changed in place by a deal, so they are shared.  A game whose deal holds another
        mutable container in its attributes (beyond a list, set, dict or deque) extends it.
        """
        new = object.__new__(type(self))
        d = new.__dict__
        for k, v in self.__dict__.items():
            t = type(v)
            if t is list:
                v = [x.copy() if type(x) in _CONTAINERS else x for x in v]
            elif t is set or t is dict or t is deque or t is Deck:
                v = v.copy()
            d[k] = v
        return new

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
        queue = self._queue
        whole = self.deck.whole
        while True:
            step, handler = queue[0]
            if type(step) is Reveal and whole and handler is not None:
                # a card shown with every card known (a played one, most often): as
                # _complete does, without the checks that only a partial deck needs
                queue.popleft()
                self.shown.update(step.positions)
                getattr(self, handler)(step)
            elif isinstance(step, Decision):
                yield step
            elif isinstance(step, End):
                return
            else:
                self._complete(step, handler)

    def complete(self) -> None:
        """Fulfil the pending :class:`Deal`, :class:`Reveal` or :class:`Locate` step."""
        step, handler = self._queue[0]
        self._complete(step, handler)

    def _complete(self, step: Step, handler: str | None) -> None:
        deck = self.deck
        if isinstance(step, Reveal):
            for pos in step.positions:
                if deck.cards[pos] is None:
                    raise IllegalChoice(f"position {pos} was not revealed")
            self.shown.update(step.positions)
        elif isinstance(step, Deal):
            owner, source = deck.owner, step.source
            for pos in step.positions:
                if owner[pos] != source:
                    raise IllegalChoice(f"position {pos} is not held by {source}")
            deck.give(step.positions, step.seat)
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

    def legal(self, seat: int) -> list[Legal]:
        """Legal choices (or, for picks, the positions to pick from) of ``seat`` now, in their
        plain form (:mod:`p2pcards.core.choices`): what a screen offers and hands back."""
        step = self._queue[0][0]
        if not isinstance(step, Decision) or seat not in step.seats:
            return []
        if step.kind == PLAY:
            return [*self.legal_plays(seat)]
        return list(self._legal_other(seat, step))

    def apply(self, seat: int, choice: Choice | Plain) -> None:
        """Take ``seat``'s choice for the pending decision: a value, or its plain form (read
        with :func:`~p2pcards.core.choices.from_wire`); the handler receives the value."""
        step, handler = self._queue[0]
        if not isinstance(step, Decision):
            raise IllegalChoice(f"no decision is pending (the next step is {type(step).__name__})")
        if seat not in step.seats:
            raise IllegalChoice(f"it is not seat {seat}'s turn to decide")
        if seat in self._pending:
            raise IllegalChoice(f"seat {seat} has already decided")
        kind = step.kind
        if type(choice) is int and kind == PLAY and 0 <= choice < _PLAY_COUNT:
            value: Choice = PLAYS[choice]  # from_wire's common case, inlined: every play passes here
        else:
            value = from_wire(kind, choice)
        if step.pick is not None:
            self._check_pick(seat, step, value)
        assert handler is not None
        if len(step.seats) == 1:  # as _run(handler, seat, value), inlined: every play passes here
            entry = self._queue.popleft()
            try:
                getattr(self, handler)(seat, value)
            except IllegalChoice:
                self._queue.appendleft(entry)
                raise
            return
        self._pending[seat] = value
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

    def _run(self, handler: str, *args: object) -> None:
        """Pop the pending decision and run its handler; a handler raises
        :class:`IllegalChoice` only before it changes anything, so put the step back."""
        entry = self._queue.popleft()
        try:
            getattr(self, handler)(*args)
        except IllegalChoice:
            self._queue.appendleft(entry)
            raise

    def _check_pick(self, seat: int, step: Decision, choice: Choice) -> None:
        if not isinstance(choice, (PassCards, GoIn)):
            raise IllegalChoice(f"a {step.kind} is a list of positions, not {choice.to_wire()!r}")
        picked = choice.positions
        if picked is None:
            if step.may_decline:
                return
            raise IllegalChoice(f"seat {seat} may not decline this {step.kind}")
        assert step.pick is not None
        lo, hi = step.pick
        if not lo <= len(picked) <= hi or len(set(picked)) != len(picked):
            raise IllegalChoice(f"a {step.kind} takes {lo}..{hi} distinct positions, got {picked!r}")
        hand = self.deck.hands[seat]
        for p in picked:
            if p not in hand:
                raise IllegalChoice(f"seat {seat} does not hold position {p}")

    # ------------------------------------------------------------------ queue helpers
    def _push(self, step: Step, handler: str | None = None) -> None:
        self._queue.append((step, handler))

    def _end(self) -> None:
        """Finish the deal: compute the result and queue :class:`End`."""
        self._queue.clear()
        self.result = {**self._result(), "renuncia": self.renuncia}
        self._push(End(self.result))

    def _snapshot_hands(self) -> None:
        """Record the hands 'dealt at the start' (for records and bots' memory)."""
        self.hands_at_start = [self.deck.hand_cards(s) for s in range(self.seats)]

    def _record(self, event: Event) -> None:
        """Record ``event`` (:mod:`p2pcards.core.events`)."""
        self.events.append(event)

    def _event(self, kind: str, seat: int, **fields: object) -> None:
        """Record an event of the game's own ``kind``: ``{"type": kind, "seat": seat}`` and
        ``fields``, in their order (a :class:`~p2pcards.core.events.GameEvent`)."""
        ev = {"type": kind, "seat": seat, **fields}
        self.events.append(cast(GameEvent, ev))

    def _draw(self, seat: int, positions: Sequence[int]) -> None:
        """Queue a deal of stock positions to ``seat`` recorded as a draw event."""
        self._push(Deal(seat, tuple(positions)), "_on_draw")

    def _on_draw(self, step: Deal) -> None:
        self._record(DrawEvent(type="draw", seat=step.seat, cards=[self.deck.cards[p] for p in step.positions]))

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
        ask = _PLAY_ASKS.get(seat)
        if ask is None:
            ask = _PLAY_ASKS[seat] = (Decision((seat,), PLAY), "_on_play")
        self._queue.append(ask)

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

    def _on_play(self, seat: int, choice: Play | Swap) -> None:
        """Hook: a play decision's choice; a game with more than cards to play (Bisca's
        :class:`~p2pcards.core.choices.Swap`) handles its own and leaves plays to this."""
        pos = choice.position
        deck = self.deck
        if not isinstance(choice, Play) or pos not in deck.hands[seat]:
            raise IllegalChoice(f"seat {seat} cannot play {choice.to_wire()!r}: not a position it holds")
        if self.renuncia is None and (deck.whole or deck.knows_hand(seat)) and not self.is_legal_play(seat, pos):
            self.renuncia = seat  # the renúncia check, where this observer knows the hand
        show = _PLAY_REVEALS.get((pos, seat))
        if show is None:
            show = _PLAY_REVEALS[pos, seat] = (Reveal((pos,), seat), "_on_played")
        self._queue.append(show)

    def _on_played(self, step: Reveal) -> None:
        """The card a seat played is shown (the step :meth:`_on_play` queued: its one
        position, and the seat as its holder)."""
        pos = step.positions[0]
        seat: int = step.holder  # type: ignore[assignment]
        deck = self.deck
        card = deck.cards[pos]
        assert card is not None
        evident = card[1] in self.voids[seat] or card in self.excluded[seat]
        self._infer(seat, card)
        deck.hands[seat].remove(pos)  # deck.move(pos, PLAYED), inlined: every play passes here
        deck.owner[pos] = PLAYED
        trick = self.trick
        trick.append((seat, pos))
        played: PlayEvent = {"type": "play", "seat": seat, "card": card}
        self.events.append(played)
        if evident:
            if self.renuncia is None:
                self.renuncia = seat
            self._end()
            return
        active = len(self.active)
        if len(trick) < active:
            n = self.seats
            nxt = (seat + 1) % n if active == n else self.next_seat(seat)
            ask = _PLAY_ASKS.get(nxt)  # as _ask_play(nxt), inlined: three plays of four pass here
            if ask is None:
                self._ask_play(nxt)
            else:
                self._queue.append(ask)
            return
        cards = deck.cards
        i = trick_winner([cards[p] for _, p in trick], self.trump, self.strength)  # type: ignore[misc]
        winner = trick[i][0]
        assert self.leader is not None
        self.tricks.append(Trick(self.leader, tuple(trick), winner))
        self.won[winner].extend([p for _, p in trick])
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
        trick = self.trick
        if trick:
            led = self.deck.cards[trick[0][1]][1]  # type: ignore[index]
            if card[1] != led and self._must_follow():
                self.voids[seat].add(led)

    def _must_follow(self) -> bool:
        """Hook: whether following suit is compulsory right now."""
        return True

    def follow_refusal(self, seat: int, choice: Plain, key: str = "refusal.follow") -> Line | None:
        """For :meth:`refusal`: the line ``key`` naming the suit led (field ``suit``) when
        ``choice`` does not follow it and ``seat`` holds a card of it; else None."""
        cards = self.deck.cards
        led = self.led_suit
        if led is None or type(choice) is not int or cards[choice] is None or cards[choice][1] == led:  # type: ignore[index]
            return None
        if not any(cards[p] is not None and cards[p][1] == led for p in self.deck.hands[seat]):  # type: ignore[index]
            return None
        return Line(key, suits={"suit": led})

    # ------------------------------------------------------------------ for subclasses
    def _setup(self) -> None:
        raise NotImplementedError

    def legal_plays(self, seat: int) -> Sequence[Legal]:
        """Positions ``seat`` may play now (its hand must be known to this observer), and
        any other play the game allows in its plain form (Bisca's ``("swap", position)``)."""
        raise NotImplementedError

    def is_legal_play(self, seat: int, position: int) -> bool:
        """Whether playing the card at ``position``, which ``seat`` holds (and this observer
        knows its hand), is among :meth:`legal_plays`: the renúncia check of every play.
        A game may answer faster than by listing them; it must give the same answer."""
        return position in self.legal_plays(seat)

    def _legal_other(self, seat: int, step: Decision) -> Sequence[Legal]:
        """Legal choices for non-play decisions; for picks, the positions to pick from."""
        if step.pick is not None:
            return self.deck.hands[seat]
        raise NotImplementedError

    def _result(self) -> DealResult:
        """The deal's JSON-ready result (a game types its own, e.g. as a TypedDict); the
        core adds ``renuncia``.  Computed from public information only."""
        raise NotImplementedError

    # ------------------------------------------------------------------ helpers
    def public_info(self) -> dict[str, object]:
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

    def choice_line(self, seat: int, choice: Plain) -> Line | None:
        """Hook: the label of ``choice``, a legal choice of ``seat`` that is not a card
        (a trump suit, an exchange...), in its plain form as :meth:`legal` lists it (or as
        a transcript carries it: a list where legal has a tuple).  Default None: screens
        show the choice as it is."""
        return None

    def facts(self) -> list[Line]:
        """Hook: public facts of the deal for the table's top line (e.g. tricks count
        double).  Default: none."""
        return []

    def refusal(self, seat: int, choice: Plain) -> Line | None:
        """Hook: why ``choice``, a card ``seat`` holds that is not among its legal plays now,
        may not be played -- the rule, in the game's words (e.g. which suit must be
        followed), for the screens to say when they refuse it.  Default None: the screens
        say only that the card is not allowed now."""
        return None

    def notes(self, seat: int) -> list[Line]:
        """Hook: what the rules did on their own that ``seat`` should be told now (e.g. a
        card led for a player); screens show them while the method returns them."""
        return []

    def taken_points(self, seat: int) -> int:
        """Card points in the tricks ``seat`` won."""
        pts = self.points
        cards = self.deck.cards
        return sum([pts.get(cards[p][0], 0) for p in self.won[seat]])  # type: ignore[index,misc]

    def trick_counts(self) -> list[int]:
        counts = [0] * self.seats
        for t in self.tricks:
            counts[t.winner] += 1
        return counts
