"""Benchmark of one whole deal, all seats in one process, ristretto255 against modp-2048,
and what the shuffle and lock proofs cost.

:func:`run` plays one deal with each group: commitments, shuffle and lock rounds, every
seat dealt ``cards // seats`` cards (the rest stay in the stock), one trick (each seat
reveals one of its cards), one stock card shown if any are left, and the seeds revealed;
then one audit.  Both groups run exactly the same protocol in the same run.  The
ristretto255 deal is played once to warm up and then five times, and each of its times is
the median of the five (``deals``); the modp-2048 deal, some 2 s per seat, is played once.
The group comparison runs the deck without proofs (the protocol both groups can afford);
the proofs are measured on ristretto255, as tables play it.

Figures, per group:

* **compute per seat** -- time spent inside that seat's party from its creation until its
  hand is open: deriving its secrets, committing, checking what it receives, shuffling,
  locking, sealing its keys to the others and opening its own hand;
* **play per seat** -- time spent inside that seat's party for the rest of the deal: the
  reveals (showing its card, opening the others') and the seeds;
* **audit** -- one run of :func:`~p2pcards.mental.deck_audit.audit` (every seat runs the same);
* **group operations per seat**, over the whole deal -- scalar multiplications
  (``mult``), hashes to the group (``hash``), stand-alone element validations
  (``validate``) and scalar-field products and inversions (``scalar``);
* **bytes per seat** -- msgpack-encoded size of all messages the seat sent in the deal.

With ``json_out`` the output is one JSON object::

    {"seats": int, "cards": int, "dealt_per_seat": int, "reveals": int,
     "groups": {"ristretto255": GROUP, "modp2048": GROUP},
     "ratio": {"compute": float, "audit": float, "play": float, "bytes": float},
     "proofs": PROOFS, "aims": [AIM, ...]}

    GROUP = {"deals": int, "compute_ms": [float per seat], "compute_ms_max": float,
             "play_ms": [float per seat], "play_ms_max": float, "audit_ms": float,
             "ops": [{"mult": int, "hash": int, "validate": int, "scalar": int} per seat],
             "audit_ops": {same keys}, "bytes_sent": [int per seat], "bytes_sent_max": int}

    PROOFS = {"compute_ms_max": float, "compute_ms_max_without": float, "ratio": float,
              "prove_ms_max": float, "verify_ms_max": float, "bytes_per_seat": int,
              "bytes_sent_max": int, "bytes_sent_max_without": int,
              "chain_ms_on_arrival": float, "chain_ms_pipelined": float}

``proofs`` (ristretto255, the median of five deals with and five without proofs):
the slowest seat's compute with and without them and their ``ratio``; for the slowest seat,
the time to make its own shuffle and lock proofs (``prove_ms_max``) and to check every
other seat's (``verify_ms_max``); the msgpack size of one seat's two proofs
(``bytes_per_seat``) and the most bytes a seat sends with and without them; and how long
the shuffle and lock rounds' proofs take end to end if every seat had a core of its own,
computed from each step's measured times (:func:`rounds_chain`): each proof checked by
the next author before it makes its own (``chain_ms_on_arrival``), or checked alongside,
as tables do (``chain_ms_pipelined``).  Aims:
proving plus checking ≤ 150 ms per seat (it was 300 when the proofs came in), ≤ 60 KB of
proofs per seat.

``ratio`` is modp-2048 over ristretto255 for the slowest seat's compute (until its hand is
open), the audit, the slowest seat's play and the largest number of bytes sent.  Aims
(issue 3): ≤ 20 ms per seat for 4 seats and 40 cards, ≥ 200× faster than the baseline,
≤ 40 KB sent per seat.

``aims`` (:func:`aims`) says of each aim what was measured and whether it is met::

    AIM = {"aim": TEXT, "measured": float, "unit": "ms"|"x"|"KB", "met": true|false|null}

``met`` is null for the 20 ms aim when the deal is not of 4 seats and 40 cards (it says
nothing of another size).  A KB is 1,024 bytes.  Proving plus checking is the slowest
prover's time plus the slowest checker's (an upper bound for any one seat).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from statistics import median
from typing import Final

import msgpack  # type: ignore[import-untyped]
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from p2pcards.mental.cards import standard_deck
from p2pcards.mental.deck_audit import audit, seeds_from_messages
from p2pcards.mental.errors import GroupError, LocalError
from p2pcards.mental.group import CountingGroup, Group, Ristretto255
from p2pcards.mental.kdf import SeedKdf
from p2pcards.mental.messages import Lock, Shuffle, decode
from p2pcards.mental.party import Party
from p2pcards.mental.proofs import (
    ShuffleProof,
    generators,
    proof_context,
    prove_lock,
    prove_shuffle,
    verify_lock,
    verify_shuffle,
)
from p2pcards.mental.setup import DealSetup
from p2pcards.testing.deck import InProcessDeal

__all__ = ["Modp2048", "measure", "run"]


MODP2048_PRIME: Final = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74"
    "020BBEA63B139B22514A08798E3404DDEF9519B3CD3A431B302B0A6DF25F1437"
    "4FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF05"
    "98DA48361C55D39A69163FA8FD24CF5F83655D23DCA3AD961C62F356208552BB"
    "9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF695581718"
    "3995497CEA956AE515D2261898FA051015728E5A8AACAA68FFFFFFFFFFFFFFFF",
    16,
)
"""The RFC 3526 2048-bit MODP group prime (group 14), a safe prime."""


def _jacobi(a: int, n: int) -> int:
    """The Jacobi symbol (a/n) for odd n > 0 (binary algorithm with reciprocity)."""
    a %= n
    sign = 1
    while a:
        while not a & 1:
            a >>= 1
            if n & 7 in (3, 5):
                sign = -sign
        a, n = n, a
        if a & 3 == 3 and n & 3 == 3:
            sign = -sign
        a %= n
    return sign if n == 1 else 0


class Modp2048(Group):
    """Quadratic residues modulo the RFC 3526 2048-bit safe prime (prime order q)."""

    name = "modp2048"
    element_size = 256
    scalar_size = 256
    wide_size = 320

    P: Final = MODP2048_PRIME
    ORDER: Final = (MODP2048_PRIME - 1) // 2
    """The prime order q = (p - 1) / 2 of the quadratic residues."""

    def _decode(self, element: bytes) -> int:
        """Decode and validate: 256 bytes, 1 < x < p, x a quadratic residue."""
        if type(element) is not bytes or len(element) != 256:
            raise GroupError("element is not 256 bytes")
        value = int.from_bytes(element, "big")
        if not 1 < value < self.P:
            raise GroupError("element out of range or the identity")
        if _jacobi(value, self.P) != 1:
            raise GroupError("element is not a quadratic residue")
        return value

    def hash_to_element(self, message: bytes) -> bytes:
        """Square of SHA-512(message || i) for i = 0..4, concatenated, reduced mod p."""
        wide = b"".join(hashlib.sha512(message + bytes([i])).digest() for i in range(5))
        root = int.from_bytes(wide, "big") % self.P
        value = root * root % self.P
        if value <= 1:
            raise GroupError("hash to group gave the identity")
        return value.to_bytes(256, "big")

    def validate(self, element: bytes) -> None:
        """See :meth:`_decode`."""
        self._decode(element)

    def mult(self, scalar: bytes, element: bytes) -> bytes:
        """``element ** scalar mod p`` after validation."""
        value = pow(self._decode(element), int.from_bytes(scalar, "big"), self.P)
        if value == 1:
            raise GroupError("zero product")
        return value.to_bytes(256, "big")

    def scalar_reduce(self, wide: bytes) -> bytes:
        """Big-endian value of 320 bytes mod q."""
        return (int.from_bytes(wide, "big") % self.ORDER).to_bytes(256, "big")

    def scalar_is_valid(self, scalar: bytes) -> bool:
        """256 bytes, big-endian value in 1..q-1."""
        return (
            type(scalar) is bytes
            and len(scalar) == 256
            and 0 < int.from_bytes(scalar, "big") < self.ORDER
        )

    def scalar_mul(self, a: bytes, b: bytes) -> bytes:
        """Product mod q."""
        product = int.from_bytes(a, "big") * int.from_bytes(b, "big") % self.ORDER
        return product.to_bytes(256, "big")

    def scalar_invert(self, a: bytes) -> bytes:
        """Inverse mod q."""
        return pow(int.from_bytes(a, "big"), -1, self.ORDER).to_bytes(256, "big")

    GENERATOR: Final = 4
    """``B`` = 2², a generator of the quadratic residues."""

    def base_mult(self, scalar: bytes) -> bytes:
        """``4 ** scalar mod p``."""
        value = pow(self.GENERATOR, int.from_bytes(scalar, "big"), self.P)
        if value == 1:
            raise GroupError("zero product")
        return value.to_bytes(256, "big")

    def _operand(self, element: bytes) -> int:
        """An operand of :meth:`add`/:meth:`sub`: a residue, the identity (1) allowed."""
        if type(element) is bytes and len(element) == 256 and int.from_bytes(element, "big") == 1:
            return 1
        return self._decode(element)

    def add(self, a: bytes, b: bytes) -> bytes:
        """The group operation: ``a · b mod p``."""
        return (self._operand(a) * self._operand(b) % self.P).to_bytes(256, "big")

    def sub(self, a: bytes, b: bytes) -> bytes:
        """``a · b⁻¹ mod p``."""
        return (self._operand(a) * pow(self._operand(b), -1, self.P) % self.P).to_bytes(256, "big")

    def scalar_add(self, a: bytes, b: bytes) -> bytes:
        """Sum mod q."""
        return ((int.from_bytes(a, "big") + int.from_bytes(b, "big")) % self.ORDER).to_bytes(256, "big")

    def scalar_sub(self, a: bytes, b: bytes) -> bytes:
        """Difference mod q."""
        return ((int.from_bytes(a, "big") - int.from_bytes(b, "big")) % self.ORDER).to_bytes(256, "big")

_OPS = ("mult", "hash", "validate", "scalar")
_FAST_REPEAT = 5


@dataclass(frozen=True, kw_only=True)
class _Deal:
    """The figures of one benchmark deal."""

    compute_ms: list[float]
    play_ms: list[float]
    audit_ms: float
    ops: list[dict[str, int]]
    audit_ops: dict[str, int]
    bytes_sent: list[int]


def _one_deal(group_factory: type[Group], seats: int, cards: int, proofs: bool = False) -> _Deal:
    """Play and audit one deal with a fresh counting group per seat, timing each seat."""
    deck = standard_deck(cards)
    signing = [Ed25519PrivateKey.generate() for _ in range(seats)]
    sealing = [X25519PrivateKey.generate() for _ in range(seats)]
    table_id = os.urandom(16)

    def setup(group: Group) -> DealSetup:
        """The deal's setup over ``group`` (each seat counts its own operations)."""
        return DealSetup(
            group=group,
            table_id=table_id,
            deal_number=0,
            deck=deck,
            signing_keys=[k.public_key().public_bytes_raw() for k in signing],
            sealing_keys=[k.public_key().public_bytes_raw() for k in sealing],
            proofs=proofs,
        )

    generators(group_factory(), cards)  # fixed for every deal: made once per process, not counted here
    groups = [CountingGroup(group_factory()) for _ in range(seats)]
    built = []
    parties = []
    for s in range(seats):
        begin = time.perf_counter()
        parties.append(Party.with_random_seed(setup(groups[s]), s, signing[s], sealing[s]))
        built.append(time.perf_counter() - begin)
    table = InProcessDeal(parties, clock=time.perf_counter)
    table.start()
    hand = cards // seats
    for s in range(seats):
        table.deal(range(s * hand, (s + 1) * hand), s, deliver=False)
    table.deliver()
    dealt_at = list(table.elapsed)
    for s in range(seats):
        table.reveal([s * hand])
    if hand * seats < cards:
        table.reveal([cards - 1])
    table.reveal_seeds()
    if any(party.awaiting() for party in parties):
        raise LocalError("the benchmark deal did not complete")

    audit_group = CountingGroup(group_factory())
    audit_setup = setup(audit_group)
    messages = table.messages()
    seeds = seeds_from_messages(audit_setup, messages)
    begin = time.perf_counter()
    report = audit(audit_setup, messages, seeds)
    audit_ms = (time.perf_counter() - begin) * 1000
    if not report.clean:
        raise LocalError(f"the benchmark deal failed its audit: {report.fault}")
    return _Deal(
        compute_ms=[(built[s] + dealt_at[s]) * 1000 for s in range(seats)],
        play_ms=[(table.elapsed[s] - dealt_at[s]) * 1000 for s in range(seats)],
        audit_ms=audit_ms,
        ops=[{op: g.counts[op] for op in _OPS} for g in groups],
        audit_ops={op: audit_group.counts[op] for op in _OPS},
        bytes_sent=table.bytes_sent(),
    )


