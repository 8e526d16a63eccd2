"""Determinization: full-information deals consistent with what one seat knows.

A search bot sees a :class:`~p2pcards.core.view.SeatView` only.  :class:`WorldSampler`
turns that view into *worlds*: full-information :class:`~p2pcards.core.deal.DealState`
objects at the very point the view shows, whose every public fact and whose seat's own
cards are those of the view, the hidden cards dealt anew.

How (generic: any plugin whose events follow the arena's vocabulary):

1. *Skeleton.*  The deal is replayed once from its start, as a peer in the seat would: a
   deck that knows no card, the same match facts (the dealer, and what the view's public
   extras say the deal depends on: ``scores``, ``sat_out``, ``pass_direction``).  Cards are
   learnt only where the seat knows them: its own deals (cards it holds now, played, passed
   or discarded), revealed positions (the trump card, a turned card) and the cards each
   public event shows.  A play of a hidden card by another seat binds that card to a free
   position of its hand; another seat's hidden pass or exchange gives free positions (and
   a card it is known to have let go).  Every decision of the history is recorded.
2. *Constraints.*  At the end the deck's unknown positions are where the hidden cards are
   now: another seat's hand, the stock, the discards.  A seat's hand may hold no card of a
   suit it showed void in and no card it is known not to hold (``voids``, ``excluded``);
   these are the only facts hidden cards must satisfy in the four games, because every
   rule that depends on a hidden card (following suit, Copas' first trick, Sobe e Desce's
   trumping) leaves such a public inference behind, and hidden cards leave hands only
   before trick play (Copas' passes, Sobe e Desce's exchange).
3. *World.*  The hidden cards are dealt to those positions (most constrained card first,
   an owner drawn in proportion to its free room), the deck order is complete, and the
   recorded decisions are replayed in full information -- from a copy of the skeleton as
   it stood before the first decision the inference weighs (:attr:`WorldSampler.resume_at`;
   its hidden cards filled in), since every decision before it replays alike whatever the
   hidden cards are: the public inferences above keep them legal (a test compares such
   worlds with worlds replayed from the deal's start, ``Match.new_deal(cards)``, in every
   game; about a tenth of a decision's time).  The events before that point keep the
   skeleton's cards: a card the seat never saw is None there.
   The world is kept only if every decision is accepted, nobody is found in renúncia,
   and the world shows what the view shows (the seat's hand, the trick, the tricks, hand
   sizes, voids and exclusions); otherwise it is drawn again.

*Inference* (importance weights; the constants and :class:`Inference` are in
:mod:`p2pcards.players.inference`): while replaying a world, the last ``INFER_PLAYS``
plays of the other seats (partner included) that had a choice, and their other decisions
that tell something of their hands (:func:`telling`: Sobe e Desce's trump choice, going
in or sitting out and how many cards exchanged), are asked of the game's heuristic in
that world; each choice the heuristic would not have made (:func:`alike`: for a pick,
what is public of it) multiplies the world's weight by ``MISMATCH``.  A hidden pick
the heuristic would make alike is made its way: the world's hidden cards of that hand
change places so that the cards it gives up are those the heuristic would give up (an
exchanging Sobe e Desce player keeps its trumps, aces and sevens, not random cards).
And a telling decision the heuristic would not make alike first has that seat's hidden
cards changed, one at a time (``REDRAWS`` at most, :meth:`WorldSampler._redraw`),
until it would: drawn uniformly, the hands of players who went in are far weaker than
they are (measured at a Sobe e Desce going in: 2.2 trumps and aces where they held 3.7;
3.3 with the redraws), which made going in look better than it was by about 1.5 points.
Cheap (a few heuristic calls per world) and it favours worlds in which the table's
choices make sense.

A game's :class:`Inference` may ask for more (Bisca's, from its simulator): every play of
the other seats since the deal's start is asked of the heuristic, a world in which the
heuristic makes all of them alike weighs :attr:`Inference.agree` times more, and a play it
would not make first has the cards that seat drew since its last play asked about redrawn
(:attr:`Inference.redraw_plays`, :meth:`WorldSampler._redraw_play`).  Against a player
that plays as the heuristic does, that is nearly exact: the worlds it weighs are those in
which its plays make sense, and about half of them agree in every play (a third without
the redraws).  Against one that does not, hardly any world agrees, and the redraws would
only give it the hands the heuristic would have: :func:`settled` first draws a few
worlds, and unless some agree, the default inference weighs the decision's worlds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Final

from p2pcards.core import (
    PLAY,
    SWAP,
    Choice,
    Deal,
    DealState,
    Decision,
    End,
    GameSpec,
    IllegalChoice,
    Locate,
    Match,
    Plain,
    Play,
    Reveal,
    Swap,
    from_wire,
)
from p2pcards.core.cards import Card
from p2pcards.core.deck import STOCK
from p2pcards.core.view import SeatView
from p2pcards.players.inference import REDRAWS, Inference, alike, picked, telling

__all__ = ["WorldSampler", "World", "SkeletonError", "settled"]

#: Draws of the hidden cards tried before a world is given up.
ASSIGN_TRIES: Final = 30


class SkeletonError(Exception):
    """The view's history could not be replayed (a game this sampler does not follow)."""


