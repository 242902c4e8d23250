"""Mapping constraints: every mapping a constrained search counts satisfies them; the constrained
best of the joint and exhaustive searches equals brute force over the constrained space (GEMM
8x8x8 on two PEs by two with a global buffer and a register file per PE, listed here with loops
of its own); constraints equal to the unconstrained best's choices give the same best; the
design-space search keeps the array mappings of the spread asked; bad constraints exit 2 with
one line naming the file and the key."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from itertools import permutations, product
from pathlib import Path
from typing import Any

import pytest
import yaml

from tenet.api import load_problem
from tenet.dse.constraints import MappingConstraints, mapping_spread
from tenet.dse.joint.bounds import bands_of
from tenet.dse.joint.tree import joint_search
from tenet.dse.space.design import DesignSpace
from tenet.dse.strategies import run_tiling
from tenet.dse.tiling.constructive import build_tilings
from tenet.dse.tiling.sizes import TilingSpace, size_choices, sized_tilings
from tenet.mapping import LoopNest, array_spread, tiled_nest
from tenet.metrics.assessment import Evaluated, assess_problem
from tenet.metrics.latency import occupancy
from tenet.model.problem import Problem
from tenet.spec import ArchitectureSpec, ConstraintsSpec, DataflowSpec
from tests.conftest import ROOT, run

ARCH = ArchitectureSpec.from_mapping(
    {
        "name": "small-levels",
        "pe": "{PE[i, j]: 0 <= i < 2 and 0 <= j < 2}",
        "interconnect": [
            {"link": "{PE[i, j] -> PE[i + 1, j]}", "delay": 1},
            {"link": "{PE[i, j] -> PE[i, j + 1]}", "delay": 1},
        ],
        "levels": [
            {"name": "dram", "read_bandwidth": 1, "write_bandwidth": 1, "energy_read": 100,
             "energy_write": 100},
            {"name": "glb", "capacity": 96, "read_bandwidth": 4, "write_bandwidth": 4,
             "energy_read": 6, "energy_write": 6},
            {"name": "rf", "capacity": 8, "per_pe": True, "energy_read": 1, "energy_write": 1},
        ],
    }
)  # fmt: skip
OS = DataflowSpec(
    name="os",
    space_stamp="{S[i, j, k] -> PE[i % 2, j % 2]}",
    time_stamp="{S[i, j, k] -> T[floor(i / 2), floor(j / 2), k]}",
)
SIZES = {"M": 8, "N": 8, "K": 8}
LIMITS = {
    "spatial": {"i": 2},
    "levels": {
        "glb": {
            "bypass": ["A"],
            "sizes": {"i": [4], "j": [4], "k": [2, 4]},
            "order": ["k", "i", "j"],
        },
        "rf": {"keep": ["C"], "sizes": {"i": [1], "j": [1]}},
    },
}
"""Constraints of the brute-force cases (checked by hand in :func:`_satisfies`)."""
RF_ORDER = ["k", "i", "j"]
"""The order of the loops over the rf tiles in the fast cases."""
FIXED = {
    **LIMITS,
    "levels": {**LIMITS["levels"], "rf": {**LIMITS["levels"]["rf"], "order": RF_ORDER}},
}
""":data:`LIMITS` with the order over the rf tiles fixed too."""
CASES = [
    pytest.param(FIXED, RF_ORDER, id="orders-fixed"),
    pytest.param(LIMITS, None, id="rf-order-free", marks=pytest.mark.slow),
]


def _spec(data: Mapping[str, Any], source: str | None = None) -> ConstraintsSpec:
    return ConstraintsSpec.from_mapping({"name": "c", **data}, source=source)


def _problem() -> Problem:
    return load_problem("gemm", ARCH, OS, SIZES)


def _satisfies(nest: LoopNest, rf_order: list[str] | None = None) -> bool:
    """:data:`LIMITS` of a nest, written out: glb tiles of 4 along i and j, 2 or 4 along k,
    keeping no A, its running loops k before i before j; rf tiles of one (i, j), keeping C,
    its running loops in ``rf_order`` (None: any)."""
    glb, rf = nest.tile_sizes("glb"), nest.tile_sizes("rf")
    dram_loops = [x.dim for x in nest.levels[0].loops if x.size > 1]
    glb_loops = [x.dim for x in nest.levels[1].loops if x.size > 1]
    kept = {lv.level: lv.keep for lv in nest.levels}
    return (
        glb[:2] == (4, 4)
        and glb[2] in (2, 4)
        and dram_loops == [d for d in "kij" if d in dram_loops]
        and (rf_order is None or glb_loops == [d for d in rf_order if d in glb_loops])
        and kept["glb"] is not None
        and "A" not in kept["glb"]
        and rf[:2] == (1, 1)
        and (kept["rf"] is None or "C" in kept["rf"])
    )


def _brute_force(
    problem: Problem, keeps: list[dict[str, frozenset[str]]], rf_order: list[str] | None
) -> Fraction:
    """The least latency over every tiling of glb and rf (nested divisors, each band in every
    order of its loops, glb tiles not cutting the array's two-PE digits of i and j) and every
    choice of ``keeps`` that satisfies :data:`LIMITS` and fits, each counted exactly."""
    compute = occupancy(problem).latency_compute
    divisors = [d for d in range(1, 9) if 8 % d == 0]
    best: Fraction | None = None
    for glb in product(divisors, repeat=3):
        if any(s % 2 for s in glb[:2]):  # a glb tile of 1 along i or j cuts the array
            continue
        if glb[:2] != (4, 4) or glb[2] not in (2, 4):  # (:func:`_satisfies`, before orders)
            continue
        for rf in product(*([d for d in divisors if g % d == 0] for g in glb)):
            for outer, inner in product(permutations(range(3)), repeat=2):
                bands = [("glb", glb, outer), ("rf", rf, inner)]
                for keep in keeps:
                    nest = tiled_nest(("i", "j", "k"), (8, 8, 8), "dram", bands, (0, 1, 2))
                    nest = nest.keeping(keep)
                    if not _satisfies(nest, rf_order):
                        continue
                    if not assess_problem(problem, nest, figures=["needs"]).needs.fits:
                        continue
                    value = Evaluated.of(problem, nest, "latency", compute).value
                    best = value if best is None else min(best, value)
    assert best is not None
    return best


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[LoopNest]:
    """Every loop nest counted exactly while the test runs."""
    seen: list[LoopNest] = []
    original = Evaluated.of.__func__  # type: ignore[attr-defined]

    def of(cls: type[Evaluated], problem: Problem, mapping: LoopNest, *args: Any) -> Evaluated:
        seen.append(mapping)
        result: Evaluated = original(cls, problem, mapping, *args)
        return result

    monkeypatch.setattr(Evaluated, "of", classmethod(of))
    return seen


@pytest.mark.parametrize(("limits", "rf_order"), CASES)
def test_joint_search_within_constraints_equals_brute_force(
    counted: list[LoopNest], limits: dict[str, Any], rf_order: list[str] | None
) -> None:
    found = joint_search("gemm", ARCH, [OS], SIZES, objective="latency", constraints=_spec(limits))
    assert counted and all(_satisfies(nest, rf_order) for nest in counted)
    held = [{"B", "C"}, {"B"}, {"C"}]  # glb keeps no A: the non-empty subsets of B and C
    best = _brute_force(_problem(), [{"glb": frozenset(k)} for k in held], rf_order)
    assert found.best.value == best and found.complete and found.gap == 0


@pytest.mark.parametrize(("limits", "rf_order"), CASES)
def test_exhaustive_search_within_constraints_equals_brute_force(
    counted: list[LoopNest], limits: dict[str, Any], rf_order: list[str] | None
) -> None:
    # no bypass searched: glb keeps what the dataflow keeps (every tensor) but A
    found = run_tiling("gemm", ARCH, OS, SIZES, constraints=_spec(limits))
    assert counted and all(_satisfies(nest, rf_order) for nest in counted)
    best = _brute_force(_problem(), [{"glb": frozenset({"B", "C"})}], rf_order)
    assert found.best.value == best


def test_every_tiling_listed_or_built_satisfies_the_constraints() -> None:
    problem = _problem()
    limits = MappingConstraints.of(_spec(LIMITS), problem.workload, problem.architecture.levels)
    space = TilingSpace(["glb", "rf"], constraints=limits)
    listed = [
        t for chosen in size_choices(problem, space) for t in sized_tilings(problem, space, chosen)
    ]
    built = build_tilings(problem, constraints=limits)
    assert listed and built
    assert all(_satisfies(t) and not limits.violations(t) for t in [*listed, *built])


def _constraints_of(nest: LoopNest) -> dict[str, Any]:
    """Constraints that fix every choice of ``nest``: each level's tile sizes, the order of
    the loops over its tiles and the tensors it keeps."""
    levels: dict[str, Any] = {}
    for band in bands_of(nest):
        order = [nest.dims[d] for d in band.order]
        keep = next(lv.keep for lv in nest.levels if lv.level == band.level)
        level: dict[str, Any] = {
            "sizes": {d: [s] for d, s in zip(nest.dims, band.sizes, strict=True)},
            "order": order + [d for d in nest.dims if d not in order],
        }
        if keep is not None and band.level != "rf":
            level["keep"] = sorted(keep)
            level["bypass"] = sorted({"A", "B", "C"} - keep)
        levels[band.level] = level
    return {"levels": levels}


@pytest.mark.parametrize("objective", ["latency", "energy"])
def test_constraints_of_the_best_give_the_same_best(objective: Any) -> None:
    free = joint_search("gemm", ARCH, [OS], SIZES, objective=objective)
    fixed = _spec(_constraints_of(free.best.mapping))
    again = joint_search("gemm", ARCH, [OS], SIZES, objective=objective, constraints=fixed)
    assert again.best.value == free.best.value
    tiled = run_tiling("gemm", ARCH, OS, SIZES, objective=objective, constraints=fixed)
    assert tiled.best.value == free.best.value


def test_the_design_space_keeps_the_spread_asked() -> None:
    from tenet.dse.explore import ExecutionOptions, explore

    spec = _spec({"spatial": {"k": 8}})
    run_ = ExecutionOptions(workers=1)
    free = explore("gemm", "systolic-2d-8x8", params=SIZES, execution=run_)
    kept = explore("gemm", "systolic-2d-8x8", params=SIZES, execution=run_, constraints=spec)
    domain = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", SIZES).workload.domain

    def spread(stamp: str) -> int:
        import islpy as isl

        return array_spread(isl.Map(stamp), domain)["k"]

    expected = {
        n
        for n, s in zip(free.results["name"], free.results["space_stamp"], strict=True)
        if spread(s) == 8
    }
    assert expected and set(kept.results["name"]) == expected


def test_the_spread_of_an_array_mapping_is_that_of_its_space_stamp() -> None:
    space = DesignSpace.build(
        "conv2d", "systolic-2d-8x8", {"K": 4, "C": 4, "OX": 4, "OY": 4, "RX": 3, "RY": 3}
    )
    for candidate in list(space)[:40]:
        problem = load_problem(
            space.specs.workload, space.specs.architecture, candidate.spec(), space.specs.bound
        )
        expected = array_spread(problem.dataflow.space_stamp, problem.workload.domain)
        assert mapping_spread(candidate.mapping) == expected


PROBLEM = ("-w", "gemm", "-a", "systolic-levels-8x8", "-d", "gemm-os-systolic",
           "-p", "M=8", "-p", "N=8", "-p", "K=8")  # fmt: skip

BAD: dict[str, tuple[Any, str]] = {
    "unknown level": ({"levels": {"l9": {"order": ["i", "j", "k"]}}}, "levels.l9"),
    "unknown loop": ({"levels": {"glb": {"sizes": {"q": [2]}}}}, "levels.glb.sizes.q"),
    "unknown tensor": ({"levels": {"glb": {"keep": ["Z"]}}}, "levels.glb.keep"),
    "not a divisor": ({"levels": {"rf": {"sizes": {"k": [3]}}}}, "levels.rf.sizes.k"),
    "not a permutation": ({"levels": {"glb": {"order": ["i", "j"]}}}, "levels.glb.order"),
    "kept and bypassed": ({"levels": {"glb": {"keep": ["A"], "bypass": ["A"]}}}, "levels.glb"),
    "innermost bypass": ({"levels": {"rf": {"bypass": ["A"]}}}, "levels.rf.bypass"),
    "unknown key": ({"levels": {"glb": {"size": {"k": [2]}}}}, "levels.glb.size"),
    "spread not the dataflow's": ({"spatial": {"k": 8}}, "spatial.k"),
    "nothing left": (
        {"levels": {"glb": {"sizes": {"k": [2]}}, "rf": {"sizes": {"k": [4]}}}},
        "no tiling to search",
    ),
}


@pytest.mark.parametrize("strategy", ["exhaustive", "joint"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_constraints_exit_2_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str, strategy: str
) -> None:
    data, where = BAD[case]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(data))
    code, _, err = run(capsys, "tile", *PROBLEM, "--strategy", strategy, "--constraints", str(path))
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and str(path) in err and where in err


def test_dse_refuses_level_constraints_without_tile(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = ROOT / "workloads" / "constraints" / "gemm-levels.yaml"
    for command in ("dse", "sweep"):
        code, _, err = run(capsys, command, "-w", "gemm", "-a", "systolic-2d-8x8",
                           "--constraints", str(path))  # fmt: skip
        assert code == 2 and len(err.strip().splitlines()) == 1 and "levels" in err


def test_the_zoo_example_constrains_the_tile_command(capsys: pytest.CaptureFixture[str]) -> None:
    path = ROOT / "workloads" / "constraints" / "gemm-levels.yaml"
    code, out, err = run(capsys, "tile", *PROBLEM, "--strategy", "joint", "--constraints",
                         str(path), "--format", "json")  # fmt: skip
    assert code == 0, err
    import json

    row = json.loads(out)
    problem = load_problem("gemm", "systolic-levels-8x8", "gemm-os-systolic", SIZES)
    spec = ConstraintsSpec.from_yaml(path)
    limits = MappingConstraints.of(spec, problem.workload, problem.architecture.levels)
    # k outermost over the glb tiles, or its glb tiles span all 8 of k (one trip, whose place
    # changes nothing)
    glb = row["tiling"].split("; ")[0]
    assert glb.startswith("glb k:") or " k:8" in glb
    assert limits.admits_problem(problem)
