"""Votes, nays, seeds and certificates: how a table's replicas settle a silent seat, a
seat that signed two messages for one place, and a deal's close -- and how a replica takes
a certificate about a place it has passed (protocol/PROTOCOL.md, "Silence: votes and
dummies" and "Equivocation").

Functions over a :class:`~p2pcards.table.table.Table` (its state is theirs to read and
change); the table calls them where a message of these kinds arrives or must be written.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from p2pcards.table.common import MIN_VOTERS, Cause, Rejected
from p2pcards.table.transcript import (
    ENTRY_KINDS,
    TABLE,
    Envelope,
    TableKind,
    TranscriptError,
    make_certificate,
    own_envelope,
    parse_message,
    peek,
    sign_message,
)

if TYPE_CHECKING:
    from p2pcards.table.table import Table

#: Side messages kept for a place this replica has not reached yet.
_MAX_AHEAD_SIDE: Final = 64


def certificate(t: Table, env: Envelope) -> list[bytes]:
    """A certificate for this replica's next place."""
    if env.kind == TableKind.CLOSE:
        t._check_close(env)
        t._close(env)
        return t._flush()
    if env.kind == TableKind.OUTVOTE:
        against, voters = check_outvote(t, env)
        take_outvote(t, env, against, voters)
        return t._flush()
    against = check_fork(t, env)
    take_fork(t, env, against)
    return t._flush()


def side_env(t: Table, raw: bytes) -> Envelope:
    try:
        m = parse_message(raw, t.keys)
    except TranscriptError as exc:
        raise Rejected(f"a certificate whose proof does not verify: {exc}") from None
    if m.table != t.table_id or m.certificate:
        raise Rejected("a certificate whose proof is not of this table")
    return m


def check_outvote(t: Table, env: Envelope) -> tuple[int, tuple[int, ...]]:
    body = env.body
    if set(body) != {"against", "voters"} or type(body["against"]) is not int:
        raise Rejected("an outvote is {against, voters}")
    against = body["against"]
    voters = tuple(s for s in range(t.n) if t.live[s] and s != against)
    if body["voters"] != list(voters) or len(voters) < MIN_VOTERS or len(env.proof) != len(voters):
        raise Rejected("an outvote needs the votes of every other playing seat")
    if against not in t.due() and against != t.seat:  # (this seat cannot argue with the others' clocks)
        raise Rejected(f"an outvote against seat {against}, which the table does not wait for")
    for voter, raw in zip(voters, env.proof, strict=True):
        m = side_env(t, raw)
        if m.kind != TableKind.VOTE or m.author != voter or m.slot != env.slot or m.body != {"against": against}:
            raise Rejected(f"an outvote whose proof is not seat {voter}'s vote here")
    return against, voters


def take_outvote(t: Table, env: Envelope, against: int, voters: tuple[int, ...]) -> None:
    t._append(env)
    t.live[against] = False
    record = {"seat": against, "deal": t.deal_no, "seq": env.seq, "voters": list(voters)}
    t.outvotes.append(record)
    t._emit({"type": "vote_out", "against": against, "deal": t.deal_no, "seq": env.seq,
                "voters": list(voters)})
    if against == t.seat:
        t._emit({"type": "voted_out", "deal": t.deal_no, "seq": env.seq})
    t._halt(Cause("vote-out", against, f"seat {against} was silent past the timeout and was voted out "
                      f"by seats {', '.join(map(str, voters))}", True))


def maybe_outvote(t: Table, against: int) -> list[bytes]:
    votes = t._votes.get(against, {})
    voters = tuple(s for s in range(t.n) if t.live[s] and s != against)
    if len(voters) < MIN_VOTERS or any(v not in votes for v in voters) or against not in t.due():
        return []
    raw = make_certificate(table=t.table_id, deal=t.deal_no, seq=t.seq, prev=t.head,
                           kind=TableKind.OUTVOTE,
                           body={"against": against, "voters": list(voters)},
                           proof=[votes[v] for v in voters])
    take_outvote(t, own_envelope(raw), against, voters)
    return [raw, *t._flush()]


def check_fork(t: Table, env: Envelope) -> int:
    """A fork certificate: two conflicting messages of one author for one place."""
    body = env.body
    if set(body) != {"against"} or type(body["against"]) is not int or len(env.proof) != 2:
        raise Rejected("a fork is {against} with two messages")
    against = body["against"]
    a, b = (side_env(t, r) for r in env.proof)
    if not _conflict(a, b, against) or a.slot != env.slot:
        raise Rejected("a fork certificate whose two messages do not conflict at its place")
    return against


