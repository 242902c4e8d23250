"""The hyperplane search: the worked example by hand, GEMM's systolic time hyperplane, Farkas'
linearisation against isl's own dual, and every schedule found checked by the legality module
and by the brute-force oracle."""

from __future__ import annotations

import islpy as isl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenet.api import check
from tenet.isl_utils import bind_params
from tenet.model import Architecture, Dataflow, Workload
from tenet.model.legality import check_dataflow
from tenet.oracle.metrics import reference_dependences, reference_order_violations
from tenet.schedule import (
    SchedulingError,
    dependence_polyhedra,
    find_schedule,
    parametric_workload,
    time_hyperplane,
)
from tenet.schedule.farkas import farkas_constraints
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec, load_workload

ONE_PE = ArchitectureSpec.from_mapping({"name": "one", "pe": "{PE[p]: p = 0}"})


def _schedule(name: str, reuse: bool = False):  # type: ignore[no-untyped-def]
    model = parametric_workload(load_workload(name))
    return find_schedule(model.domain, dependence_polyhedra(model, reuse=reuse))


def test_schedule_worked_example_rows_by_hand() -> None:
    # Dependences d in {(1,-1), (1,0), (1,1)}; unknowns (u, w, c1, c2), c >= 0:
    # row 1: c1 - c2 >= 0, c1 >= 0, c1 + c2 >= 0, c1 + c2 >= 1, u*N + w >= c.d for each d.
    #   u = 0 is possible; w >= c1 + c2 >= 1, and w = 1 forces c1 + c2 = 1 with c1 >= c2:
    #   (u, w, c) = (0, 1, (1, 0)).
    # row 2 (same band, same dependences): independent of (1, 0) means c2 >= 1, then
    #   c1 >= c2 >= 1 and w >= c1 + c2 >= 2; w = 2 gives c = (1, 1): (0, 2, (1, 1)).
    schedule = _schedule("stencil-1d-steps")
    assert [(r.u, r.w, r.c) for r in schedule.rows] == [((0,), 1, (1, 0)), ((0,), 2, (1, 1))]
    assert schedule.matrix == ((1, 0), (1, 1))
    [band] = schedule.bands
    assert band.satisfied == ("flow a",)
    assert [r.carried for r in band.rows] == [("flow a",), ()]
    assert str(schedule.map) == "[N] -> { S[i, j] -> [i, i + j] : 0 <= i < N and 0 <= j < N }"


def test_schedule_worked_example_interchange_rejected_with_witness() -> None:
    spec = load_workload("stencil-1d-steps")
    interchange = DataflowSpec.from_mapping(
        {"name": "ji", "space_stamp": "{S[i, j] -> PE[0]}", "time_stamp": "{S[i, j] -> T[j, i]}"}
    )
    result = check(spec, ONE_PE, interchange, params={"N": 4})
    [violation] = result.violations
    # S[1, 0] reads a[1][1] (its a[i][j + 1]), written by S[0, 1] (a[i + 1][j]) which the
    # interchange runs later: T[1, 0] after T[0, 1].
    assert violation.kind == "dependence"
    assert "S[1, 0] reads a[1, 1] at T[0, 1] before S[0, 1] writes it at T[1, 0]" in (
        violation.message
    )


def test_time_hyperplane_gemm_with_reuse_is_the_systolic_wavefront() -> None:
    # Reuse chains (0,1,0), (1,0,0), (0,0,1) need c.d >= 1 each: c >= (1,1,1), and w >= 1;
    # the least is (u, w, c) = (0, 1, (1, 1, 1)): T[i + j + k] with PE[i, j].
    model = parametric_workload(load_workload("gemm"))
    row = time_hyperplane(model.domain, dependence_polyhedra(model, reuse=True))
    assert (row.u, row.w, row.c) == ((0, 0, 0), 1, (1, 1, 1))


def test_time_hyperplane_missing_raises() -> None:
    # C[i, j] written at every k (no reduction): a dependence of distance (0, 0, K - 1) needs
    # a bound growing with K, which is fine, but S[i, j, k] -> S[i, j, k'] for k' > k also
    # needs c3 >= 1: feasible. A statement depending on itself at distance 0 is not: the
    # time hyperplane cannot be found for a dependence with source = sink.
    domain = isl.Set("{S[i]: 0 <= i < 4}")
    from tenet.schedule import DependencePolyhedron

    loop = DependencePolyhedron("flow", "x", isl.Map("{S[i] -> S[i]: 0 <= i < 4}"))
    with pytest.raises(SchedulingError, match="no single time hyperplane"):
        time_hyperplane(domain, [loop])


# -- Farkas against isl's dual ------------------------------------------------------------------


