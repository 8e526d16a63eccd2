"""The person's seat in line mode: an asynchronous player that tells the person what their
replica learns and reads their answers as lines (the screen's keys ``h l s ?`` included)."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Protocol, TextIO

import trio

from p2pcards.core import PLAY, DealState, Decision, GameSpec, Legal, Plain, SeatView, pretty
from p2pcards.history.db import Recorder
from p2pcards.players.hints import HINT_MS, Hint, frozen_view, suggest
from p2pcards.table.table import Table
from p2pcards.textplay.narration import Told, narrate
from p2pcards.textplay.words import ME, Words, sort_key
from p2pcards.tui.model import TableModel
from p2pcards.tui.snapshot import snapshot_of

__all__ = ["LineSeat", "Quit", "SeatTable"]

#: Words that leave the table, in any language.
QUIT_WORDS = ("q", "quit", "sair")
#: Words that ask something of the table rather than answer: the screen's keys.
ASK_WORDS = ("h", "l", "s", "?")


class Quit(Exception):
    """The person asked to leave (q; ``on_purpose``) or the input ended (not on purpose)."""

    def __init__(self, on_purpose: bool) -> None:
        super().__init__("left" if on_purpose else "end of input")
        self.on_purpose = on_purpose


class SeatTable(Protocol):
    """What the person's seat needs of its table (:class:`~p2pcards.textplay.TextTable`)."""

    model: TableModel
    history: Recorder
    data_dir: Path | None
    table_id: bytes

    def leave(self, on_purpose: bool) -> None: ...


