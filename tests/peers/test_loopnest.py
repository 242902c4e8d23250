"""Loop nests as relations: hand-derived per-level counts of a small tiled GEMM under both
retention rules, bypasses, and the brute-force oracle on three-level nests."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tenet.api import load_problem
from tenet.errors import NotALoopNestError, SpecError
from tenet.mapping import LevelLoops, Loop, LoopNest, dataflow_spec, to_stamps
from tenet.metrics.memory import evaluate_memory
from tenet.oracle.tiles import reference_memory
from tenet.peers.loopnest import evaluate_nest
from tenet.spec import ArchitectureSpec, load_workload

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


def _figures(nest: LoopNest, arch: ArchitectureSpec, retention: str = "keep", **params: int):
    p = load_problem("gemm", arch, dataflow_spec(nest, "n"), params=params)
    return {
        (r.level, r.tensor): (r.footprint, r.fills, r.writebacks)
        for r in evaluate_nest(p, nest, retention)  # type: ignore[arg-type]
    }


def test_loopnest_relations_text() -> None:
    r = to_stamps(_k_outer())
    assert r.tiles == {"glb": "{S[i, j, k] -> GLB[floor(k / 2), floor(i / 2)]}"}
    assert r.time_stamp == ("{S[i, j, k] -> T[floor(k / 2), floor(i / 2), (i) % 2, j, (k) % 2]}")


def test_loopnest_gemm_reduction_outermost_by_hand() -> None:
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


def test_loopnest_bypass_drops_the_level() -> None:
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
def test_loopnest_matches_oracle(order: tuple[str, ...]) -> None:
    # k has extent 3 and tiles of 2: the last tile is partial.
    nest = _three(order, 2)
    flow = dataflow_spec(nest, "n")
    params = {"M": 4, "N": 4, "K": 3}
    p = load_problem("gemm", THREE, flow, params=params)
    figures, _ = reference_memory(load_workload("gemm"), THREE, flow, params)
    got = {(r.level, r.tensor): r for r in evaluate_nest(p, nest)}
    for key, ref in figures.items():
        r = got[key]
        assert (r.footprint, r.fills, r.writebacks) == (ref.footprint, ref.fills, ref.writebacks)
    full = {(r.level, r.tensor): r for r in evaluate_memory(p).records}
    assert all(full[key].fills == r.fills for key, r in got.items())


def test_loopnest_unknown_dimension() -> None:
    nest = LoopNest(GEMM, (2, 2, 2), (LevelLoops("dram", (Loop("x", 2),)),))
    with pytest.raises(SpecError, match="dram.loops.0: loop over 'x'"):
        to_stamps(nest, "m.yaml")


def test_loopnest_too_few_trips() -> None:
    nest = LoopNest(GEMM, (4, 2, 2), (LevelLoops("dram", (Loop("i", 2), Loop("j", 2))),))
    with pytest.raises(SpecError, match="the loops over 'i' run 2 trips"):
        to_stamps(nest)


def test_loopnest_spatial_above_shared_level() -> None:
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
def test_loopnest_random_against_walk(order: list[str], retention: str) -> None:
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