def take_fork(t: Table, env: Envelope, against: int) -> None:
    t._append(env)
    t._emit({"type": "fork", "against": against, "deal": t.deal_no, "seq": env.seq})
    t._halt(Cause("equivocation", against, f"seat {against} signed two different messages for seq "
                      f"{env.seq}", True))


def fork_cert(t: Table, k: int, against: int, one: bytes, two: bytes) -> bytes:
    return make_certificate(table=t.table_id, deal=t._deals[k] if k < t.seq else t.deal_no, seq=k,
                            prev=t.hashes[k - 1], kind=TableKind.FORK, body={"against": against},
                            proof=sorted([one, two]))


def past(t: Table, env: Envelope) -> list[bytes]:
    """A message for a place this replica has passed: a duplicate, evidence of an
    equivocation, a certificate that takes the place of entries of the current deal, or
    stale (refused cheaply: one signature check, no replay)."""
    k = env.seq
    if env.hash == t.hashes[k]:  # (the same message signed again is the same message)
        raise Rejected(f"replayed message (seq {k}: this peer holds it already)")
    if k == 0 or env.prev != t.hashes[k - 1]:
        raise Rejected(f"a message for seq {k} on another chain (this peer is at {t.seq})")
    if env.certificate:
        if env.kind == TableKind.FORK:
            against = check_fork_past(t, env)
            return supersede(t, env, lambda fresh: take_fork(fresh, env, against))
        if env.kind == TableKind.OUTVOTE and (only_mine_from(t, k) or own_close_at(t, k)):
            # the others voted this seat out where its own message (or its close) was: it lost the place
            return supersede(t, env, lambda fresh: certificate(fresh, env))
        raise Rejected(f"a {env.kind} for seq {k}, which this peer has passed")
    if env.kind == TableKind.ABANDON and only_mine_from(t, k) and current_deal(t, k):
        # the other seat gave up waiting where this seat's own message was: it lost the place
        return supersede(t, env, lambda fresh: fresh._apply_entry(env))
    if t._authors[k] == env.author and env.kind in ENTRY_KINDS:
        if not current_deal(t, k):
            raise Rejected(f"seat {env.author} signed two messages for seq {k}, in a deal that is closed",
                           env.author)
        cert = fork_cert(t, k, env.author, t.log[k], env.raw)
        out = supersede(t, own_envelope(cert), lambda fresh: take_fork(fresh, own_envelope(cert), env.author))
        return [cert, *out]
    raise Rejected(f"replayed or stale message (seq {k}; this peer is at {t.seq})")


def own_close_at(t: Table, k: int) -> bool:
    """Whether entry ``k`` is a close this replica wrote with its own seed, that nobody
    but this seat can hold: every entry after it is its own.  (A voter that voted holds
    a late seed aside, so if the others completed a vote against this seat, no other
    replica closed with its seed; such a close is this seat's alone.)"""
    if t.seat is None or t._authors[k] != TABLE or peek(t.log[k])[0] != TableKind.CLOSE:
        return False
    seats = own_envelope(t.log[k]).body.get("seats", [])
    return t.seat in seats and all(a == t.seat for a in t._authors[k + 1:])


def only_mine_from(t: Table, k: int) -> bool:
    """Whether every entry from ``k`` on is this seat's own (only those can lose their place)."""
    return t.seat is not None and all(a == t.seat for a in t._authors[k:])


def current_deal(t: Table, k: int) -> bool:
    return k >= t.deal_start and not t.finished


def check_fork_past(t: Table, env: Envelope) -> int:
    if not current_deal(t, env.seq):
        raise Rejected(f"a fork for seq {env.seq}, in a deal that is closed")
    return check_fork(t, env)


