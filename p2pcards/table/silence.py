"""What a replica holds about silence: votes, nays, late messages held aside, and the seed
round's seeds (protocol/PROTOCOL.md, "Silence: votes and dummies" and "The seed round and
the close").

Two small objects that own their state and change it only through their methods:

* :class:`Silence` -- at the current place, the votes this replica holds against each
  due seat (its own among them) and the late messages it holds aside because it voted;
  over the current deal, the nays it signed or relayed for places passed, and **every vote
  and nay it signed itself**: whatever it signed about silence is on disk before it leaves
  (the runtime keeps :attr:`~p2pcards.table.events.Output.signed`), comes back with the
  replica after a restart (:meth:`Silence.remember`), a rebuild or a supersession, and
  keeps it from ever signing both a vote and a nay for one place and seat.
* :class:`SeedRound` -- the seeds revealed for the current place, and whether this seat
  revealed its own in this deal.

The :class:`~p2pcards.table.table.Table` that owns them decides, from the chain and the
deal, what a vote, a nay or a seed does; these only remember.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from p2pcards.table.common import MIN_VOTERS

__all__ = ["Silence", "SeedRound", "MAX_ANSWERED"]

#: Votes about places passed whose answer a replica remembers (module docstring of Silence).
MAX_ANSWERED: Final = 4096


class Silence:
    """Votes and held messages at the current place; nays over the current deal."""

    def __init__(self) -> None:
        self._nays: dict[int, bytes] = {}
        self._relayed: set[bytes] = set()
        #: votes about places passed that this replica answered: (voter, place, seat accused)
        self._answered: set[tuple[int, int, int]] = set()
        #: this replica's own votes and nays of the current deal, by (place, seat accused)
        self._own: dict[tuple[int, int], bytes] = {}
        self._own_kind: dict[tuple[int, int], str] = {}
        self.new_place()

    def new_place(self) -> None:
        """The chain moved on: votes and held messages of the old place are moot."""
        self._votes: dict[int, dict[int, bytes]] = {}
        self._voted: set[int] = set()
        self._held: dict[int, bytes] = {}

    def new_deal(self) -> None:
        """A deal starts: nays of the last one are moot too (nothing about a closed deal is
        acted on), and so is what this replica signed about it."""
        self._nays = {}
        self._relayed = set()
        self._own = {}
        self._own_kind = {}
        self.new_place()

    # ------------------------------------------------------------------ what this replica signed
    def remember(self, k: int, against: int, kind: str, raw: bytes) -> None:
        """This replica signed ``raw``, a ``kind`` (vote or nay) about seat ``against`` at
        place ``k`` of the current deal (the first one is kept)."""
        self._own.setdefault((k, against), raw)
        self._own_kind.setdefault((k, against), kind)

    def signed(self, k: int, against: int) -> tuple[str, bytes] | None:
        """``(kind, message)`` of what this replica signed about seat ``against`` at place
        ``k`` of the current deal, if it signed anything."""
        raw = self._own.get((k, against))
        return None if raw is None else (self._own_kind[(k, against)], raw)

    def signed_messages(self) -> list[bytes]:
        """Every vote and nay this replica signed in the current deal (carried into a
        replica rebuilt within the deal)."""
        return list(self._own.values())

    # ------------------------------------------------------------------ votes at this place
    def voted(self, against: int) -> bool:
        """Whether this replica voted against ``against`` at this place."""
        return against in self._voted

    @property
    def voted_against(self) -> frozenset[int]:
        return frozenset(self._voted)

    def vote_of(self, voter: int, against: int) -> bytes | None:
        """``voter``'s vote against ``against`` at this place, if held."""
        return self._votes.get(against, {}).get(voter)

    def votes_against(self, against: int) -> bool:
        """Whether any vote against ``against`` is held at this place."""
        return bool(self._votes.get(against))

    def add_vote(self, voter: int, against: int, raw: bytes) -> None:
        """Another seat's vote (the first one it signs is kept)."""
        self._votes.setdefault(against, {}).setdefault(voter, raw)

    def add_own_vote(self, seat: int, against: int, raw: bytes) -> None:
        """This replica's own vote."""
        self._voted.add(against)
        self._votes.setdefault(against, {})[seat] = raw

    def complete(self, against: int, live: Sequence[bool]) -> tuple[tuple[int, ...], list[bytes]] | None:
        """``(voters, votes)`` when every other playing seat's vote against ``against`` is
        held (and there are enough voters for a vote), else None."""
        votes = self._votes.get(against, {})
        voters = tuple(s for s in range(len(live)) if live[s] and s != against)
        if len(voters) < MIN_VOTERS or any(v not in votes for v in voters):
            return None
        return voters, [votes[v] for v in voters]

    def own_votes(self, seat: int) -> list[bytes]:
        """This replica's own votes at this place."""
        return [votes[seat] for votes in self._votes.values() if seat in votes]

    # ------------------------------------------------------------------ late messages held aside
    @property
    def holding(self) -> bool:
        return bool(self._held)

    def held(self) -> list[tuple[int, bytes]]:
        """``(author, message)`` of the late messages held aside."""
        return list(self._held.items())

    def hold(self, author: int, raw: bytes) -> bool:
        """Hold ``author``'s late message aside; whether it is new here (it is then relayed,
        once: two voters that hold it must not send it back and forth)."""
        new = self._held.get(author) != raw
        self._held[author] = raw
        return new

    def release(self, author: int) -> None:
        """The vote against ``author`` cannot complete: its message is taken, not held."""
        self._voted.discard(author)
        self._held.pop(author, None)

    def side_messages(self) -> list[bytes]:
        """The votes and held messages of this place (for a sync answer)."""
        out: list[bytes] = []
        for votes in self._votes.values():
            out += votes.values()
        return out + list(self._held.values())

    # ------------------------------------------------------------------ nays of this deal
    def nay_at(self, k: int) -> bytes | None:
        """The nay this replica signed or relayed for place ``k`` of this deal."""
        return self._nays.get(k)

    def keep_nay(self, k: int, raw: bytes) -> None:
        self._nays[k] = raw

    def relay_once(self, raw: bytes) -> bool:
        """Whether nay ``raw`` is new here (it is then relayed, once)."""
        if raw in self._relayed:
            return False
        self._relayed.add(raw)
        return True

    def answer_once(self, voter: int, k: int, against: int) -> bool:
        """Whether ``voter``'s vote against ``against`` for place ``k``, passed, gets an
        answer (once: the answer carries a whole message, many times the vote's size).  At
        most :data:`MAX_ANSWERED` are remembered; past that, the oldest are forgotten (a
        voter may then draw a second answer, no more than one per place a round)."""
        key = (voter, k, against)
        if key in self._answered:
            return False
        if len(self._answered) >= MAX_ANSWERED:
            self._answered.clear()
        self._answered.add(key)
        return True


class SeedRound:
    """The seeds revealed for the current place of a deal's seed round."""

    def __init__(self) -> None:
        self.sent = False
        self.new_place()

    def new_place(self) -> None:
        self._seeds: dict[int, bytes] = {}

    def new_deal(self) -> None:
        self.sent = False
        self.new_place()

    def get(self, seat: int) -> bytes | None:
        return self._seeds.get(seat)

    def has(self, seat: int) -> bool:
        return seat in self._seeds

    def add(self, seat: int, raw: bytes, *, own: bool = False) -> None:
        """``seat``'s seed message (the first one is kept); ``own``: this replica's."""
        self._seeds.setdefault(seat, raw)
        if own:
            self.sent = True

    def missing(self, closers: Sequence[int]) -> list[int]:
        return [s for s in closers if s not in self._seeds]

    def proof(self, closers: Sequence[int]) -> list[bytes]:
        return [self._seeds[s] for s in closers]

    def messages(self) -> list[bytes]:
        return list(self._seeds.values())
