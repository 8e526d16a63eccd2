"""Certificates: checked whole or not at all, one function per kind (protocol/PROTOCOL.md,
"Kinds: entries, side messages, certificates").

A certificate is an entry the table writes from the seats' signed messages: ``close``
(every playing seat's seed for one place), ``outvote`` (every other playing seat's vote
against a silent seat at one place), ``fork`` (two messages one author signed for one
place).  Each ``check_*`` function takes the certificate and what the replica knows, checks
every message of its proof (encoding, signature, table, kind, author, place, body) and what
they must prove together, and returns what the certificate says -- or raises
:class:`~p2pcards.table.common.Rejected` having taken nothing.  Each ``make_*`` function
writes the certificate from signed messages a replica holds.  Pure functions: every path
that takes a certificate (a message in turn, a place passed, a sync, a restore) goes
through the same check.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from p2pcards.table.common import MIN_VOTERS, Rejected
from p2pcards.table.transcript import (
    ENTRY_KINDS,
    Envelope,
    TableKind,
    TranscriptError,
    make_certificate,
    own_envelope,
    parse_message,
)

__all__ = [
    "proof_message",
    "check_close",
    "check_outvote",
    "check_fork",
    "close_seeds",
    "conflict",
    "make_close",
    "make_outvote",
    "make_fork",
]


def proof_message(raw: bytes, keys: Sequence[bytes], table_id: bytes) -> Envelope:
    """One signed message of a certificate's proof, checked (never a certificate itself)."""
    try:
        m = parse_message(raw, keys)
    except TranscriptError as exc:
        raise Rejected(f"a certificate whose proof does not verify: {exc}") from None
    if m.table != table_id or m.certificate:
        raise Rejected("a certificate whose proof is not of this table")
    return m


def check_close(env: Envelope, keys: Sequence[bytes], table_id: bytes, closers: tuple[int, ...],
                seed_ok: Callable[[int, object], bool]) -> dict[int, bytes | None]:
    """A ``close``: every one of ``closers``' seed for its place, each the seed of its
    commitment (``seed_ok``).  Returns the seeds by seat."""
    body = env.body
    if set(body) != {"seats", "seeds"} or body["seats"] != list(closers) or not isinstance(
        body["seeds"], list
    ) or len(env.proof) != len(closers) or len(body["seeds"]) != len(closers):
        raise Rejected("a close names every playing seat and its seed")
    for seat, seed, raw in zip(closers, body["seeds"], env.proof, strict=True):
        m = proof_message(raw, keys, table_id)
        if m.kind != TableKind.SEED or m.author != seat or m.slot != env.slot or m.body != {"seed": seed}:
            raise Rejected(f"a close whose proof is not seat {seat}'s seed here")
        if not seed_ok(seat, seed):
            raise Rejected(f"a close with a seed of seat {seat} that does not match its commitment")
    return dict(zip(closers, body["seeds"], strict=True))


def check_outvote(env: Envelope, keys: Sequence[bytes], table_id: bytes, live: Sequence[bool],
                  may_be_out: Callable[[int], bool]) -> tuple[int, tuple[int, ...]]:
    """An ``outvote``: the votes of every other playing seat (at least :data:`MIN_VOTERS`)
    against one seat at its place, a seat that may be voted out there (``may_be_out``).
    Returns ``(against, voters)``."""
    body = env.body
    if set(body) != {"against", "voters"} or type(body["against"]) is not int or not 0 <= body["against"] < len(live):
        raise Rejected("an outvote is {against, voters}")
    against = body["against"]
    voters = tuple(s for s in range(len(live)) if live[s] and s != against)
    if body["voters"] != list(voters) or len(voters) < MIN_VOTERS or len(env.proof) != len(voters):
        raise Rejected("an outvote needs the votes of every other playing seat")
    if not may_be_out(against):
        raise Rejected(f"an outvote against seat {against}, which the table does not wait for")
    for voter, raw in zip(voters, env.proof, strict=True):
        m = proof_message(raw, keys, table_id)
        if m.kind != TableKind.VOTE or m.author != voter or m.slot != env.slot or m.body != {"against": against}:
            raise Rejected(f"an outvote whose proof is not seat {voter}'s vote here")
    return against, voters


def check_fork(env: Envelope, keys: Sequence[bytes], table_id: bytes) -> int:
    """A ``fork``: two messages that prove its ``against`` equivocated at its place."""
    body = env.body
    if set(body) != {"against"} or type(body["against"]) is not int or len(env.proof) != 2:
        raise Rejected("a fork is {against} with two messages")
    against = body["against"]
    a, b = (proof_message(r, keys, table_id) for r in env.proof)
    if not conflict(a, b, against) or a.slot != env.slot:
        raise Rejected("a fork certificate whose two messages do not conflict at its place")
    return against


def close_seeds(env: Envelope, keys: Sequence[bytes], table_id: bytes) -> list[Envelope]:
    """The signed seeds for its place in a ``close``'s proof (none if a message of the
    proof does not verify)."""
    if env.kind != TableKind.CLOSE or not env.certificate:
        return []
    out = []
    for raw in env.proof:
        try:
            m = proof_message(raw, keys, table_id)
        except Rejected:
            return []
        if m.kind == TableKind.SEED and m.slot == env.slot:
            out.append(m)
    return out


def conflict(a: Envelope, b: Envelope, author: int) -> bool:
    """Whether two messages prove that ``author`` equivocated: both its, for one place,
    different; two entries, or a vote and a nay against the same seat."""
    if a.author != author or b.author != author or a.slot != b.slot or a.hash == b.hash or a.certificate:
        return False
    if a.kind in ENTRY_KINDS and b.kind in ENTRY_KINDS:
        return True
    kinds = {a.kind, b.kind}
    return kinds == {TableKind.VOTE, TableKind.NAY} and a.body.get("against") == b.body.get("against")


def make_close(table_id: bytes, deal: int, seq: int, prev: bytes, closers: tuple[int, ...],
               seeds: Sequence[bytes]) -> bytes:
    """A ``close`` from every closer's seed message (in seat order)."""
    values = [own_envelope(m).body["seed"] for m in seeds]
    return make_certificate(table=table_id, deal=deal, seq=seq, prev=prev, kind=TableKind.CLOSE,
                            body={"seats": list(closers), "seeds": values}, proof=list(seeds))


def make_outvote(table_id: bytes, deal: int, seq: int, prev: bytes, against: int, voters: tuple[int, ...],
                 votes: Sequence[bytes]) -> bytes:
    """An ``outvote`` from every voter's vote (in seat order)."""
    return make_certificate(table=table_id, deal=deal, seq=seq, prev=prev, kind=TableKind.OUTVOTE,
                            body={"against": against, "voters": list(voters)}, proof=list(votes))


def make_fork(table_id: bytes, deal: int, seq: int, prev: bytes, against: int, one: bytes, two: bytes) -> bytes:
    """A ``fork`` from two conflicting messages of ``against`` (in increasing byte order)."""
    return make_certificate(table=table_id, deal=deal, seq=seq, prev=prev, kind=TableKind.FORK,
                            body={"against": against}, proof=sorted([one, two]))
