"""Test vectors of the table layer: whole transcripts from fixed keys and secrets.

``python -m p2pcards.testing.table_vectors DIRECTORY`` writes:

* ``table-bisca.json``: a one-deal Bisca table between two seats;
* ``table-vote.json``: a two-deal Sueca table (to 8) whose seat 2 falls silent at its first
  decision; seats 0, 1 and 3 vote it out (an ``outvote`` certificate), seat 2 loses the
  deal, and in the second deal it is a dummy whose cards are dealt face up and whose plays
  every replica computes;
* ``table-dispute.json``: a one-deal Bisca table whose seat 1 seals a wrong key to seat 0;
  seat 0 disputes the deal in its turn with the signed evidence, and seat 1 loses it;
* ``table-fork.json``: a one-deal Sueca table whose seat 1 signs two different plays for
  one place and sends seats 2 and 3 the second; the ``fork`` certificate takes that place
  everywhere and seat 1 loses the deal;
* ``table-takeup.json``: a three-deal Bisca table whose seat 1 abandons deal 1 while seat 0
  is due; seat 1, then seat 0, write a ``takeup``: deal 1 is void and deal 2 is played;
* ``table-proof.json``: a one-deal Sueca table whose seat 1 puts an element that is no card
  into its shuffle; proofs are pipelined, so seats 2 and 3 shuffle on and every seat locks,
  and every replica blames seat 1 (``bad-shuffle``) when the lock round is complete.

Each holds the inputs (every key as the 32-byte seed it is derived from, each peer's table
secret, the genesis), every message in transcript order with its hash, the outcome and
the transcript hash.  Ed25519 signatures and every derivation are deterministic, and so is
the in-memory network that ran them (:class:`~p2pcards.testing.table_mesh.LocalMesh`), so the same
inputs give the same bytes; another implementation replays the messages and must accept
every one, reach the same chain head and the same outcome.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.core import Choice, GameSpec, Plain, load_games
from p2pcards.identity import Identity
from p2pcards.mental import Kind, Wire
from p2pcards.mental.seal import KeyEntry
from p2pcards.players import RandomPlayer
from p2pcards.table.audit import audit_transcript
from p2pcards.table.events import Output
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, SeatInfo, TableKind, make_genesis, message_hash, parse_message, peek
from p2pcards.testing.table_mesh import LocalMesh, Route
from p2pcards.vectorfiles import vectors_main, write_files

__all__ = ["generate", "write", "main", "fixed_identity", "WrongKeySender", "TwoPlays", "MadeUpShuffle", "VOTE_SILENT",
           "FAULT_KEY", "NOT_A_CARD"]

#: The seat that falls silent in ``table-vote.json``.
VOTE_SILENT = 2
#: The key seat 1 seals to seat 0 in ``table-fault.json`` instead of its own (the scalar 5).
FAULT_KEY = (5).to_bytes(32, "little")
#: What seat 1 of ``table-proof.json`` hashes to the group for position 0 of its shuffle.
NOT_A_CARD = b"p2pcards/vectors/not a card"


def _seed(label: str) -> bytes:
    return hashlib.sha256(b"p2pcards/vectors/" + label.encode()).digest()


def fixed_identity(label: str) -> Identity:
    """An identity whose keys are derived from ``label`` (for vectors only)."""
    return Identity(
        Ed25519PrivateKey.from_private_bytes(_seed(label + "/ed25519")),
        X25519PrivateKey.from_private_bytes(_seed(label + "/x25519")),
        label,
    )


def _keys(label: str, secret: str) -> dict[str, str]:
    """The inputs of one peer: its key seeds and its table secret."""
    return {
        "ed25519_seed": _seed(f"{label}/ed25519").hex(),
        "x25519_private": _seed(f"{label}/x25519").hex(),
        "table_secret": _seed(secret).hex(),
    }


@dataclass
class _Setup:
    """A table of fixed identities: seat ``s`` is ``seat{s}`` with secret ``secret{s}``."""

    spec: GameSpec
    genesis: Genesis
    raw: bytes
    ids: list[Identity]
    tables: list[Table] = field(default_factory=list)

    def table(self, s: int, cls: type[Table] = Table) -> Table:
        """Seat ``s``'s replica."""
        table = cls(self.raw, self.spec, self.ids[s], _seed(f"secret{s}"))
        if s == 0:
            self.tables.append(table)
        return table

    def players(self) -> list[RandomPlayer]:
        return [RandomPlayer(random.Random(s)) for s in range(self.spec.seats)]

    def inputs(self, **extra: object) -> dict[str, object]:
        return {
            "host": {"ed25519_seed": _seed("host/ed25519").hex()},
            "seats": [_keys(f"seat{s}", f"secret{s}") for s in range(self.spec.seats)],
            "deal_seed": "HMAC-SHA256(table_secret, 'p2pcards/deal-seed/v2' || table_id || u64(deal) || "
                         "the hash of the last message before the deal)",
            **extra,
        }

    def deals(self) -> list[dict[str, object]]:
        """The deals seat 0's replica closed, as their ``deal`` events say."""
        return [e.to_json() for e in self.tables[0].results]

    def vector(self, description: str, inputs: dict[str, object], log: Sequence[bytes], **outcome: object) -> str:
        """The JSON text of a vector: inputs, messages, ``outcome`` and the chain head."""
        data = {
            "description": description,
            "inputs": inputs,
            "table_id": self.genesis.table_id.hex(),
            "messages": [{"seq": i, "hex": m.hex(), "hash": message_hash(m).hex()} for i, m in enumerate(log)],
            "side_messages": "votes, nays and seeds are not in the transcript; the certificates carry them",
            **outcome,
            "transcript_hash": message_hash(log[-1]).hex(),
        }
        return json.dumps(data, indent=1) + "\n"


