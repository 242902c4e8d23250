"""The design space: hand-counted sizes, the reductions, and that it holds every TENET dataflow
and every rectangular (data-centric) dataflow."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from pydantic import ValidationError

from tenet.dse.space.design import DesignSpace, SpaceOptions
from tenet.dse.space.equivalence import find
from tenet.errors import SpecError
from tenet.spec import (
    ArchitectureSpec,
    DataflowSpec,
    WorkloadSpec,
    load_architecture,
    load_dataflow,
    load_workload,
)
from tests.conftest import TENET_DATA, need_shared
from tests.tenet_files import EXTRA_MAPPINGS, FILES, PE_ARRAYS

# S[i, j], 0 <= i, j < 8, reading A[i, j] (no reuse) and B[j] (reused along i)
PAIR = WorkloadSpec.from_mapping(
    {
        "name": "pair",
        "domain": "{S[i, j]: 0 <= i < 8 and 0 <= j < 8}",
        "accesses": {"A": {"read": "{S[i, j] -> A[i, j]}"}, "B": {"read": "{S[i, j] -> B[j]}"}},
    }
)
LINE4 = ArchitectureSpec.from_mapping(
    {"name": "line4", "pe": "{PE[p]: 0 <= p < 4}", "interconnect": [{"link": "{PE[p] -> PE[p+1]}"}]}
)


def test_space_sizes_hand_counted():
    space = DesignSpace.build(PAIR, LINE4)
    sizes = space.sizes
    # PE[i % 4] or PE[j % 4]; each leaves a tile (2 values) and the other loop (8 values).
    # Skew 0: 2 orders of the two outer digits. Skew 1: 2 orders with no loop in the inner
    # time-stamp, or the other loop in it with the tile outside (1) -> 5 per space-stamp.
    assert sizes.every_order == sizes.generated == 10
    # one-way links: no symmetry
    assert sizes.distinct == 10
    # unskewed: 2 orders per space-stamp
    assert sizes.data_centric == 4
    # B reused along i. PE[i % 4]: a step of i is the next PE at the same time-stamp without
    # skew (no multicast link: scratchpad, 2 orders), one step later with skew (systolic).
    # PE[j % 4]: i in time must be innermost and alone: T[floor(j/4), i] and
    # T[floor(j/4), j % 4 + i] are stationary; T[i, floor(j/4)] and both pure skews are not (3).
    assert sizes.scratchpad_fed == 5
    assert sizes.kept == 10
    pruned = DesignSpace.build(PAIR, LINE4, options=SpaceOptions(prune_scratchpad=True))
    assert pruned.sizes.kept == 5
    assert all(not c.scratchpad for c in pruned)


def test_space_names_candidates_in_order():
    names = [c.name for c in DesignSpace.build(PAIR, LINE4)]
    assert len(set(names)) == len(names) == 10
    assert "PE[i % 4] T[floor(i/4), i % 4 + j]" in names
    assert [c.index for c in DesignSpace.build(PAIR, LINE4)] == list(range(10))


def test_space_removes_transposed_duplicates():
    params = {"M": 16, "N": 16, "K": 16}
    full = DesignSpace.build("gemm", "systolic-2d-8x8", params, SpaceOptions(symmetry=False))
    reduced = DesignSpace.build("gemm", "systolic-2d-8x8", params)
    # swapping the two PE coordinates is a symmetry of the array; only mappings that place
    # one loop on both coordinates have no transposed image in the space (their least
    # significant digit must be on the last coordinate): (generated - own) / 2 + own
    own = sum(
        1
        for c in DesignSpace.build("gemm", "systolic-2d-8x8", params, SpaceOptions(symmetry=False))
        if len({d.loop for d in c.mapping.spatial_digits}) == 1
    )
    assert reduced.sizes.distinct == (full.sizes.distinct - own) // 2 + own


def test_space_prunes_gemm_to_systolic_dataflows():
    space = DesignSpace.build(
        "gemm", "systolic-2d-8x8", {"M": 64, "N": 64, "K": 64}, SpaceOptions(prune_scratchpad=True)
    )
    # on one-step links every tensor must be stationary or move one PE per step: two loops on
    # the array, the third in the skewed inner time-stamp with both skews 1 (3 pairs up to
    # transposition), times the 2 orders of the two tiles
    names = sorted(c.name for c in space)
    assert len(names) == 6
    assert "PE[i % 8, j % 8] T[floor(i/8), floor(j/8), i % 8 + j % 8 + k]" in names
    movement = {c.name: dict(c.movement) for c in space}[
        "PE[i % 8, j % 8] T[floor(i/8), floor(j/8), i % 8 + j % 8 + k]"
    ]
    assert movement == {"A": "systolic", "B": "systolic", "C": "stationary"}


def test_space_multicast_needs_same_step_links():
    bus = ArchitectureSpec.from_mapping(
        {
            "name": "bus4",
            "pe": "{PE[p]: 0 <= p < 4}",
            "interconnect": [{"link": "{PE[p] -> PE[q]: 0 <= p, q < 4 and p != q}", "delay": 0}],
        }
    )
    space = DesignSpace.build(PAIR, bus)
    unskewed = next(c for c in space if c.name == "PE[i % 4] T[floor(i/4), j]")
    # B[j] is needed by every PE at the same time-stamp: the bus delivers it
    assert dict(unskewed.movement)["B"] == "multicast"


def test_space_skew_minus_one():
    options = SpaceOptions(skew=(-1, 0, 1))
    # skews -1, 0, 1 on the one PE coordinate: 2 + (2 + 1) * 2 = 8 per space-stamp
    assert DesignSpace.build(PAIR, LINE4, options=options).sizes.generated == 16


def test_space_options_reject_large_skew():
    with pytest.raises(ValidationError, match="subset of"):
        SpaceOptions(skew=(0, 2))


def test_space_needs_loops_from_zero():
    shifted = WorkloadSpec.from_mapping(
        {
            "name": "shifted",
            "domain": "{S[i]: 1 <= i < 8}",
            "accesses": {"A": {"read": "{S[i] -> A[i]}"}},
        }
    )
    with pytest.raises(SpecError, match="start at 0"):
        _ = DesignSpace.build(shifted, LINE4).extents


def test_space_holds_every_rectangular_dataflow():
    params = {"M": 16, "N": 16, "K": 16}
    space = DesignSpace.build("gemm", "systolic-2d-8x8", params, SpaceOptions(order_depth=None))
    tiles = {"i": "floor(i/8)", "j": "floor(j/8)", "k": "floor(k/8)"}
    count = 0
    for x, y in itertools.permutations("ijk", 2):
        (z,) = set("ijk") - {x, y}
        for order in itertools.permutations([tiles[x], tiles[y], z]):
            flow = DataflowSpec.from_mapping(
                {
                    "name": "rect",
                    "space_stamp": f"{{S[i,j,k] -> PE[{x} % 8, {y} % 8]}}",
                    "time_stamp": f"{{S[i,j,k] -> T[{', '.join(order)}]}}",
                }
            )
            found = find(space, flow)
            assert found is not None, flow
            assert found.rectangular
            count += 1
    assert count == 36


def test_find_misses_dataflow_outside_the_space():
    space = DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 16, "N": 16, "K": 16})
    # a skew of 2 is not in the space
    flow = DataflowSpec.from_mapping(
        {
            "name": "skew2",
            "space_stamp": "{S[i,j,k] -> PE[i % 8, j % 8]}",
            "time_stamp": "{S[i,j,k] -> T[floor(i/8), floor(j/8), 2 * (i % 8) + k]}",
        }
    )
    assert find(space, flow) is None


# mapping -> (array, statement), for the mappings no experiment file uses
UNPAIRED = {
    "mapping/1d_pointwise_1.m": ("pe_array/lineral.p", "statement/conv_pointwise.s"),
    "mapping/1d_pointwise_2.m": ("pe_array/lineral.p", "statement/conv_pointwise.s"),
    "mapping/1d_qkv_1.m": ("pe_array/lineral.p", "statement/continus_qkv.s"),
    "mapping/1d_qkv_2.m": ("pe_array/lineral.p", "statement/continus_qkv.s"),
    "mapping/1d_qkv_3.m": ("pe_array/lineral.p", "statement/continus_qkv.s"),
    "mapping/1d_qkv_4.m": ("pe_array/lineral.p", "statement/continus_qkv.s"),
    "mapping/2d_pointwise_1.m": ("pe_array/pe_8_8.p", "statement/conv_pointwise.s"),
    "mapping/2d_pointwise_3.m": ("pe_array/pe_8_8.p", "statement/conv_pointwise.s"),
    "mapping/conv2d_eyeriss1d.m": ("pe_array/lineral.p", "statement/conv2d.s"),
    "mapping/conv2d_os_yxp.m": ("pe_array/pe_8_8.p", "statement/conv2d.s"),
    "mapping/conv2d_ws_kcp.m": ("pe_array/pe_16_64.p", "statement/conv2d.s"),
}
# what the row-stationary and NCF mappings need beyond the defaults: mixed-radix PE
# coordinates, temporal tiles and several instances per step (the product of dropped extents)
OPTIONS = {
    "conv2d_rs_alexnet1": {"temporal_tiles": (16,), "instances_per_step": 16 * 11},
    "conv2d_rs_alexnet2": {"pe_digits": 2, "temporal_tiles": (2, 16), "instances_per_step": 352},
    "conv2d_rs_alexnet3": {"pe_digits": 2, "temporal_tiles": (4, 16), "instances_per_step": 192},
    "conv2d_rs_alexnet4": {"pe_digits": 3, "temporal_tiles": (3, 16), "instances_per_step": 144},
    "conv2d_rs_alexnet5": {"pe_digits": 3, "temporal_tiles": (3, 16), "instances_per_step": 144},
    "ncf_nmk": {"temporal_tiles": (8,)},
    "ncf_rs": {"temporal_tiles": (2,), "instances_per_step": 4},
}


def _pairs() -> list[tuple[str, str, str]]:
    """(mapping, array, statement) for every mapping of TENET's data written from the zoo."""
    found: dict[str, tuple[str, str]] = {}
    for statement, mapping, array in FILES.values():
        found.setdefault(mapping, (array, statement))
    for mapping, (arch, statement) in EXTRA_MAPPINGS.items():
        found.setdefault(mapping, (PE_ARRAYS[arch], statement))
    return [(m, a, s) for m, (a, s) in sorted(found.items())]


