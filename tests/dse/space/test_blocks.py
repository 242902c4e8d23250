"""Blocked spatial digits in the design space: a PE axis takes ``floor(x/B) % P`` of a loop,
each PE a block of B consecutive values (``x % B`` in time). Hand-counted sizes, the checks of
the option, the symmetry reduction, the loop nests, and the engine against the oracle."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from tenet import evaluate, load_problem
from tenet.dse.space.design import DesignSpace, SpaceOptions, space_options
from tenet.dse.space.equivalence import find
from tenet.errors import SpecError
from tenet.oracle.metrics import reference_metrics
from tenet.spec import DataflowSpec
from tests.dse.joint.test_search import ARCH
from tests.dse.space.test_design import LINE4, PAIR
from tests.metrics.test_oracle_agreement import assert_agrees


def test_blocks_add_hand_counted_candidates():
    # PAIR: i, j < 8 on 4 PEs. Without blocks, PE[i % 4] or PE[j % 4], 5 mappings each
    # (test_space_sizes_hand_counted). B = 2: 8 / 2 = 4 blocks fit the 4 PEs, PE[floor(x/2)]
    # with x % 2 and the other loop in time: 2 outer digits, as for PE[x % 4], so 5 mappings
    # per loop; B = 4: PE[floor(x/4)] (2 blocks on 2 PEs), 5 more per loop
    plain = DesignSpace.build(PAIR, LINE4).sizes.generated
    two = DesignSpace.build(PAIR, LINE4, options=SpaceOptions(blocks=(2,))).sizes
    both = DesignSpace.build(PAIR, LINE4, options=SpaceOptions(blocks=(2, 4))).sizes
    assert (plain, two.generated, both.generated) == (10, 20, 30)
    assert two.distinct == two.generated  # one-way links: no symmetry
    names = [c.name for c in DesignSpace.build(PAIR, LINE4, options=SpaceOptions(blocks=(2,)))]
    assert "PE[floor(i/2)] T[i % 2, j]" in names
    assert "PE[floor(j/2)] T[i, j % 2]" in names


def test_blocks_that_do_not_divide_the_loop_add_nothing():
    # B = 3 does not divide 8; B = 8 is the whole loop (one block, nothing to spread)
    options = SpaceOptions(blocks=(3, 8))
    assert DesignSpace.build(PAIR, LINE4, options=options).sizes.generated == 10


def test_blocks_with_a_radix_need_the_blocks_to_divide():
    # i < 16 on 4 PEs: B = 2 makes 8 blocks, 4 a PE axis takes: PE[floor(i/2) % 4], i % 2 and
    # floor(i/8) in time; B = 4: 4 blocks, PE[floor(i/4)]
    wide = PAIR.model_copy(update={"domain": "{S[i, j]: 0 <= i < 16 and 0 <= j < 8}"})
    names = {c.name for c in DesignSpace.build(wide, LINE4, options=SpaceOptions(blocks=(2, 4)))}
    assert "PE[floor(i/2) % 4] T[i % 2, floor(i/8), j]" in names
    assert "PE[floor(i/4)] T[i % 4, j]" in names


def test_block_options_are_checked():
    with pytest.raises(ValidationError, match="at least 2"):
        SpaceOptions(blocks=(1,))
    with pytest.raises(SpecError, match="blocks"):
        space_options(blocks=(0, 4))
    assert SpaceOptions(blocks=(4, 2, 4)).blocks == (2, 4)


def test_blocked_candidates_reduce_by_symmetry_and_are_loop_nests():
    params = {"M": 4, "N": 4, "K": 8}
    options = SpaceOptions(blocks=(2, 4), skew=(0,))
    full = DesignSpace.build(
        "gemm", "systolic-2d-8x8", params, options.model_copy(update={"symmetry": False})
    )
    space = DesignSpace.build("gemm", "systolic-2d-8x8", params, options)
    own = sum(1 for c in full if len({d.loop for d in c.mapping.spatial_digits}) == 1)
    assert space.sizes.distinct == (full.sizes.distinct - own) // 2 + own
    blocked = [c for c in space if any(d.stride > 1 for d in c.mapping.spatial_digits)]
    assert blocked
    for candidate in blocked:
        assert space.canonical(candidate.mapping) == candidate.mapping
        # the nest places and orders the instances as the stamps do (checked by isl equality)
        candidate.mapping.nest(space.workload.domain, space.pe_sizes)


def test_find_locates_a_blocked_dataflow():
    space = DesignSpace.build(
        "gemm", "systolic-2d-8x8", {"M": 4, "N": 4, "K": 32}, SpaceOptions(blocks=(4,))
    )
    flow = DataflowSpec.from_mapping(
        {
            "name": "blocked-k",
            "space_stamp": "{S[i, j, k] -> PE[i, floor(k / 4)]}",
            "time_stamp": "{S[i, j, k] -> T[j, k % 4]}",
        }
    )
    found = find(space, flow)
    assert found is not None and found.name == "PE[i, floor(k/4)] T[j, k % 4]"
    assert (
        find(DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 4, "N": 4, "K": 32}), flow) is None
    )


@pytest.mark.parametrize("blocks", [(2,), (4,)])
def test_blocked_candidates_agree_with_the_oracle(blocks: tuple[int, ...]):
    # every blocked candidate of GEMM 4x4x8 (128 instances) on 2x2 PEs, without skew:
    # every metric of the engine equals the brute-force oracle's
    params = {"M": 4, "N": 4, "K": 8}
    arch = ARCH  # 2x2 PEs with links along both axes
    space = DesignSpace.build(
        "gemm", arch, params, SpaceOptions(blocks=blocks, skew=(0,), order_depth=1)
    )
    blocked = [c for c in space if any(d.stride > 1 for d in c.mapping.spatial_digits)]
    assert blocked
    for candidate in blocked:
        spec = candidate.spec()
        problem = load_problem(space.specs.workload, space.specs.architecture, spec, params)
        expected = reference_metrics(space.specs.workload, space.specs.architecture, spec, params)
        assert_agrees(evaluate(problem), expected)