def measure(
    group_factory: type[Group], seats: int, cards: int, repeat: int = 1, proofs: bool = False
) -> dict[str, object]:
    """Figures (GROUP in the module docstring) of ``repeat`` deals: each time is the median.

    Operation counts and sizes are the same in every deal.
    """
    deals = [_one_deal(group_factory, seats, cards, proofs) for _ in range(repeat)]
    compute = [median(d.compute_ms[s] for d in deals) for s in range(seats)]
    play = [median(d.play_ms[s] for d in deals) for s in range(seats)]
    first = deals[0]
    return {
        "deals": repeat,
        "compute_ms": compute,
        "compute_ms_max": max(compute),
        "play_ms": play,
        "play_ms_max": max(play),
        "audit_ms": median(d.audit_ms for d in deals),
        "ops": first.ops,
        "audit_ops": first.audit_ops,
        "bytes_sent": first.bytes_sent,
        "bytes_sent_max": max(first.bytes_sent),
    }


def _proof_times(seats: int, cards: int) -> dict[str, float | int]:
    """One deal's proofs on ristretto255, timed seat by seat: each seat's own two proofs made
    again, and every other seat's checked, from the deal's real decks."""
    group = Ristretto255()
    deck = standard_deck(cards)
    signing = [Ed25519PrivateKey.generate() for _ in range(seats)]
    sealing = [X25519PrivateKey.generate() for _ in range(seats)]
    setup = DealSetup(group=group, table_id=os.urandom(16), deal_number=0, deck=deck,
                      signing_keys=[k.public_key().public_bytes_raw() for k in signing],
                      sealing_keys=[k.public_key().public_bytes_raw() for k in sealing])
    parties = [Party.with_random_seed(setup, s, signing[s], sealing[s]) for s in range(seats)]
    table = InProcessDeal(parties)
    table.start()
    decks: list[tuple[bytes, ...]] = [tuple(parties[0]._encodings)]
    steps: list[Shuffle | Lock] = []
    for wire in table.messages():
        message = decode(setup, wire)
        if isinstance(message, Shuffle | Lock):
            steps.append(message)
            decks.append(message.deck)
    deal_id = parties[0].deal_id
    assert deal_id is not None and len(steps) == 2 * seats
    prove_ms, verify_ms, sizes = [], [], []
    make_step = [0.0] * len(steps)  # ms to prove each step, and to check it (mean of its checkers)
    check_step = [0.0] * len(steps)
    for s, party in enumerate(parties):
        kdf = SeedKdf(group, setup.table_id, 0, s, party.seed)
        secrets = kdf.secrets(cards)
        exponents = [group.scalar_mul(secrets.shuffle_scalar, k) for k in secrets.keys]
        begin = time.perf_counter()
        shuffle = prove_shuffle(group, proof_context(deal_id, s, "shuffle"), decks[s], decks[s + 1],
                                secrets.permutation, secrets.shuffle_scalar, kdf.proof_nonce("shuffle"))
        middle = time.perf_counter()
        lock = prove_lock(group, proof_context(deal_id, s, "lock"), decks[seats + s], decks[seats + s + 1],
                          exponents, kdf.proof_nonce("lock"))
        end = time.perf_counter()
        make_step[s], make_step[seats + s] = (middle - begin) * 1000, (end - middle) * 1000
        prove_ms.append((end - begin) * 1000)
        sizes.append(len(msgpack.packb(shuffle.to_wire())) + len(msgpack.packb(lock.to_wire())))
        checking = 0.0
        for t, step in enumerate(steps):
            author, kind = t % seats, ("shuffle" if t < seats else "lock")
            if author == s:
                continue
            assert step.proof is not None
            begin = time.perf_counter()
            ok = (verify_shuffle(group, proof_context(deal_id, author, kind), decks[t], decks[t + 1], step.proof)
                  if isinstance(step.proof, ShuffleProof) else
                  verify_lock(group, proof_context(deal_id, author, kind), decks[t], decks[t + 1], step.proof))
            took = (time.perf_counter() - begin) * 1000
            checking += took
            check_step[t] += took / (seats - 1)
            if not ok:
                raise LocalError(f"the benchmark's {kind} proof of seat {author} does not verify")
        verify_ms.append(checking)
    return {"prove_ms_max": max(prove_ms), "verify_ms_max": max(verify_ms), "bytes_per_seat": max(sizes),
            "chain_ms_on_arrival": round(rounds_chain(make_step, check_step, seats, pipelined=False), 1),
            "chain_ms_pipelined": round(rounds_chain(make_step, check_step, seats, pipelined=True), 1)}


