"""``p2pcards replay LOG``: a finished or interrupted match stepped through on the full-screen table.

The transcript is taken apart by :func:`p2pcards.history.replay.follow_log` (every deal as
a list of steps, every hand known where the audit opened the deck); :class:`ReplayModel`
shows one step at a time on the table screen of a live game (:mod:`p2pcards.tui.layout`),
seen from one seat (its cards at the bottom, ``s`` turns to the next seat), with the other
hands face up once they are known.  Keys:

* ``→``/``←`` the next/previous trick (a deal's stops: as dealt, each trick taken, the
  deal's result); ``.``/``,`` one decision at a time;
* ``Home``/``End`` the deal's first/last step; ``PgDn``/``PgUp`` the next/previous deal;
* ``d`` the list of deals (their verdicts and scores; Enter goes to one); ``c`` the chart
  of the match's points per deal; ``s`` the next seat at the bottom; ``?`` the keys;
  ``q`` or ``Esc`` leaves (``Esc`` first closes a window).

The seat panels say who ran each seat: a person (with their key's fingerprint) or a
computer player of a level, and on whose machine it ran.  Nothing is asked of anybody and
nothing is sent: a replay only reads the log.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output

from p2pcards.core import PLAY, GameRegistry, pretty
from p2pcards.history.charts import points_chart
from p2pcards.history.replay import DealSteps, MatchSteps, follow_log
from p2pcards.tui.app import INTERRUPTED, build_app
from p2pcards.tui.cards import card_label
from p2pcards.tui.model import SeatPanel, TableModel
from p2pcards.tui.snapshot import GameInfo, SeatLabel, Snapshot, replay_snapshot
from p2pcards.words import Text

__all__ = ["FINAL", "SUMMARY", "ReplayModel", "build_replay_app", "replay_match", "run_replay",
           "seat_of_log"]


_T = TypeVar("_T")

#: Frames that are not a step of a deal: a deal's result, the match's end.
SUMMARY = -1
FINAL = -2


class ReplayModel(TableModel):
    """The table screen showing ``match`` step by step from ``seat`` (module docstring)."""

    def __init__(self, match: MatchSteps, text: Text, *, seat: int = 0, here: str | None = None) -> None:
        spec = match.spec
        labels = [SeatLabel(i, s.name, s.bot, s.runs_on, s.fingerprint) for i, s in enumerate(match.seats)]
        super().__init__(GameInfo.of(spec, match.genesis.options), labels, seat % spec.seats, text, here=here)
        self.match = match
        self.fingerprints = [s.fingerprint for s in match.seats]
        #: every place the replay can stand: (index in ``match.deals``, step index, or
        #: SUMMARY for the deal's result, FINAL for the match's end)
        self.frames: list[tuple[int, int]] = []
        for i, deal in enumerate(match.deals):
            self.frames += [(i, k) for k in range(len(deal.steps))]
            if deal.event is not None:
                self.frames.append((i, SUMMARY))
        if match.final is not None:
            self.frames.append((len(match.deals) - 1, FINAL))
        self.at = 0
        #: the deal list's cursor while it is open
        self.deal_cursor = 0
        self.show()

    # ------------------------------------------------------------------ where we are
    @property
    def frame(self) -> tuple[int, int] | None:
        return self.frames[self.at] if self.frames else None

    @property
    def deal(self) -> DealSteps | None:
        frame = self.frame
        return self.match.deals[frame[0]] if frame is not None and frame[0] >= 0 else None

    def _snapshot(self, deal: DealSteps, index: int) -> Snapshot:
        step = deal.steps[index]
        return replay_snapshot(step.state, self.me, deal=deal.deal, totals=deal.totals_before,
                               open_hands=deal.opened)

    def show(self) -> None:
        """Put the current frame on the screen."""
        frame = self.frame
        self.modal = []
        self.summary = None
        self.final = None
        self.finished = False
        if frame is None:
            self.history = []
            self.update(Snapshot(stage="setup"))
            return
        i, k = frame
        if i < 0:  # the table ended before any deal was dealt (e.g. abandoned while it waited)
            self.history = []
            self.final = self.match.final
            self.finished = True
            self.modal = ["final"]
            self.update(Snapshot(stage="over"))
            return
        deal = self.match.deals[i]
        done = self.match.deals[:i] if k >= 0 else self.match.deals[: i + 1]
        self.history = [d.event for d in done if d.event is not None]
        if k >= 0:
            snap = self._snapshot(deal, k)
        else:
            snap = self._snapshot(deal, len(deal.steps) - 1) if deal.steps else Snapshot(deal=deal.deal, stage="over")
            if k == SUMMARY:
                self.summary = deal.event
                self.modal = ["summary"]
            else:
                self.final = self.match.final
                self.finished = True
                self.modal = ["final"]
            snap = replace(snap, totals=tuple((deal.event or {}).get("totals", snap.totals)))
        self.update(snap)

    def go(self, at: int) -> None:
        """Stand at frame ``at`` (clamped to the match)."""
        if self.frames:
            self.at = max(0, min(at, len(self.frames) - 1))
        self.show()

    def _stop(self, at: int) -> bool:
        """Whether frame ``at`` is a stop of ``→``/``←``: a deal as dealt, a trick taken, a
        deal's last step, its result, the match's end."""
        i, k = self.frames[at]
        if k < 0 or k == 0:
            return True
        deal = self.match.deals[i]
        return deal.steps[k].trick_end or k == len(deal.steps) - 1

    def next_trick(self) -> None:
        later = [a for a in range(self.at + 1, len(self.frames)) if self._stop(a)]
        self.go(later[0] if later else len(self.frames) - 1)

    def previous_trick(self) -> None:
        earlier = [a for a in range(self.at - 1, -1, -1) if self._stop(a)]
        self.go(earlier[0] if earlier else 0)

    def next_step(self) -> None:
        self.go(self.at + 1)

    def previous_step(self) -> None:
        self.go(self.at - 1)

    def _deal_frames(self, i: int) -> list[int]:
        return [a for a, (d, _) in enumerate(self.frames) if d == i]

    def first_of_deal(self) -> None:
        frame = self.frame
        if frame is not None:
            self.go(self._deal_frames(frame[0])[0])

    def last_of_deal(self) -> None:
        frame = self.frame
        ends = [a for a in self._deal_frames(frame[0]) if self.frames[a][1] != FINAL] if frame is not None else []
        if ends:
            self.go(ends[-1])

    def to_deal(self, i: int) -> None:
        """The first step of the deal at index ``i`` of the match (clamped)."""
        if not self.match.deals:
            return
        i = max(0, min(i, len(self.match.deals) - 1))
        frames = self._deal_frames(i)
        if frames:
            self.go(frames[0])

    def next_deal(self) -> None:
        frame = self.frame
        if frame is not None:
            self.to_deal(frame[0] + 1)

    def previous_deal(self) -> None:
        frame = self.frame
        if frame is None:
            return
        first = self._deal_frames(frame[0])[0]
        self.to_deal(frame[0] if self.at != first else frame[0] - 1)

    def turn(self) -> None:
        """The next seat at the bottom of the table."""
        self.me = (self.me + 1) % self.game.seats
        self.show()

    # ------------------------------------------------------------------ windows
    def open(self, which: str) -> None:
        """Open the ``help``, ``deals`` or ``charts`` window (again: close it)."""
        if self.popup == which:
            self.popup = None
        else:
            self.popup = which
            frame = self.frame
            self.deal_cursor = frame[0] if frame is not None and frame[0] >= 0 else 0
        self._changed()

    def close(self) -> bool:
        """Close the window on top; False when there was none."""
        if self.popup is None:
            return False
        self.popup = None
        self._changed()
        return True

    def move_cursor(self, step: int) -> None:
        if self.popup == "deals" and self.match.deals:
            self.deal_cursor = max(0, min(self.deal_cursor + step, len(self.match.deals) - 1))
            self._changed()

    def choose(self) -> None:
        """Enter: in the deal list, go to the deal under the cursor; elsewhere the next trick
        (a deal's result says Enter goes on, as it does at a table)."""
        if self.popup == "deals":
            self.popup = None
            self.to_deal(self.deal_cursor)
        elif self.popup is None:
            self.next_trick()

    def extra_title(self, kind: str | None) -> str:
        return {"deals": self.text("replay_deals_title"), "charts": self.text("replay_chart_title")}.get(kind or "", "")

    def extra_window(self, kind: str | None) -> tuple[list[str], str] | None:
        t = self.text
        if kind == "deals":
            lines = []
            for i, deal in enumerate(self.match.deals):
                mark = "▸" if i == self.deal_cursor else " "
                lines.append(f"{mark} {self.deal_line(deal)}")
            return lines or [t("replay_no_deal")], t("replay_deals_keys")
        if kind == "charts":
            return self.chart_lines(), t("replay_close_keys")
        return None

    def deal_line(self, deal: DealSteps) -> str:
        """A deal in the deal list: its number, verdict, what each side made, the totals."""
        t = self.text
        head = t("deal", n=deal.deal + 1)
        head = head[:1].upper() + head[1:]
        if deal.event is None:
            return f"{head}  … {t('replay_unfinished')}"
        audit = deal.event["audit"]
        mark = {"clean": "✓", "renuncia": "R", "vote-out": "✗", "fault": "✗"}.get(audit["verdict"], "·")
        made = "–".join("·" if m is None else f"{m:g}" for m in deal.measures)
        totals = "–".join(str(x) for x in deal.event.get("totals", []))
        return f"{head}  {mark}  {made or '·'}  ({t('match').lower()} {totals})"

    def chart_lines(self) -> list[str]:
        """The match's points per deal, a bar chart per side (what each deal made, in the
        game's measure: card points, penalty points...)."""
        closed = [d for d in self.match.deals if d.event is not None]
        if not closed:
            return [self.text("replay_no_deal")]
        labels = [label for label, _ in self.sides()]
        series = [[d.measures[s] if s < len(d.measures) else None for d in closed] for s in range(len(labels))]
        lines = points_chart(labels, series)
        wide = len(self.text("replay_chart_title")) + 4  # not narrower than the window's title
        return [line.ljust(wide) for line in lines]

    # ------------------------------------------------------------------ words
    def name(self, seat: int | None) -> str:
        """The seat's name (a replay has no "you": the seat at the bottom is just a seat)."""
        if seat is None or not 0 <= seat < len(self.seats):
            return "?"
        return self.seats[seat].name

    def who(self, seat: int | None) -> str:
        return self.name(seat)

    @property
    def person(self) -> int | None:
        """Nobody: every sentence names its seat."""
        return None

    def _nobody_is_me(self, fn: Callable[[], _T]) -> _T:
        me = self.me
        self.me = -1
        try:
            return fn()
        finally:
            self.me = me

    def sides(self) -> list[tuple[str, tuple[int, ...]]]:
        if self.game.teams:
            return [(" & ".join(self.name(s) for s in team), tuple(team)) for team in self.game.teams]
        return [(self.name(s), (s,)) for s in range(self.game.seats)]

    def verdict_line(self, audit: Mapping[str, object]) -> str:
        return self._nobody_is_me(functools.partial(super().verdict_line, audit))

    def final_lines(self) -> list[str]:
        return self._nobody_is_me(super().final_lines)

    def seat_panel(self, seat: int) -> SeatPanel:
        panel = super().seat_panel(seat)
        label = self.seats[seat]
        t = self.text
        marker, runs = panel.marker, panel.runs
        if seat == self.me or not label.bot:
            marker = t("bot", level=self.level(label.bot)) if label.bot else t("person")
        if not label.bot:
            runs = t("replay_key", fp="-".join(self.fingerprints[seat].split("-")[:2]))
        elif seat == self.me and label.runs_on:
            runs = t("runs_here") if label.runs_on == self.here else t(
                "runs_on", fp="-".join(label.runs_on.split("-")[:2]))
        return replace(panel, marker=marker, runs=runs)

    def happened(self) -> str:
        """What the step shown did: who played or chose what; how the deal stands."""
        frame = self.frame
        deal = self.deal
        if frame is None or deal is None:
            return ""
        t = self.text
        k = frame[1]
        if k == 0:
            dealer = deal.steps[0].state.dealer
            return t("replay_dealt", name=self.name(dealer))
        if k < 0:
            return ""
        step = deal.steps[k]
        seat = step.seat
        if step.kind == PLAY and isinstance(step.choice, int):
            card = step.state.deck.cards[step.choice]
            return t("replay_played", name=self.name(seat), card=card_label(card) if card else "?")
        before = deal.steps[k - 1].state
        what = self.game.word(t.lang, f"decision.{step.kind}.title", str(step.kind))
        line = before.choice_line(seat, step.choice) if seat is not None else None
        if line is not None:
            choice = self.say(line)
        elif isinstance(step.choice, list) and all(isinstance(p, int) for p in step.choice):
            cards = [before.deck.cards[p] for p in step.choice]
            choice = " ".join(card_label(c) if c else "?" for c in cards) if deal.opened else t(
                "replay_n_cards", n=len(cards))
        else:
            choice = pretty(str(step.choice)) if isinstance(step.choice, str) else str(step.choice)
        return t("replay_chose", name=self.name(seat), what=what, choice=choice)

    def status(self) -> str:
        t = self.text
        frame = self.frame
        deal = self.deal
        if frame is None or deal is None:
            return t("replay_empty")
        i, k = frame
        parts = [t("replay_where", deal=deal.deal + 1, deals=len(self.match.deals),
                   step=max(k, 0) if k >= 0 else len(deal.steps) - 1, steps=len(deal.steps) - 1)]
        said = self.happened()
        if said:
            parts.append(said)
        if k == FINAL:
            parts.append(t("table_over"))
        return " · ".join(parts)

    def notices(self) -> list[str]:
        t = self.text
        out = []
        deal = self.deal
        frame = self.frame
        last = frame is None or frame == self.frames[-1]
        if deal is not None and not deal.opened:
            out.append(t("replay_hidden"))
        if last and self.match.error is not None:
            e = self.match.error
            who = "" if e.get("seat") is None else f" ({self.name(e['seat'])})"
            out.append(t("replay_breaks", seq=e["seq"], who=who, reason=e["reason"]))
        elif last and self.match.final is None:
            out.append(t("replay_stops"))
        return out[:2]

    def score_lines(self, pace: bool = False) -> list[str]:
        """The score panel without the computer players' pace (a replay has none)."""
        return super().score_lines(pace=False)

    def prompt(self) -> str:
        return self.text("replay_prompt")

    def help_lines(self) -> list[str]:
        rows = [line.split("\t", 1) for line in self.text("replay_help").split("\n")]
        width = max(len(r[0]) for r in rows if len(r) == 2)
        return [f"{r[0]:<{width}}  {r[1]}" if len(r) == 2 else r[0] for r in rows]


def create_replay_key_bindings(model: ReplayModel) -> KeyBindings:
    """The replay's keys (module docstring), bound to ``model``."""
    kb = KeyBindings()

    def bind(keys: tuple[str, ...], action: Callable[[], None], *, eager: bool = False) -> None:
        for key in keys:
            @kb.add(key, eager=eager)
            def _(event: KeyPressEvent) -> None:
                action()

    def in_list(up: int, otherwise: Callable[[], None]) -> Callable[[], None]:
        def act() -> None:
            if model.popup == "deals":
                model.move_cursor(up)
            else:
                otherwise()
        return act

    bind(("right",), in_list(1, model.next_trick))
    bind(("left",), in_list(-1, model.previous_trick))
    bind(("down",), in_list(1, model.next_trick))
    bind(("up",), in_list(-1, model.previous_trick))
    bind((".", ">"), model.next_step)
    bind((",", "<"), model.previous_step)
    bind(("home",), model.first_of_deal)
    bind(("end",), model.last_of_deal)
    bind(("pagedown",), model.next_deal)
    bind(("pageup",), model.previous_deal)
    bind(("enter", "space"), model.choose)
    bind(("d",), lambda: model.open("deals"))
    bind(("c",), lambda: model.open("charts"))
    bind(("?", "h"), lambda: model.open("help"))
    bind(("s",), model.turn)

    def leave() -> None:
        model.on_exit()

    def interrupt() -> None:
        model.interrupted = True
        model.on_exit()

    def escape() -> None:
        if not model.close():
            leave()

    bind(("q",), leave)
    bind(("c-c",), interrupt)
    bind(("escape",), escape, eager=True)
    return kb


def build_replay_app(model: ReplayModel, *, input: Input | None = None,
                     output: Output | None = None) -> Application[None]:
    """The full-screen replay of ``model``: the table screen with the replay's keys; exits on ``q``."""
    return build_app(model, input=input, output=output, key_bindings=create_replay_key_bindings(model), mouse=False)


def run_replay(path: Path, *, lang: str, seat: int | None = None, registry: GameRegistry | None = None,
               here: str | None = None, input: Input | None = None, output: Output | None = None) -> int:
    """Replay the transcript log at ``path`` on the full-screen table until the person
    leaves (exit status 0; 130 when interrupted with Ctrl-C).  ``seat`` is the seat at the
    bottom (None: the seat whose log it is when the file is named ``seatN.log``, else the
    first).  Raises
    :class:`~p2pcards.history.HistoryError` for a file that is not a transcript or a game
    not installed here.  A replay reads the log and writes nothing."""
    match = follow_log(path, registry)
    return replay_match(match, lang=lang, seat=seat_of_log(Path(path)) if seat is None else seat, here=here,
                        input=input, output=output)


def replay_match(match: MatchSteps, *, lang: str, seat: int | None = None, here: str | None = None,
                 input: Input | None = None, output: Output | None = None) -> int:
    """Replay ``match`` (already followed) on the full-screen table; ``seat`` at the bottom
    (None or out of range: the first)."""
    bottom = seat if seat is not None and 0 <= seat < match.spec.seats else 0
    model = ReplayModel(match, Text(lang), seat=bottom, here=here)
    build_replay_app(model, input=input, output=output).run()
    return INTERRUPTED if model.interrupted else 0


def seat_of_log(path: Path) -> int | None:
    """The seat a log file is of, from its name (``seatN.log``), else None."""
    name = path.name
    if name.startswith("seat") and name.endswith(".log") and name[4:-4].isdigit():
        return int(name[4:-4])
    return None
