"""What the windows on top of the table screen say, mixed into
:class:`~p2pcards.tui.model.TableModel`: the score panel, the deal's summary and the
audit's verdict, the match's end, the last trick, the help and the decision dialog.  Plain
data from the model's state, in the table's words and the game's; no terminal, no trio.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from p2pcards.core import PLAY, Card, Decision, Legal, Line, Plain
from p2pcards.tui.cards import card_label
from p2pcards.tui.fields import mapping, number, numbers
from p2pcards.tui.snapshot import GameInfo, Snapshot
from p2pcards.words import Text, summary_text

__all__ = ["TableWindows"]


def _history_line(ev: Mapping[str, object]) -> str:
    """A closed deal in the score panel's history: its number, the totals after it, a mark
    for its verdict."""
    verdict = mapping(ev["audit"]).get("verdict")
    mark = {"clean": "✓", "renuncia": "R", "fault": "✗"}.get(verdict, "?") if isinstance(verdict, str) else "?"
    deal = number(ev["deal"])
    return f" {'?' if deal is None else deal + 1}: {'–'.join(str(x) for x in numbers(ev['totals']))} {mark}"


class TableWindows:
    """The windows' words, mixed into :class:`~p2pcards.tui.model.TableModel`, which holds
    the state below and answers the questions after it."""

    # the screen's state the windows read (set by the model)
    game: GameInfo
    me: int
    snap: Snapshot
    text: Text
    speed: float
    decision: Decision | None
    legal: list[Legal]
    picked: list[int]
    choice_cursor: int
    message: str
    hint_line: str
    #: the ``deal`` event shown, the ``final`` one, the deals' events so far (JSON-ready
    #: mappings: :meth:`~p2pcards.table.events.TableEvent.to_json`)
    summary: Mapping[str, object] | None
    final: Mapping[str, object] | None
    history: list[Mapping[str, object]]
    log_path: str | None

    # what the windows ask of the model (its answers)
    @property
    def mode(self) -> str | None:
        raise NotImplementedError

    def name(self, seat: int | None) -> str:
        raise NotImplementedError

    def who(self, seat: int | None) -> str:
        raise NotImplementedError

    def seat_name(self, seat: int, first: bool) -> str:
        raise NotImplementedError

    @property
    def person(self) -> int | None:
        raise NotImplementedError

    def about(self, key: str, seat: int | None, **fields: object) -> str:
        raise NotImplementedError

    def won_by(self, seat: int) -> str:
        raise NotImplementedError

    def say(self, line: Line, **extra: object) -> str:
        raise NotImplementedError

    def card_keys(self) -> str:
        raise NotImplementedError

    def choice_label(self, choice: Plain) -> str:
        raise NotImplementedError

    def choice_options(self) -> list[tuple[Legal, str, bool, bool]]:
        raise NotImplementedError

    # ------------------------------------------------------------------ sides and scores
    def sides(self) -> list[tuple[str, tuple[int, ...]]]:
        """The scoring sides (teams or players) with their names, in the order of ``totals``."""
        t = self.text
        if self.game.teams:
            out = []
            for team in self.game.teams:
                names = " & ".join(self.name(s) for s in team)
                label = t("us") if self.me in team else t("them")
                out.append((f"{label} ({names})", tuple(team)))
            return out
        return [(self.name(s), (s,)) for s in range(self.game.seats)]

    def score_lines(self, pace: bool = True) -> list[str]:
        """The score panel: this deal so far, then the match (then, with ``pace``, the
        computer players' pace)."""
        t = self.text
        snap = self.snap
        lines = [t("this_deal")]
        counts = self.game.counts
        for label, seats in self.sides():
            short = label.split(" (")[0]
            if not snap.in_deal:
                break
            pts = sum(snap.points_won[s] for s in seats if s < len(snap.points_won))
            tricks = sum(snap.tricks_won[s] for s in seats if s < len(snap.tricks_won))
            if "points" in counts and "tricks" in counts:
                lines.append(f" {short}: {pts} {t('pts')}, {t.plural('n_tricks', tricks)}")
            elif "points" in counts:
                lines.append(f" {short}: {t.plural('n_points', pts)}")
            else:
                lines.append(f" {short}: {t.plural('n_tricks', tricks)}")
        lines.append("")
        lines.append(f"{t('match')} · {self.match_rule()}")
        totals = snap.totals or self._last_totals()
        for (label, _), total in zip(self.sides(), totals):
            lines.append(f" {label.split(' (')[0]}: {total}")
        if self.history:
            lines.append("")
            lines.append(t("history"))
            lines += [_history_line(ev) for ev in self.history[-4:]]
        if pace:
            lines.append("")
            lines.append(t("speed", s=self.speed))
        return lines

    def _last_totals(self) -> list[int]:
        return numbers(self.history[-1]["totals"]) if self.history else []

    def match_rule(self) -> str:
        """How the match is won, in a few words: the game's ``match_rule`` words, filled
        with the table's options (else what the totals count)."""
        lang = self.text.lang
        totals = self.game.word(lang, "totals", self.text("points"))
        rule = self.game.word(lang, "match_rule", totals)
        try:
            return rule.format(**self.game.options)
        except (KeyError, IndexError, ValueError):
            return rule

    def side_name(self, side: int) -> str:
        """A scoring side (a team, or a seat) by its label."""
        sides = self.sides()
        return sides[side][0] if 0 <= side < len(sides) else "?"

    def summary_title(self) -> str:
        """The deal summary's title: the deal it closes, counted from 1."""
        deal = None if self.summary is None else number(self.summary["deal"])
        return self.text("summary_title", n="?" if deal is None else deal + 1)

    def summary_lines(self) -> list[str]:
        """The deal's summary: result per side, the audit's verdict, the match score."""
        ev = self.summary
        if ev is None:
            return []
        t = self.text
        lines: list[str] = []
        res = ev.get("result")
        spec = self.game.spec
        if res is None:
            lines.append(t("void"))
        elif spec is not None:
            lines += summary_text(spec, t.lang, spec.deal_summary(mapping(res)), self.side_name, self.seat_name,
                                  me=self.person)
        lines.append("")
        lines.append(self.verdict_line(mapping(ev["audit"])))
        lines.append(t("totals", totals=self.totals_text(numbers(ev.get("totals", [])))))
        return lines

    def verdict_line(self, audit: Mapping[str, object]) -> str:
        t = self.text
        verdict = audit.get("verdict")
        seat = number(audit.get("seat"))
        kind = audit.get("kind") or verdict or ""
        # the kind in the table's language; the reason itself (wire numbering, English) is
        # for `p2pcards audit` and the log -- shown only for a kind this screen does not know
        reason = t(f"why_{kind}") if f"why_{kind}" in t else (audit.get("reason") or kind)
        if verdict == "clean":
            return "✓ " + t("verified")
        if verdict == "renuncia":
            return "✗ " + self.about("renuncia", seat, reason=reason)
        if verdict == "vote-out":
            return "✗ " + (t("vote_out_you") if seat == self.me else t("vote_out", name=self.name(seat)))
        if seat is None:
            return "✗ " + t("fault_unknown", reason=reason)
        if seat == self.me:
            return "✗ " + t("fault_you", reason=reason)
        return "✗ " + t("fault", name=self.name(seat), reason=reason)

    def totals_text(self, totals: Sequence[int]) -> str:
        return " · ".join(f"{label.split(' (')[0]} {v}" for (label, _), v in zip(self.sides(), totals))

    def final_lines(self) -> list[str]:
        """The end of the match: the winner and the tally per the game's scoring."""
        ev = self.final
        if ev is None:
            return []
        t = self.text
        winner = number(ev.get("winner"))
        totals = numbers(ev.get("totals", []))
        sides = self.sides()
        lines: list[str] = []
        if winner is None:
            lines.append(t("no_winner", n=ev.get("deals", len(self.history))))
        elif self.game.teams:
            team = sides[winner][1]
            lines.append(t("winners_you") if self.me in team else t("winner_team", name=sides[winner][0]))
        else:
            lines.append(t("winner_you") if winner == self.me else t("winner_player", name=self.name(winner)))
        lines.append("")
        lines.append(f"{t('tally')} ({self.match_rule()})")
        spec = self.game.spec
        if spec is not None and len(totals) == len(sides):
            summary = spec.match_summary(totals, winner, self.game.options)
            said = summary_text(spec, t.lang, summary, self.side_name, self.seat_name, me=self.person)
            lines += ["  " + x for x in said]
        else:
            lines += [f"  {label}: {v}" for (label, _), v in zip(sides, totals)]
        return lines

    def last_trick_lines(self) -> list[str]:
        t = self.text
        last = self.snap.last_trick
        if last is None:
            return [t("no_trick_yet")]
        _, plays, winner = last
        lines = [f"{self.name(s)}: {card_label(c)}" for s, c in plays]
        lines.append(self.won_by(winner))
        return lines

    def extra_title(self, kind: str | None) -> str:
        """The title of a window of a screen built on this one (a replay's deal list...)."""
        return ""

    def extra_window(self, kind: str | None) -> tuple[list[str], str] | None:
        """The lines and the keys line of such a window (None: no such window here)."""
        return None

    def refused_card(self, pos: int, card: Card) -> str:
        """Why the card ``card`` at ``pos`` may not be played now: the game's rule in its
        words when it gives one (:meth:`~p2pcards.core.deal.DealState.refusal`), else only
        that it is not allowed."""
        line = self.snap.refusals.get(pos)
        if line is not None and self.game.word(self.text.lang, line.key, ""):
            return self.text("not_allowed_why", card=card_label(card), why=self.say(line))
        return self.text("not_allowed", card=card_label(card))

    def resume_command(self) -> str:
        """What the leave window says takes this table up again: ``p2pcards resume`` and the
        start of the table's id (its transcript's directory)."""
        if not self.log_path:
            return "p2pcards resume"
        return f"p2pcards resume {Path(self.log_path).parent.name[:8]}"

    def help_lines(self) -> list[str]:
        """The help window: each key, then what it does, in one aligned column."""
        rows = [line.split("\t", 1) for line in self.text("help").split("\n")]
        width = max(len(r[0]) for r in rows if len(r) == 2)
        return [f"{r[0]:<{width}}  {r[1]}" if len(r) == 2 else r[0] for r in rows]

    def dialog_title(self) -> str:
        """The decision dialog's title: the game's ``decision.KIND.title`` words."""
        kind = self.mode or ""
        return self.game.word(self.text.lang, f"decision.{kind}.title", self.text("decide_title"))

    def button(self, which: str) -> str:
        """The dialog's ``confirm`` or ``decline`` button in the game's words."""
        kind = self.mode or ""
        return self.game.word(self.text.lang, f"decision.{kind}.{which}", self.text(f"{which}_button"))

    def dialog_lines(self) -> list[str]:
        """The text of the decision dialog (a pick of cards, a list of choices): the game's
        lines for it, then what the keys do; empty for a play."""
        t = self.text
        decision = self.decision
        if decision is None or self.mode is None or self.mode == PLAY:
            return []
        k = len(self.picked)
        lines = [self.say(line, k=k) for line in self.snap.dialog]
        if decision.pick is not None:
            hi = decision.pick[1]
            lines.append(t("pick_keys", keys=self.card_keys(), confirm=self.button("confirm"), k=k, hi=hi))
            if decision.may_decline:
                lines.append(t("decline_key", decline=self.button("decline")))
        else:
            lines.append(t("choose_keys", n=min(len(self.choice_options()), 9)))
        if self.message:
            lines.append(self.message)
        elif self.hint_line:
            lines.append(self.hint_line)
        return lines