def _setup(game: str, deals: int, nonce: str, options: dict[str, str] | None = None) -> _Setup:
    spec = load_games().get(game)
    host = fixed_identity("host")
    ids = [fixed_identity(f"seat{s}") for s in range(spec.seats)]
    genesis = Genesis(game, spec.rules_version, spec.resolve_options(options or {}),
                      tuple(SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint)
                            for i in ids),
                      deals, host.signing_public, host.name, _seed(nonce)[:16], 60.0)
    return _Setup(spec, genesis, make_genesis(host, genesis), ids)


def _audit(log: Sequence[bytes]) -> dict[str, object]:
    return audit_transcript(log, load_games())


def _run(t: _Setup, tables: Sequence[Table], silent_at_decision: int | None = None,
         route: Route | None = None) -> LocalMesh:
    """Run the table in memory; seat ``silent_at_decision`` says nothing from its first
    decision on."""
    mesh = LocalMesh(dict(enumerate(tables)), dict(enumerate(t.players())), route=route)
    mesh.start()
    while True:
        x = silent_at_decision
        if x is not None and x not in mesh.silent and tables[x].decision() is not None:
            mesh.silent.add(x)
        if not mesh.step():
            return mesh


# ---------------------------------------------------------------- a whole table
def _bisca() -> str:
    t = _setup("bisca", 1, "nonce")
    tables = [t.table(s) for s in range(2)]
    _run(t, tables)
    return t.vector("a one-deal Bisca table between two seats, every message in transcript order",
                    t.inputs(), tables[0].log, deals=t.deals())


# ---------------------------------------------------------------- a vote
def _vote() -> str:
    """Seat ``VOTE_SILENT`` of a two-deal Sueca table says nothing from its first decision
    on; when nothing else moves every other seat votes it out, it loses the deal, and it is
    a dummy in the second deal."""
    t = _setup("sueca", 2, "vote/nonce", {"target": "8"})
    x = VOTE_SILENT
    tables = [t.table(s) for s in range(t.spec.seats)]
    _run(t, tables, silent_at_decision=x)
    log = tables[0].log
    assert all(tables[s].log == log and tables[s].finished for s in range(4) if s != x)
    cert_seq = next(i for i, m in enumerate(log) if peek(m)[0] == TableKind.OUTVOTE)
    inputs = t.inputs(silent={"seat": x, "seq": cert_seq,
                              "note": f"seat {x} writes nothing from its first decision on (seq {cert_seq}); "
                                      "when nothing else moves, every other seat votes"})
    vote = {**tables[0].outvotes[0], "certificate": cert_seq}
    # the dummy's decisions are no entries: every replica computes them with the game's rule for a
    # dummy (part of its rules version), so they are written here, where a change of that rule shows
    dummy = [{"choice": choice.to_wire()} for seat, choice in tables[0].results[-1].choices if seat == x]
    return t.vector(f"a two-deal Sueca table to 8: seat {x} falls silent and is voted out, it loses deal 0 and "
                    "is a dummy in deal 1", inputs, log, vote=vote, dummy=dummy, deals=t.deals(), audit=_audit(log))


