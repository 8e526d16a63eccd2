"""Test vectors of the table layer: whole transcripts from fixed keys and secrets.

``python -m p2pcards.table.vectors DIRECTORY`` writes:

* ``table-bisca.json``: a one-deal Bisca table between two seats;
* ``table-vote.json``: a two-deal Sueca table whose seat 2 falls silent at its first
  decision; seats 0, 1 and 3 vote it out, the first deal is void, and a bot with fixed
  keys plays the seat in the second deal;
* ``table-fault.json``: a one-deal Bisca table whose seat 1 seals a wrong key to seat 0;
  seat 0 claims it with the signed evidence (a ``fault`` message), the deal is void and
  seat 1 blamed.

Each holds the inputs (every key as the 32-byte seed it is derived from, each peer's table
secret, the genesis), every message in transcript order with its hash, the outcome and
the transcript hash.  Ed25519 signatures and every derivation are deterministic, so the
same inputs give the same bytes; another implementation replays the messages and must
accept every one, reach the same chain head and the same outcome.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.core import GameSpec, load_games
from p2pcards.core.players import RandomPlayer
from p2pcards.identity import Identity
from p2pcards.mental.seal import KeyEntry
from p2pcards.table.audit import audit_transcript
from p2pcards.table.local import run_local
from p2pcards.table.table import Table
from p2pcards.table.transcript import Genesis, SeatInfo, make_genesis, message_hash
from p2pcards.table.wire import unpack
from p2pcards.vectorfiles import vectors_main, write_files

__all__ = ["generate", "write", "main", "fixed_identity", "WrongKeySender", "VOTE_SILENT", "FAULT_KEY"]

#: The seat that falls silent in ``table-vote.json``.
VOTE_SILENT = 2
#: The key seat 1 seals to seat 0 in ``table-fault.json`` instead of its own (the scalar 5).
FAULT_KEY = (5).to_bytes(32, "little")


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
    events: list[dict[str, Any]] = field(default_factory=list)

    def table(self, s: int, cls: type[Table] = Table) -> Table:
        """Seat ``s``'s replica (seat 0's events are kept)."""
        return cls(self.raw, self.spec, self.ids[s], _seed(f"secret{s}"),
                   on_event=self.events.append if s == 0 else None)

    def players(self) -> list[RandomPlayer]:
        return [RandomPlayer(random.Random(s)) for s in range(self.spec.seats)]

    def inputs(self, **extra: Any) -> dict[str, Any]:
        return {
            "host": {"ed25519_seed": _seed("host/ed25519").hex()},
            "seats": [_keys(f"seat{s}", f"secret{s}") for s in range(self.spec.seats)],
            "deal_seed": "HMAC-SHA256(table_secret, 'p2pcards/deal-seed/v1' || table_id || u64(deal))",
            **extra,
        }

    def deals(self) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == "deal"]

    def vector(self, description: str, inputs: dict[str, Any], log: Sequence[bytes], **outcome: Any) -> str:
        """The JSON text of a vector: inputs, messages, ``outcome`` and the chain head."""
        data = {
            "description": description,
            "inputs": inputs,
            "table_id": self.genesis.table_id.hex(),
            "messages": [{"seq": i, "hex": m.hex(), "hash": message_hash(m).hex()} for i, m in enumerate(log)],
            **outcome,
            "transcript_hash": message_hash(log[-1]).hex(),
        }
        return json.dumps(data, indent=1) + "\n"


def _setup(game: str, deals: int, nonce: str) -> _Setup:
    spec = load_games().get(game)
    host = fixed_identity("host")
    ids = [fixed_identity(f"seat{s}") for s in range(spec.seats)]
    genesis = Genesis(game, spec.rules_version, spec.resolve_options({}),
                      tuple(SeatInfo(i.name, i.signing_public, i.sealing_public, "random", host.fingerprint)
                            for i in ids),
                      deals, host.signing_public, host.name, _seed(nonce)[:16], 60.0)
    return _Setup(spec, genesis, make_genesis(host, genesis), ids)


def _audit(log: Sequence[bytes]) -> dict[str, Any]:
    return audit_transcript(log, load_games())


# ---------------------------------------------------------------- a whole table
def _bisca() -> str:
    t = _setup("bisca", 1, "nonce")
    tables = [t.table(s) for s in range(2)]
    run_local(tables, t.players())
    return t.vector("a one-deal Bisca table between two seats, every message in transcript order",
                    t.inputs(), tables[0].log, deals=t.deals())


# ---------------------------------------------------------------- a vote
def _vote() -> str:
    """Seat ``VOTE_SILENT`` of a two-deal Sueca table says nothing from its first decision
    on; when nothing else moves its opener votes it out naming the bot, the others vote in
    seat order, and the bot's replica, restored from the transcript, plays the second deal."""
    t = _setup("sueca", 2, "vote/nonce")
    x = VOTE_SILENT
    tables = {s: t.table(s) for s in range(t.spec.seats)}
    players: dict[int, Any] = dict(enumerate(t.players()))
    bot_id, bot_secret = fixed_identity("bot"), _seed("bot-secret")
    alive = set(tables)
    opener: int | None = None
    silent_at: int | None = None
    queue = [(s, m) for s, table in tables.items() for m in table.start()]

    def spawn() -> None:
        """Seat the bot once a replica has completed the vote."""
        if x in alive:
            return
        for s in sorted(alive):
            if tables[s].replacements:
                bot = Table(t.raw, t.spec, bot_id, bot_secret, seat=x)
                queue.extend((x, m) for m in bot.restore(tables[s].log))
                tables[x], players[x] = bot, RandomPlayer(random.Random(99))
                alive.add(x)
                return

    while True:
        if queue:
            src, raw = queue.pop(0)
            seq = unpack(raw)["seq"]
            for s in sorted(alive):
                table = tables[s]
                if s == src or table.finished or (seq < table.seq and table.log[seq] == raw):
                    continue
                queue += [(s, m) for m in table.receive(raw)]
                spawn()
            continue
        for s in sorted(alive):
            decision = tables[s].decision()
            if decision is None:
                continue
            if s == x and silent_at is None:  # the seat falls silent here
                silent_at = tables[s].seq
                alive.discard(x)
                continue
            queue += [(s, m) for m in tables[s].decide(players[s].choose(tables[s].view(), decision))]
            break
        else:
            opener = next((s for s in sorted(alive) if tables[s].may_open_vote() == x), None)
            if opener is None or tables[opener].replacements:
                break
            info = SeatInfo("bot", bot_id.signing_public, bot_id.sealing_public, "random", t.ids[opener].fingerprint)
            queue += [(opener, m) for m in tables[opener].vote_out(info)]
            spawn()
    log = tables[0].log
    assert all(tables[s].log == log and tables[s].finished for s in alive) and silent_at is not None
    rep = tables[0].replacements[0]
    inputs = t.inputs(
        silent={"seat": x, "seq": silent_at,
                "note": f"seat {x} writes nothing from its first decision on (seq {silent_at}), "
                        "where the lowest other seat opens the vote"},
        bot={**_keys("bot", "bot-secret"), "name": "bot", "bot": "random", "runs_on": t.ids[rep.opener].fingerprint},
    )
    vote = {
        "seat": rep.seat,
        "deal": rep.deal,
        "opened_at": rep.slot,
        "completed_at": rep.seq,
        "voters": list(rep.voters),
        "old_signing": rep.old_signing.hex(),
        "bot": {"name": rep.bot.name, "signing": rep.bot.signing.hex(), "sealing": rep.bot.sealing.hex(),
                "fingerprint": rep.bot.fingerprint, "bot": rep.bot.bot, "runs_on": rep.bot.runs_on},
    }
    return t.vector(f"a two-deal Sueca table: seat {x} falls silent and is voted out, deal 0 is void, "
                    "a bot with fixed keys plays the seat in deal 1", inputs, log,
                    vote=vote, deals=t.deals(), audit=_audit(log))