def _farkas_set(piece: isl.BasicSet, m: int) -> isl.Set:
    """{c : c.(t - s) >= 0 on piece} by our Farkas linearisation."""
    n = piece.dim(isl.dim_type.set) + piece.dim(isl.dim_type.param)
    names = [f"c{k}" for k in range(m)]
    per_variable = []
    for v in range(n):
        values = [0] * (m + 1)
        if v < m:
            values[v] = -1
        elif v < 2 * m:
            values[v - m] = 1
        per_variable.append(tuple(values))
    form = (tuple(per_variable), tuple([0] * (m + 1)))
    return isl.Set(farkas_constraints(piece, form, names, piece.get_ctx()))


def _dual_set(piece: isl.BasicSet, m: int) -> isl.Set:
    """The same set read off isl's coefficients() (valid constraints of the piece)."""
    names = [f"c{k}" for k in range(m)]
    n_par = piece.dim(isl.dim_type.param)
    valid = piece.coefficients()
    cst = ["0"] + ["0"] * n_par
    sources = [f"-{n}" for n in names]
    text = f"{{ [{', '.join(names)}] -> [{', '.join(cst + sources + names)}] }}"
    relation = isl.Map.read_from_str(piece.get_ctx(), text)
    flat = isl.Set(valid.flatten()).reset_tuple_id()
    return relation.intersect_range(flat).domain()


@given(
    st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2), st.integers(-3, 3)), max_size=3),
    st.integers(1, 3),
)
def test_farkas_matches_isl_coefficients(extra: list[tuple[int, int, int]], low: int) -> None:
    # A dependence polyhedron S[i, j] -> S[i', j'] with i' = i + low and random extra
    # constraints a*(j' - j) + b*i + e >= 0 over a parametric box.
    condition = " and ".join(f"{a}*(y - j) + {b}*i + {e} >= 0" for a, b, e in extra)
    text = (
        f"[N] -> {{ S[i, j] -> S[x, y] : x = i + {low} and 0 <= i, j, x, y < N and "
        f"-1 <= y - j <= 1{' and ' + condition if condition else ''} }}"
    )
    relation = isl.Map(text)
    for piece in relation.wrap().get_basic_sets():
        if piece.is_empty():
            continue
        lifted = piece.lift()
        ours = _farkas_set(lifted, 2)
        theirs = _dual_set(piece.remove_divs(), 2)
        assert ours.is_equal(theirs), (text, ours, theirs)


# -- every schedule is legal --------------------------------------------------------------------

WORKLOADS = ["stencil-1d-steps", "jacobi-2d"]


def _rows_at(rows: tuple[tuple[int, ...], ...], point: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sum(c * x for c, x in zip(row, point, strict=True)) for row in rows)


def _instances(spec: WorkloadSpec, params: dict[str, int]) -> list[tuple[int, ...]]:
    from tenet.isl_utils import parse_set

    found: list[tuple[int, ...]] = []
    domain = bind_params(parse_set(spec.domain), params)
    domain.foreach_point(
        lambda p: found.append(
            tuple(
                int(p.get_coordinate_val(isl.dim_type.set, k).to_python())
                for k in range(domain.dim(isl.dim_type.set))
            )
        )
    )
    return found


def assert_schedule_legal(name: str, params: dict[str, int], reuse: bool = False) -> None:
    """The schedule of zoo workload ``name`` is legal (:func:`assert_schedule_legal_spec`)."""
    assert_schedule_legal_spec(load_workload(name), params, reuse)


def assert_schedule_legal_spec(
    spec: WorkloadSpec, params: dict[str, int], reuse: bool = False
) -> None:
    """The schedule of ``spec`` is full rank, legal for the legality module on one PE and
    for the oracle (every dependent pair strictly later)."""
    model = parametric_workload(spec)
    schedule = find_schedule(model.domain, dependence_polyhedra(model, reuse=reuse))
    m = len(schedule.loops)
    assert len(schedule.rows) == m
    # Legality module.
    time_text = str(bind_params(schedule.map, params)).replace("-> [", "-> T[")
    dataflow = DataflowSpec.from_mapping(
        {
            "name": "s",
            "space_stamp": f"{{ S[{', '.join(schedule.loops)}] -> PE[0] }}",
            "time_stamp": time_text,
        }
    )
    legality = check_dataflow(
        Workload.from_spec(spec, params),
        Architecture.from_spec(ONE_PE, params),
        Dataflow.from_spec(dataflow, params),
    )
    assert legality.legal, str(legality)
    # Oracle: every dependent pair strictly later (no two instances share a time-stamp).
    time = {x: _rows_at(schedule.matrix, x) for x in _instances(spec, params)}
    assert len(set(time.values())) == len(time)
    pairs = [(s, t) for _, _, s, t in reference_dependences(spec, params)]
    assert reference_order_violations(pairs, time) == []


@pytest.mark.parametrize("name", WORKLOADS)
def test_schedule_is_legal(name: str) -> None:
    spec = load_workload(name)
    assert_schedule_legal(name, {k: min(v, 4) for k, v in spec.params.items()})
