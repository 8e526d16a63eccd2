"""The trio side of the terminal table: the person's seat, paced computer players, a local table.

Nothing here draws; the screen reads the :class:`~p2pcards.tui.model.TableModel` that these
objects keep up to date.  Everything runs inside trio -- in *guest mode* on the screen's
asyncio loop (:mod:`p2pcards.tui.app`), so trio tasks and key handlers share one thread --
and anything the screen asks of trio goes through :meth:`LocalTable.soon` (the trio token's
``run_sync_soon``), never by touching trio objects from outside a trio task.

* :class:`PersonPlayer` is the person's seat: an *asynchronous player* of
  :class:`~p2pcards.net.node.Node` (``achoose`` is awaited by the peer's task until the person
  decides on the screen; ``observe`` copies the replica into the model after every change).
* :class:`PacedBot` wraps a computer player so that its decisions come one at a time at the
  screen's pace and wait while the person reads a deal's summary (:class:`Gate`).
* :class:`LocalTable` is ``p2pcards play``: the person and the computer players as separate
  peers of the mental-deck protocol, each its own node joined to the others by in-memory
  streams, so every deal is shuffled, dealt and audited exactly as on a LAN.

Hints (``h``) and a forced rest of a deal (``f``; :mod:`p2pcards.players.hints`) are computed
by :class:`ScreenTable` from the person's own :class:`~p2pcards.core.view.SeatView` (a copy
of it), in a worker thread as the searching computer players think, so the screen stays
live; a hint that comes back after the person decided is dropped.  A hint shown is
recorded in the history database (and, once the person decides, whether it was followed).
"""

from __future__ import annotations

import functools
import hashlib
import logging
import math
import os
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final, TypeVarTuple

import trio
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.core import PLAY, Decision, GameRegistry, GameSpec, Options, Plain, SeatView
from p2pcards.history.db import Recorder
from p2pcards.identity import Identity
from p2pcards.net import LocalSeat, NetError, ResumeError, log_path, make_table, memory_mesh, single_error
from p2pcards.net.resume import load_seats
from p2pcards.net.store import (
    PERSON,
    Manifest,
    PeerEntry,
    StoreError,
    load_manifest,
    peer_stem,
    save_identity,
    table_dir,
)
from p2pcards.players import TABLE_LEVEL, Player, bot_budget, make_player
from p2pcards.players.hints import HINT_MS, Hint, frozen_view, rest_is_forced, suggest
from p2pcards.table.events import DealClosed, Ended, TableEvent
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, SeatInfo, parse_message
from p2pcards.tui.model import GameInfo, SeatLabel, TableModel, snapshot_of
from p2pcards.words import Text

__all__ = ["BOT_NAMES", "Gate", "LocalTable", "PacedBot", "PersonPlayer", "ScreenTable", "throw_away"]

log = logging.getLogger("p2pcards.tui")

#: The arguments of a function run later (:meth:`ScreenTable.soon`, ``_spawn``).
_Args = TypeVarTuple("_Args")

#: Names of the computer players, by seat (seat 0 is the person).
BOT_NAMES = ("", "Ana", "Rui", "Inês")


class Gate:
    """A door the computer players pass before each decision; closed while the person
    reads a deal's summary, so that the next deal's cards wait for the person."""

    def __init__(self) -> None:
        self._open = True
        self._event = trio.Event()
        self._event.set()

    @property
    def is_open(self) -> bool:
        return self._open

    def close(self) -> None:
        if self._open:
            self._open = False
            self._event = trio.Event()

    def open(self) -> None:
        self._open = True
        self._event.set()

    async def wait(self) -> None:
        while not self._open:
            await self._event.wait()