# ---------------------------------------------------------------- a fault claim
class WrongKeySender(Table):
    """Seat 1 of ``table-fault.json``: the first key it seals in deal 0 is ``FAULT_KEY``
    instead of its own (a modified client; the receiving seat claims the fault).
    ``cheated`` then says where: ``{"to": seat, "position": position}``."""

    cheated: dict[str, int] | None = None

    def _start_deal(self) -> None:
        super()._start_deal()
        party = self.party
        honest = party._sealed

        def corrupt(step: int, kind: Any, to: int, positions: Any, entries: tuple[KeyEntry, ...]) -> Any:
            if self.deal_no == 0 and self.cheated is None:
                first = entries[0]
                self.cheated = {"to": to, "position": first.position}
                entries = (KeyEntry(position=first.position, seat=first.seat, key=FAULT_KEY), *entries[1:])
            return honest(step, kind, to, positions, entries)

        party._sealed = corrupt  # type: ignore[method-assign]


def _fault() -> str:
    t = _setup("bisca", 1, "fault/nonce")
    tables = [t.table(0), t.table(1, WrongKeySender)]
    sender = tables[1]
    assert isinstance(sender, WrongKeySender)
    run_local(tables, t.players())
    log = tables[0].log
    cheated = sender.cheated
    assert tables[1].log == log and all(table.finished for table in tables) and cheated is not None
    claim_seq = next(i for i, m in enumerate(log) if unpack(m)["kind"] == "fault")
    claim = unpack(log[claim_seq])
    inputs = t.inputs(deviation={
        "seat": 1,
        "to": cheated["to"],
        "position": cheated["position"],
        "key": FAULT_KEY.hex(),
        "note": f"in deal 0, seat 1 seals to seat {cheated['to']} this key (the scalar 5, 32 bytes little-endian) "
                f"as its own for position {cheated['position']}, in the message just before the claim",
    })
    fault = {"seq": claim_seq, "deal": claim["deal"], "claimant": claim["author"], "against": claim["body"]["against"]}
    return t.vector("a one-deal Bisca table: seat 1 seals a wrong key to seat 0, which claims it with the "
                    "signed evidence (a fault message); the deal is void and seat 1 blamed", inputs, log,
                    fault=fault, deals=t.deals(), audit=_audit(log))


def generate() -> dict[str, str]:
    """File name -> JSON text of every table vector."""
    return {"table-bisca.json": _bisca(), "table-vote.json": _vote(), "table-fault.json": _fault()}


def write(directory: Path) -> list[Path]:
    """Write every vector file into ``directory``; return their paths."""
    return write_files(directory, generate())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m p2pcards.table.vectors DIRECTORY``: write the vectors there."""
    return vectors_main(argv, "p2pcards.table.vectors", generate)


if __name__ == "__main__":
    raise SystemExit(main())