def supersede(t: Table, env: Envelope, take: Callable[[Table], Any]) -> list[bytes]:
    """Go back to ``env.seq`` (within the current deal) and take the certificate there.

    A replica that has revealed its seed for this deal goes back only when another
    playing seat has revealed its seed after the certificate (proof that the chain this
    replica is on can never close)."""
    k = env.seq
    if t._seed_sent and not branch_proven(t, env):
        t._pending_cert = env.raw
        raise Rejected(f"a certificate for seq {k}; this peer revealed its seed on another chain and waits "
                       "for proof that it cannot close")
    fresh = type(t)(t.log[0], t.spec, t.me, t._secret or None, t.group, None)
    fresh._hold_from = k  # this seat's own entry at k, if any, is what the certificate replaces
    fresh.restore(t.log[:k])
    if fresh.seq != k:  # pragma: no cover -- restore stops at k
        raise Rejected(f"cannot go back to seq {k}")
    fresh._hold_from = None
    fresh._ahead_side = list(t._ahead_side)  # (seeds of the certificate's chain among them)
    take(fresh)
    mine = [raw for raw, author in zip(t.log[k:], t._authors[k:], strict=True) if author == t.seat]
    fresh._emit = t._emit
    out = fresh._flush()
    rewound = k if t._rewound is None else min(t._rewound, k)
    superseded = t.superseded + mine
    t._adopt(fresh)
    t._rewound = rewound
    t.superseded = superseded
    return out


def seeds_of(t: Table, env: Envelope) -> list[Envelope]:
    """The seeds in a close's proof, as side messages (checked), for another place."""
    if env.kind != TableKind.CLOSE or not env.certificate:
        return []
    out = []
    for raw in env.proof:
        try:
            m = side_env(t, raw)
        except Rejected:
            return []
        if m.kind == TableKind.SEED and m.slot == env.slot and m.author != t.seat:
            out.append(m)
    return out


def branch_proven(t: Table, env: Envelope) -> bool:
    return any(m.prev == env.hash and m.seq == env.seq + 1 and m.author != t.seat
               for m in t._ahead_side if m.kind == TableKind.SEED)


def side(t: Table, env: Envelope) -> list[bytes]:
    """A vote, nay or seed (signed, for a place of the chain)."""
    if env.author < 0 or not 0 <= env.author < t.n:
        raise Rejected("a side message from no seat")
    if env.seq > t.seq or (env.seq == t.seq and env.prev != t.head):
        if len(t._ahead_side) >= _MAX_AHEAD_SIDE:
            t._ahead_side.pop(0)
        t._ahead_side.append(env)
        pending = t._pending_cert
        if pending is not None and env.kind == TableKind.SEED:
            t._pending_cert = None
            return t.receive(pending)
        return []
    if env.seq < t.seq:
        return side_past(t, env)
    if t.finished:
        return []
    if env.kind == TableKind.SEED:
        return on_seed(t, env)
    if env.kind == TableKind.VOTE:
        return on_vote(t, env)
    return on_nay(t, env)


def on_seed(t: Table, env: Envelope) -> list[bytes]:
    if t.stage != "seeds":
        raise Rejected("a seed before the deal's seed round", env.author)
    if not t.live[env.author] or set(env.body) != {"seed"} or not t._seed_ok(env.author, env.body["seed"]):
        raise Rejected(f"seat {env.author} revealed a seed that is not its commitment's", env.author)
    if env.author in t._voted:  # this peer voted against it here: held, as a late entry is
        t._held[env.author] = env.raw
        return [env.raw]
    old = t._seed_msgs.get(env.author)
    if old is None:
        t._seed_msgs[env.author] = env.raw
    return t._maybe_close()


def on_vote(t: Table, env: Envelope) -> list[bytes]:
    body = env.body
    if set(body) != {"against"} or type(body["against"]) is not int:
        raise Rejected("a vote is {against}", env.author)
    against = body["against"]
    seed = t._seed_msgs.get(against) if t.stage == "seeds" and against != t.seat else None
    if seed is not None and t.live[env.author] and not t.observer and against not in t._voted:
        # this peer holds the seed the vote says is missing: it answers with a nay
        return [sign_nay(t, env.seq, against, seed)]
    if not t.live[env.author] or against == env.author or against not in t.due() or sum(
        t.live
    ) < MIN_VOTERS + 1:
        raise Rejected(f"seat {env.author} may not vote against seat {against} now", env.author)
    if against == t.seat and t.stage != "seeds":
        return []  # this seat has not written its message yet: nothing to show
    votes = t._votes.setdefault(against, {})
    votes.setdefault(env.author, env.raw)
    if t.seat == against and t.stage == "seeds" and t._me_seat() in t._seed_msgs:
        return [t._seed_msgs[t._me_seat()]]
    return maybe_outvote(t, against)