def rounds_chain(make: list[float], check: list[float], seats: int, pipelined: bool) -> float:
    """When every seat is ready for the first operation, from the first shuffle on, if each
    seat had a core of its own: step ``t`` (seat ``t % seats``) takes ``make[t]`` to prove and
    ``check[t]`` to check, a seat checks the steps of others in order whenever it is not
    making its own, one proof at a time (a proof being checked is finished first), and all
    of them before the first operation.  Checking on arrival, the author of a step first
    checks every step before it; pipelined (PROTOCOL.md, "Rounds"), it makes its step as
    soon as the one before has arrived."""
    steps = len(make)
    done = [0.0] * steps  # when each step has arrived everywhere
    free = [0.0] * seats  # when each seat is next free
    checked = [0] * seats  # how many steps each seat has checked or made

    def check_until(seat: int, limit: int, until: float | None) -> None:
        """Seat ``seat`` checks steps in order up to ``limit`` (excluded), starting each one
        that has arrived by ``until`` (None: wait for each)."""
        while checked[seat] < limit:
            t = checked[seat]
            if t % seats == seat:
                checked[seat] += 1
                continue
            if until is not None and max(free[seat], done[t]) >= until:
                return
            free[seat] = max(free[seat], done[t]) + check[t]
            checked[seat] += 1

    for t in range(steps):
        author = t % seats
        arrived = done[t - 1] if t else 0.0
        for s in range(seats):  # spare time before this step arrives
            check_until(s, t, arrived)
        if not pipelined:
            check_until(author, t, None)
        free[author] = max(free[author], arrived) + make[t]
        done[t] = free[author]
    for s in range(seats):
        check_until(s, steps, None)
    return max(free)


