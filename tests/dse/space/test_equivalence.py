"""Equivalence of dataflows: same placement up to a symmetry of the array, same time order."""

from __future__ import annotations

import islpy as isl

from tenet.dse.space.equivalence import equivalent, same_order
from tenet.dse.space.symmetry import automorphisms
from tenet.model import Architecture, Dataflow, Workload
from tenet.spec import ArchitectureSpec, DataflowSpec, load_architecture, load_workload

PARAMS = {"M": 16, "N": 16, "K": 16}


def _flow(space: str, time: str) -> Dataflow:
    spec = DataflowSpec.from_mapping({"name": "d", "space_stamp": space, "time_stamp": time})
    return Dataflow.from_spec(spec, PARAMS)


def test_same_order_ignores_time_stamp_shape():
    # T[floor(i/4), i % 4] and T[i] list i = 0..7 in the same order
    a = isl.Map("{S[i] -> T[floor(i/4), i % 4]: 0 <= i < 8}")
    assert same_order(a, isl.Map("{S[i] -> T[i]: 0 <= i < 8}"))
    assert same_order(a, isl.Map("{S[i] -> T[3 * i + 5]: 0 <= i < 8}"))


def test_same_order_tells_reversal_and_merging():
    a = isl.Map("{S[i] -> T[i]: 0 <= i < 8}")
    assert not same_order(a, isl.Map("{S[i] -> T[-i]: 0 <= i < 8}"))
    # two instances on one time-stamp is another partition
    assert not same_order(a, isl.Map("{S[i] -> T[floor(i/2)]: 0 <= i < 8}"))


def test_equivalent_up_to_transposition():
    workload = Workload.from_spec(load_workload("gemm"), PARAMS)
    arch = Architecture.from_spec(load_architecture("systolic-2d-8x8"), PARAMS)
    time = "{S[i,j,k] -> T[floor(i/8), floor(j/8), i % 8 + j % 8 + k]}"
    a = _flow("{S[i,j,k] -> PE[i % 8, j % 8]}", time)
    b = _flow("{S[i,j,k] -> PE[j % 8, i % 8]}", time)
    assert not equivalent(workload, a, b)
    assert equivalent(workload, a, b, automorphisms(arch))


def test_equivalent_tiles_of_one_value_vanish():
    workload = Workload.from_spec(load_workload("gemm"), {"M": 8, "N": 8, "K": 8})
    a = _flow("{S[i,j,k] -> PE[i % 8, j % 8]}", "{S[i,j,k] -> T[floor(i/8), k]}")
    b = _flow("{S[i,j,k] -> PE[i, j]}", "{S[i,j,k] -> T[k]}")
    assert equivalent(workload, a, b)


def test_one_way_array_has_no_transposition():
    oneway = ArchitectureSpec.from_mapping(
        {
            "name": "oneway",
            "pe": "{PE[p, q]: 0 <= p, q < 4}",
            "interconnect": [{"link": "{PE[p, q] -> PE[p + 1, q]}"}],
        }
    )
    assert automorphisms(Architecture.from_spec(oneway, {})) == ((0, 1),)
