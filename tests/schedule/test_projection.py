"""The zoo's dependent workloads: dependences against the oracle, schedules legal (legality
module and oracle) and fully permutable where the nest is, and every space-time mapping made
from a schedule legal by brute force and evaluated."""

from __future__ import annotations

import islpy as isl
import pytest
from hypothesis import given, settings

import tenet
from tenet.api import check
from tenet.errors import NotALoopNestError
from tenet.isl_utils import bind_params
from tenet.mapping import Stamps, difference
from tenet.oracle.metrics import (
    enumerate_problem,
    reference_dependences,
    reference_order_violations,
)
from tenet.schedule import dependence_polyhedra, find_schedule, parametric_workload
from tenet.schedule.projection import spacetime_mappings
from tenet.spec import WorkloadSpec, load_architecture, load_workload
from tenet.testing.strategies import stencils
from tests.schedule.test_dependences import _pairs
from tests.schedule.test_hyperplanes import assert_schedule_legal, assert_schedule_legal_spec

DEPENDENT = [
    "stencil-1d-steps",
    "jacobi-1d",
    "jacobi-2d-steps",
    "seidel-2d",
    "heat-3d",
    "lu",
    "trisolv",
    "fdtd-2d",
    "recurrence-2d",
]
PERMUTABLE = ["stencil-1d-steps", "jacobi-1d", "jacobi-2d-steps", "seidel-2d", "heat-3d"]
SMALL = {"T": 2, "N": 5}
ARRAYS = ["systolic-1d:pes=3", "systolic-2d:rows=2,cols=3"]


def _small(name: str) -> dict[str, int]:
    return {k: min(v, SMALL.get(k, 5)) for k, v in load_workload(name).params.items()}


@pytest.mark.parametrize("name", DEPENDENT)
def test_dependent_workload_dependences_agree_with_the_oracle(name: str) -> None:
    spec = load_workload(name)
    params = _small(name)
    found = dependence_polyhedra(parametric_workload(spec))
    assert found, name
    got = {
        (d.kind, d.tensor, s, t) for d in found for s, t in _pairs(bind_params(d.relation, params))
    }
    assert got == reference_dependences(spec, params)


@pytest.mark.parametrize("name", DEPENDENT)
def test_dependent_workload_schedule_is_legal(name: str) -> None:
    assert_schedule_legal(name, _small(name))


@pytest.mark.parametrize("name", PERMUTABLE)
def test_stencil_outermost_band_is_fully_permutable(name: str) -> None:
    model = parametric_workload(load_workload(name))
    schedule = find_schedule(model.domain, dependence_polyhedra(model))
    assert len(schedule.bands) == 1
    assert len(schedule.bands[0].rows) == len(schedule.loops)


def test_jacobi_1d_schedule_skews_by_two() -> None:
    # Pluto's Jacobi-1D: t, then the skew 2t + i (here 2t + s + i, s telling the statements
    # apart): B[i] at step t needs A[i + 1] of step t - 1, written two statement steps earlier.
    model = parametric_workload(load_workload("jacobi-1d"))
    schedule = find_schedule(model.domain, dependence_polyhedra(model))
    assert schedule.matrix == ((1, 0, 0), (1, 1, 0), (2, 1, 1))


def _legal_by_oracle(name: str, arch: str, params: dict[str, int], reuse: bool = False) -> int:
    spec, architecture = load_workload(name), load_architecture(arch)
    found = spacetime_mappings(spec, architecture, params, reuse=reuse)
    pairs = [(s, t) for _, _, s, t in reference_dependences(spec, params)]
    for mapping in found:
        listed = enumerate_problem(spec, architecture, mapping.spec(), params)
        stamps = [(listed.space[x], listed.time[x]) for x in listed.instances]
        assert len(set(stamps)) == len(stamps), mapping.name
        assert set(listed.space.values()) <= set(listed.pe_set), mapping.name
        assert reference_order_violations(pairs, listed.time, listed.space) == [], mapping.name
    return len(found)


@pytest.mark.parametrize("arch", ARRAYS)
@pytest.mark.parametrize("name", ["stencil-1d-steps", "jacobi-1d", "seidel-2d", "lu"])
def test_spacetime_mappings_legal_by_the_oracle(name: str, arch: str) -> None:
    assert _legal_by_oracle(name, arch, _small(name)) > 0


@pytest.mark.slow
@pytest.mark.parametrize("arch", ARRAYS)
@pytest.mark.parametrize("name", DEPENDENT)
def test_spacetime_mappings_legal_by_the_oracle_every_workload(name: str, arch: str) -> None:
    assert _legal_by_oracle(name, arch, _small(name)) > 0


def test_spacetime_gemm_with_reuse_gives_the_systolic_dataflow() -> None:
    params = {"M": 4, "N": 4, "K": 4}
    found = spacetime_mappings(
        load_workload("gemm"), load_architecture("systolic-2d:rows=4,cols=4"), params, reuse=True
    )
    names = [m.name for m in found]
    assert "PE[i, j] T[i + j + k]" in names


def test_spacetime_jacobi_1d_has_a_skew_outside_the_unit_space() -> None:
    # The time row 2t + s (coefficient 2) and the space row 2t + s + i: no skew in {-1, 0, 1}
    # writes them.
    found = spacetime_mappings(load_workload("jacobi-1d"), load_architecture("systolic-1d:pes=4"))
    assert any("2t + s + i" in m.pe_text and "2t + s" in m.time_text for m in found)


