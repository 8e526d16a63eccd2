"""Line-mode play against computer players (``p2pcards play --text``, or with no terminal).

**The same table as the screen's.**  Line mode is a second face of the full-screen table's
local table (:class:`~p2pcards.tui.runtime.LocalTable`), not a game of its own: the person
and the computer players are separate peers of the mental-deck protocol joined by
in-memory links, every deal is shuffled, dealt and audited as on a LAN, every peer keeps
its transcript under the data directory (``DATA/tables/TABLE/seatN.log``), the history
database records the match as it is played, and the table is one of "Your tables" and of
``p2pcards resume --list``.  Only the person's seat differs: :class:`TextTable` puts
:class:`LineSeat` (an asynchronous player that reads the person's answers as lines) where
the screen puts its :class:`~p2pcards.tui.runtime.PersonPlayer`, and tells what happens
as lines instead of drawing it.  Decided so (rather than keeping a faster in-process game
of full information) because a game kept is worth more than the milliseconds of a
shuffle, and because one table machinery cannot drift from another: whatever is true of a
screen's table (audits, transcripts, resume, history, hints) is true of a line-mode one.

The person sits in the first seat; computer players fill the other seats.  Every decision
of every game is asked as a line of text; nothing illegal is ever accepted.  Besides the
answer, every question takes the screen's keys as words: ``h`` a hint (what the searching
computer player would choose, and why; recorded in the history as on the screen), ``l``
the last trick, ``s`` the scores, ``?`` the keys, ``q`` leaves (the table is kept, and
the line says how to take it up again).  Everything that happens -- a card played, a
trick taken, trumps turned up -- is printed as soon as the person's replica knows it,
before the next question and before the deal's summary (which ends with the audit's
verdict).  What the full-screen table shows of a game besides the cards is told too, as
it changes: the deal's public facts (:meth:`~p2pcards.core.deal.DealState.facts`, on the
screen's top line) as one line, the person's notes
(:meth:`~p2pcards.core.deal.DealState.notes`) as indented lines.  A game's own event kinds
read in the game's words (its ``event.KIND`` texts; see "How a game reaches the screens" in
:mod:`p2pcards.core`), or else as a plain line, "Seat 2: KIND CHOICE".

People see seats and deals numbered from 1 ("seat 2", "deal 1") and their own seat as
"you"; every line comes from :mod:`p2pcards.words` (the ``text_`` keys, and the screen's
own words for its windows) in the language of the table (``--lang``, as the full-screen
table), or from the game itself: how its results read, what its decisions are and the
labels of its choices come from its spec and deal state (:mod:`p2pcards.core`), in its own
words -- nothing here names a game.

``--seed`` makes the match reproducible as on the screen: the computer players, their keys
and every table secret come from the seed, so with the same person's identity and a data
directory that has not played that seed yet (or none: ``data_dir=None`` keeps no files)
the same answers replay the same match, line for line.

Exit status (:func:`play_text`): 0 at the end of the match, when the person leaves with
``q`` and when the input ends (a pipe that has said all it had to say); 1 when the table
fails.  An interrupt (Ctrl-C) is :mod:`p2pcards.cli`'s: 130.

The package does no I/O of its own beyond the text streams it is given and the files the
table keeps.  Its modules: :mod:`~p2pcards.textplay.words` (seats, sides and counts in
words), :mod:`~p2pcards.textplay.narration` (what is told of a deal and a match),
:mod:`~p2pcards.textplay.seat` (the person's seat), and this one (the table and the two
ways in: a new match, a table taken up again).
"""

from __future__ import annotations

import dataclasses
import hashlib
from pathlib import Path
from typing import TextIO

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.core import GameRegistry, GameSpec, Options
from p2pcards.identity import Identity
from p2pcards.players import TABLE_LEVEL
from p2pcards.table.events import DealClosed, Ended, TableEvent
from p2pcards.textplay.narration import deal_lines, final_lines
from p2pcards.textplay.seat import LineSeat, Quit
from p2pcards.textplay.words import ME, Words, cap
from p2pcards.tui.logfile import screen_logging
from p2pcards.tui.runtime import LocalTable
from p2pcards.words import Text

__all__ = ["TEXT_THINK_MS", "LineSeat", "Quit", "TextTable", "play_text", "resume_text", "seeded_person"]

#: How long (ms) a computer player that searches thinks per decision in line mode.
TEXT_THINK_MS = 300


def _derive(seed: int, *parts: object) -> bytes:
    return hashlib.sha256("/".join(["p2pcards-play", str(seed), *map(str, parts)]).encode()).digest()


def seeded_person(seed: int, name: str = "you") -> Identity:
    """A person's identity made from ``seed`` (a match played with no identity of its own,
    e.g. in tests, replays from the seed alone)."""
    return Identity(Ed25519PrivateKey.from_private_bytes(_derive(seed, "person-sign")),
                    X25519PrivateKey.from_private_bytes(_derive(seed, "person-seal")), name)


