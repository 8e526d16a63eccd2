"""The abandons of a table of two playing seats, and the takeups that answer them
(``protocol/PROTOCOL.md``, "Two seats: abandoning").

:class:`Abandons` owns what a replica knows of them: the abandon that ended the table (if
one did), every abandon in order with its place and whether both seats took the table up
again, and the seats whose ``takeup`` answers the last one.  The checks of an ``abandon``
and a ``takeup`` from another seat are here too; the replica applies what they allow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from p2pcards.table.common import Rejected

__all__ = ["Abandons", "behind", "check_abandon"]


def behind(seat: int | None, totals: Sequence[int], teams: Sequence[Sequence[int]], lower_is_better: bool) -> int:
    """How far the side of ``seat`` (a team of ``teams``) trails the best other side in
    ``totals`` (0: level or ahead; lower totals are the better ones where the match says so)."""
    if seat is None or not totals:
        return 0
    side = next(i for i, team in enumerate(teams) if seat in team)
    sign = -1 if lower_is_better else 1
    others = [sign * t for i, t in enumerate(totals) if i != side]
    return max(0, max(others, default=0) - sign * totals[side])


def check_abandon(author: int, body: Mapping[str, object], waiting: Sequence[int], two_seats: bool) -> list[int]:
    """The seats an ``abandon`` by ``author`` waits for (``waiting``: the seats due other
    than it), or :class:`Rejected`: only a playing seat of a table of two (``two_seats``)
    may abandon, while another seat is due, saying which."""
    if not two_seats:
        raise Rejected("only a table of two playing seats can be abandoned", author)
    if not waiting:
        raise Rejected(f"seat {author} abandons while nobody else is due", author)
    if body != {"waiting_for": sorted(waiting)}:
        raise Rejected("malformed abandon", author)
    return sorted(waiting)


class Abandons:
    """What a replica knows of its table's abandons and takeups (module docstring)."""

    def __init__(self) -> None:
        #: the abandon that ended the table: ``{"by", "waiting_for", "deal", "totals",
        #: "behind"}``; None while the table plays (again, once both seats took it up)
        self.ended: dict[str, object] | None = None
        #: every abandon, in order: as ``ended`` with its ``seq`` and whether it was ``taken_up``
        self.records: list[dict[str, object]] = []
        #: the seats whose ``takeup`` answers the abandon that ended the table, in order
        self.takeups: list[int] = []
        #: the hashes of the higher seats' takeups answered with the lower seat's (each once)
        self.answered: set[bytes] = set()

    @property
    def after(self) -> int | None:
        """The seq of the last abandon (None: never abandoned)."""
        seq = self.records[-1]["seq"] if self.records else None
        return seq if isinstance(seq, int) else None

    def open_at(self, deal: int) -> bool:
        """Whether the takeups of the last abandon may still change (a lower seat's in place
        of a higher seat's, ``protocol/PROTOCOL.md``): while the table waits for them, and
        after them until the deal that follows closes (``deal``: the replica's deal now)."""
        if self.ended is not None:
            return True
        last = self.records[-1] if self.records else None
        if last is None or last["taken_up"] is not True or not isinstance(last["deal"], int):
            return False
        return deal <= last["deal"] + 1

    def copies(self) -> list[dict[str, object]]:
        return [dict(a) for a in self.records]

    def record(self, by: int | None, waiting: list[int], deal: int, totals: list[int], behind: int,
               seq: int) -> dict[str, object]:
        """The table ends here, abandoned by ``by`` (at ``seq``); what it ended as."""
        self.ended = {"by": by, "waiting_for": waiting, "deal": deal, "totals": totals, "behind": behind}
        self.records.append({**self.ended, "seq": seq, "taken_up": False})
        self.takeups = []
        return dict(self.ended)

    def awaiting(self, live: Sequence[bool]) -> frozenset[int]:
        """The playing seats whose takeup the abandoned table still waits for (empty when it
        is not abandoned)."""
        if self.ended is None:
            return frozenset()
        return frozenset(s for s, playing in enumerate(live) if playing and s not in self.takeups)

    def check_takeup(self, author: int, body: Mapping[str, object], playing: bool) -> None:
        """:class:`Rejected` unless a ``takeup`` by ``author`` may take the next place: the
        table ended abandoned, ``author`` is one of its two ``playing`` seats, names the last
        abandon and has not taken it up yet."""
        if self.ended is None:
            raise Rejected(f"seat {author} takes up a table that is not abandoned", author)
        if not playing:
            raise Rejected(f"seat {author} is not a playing seat of the abandoned table", author)
        if set(body) != {"after"} or type(body["after"]) is not int or body["after"] != self.after:
            raise Rejected(f"a takeup names the abandon it answers (seq {self.after})", author)
        if author in self.takeups:
            raise Rejected(f"seat {author} took the table up already", author)

    def complete(self, live: Sequence[bool]) -> dict[str, object] | None:
        """Once every playing seat took the table up: the abandon, now marked taken up (the
        table plays again); else None."""
        if self.ended is None or self.awaiting(live):
            return None
        self.records[-1]["taken_up"] = True
        self.ended, self.takeups = None, []
        return dict(self.records[-1])