class World:
    """A full-information deal at the view's point, with its inference ``weight``."""

    __slots__ = ("state", "weight")

    def __init__(self, state: DealState, weight: float) -> None:
        self.state = state
        self.weight = weight


Model = Callable[[SeatView, Decision], Plain]


class _Shown:
    """What a view shows that a world must show too, read once (a sampler is of the view
    as it stood when it was made): the seat's hand (its positions sorted, and each with
    its card), the tricks so far, the trick on the table, every hand's size, trumps, and
    each seat's voids and excluded cards."""

    __slots__ = ("positions", "hand", "tricks", "trick", "sizes", "trump", "inferred")

    def __init__(self, view: SeatView) -> None:
        self.hand = view.hand
        self.positions = sorted(p for p, _ in self.hand)
        self.tricks = len(view.tricks)
        self.trick = view.trick
        self.sizes = [view.hand_size(s) for s in range(view.seats)]
        self.trump = view.trump
        self.inferred = [(view.voids(s), view.excluded(s)) for s in range(view.seats)]


class WorldSampler:
    """Worlds consistent with ``view`` (module docstring).  Raises :class:`SkeletonError`
    when the history cannot be replayed.

    ``model(view, decision)`` is the model of play used for inference (None: no
    inference, every world weighs 1), ``inference`` how it weighs (:class:`Inference`).
    """

    def __init__(
        self, spec: GameSpec, view: SeatView, model: Model | None = None, inference: Inference | None = None,
    ) -> None:
        self.spec = spec
        self.view = view
        self.model = model
        self.inference = inference = inference or Inference()
        self.me = view.seat
        self.events = view.events
        self.match = self._match()
        #: every decision of the history: the seat and its choice
        self.actions: list[tuple[int, Choice]] = []
        #: what the view shows, read once: every world is checked against it (:meth:`_check`)
        self.shown = _Shown(view)
        self.deal = self.match.new_deal()
        try:
            self._replay_skeleton()
        except (IllegalChoice, IndexError, KeyError, ValueError) as exc:
            raise SkeletonError(f"history does not replay: {exc}") from exc
        self._check(self.deal, skeleton=True)
        deck = self.deal.deck
        self.known: list[Card | None] = list(deck.cards)
        bound = {c for c in self.known if c is not None}
        self.unseen: list[Card] = [c for c in spec.deck if c not in bound]
        #: the hidden positions, in order
        self.free = free = [p for p, c in enumerate(self.known) if c is None]
        if len(free) != len(self.unseen):
            raise SkeletonError("hidden positions and hidden cards do not match")
        by_owner: dict[int, list[int]] = {}
        for p in free:
            by_owner.setdefault(deck.owner[p], []).append(p)
        self.owners = sorted(by_owner)
        self.slots = [by_owner[o] for o in self.owners]
        #: per hidden position, the index in ``owners`` of where it is now
        self.slot_of = {p: i for i, ps in enumerate(self.slots) for p in ps}
        allowed: dict[Card, list[int]] = {}
        for c in self.unseen:
            allowed[c] = [
                i for i, o in enumerate(self.owners)
                if o < 0 or (c[1] not in view.voids(o) and c not in view.excluded(o))
            ]
        self.allowed = allowed
        plays = [
            i for i, (s, ch) in enumerate(self.actions)
            if s != self.me and self._steps[i].kind == PLAY
        ]
        said = [i for i, (s, ch) in enumerate(self.actions) if s != self.me and telling(self._steps[i])]
        #: the decisions whose mismatch weighs ``inference.mismatch``
        self.weigh_at = frozenset(plays[-inference.plays:] + said) if model is not None else frozenset()
        #: the decisions asked of the model (every play too when ``inference.agree``)
        self.infer_at = (
            self.weigh_at | frozenset(plays) if model is not None and inference.agree != 1.0 else self.weigh_at
        )
        #: a world's replay starts from the skeleton as it stood before the first decision
        #: the inference weighs (every one before it replays alike whatever the hidden cards)
        self.resume_at = min(self.infer_at, default=len(self.actions))
        self.resume_from = self._snapshots[self.resume_at]
        del self._snapshots
        #: replay every world from the deal's start instead (to check the shortcut)
        self.full_replay = False
        #: worlds already drawn, handed out first by :meth:`sample` (:func:`settled`)
        self.drawn: list[World] = []

    # ------------------------------------------------------------------ the match
    def _match(self) -> Match:
        """A match whose next deal is played like the view's (dealer and public facts)."""
        view = self.view
        match = self.spec.new_match(view.options, view.dealer)
        scores = view.extra("scores")
        if isinstance(scores, (list, tuple)) and len(getattr(match, "totals", ())) == len(scores):
            match.totals = list(scores)
        sat_out = view.extra("sat_out")
        if isinstance(sat_out, (list, tuple)) and hasattr(match, "sat_out"):
            match.sat_out = list(sat_out)
        direction = view.extra("pass_direction")
        if direction is not None:
            for number in range(4):
                match.deal_number = number
                if match.new_deal().public_info().get("pass_direction") == direction:
                    break
            else:
                raise SkeletonError(f"no deal passes {direction!r}")
        return match

    # ------------------------------------------------------------------ the skeleton
    def _replay_skeleton(self) -> None:
        view, me, deal = self.view, self.me, self.deal
        events = self.events
        mine = dict(view.hand)
        shown = {p: c for p in view.public_positions if (c := view.card(p)) is not None}
        #: where each card the seat knows really is (its hand, face-up cards)
        self._real_pos = {c: p for p, c in [*shown.items(), *mine.items()]}
        located = set(mine.values()) | set(shown.values())
        lost: list[Card] = []
        for ev in events:
            if ev.get("seat") == me and ev["type"] != "draw":
                lost.extend(c for c in ev.get("cards") or () if c not in located and c not in lost)
        self._steps: list[Decision] = []
        #: the skeleton before each decision of the history, and at its end
        self._snapshots: list[DealState] = []
        #: cards known to be in play still (held by the seat, played, face up)
        self._present = set(mine.values()) | set(view.played)
        tc = view.trump_card
        if tc is not None:
            self._present.add(tc)
        while True:
            step = deal.step()
            if isinstance(step, Decision):
                if not self._replay_decision(step):
                    return
                continue
            if isinstance(step, Deal):
                self._replay_deal(step, mine, shown, lost)
            elif isinstance(step, Reveal):
                self._replay_reveal(step, mine, shown)
            elif isinstance(step, Locate):
                self._replay_locate(step)
            else:
                raise SkeletonError("the deal ended during the replay")
            deal.complete()

    def _replay_deal(self, step: Deal, mine: dict[int, Card], shown: dict[int, Card], lost: list[Card]) -> None:
        """A deal of positions: the seat's own from the stock take the cards it knows."""
        if step.seat == self.me and step.source == STOCK:
            for p in step.positions:
                if self.deal.deck.cards[p] is None:
                    c = mine.get(p) or shown.get(p) or (lost.pop(0) if lost else None)
                    if c is None:
                        raise SkeletonError(f"no card known for own position {p}")
                    self._bind(p, c)

    def _replay_reveal(self, step: Reveal, mine: dict[int, Card], shown: dict[int, Card]) -> None:
        for p in step.positions:
            if self.deal.deck.cards[p] is None:
                c = shown.get(p) or mine.get(p)
                if c is None:
                    raise SkeletonError(f"revealed position {p} is not shown")
                self._bind(p, c)

    def _replay_locate(self, step: Locate) -> None:
        if self.deal.deck.find(step.card) is None:
            holder = next(ev["seat"] for ev in self.events[len(self.deal.events):] if ev.get("card") == step.card)
            self._bind(self._free_in(holder, step.card), step.card)

    def _replay_decision(self, step: Decision) -> bool:
        """The historic choices of a decision; False at the seat's own decision now."""
        deal = self.deal
        at = len(deal.events)
        if at >= len(self.events):
            if self.me in deal.undecided():
                self._snapshots.append(deal.copy())
                return False
            raise SkeletonError("the history ends before the seat's decision")
        for seat in deal.undecided():
            choice = self._historic_choice(step, seat, at)
            self._snapshots.append(deal.copy())
            self.actions.append((seat, choice))
            self._steps.append(step)
            deal.apply(seat, choice)
        return True

    def _bind(self, pos: int, card: Card) -> None:
        deck = self.deal.deck
        if card in deck.cards:
            raise SkeletonError(f"{card} is already placed")
        deck.cards[pos] = card

    def _free_in(self, seat: int, card: Card | None = None) -> int:
        """A position of ``seat``'s hand whose card is not known yet (the real position of
        ``card`` when it is one)."""
        deck = self.deal.deck
        real = self._real_pos.get(card) if card is not None else None
        if real is not None and deck.owner[real] == seat and deck.cards[real] is None:
            return real
        for p in deck.hands[seat]:
            if deck.cards[p] is None:
                return p
        raise SkeletonError(f"seat {seat} has no hidden card left")

    def _holding(self, seat: int, card: Card) -> int:
        """The position of ``card`` in ``seat``'s hand, binding a free one if needed."""
        deck = self.deal.deck
        for p in deck.hands[seat]:
            if deck.cards[p] == card:
                return p
        pos = self._free_in(seat, card)
        self._bind(pos, card)
        return pos

    def _historic_choice(self, step: Decision, seat: int, at: int) -> Choice:
        kinds = (step.kind, SWAP) if step.kind == PLAY else (step.kind,)
        ev = next(e for e in self.events[at:] if e.get("seat") == seat and e["type"] in kinds)
        if ev["type"] == SWAP:
            return Swap(self._holding(seat, ev["card"]))
        if step.kind == PLAY:
            return Play(self._holding(seat, ev["card"]))
        if step.pick is None:
            return from_wire(step.kind, ev.get("choice"))
        if ev.get("plays") is False:
            return from_wire(step.kind, None)
        cards = ev.get("cards")
        if cards is not None:
            return from_wire(step.kind, tuple(self._holding(seat, c) for c in cards))
        count = ev.get("exchange", len(cards or ()))
        if step.pick[0] == step.pick[1]:
            count = step.pick[0]
        deck = self.deal.deck
        hand = deck.hands[seat]
        gone = [p for p in hand if deck.cards[p] is not None and deck.cards[p] not in self._present]
        free = [p for p in hand if deck.cards[p] is None]
        picked = (gone + free)[:count]
        if len(picked) != count:
            raise SkeletonError(f"seat {seat} cannot give {count} cards")
        return from_wire(step.kind, tuple(picked))

    # ------------------------------------------------------------------ checks
    def _check(self, deal: DealState, skeleton: bool = False) -> bool:
        """Whether ``deal`` shows what the view shows; the skeleton raises instead."""
        shown = self.shown
        cards = deal.deck.cards
        ok = (
            deal.renuncia is None
            and not deal.over
            and sorted(deal.deck.hands[self.me]) == shown.positions
            and all(cards[p] == c for p, c in shown.hand)
            and len(deal.tricks) == shown.tricks
            and [(s, cards[p]) for s, p in deal.trick] == shown.trick
            and [len(h) for h in deal.deck.hands] == shown.sizes
            and deal.trump == shown.trump
            and me_undecided(deal, self.me)
        )
        if ok and not skeleton:
            ok = all(deal.voids[s] == v and deal.excluded[s] == x for s, (v, x) in enumerate(shown.inferred))
        if skeleton and not ok:
            raise SkeletonError("the replayed deal does not show what the view shows")
        return ok

    # ------------------------------------------------------------------ worlds
    def _assign(self, rng: random.Random) -> list[Card] | None:
        """A full deck order: the hidden cards dealt to the hidden positions, or None."""
        cards = list(self.unseen)
        rng.shuffle(cards)
        allowed = self.allowed
        cards.sort(key=lambda c: len(allowed[c]))
        room = [len(s) for s in self.slots]
        given: list[list[Card]] = [[] for _ in self.slots]
        for c in cards:
            opts = [i for i in allowed[c] if room[i]]
            if not opts:
                return None
            r = rng.randrange(sum(room[i] for i in opts))
            for i in opts:
                r -= room[i]
                if r < 0:
                    break
            room[i] -= 1
            given[i].append(c)
        out = list(self.known)
        for positions, got in zip(self.slots, given, strict=True):
            rng.shuffle(got)
            for p, c in zip(positions, got, strict=True):
                out[p] = c
        return out  # type: ignore[return-value]

    def world(self, cards: Sequence[Card], rng: random.Random | None = None) -> World | None:
        """Replay the history on the deck order ``cards``; None if it contradicts the view.

        With ``rng``, a seat whose telling decision (:func:`telling`) the model would not
        have made alike gets its hidden cards drawn anew (:meth:`_redraw`) until it would,
        and so does one whose play it would not have made, when the game's
        :class:`Inference` redraws plays (:meth:`_redraw_play`)."""
        if self.full_replay:
            deal, k = self.match.new_deal(cards), 0
        else:
            deal, k = self.resume_from.copy(), self.resume_at
            known = deal.deck.cards
            for p, c in enumerate(known):
                if c is None:
                    known[p] = cards[p]
        actions = self.actions
        infer, weigh = self.infer_at, self.weigh_at
        model = self.model
        inference = self.inference
        weight = 1.0
        agreed = True
        told: set[int] = {self.me}
        #: per seat, the positions it held at its plays asked about so far (redraw_plays)
        held: dict[int, set[int]] = {}
        try:
            while True:
                step = deal.step()
                if type(step) is Decision:
                    if k == len(actions):
                        break
                    seat, choice = actions[k]
                    if k in infer and model is not None and (step.pick is not None or len(deal.legal(seat)) > 1):
                        if not self._ask(model, deal, step, seat, choice, told, held, rng):
                            agreed = False
                            if k in weigh:
                                weight *= inference.mismatch
                    k += 1
                    deal.apply(seat, choice)
                elif type(step) is End:
                    return None
                else:
                    deal.complete()
        except IllegalChoice:
            return None
        if not self._check(deal):
            return None
        if agreed and infer:
            weight *= inference.agree
        return World(deal, weight)

    def _ask(
        self, model: Model, deal: DealState, step: Decision, seat: int, choice: Choice, told: set[int],
        held: dict[int, set[int]], rng: random.Random | None,
    ) -> bool:
        """Whether the model makes ``seat``'s historic ``choice`` alike in ``deal`` (before
        it is applied): with ``rng``, after a telling decision's or (``redraw_plays``) a
        play's redraws (``told``, ``held``: :meth:`world`'s record of them); a hidden pick
        made alike gives up the cards the model would (:meth:`_follow`)."""
        said = from_wire(step.kind, model(SeatView(deal, seat), step))
        play = step.kind == PLAY
        if rng is not None and (not play or self.inference.redraw_plays):
            seen = held.setdefault(seat, set())
            for _ in range(REDRAWS):
                if alike(said, choice, step):
                    break
                moved = (self._redraw_play(deal, seat, seen, told, rng) if play
                         else self._redraw(deal, seat, said, choice, told, rng))
                if not moved:
                    break
                said = from_wire(step.kind, model(SeatView(deal, seat), step))
            told.add(seat)
            if play:
                seen.update(deal.deck.hands[seat])
        return alike(said, choice, step) and self._follow(deal, said, choice)

    def _redraw(
        self, deal: DealState, seat: int, said: Choice, real: Choice, told: set[int], rng: random.Random,
    ) -> bool:
        """Change one of ``seat``'s hidden cards for the card of a random hidden position of
        the stock or of a seat that has told nothing yet (``told``: the seats whose telling
        decisions were made alike, and this seat).  Before any play (a decision about the
        hands, like going in) nothing public tells these apart; later facts are checked when
        the world is done.  When the model picks more cards than were really picked, one
        of those it picks changes (Sobe e Desce: a card it would exchange), when fewer, one
        it keeps; else any.  False when there is nothing to change."""
        deck = deal.deck
        known = self.known
        hand = deck.hands[seat]
        model, really = picked(said), picked(real)
        if model is not None and really is not None and len(model) != len(really):
            hand = list(model) if len(model) > len(really) else [p for p in hand if p not in model]
        return self._swap([p for p in hand if known[p] is None], deal, seat, told, rng)

    def _redraw_play(self, deal: DealState, seat: int, seen: set[int], told: set[int], rng: random.Random) -> bool:
        """Change one of the hidden cards ``seat`` drew since its last play asked about
        (not at the positions ``seen`` then: those plays stay as they were weighed) for
        the card of a random hidden position of the stock or of a seat that has told
        nothing yet.  False when there is nothing to change."""
        known = self.known
        return self._swap([p for p in deal.deck.hands[seat] if known[p] is None and p not in seen],
                          deal, seat, told, rng)

    def _swap(self, mine: list[int], deal: DealState, seat: int, told: set[int], rng: random.Random) -> bool:
        """Swap the card of a random position of ``mine`` with that of a random hidden
        position of the stock or of a seat not in ``told`` (nor ``seat``), when both cards
        may be where they would go; False when either side has no position."""
        deck = deal.deck
        owner = deck.owner
        pool = [p for p in self.free
                if owner[p] == STOCK or (owner[p] >= 0 and owner[p] not in told and owner[p] != seat)]
        if not mine or not pool:
            return False
        cards = deck.cards
        p = mine[rng.randrange(len(mine))]
        q = pool[rng.randrange(len(pool))]
        a, b = cards[p], cards[q]
        allowed, slot = self.allowed, self.slot_of
        if slot[q] in allowed[a] and slot[p] in allowed[b]:  # type: ignore[index]
            cards[p], cards[q] = b, a
        return True

    def _follow(self, deal: DealState, said: Choice, real: Choice) -> bool:
        """Make a hidden pick of another seat give up the cards the model would: the
        hidden cards at the positions the model picks change places with those at the
        positions really picked (all in that seat's hand, so what it holds is unchanged
        until the pick).  False when a known card would have to move (nothing changes)."""
        model, really = picked(said), picked(real)
        if model is None or really is None:
            return True
        out = [p for p in model if p not in really]
        into = [p for p in really if p not in model]
        known = self.known
        if any(known[p] is not None for p in (*out, *into)):
            return False
        cards = deal.deck.cards
        for a, b in zip(out, into, strict=True):
            cards[a], cards[b] = cards[b], cards[a]
        return True

    def sample(self, rng: random.Random) -> World | None:
        """One world drawn with ``rng`` (None when every try contradicted the view)."""
        if self.drawn:
            return self.drawn.pop()
        for _ in range(ASSIGN_TRIES):
            cards = self._assign(rng)
            if cards is None:
                continue
            w = self.world(cards, rng)
            if w is not None:
                return w
        return None