class TextTable(LocalTable):
    """A match against the computer in line mode: :class:`~p2pcards.tui.runtime.LocalTable`'s
    peers, files and history, with :class:`LineSeat` in the person's seat (module
    docstring).  ``outcome`` is the local table's ("over", "left", "failed"); ``on_purpose``
    says whether the person left with ``q`` (else the input ended)."""

    line: LineSeat
    on_purpose = False

    @classmethod
    def create(cls, spec: GameSpec, options: Options, *, me: Identity, lang: str, bots: str,
               seed: int | None, deals: int | None, data_dir: Path | None, inp: TextIO, out: TextIO) -> TextTable:
        self = cls(spec, options, me=me, text=Text(lang), bots=bots, seed=seed, deals=deals, speed=0.0,
                   data_dir=data_dir, think_ms=TEXT_THINK_MS)
        self._line(inp, out, lang)
        return self

    @classmethod
    def take_up(cls, path: Path, registry: GameRegistry, *, me: Identity, lang: str, inp: TextIO,
                out: TextIO) -> TextTable:
        """The unfinished local table whose manifest is ``path``, taken up again in line mode
        (raises :class:`~p2pcards.net.ResumeError` as :meth:`LocalTable.resume`)."""
        self = cls.resume(path, registry, me=me, text=Text(lang), speed=0.0)
        assert isinstance(self, TextTable)
        self._line(inp, out, lang)
        self.line.resumed = True
        return self

    def _line(self, inp: TextIO, out: TextIO, lang: str) -> None:
        words = Words(lang, self.spec)
        self.line = LineSeat(inp, out, self.spec, words, self)
        # the windows (l, s) name the seats as the lines do: "seat 2"
        self.model.seats = [dataclasses.replace(label, name=cap(words.who(label.seat))) for label in self.model.seats]
        for local in self.seats:
            if local.player is self.person:
                local.player = self.line

    def leave(self, on_purpose: bool) -> None:
        """The person leaves (``q``, or the input ended): stop every peer; the files stay."""
        self.on_purpose = on_purpose
        self._cancel()

    def refused(self, seat: int, blame: int | None) -> None:
        if seat == ME:
            t = self.model.text
            who = self.line.w.who(blame) if blame is not None else ""
            self.line.say("  " + (t("refused_nobody") if blame is None else t("refused_blame", name=who)))

    def _on_event(self, seat: int, event: TableEvent) -> None:
        """The person's replica closed a deal (its last plays, then its summary) or the table."""
        if seat != ME:
            return
        line = self.line
        w = line.w
        if isinstance(event, DealClosed):
            line.finish_deal()
            self.model.deal_over(event.to_json())
            for text in deal_lines(w, event, self.model.text("void"), self.model.verdict_line(event.audit)):
                line.say(text)
            line.say(w("text_match", label=self.spec.text(w.t.lang, "totals"), totals=w.totals(event.totals)))
        elif isinstance(event, Ended):
            self.outcome = "over"
            self.model.table_over(event.to_json())
            line.say("")
            for text in final_lines(w, event.winner, event.totals, event.deals, self.model.game.options):
                line.say(text)


def _left_line(table: TextTable) -> str:
    """What the person reads on leaving: that the table is kept and the command that takes
    it up again (or only that they left, when no files are kept)."""
    w = table.line.w
    if table.data_dir is None:
        return w("text_left")
    return w("text_left_kept", command=f"p2pcards resume {table.table_id.hex()[:8]}")


def _run(table: TextTable) -> int:
    """Play ``table`` to its end or until the person leaves; the exit status."""
    line = table.line
    try:
        with screen_logging(table.data_dir, on_refused=table.refused):
            trio.run(table.run)
    except KeyboardInterrupt:  # Ctrl-C: the table is kept as on leaving; the command exits 130
        line.say("\n" + _left_line(table))
        raise
    if table.outcome == "left":
        line.say("\n" + _left_line(table))
        return 0
    if table.outcome == "failed":
        line.say("")
        line.say(table.model.text("stopped", reason=table.model.error or "?"))
        return 1
    return 0


def play_text(
    spec: GameSpec,
    options: Options,
    bots: str,
    seed: int | None,
    deals: int | None,
    inp: TextIO,
    out: TextIO,
    *,
    lang: str = "en",
    me: Identity | None = None,
    data_dir: Path | None = None,
) -> int:
    """Play a match in line mode, in ``lang`` (en or pt), as ``me`` (default: an identity
    made from the seed), keeping its files under ``data_dir`` (None: none); return the
    exit status (module docstring)."""
    if me is None:
        me = seeded_person(seed) if seed is not None else Identity.generate("you")
    table = TextTable.create(spec, options, me=me, lang=lang, bots=bots or TABLE_LEVEL, seed=seed, deals=deals,
                             data_dir=data_dir, inp=inp, out=out)
    words = table.line.w
    bots_key = "text_intro_one" if spec.seats == 2 else "text_intro_other"
    title = spec.text(lang, "title")  # the game's own words in the person's language
    name = words("text_intro_name", name=me.name) if me.named else ""  # the name the person chose
    table.line.say(words(bots_key, title=title, me=ME + 1, level=words.level(bots), first=ME + 2, last=spec.seats,
                         name=name))
    if spec.teams:
        teams = [words.side(team) for team in spec.teams]
        table.line.say(words("text_teams", teams=words("text_against", a=teams[0], b=", ".join(teams[1:]))))
    return _run(table)


def resume_text(path: Path, registry: GameRegistry, *, me: Identity, lang: str, inp: TextIO, out: TextIO) -> int:
    """Take up again, in line mode, the unfinished table against the computer whose manifest
    is ``path``; the exit status as :func:`play_text`'s (raises
    :class:`~p2pcards.net.ResumeError` when it cannot be taken up)."""
    table = TextTable.take_up(path, registry, me=me, lang=lang, inp=inp, out=out)
    return _run(table)
