"""The group layer: validation of every received element, scalars, hash to group."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from typing import Literal

import pytest

from p2pcards.mental import CountingGroup, GroupError, Ristretto255, group_by_name
from p2pcards.tools.bench_deck import Modp2048

ED25519_FIELD_PRIME = 2**255 - 19


def _valid_point() -> bytes:
    return Ristretto255().hash_to_element(b"a point")


@pytest.mark.parametrize(
    "encoding",
    [
        bytes(32),  # the identity
        ED25519_FIELD_PRIME.to_bytes(32, "little"),  # s = p: not reduced
        (ED25519_FIELD_PRIME + 2).to_bytes(32, "little"),  # s = 2 + p: non-canonical for 2
        bytes([1]) + bytes(31),  # s = 1 is odd ("negative"): not canonical
        bytes(31) + b"\x80",  # top bit set
        bytes(31),  # too short
        b"\xff" * 32,
    ],
)
def test_ristretto_rejects_identity_and_non_canonical(encoding: bytes) -> None:
    group = Ristretto255()
    with pytest.raises(GroupError):
        group.validate(encoding)
    scalar = group.scalar_reduce(hashlib.sha512(b"scalar").digest())
    with pytest.raises(GroupError):
        group.mult(scalar, encoding)


def test_ristretto_rejects_a_valid_point_with_its_top_bit_set() -> None:
    point = bytearray(_valid_point())
    point[31] |= 0x80
    with pytest.raises(GroupError):
        Ristretto255().validate(bytes(point))


def test_ristretto_mult_and_inverse_round_trip() -> None:
    group = Ristretto255()
    point = _valid_point()
    group.validate(point)
    a = group.scalar_reduce(hashlib.sha512(b"a").digest())
    b = group.scalar_reduce(hashlib.sha512(b"b").digest())
    assert group.mult(group.scalar_invert(a), group.mult(a, point)) == point
    assert group.mult(a, group.mult(b, point)) == group.mult(b, group.mult(a, point))
    assert group.mult(group.scalar_mul(a, b), point) == group.mult(a, group.mult(b, point))


@pytest.mark.parametrize("group", [Ristretto255(), Modp2048()], ids=lambda g: g.name)
def test_scalars_zero_and_order_are_invalid(group: Ristretto255 | Modp2048) -> None:
    order = group.ORDER
    endian: Literal["little", "big"] = "little" if group.name == "ristretto255" else "big"
    size = group.scalar_size
    assert not group.scalar_is_valid(bytes(size))
    assert not group.scalar_is_valid(order.to_bytes(size, endian))
    assert not group.scalar_is_valid(bytes(size - 1) + b"\x01" + b"\x00")
    assert group.scalar_is_valid((order - 1).to_bytes(size, endian))


@pytest.mark.parametrize("group", [Ristretto255(), Modp2048()], ids=lambda g: g.name)
def test_batch_invert_matches_single_inversions(group: Ristretto255 | Modp2048) -> None:
    scalars = [
        group.scalar_reduce(hashlib.shake_256(bytes([i])).digest(group.wide_size)) for i in range(5)
    ]
    assert group.batch_invert(scalars) == [group.scalar_invert(s) for s in scalars]
    assert group.batch_invert([]) == []


@pytest.mark.parametrize("group", [Ristretto255(), Modp2048()], ids=lambda g: g.name)
def test_hash_to_group_gives_valid_distinct_elements(group: Ristretto255 | Modp2048) -> None:
    elements = [group.hash_to_element(bytes([i])) for i in range(8)]
    for element in elements:
        group.validate(element)
    assert len(set(elements)) == len(elements)


def test_modp_rejects_identity_out_of_range_and_non_residues() -> None:
    group = Modp2048()
    p, q = group.P, group.ORDER
    non_residue = next(x for x in range(2, 100) if pow(x, q, p) == p - 1)
    residue = next(x for x in range(2, 100) if pow(x, q, p) == 1)
    group.validate(residue.to_bytes(256, "big"))
    for value in (0, 1, p - 1, p, p + residue, non_residue):
        encoding = value.to_bytes(257, "big")[-256:] if value < 1 << 2048 else b"\xff" * 256
        with pytest.raises(GroupError):
            group.validate(encoding)
    with pytest.raises(GroupError):
        group.validate(residue.to_bytes(255, "big"))
    scalar = (12345).to_bytes(256, "big")
    with pytest.raises(GroupError):
        group.mult(scalar, (1).to_bytes(256, "big"))
    assert group.mult(scalar, residue.to_bytes(256, "big")) == pow(residue, 12345, p).to_bytes(
        256, "big"
    )


def test_modp_jacobi_agrees_with_euler_criterion() -> None:
    group = Modp2048()
    p, q = group.P, group.ORDER
    for x in range(2, 30):
        is_residue = pow(x, q, p) == 1
        try:
            group.validate(x.to_bytes(256, "big"))
            accepted = True
        except GroupError:
            accepted = False
        assert accepted == is_residue


def test_counting_group_counts_and_group_by_name() -> None:
    group = CountingGroup(Ristretto255())
    point = group.hash_to_element(b"x")
    group.validate(point)
    scalar = group.scalar_reduce(hashlib.sha512(b"s").digest())
    group.mult(scalar, point)
    group.scalar_invert(scalar)
    assert dict(group.counts) == {"hash": 1, "validate": 1, "mult": 1, "scalar": 1}
    assert group_by_name("ristretto255").name == "ristretto255"
    for not_on_the_wire in ("modp2048", "p256"):  # modp-2048 is the benchmark's baseline only
        with pytest.raises(GroupError):
            group_by_name(not_on_the_wire)


def test_a_process_leaves_no_copy_of_libsodium_behind_and_keeps_none_in_memory(tmp_path):
    """``rbcl`` writes its bundled libsodium to a new temporary file at each import and
    keeps its bytes; the group layer removes the file once it is loaded and drops the bytes,
    and the group still computes."""
    script = (
        "import sys\n"
        "from p2pcards.mental.group import Ristretto255\n"
        "g = Ristretto255()\n"
        "p = g.base_mult(g.scalar_reduce(bytes(range(64))))\n"
        "assert g.mult(g.scalar_reduce(bytes(range(1, 65))), p) != p\n"
        "print(len(sys.modules['rbcl._sodium'].sodium_bs))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], env={**os.environ, "TMPDIR": str(tmp_path)},
                         capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["0"]
    assert list(tmp_path.iterdir()) == []


def test_the_command_loads_libsodium_before_the_rest_while_the_process_is_small():
    """rbcl's loader holds 8 MB for a moment; the command loads it first (before trio and
    cryptography), so that moment is not every process's peak memory (`bench table`)."""
    script = ("import sys, p2pcards.cli, p2pcards.net.node; m = list(sys.modules)\n"
              "print(m.index('rbcl._sodium') < min(m.index('trio'), m.index('cryptography')))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.split() == ["True"]
