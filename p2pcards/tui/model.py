"""The table screen as data: what the person sees and what each key does -- no terminal.

A :class:`TableModel` holds an immutable :class:`Snapshot` of the person's replica of the
table (:mod:`p2pcards.tui.snapshot`: copied out of the live
:class:`~p2pcards.table.table.Table` by :func:`snapshot_of` whenever it changes), the
decision the person is asked for (if any), and the screen's own state: the cursor in the
hand, the cards marked for a pass or an exchange, the window on top (help, scores, last
trick, leave?, the deal's summary, the match's end; what they say is
:mod:`p2pcards.tui.windows`), a hint's line and the offer to finish a forced deal.  Keys
arrive as method calls
(:mod:`p2pcards.tui.input`: :meth:`TableModel.left`, :meth:`~TableModel.enter`,
:meth:`~TableModel.digit`, :meth:`~TableModel.key` ...); what they cause outside the screen
goes through callbacks: ``on_choice(choice)`` (the person's decision, in the formats of
:mod:`p2pcards.core`), ``on_continue()`` (the summary of a deal was read),
``on_exit()`` (leave the table), ``on_hint()`` (``h``: compute a hint, which comes back
through :meth:`TableModel.show_hint`) and ``on_finish()`` (``f``: finish a forced deal).

The layout (:mod:`p2pcards.tui.layout`) only reads the model; nothing here imports
prompt_toolkit or trio, so all of it is tested without a terminal.

Nothing here knows a game: what differs between games (play direction, trumps, running
counts, how results read, the words and reasons of a decision dialog, facts and notes) comes
from the game's spec and deal state (:mod:`p2pcards.core`, "How a game reaches the
screens"), and its words from the game's own texts.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence

from p2pcards.core import PLAY, Card, Decision, Legal, Line, Plain, pretty
from p2pcards.identity import told_apart
from p2pcards.players.hints import Hint
from p2pcards.tui.cards import SUIT_ORDER, card_label, is_red, sort_hand
from p2pcards.tui.input import CARD_KEYS, TableKeys
from p2pcards.tui.snapshot import GameInfo, HandCard, SeatLabel, SeatPanel, Snapshot, snapshot_of
from p2pcards.tui.windows import TableWindows
from p2pcards.words import Text, line_text, summary_text

__all__ = [
    "CARD_KEYS",
    "MIN_COLS",
    "MIN_ROWS",
    "SUIT_ORDER",
    "GameInfo",
    "HandCard",
    "SeatLabel",
    "SeatPanel",
    "Snapshot",
    "TableModel",
    "card_label",
    "is_red",
    "line_text",
    "snapshot_of",
    "sort_hand",
    "summary_text",
    "too_small",
]

#: The smallest terminal the table is laid out in (columns, rows).
MIN_COLS = 72
MIN_ROWS = 20


def too_small(cols: int, rows: int) -> bool:
    """Whether a terminal of ``cols`` x ``rows`` cannot show the table."""
    return cols < MIN_COLS or rows < MIN_ROWS


class TableModel(TableKeys, TableWindows):
    """Everything on the table screen (module docstring)."""

    def __init__(
        self,
        game: GameInfo,
        seats: Sequence[SeatLabel],
        me: int,
        text: Text,
        *,
        speed: float = 0.8,
        here: str | None = None,
        log_path: str | None = None,
    ) -> None:
        if len(seats) != game.seats:
            raise ValueError(f"{game.name} has {game.seats} seats, not {len(seats)}")
        self.game = game
        # two seats of one name ("root" and "root") are told apart by their keys' fingerprints
        names = told_apart([(label.name, label.fingerprint or "") for label in seats])
        self.seats = [label if name == label.name else dataclasses.replace(label, name=name)
                      for label, name in zip(seats, names)]
        self.me = me
        self.text = text
        #: seconds a computer player waits before each decision
        self.speed = speed
        #: fingerprint of this machine's person (bots it runs "run here")
        self.here = here
        self.log_path = log_path
        self.snap = Snapshot()
        self.decision: Decision | None = None
        self.legal: list[Legal] = []
        #: how many decisions the person has been asked so far
        self.asked = 0
        self.cursor = 0
        self.picked: list[int] = []
        self.choice_cursor = 0
        #: transient window on top: help, scores, last, quit (None: none)
        self.popup: str | None = None
        #: windows that wait for a key, in order: summary, final, error
        self.modal: list[str] = []
        self.summary: Mapping[str, object] | None = None
        self.final: Mapping[str, object] | None = None
        self.history: list[Mapping[str, object]] = []
        self.error: str | None = None
        #: seats whose process's link is down (they may be reconnecting)
        self.offline: set[int] = set()
        #: what the person's replica refused in this deal (a line for the notices), or ""
        self.alert = ""
        self.message = ""
        self.finished = False
        self.on_choice: Callable[[Plain], None] = lambda choice: None
        self.on_continue: Callable[[], None] = lambda: None
        self.on_exit: Callable[[], None] = lambda: None
        #: the person left with Ctrl-C (an interrupt: exit status 130)
        self.interrupted = False
        #: a table taken up again, until its replica is rebuilt from its log (the first
        #: snapshot): the screen says so instead of a table that has not started
        self.catching_up = False
        #: whether the table's host allows hints (the genesis says; ``h`` says so when not)
        self.hints_allowed = True
        #: a hint being computed; the hint's line (or "thinking…") for the pending decision
        self.hint_busy = False
        self.hint_line = ""
        #: the rest of the deal is forced and ``f`` finishes it; ``f`` was pressed
        self.finish_offered = False
        self.finishing = False
        self.on_hint: Callable[[], None] = lambda: None
        self.on_finish: Callable[[], None] = lambda: None
        #: called after every change that comes from the table (not from keys)
        self.listeners: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ from the table
    def _changed(self) -> None:
        for listener in list(self.listeners):
            listener()

    def update(self, snap: Snapshot) -> None:
        """A new snapshot of the table."""
        self.snap = snap
        self._clamp()
        self._changed()

    def caught_up(self, deals: Sequence[Mapping[str, object]]) -> None:
        """The replica is rebuilt (the first snapshot of a table taken up again): the deals
        that closed before, as the ``deal`` events they were, keep their place in the
        deals panel."""
        if self.catching_up:
            self.catching_up = False
            self.history = list(deals) + self.history

    def ask(self, decision: Decision, legal: Sequence[Legal]) -> None:
        """The table asks the person to decide; the answer goes to ``on_choice``."""
        self.decision = decision
        self.legal = list(legal)
        self.asked += 1
        self.picked = []
        self.message = ""
        self.hint_line = ""
        self.choice_cursor = 0
        if decision.kind == PLAY:
            hand = self.hand_order()
            if not 0 <= self.cursor < len(hand) or hand[self.cursor][0] not in self.legal:
                firsts = [i for i, (p, _) in enumerate(hand) if p in self.legal]
                self.cursor = firsts[0] if firsts else 0
        self._clamp()
        self._changed()

    def withdraw(self, decision: Decision) -> None:
        """The table moved on before the person decided ``decision``: the question goes
        (the table asks again, as it now stands, if the person still has to decide)."""
        if self.decision == decision:
            self.decision = None
            self.legal = []
            self.picked = []
            self._changed()

    def refused(self, blame: int | None) -> None:
        """The person's replica refused a message that ``blame`` sent (None: nobody can be
        blamed for it): say so under the trick until the deal is over, where the verdict
        tells the rest."""
        t = self.text
        self.alert = t("refused_nobody") if blame is None else t("refused_blame", name=self.name(blame))
        self._changed()

    def deal_over(self, event: Mapping[str, object]) -> None:
        """A ``deal`` event of the person's replica: show its summary until a key."""
        self.alert = ""
        self.history.append(event)
        self.summary = event
        self.modal.append("summary")
        self.decision = None
        self.hint_line = ""
        self.finish_offered = self.finishing = False
        self._changed()

    # ------------------------------------------------------------------ hints and a forced rest
    def show_hint(self, hint: Hint | None, asked: int) -> bool:
        """A hint computed for the ``asked``-th decision (None: it failed): shown, with the
        cursor on the suggested card or choice, when that decision is still pending; else
        dropped.  Whether it was shown."""
        self.hint_busy = False
        if asked != self.asked or self.decision is None:
            if self.hint_line == self.text("hint_thinking"):
                self.hint_line = ""
            self._changed()
            return False
        self.hint_line = self.text("hint_none") if hint is None else self.hint_text(hint)
        if hint is not None:
            self._point_at(hint.choice)
        self._changed()
        return True

    def hint_text(self, hint: Hint) -> str:
        """A hint's line: the suggestion, then why, in the screen's language."""
        t = self.text
        fields = {k: (t.suit(v) if k == "suit" and isinstance(v, str) else v) for k, v in hint.fields.items()}
        key = f"hint_why_{hint.reason}"
        try:
            why = t(key, **fields) if key in t else hint.reason
        except (KeyError, IndexError, ValueError):
            why = hint.reason
        choice = hint.choice
        hand = dict(self.snap.hand)
        if isinstance(choice, int) and choice in hand:
            return t("hint_play", card=card_label(hand[choice]), why=why)
        if isinstance(choice, tuple) and all(isinstance(p, int) for p in choice):
            return t("hint_pick", cards=" ".join(card_label(hand[p]) for p in choice if p in hand), why=why)
        label = self.button("decline") if choice is None else self.choice_label(choice)
        return t("hint_choice", choice=label, why=why)

    def _point_at(self, choice: Plain) -> None:
        """Put the cursor on ``choice``: a card of a play, the cards of a pick (marked), an
        item of a list of choices."""
        decision = self.decision
        if decision is None:
            return
        order = [p for p, _ in self.hand_order()]
        if decision.kind == PLAY and isinstance(choice, int) and choice in order:
            self.cursor = order.index(choice)
        elif decision.pick is not None and isinstance(choice, tuple):
            marked = [p for p in choice if p in order][: decision.pick[1]]
            self.picked = marked
            if marked:
                self.cursor = order.index(marked[0])
        elif decision.pick is None and choice in self.legal:
            self.choice_cursor = self.legal.index(choice)

    def offer_finish(self) -> None:
        """The rest of the deal is forced: offer ``f``."""
        if not self.finish_offered:
            self.finish_offered = True
            self._changed()

    def finish_stopped(self) -> None:
        """A decision that is not forced reached the person after all: it is asked as usual,
        and the computer players keep their pace again."""
        self.finishing = False
        self.finish_offered = False
        self._changed()

    def table_over(self, event: Mapping[str, object]) -> None:
        """The ``final`` event: the match (or the table's deals) is over."""
        self.final = event
        self.finished = True
        self.modal.append("final")
        self._changed()

    def link(self, seats: Iterable[int], up: bool) -> None:
        """The link to the process playing ``seats`` went down, or came back (LAN tables)."""
        if up:
            self.offline.difference_update(seats)
        else:
            self.offline.update(s for s in seats if s != self.me)
        self._changed()

    def stopped(self, reason: str) -> None:
        """The table cannot go on (a peer silent, a bug...): say so until a key."""
        self.error = reason
        self.decision = None
        if "error" not in self.modal:
            self.modal.insert(0, "error")
        self._changed()

    # ------------------------------------------------------------------ derived
    @property
    def overlay(self) -> str | None:
        """The window on top: a popup, else the first waiting modal, else None."""
        if self.popup is not None:
            return self.popup
        return self.modal[0] if self.modal else None

    @property
    def mode(self) -> str | None:
        """The kind of the decision the keys work on now (:data:`~p2pcards.core.steps.PLAY`,
        or a kind of the game's), or None."""
        if self.decision is None or self.overlay is not None:
            return None
        return self.decision.kind

    @property
    def picking(self) -> bool:
        """Whether the keys mark cards for a pick (a decision that takes several cards)."""
        return self.mode is not None and self.decision is not None and self.decision.pick is not None

    @property
    def choosing(self) -> bool:
        """Whether the keys move along a list of choices (a decision that is neither a
        play nor a pick, such as a trump suit)."""
        return self.mode not in (None, PLAY) and self.decision is not None and self.decision.pick is None

    def seat_name(self, seat: int, first: bool) -> str:
        """A seat named in the game's words: "You" opening a sentence, "you" inside one."""
        return self.name(seat) if first else self.who(seat)

    def say(self, line: Line, **extra: object) -> str:
        """A line of the game's words, in the screen's language."""
        return line_text(self.game.spec, self.text.lang, line, self.seat_name, self.person, **extra)

    def hand_order(self) -> list[tuple[int, Card]]:
        return sort_hand(self.snap.hand, self.snap.strength)

    def _legal_positions(self) -> set[int]:
        return {c for c in self.legal if isinstance(c, int)}

    @property
    def swap(self) -> Legal | None:
        """A play decision's choice that is not a card (an exchange the game allows, such
        as a card for the face-up trump card) when there is one now, else None."""
        if self.decision is None or self.decision.kind != PLAY:
            return None
        for c in self.legal:
            if not isinstance(c, int):
                return c
        return None

    def hand_cards(self) -> list[HandCard]:
        """The hand as drawn, left to right."""
        decision = self.decision
        kind = decision.kind if decision is not None else None
        pick = decision is not None and decision.pick is not None
        legal = self._legal_positions()
        received = set(self.snap.received)
        out = []
        for i, (pos, card) in enumerate(self.hand_order()):
            if kind == PLAY:
                ok: bool | None = pos in legal
            elif pick:
                ok = True
            else:
                ok = None
            key = CARD_KEYS[i] if i < len(CARD_KEYS) else ""
            out.append(HandCard(i, pos, card, card_label(card), is_red(card), ok,
                                (kind == PLAY or pick) and i == self.cursor, pos in self.picked, key,
                                card in received))
        return out

    def card_keys(self) -> str:
        """The keys of the cards in hand as the prompt says them: ``1-5``, ``1-9, 0``, ``1-9, 0, a-c``."""
        n = min(len(self.snap.hand), len(CARD_KEYS))
        if n <= 1:
            return "1"
        parts = [f"1-{min(n, 9)}"]
        if n >= 10:
            parts.append("0")
        if n == 11:
            parts.append(CARD_KEYS[10])
        elif n > 11:
            parts.append(f"{CARD_KEYS[10]}-{CARD_KEYS[n - 1]}")
        return ", ".join(parts)

    def name(self, seat: int | None) -> str:
        """The seat's name, "You" for the person (as a label or at the start of a line)."""
        if seat is None or not 0 <= seat < len(self.seats):
            return "?"
        return self.text("you") if seat == self.me else self.seats[seat].name

    def who(self, seat: int | None) -> str:
        """The seat's name inside a sentence: "you" for the person ("won by you")."""
        return self.text("you_marker") if seat == self.me else self.name(seat)

    @property
    def person(self) -> int | None:
        """The seat whose sentences are worded for the person reading ("you"): theirs."""
        return self.me

    def about(self, key: str, seat: int | None, **fields: object) -> str:
        """The sentence ``key`` about ``seat`` (its ``name`` field): in the words for the
        person when the seat is theirs (:meth:`~p2pcards.words.Text.about`)."""
        return self.text.about(key, seat is not None and seat == self.person, name=self.who(seat), **fields)

    def won_by(self, seat: int) -> str:
        """Who took a trick, as the line under it says: "won by Ana", "won by you"."""
        return self.about("won_by", seat)

    def level(self, level: str) -> str:
        """A computer player's level in words of the screen's language (the CLI keeps its own values)."""
        key = f"level_{level}"
        return self.text(key) if key in self.text else level

    def where(self, seat: int) -> str:
        """Where ``seat`` sits around the table as the person sees it.

        The person is at the bottom.  In an anticlockwise game the next seat in play
        order is to the person's right; in a clockwise one to the left.
        """
        n = self.game.seats
        off = (seat - self.me) % n
        if off == 0:
            return "bottom"
        if n == 2:
            return "top"
        if n == 3:
            return ("left", "right")[off - 1] if self.game.clockwise else ("right", "left")[off - 1]
        if off == 2:
            return "top"
        if off == 1:
            return "left" if self.game.clockwise else "right"
        return "right" if self.game.clockwise else "left"

    def seat_panel(self, seat: int) -> SeatPanel:
        t = self.text
        label = self.seats[seat]
        snap = self.snap
        you = seat == self.me
        runs = ""
        dummy = seat in snap.dummies
        if you:
            marker = t("you_dummy") if dummy else t("you_seat")
        elif dummy:
            marker = t("dummy")
        elif label.bot:
            marker = t("bot", level=self.level(label.bot))
            if label.runs_on and label.runs_on == self.here:
                runs = t("runs_here")
            elif label.runs_on:
                runs = t("runs_on", fp="-".join(label.runs_on.split("-")[:2]))
        else:
            marker = t("person")
        cards = ""
        if snap.in_deal and seat in snap.dummy_hands and not you:  # a dummy's cards are face up for all
            cards = " ".join(card_label(c) for c in snap.dummy_hands[seat])
        elif snap.in_deal and seat < len(snap.hand_sizes):
            k = snap.hand_sizes[seat]
            cards = t("one_card_left") if k == 1 else t("cards_left", n=k)
        detail = []
        counts = self.game.counts
        if snap.in_deal and "tricks" in counts and seat < len(snap.tricks_won):
            detail.append(t("tricks_won", n=snap.tricks_won[seat]))
        elif snap.in_deal and "points" in counts and seat < len(snap.points_won):
            detail.append(t("taken_short", n=snap.points_won[seat]))
        active = True
        playing = snap.info.get("playing")
        if isinstance(playing, list) and seat < len(playing) and playing[seat] is not None:
            active = bool(playing[seat])
            detail.append(t("plays") if active else t("sits_out"))
        if seat in self.offline:
            detail.append(t("offline"))
        turn = seat in snap.deciding[:1] and snap.stage == "play"
        return SeatPanel(seat, self.where(seat), self.name(seat) if not you else label.name, marker, runs, cards,
                         " · ".join(detail), turn, snap.dealer == seat and snap.in_deal, you, active)

    def trick_cards(self) -> tuple[dict[str, Card], str | None]:
        """Cards on the table by where their player sits, and who won them (:meth:`won_by`)
        when the cards shown are the trick just finished (shown until the next card is played)."""
        snap = self.snap
        if snap.trick:
            return {self.where(s): c for s, c in snap.trick}, None
        if snap.last_trick is not None and snap.in_deal:
            _, plays, winner = snap.last_trick
            return {self.where(s): c for s, c in plays}, self.won_by(winner)
        return {}, None

    def notices(self) -> list[str]:
        """What the table did on its own that the person should know, two lines at most:
        the game's notes (e.g. a card the rules led for a player), the cards passed to the
        person (until the trick after the first starts), and a message this replica refused
        in this deal (:meth:`refused`); first of all, the offer to finish a deal whose rest
        is forced (:meth:`offer_finish`)."""
        offer = [self.text("finish_going" if self.finishing else "finish_offer")] if self.finish_offered else []
        return (offer + self._game_notices())[: 2 - bool(self.alert)] + ([self.alert] if self.alert else [])

    def _game_notices(self) -> list[str]:
        snap = self.snap
        if not snap.in_deal:
            return []
        out = [self.say(note) for note in snap.notes]
        first = snap.tricks_played == 0 or (snap.tricks_played == 1 and not snap.trick)
        if snap.received and first:
            out.append(self.text("received", name=self.name(snap.received_from),
                                 cards=" ".join(card_label(c) for c in snap.received)))
        return out

    def header(self) -> tuple[str, str]:
        """(left part, trump part) of the top line."""
        t = self.text
        snap = self.snap
        left = [self.game.title_in(t.lang)] + ([] if self.catching_up else [t("deal", n=snap.deal + 1)])
        if snap.stock is not None and snap.in_deal:
            left.append(t("stock", n=snap.stock))
        if not snap.in_deal:
            return " · ".join(left), ""
        left += [self.say(fact) for fact in snap.facts]
        if snap.trump is None:
            return " · ".join(left), t("trump_none") if self.game.trumps else ""
        trump = f"{t('trump')} {pretty('A' + snap.trump)[1:]} {t.suit(snap.trump)}"
        if snap.trump_card is not None:
            if snap.trump_holder is None:
                trump += " · " + t("trump_card_stock", card=card_label(snap.trump_card))
            else:
                trump += " · " + self.about("trump_card_held", snap.trump_holder, card=card_label(snap.trump_card))
        return " · ".join(left), trump

    def status(self) -> str:
        """The line that says what happens now."""
        t = self.text
        snap = self.snap
        n = self.game.seats
        if self.error is not None:
            return t("stopped", reason=self.error)
        if snap.stage == "over" or self.finished:
            return t("table_over")
        if self.catching_up:
            return t("catching_up")
        if snap.voted_out:
            return t("watching")
        if self.decision is not None:
            return t("your_turn")
        away = ""
        if self.offline:
            away = " · " + t("reconnecting", names=", ".join(self.name(s) for s in sorted(self.offline)))
        if snap.stage == "setup":
            if snap.phase == "commit":
                return t("committing", k=snap.committed, n=n) + away
            if snap.phase == "shuffle":
                return t("shuffling", k=(snap.expected or 0) + 1, n=n) + away
            if snap.phase == "lock":
                return t("locking", k=(snap.expected or 0) + 1, n=n) + away
            return t("dealing") + away
        if snap.stage == "seeds":
            return t("auditing") + away
        if snap.deciding:
            who = snap.deciding[0]
            if who == self.me:  # the table has not asked yet: keys would be ignored for that moment
                return t("your_turn_next")
            return t("waiting_reconnect" if who in self.offline else "waiting_for", name=self.name(who))
        return t("dealing")

    def prompt(self) -> str:
        """What the keys do now (one line under the table)."""
        t = self.text
        if self.message:
            return self.message
        if self.hint_line:
            return self.hint_line
        if self.mode == PLAY:
            return t("prompt_play", keys=self.card_keys())
        return t("prompt_wait")

    def choice_label(self, choice: Plain) -> str:
        """A choice that is not a card, in the game's words (as it is when it has none)."""
        for c, line in self.snap.choices:
            if c == choice and line is not None:
                return self.say(line)
        return str(choice)

    def swap_prompt(self) -> str | None:
        """The key and label of the play decision's other choice (:attr:`swap`), or None."""
        swap = self.swap
        if swap is None:
            return None
        return self.text("prompt_extra", choice=self.choice_label(swap))

    def choice_options(self) -> list[tuple[Legal, str, bool, bool]]:
        """A list of choices' dialog (e.g. a trump suit): ``(choice, label, red, under cursor)``,
        labelled in the game's words."""
        out = []
        for i, choice in enumerate(self.legal):
            label = self.choice_label(choice)
            out.append((choice, f"{i + 1} {label}", "♥" in label or "♦" in label, i == self.choice_cursor))
        return out
