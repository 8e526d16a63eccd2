"""A choice's two forms (p2pcards/core/choices.py): the plain form the transcript, the engine
and the screens carry, and the value the rules act on; reading one into the other refuses
anything malformed with IllegalChoice, and the plain form comes back unchanged."""

from __future__ import annotations

import doctest

import msgpack
import pytest

import p2pcards.core.choices as choices_module
from p2pcards.core import (
    GO_IN,
    PASS,
    PLAY,
    TRUMP,
    GoIn,
    IllegalChoice,
    PassCards,
    Play,
    Swap,
    TrumpChoice,
    Word,
    from_wire,
    is_choice,
    load_games,
)


def test_the_module_examples_hold():
    result = doctest.testmod(choices_module)
    assert result.attempted and not result.failed


@pytest.mark.parametrize(("kind", "plain", "value"), [
    (PLAY, 0, Play(0)),
    (PLAY, 39, Play(39)),
    (PLAY, ["swap", 7], Swap(7)),
    (TRUMP, "S", TrumpChoice("S")),
    (TRUMP, "turn", TrumpChoice("turn")),
    (PASS, [3, 1, 2], PassCards((3, 1, 2))),
    (GO_IN, [], GoIn(())),
    (GO_IN, [4, 0], GoIn((4, 0))),
    (GO_IN, None, GoIn(None)),
    ("lead", "pass", Word("pass")),
])
def test_the_plain_form_round_trips_through_the_value(kind, plain, value):
    assert from_wire(kind, plain) == value
    assert value.to_wire() == plain
    # what the transcript signs: msgpack of the plain form, the same bytes as before values
    assert msgpack.unpackb(msgpack.packb(value.to_wire())) == plain
    assert from_wire(kind, value) is value  # a value is taken as it is
    assert is_choice(value) and not is_choice(plain)
    assert hash(value) == hash(from_wire(kind, plain))  # frozen: usable as a key


@pytest.mark.parametrize(("kind", "handed", "plain"), [
    (PLAY, ("swap", 7), ["swap", 7]),
    (PASS, (3, 1, 2), [3, 1, 2]),
    (GO_IN, (), []),
])
def test_a_tuple_reads_like_a_list_and_goes_back_as_the_list_msgpack_gives(kind, handed, plain):
    assert from_wire(kind, handed) == from_wire(kind, plain)
    assert from_wire(kind, handed).to_wire() == plain


@pytest.mark.parametrize(("kind", "plain"), [
    (PLAY, True),  # a bool is no position
    (PLAY, 3.0),
    (PLAY, "7"),
    (PLAY, None),
    (PLAY, [7]),
    (PLAY, ["swap"]),
    (PLAY, ["swap", "7"]),
    (PLAY, ["swop", 7]),
    (PLAY, ["swap", 7, 8]),
    (TRUMP, "X"),
    (TRUMP, "SH"),
    (TRUMP, ""),
    (TRUMP, 0),
    (TRUMP, None),
    (PASS, None),
    (PASS, 3),
    (PASS, [1, "2"]),
    (PASS, [1, True]),
    (PASS, {"cards": [1]}),
    (GO_IN, "none"),
    (GO_IN, [None]),
    ("lead", 1),
    ("lead", None),
    ("lead", ["lead"]),
])
def test_a_malformed_plain_form_is_refused(kind, plain):
    with pytest.raises(IllegalChoice):
        from_wire(kind, plain)


@pytest.mark.parametrize(("kind", "value"), [
    (PLAY, TrumpChoice("S")),
    (TRUMP, Play(1)),
    (PASS, GoIn((1, 2, 3))),
    (GO_IN, PassCards((1,))),
    ("lead", Play(1)),
    (PLAY, Word("lead")),
])
def test_a_value_of_another_kind_is_refused(kind, value):
    with pytest.raises(IllegalChoice):
        from_wire(kind, value)


def test_the_rules_take_a_value_or_its_plain_form_alike_and_refuse_a_malformed_one_unchanged():
    spec = load_games().get("bisca")
    options = spec.resolve_options({"swap2": "on"})
    by_plain = spec.new_match(options, 0).new_deal(list(spec.deck))
    by_value = spec.new_match(options, 0).new_deal(list(spec.deck))
    for deal in (by_plain, by_value):
        for _ in deal.decisions():
            break
    seat = by_plain.undecided()[0]
    before = by_plain.legal(seat)
    for bad in (True, "x", ["swap", "x"], None):
        with pytest.raises(IllegalChoice):
            by_plain.apply(seat, bad)
        assert by_plain.legal(seat) == before and by_plain.undecided() == (seat,)
    plain = before[0]
    assert isinstance(plain, int)
    by_plain.apply(seat, plain)
    by_value.apply(seat, Play(plain))
    assert by_plain.events == by_value.events and by_plain.trick == by_value.trick


# ---------------------------------------------------------------------- events (p2pcards/core/events.py)
def test_the_events_module_examples_hold():
    import p2pcards.core.events as events_module

    result = doctest.testmod(events_module)
    assert result.attempted and not result.failed


def test_every_built_in_event_has_the_fields_of_its_type_in_their_order():
    """The JSON of an event (arena --json, the engine) shows its fields in the order its
    TypedDict lists them; a game's own kinds start with type and seat."""
    import random
    from typing import get_args, get_type_hints

    from p2pcards.core import DrawEvent, GoInEvent, PassEvent, PlayEvent, SeatView, SwapEvent, TrumpEvent
    from p2pcards.players import RandomPlayer

    typed = {get_args(get_type_hints(t)["type"])[0]: list(get_type_hints(t))
             for t in (PlayEvent, DrawEvent, TrumpEvent, SwapEvent, PassEvent, GoInEvent)}
    registry = load_games()
    seen = set()
    for name in ("sueca", "bisca", "copas", "sobe-e-desce"):
        spec = registry.get(name)
        options = spec.resolve_options({"swap2": "on"} if name == "bisca" else {})
        for seed in range(6):
            cards = list(spec.deck)
            random.Random(seed).shuffle(cards)
            deal = spec.new_match(options, seed % spec.seats).new_deal(cards)
            players = [RandomPlayer(random.Random(seed * 10 + s)) for s in range(spec.seats)]
            for step in deal.decisions():
                for seat in deal.undecided():
                    deal.apply(seat, players[seat].choose(SeatView(deal, seat), step))
            for ev in deal.events:
                keys = typed[ev["type"]]
                assert list(ev) == [k for k in keys if k in ev], ev
                assert set(keys) - set(ev) <= {"choice"}, ev
                seen.add(ev["type"])
    assert seen == set(typed)
