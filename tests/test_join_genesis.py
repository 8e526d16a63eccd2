"""A joiner signs up for the table it was shown: the host's signed genesis must say what its
``seated`` answer said -- the game, the options, the deals, and the timeout after which a
silent seat is voted out (a host that announced a minute and signed a twentieth of a second
would have a person voted out for thinking)."""

from __future__ import annotations

import pytest

from p2pcards.core import load_games
from p2pcards.identity import Identity
from p2pcards.net.errors import MeshError
from p2pcards.net.handshake import Process, Seated, Start
from p2pcards.net.join import _check_genesis
from p2pcards.net.memory import make_table
from p2pcards.table.transcript import SeatInfo

REGISTRY = load_games()


def _shown_and_signed(**signed_changes: object) -> tuple[Seated, Start, Identity]:
    spec = REGISTRY.get("bisca")
    host, me = Identity.generate("host"), Identity.generate("me")
    infos = [SeatInfo(i.name, i.signing_public, i.sealing_public, None, None) for i in (host, me)]
    shown = {"options": {}, "deals": 2, "timeout": 60.0, "hints": True}
    signed = {**shown, **signed_changes}
    raw = make_table(host, spec, infos, options=signed["options"], deals=signed["deals"],  # type: ignore[arg-type]
                     timeout=signed["timeout"], hints=signed["hints"])  # type: ignore[arg-type]
    seated = Seated(1, spec.name, spec.rules_version, spec.resolve_options(shown["options"]), 2, shown["deals"],
                    shown["timeout"], "host", host.signing_public)
    start = Start(raw, (Process((0,), None, None), Process((1,), "127.0.0.1", 4000)))
    return seated, start, me


def test_a_genesis_that_says_what_the_seat_was_shown_is_taken():
    seated, start, me = _shown_and_signed()
    assert _check_genesis(start, seated, me).timeout == 60.0


@pytest.mark.parametrize(("change", "words"), [
    ({"timeout": 0.05}, "its timeout is 0.05 s, not the 60 s announced"),
    ({"timeout": 3600.0}, "its timeout is 3600 s, not the 60 s announced"),
    ({"timeout": 60.5}, "its timeout is 60.5 s, not the 60 s announced"),
    ({"deals": 9}, "its options are not the ones announced"),
    ({"deals": None}, "its options are not the ones announced"),
    ({"options": {"hand": "9"}}, "its options are not the ones announced"),
    ({"options": {"target": "8"}}, "its options are not the ones announced"),
    ({"options": {"swap2": "on"}}, "its options are not the ones announced"),
])
def test_a_genesis_that_differs_from_what_was_shown_is_refused(change, words):
    seated, start, me = _shown_and_signed(**change)
    with pytest.raises(MeshError, match="does not match this seat") as caught:
        _check_genesis(start, seated, me)
    assert words in str(caught.value)


def test_hints_are_not_announced_so_the_joiner_takes_them_from_the_signed_genesis():
    """``seated`` does not say whether hints are allowed (TRANSPORT.md): there is nothing
    shown for the genesis to differ from.  A joiner takes what the host signed -- a table
    whose host forbids hints is taken, and the joiner's table says so (the ``table`` line
    its screens and ``--json`` read comes from the signed genesis, not from ``seated``)."""
    from p2pcards.net.peer import describe_table

    for hints in (True, False):
        seated, start, me = _shown_and_signed(hints=hints)
        genesis = _check_genesis(start, seated, me)
        assert genesis.hints is hints and describe_table(genesis, [1])["hints"] is hints