class PersonPlayer:
    """The person's seat: decisions come from the screen (an asynchronous player).

    ``model`` may be set later (a LAN table's screen exists once the table starts), but
    before the node runs: the node only observes and asks once it runs.  It ``listens``:
    while the person thinks, the node goes on filing what arrives for the seat (a message
    refused is said at once), and withdraws the question if the table moves on meanwhile.
    """

    listens = True

    def __init__(self, model: TableModel | None) -> None:
        self.model = model
        self._answer: trio.Event | None = None
        self._choice: Plain = None
        #: the decision the person is asked now, with the view it was asked in (None: none)
        self.pending: tuple[SeatView, Decision] | None = None
        #: called (in trio) with the view and the decision each time the person is asked
        self.on_ask: Callable[[SeatView, Decision], None] = lambda view, decision: None
        #: ``f`` was pressed: forced decisions are answered at once until the deal ends
        self.finishing = False
        #: the deal of the decision asked last, and which of the person's decisions in it
        #: that was (from 0)
        self.deal = -1
        self.at = -1

    def observe(self, table: Table) -> None:
        """Called by the node after every change of the person's replica."""
        if self.model is not None:
            self.model.hints_allowed = bool(getattr(getattr(table, "genesis", None), "hints", True))
            self.model.caught_up([r.to_json() for r in getattr(table, "results", ())])
            self.model.update(snapshot_of(table))

    async def achoose(self, view: SeatView, decision: Decision) -> Plain:
        """Show the decision on the screen and wait for the person's answer; while the
        person finishes a forced deal (``f``), a decision with one choice is answered at
        once, and one with more is asked as usual (and ends the finishing)."""
        assert self.model is not None, "the person's screen is set before the table runs"
        deal = self.model.snap.deal
        self.at = self.at + 1 if deal == self.deal else 0
        self.deal = deal
        legal = view.legal
        if self.finishing:
            if decision.pick is None and len(legal) == 1:
                await trio.lowlevel.checkpoint()
                return legal[0]
            self.finishing = False
            self.model.finish_stopped()
        self._answer = trio.Event()
        self.pending = (view, decision)
        self.model.ask(decision, legal)
        self.on_ask(view, decision)
        try:
            await self._answer.wait()
        except trio.Cancelled:  # withdrawn: the table moved on before the person decided
            self.model.withdraw(decision)
            raise
        finally:
            self._answer = None
            self.pending = None
        return self._choice

    def choose(self, view: SeatView, decision: Decision) -> Plain:
        """The plain Player interface: never used, the node awaits :meth:`achoose`."""
        raise RuntimeError("the person's seat decides on the screen (achoose)")

    def deliver(self, choice: Plain) -> None:
        """The person's answer (called in trio, through the token)."""
        if self._answer is not None and not self._answer.is_set():
            self._choice = choice
            self._answer.set()


class PacedBot:
    """A computer player whose decisions wait for the gate, then for ``pace()`` seconds."""

    def __init__(self, inner: Player, pace: Callable[[], float], gate: Gate) -> None:
        self.inner = inner
        self.pace = pace
        self.gate = gate

    async def achoose(self, view: SeatView, decision: Decision) -> Plain:
        """Wait for the gate, decide, and wait out the rest of the pace.  Leading a new
        trick waits twice as long, so that the trick just won stays on the table a moment.
        A bot that ``thinks`` (searches) does so in a worker thread, and its thinking time
        counts as part of the pause: the table never waits for both."""
        await self.gate.wait()
        delay = self.pace()
        if decision.kind == PLAY and not view.trick and view.tricks:
            delay *= 2
        choice: Plain
        if getattr(self.inner, "thinks", False):  # a searching bot: its thinking counts as the pause
            started = trio.current_time()
            choice = await trio.to_thread.run_sync(self.inner.choose, view, decision)
            delay -= trio.current_time() - started
        else:
            choice = self.inner.choose(view, decision)
        if delay > 0:
            await trio.sleep(delay)
            await self.gate.wait()
        return choice

    def choose(self, view: SeatView, decision: Decision) -> Plain:  # the plain Player interface
        return self.inner.choose(view, decision)


def think_budget(speed: float) -> int:
    """The most time (ms) a computer player that searches may take over a decision at the
    screen, over its level's worlds: the table's pace, ``speed`` seconds between plays, kept
    within 100 ms and 1 s -- its thinking is the pause (:class:`PacedBot`), so the table
    never waits longer for it."""
    return int(min(1000.0, max(100.0, speed * 1000.0)))


