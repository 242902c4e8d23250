"""Layouts as relations: addresses against hand-written maps, bijection checks, spec errors."""

from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from tenet.counting import count
from tenet.errors import NotABijectionError, SpecError, UnknownTensorError
from tenet.layout.evaluate import load_layout_problem
from tenet.layout.relation import (
    Box,
    LayoutDim,
    _check_bijection,
    bank_map,
    build_layout,
    line_map,
)
from tenet.oracle.layout import address_function
from tenet.spec import ArchitectureSpec, load_architecture
from tenet.spec.layout import ScratchpadSpec, TransformSpec

DATA = Path(__file__).parent / "data"
BOX = Box("A", (0, 0), (3, 4))
GEMM = {"M": 4, "N": 4, "K": 4}


def expect(box: Box, address: str) -> isl.Map:
    return isl.Map(f"{{ A[i0, i1] -> Addr[{address}] : {box.text} }}")


@pytest.mark.parametrize(
    ("transforms", "address", "size"),
    [
        # row-major [3, 4]: a = 4 i0 + i1
        ([], "4i0 + i1", 12),
        ([TransformSpec(op="row_major")], "4i0 + i1", 12),
        # column-major: i0 fastest, a = i0 + 3 i1
        ([TransformSpec(op="column_major")], "i0 + 3i1", 12),
        ([TransformSpec(op="permute", order=(1, 0))], "i0 + 3i1", 12),
        # split i1 (4) by 2 in place: dims (i0:3, i1/2:2, i1%2:2), a = 4 i0 + 2 floor(i1/2)
        # + i1 % 2 = 4 i0 + i1 (an even split in place keeps the address)
        ([TransformSpec(op="split", dim=1, factor=2)], "4i0 + i1", 12),
        # interleave i1 by 2: dims (i1/2:2, i0:3, i1%2:2), a = 6 floor(i1/2) + 2 i0 + i1 % 2
        (
            [TransformSpec(op="interleave", dim=1, factor=2)],
            "6 * floor(i1 / 2) + 2i0 + (i1 mod 2)",
            12,
        ),
        # pad i1 by 1: a = 5 i0 + i1 over 3 x 5 words
        ([TransformSpec(op="pad", dim=1, by=1)], "5i0 + i1", 15),
        # split i1 (4) by 3: dims (i0:3, i1/3:2, i1%3:3), a = 6 i0 + 3 floor(i1/3) + i1 % 3
        ([TransformSpec(op="split", dim=1, factor=3)], "6i0 + 3 * floor(i1 / 3) + (i1 mod 3)", 18),
    ],
)
def test_layout_address_matches_hand_derivation(
    transforms: list[TransformSpec], address: str, size: int
) -> None:
    layout = build_layout(BOX, transforms)
    assert layout.relation.is_equal(expect(BOX, address))
    assert layout.size == size
    assert layout.relation.is_injective()


def test_layout_permutation_of_three_dimensions() -> None:
    # box [2, 3, 4], order (2, 0, 1): dims (i2:4, i0:2, i1:3), a = 6 i2 + 3 i0 + i1
    box = Box("T", (0, 0, 0), (2, 3, 4))
    layout = build_layout(box, [TransformSpec(op="permute", order=(2, 0, 1))])
    hand = isl.Map(f"{{ T[i0, i1, i2] -> Addr[6i2 + 3i0 + i1] : {box.text} }}")
    assert layout.relation.is_equal(hand)


def test_layout_of_a_shifted_box_starts_at_zero() -> None:
    box = Box("A", (-1, 2), (3, 2))
    layout = build_layout(box)
    assert count(layout.relation.range()) == 6
    assert layout.relation.range().lexmin().is_equal(isl.Set("{ Addr[0] }"))


