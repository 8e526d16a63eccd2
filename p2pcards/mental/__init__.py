"""The mental deck: a dealer-less shuffle, deals, reveals, transfers and an audit that blames.

Commit-reveal SRA over a prime-order group (ristretto255; the benchmark's modp-2048
baseline lives in :mod:`p2pcards.tools.bench_deck`), sans-IO: nothing here touches a socket, a
clock or a thread.  The wire protocol is specified in ``protocol/PROTOCOL.md``.

* :class:`DealSetup` -- the public context of a deal (group, table, deal number, deck,
  every seat's Ed25519 and X25519 public keys).
* :class:`Party` -- one seat's state machine: ``start``, ``receive``, ``deal``,
  ``reveal``, ``transfer``, ``reveal_seed``, and the knowledge queries ``known`` / ``hand``.
* :func:`audit` -- verify a deal's record against the revealed seeds; first
  :class:`Fault` with the seat to blame, or clean with the card at every position.
* Errors: :class:`LocalError` (caller misuse), :class:`DeckFault` (names the seat),
  :class:`UnattributedFault` (visible now, blamed by the audit), :class:`MalformedMessage`.

Every seat of a deal in one process (tests, vectors, benchmark) is
:class:`p2pcards.testing.deck.InProcessDeal`.
"""

from p2pcards.mental.cards import FRENCH_DECK, PORTUGUESE_DECK, check_deck, standard_deck
from p2pcards.mental.deck_audit import AuditReport, Fault, audit, seeds_from_messages
from p2pcards.mental.errors import (
    DeckFault,
    FaultKind,
    GroupError,
    LocalError,
    MalformedMessage,
    MentalError,
    RemoteError,
    UnattributedFault,
)
from p2pcards.mental.evidence import verify_evidence
from p2pcards.mental.group import CountingGroup, Group, Ristretto255, group_by_name
from p2pcards.mental.messages import Kind, Wire
from p2pcards.mental.party import Party
from p2pcards.mental.party_state import Awaited, Phase
from p2pcards.mental.setup import MAX_SEATS, MIN_SEATS, DealSetup

__all__ = [
    "FRENCH_DECK",
    "MAX_SEATS",
    "MIN_SEATS",
    "PORTUGUESE_DECK",
    "AuditReport",
    "Awaited",
    "CountingGroup",
    "DealSetup",
    "DeckFault",
    "Fault",
    "FaultKind",
    "Group",
    "GroupError",
    "Kind",
    "LocalError",
    "MalformedMessage",
    "MentalError",
    "Party",
    "Phase",
    "RemoteError",
    "Ristretto255",
    "UnattributedFault",
    "Wire",
    "audit",
    "check_deck",
    "group_by_name",
    "seeds_from_messages",
    "standard_deck",
    "verify_evidence",
]