# ---------------------------------------------------------------- a dispute
class WrongKeySender(Table):
    """Seat 1 of ``table-dispute.json``: the first key it seals in deal 0 is ``FAULT_KEY``
    instead of its own (a modified client; the receiving seat disputes the deal).
    ``cheated`` then says where: ``{"to": seat, "position": position}``."""

    cheated: dict[str, int] | None = None

    def _start_deal(self) -> None:
        super()._start_deal()
        party = self.party
        honest = party._sealed

        def corrupt(step: int, kind: Kind, to: int, positions: tuple[int, ...], entries: tuple[KeyEntry, ...]) -> Wire:
            if self.deal_no == 0 and self.cheated is None:
                first = entries[0]
                self.cheated = {"to": to, "position": first.position}
                entries = (KeyEntry(position=first.position, seat=first.seat, key=FAULT_KEY), *entries[1:])
            return honest(step, kind, to, positions, entries)

        party._sealed = corrupt  # type: ignore[method-assign]


def _dispute() -> str:
    t = _setup("bisca", 1, "fault/nonce")
    tables = [t.table(0), t.table(1, WrongKeySender)]
    sender = tables[1]
    assert isinstance(sender, WrongKeySender)
    _run(t, tables)
    log = tables[0].log
    cheated = sender.cheated
    assert tables[1].log == log and all(table.finished for table in tables) and cheated is not None
    seq = next(i for i, m in enumerate(log) if peek(m)[0] == TableKind.DISPUTE)
    claim = parse_message(log[seq], tables[0].keys)
    inputs = t.inputs(deviation={
        "seat": 1,
        "to": cheated["to"],
        "position": cheated["position"],
        "key": FAULT_KEY.hex(),
        "note": f"in deal 0, seat 1 seals to seat {cheated['to']} this key (the scalar 5, 32 bytes little-endian) "
                f"as its own for position {cheated['position']}",
    })
    dispute = {"seq": seq, "deal": claim.deal, "accuser": claim.author, "against": claim.body["against"]}
    return t.vector("a one-deal Bisca table: seat 1 seals a wrong key to seat 0, which disputes the deal in its "
                    "turn with the signed evidence; seat 1 loses the deal", inputs, log,
                    dispute=dispute, deals=t.deals(), audit=_audit(log))


# ---------------------------------------------------------------- a bad proof, pipelined
class MadeUpShuffle(Table):
    """Seat 1 of ``table-proof.json``: in deal 0, position 0 of its shuffle is
    ``NOT_A_CARD``'s element instead (its proof, made for the honest deck's permutation,
    cannot hold)."""

    def _start_deal(self) -> None:
        super()._start_deal()
        if self.deal_no != 0:
            return
        party = self.party
        honest = party._shuffled

        def shuffled() -> tuple[bytes, ...]:
            return (self.group.hash_to_element(NOT_A_CARD), *honest()[1:])

        party._shuffled = shuffled  # type: ignore[method-assign]


def _proof() -> str:
    t = _setup("sueca", 1, "proof/nonce")
    tables = [t.table(s, MadeUpShuffle if s == 1 else Table) for s in range(t.spec.seats)]
    _run(t, tables)
    log = tables[0].log
    assert all(table.log == log and table.finished for table in tables)
    kinds = [(i, _deck_kind(m, tables[0].keys)) for i, m in enumerate(log)]
    shuffle = next(i for i, k in kinds if k == ("shuffle", 1))
    last_lock = max(i for i, k in kinds if k is not None and k[0] == "lock")
    assert last_lock > shuffle
    inputs = t.inputs(deviation={
        "seat": 1, "seq": shuffle, "element": NOT_A_CARD.hex(),
        "note": "in deal 0, position 0 of seat 1's shuffle is hash_to_element(element) instead of its own",
    })
    fault = {"seat": 1, "kind": "bad-shuffle", "step": shuffle, "halted_at": last_lock,
             "note": "every replica checks the proofs of the rounds when the lock round is complete: the deal "
                     "halts at the last lock, before any key is sent"}
    return t.vector("a one-deal Sueca table: seat 1's shuffle holds an element that is no card; seats 2 and 3 "
                    "shuffle on, every seat locks, and every replica blames seat 1 when the lock round is "
                    "complete", inputs, log, fault=fault, deals=t.deals(), audit=_audit(log))


