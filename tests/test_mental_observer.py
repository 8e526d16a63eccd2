"""An observer party follows a deal with no seat; a fault only one seat can see (keys
sealed to it) does not kill that seat's party, which carries on with the deal's structure."""

from __future__ import annotations

import pytest

from p2pcards.mental import DeckFault, FaultKind, LocalError, Party, UnattributedFault
from p2pcards.mental.kdf import SeedKdf, hpke_info
from p2pcards.mental.messages import Wire
from p2pcards.mental.seal import KeyEntry, SealedPayload, hpke_seal, sign_payload
from tests.mental_helpers import SCRIPT, Harness, Seats

SEATS = Seats(3, 6, salt="observer")


def test_an_observer_checks_and_opens_only_what_is_public():
    harness = Harness(SEATS, lambda seat, m: m)
    watcher = Party.observer(SEATS.setup)
    assert watcher.is_observer and watcher.hand() == {}
    seen = 0
    for step in SCRIPT:
        harness.everyone(step)
        if step is not SCRIPT[0] and step is not SCRIPT[-1]:
            assert step(watcher) == []  # it declares the operation, owes nothing
        for message in harness.transcript[seen:]:
            assert watcher.receive(message) == []
        seen = len(harness.transcript)
        if step is SCRIPT[0]:
            assert watcher.deal_id == harness.parties[0].deal_id
    assert watcher.awaiting() == ()
    public = {p: c for p, c in harness.parties[0].known().items() if harness.parties[0].is_public(p)}
    assert watcher.known() == public and public, "exactly the public cards"
    assert watcher.revealed_seeds() == dict(enumerate(SEATS.seeds))
    with pytest.raises(LocalError):
        watcher.start()
    with pytest.raises(LocalError):
        watcher.reveal_seed()
    with pytest.raises(LocalError):
        watcher.live_record()


def test_an_observer_blames_a_bad_reveal_like_a_seat():
    def tamper(seat: int, message: Wire) -> Wire:
        if message.get("kind") == "reveal" and seat == 0:
            keys = [list(k) for k in message["keys"]]  # type: ignore[union-attr]
            keys[0][1] = keys[0][2]
            return {**message, "keys": keys}
        return message

    harness = Harness(SEATS, tamper)
    watcher = Party.observer(SEATS.setup)
    seen = 0
    with pytest.raises(DeckFault) as caught:
        for step in SCRIPT:
            harness.everyone(step)
            if step is not SCRIPT[0]:
                step(watcher)
            for message in harness.transcript[seen:]:
                watcher.receive(message)
            seen = len(harness.transcript)
    assert caught.value.seat == 0 and caught.value.kind is FaultKind.BAD_REVEAL
    assert not caught.value.private and watcher.failure is caught.value


def _bad_keys_to(recipient: int, sender: int, *, garbage: bool):
    """An intercept: ``sender``'s first keys message to ``recipient`` carries a wrong (but
    properly sealed and signed) key, or does not open at all."""
    done = []

    def intercept(seat: int, message: Wire) -> Wire:
        if done or seat != sender or message.get("kind") != "keys" or message.get("to") != recipient:
            return message
        done.append(True)
        if garbage:
            sealed = bytearray(message["sealed"])  # type: ignore[arg-type]
            sealed[-1] ^= 1
            return {**message, "sealed": bytes(sealed)}
        setup = SEATS.setup
        kdf = SeedKdf(setup.group, setup.table_id, setup.deal_number, sender, SEATS.seeds[sender])
        positions = tuple(message["positions"])  # type: ignore[arg-type]
        wrong = kdf.secrets(setup.deck_size).keys[(positions[0] + 1) % setup.deck_size]
        deal_id = harness_ref[0].parties[recipient].deal_id
        assert deal_id is not None
        entries = tuple(KeyEntry(position=p, seat=sender, key=wrong) for p in positions)
        payload = SealedPayload(kind="keys", table_id=setup.table_id, deal_number=setup.deal_number,
                                deal_id=deal_id, step=message["step"], sender=sender, recipient=recipient,
                                entries=entries)
        info = hpke_info(setup.table_id, setup.deal_number, "keys", message["step"], sender, recipient)
        sealed = hpke_seal(setup.sealing_keys[recipient], info, sign_payload(SEATS.signing[sender], payload),
                           kdf.hpke_ikm("keys", message["step"], recipient))
        return {**message, "sealed": sealed}

    harness_ref: list[Harness] = []
    return intercept, harness_ref


@pytest.mark.parametrize("garbage", [False, True], ids=["wrong-key", "does-not-open"])
def test_a_private_fault_leaves_the_recipient_following_the_deal(garbage):
    intercept, ref = _bad_keys_to(0, 2, garbage=garbage)
    harness = Harness(SEATS, intercept)
    ref.append(harness)
    victim = harness.parties[0]
    seen = 0
    faults: list[Exception] = []
    for step in SCRIPT[:-1]:
        for party in harness.parties:
            for m in step(party):
                harness.transcript.append(intercept(party.seat, m))  # type: ignore[arg-type]
        while seen < len(harness.transcript):
            message = harness.transcript[seen]
            seen += 1
            for party in harness.parties:
                if party.seat == message.get("seat"):
                    continue
                try:
                    for m in party.receive(message):
                        harness.transcript.append(m)
                except (DeckFault, UnattributedFault) as exc:
                    assert party is victim
                    faults.append(exc)
    assert len(faults) == 1, faults
    fault = faults[0]
    assert isinstance(fault, DeckFault) and fault.private and fault.seat == 2
    assert fault.kind is (FaultKind.BAD_SEAL if garbage else FaultKind.BAD_KEY)
    assert (fault.evidence is not None) is (not garbage)
    assert victim.failure is None and victim.private_fault is fault
    # it followed everything else: nothing awaited, and the positions it was dealt but
    # cannot open are missing from its hand
    assert victim.awaiting() == ()
    assert 0 not in victim.known() and 1 not in victim.known()
    # it was to reveal position 0 (SCRIPT: reveal([0])) and cannot: it is blocked
    assert victim.blocked()
    with pytest.raises(LocalError):
        victim.live_record()
    # the others are unaffected
    assert all(p.failure is None and p.private_fault is None for p in harness.parties[1:])