@pytest.mark.parametrize("name", ["jacobi-1d", "seidel-2d", "trisolv"])
def test_spacetime_mappings_evaluate(name: str) -> None:
    params = _small(name)
    spec, arch = load_workload(name), load_architecture("systolic-1d:pes=3")
    for mapping in spacetime_mappings(spec, arch, params)[:2]:
        assert check(spec, arch, mapping.spec(), params=params).legal
        metrics = tenet.analyze(spec, arch, mapping.spec(), params=params)
        assert metrics.macs == tenet.count(tenet.Workload.from_spec(spec, params).domain)
        assert 0 < metrics.utilisation <= 1


@pytest.mark.parametrize("name", DEPENDENT[1:])
def test_zoo_skewed_dataflows_are_legal_for_other_array_sizes(name: str) -> None:
    params = _small(name)
    for pes in (2, 5):
        result = check(name, f"systolic-1d:pes={pes}", f"{name}-skewed:pes={pes}", params=params)
        assert result.legal, str(result)


@pytest.mark.parametrize(
    "name, arch",
    [
        ("jacobi-1d", "systolic-1d:pes=3"),
        pytest.param("seidel-2d", "systolic-2d:rows=2,cols=3", marks=pytest.mark.slow),
    ],
)
def test_explore_schedule_rows_are_all_legal_and_evaluated(name: str, arch: str) -> None:
    from tenet.dse.schedules import explore_schedule

    rows = explore_schedule(name, arch, params=_small(name))
    assert len(rows) > 0 and set(rows["status"]) == {"ok"}
    assert (rows["latency_compute_cycles"] > 0).all()


# -- random stencils -----------------------------------------------------------------------------


@given(stencils())
@settings(max_examples=15)
def test_random_stencil_dependences_and_schedule_agree_with_the_oracle(spec: WorkloadSpec) -> None:
    found = dependence_polyhedra(parametric_workload(spec))
    bound = [(d, bind_params(d.relation, {"N": 3})) for d in found]
    got = {(d.kind, d.tensor, s, t) for d, relation in bound for s, t in _pairs(relation)}
    assert got == reference_dependences(spec, {"N": 3})
    assert_schedule_legal_spec(spec, {"N": 3})


@given(stencils(max_dims=2))
@settings(max_examples=8)
def test_random_stencil_mappings_legal_by_the_oracle(spec: WorkloadSpec) -> None:
    arch = load_architecture("systolic-1d:pes=2")
    params = {"N": 3}
    pairs = [(s, t) for _, _, s, t in reference_dependences(spec, params)]
    for mapping in spacetime_mappings(spec, arch, params):
        listed = enumerate_problem(spec, arch, mapping.spec(), params)
        stamps = [(listed.space[x], listed.time[x]) for x in listed.instances]
        assert len(set(stamps)) == len(stamps), mapping.name
        assert reference_order_violations(pairs, listed.time, listed.space) == [], mapping.name


def test_spacetime_without_dependences_includes_rectangular_mappings() -> None:
    # GEMM with C a reduction has no dependence: the schedule is the loop order, the time
    # hyperplane a single loop, and PE[i, j] T[k] (output stationary) is among the mappings.
    found = spacetime_mappings(
        load_workload("gemm"),
        load_architecture("systolic-2d:rows=4,cols=4"),
        {"M": 4, "N": 4, "K": 4},
    )
    rectangular = {m.name for m in found if m.rectangular}
    assert "PE[i, j] T[k]" in rectangular
    assert all(not m.rectangular for m in found if "+" in m.name)


def test_spacetime_mappings_as_loop_nests() -> None:
    # GEMM 4^3 on 4x4: the rectangular mappings with each loop in one row are loop nests
    # (PE[i, j] T[k]: i and j across the two axes, k in time); the skewed ones
    # (PE[i, j] T[i + j + k]) stay relations.
    params = {"M": 4, "N": 4, "K": 4}
    workload, array = load_workload("gemm"), load_architecture("systolic-2d:rows=4,cols=4")
    found = spacetime_mappings(workload, array, params) + spacetime_mappings(
        workload, array, params, reuse=True
    )
    domain = isl.Set("{S[i, j, k]: 0 <= i < 4 and 0 <= j < 4 and 0 <= k < 4}")
    for mapping in found:
        rows = [row.index(1) for row in (*mapping.space, *mapping.time) if mapping.rectangular]
        if mapping.rectangular and len(set(rows)) < len(rows):
            # a loop in two rows (PE[i, j] T[i, k]): its index would be two loops of stride 1
            with pytest.raises(NotALoopNestError, match="are not nested"):
                mapping.nest(domain, [4, 4])
        elif mapping.rectangular:
            nest = mapping.nest(domain, [4, 4])
            spec = mapping.spec()
            assert difference(nest, Stamps(spec.space_stamp, spec.time_stamp, {}), domain) is None
        elif "+" in mapping.time_text:
            with pytest.raises(NotALoopNestError, match="a skewed placement has no loop nest"):
                mapping.nest(domain, [4, 4])
    [os] = [m for m in found if m.name == "PE[i, j] T[k]"]
    nest = os.nest(domain, [4, 4])
    # spatial loops first in their level (nothing over i or j runs outside them), then k
    assert [(x.dim, x.size, x.spatial) for x in nest.levels[0].loops] == [
        ("i", 4, 0),
        ("j", 4, 1),
        ("k", 4, None),
    ]