def _deck_kind(raw: bytes, keys: Sequence[bytes]) -> tuple[str, int] | None:
    """The deck message kind and author of a ``deck`` entry with one message, else None."""
    kind, _ = peek(raw)
    if kind != TableKind.DECK:
        return None
    msgs = parse_message(raw, keys).body["msgs"]
    return (str(msgs[0]["kind"]), int(msgs[0]["seat"])) if len(msgs) == 1 else None


# ---------------------------------------------------------------- an equivocation
class TwoPlays(Table):
    """Seat 1 of ``table-fork.json``: at its first play it also signs the play of its
    next legal card for the same place (``second``), which a router gives seats 2 and 3."""

    second: bytes | None = None

    def decide(self, choice: Choice | Plain) -> Output:
        view, decision = self.view(), self.decision()
        if self.second is None and view is not None and decision is not None and decision.kind == "play":
            others = [p for p in view.legal if p != choice]
            if others:
                twin = Table(self.log[0], self.spec, self.me, self._secret, self.group)
                twin.restore(self.log)
                self.second = twin.decide(others[0]).send[0]
        return super().decide(choice)

    def _adopt(self, fresh: Table) -> None:
        second = self.second
        super()._adopt(fresh)
        self.second = second


def _fork() -> str:
    t = _setup("sueca", 1, "fork/nonce")
    tables = [t.table(0), t.table(1, TwoPlays), t.table(2), t.table(3)]
    cheat = tables[1]
    assert isinstance(cheat, TwoPlays)

    def route(src: int, dst: int, raw: bytes) -> bytes:
        second = cheat.second
        if src == 1 and dst in (2, 3) and second is not None and peek(raw) == peek(second):
            return second
        return raw

    _run(t, tables, route=route)
    log = tables[0].log
    assert all(tables[s].log == log and tables[s].finished for s in (0, 2, 3)) and cheat.second is not None
    seq = next(i for i, m in enumerate(log) if peek(m)[0] == TableKind.FORK)
    inputs = t.inputs(deviation={"seat": 1, "seq": seq, "second": cheat.second.hex(),
                                 "note": "seat 1 signs two plays for this place; seats 2 and 3 get the second"})
    return t.vector("a one-deal Sueca table: seat 1 signs two different plays for one place; the fork "
                    "certificate takes that place everywhere and seat 1 loses the deal", inputs, log,
                    fork={"seq": seq, "against": 1}, deals=t.deals(), audit=_audit(log))


# ---------------------------------------------------------------- an abandon, taken up again
def _takeup() -> str:
    """Seat 1 of a three-deal Bisca table abandons deal 1 the moment seat 0 is due (nothing
    else moving); then seat 1 and seat 0 take the table up, in that order."""
    t = _setup("bisca", 3, "takeup/nonce")
    tables = [t.table(s) for s in range(2)]
    mesh = LocalMesh(dict(enumerate(tables)), dict(enumerate(t.players())))
    mesh.start()
    while not (tables[1].deals_done == 1 and tables[1].may_abandon() and not mesh._queue):
        assert mesh.step(), "the table stopped before deal 1"
    mesh.send(1, mesh.took(1, tables[1].abandon()))
    mesh.run()
    abandon = tables[0].seq - 1
    for s in (1, 0):
        mesh.send(s, mesh.took(s, tables[s].takeup()))
        mesh.run()
    log = tables[0].log
    assert tables[1].log == log and tables[0].finished and tables[0].abandoned is None
    inputs = t.inputs(abandon={"seat": 1, "seq": abandon,
                               "note": "seat 1 abandons when nothing else moves in deal 1 and seat 0 is due; then "
                                       "seat 1 takes the table up, then seat 0"})
    return t.vector("a three-deal Bisca table: seat 1 abandons deal 1, both seats take it up again, deal 1 is "
                    "void and deal 2 is played", inputs, log, abandons=tables[0].abandons, deals=t.deals(),
                    audit=_audit(log))


def generate() -> dict[str, str]:
    """File name -> JSON text of every table vector."""
    return {"table-bisca.json": _bisca(), "table-vote.json": _vote(), "table-dispute.json": _dispute(),
            "table-fork.json": _fork(), "table-takeup.json": _takeup(), "table-proof.json": _proof()}


def write(directory: Path) -> list[Path]:
    """Write every vector file into ``directory``; return their paths."""
    return write_files(directory, generate())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m p2pcards.testing.table_vectors DIRECTORY``: write the vectors there."""
    return vectors_main(argv, "p2pcards.testing.table_vectors", generate)


if __name__ == "__main__":
    raise SystemExit(main())