def _derive(seed: int, *parts: object) -> bytes:
    return hashlib.sha256("/".join(["p2pcards-play", str(seed), *map(str, parts)]).encode()).digest()


def _seeded_identity(seed: int, seat: int, name: str) -> Identity:
    return Identity(Ed25519PrivateKey.from_private_bytes(_derive(seed, "sign", seat)),
                    X25519PrivateKey.from_private_bytes(_derive(seed, "seal", seat)), name)


#: A hint or a forced-rest check runs only while at most this many cards are in any hand
#: (and the stock is empty): past that, the rest of a deal is never forced in practice.
FORCED_HAND: Final = 3


@dataclass(frozen=True)
class Hinted:
    """A hint shown for the person's ``asked``-th decision, the ``at``-th of deal ``deal``."""

    asked: int
    deal: int
    at: int
    hint: Hint


#: Seconds the peers of a table that is over may still take (hanging up, marking their
#: manifest finished) once the screen closes; a table not over is left at once.
FINISH_GRACE = 5.0


class ScreenTable:
    """What a table on screen shares, against the computer or on the LAN: the person's
    seat and the computer players' gate, the trio token and cancel scope the screen
    reaches trio through, and the events that end a deal or the table.

    Subclasses set ``model`` and ``seat`` (once the table is known) and ``_token`` and
    ``_scope`` in their ``run``.
    """

    model: TableModel | None
    seat: int | None

    def __init__(self) -> None:
        self.person = PersonPlayer(None)
        self.gate = Gate()
        self.outcome = "running"
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        #: where hints and forced-rest checks run (set by ``run``; None: not running)
        self._tasks: trio.Nursery | None = None
        #: the hint shown for the decision pending now
        self._hinted: Hinted | None = None
        #: records the person's hints in the history database (the deals and the table's
        #: end are recorded by the peers' nodes, :class:`~p2pcards.net.node.Node`)
        self.history = Recorder()

    def refused(self, seat: int, blame: int | None) -> None:
        """The replica of ``seat`` refused a message (blaming ``blame``): the person's replica
        tells the person; the computer players' replicas in this process are not asked."""
        if self.model is not None and seat == self.model.me:
            self.model.refused(blame)

    def _attach(self, model: TableModel) -> None:
        """The person's screen: choices go to the person's seat, "continue" opens the gate,
        ``h`` and ``f`` to the hints (module docstring)."""
        model.on_choice = lambda choice: self.soon(self._chosen, choice)
        model.on_continue = lambda: self.soon(self.gate.open)
        model.on_hint = lambda: self.soon(self._ask_hint)
        model.on_finish = lambda: self.soon(self._finish)
        self.person.on_ask = self._asked
        self.person.model = model
        self.model = model

    def pace(self, speed: float) -> float:
        """The computer players' pause: none while the person finishes a forced deal."""
        return 0.0 if self.model is not None and self.model.finishing else speed

    # ------------------------------------------------------------------ hints (in trio)
    def _where(self) -> tuple[Path | None, bytes | str | None]:
        return getattr(self, "data_dir", None), getattr(self, "table_id", None)

    def _chosen(self, choice: Plain) -> None:
        """The person decided: whether a hint shown for this decision was followed goes to
        the history, then the choice to the person's seat."""
        hinted, self._hinted = self._hinted, None
        if hinted is not None and self.model is not None and hinted.asked == self.model.asked:
            self.history.record_hint(*self._where(), self.seat, hinted.deal, hinted.at, hinted.hint.code,
                                     choice == hinted.hint.choice)
        self.person.deliver(choice)

    def _ask_hint(self) -> None:
        """``h``: compute a hint for the pending decision in the background."""
        model, pending = self.model, self.person.pending
        if model is None:
            return
        if pending is None or not model.hints_allowed:
            model.show_hint(None, -1)  # nothing to hint at any more: dropped
            return
        view, decision = pending
        if not self._spawn(self._hint, view, decision, model.asked, self.person.deal, self.person.at):
            model.show_hint(None, model.asked)  # "no hint"

    def _spawn(self, fn: Callable[[*_Args], Awaitable[object]], *args: *_Args) -> bool:
        """Start ``fn(*args)`` among the table's tasks; False when they are over."""
        if self._tasks is None:
            return False
        try:
            self._tasks.start_soon(fn, *args)
        except RuntimeError:  # the nursery is closed: the table is over
            self._tasks = None
            return False
        return True

    async def _hint(self, view: SeatView, decision: Decision, asked: int, deal: int, at: int) -> None:
        model = self.model
        assert model is not None
        hint: Hint | None = None
        try:
            spec = model.game.spec
            if spec is None:
                raise ValueError(f"{model.game.name}: the game's rules are not known here")
            frozen = frozen_view(view)
            hint = await trio.to_thread.run_sync(functools.partial(suggest, spec, frozen, decision, think_ms=HINT_MS))
        except Exception:  # noqa: BLE001 -- a hint never takes the table down: "no hint"
            log.exception("no hint: the search failed")
        if model.show_hint(hint, asked) and hint is not None:
            self._hinted = Hinted(asked, deal, at, hint)
            self.history.record_hint(*self._where(), self.seat, deal, at, hint.code)

    def _asked(self, view: SeatView, decision: Decision) -> None:
        """The person is asked: near a deal's end, look (in the background) whether the rest
        of it is forced, to offer ``f``."""
        model = self.model
        if model is None or self._tasks is None or model.finish_offered or model.game.spec is None:
            return
        if view.stock_count or len(view.hand) < 2 or max(view.hand_size(s) for s in range(view.seats)) > FORCED_HAND:
            return
        self._spawn(self._check_forced, model.game.spec, view, model.asked)

    async def _check_forced(self, spec: GameSpec, view: SeatView, asked: int) -> None:
        model = self.model
        assert model is not None
        try:
            frozen = frozen_view(view)
            forced = await trio.to_thread.run_sync(rest_is_forced, spec, frozen)
        except Exception:  # noqa: BLE001 -- an offer never takes the table down
            log.exception("could not tell whether the rest of the deal is forced")
            return
        if forced and model.asked == asked and model.decision is not None:
            model.offer_finish()

    def _finish(self) -> None:
        """``f``: the person's forced decisions are answered at once until the deal ends."""
        self.person.finishing = True

    # ------------------------------------------------------------------ from the screen
    def soon(self, fn: Callable[[*_Args], object], *args: *_Args) -> None:
        """Run ``fn(*args)`` in trio as soon as possible (safe from the screen's callbacks)."""
        if self._token is None:
            return
        try:
            self._token.run_sync_soon(fn, *args)
        except trio.RunFinishedError:
            pass

    def cancel(self) -> None:
        """Leave the table: stop this process's peers (their logs are closed and kept)."""
        self.soon(self._cancel)

    def _cancel(self) -> None:
        if self._scope is None:
            return
        if self.outcome == "over":  # the peers are finishing: let them hang up and mark the table done
            self._scope.deadline = min(self._scope.deadline, trio.current_time() + FINISH_GRACE)
        else:
            self._scope.cancel()

    # ------------------------------------------------------------------ in trio
    def _on_event(self, seat: int, event: TableEvent) -> None:
        if seat != self.seat or self.model is None:
            return
        if isinstance(event, DealClosed):
            if not event.match_over:
                self.gate.close()
            self.person.finishing = False
            self.model.deal_over(event.to_json())
        elif isinstance(event, Ended):
            self.outcome = "over"
            self.model.table_over(event.to_json())


