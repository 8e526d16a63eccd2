"""Hypothesis: random sequences of deals, reveals and transfers on small decks, and junk input."""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.mental import MentalError, RemoteError, audit
from tests.mental_helpers import ready_table


class Model:
    """Who holds what, and who has seen which position, with full information."""

    def __init__(self, n: int, size: int) -> None:
        self.n = n
        self.holder: list[int | None] = [None] * size
        self.public = [False] * size
        self.seen: list[set[int]] = [set() for _ in range(n)]

    def deal(self, positions: list[int], to: int) -> None:
        for p in positions:
            self.holder[p] = to
            self.seen[to].add(p)

    def reveal(self, positions: list[int]) -> None:
        for p in positions:
            self.public[p] = True

    def transfer(self, positions: list[int], to: int) -> None:
        self.deal(positions, to)

    def known(self, seat: int) -> set[int]:
        return self.seen[seat] | {p for p, public in enumerate(self.public) if public}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), n=st.integers(2, 4), size=st.integers(4, 8))
def test_random_operations_keep_every_seat_to_its_information(
    data: st.DataObject, n: int, size: int
) -> None:
    seats, table = ready_table(n, size, salt=f"property {n} {size}")
    model = Model(n, size)
    seat = st.integers(0, n - 1)
    for _ in range(data.draw(st.integers(1, 8), label="operations")):
        deliver = data.draw(st.booleans(), label="deliver")
        dealable = [p for p in range(size) if model.holder[p] is None or model.public[p]]
        held = {s: [p for p in range(size) if model.holder[p] == s] for s in range(n)}
        choices = (
            ["reveal"]
            + (["deal"] if dealable else [])
            + (["transfer"] if any(held.values()) else [])
        )
        op = data.draw(st.sampled_from(choices), label="op")
        if op == "deal":
            positions = data.draw(st.lists(st.sampled_from(dealable), min_size=1, unique=True))
            to = data.draw(seat)
            table.deal(positions, to, deliver)
            model.deal(positions, to)
        elif op == "reveal":
            positions = data.draw(st.lists(st.integers(0, size - 1), min_size=1, unique=True))
            table.reveal(positions, deliver)
            model.reveal(positions)
        else:
            source = data.draw(st.sampled_from([s for s in range(n) if held[s]]))
            positions = data.draw(st.lists(st.sampled_from(held[source]), min_size=1, unique=True))
            to = data.draw(st.sampled_from([s for s in range(n) if s != source]))
            table.transfer(positions, source, to, deliver)
            model.transfer(positions, to)
    table.deliver()
    report = audit(seats.setup, table.messages(), seats.seed_map())
    assert report.clean and report.cards is not None
    for party in table.parties:
        assert not party.awaiting()
        expected = {p: report.cards[p] for p in model.known(party.seat)}
        assert party.known() == expected
        assert party.hand() == {p: c for p, c in expected.items() if model.holder[p] == party.seat}
        assert all(party.holder(p) == model.holder[p] for p in range(size))


WIRE = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70) | st.binary(max_size=40) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=6) | st.dictionaries(st.text(max_size=8), inner, max_size=6)
    ),
    max_leaves=20,
)
KEYS = st.sampled_from(
    [
        "kind",
        "table",
        "deal",
        "seat",
        "step",
        "to",
        "positions",
        "sealed",
        "keys",
        "deck",
        "key_commitments",
        "commitment",
        "seed",
    ]
)
KINDS = st.sampled_from(
    ["commit", "shuffle", "lock", "keys", "transfer", "reveal", "share", "seed"]
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    junk=st.one_of(
        WIRE,
        st.fixed_dictionaries(
            {
                "kind": KINDS,
                "table": st.just(b"test table"),
                "deal": st.just(5),
                "seat": st.integers(1, 2),
            },
            optional={
                name: WIRE
                for name in [
                    "step",
                    "to",
                    "positions",
                    "sealed",
                    "keys",
                    "deck",
                    "key_commitments",
                    "commitment",
                    "seed",
                ]
            },
        ),
        st.dictionaries(KEYS, WIRE, max_size=8),
    )
)
def test_junk_never_escapes_as_anything_but_a_typed_error(junk: object) -> None:
    seats, table = ready_table(3, 4, salt="junk")
    party = table.parties[0]
    try:
        party.receive(junk)
    except RemoteError:
        assert party.failure is not None
    except MentalError:
        pass
    with contextlib.suppress(MentalError):
        audit(seats.setup, [*table.messages(), junk], seats.seed_map())