def settled(
    spec: GameSpec, view: SeatView, model: Model | None, inference: Inference, rng: random.Random,
) -> WorldSampler:
    """A sampler of ``view``'s worlds with ``inference`` when the other seats play as
    ``model`` does, else with the default :class:`Inference`.

    An inference that rewards agreement (``agree``) first draws ``inference.probe`` worlds;
    when at least ``inference.least`` of them agree with every play asked about, they are
    kept (:meth:`WorldSampler.sample` hands them out first).  Else the seats do not play
    as the model does, and its redraws would only make their hands look like the model's:
    measured in Bisca, a world agrees about half the time against the heuristic (30 to 65
    % from the third play on) and almost never against the search (2 % after three plays,
    none after six); with Bisca's inference at every decision, the search won 43.8 % of
    200 pairs against the search without it (58.5 against 61.5 card points a deal), 47.8
    % settled so (-0.4 +- 2.8 card points a deal: the same)."""
    sampler = WorldSampler(spec, view, model, inference)
    if inference.agree == 1.0 or model is None or not sampler.infer_at:
        return sampler
    drawn = [w for w in (sampler.sample(rng) for _ in range(inference.probe)) if w is not None]
    if sum(w.weight >= inference.agree for w in drawn) >= inference.least:
        sampler.drawn = drawn[::-1]
        return sampler
    return WorldSampler(spec, view, model)


def me_undecided(deal: DealState, seat: int) -> bool:
    """Whether ``seat`` has a decision pending in ``deal``."""
    step = deal.step()
    return isinstance(step, Decision) and seat in deal.undecided()
