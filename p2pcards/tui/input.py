"""What each key does on the table screen: the input state machine of
:class:`~p2pcards.tui.model.TableModel`, apart from what the screen shows.

Keys arrive as method calls (:meth:`TableKeys.left`, :meth:`~TableKeys.enter`,
:meth:`~TableKeys.digit`, :meth:`~TableKeys.key` ...); a decision leaves through
``on_choice``, a read summary through ``on_continue``, leaving through ``on_exit``.
"""

from __future__ import annotations

from collections.abc import Callable

from p2pcards.core import PLAY, Card, Decision, Legal, Plain
from p2pcards.tui.snapshot import Snapshot
from p2pcards.words import Text

__all__ = ["CARD_KEYS", "LETTER_KEYS", "YES_KEYS", "TableKeys"]

#: The key of each place in the hand, left to right: 1-9, 0 for the tenth, then letters
#: (up to 18 cards in hand).  ``f`` and ``h`` are cards only in a hand that reaches them
#: (16 and 18 cards: no game here deals that many); otherwise they finish a forced deal
#: and ask for a hint (:data:`LETTER_KEYS`).
CARD_KEYS = "1234567890abcdefgh"
#: Letters of :data:`CARD_KEYS` that do something else when no card is at their place.
LETTER_KEYS = {"f": "finish", "h": "hint"}
#: Keys that answer yes to "leave the table?", per language ("s" for "sim").
YES_KEYS = {"en": "y", "pt": "sy"}