class LineSeat:
    """The person's seat in line mode: an asynchronous player (as the screen's
    :class:`~p2pcards.tui.runtime.PersonPlayer`) whose answers are lines read from
    ``inp``, and who tells ``out`` what the person's replica learns (:meth:`observe`)."""

    def __init__(self, inp: TextIO, out: TextIO, spec: GameSpec, words: Words, table: SeatTable) -> None:
        self.inp, self.out, self.spec, self.w = inp, out, spec, words
        self.table = table
        #: the deal being told (its rank order sorts the hand; it words the decisions)
        self.deal: DealState | None = None
        self.told = Told()
        #: taken up again from its files: the first lines say so
        self.resumed = False
        #: the deal number of the decision asked last, and which of the person's decisions
        #: in it that was (from 0): where a hint is recorded in the history
        self.deal_no = -1
        self.at = -1
        #: the hint given for the pending decision (recorded as followed or not once decided)
        self.hinted: Hint | None = None

    @property
    def strength(self) -> Mapping[str, int]:
        return self.deal.strength if self.deal is not None else {}

    # ------------------------------------------------------------------ what the table learns
    def observe(self, table: Table) -> None:
        """Called by the node after every change of the person's replica: the screen's model
        follows it (for ``l``, ``s`` and hints), and whatever happened is told."""
        model = self.table.model
        model.hints_allowed = bool(getattr(getattr(table, "genesis", None), "hints", True))
        model.update(snapshot_of(table))
        if self.resumed:  # said once, before what the replica rebuilt from its log
            self.resumed = False
            title = self.spec.text(self.w.t.lang, "title")
            self.say(self.w("lobby_resumed", table=self.table.table_id.hex()[:8], game=title, deals=table.deals_done))
        game = table.game
        if game is None:
            return
        if game is not self.deal:
            self.deal = game
            self.told = Told()
            self.say("\n" + self.w.about("text_deal", game.dealer, n=table.deal_no + 1))
        view = table.view()
        if view is not None:
            narrate(self.w, self.say, game, view, self.told)

    def finish_deal(self) -> None:
        """The deal closed: tell what is left of it (its last plays) before its summary."""
        if self.deal is not None:
            narrate(self.w, self.say, self.deal, SeatView(self.deal, ME, ()), self.told)

    # ------------------------------------------------------------------ the person decides
    async def achoose(self, view: SeatView, decision: Decision) -> Plain:
        """Show the hand, ask, and read answers until one is a legal choice; ``q`` or the
        end of the input leaves the table (it is kept) instead of answering."""
        deal_no = self.table.model.snap.deal
        self.at = self.at + 1 if deal_no == self.deal_no else 0
        self.deal_no = deal_no
        self.hinted = None
        try:
            hand = self.show(view)
            while True:
                try:
                    choice = await self._choose(view, decision, hand, view.legal)
                except ValueError as exc:
                    self.say(f"  {exc}")
                    continue
                self._record_followed(choice)
                return choice
        except Quit as left:
            self.table.leave(left.on_purpose)
            await trio.sleep_forever()
            raise AssertionError("unreachable") from None

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        """The plain Player interface: never used, the node awaits :meth:`achoose`."""
        raise RuntimeError("the person's seat decides on its lines (achoose)")

    def label(self, choice: Plain) -> str:
        """A choice that is not a card, in the game's words (as it is when it has none)."""
        line = self.deal.choice_line(ME, choice) if self.deal is not None else None
        return self.w.game(line) if line is not None else str(choice)

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    async def ask(self, prompt: str, view: SeatView, decision: Decision) -> str:
        """The person's answer to ``prompt``; the screen's keys (``h l s ?``) are answered
        and the question asked again; ``q`` or the end of the input raises :class:`Quit`."""
        while True:
            self.out.write(prompt + ": ")
            self.out.flush()
            line = await trio.to_thread.run_sync(self.inp.readline, abandon_on_cancel=True)
            said = line.strip().lower()
            if not line or said in QUIT_WORDS:
                if not line:
                    self.say()
                raise Quit(on_purpose=bool(line))
            if said in ASK_WORDS:
                await self.answer(said, view, decision)
                continue
            return line.strip()

    async def answer(self, key: str, view: SeatView, decision: Decision) -> None:
        """``h``, ``l``, ``s`` or ``?``: the screen's window for it, as lines."""
        model = self.table.model
        t = model.text
        if key == "h":
            await self.hint(view, decision)
            return
        windows: dict[str, tuple[str, Callable[[], list[str]]]] = {
            "l": (t("last_trick"), model.last_trick_lines),
            "s": (t("scores"), functools.partial(model.score_lines, pace=False)),
            "?": (t("help_title"), self.help_lines)}
        title, lines = windows[key]
        self.say(f"  {title}:")
        for line in lines():
            self.say(f"    {line}" if line else "")

    def help_lines(self) -> list[str]:
        rows = [line.split("\t", 1) for line in self.w("text_help").split("\n")]
        width = max(len(r[0]) for r in rows if len(r) == 2)
        return [f"{r[0]:<{width}}  {r[1]}" if len(r) == 2 else r[0] for r in rows]

    async def hint(self, view: SeatView, decision: Decision) -> None:
        """What the searching computer player would choose in the person's place, from
        what the person can see, with its reason (recorded in the history)."""
        model = self.table.model
        t = model.text
        if not model.hints_allowed:
            self.say("  " + t("hint_off"))
            return
        self.say("  " + t("hint_thinking"))
        try:
            hint = await trio.to_thread.run_sync(
                functools.partial(suggest, self.spec, frozen_view(view), decision, think_ms=HINT_MS))
        except Exception:  # noqa: BLE001 -- a hint never takes the table down
            self.say("  " + t("hint_none"))
            return
        self.say("  " + model.hint_text(hint))
        self.hinted = hint
        self.table.history.record_hint(self.table.data_dir, self.table.table_id, ME, self.deal_no, self.at,
                                       hint.code)

    def _record_followed(self, choice: Plain) -> None:
        hint, self.hinted = self.hinted, None
        if hint is not None:
            self.table.history.record_hint(self.table.data_dir, self.table.table_id, ME, self.deal_no, self.at,
                                           hint.code, choice == hint.choice)

    def show(self, view: SeatView) -> list[tuple[int, str]]:
        w = self.w
        hand = sorted(((p, c) for p, c in view.hand if c is not None), key=lambda pc: sort_key(pc[1], self.strength))
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

    async def _choose(self, view: SeatView, decision: Decision, hand: list[tuple[int, str]],
                      legal: list[Legal]) -> Plain:
        w = self.w
        if decision.kind != PLAY and self.deal is not None:  # the game says what this decision is
            for line in self.deal.decision_lines(ME):
                self.say(w.game(line, k=0))
        if decision.kind != PLAY and decision.pick is None:
            return await self._pick_choice(view, decision, legal)
        if decision.kind == PLAY:
            extras = [c for c in legal if not isinstance(c, int)]
            ok = [i + 1 for i, (p, _) in enumerate(hand) if p in legal]
            hint = w("text_play", numbers=", ".join(map(str, ok)))
            if extras:
                hint += w("text_play_extra", choice=self.label(extras[0]))
            text = await self.ask(hint, view, decision)
            if extras and text.lower() == "x":
                return extras[0]
            n = self._numbers(text, hand, 1, 1)[0]
            if hand[n][0] not in legal:
                raise ValueError(self.refused(*hand[n]))
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
        text = await self.ask(prompt, view, decision)
        if decision.may_decline and text.lower() == "n":
            return None
        picked = self._numbers(text, hand, lo, hi) if text else []
        if len(picked) < lo:
            raise ValueError(w.count("text_err_at_least", lo))
        return tuple(hand[i][0] for i in picked)

    def refused(self, pos: int, card: str) -> str:
        """Why the card at ``pos`` may not be played now: the game's rule in its words when
        it gives one (:meth:`~p2pcards.core.deal.DealState.refusal`), else only that it is
        not allowed."""
        w = self.w
        line = self.deal.refusal(ME, pos) if self.deal is not None else None
        if line is not None and w.game_word(line.key, ""):
            return w("text_err_not_allowed_why", card=pretty(card), why=w.game(line))
        return w("text_err_not_allowed", card=pretty(card))

    async def _pick_choice(self, view: SeatView, decision: Decision, legal: list[Legal]) -> Legal:
        """One of a list of choices (a trump suit...), by its number, its value or its
        label in the game's words (the words alone, without symbols or notes, will do)."""
        w = self.w
        labels = [self.label(c) for c in legal]
        title = w.game_word(f"decision.{decision.kind}.title", w("text_choose"))
        text = await self.ask(w("text_choices", title=title,
                                choices="  ".join(f"{i + 1}) {label}" for i, label in enumerate(labels))),
                              view, decision)
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
