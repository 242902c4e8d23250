"""Mapping in, assessment out: a loop nest's tiles, places and kept tensors assessed
(:func:`tenet.metrics.assessment.assess_problem`) give hand-derived per-level counts of a small
tiled GEMM under both retention rules, the figures of the architecture that holds only the kept
tensors, and the brute-force oracle's; a bad ``keep`` is refused naming its field."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.errors import NotALoopNestError, SpecError
from tenet.mapping import LevelLoops, Loop, LoopNest, dataflow_spec, to_stamps
from tenet.metrics.assessment import assess_problem
from tenet.metrics.memory import evaluate_memory
from tenet.oracle.tiles import reference_memory
from tenet.spec import ArchitectureSpec, DataflowSpec, load_workload
from tenet.vocab import Retention

TWO = ArchitectureSpec.from_mapping(
    {"name": "two", "pe": "{PE[i]: 0 <= i < 1}", "levels": [{"name": "dram"}, {"name": "glb"}]}
)
THREE = ArchitectureSpec.from_mapping(
    {
        "name": "three",
        "pe": "{PE[i]: 0 <= i < 2}",
        "levels": [{"name": "dram"}, {"name": "glb"}, {"name": "rf", "per_pe": True}],
    }
)
GEMM = ("i", "j", "k")


def _k_outer(keep_b: bool = True) -> LoopNest:
    # GEMM M=4, N=2, K=4: dram runs k:2 then i:2 over glb tiles of 2x2x2; glb runs the points.
    glb = LevelLoops(
        "glb", (Loop("i", 2), Loop("j", 2), Loop("k", 2)), None if keep_b else frozenset("AC")
    )
    return LoopNest(GEMM, (4, 2, 4), (LevelLoops("dram", (Loop("k", 2), Loop("i", 2))), glb))


def _figures(
    nest: LoopNest, arch: ArchitectureSpec, retention: Retention = "keep", **params: int
) -> dict[tuple[str, str], tuple[int, int, int]]:
    p = load_problem("gemm", arch, dataflow_spec(nest, "n"), params=params)
    found = assess_problem(p, nest, figures=["memory"], retention=retention)
    return {(r.level, r.tensor): (r.footprint, r.fills, r.writebacks) for r in found.memory.records}


def test_assess_nest_relations_text() -> None:
    r = to_stamps(_k_outer())
    assert r.tiles == {"glb": "{S[i, j, k] -> GLB[floor(k / 2), floor(i / 2)]}"}
    assert r.time_stamp == ("{S[i, j, k] -> T[floor(k / 2), floor(i / 2), (i) % 2, j, (k) % 2]}")


def test_assess_nest_gemm_reduction_outermost_by_hand() -> None:
    # glb tiles in the order (k_o, i_o) = (0,0), (0,1), (1,0), (1,1), each 2x2 of A, B, C.
    # A[i,k] changes at every tile: 4 x 4 = 16 fills. B[k,j] depends on k_o only: it stays
    # over the two i_o tiles (keep): 2 x 4 = 8; refetched at every tile: 16. C[i,j] depends
    # on i_o only and changes at every tile: each tile leaves 4 partial sums (16 writebacks);
    # tiles (1,0) and (1,1) read back the 4 written by (0,0) and (0,1): 8 fills.
    keep = _figures(_k_outer(), TWO, M=4, N=2, K=4)
    assert keep[("glb", "A")] == (4, 16, 0)
    assert keep[("glb", "B")] == (4, 8, 0)
    assert keep[("glb", "C")] == (4, 8, 16)
    assert keep[("dram", "C")] == (8, 0, 0)
    refetch = _figures(_k_outer(), TWO, "refetch", M=4, N=2, K=4)
    assert refetch[("glb", "B")] == (4, 16, 0)
    assert refetch[("glb", "A")] == keep[("glb", "A")]
    assert refetch[("glb", "C")] == keep[("glb", "C")]


def test_assess_nest_bypass_drops_the_level() -> None:
    got = _figures(_k_outer(keep_b=False), TWO, M=4, N=2, K=4)
    assert ("glb", "B") not in got
    assert got[("dram", "B")] == (8, 0, 0)
    assert got[("glb", "A")] == (4, 16, 0)


def _three(order: tuple[str, ...], size: int) -> LoopNest:
    # dram: i outer tiles; glb: j across 2 PEs then its temporal loops; rf: the points.
    return LoopNest(
        GEMM,
        (4, 4, 3),
        (
            LevelLoops("dram", (Loop("i", 2),)),
            LevelLoops("glb", (Loop("j", 2, spatial=0),) + tuple(Loop(d, 2) for d in order)),
            LevelLoops(
                "rf",
                (
                    Loop("k", size),
                    Loop("i", 1 if "i" in order else 2),
                    Loop("j", 1 if "j" in order else 2),
                ),
            ),
        ),
        per_pe=frozenset({"rf"}),
    )


@pytest.mark.parametrize("order", [("j", "k"), ("k", "j"), ("i", "k")])
def test_assess_nest_matches_oracle(order: tuple[str, ...]) -> None:
    # k has extent 3 and tiles of 2: the last tile is partial.
    nest = _three(order, 2)
    flow = dataflow_spec(nest, "n")
    params = {"M": 4, "N": 4, "K": 3}
    p = load_problem("gemm", THREE, flow, params=params)
    figures, _ = reference_memory(load_workload("gemm"), THREE, flow, params)
    found = assess_problem(p, nest, figures=["memory"])
    got = {(r.level, r.tensor): r for r in found.memory.records}
    for key, ref in figures.items():
        r = got[key]
        assert (r.footprint, r.fills, r.writebacks) == (ref.footprint, ref.fills, ref.writebacks)
    full = {(r.level, r.tensor): r for r in evaluate_memory(p).records}
    assert all(full[key].fills == r.fills for key, r in got.items())


def test_assess_nest_unknown_dimension() -> None:
    nest = LoopNest(GEMM, (2, 2, 2), (LevelLoops("dram", (Loop("x", 2),)),))
    with pytest.raises(SpecError, match="dram.loops.0: loop over 'x'"):
        to_stamps(nest, "m.yaml")


def test_assess_nest_too_few_trips() -> None:
    nest = LoopNest(GEMM, (4, 2, 2), (LevelLoops("dram", (Loop("i", 2), Loop("j", 2))),))
    with pytest.raises(SpecError, match="the loops over 'i' run 2 trips"):
        to_stamps(nest)


def test_assess_nest_spatial_above_shared_level() -> None:
    nest = LoopNest(
        GEMM,
        (2, 2, 2),
        (LevelLoops("dram", (Loop("i", 2, spatial=0),)), LevelLoops("glb", ())),
    )
    with pytest.raises(NotALoopNestError, match="spatial loop above shared level 'glb'"):
        to_stamps(nest)


# Random nests against a walk written from the loops alone (no isl): each instance's loop
# values by mixed radix, tiles grouped and ordered in Python, a literal buffer per tile.
def _values(nest: LoopNest, point: dict[str, int]) -> list[int]:
    flat = [loop for _, loop in nest.loops()]
    out = []
    for n, loop in enumerate(flat):
        stride = 1
        for inner in flat[n + 1 :]:
            if inner.dim == loop.dim:
                stride *= inner.size
        first = all(prev.dim != loop.dim for prev in flat[:n])
        value = point[loop.dim] // stride
        out.append(value if first else value % loop.size)
    return out


def _walk(nest: LoopNest, level: int, retention: str) -> dict[str, tuple[int, int]]:
    from itertools import product

    dims = dict(zip(nest.dims, nest.extents, strict=True))
    bound = nest.boundary(nest.levels[level].level)
    flat = [loop for _, loop in nest.loops()]
    tiles: dict[tuple[int, ...], list[dict[str, int]]] = {}
    for values in product(*(range(e) for e in dims.values())):
        point = dict(zip(dims, values, strict=True))
        v = _values(nest, point)
        key = tuple(
            x for x, loop in zip(v[:bound], flat[:bound], strict=True) if loop.spatial is None
        )
        tiles.setdefault(key, []).append(point)
    access = {
        "A": lambda p: (p["i"], p["k"]),
        "B": lambda p: (p["k"], p["j"]),
        "C": lambda p: (p["i"], p["j"]),
    }
    out = {}
    for tensor, f in access.items():
        held: set = set()
        written: set = set()
        fills = 0
        for key in sorted(tiles):
            now = {f(p) for p in tiles[key]}
            new = now if retention == "refetch" else now - held
            fills += len(new & written) if tensor == "C" else len(new)
            held = now
            if tensor == "C":
                written |= now
        out[tensor] = (fills, 0)
    return out


@given(
    st.lists(st.sampled_from(GEMM), min_size=1, max_size=3),
    st.sampled_from(["keep", "refetch"]),
)
def test_assess_nest_random_against_walk(order: list[str], retention: Retention) -> None:
    # GEMM 4 x 4 x 3 on dram -> glb: dram runs the loops of `order` over tiles of 2 (i, j)
    # or 1 (k), in that order; glb runs the rest.
    extents = {"i": 4, "j": 4, "k": 3}
    outer = list(dict.fromkeys(order))
    tile = {"i": 2, "j": 2, "k": 1}
    dram = [Loop(d, extents[d] // tile[d]) for d in outer]
    inner = [Loop(d, tile[d] if d in outer else extents[d]) for d in GEMM]
    nest = LoopNest(
        GEMM, (4, 4, 3), (LevelLoops("dram", tuple(dram)), LevelLoops("glb", tuple(inner)))
    )
    got = _figures(nest, TWO, retention, M=4, N=4, K=3)
    walk = _walk(nest, 1, retention)
    for tensor, (fills, _) in walk.items():
        assert got[("glb", tensor)][1] == fills


def test_assess_refetch_brings_every_tile_in_whole() -> None:
    # GEMM 2 x 2 x 3: dram runs i:2 over glb's tiles, glb runs j:2 then k:3. Each of glb's
    # two tiles (i = 0, 1) uses A[i, 0..2] (3 elements), all of B (6) and C[i, 0..1] (2).
    # keep: A changes with i (3 + 3 = 6), B stays (6, once), C was never written by an
    # earlier tile (no fills). refetch: B comes in again for the second tile (6 + 6 = 12).
    # Under either rule each tile sends its 2 sums of C back: 4 writebacks.
    nest = LoopNest(
        GEMM,
        (2, 2, 3),
        (LevelLoops("dram", (Loop("i", 2),)), LevelLoops("glb", (Loop("j", 2), Loop("k", 3)))),
    )
    keep = _figures(nest, TWO, M=2, N=2, K=3)
    refetch = _figures(nest, TWO, "refetch", M=2, N=2, K=3)
    assert [keep[("glb", t)][1] for t in "ABC"] == [6, 6, 0]
    assert [refetch[("glb", t)][1] for t in "ABC"] == [6, 12, 0]
    assert keep[("glb", "C")][2] == refetch[("glb", "C")][2] == 4


ENERGIES = ArchitectureSpec.from_mapping(
    {
        "name": "three-energies",
        "pe": "{PE[i]: 0 <= i < 2}",
        "interconnect": [{"link": "{PE[i] -> PE[i + 1]}", "delay": 1, "energy": 0.5}],
        "levels": [
            {"name": "dram", "energy_read": 100, "energy_write": 100, "read_bandwidth": 1},
            {"name": "glb", "energy_read": 6, "energy_write": 6, "read_bandwidth": 2},
            {"name": "rf", "per_pe": True, "energy_read": 1, "energy_write": 1},
        ],
    }
)


def _holding(keep: dict[str, str]) -> ArchitectureSpec:
    """``ENERGIES`` whose levels may hold only the tensors ``keep`` names for them."""
    levels = tuple(
        lv.model_copy(update={"tensors": tuple(keep[lv.name])}) if lv.name in keep else lv
        for lv in ENERGIES.levels
    )
    return ENERGIES.model_copy(update={"levels": levels})


@pytest.mark.parametrize(
    "keep",
    [{"glb": t} for t in ("ABC", "AB", "AC", "BC", "A", "B", "C")]
    + [{"glb": "AB", "rf": "C"}, {"rf": "AB"}, {"glb": ""}],
)
@pytest.mark.parametrize("order", [("j", "k"), ("i", "k")])
def test_assess_bypass_equals_the_holding_architecture_and_the_oracle(
    keep: dict[str, str], order: tuple[str, ...]
) -> None:
    # The nest's kept tensors, given with the mapping, count as an architecture whose levels
    # hold only those (the figures bypasses had before a mapping could say them), and as the
    # literal buffers of the oracle, which read them from the dataflow's ``keep``.
    params = {"M": 4, "N": 4, "K": 3}
    plain = _three(order, 2)
    nest = plain.keeping({level: frozenset(t) for level, t in keep.items()})
    p = load_problem("gemm", ENERGIES, dataflow_spec(plain, "plain"), params=params)
    compute = assess_problem(p, figures=["metrics"]).metrics.latency_compute
    got = assess_problem(p, nest, figures=["memory"], latency_compute=compute).memory
    holding = load_problem("gemm", _holding(keep), dataflow_spec(plain, "plain"), params=params)
    assert got == evaluate_memory(holding, compute)
    flow = dataflow_spec(nest, "kept")
    own = load_problem("gemm", ENERGIES, flow, params=params)
    assert assess_problem(own, figures=["memory"], latency_compute=compute).memory == got
    figures, need = reference_memory(load_workload("gemm"), ENERGIES, flow, params)
    assert set(figures) == {(r.level, r.tensor) for r in got.records}
    for r in got.records:
        ref = figures[(r.level, r.tensor)]
        counted = (r.footprint, r.fills, r.writebacks, r.fills_neighbour)
        assert counted == (ref.footprint, ref.fills, ref.writebacks, ref.fills_neighbour), r
        assert (r.reads_parent, r.writes_parent) == (ref.reads_parent, ref.writes_parent), r
    assert {s.level: s.footprint for s in got.levels} == need


def test_assess_row_carries_the_mapping() -> None:
    # the row of an assessment needs no argument: its mapping's stamps, tiles and kept tensors
    nest = _k_outer(keep_b=False)
    p = load_problem("gemm", TWO, dataflow_spec(_k_outer(), "n"), params={"M": 4, "N": 2, "K": 4})
    row = assess_problem(p, nest).row()
    stamps = to_stamps(nest)
    assert (row["space_stamp"], row["time_stamp"]) == (stamps.space_stamp, stamps.time_stamp)
    assert row["tiles"] == stamps.tiles and row["keep"] == {"glb": ["A", "C"]}
    assert "keep" not in assess_problem(p).row()


def _kept(keep: dict[str, list[str]], arch: ArchitectureSpec = TWO) -> None:
    s = to_stamps(_k_outer())
    flow = {"name": "n", "space_stamp": s.space_stamp, "time_stamp": s.time_stamp, "keep": keep}
    spec = DataflowSpec.from_mapping({**flow, "tiles": s.tiles}, source="d.yaml")
    load_problem("gemm", arch, spec, params={"M": 4, "N": 2, "K": 4})


def test_assess_keep_unknown_level() -> None:
    with pytest.raises(SpecError, match="d.yaml: keep.l2: the architecture has no memory level"):
        _kept({"l2": ["A"]})


def test_assess_keep_outermost_level() -> None:
    with pytest.raises(SpecError, match="keep.dram: 'dram' is the outermost level: it holds every"):
        _kept({"dram": ["A"]})


def test_assess_keep_unknown_tensor() -> None:
    from tenet.errors import UnknownTensorError

    with pytest.raises(UnknownTensorError, match="d.yaml: keep.glb: tensor 'Q' is not in the"):
        _kept({"glb": ["Q"]})


def test_assess_keep_tensor_the_level_may_not_hold() -> None:
    glb_ab = ArchitectureSpec.from_mapping(
        {
            "name": "two-ab",
            "pe": "{PE[i]: 0 <= i < 1}",
            "levels": [{"name": "dram"}, {"name": "glb", "tensors": ["A", "B"]}],
        }
    )
    with pytest.raises(
        SpecError, match=r"keep.glb: level 'glb' may not hold C \(it may hold A, B\)"
    ):
        _kept({"glb": ["A", "C"]}, glb_ab)


def test_assess_nest_keeping_a_tensor_the_level_may_not_hold() -> None:
    glb_ab = ArchitectureSpec.from_mapping(
        {
            "name": "two-ab",
            "pe": "{PE[i]: 0 <= i < 1}",
            "levels": [{"name": "dram"}, {"name": "glb", "tensors": ["A", "B"]}],
        }
    )
    p = load_problem(
        "gemm", glb_ab, dataflow_spec(_k_outer(), "n"), params={"M": 4, "N": 2, "K": 4}
    )
    with pytest.raises(SpecError, match="keep.glb: level 'glb' may not hold C"):
        assess_problem(p, _k_outer(keep_b=False))