def test_oracle_address_function_agrees_with_the_relation() -> None:
    steps = [
        TransformSpec(op="interleave", dim=0, factor=2),
        TransformSpec(op="pad", dim=2, by=2),
        TransformSpec(op="permute", order=(2, 0, 1)),
    ]
    layout = build_layout(BOX, steps)
    address = address_function(BOX.lower, BOX.extents, steps)
    pairs: list[tuple[int, ...]] = []
    layout.relation.wrap().foreach_point(
        lambda p: pairs.append(
            tuple(int(p.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(3))
        )
    )
    assert len(pairs) == 12
    assert all(address(p[:2]) == p[2] for p in pairs)


def test_bank_and_line_maps_follow_their_definitions() -> None:
    # 4 banks of 2 words: a = 0..7 fill row 0 (banks 0,0,1,1,2,2,3,3), a = 8 is bank 0, row 1
    banks = bank_map(ScratchpadSpec(banks=4, bank_width=2))
    assert (
        banks.intersect_domain(isl.Set("{ Addr[5] }"))
        .range()
        .is_equal(isl.Set("{ [Bank[2] -> Row[0]] }"))
    )
    assert (
        banks.intersect_domain(isl.Set("{ Addr[8] }"))
        .range()
        .is_equal(isl.Set("{ [Bank[0] -> Row[1]] }"))
    )
    lines = line_map(ScratchpadSpec(transaction_width=4))
    assert lines.intersect_domain(isl.Set("{ Addr[7] }")).range().is_equal(isl.Set("{ Line[1] }"))


def test_bijection_check_names_two_colliding_elements() -> None:
    # floor(i0 / 2) sends A[0, .] and A[1, .] to one position
    dims = [LayoutDim("floor(i0 / 2)", 2), LayoutDim("i1", 4)]
    with pytest.raises(NotABijectionError, match=r"layout.A.0: elements A\[.*\] and A\[.*\] share"):
        _check_bijection(BOX, dims, "layout.A.0", None)


def test_crop_is_not_a_bijection_and_names_file_and_path() -> None:
    with pytest.raises(
        NotABijectionError, match=r"crop-a.yaml: layouts.A.1: element A\[.*\] falls"
    ):
        load_layout_problem(
            "gemm",
            "systolic-2d:rows=2,cols=2",
            "gemm-os-systolic:rows=2,cols=2",
            GEMM,
            layout=DATA / "crop-a.yaml",
        )


def test_permute_needs_a_permutation() -> None:
    with pytest.raises(SpecError, match=r"A.0.order: permute: order \[0, 0\] is not a perm"):
        build_layout(BOX, [TransformSpec(op="permute", order=(0, 0))])


def test_transform_needs_an_existing_dimension() -> None:
    with pytest.raises(SpecError, match=r"A.1.dim: pad: no dimension 3 \(the layout has 3"):
        build_layout(
            BOX, [TransformSpec(op="split", dim=0, factor=2), TransformSpec(op="pad", dim=3, by=1)]
        )


def test_transform_fields_are_checked_with_the_yaml_path() -> None:
    with pytest.raises(
        SpecError, match=r"gemm-os-bad-split.yaml: .*layout.A.0.*split needs 'factor'"
    ):
        load_layout_problem(
            "gemm", "systolic-2d:rows=2,cols=2", DATA / "gemm-os-bad-split.yaml", GEMM
        )


def test_transform_rejects_fields_of_another_op() -> None:
    with pytest.raises(ValueError, match="column_major takes no 'dim'"):
        TransformSpec(op="column_major", dim=0)


def test_layout_for_an_unknown_tensor_is_refused() -> None:
    with pytest.raises(UnknownTensorError, match="unknown-tensor.yaml: tensor 'Q' is not"):
        load_layout_problem(
            "gemm",
            "systolic-2d:rows=2,cols=2",
            "gemm-os-systolic:rows=2,cols=2",
            GEMM,
            layout=DATA / "unknown-tensor.yaml",
        )


def test_dataflow_layout_key_and_architecture_scratchpad_are_read() -> None:
    lp = load_layout_problem(
        "gemm", DATA / "array-2x2-banked.yaml", DATA / "gemm-os-column-b.yaml", GEMM
    )
    # B[k, j] column-major over [4, 4]: a = k + 4 j
    assert lp.layouts["B"].relation.is_equal(
        isl.Map("{ B[i0, i1] -> Addr[i0 + 4i1] : 0 <= i0 < 4 and 0 <= i1 < 4 }")
    )
    assert lp.layouts["A"].describe() == "row_major"
    assert lp.scratchpad == ScratchpadSpec(banks=4, bank_width=1, transaction_width=2)


def test_scratchpad_fields_are_checked() -> None:
    with pytest.raises(SpecError, match=r"scratchpad.banks: Input should be greater than"):
        ArchitectureSpec.from_mapping(
            {"name": "a", "pe": "{PE[i]: 0 <= i < 2}", "scratchpad": {"banks": 0}}
        )


def test_zoo_architectures_have_no_scratchpad_block() -> None:
    assert load_architecture("systolic-2d").scratchpad is None