def _proofs(seats: int, cards: int, plain: dict[str, object]) -> dict[str, object]:
    """The PROOFS figures (module docstring); ``plain``: the same deal measured without."""
    proved = measure(Ristretto255, seats, cards, repeat=_FAST_REPEAT, proofs=True)
    times = _proof_times(seats, cards)
    return {"compute_ms_max": proved["compute_ms_max"], "compute_ms_max_without": plain["compute_ms_max"],
            "ratio": _ratio(proved["compute_ms_max"], plain["compute_ms_max"]), **times,
            "bytes_sent_max": proved["bytes_sent_max"], "bytes_sent_max_without": plain["bytes_sent_max"]}


def _ratio(a: object, b: object) -> float:
    """``a / b`` for two figures."""
    assert isinstance(a, int | float) and isinstance(b, int | float)
    return float(a) / float(b) if b else float("inf")


#: Bytes in a KB, as the aims count them.
KB = 1024


def aims(seats: int, cards: int, fast: dict[str, object], ratio: dict[str, float],
         proofs: dict[str, object]) -> list[dict[str, object]]:
    """Each aim of the deck (module docstring), what was measured and whether it is met."""

    def num(x: object) -> float:
        assert isinstance(x, int | float)
        return float(x)

    out: list[dict[str, object]] = []

    def aim(words: str, measured: float, unit: str, limit: float, most: bool, applies: bool = True) -> None:
        met = (measured <= limit if most else measured >= limit) if applies else None
        out.append({"aim": words, "measured": round(measured, 2), "unit": unit, "met": met})

    aim("≤ 20 ms per seat (4 seats, 40 cards)", num(fast["compute_ms_max"]), "ms", 20.0, True,
        applies=(seats, cards) == (4, 40))
    aim("≥ 200× faster than the baseline", ratio["compute"], "x", 200.0, False)
    aim("≤ 40 KB sent per seat", num(fast["bytes_sent_max"]) / KB, "KB", 40.0, True)
    aim("≤ 150 ms per seat to make and check the proofs", num(proofs["prove_ms_max"]) + num(proofs["verify_ms_max"]),
        "ms", 150.0, True)
    aim("≤ 60 KB of proofs per seat", num(proofs["bytes_per_seat"]) / KB, "KB", 60.0, True)
    return out