class TableKeys:
    """The keys of the table screen, mixed into :class:`~p2pcards.tui.model.TableModel`,
    which holds the state below and answers what the keys ask of the screen."""

    # the screen's state that keys read and change (set by the model)
    snap: Snapshot
    text: Text
    decision: Decision | None
    legal: list[Legal]
    cursor: int
    picked: list[int]
    choice_cursor: int
    message: str
    popup: str | None
    modal: list[str]
    speed: float
    on_choice: Callable[[Plain], None]
    on_continue: Callable[[], None]
    on_exit: Callable[[], None]
    #: Ctrl-C left the screen (set by :meth:`TableKeys.interrupt`)
    interrupted: bool
    #: why a card may not be played now (the windows' words: TableWindows.refused_card)
    refused_card: Callable[[int, Card], str]
    # hints and finishing a forced deal (set by the model; see TableModel)
    hints_allowed: bool
    hint_busy: bool
    hint_line: str
    finish_offered: bool
    finishing: bool
    on_hint: Callable[[], None]
    on_finish: Callable[[], None]

    # what the keys ask of the screen (the model's answers)
    @property
    def mode(self) -> str | None:
        raise NotImplementedError

    @property
    def picking(self) -> bool:
        raise NotImplementedError

    @property
    def choosing(self) -> bool:
        raise NotImplementedError

    @property
    def overlay(self) -> str | None:
        raise NotImplementedError

    @property
    def swap(self) -> Legal | None:
        raise NotImplementedError

    def hand_order(self) -> list[tuple[int, Card]]:
        raise NotImplementedError

    def _legal_positions(self) -> set[int]:
        raise NotImplementedError

    def choice_options(self) -> list[tuple[Legal, str, bool, bool]]:
        raise NotImplementedError

    # ------------------------------------------------------------------ the keys
    def _clamp(self) -> None:
        n = len(self.snap.hand)
        self.cursor = min(max(self.cursor, 0), max(n - 1, 0))
        self.picked = [p for p in self.picked if any(p == q for q, _ in self.snap.hand)]

    def _submit(self, choice: Plain) -> None:
        self.decision = None
        self.legal = []
        self.picked = []
        self.message = ""
        self.hint_line = ""
        self.on_choice(choice)

    def left(self) -> None:
        self._move(-1)

    def right(self) -> None:
        self._move(+1)

    def up(self) -> None:
        """↑: the previous choice (a list of choices only)."""
        if self.choosing:
            self._move(-1)

    def down(self) -> None:
        """↓: the next choice (a list of choices only)."""
        if self.choosing:
            self._move(+1)

    def _move(self, step: int) -> None:
        mode = self.mode
        self.message = ""
        if self.choosing:
            n = len(self.choice_options())
            if n:
                self.choice_cursor = (self.choice_cursor + step) % n
            return
        hand = self.hand_order()
        if not hand:
            return
        if mode == PLAY:
            legal = self._legal_positions()
            i = self.cursor
            for _ in range(len(hand)):
                i = (i + step) % len(hand)
                if hand[i][0] in legal:
                    self.cursor = i
                    return
            return
        self.cursor = (self.cursor + step) % len(hand)

    def enter(self) -> None:
        """Enter: play the card under the cursor, confirm the cards marked, take the choice
        under the cursor, or dismiss the window on top."""
        if self._dismiss(continue_keys=True):
            return
        mode = self.mode
        if mode == PLAY:
            self._play_index(self.cursor)
        elif self.picking:
            assert self.decision is not None and self.decision.pick is not None
            lo, hi = self.decision.pick
            if not lo <= len(self.picked) <= hi:
                self.message = (self.text.plural("pick_need", lo) if lo == hi
                                else self.text("pick_need_range", lo=lo, hi=hi))
                return
            self._submit(tuple(self.picked))
        elif self.choosing:
            options = self.choice_options()
            if options:
                self._submit(options[self.choice_cursor % len(options)][0])

    def space(self) -> None:
        """Space: like Enter, but marks or unmarks a card when cards are picked."""
        if self.picking:
            self._toggle(self.cursor)
            return
        self.enter()

    def digit(self, d: int) -> None:
        """A digit: the card at that place (1-9, 0 the tenth), or a choice in a list (1-9)."""
        self._card_or_choice(9 if d == 0 else d - 1)

    def card_key(self, key: str) -> None:
        """A card's key (:data:`CARD_KEYS`: digits, then letters from the eleventh card);
        ``f`` and ``h`` beyond the hand: :meth:`finish` and :meth:`hint`."""
        if key in CARD_KEYS:
            index = CARD_KEYS.index(key)
            if key in LETTER_KEYS and index >= len(self.snap.hand):
                (self.finish if LETTER_KEYS[key] == "finish" else self.hint)()
                return
            if index < 10 or not self.choosing:
                self._card_or_choice(index)

    def _card_or_choice(self, index: int) -> None:
        if self.overlay is not None:
            return
        if self.choosing:
            options = self.choice_options()
            if 0 <= index < len(options):
                self.choice_cursor = index
                self._submit(options[index][0])
            return
        self.click_card(index)

    def click_card(self, index: int) -> None:
        """A card clicked (or chosen by its digit): play it, or mark it in a pick."""
        if self.overlay is not None:
            return
        hand = self.hand_order()
        if not 0 <= index < len(hand):
            return
        mode = self.mode
        if mode == PLAY:
            self._play_index(index)  # the cursor stays on a legal card when this one is refused
        elif self.picking:
            self.cursor = index
            self._toggle(index)

    def click_trump(self, index: int) -> None:
        if self.choosing:
            self.digit(index + 1 if index < 9 else 0)

    def _play_index(self, index: int) -> None:
        hand = self.hand_order()
        if not 0 <= index < len(hand):
            return
        pos, card = hand[index]
        if pos not in self._legal_positions():
            self.message = self.refused_card(pos, card)
            return
        self._submit(pos)

    def _toggle(self, index: int) -> None:
        hand = self.hand_order()
        if not 0 <= index < len(hand) or self.decision is None or self.decision.pick is None:
            return
        self.message = ""
        pos = hand[index][0]
        if pos in self.picked:
            self.picked.remove(pos)
            return
        hi = self.decision.pick[1]
        if len(self.picked) >= hi:  # refuse, and say why: a mark never silently drops another
            self.message = self.text("pick_full", n=hi)
            return
        self.picked.append(pos)

    def do_swap(self) -> None:
        """x: the play decision's other choice (:attr:`swap`), when there is one."""
        if self.mode == PLAY and self.swap is not None:
            self._submit(self.swap)

    def sit_out(self) -> None:
        """n: decline the pick (e.g. sit the deal out), when the game lets the person."""
        if self.overlay == "quit":
            self.popup = None
            return
        if self.picking and self.decision is not None and self.decision.may_decline:
            self._submit(None)

    def key(self, name: str) -> None:
        """The letter keys: l last trick, s scores, ? help, q leave (asks), y yes (also s, "sim",
        in Portuguese), + and - pace."""
        if name == "q":
            if self.overlay in ("final", "error"):
                self.on_exit()
            elif self.popup == "quit":
                self.popup = None
            else:
                self.popup = "quit"
        elif self.popup == "quit" and name in YES_KEYS.get(self.text.lang, "y"):
            self.on_exit()
        elif name == "y":
            pass
        elif name in ("l", "s", "?"):
            wanted = {"l": "last", "s": "scores", "?": "help"}[name]
            self.popup = None if self.popup == wanted else wanted
        elif name == "+":
            self.speed = round(min(self.speed + 0.2, 5.0), 1)
        elif name == "-":
            self.speed = round(max(self.speed - 0.2, 0.0), 1)

    def hint(self) -> None:
        """h: ask the computer what it would choose now (the runtime computes it from the
        person's view: ``on_hint``; the answer comes back through ``show_hint``).  Nothing
        while a window is open or a hint is being computed; at a table whose host forbids
        hints, or when the person has nothing to decide, say so."""
        if self.overlay is not None or self.hint_busy:
            return
        t = self.text
        if not self.hints_allowed:
            self.message = t("hint_off")
            return
        if self.decision is None:
            self.message = t("hint_not_now")
            return
        self.hint_busy = True
        self.hint_line = t("hint_thinking")
        self.on_hint()

    def finish(self) -> None:
        """f: when the table offers it (the rest of the deal is forced), play the rest at
        once: the person's forced cards go as soon as they are asked for (``on_finish``),
        the one asked now at once."""
        if self.overlay is not None or not self.finish_offered or self.finishing:
            return
        self.finishing = True
        self.on_finish()
        if self.decision is not None and self.decision.pick is None and len(self.legal) == 1:
            self._submit(self.legal[0])

    def escape(self) -> None:
        """Esc closes a popup (and answers no to leaving)."""
        if self.popup is not None:
            self.popup = None

    def _dismiss(self, continue_keys: bool) -> bool:
        """Enter or Space on a window: close it (a summary lets the table go on)."""
        if self.popup is not None:
            if self.popup != "quit":
                self.popup = None
            return True
        if not self.modal:
            return False
        top = self.modal[0]
        if top in ("final", "error"):
            self.on_exit()
            return True
        self.modal.pop(0)
        if top == "summary":
            self.on_continue()
        return True

    def interrupt(self) -> None:
        """Ctrl-C: leave at once, interrupted (the command then exits 130, not 0)."""
        self.interrupted = True
        self.on_exit()