def on_nay(t: Table, env: Envelope) -> list[bytes]:
    """A voter holds the silent seat's message for this place: the vote cannot complete;
    a peer that voted takes the message now."""
    body = env.body
    if set(body) != {"against", "message"} or type(body["message"]) is not bytes:
        raise Rejected("a nay is {against, message}", env.author)
    against = body["against"]
    try:
        msg = parse_message(body["message"], t.keys)
    except TranscriptError as exc:
        raise Rejected(f"a nay whose message does not verify: {exc}", env.author) from None
    if msg.author != against or msg.slot != env.slot or msg.table != t.table_id or against == env.author:
        raise Rejected("a nay whose message is not the silent seat's for this place", env.author)
    mine = t._votes.get(against, {}).get(env.author)
    if mine is not None:  # the same voter voted and nayed: evidence
        return equivocation(t, env.seq, env.author, mine, env.raw)
    if env.raw in t._relayed:
        return []  # relayed once already: relaying it again would echo it round the table for ever
    t._relayed.add(env.raw)
    t._voted.discard(against)
    t._held.pop(against, None)
    t._nays[env.seq] = env.raw
    try:
        return [env.raw, *t.receive(msg.raw)]
    except Rejected:
        return [env.raw]


def side_past(t: Table, env: Envelope) -> list[bytes]:
    """A vote or nay for a place this replica has passed (cheap: no replay)."""
    k = env.seq
    if k == 0 or env.prev != t.hashes[k - 1] or env.kind == TableKind.SEED:
        return []  # stale
    if t._authors[k] == TABLE and peek(t.log[k])[0] == TableKind.CLOSE and env.kind == TableKind.VOTE:
        return [t.log[k]]  # the deal closed here: show the close (it holds every seed)
    if not current_deal(t, k):
        return []
    against = env.body.get("against")
    if env.kind == TableKind.NAY and t._authors[k] == TABLE and peek(t.log[k])[0] == TableKind.OUTVOTE:
        for vote in parse_message(t.log[k], t.keys).proof:
            v = side_env(t, vote)
            if v.author == env.author and _conflict(v, env, env.author):
                return equivocation(t, k, env.author, vote, env.raw)
        return []
    if t._authors[k] != against:
        return []
    if env.kind == TableKind.VOTE:
        if t.seat == against:  # this seat's message holds the place: show it
            return [t.log[k]]
        nay = t._nays.get(k)
        if nay is None and not t.observer and env.author != t.seat:
            nay = sign_nay(t, k, against)
        return [nay] if nay is not None else []
    return []


def sign_nay(t: Table, k: int, against: int, message: bytes | None = None) -> bytes:
    """A nay for place ``k``: ``message`` (the silent seat's message there: by default its
    entry at ``k``; in a seed round, its seed) shows that it was not silent."""
    assert t.me is not None and t.seat is not None
    prev, deal = (t.head, t.deal_no) if k == t.seq else (t.hashes[k - 1], t._deals[k])
    raw = sign_message(t.me, table=t.table_id, deal=deal, seq=k, prev=prev, author=t.seat,
                       kind=TableKind.NAY,
                       body={"against": against, "message": t.log[k] if message is None else message})
    t._nays[k] = raw
    t.own_side.append(raw)
    return raw


def equivocation(t: Table, k: int, author: int, one: bytes, two: bytes) -> list[bytes]:
    if not current_deal(t, k):
        return []
    cert = fork_cert(t, k, author, one, two)
    env = own_envelope(cert)
    if k == t.seq:
        take_fork(t, env, author)
        return [cert, *t._flush()]
    return [cert, *supersede(t, env, lambda fresh: take_fork(fresh, own_envelope(cert), author))]


def restore_side(t: Table, raw: bytes) -> None:
    """Put back this peer's own saved vote or nay (so that it never does both)."""
    try:
        env = parse_message(raw, t.keys)
    except TranscriptError:
        return
    if env.author != t.seat:
        return
    if env.kind == TableKind.VOTE and env.slot == (t.seq, t.head):
        against = env.body.get("against")
        if isinstance(against, int):
            t._voted.add(against)
            t._votes.setdefault(against, {})[env.author] = raw
    elif env.kind == TableKind.NAY and env.seq < t.seq and current_deal(t, env.seq):
        t._nays[env.seq] = raw


def _conflict(a: Envelope, b: Envelope, author: int) -> bool:
    """Whether two messages prove that ``author`` equivocated: both its, for one place,
    different; two entries, or a vote and a nay against the same seat."""
    if a.author != author or b.author != author or a.slot != b.slot or a.hash == b.hash or a.certificate:
        return False
    if a.kind in ENTRY_KINDS and b.kind in ENTRY_KINDS:
        return True
    kinds = {a.kind, b.kind}
    return kinds == {TableKind.VOTE, TableKind.NAY} and a.body.get("against") == b.body.get("against")