def aim_line(a: dict[str, object]) -> str:
    """One aim for people: the aim, what was measured, and met, not met, or not measured."""
    unit = {"ms": " ms", "x": "×", "KB": " KB"}[str(a["unit"])]
    verdict = {True: "met", False: "NOT met", None: "not measured at this size"}[a["met"]]  # type: ignore[index]
    return f"  {a['aim']}: {a['measured']:g}{unit} — {verdict}"


def run(seats: int = 4, cards: int = 40, json_out: bool = False) -> int:
    """Measure one deal with each group and print the figures; returns an exit status."""
    if not 2 <= seats <= 4 or not seats <= cards <= 52:
        print("bench deck: 2 to 4 seats and at most 52 cards, at least one per seat")
        return 2
    _one_deal(Ristretto255, seats, cards)  # warm-up, not counted
    fast = measure(Ristretto255, seats, cards, repeat=_FAST_REPEAT)
    slow = measure(Modp2048, seats, cards)
    proofs = _proofs(seats, cards, fast)
    hand = cards // seats
    reveals = seats + (1 if hand * seats < cards else 0)
    ratio = {
        "compute": _ratio(slow["compute_ms_max"], fast["compute_ms_max"]),
        "audit": _ratio(slow["audit_ms"], fast["audit_ms"]),
        "play": _ratio(slow["play_ms_max"], fast["play_ms_max"]),
        "bytes": _ratio(slow["bytes_sent_max"], fast["bytes_sent_max"]),
    }
    verdicts = aims(seats, cards, fast, ratio, proofs)
    if json_out:
        print(
            json.dumps(
                {
                    "seats": seats,
                    "cards": cards,
                    "dealt_per_seat": hand,
                    "reveals": reveals,
                    "groups": {Ristretto255.name: fast, Modp2048.name: slow},
                    "ratio": ratio,
                    "proofs": proofs,
                    "aims": verdicts,
                }
            )
        )
        return 0
    print(
        f"mental deck, one deal: {seats} seats, {cards} cards, {hand} dealt to each seat, "
        f"{reveals} reveals, then the audit\n(ristretto255: median of {_FAST_REPEAT} deals "
        "after a warm-up; modp2048: one deal)"
    )
    print(f"{'':34}{'ristretto255':>14}{'modp2048':>14}{'modp/ristretto':>16}")
    rows = [
        ("deal per seat, ms (slowest)", "compute_ms_max", "compute", "{:.1f}"),
        ("audit, ms (each seat runs one)", "audit_ms", "audit", "{:.1f}"),
        ("play per seat, ms (reveals, seed)", "play_ms_max", "play", "{:.1f}"),
        ("bytes sent per seat (most)", "bytes_sent_max", "bytes", "{:d}"),
    ]
    for label, key, ratio_key, fmt in rows:
        print(
            f"{label:34}{fmt.format(fast[key]):>14}{fmt.format(slow[key]):>14}"
            f"{ratio[ratio_key]:>15.1f}×"
        )
    for name, figures in ((Ristretto255.name, fast), (Modp2048.name, slow)):
        ops = figures["ops"]
        assert isinstance(ops, list)
        worst = {op: max(counts[op] for counts in ops) for op in _OPS}
        print(
            f"group ops per seat, {name} (most): " + ", ".join(f"{k} {v}" for k, v in worst.items())
        )
    print(f"with the shuffle and lock proofs (ristretto255, as tables play): deal per seat "
          f"{proofs['compute_ms_max']:.1f} ms (slowest), {proofs['ratio']:.2f}× the deck without them; "
          f"making its own {proofs['prove_ms_max']:.1f} ms, checking the others' {proofs['verify_ms_max']:.1f} ms "
          f"(slowest seat); {proofs['bytes_per_seat']} bytes of proofs per seat, "
          f"{proofs['bytes_sent_max']} sent in all (was {proofs['bytes_sent_max_without']})")
    on_arrival, pipelined = proofs["chain_ms_on_arrival"], proofs["chain_ms_pipelined"]
    print(f"the rounds' proofs end to end, a core per seat (from each step's times): pipelined "
          f"{pipelined:.1f} ms, {_ratio(pipelined, on_arrival):.2f}× checking each on arrival ({on_arrival:.1f} ms)")
    print("aims:")
    for verdict in verdicts:
        print(aim_line(verdict))
    return 0