def _check_space_holds(root: Path, mapping: str, array: str, statement: str) -> None:
    # TENET's conv mappings leave rx and ry (3 x 3) out of both stamps
    options = {"instances_per_step": 9, **OPTIONS.get(Path(mapping).stem, {})}
    space = DesignSpace.build(
        load_workload(root / statement),
        load_architecture(root / array),
        options=SpaceOptions(**options),
    )
    assert find(space, load_dataflow(root / mapping)) is not None, mapping


def test_pairs_cover_every_mapping(tenet_data: Path):
    mappings = {str(p.relative_to(tenet_data)) for p in tenet_data.glob("**/*.m")}
    assert mappings == {m for m, _, _ in _pairs()}


@pytest.mark.parametrize("mapping, array, statement", _pairs(), ids=lambda v: Path(v).stem)
def test_space_holds_tenet_mapping(mapping: str, array: str, statement: str, tenet_data: Path):
    _check_space_holds(tenet_data, mapping, array, statement)


@pytest.mark.shared
def test_space_holds_every_original_tenet_mapping():
    need_shared()
    found: dict[str, tuple[str, str]] = {}
    for experiment in sorted(TENET_DATA.glob("*/experiment/experiment_*")):
        mapping, array, statement = experiment.read_text().split()
        found.setdefault(mapping, (array, statement))
    for mapping, pair in UNPAIRED.items():
        found.setdefault(mapping, pair)
    assert set(found) == {str(p.relative_to(TENET_DATA)) for p in TENET_DATA.glob("**/*.m")}
    for mapping, (array, statement) in sorted(found.items()):
        _check_space_holds(TENET_DATA, mapping, array, statement)
