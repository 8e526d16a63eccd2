"""Evidence against a seat, checked at once: a sealed plaintext that a
:class:`~p2pcards.mental.errors.DeckFault` carries, signed by the accused, proves a wrong
key without waiting for the seeds the deal's audit (:mod:`p2pcards.mental.deck_audit`)
needs.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.mental.deck_audit import Fault
from p2pcards.mental.errors import DeckFault, FaultKind
from p2pcards.mental.kdf import deal_id, key_commitment
from p2pcards.mental.messages import Commit, Lock, decode
from p2pcards.mental.seal import verify_plaintext
from p2pcards.mental.setup import DealSetup

__all__ = ["verify_evidence"]


def verify_evidence(
    setup: DealSetup, messages: Sequence[object], accused: int, evidence: bytes
) -> Fault | None:
    """Check a sealed plaintext presented against ``accused`` (from ``DeckFault.evidence``).

    ``messages`` must hold the commitments and the lock round.  Returns a ``bad-key`` fault
    against ``accused`` if the plaintext carries ``accused``'s valid signature and a key
    that is not the committed one; ``None`` if the evidence proves nothing.
    """
    payload = verify_plaintext(evidence, setup.signing_keys[accused])
    if payload is None or payload.sender != accused:
        return None
    commits: dict[int, bytes] = {}
    locks: dict[int, tuple[bytes, ...]] = {}
    for wire in messages:
        try:
            message = decode(setup, wire)
        except DeckFault:
            continue
        if isinstance(message, Commit):
            commits.setdefault(message.seat, message.commitment)
        elif isinstance(message, Lock):
            locks.setdefault(message.seat, message.key_commitments)
    if len(commits) != setup.n_seats:
        return None
    the_deal_id = deal_id(
        setup.table_id,
        setup.deal_number,
        setup.group.name,
        setup.deck,
        [commits[s] for s in range(setup.n_seats)],
    )
    if (
        payload.table_id != setup.table_id
        or payload.deal_number != setup.deal_number
        or payload.deal_id != the_deal_id
    ):
        return None
    for entry in payload.entries:
        committed = locks.get(entry.seat)
        if committed is None or not 0 <= entry.position < setup.deck_size:
            return None
        if (
            not setup.group.scalar_is_valid(entry.key)
            or key_commitment(the_deal_id, entry.seat, entry.position, entry.key)
            != committed[entry.position]
        ):
            return Fault(
                seat=accused,
                kind=FaultKind.BAD_KEY,
                reason=f"signed a wrong key of seat {entry.seat} for position {entry.position}",
            )
    return None