def throw_away(path: Path) -> Manifest:
    """Throw away the unfinished table against the computer whose manifest is ``path``: it
    ends abandoned, with no winner, in its manifest (so that it is no longer taken up, nor
    listed among "Your tables") and in the history; its transcripts stay for ``p2pcards
    audit`` and replays.  Returns the manifest as saved; raises
    :class:`~p2pcards.net.store.StoreError` when it is not such a table, or when a process
    is playing it now."""
    import dataclasses

    from p2pcards.history.db import History, db_path
    from p2pcards.net.store import in_use, save_manifest

    manifest = load_manifest(path)
    if manifest.role != "local" or manifest.finished:
        raise StoreError("it is not an unfinished table against the computer")
    if any(in_use(path.parent / f"{peer.stem}.log") for peer in manifest.peers):
        raise StoreError("a process is playing that table right now")
    data_dir = path.parent.parent.parent
    ended = dataclasses.replace(manifest, finished=True, ended="abandoned")
    save_manifest(data_dir, ended)
    if db_path(data_dir).is_file():
        with History(db_path(data_dir)) as history:
            history.abandon(manifest.table_hex)
    return ended


class LocalTable(ScreenTable):
    """A match against the computer (``p2pcards play``): the person in seat 0, computer
    players of ``bots`` level in the other seats, each a peer of its own.

    ``seed`` makes the computer players, their keys, every table secret and the table's
    nonce reproducible (with the same person's identity and a fresh data directory the
    deals repeat).  ``data_dir`` (None: no files) keeps every local peer's transcript and
    secret, as ``p2pcards host`` does.  ``deals`` stops the table after that many deals.
    ``think_ms`` caps a searching computer player's decision over its level's worlds
    (default: the pace, :func:`think_budget`; line mode has no pace; with ``seed``, no cap).
    """

    model: TableModel  # known from the start (set by _setup), unlike a LAN table's
    #: What ``p2pcards resume`` needs to take the table up again (None: no files kept).
    manifest: Manifest | None

    def __init__(
        self,
        spec: GameSpec,
        options: Options,
        *,
        me: Identity,
        text: Text,
        bots: str = TABLE_LEVEL,
        seed: int | None = None,
        deals: int | None = None,
        speed: float = 0.8,
        data_dir: Path | None = None,
        think_ms: int | None = None,
    ) -> None:
        n = spec.seats
        names = [me.name] + [BOT_NAMES[s] if s < len(BOT_NAMES) else f"bot{s}" for s in range(1, n)]
        if seed is None:
            bot_ids = [Identity.generate(names[s]) for s in range(1, n)]
            secrets = [os.urandom(32) for _ in range(n)]
            rngs = [random.Random(os.urandom(16)) for _ in range(n)]
            nonce = os.urandom(16)
        else:
            bot_ids = [_seeded_identity(seed, s, names[s]) for s in range(1, n)]
            secrets = [_derive(seed, "secret", s) for s in range(n)]
            rngs = [random.Random(f"p2pcards-play/{seed}/{s}") for s in range(n)]
            nonce = _derive(seed, "nonce", 0)[:16]
        infos = [SeatInfo(me.name, me.signing_public, me.sealing_public, None, None)]
        infos += [SeatInfo(b.name, b.signing_public, b.sealing_public, bots, me.fingerprint) for b in bot_ids]
        genesis = make_table(me, spec, infos, options=options, deals=deals, timeout=3600.0, nonce=nonce)
        if seed is not None and data_dir is not None:
            bump = 0
            while table_dir(data_dir, self._table_id(genesis)).exists():  # this seed was played here before
                bump += 1
                genesis = make_table(me, spec, infos, options=options, deals=deals, timeout=3600.0,
                                     nonce=_derive(seed, "nonce", bump)[:16])
        ScreenTable.__init__(self)
        seats = [LocalSeat(me, self.person, secrets[0])]
        budget = bot_budget(seed, think_budget(speed) if think_ms is None else think_ms)
        seats += [LocalSeat(bot_ids[s - 1], self._pace(make_player(bots, spec, rngs[s], **budget)), secrets[s])
                  for s in range(1, n)]
        self._setup(spec, genesis, seats, me=me, text=text, speed=speed, data_dir=data_dir)
        if data_dir is not None:  # what `p2pcards resume` needs to take the table up again
            directory = table_dir(data_dir, self.table_id)
            for s in range(1, n):
                save_identity(directory / f"{peer_stem(s)}.identity", bot_ids[s - 1])
            self.manifest = Manifest("local", self.table_id, me.fingerprint, spec.name, (),
                                     (PeerEntry(0, peer_stem(0), "user", PERSON),
                                      *(PeerEntry(s, peer_stem(s), "file", bots) for s in range(1, n))),
                                     speed=speed)

    @classmethod
    def resume(cls, path: Path, registry: GameRegistry, *, me: Identity, text: Text,
               speed: float | None = None) -> LocalTable:
        """The unfinished local table whose manifest is ``path`` (``local.mesh``), taken up
        again from its saved transcripts (every message verified again), at ``speed`` (None:
        the pace it was started at, or 0.8 for a table saved by an earlier release); raises
        :class:`~p2pcards.net.ResumeError` when the files are missing or not sound."""
        self = cls.__new__(cls)
        ScreenTable.__init__(self)
        try:
            manifest = load_manifest(path)
            if manifest.role != "local" or manifest.finished:
                raise StoreError("it is not an unfinished table against the computer")
            genesis, _, spec, seats = load_seats(manifest, path.parent, me, registry, None, self.person)
        except StoreError as exc:
            raise ResumeError(f"cannot resume from {path.parent}: {exc}") from None
        for local in seats:
            if local.player is not self.person:
                local.player = self._pace(local.player)
        if speed is None:
            speed = 0.8 if manifest.speed is None else manifest.speed
        self._setup(spec, genesis, seats, me=me, text=text, speed=speed, data_dir=path.parent.parent.parent)
        self.manifest = manifest
        self.model.catching_up = True  # until the replicas are rebuilt from their logs
        return self

    def _pace(self, player: Player) -> PacedBot:
        return PacedBot(player, lambda: self.pace(self.model.speed), self.gate)

    def _setup(self, spec: GameSpec, genesis: bytes, seats: list[LocalSeat], *, me: Identity, text: Text,
               speed: float, data_dir: Path | None) -> None:
        self.spec = spec
        self.me = me
        self.seat = 0
        self.data_dir = data_dir
        self.genesis = genesis
        self.table_id = self._table_id(genesis)
        info = Genesis.from_body(parse_message(genesis, None).body)
        labels = [SeatLabel(s, i.name, i.bot, i.runs_on, i.fingerprint) for s, i in enumerate(info.seats)]
        path = str(log_path(data_dir, self.table_id, self.seat)) if data_dir is not None else None
        self.model = TableModel(GameInfo.of(spec, info.options), labels, self.seat, text, speed=speed,
                                here=me.fingerprint, log_path=path)
        self._attach(self.model)
        self.seats = seats
        self.manifest = None

    @staticmethod
    def _table_id(genesis: bytes) -> bytes:
        return Genesis.from_body(parse_message(genesis, None).body).table_id

    async def run(self) -> None:
        """Play the table to its end (or until cancelled); a failure is shown on the screen."""
        self._token = trio.lowlevel.current_trio_token()
        with trio.CancelScope() as scope:
            self._scope = scope
            nodes = memory_mesh(self.genesis, self.spec, [[s] for s in self.seats], data_dir=self.data_dir,
                                on_event=self._on_event, timeout=math.inf, manifest=self.manifest,
                                recorder=self.history)
            try:
                with single_error():
                    async with trio.open_nursery() as nursery:
                        self._tasks = nursery
                        for node in nodes:
                            nursery.start_soon(node.run)
            except NetError as exc:
                self.outcome = "failed"
                self.model.stopped(str(exc))
            except Exception as exc:  # noqa: BLE001 -- shown to the person rather than a traceback on the screen
                log.exception("the table failed")
                self.outcome = "failed"
                self.model.stopped(f"{type(exc).__name__}: {exc}")
        if scope.cancelled_caught and self.outcome == "running":
            self.outcome = "left"
