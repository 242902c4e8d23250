"""Affine mappings of the design space as loop nests: every mapping whose digits all appear in a
stamp, and whose skew (if any) lands on an inner time digit, is a nest with the same relations;
the others are refused with the reason."""

from __future__ import annotations

import islpy as isl
import pytest

from tenet.dse.space.design import DesignSpace
from tenet.errors import NotALoopNestError
from tenet.mapping import Stamps, difference, to_stamps


def test_affine_mappings_as_loop_nests() -> None:
    space = DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 16, "N": 16, "K": 16})
    domain = space.workload.domain
    nests = 0
    for candidate in space:
        mapping = candidate.mapping
        if mapping.dropped:
            with pytest.raises(NotALoopNestError, match="in neither stamp"):
                mapping.nest(domain, space.pe_sizes)
        elif any(mapping.skew) and mapping.inner is None:
            with pytest.raises(NotALoopNestError, match="a skew without an inner time digit"):
                mapping.nest(domain, space.pe_sizes)
        else:
            nest = mapping.nest(domain, space.pe_sizes)
            assert difference(nest, Stamps(*mapping.stamp_texts, {}), domain) is None
            assert nest.skew == (mapping.skew if any(mapping.skew) else ())
            nests += 1
    assert nests > 0


def test_affine_systolic_mapping_keeps_its_skew() -> None:
    # PE[i % 8, j % 8] T[floor(i/8), floor(j/8), i % 8 + j % 8 + k]: the skew (1, 1) adds the
    # two PE coordinates to the innermost time dimension, k.
    space = DesignSpace.build("gemm", "systolic-2d-8x8", {"M": 16, "N": 16, "K": 16})
    name = "PE[i % 8, j % 8] T[floor(i/8), floor(j/8), i % 8 + j % 8 + k]"
    [mapping] = [c.mapping for c in space if c.name == name]
    nest = mapping.nest(space.workload.domain, space.pe_sizes)
    assert nest.skew == (1, 1)
    time = isl.Map(to_stamps(nest).time_stamp)
    assert time.is_equal(isl.Map(mapping.stamp_texts[1]))
