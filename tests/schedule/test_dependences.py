"""Dependence polyhedra: the worked example's distances by hand, every dependent pair against
the brute-force oracle, and the reuse chains of GEMM."""

from __future__ import annotations

import islpy as isl
import pytest

from tenet.isl_utils import bind_params
from tenet.oracle.metrics import reference_dependences
from tenet.schedule import dependence_polyhedra, distance_vectors, parametric_workload
from tenet.spec import WorkloadSpec, load_workload
from tenet.zoo import entries

EXAMPLE = load_workload("stencil-1d-steps")


def _pairs(relation: isl.Map) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    found: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    n = relation.dim(isl.dim_type.in_)

    def visit(point: isl.Point) -> None:
        values = tuple(
            int(point.get_coordinate_val(isl.dim_type.set, k).to_python()) for k in range(2 * n)
        )
        found.add((values[:n], values[n:]))

    relation.wrap().foreach_point(visit)
    return found


def test_dependences_worked_example_distances() -> None:
    # a[i + 1][j] is written by S[i, j] and read by S[i + 1, j - 1], S[i + 1, j] and
    # S[i + 1, j + 1] (reads a[i+1][j+1-1], a[i+1][j], a[i+1][j-1+1]): distances (1, -1),
    # (1, 0), (1, 1); a read of a[i][.] comes after its write, so no anti dependence, and each
    # element is written once, so no output dependence.
    [flow] = dependence_polyhedra(parametric_workload(EXAMPLE))
    assert (flow.kind, flow.tensor) == ("flow", "a")
    assert flow.distances == ((1, -1), (1, 0), (1, 1))


def test_dependences_parameters_stay_symbolic_unless_bound() -> None:
    free = parametric_workload(EXAMPLE)
    assert [str(n) for n in free.domain.get_var_names(isl.dim_type.param)] == ["N"]
    bound = parametric_workload(EXAMPLE, {"N": 3})
    assert bound.domain.dim(isl.dim_type.param) == 0


def test_distance_vectors_non_uniform_is_none() -> None:
    # C[i, j] of GEMM is written at every k: output pairs (k, k') for every k < k'.
    gemm = parametric_workload(load_workload("gemm"))
    [output] = dependence_polyhedra(gemm, reductions=())
    assert output.kind == "output" and output.distances is None
    assert distance_vectors(isl.Map("{S[i] -> S[i + 2]: 0 <= i < 5}")) == ((2,),)


def test_dependences_gemm_reuse_chains_are_the_systolic_directions() -> None:
    # A[i, k] passes along j, B[k, j] along i, C[i, j] along k (its accumulation order).
    gemm = parametric_workload(load_workload("gemm"))
    chains = dependence_polyhedra(gemm, reuse=True)
    assert [(d.name, d.distances) for d in chains] == [
        ("reuse A", ((0, 1, 0),)),
        ("reuse B", ((1, 0, 0),)),
        ("reuse C", ((0, 0, 1),)),
    ]


def _small(spec: WorkloadSpec) -> dict[str, int]:
    return {k: min(v, 4) for k, v in spec.params.items()}


DEPENDENT = ["stencil-1d-steps", "jacobi-2d", "gemm"]


@pytest.mark.parametrize("name", DEPENDENT)
def test_dependences_agree_with_the_oracle(name: str) -> None:
    spec = load_workload(name)
    params = _small(spec)
    found = dependence_polyhedra(parametric_workload(spec), reductions=())
    got = {
        (d.kind, d.tensor, s, t) for d in found for s, t in _pairs(bind_params(d.relation, params))
    }
    assert got == reference_dependences(spec, params, reductions=())


def test_zoo_workloads_have_dependences_computed() -> None:
    for entry in entries("workload"):
        if entry.is_template:
            workload = parametric_workload(load_workload(entry.name))
            for found in dependence_polyhedra(workload):
                # a dependence relates instances of the domain, and never an instance to itself
                assert not found.relation.is_empty(), (entry.name, found.name)
                assert found.relation.intersect(
                    isl.Map.identity(found.relation.get_space())
                ).is_empty(), (entry.name, found.name)
