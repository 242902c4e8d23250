"""Constructive search against exhaustive enumeration.

Quality: for GEMM 256³ and TENET's conv2d layer (K=128, C=64, 112×112, 3×3) on the 8×8 2D
systolic array, and five ResNet-50 layers on the 16×16 one, the constructive top 10 (the
candidates the micro model ranks best, evaluated exactly) against the exhaustive best (every
candidate evaluated exactly), with the number of exact evaluations of each.

Speed: every distinct ResNet-50 layer on a 16×16 systolic array with a three-level hierarchy
(DRAM, a shared buffer, a register file per PE): the constructive top 3 mappings evaluated
exactly, the best kept, its tiles per memory level built (rTiles grown along the best reuse
score) and the first 3 fitting tilings evaluated exactly per level, the best kept; CPU time of
the whole, in this process (no worker processes).

Headline: the best overall (constructive top 10, and every data-centric candidate, evaluated
exactly) against the best data-centric candidate, as the array's port bandwidth varies.

Run from the repository root: ``python benchmarks/bench_constructive.py`` (minutes to hours:
the exhaustive side evaluates thousands of candidates) or ``--quick`` (under a minute: the
constructive side of GEMM 256³ and the speed run on four layers); ``--only
gemm|conv|resnet|headline|speed`` runs one part.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import islpy as isl

from tenet.api import load_problem
from tenet.dse.run.worker import Context, evaluate_tasks
from tenet.dse.space.design import Candidate, DesignSpace, SpaceOptions
from tenet.dse.tiling.constructive import construct_tilings, rank_mappings
from tenet.mapping import to_stamps
from tenet.metrics.memory import tensor_relations
from tenet.model.problem import Problem
from tenet.model.tiles import tile_levels
from tenet.spec import Specs, load_architecture, load_network, load_workload

TOP = 10
TOP_MAPPINGS = 3
TOP_TILINGS = 3
FOOTPRINT_LAYERS = 3
UNALIGNED_RF = "{S[k, c, ox, oy, rx, ry] -> RF[floor(k/4), floor(c/4), floor(ox/14), oy, rx, ry]}"
"""A register-file tile not aligned to the 16x16 array: each PE holds one k and one c of it."""
GEMM = ("gemm", "systolic-2d-8x8", {"M": 256, "N": 256, "K": 256})
CONV = ("conv2d", "systolic-2d-8x8", {"K": 128, "C": 64, "OX": 112, "OY": 112, "RX": 3, "RY": 3})
GEMM_OPTIONS = SpaceOptions(temporal_tiles=(4,))
RESNET_FIVE = ("conv1", "conv2_1b", "conv3_1c", "conv4_1b", "conv5_1b", "conv4_2a", "fc1000")


def _evaluate(space: DesignSpace, candidates: list[Candidate]) -> list[dict[str, Any]]:
    context = Context.make(space.specs, tuple(space.specs.workload.reductions), "links")
    tasks = [(c.index, c.name, *c.mapping.stamp_texts) for c in candidates]
    rows = []
    for start in range(0, len(tasks), 16):
        rows += evaluate_tasks(context.text, tasks[start : start + 16])
    return [r for r in rows if r.get("status") == "ok"]


def _best(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return min(rows, key=lambda r: (r["latency_cycles"], r["index"]))


def _quality(
    label: str,
    workload: str,
    arch: str,
    params: dict[str, int],
    full: bool,
    options: SpaceOptions | None = None,
) -> None:
    start = time.process_time()
    space = DesignSpace.build(workload, arch, params, options or SpaceOptions())
    candidates = list(space)
    built = _best(_evaluate(space, rank_mappings(space, candidates, TOP, links=True)))
    seconds = time.process_time() - start
    print(
        f"{label}: constructive {built['latency_cycles']:>10,} cycles, {TOP} of "
        f"{len(candidates)} evaluated ({len(candidates) / TOP:.0f}x fewer), {seconds:.1f} CPU-s"
        f"  {built['name']}"
    )
    if not full:
        return
    start = time.process_time()
    every = _best(_evaluate(space, candidates))
    seconds = time.process_time() - start
    same = "same latency" if every["latency_cycles"] == built["latency_cycles"] else "DIFFERS"
    print(
        f"{'':{len(label)}}  exhaustive   {every['latency_cycles']:>10,} cycles, "
        f"{len(candidates)} evaluated, {seconds:.1f} CPU-s  {every['name']}  [{same}]"
    )


def _speed(limit: int | None) -> None:
    arch = load_architecture("systolic-levels-16x16")
    network = load_network("resnet50")
    distinct: dict[tuple[str, tuple[tuple[str, int], ...]], str] = {}
    for layer in network.layers:
        distinct.setdefault((layer.workload, tuple(sorted(layer.params.items()))), layer.name)
    chosen = list(distinct.items())[:limit]
    start = time.process_time()
    evaluations = 0
    footprints: list[tuple[float, float]] = []
    excluded = 0.0
    print(
        f"{'layer':<18} {'compute':>10} {'latency':>10} {'DRAM elements':>14} "
        f"{'tile (glb)':<34} bottleneck"
    )
    for (workload, items), name in chosen:
        params = dict(items)
        space = DesignSpace.build(workload, arch, params, SpaceOptions())
        candidates = list(space)
        top = {c.index: c for c in rank_mappings(space, candidates, TOP_MAPPINGS, links=True)}
        best = _best(_evaluate(space, list(top.values())))
        dataflow = top[best["index"]].spec()
        problem = load_problem(workload, arch, dataflow, params)
        tilings = construct_tilings(problem, top_k=TOP_TILINGS)
        evaluations += len(top) + len(tilings)
        tiled = tilings[0]
        if len(footprints) < FOOTPRINT_LAYERS:
            stamps = [
                (level, isl.Map(text)) for level, text in to_stamps(tiled.mapping).tiles.items()
            ]
            stamps = [*stamps[:-1], ("rf", isl.Map(UNALIGNED_RF))]
            aside = time.process_time()
            footprints.append(_footprint_counting(problem, stamps))
            excluded += time.process_time() - aside
        outer = tiled.mapping.tile_sizes(tiled.mapping.levels[1].level)
        sizes = " ".join(f"{d}:{s}" for d, s in zip(tiled.mapping.dims, outer, strict=True))
        print(
            f"{name:<18} {best['latency_compute_cycles']:>10,} "
            f"{float(tiled.memory.latency):>10,.0f} {tiled.memory.traffic_dram:>14,} {sizes:<34} "
            f"{tiled.memory.bottleneck}"
        )
    seconds = time.process_time() - start - excluded
    print(
        f"{len(chosen)} distinct layers, {evaluations} exact evaluations (top {TOP_MAPPINGS} "
        f"mappings, top {TOP_TILINGS} tilings per layer) in {seconds:.1f} CPU-s (budget 60)"
    )
    plain, simplified = (sum(column) for column in zip(*footprints, strict=True))
    print(
        f"footprints per key of the first {len(footprints)} layers' best tilings with a "
        f"register-file tile unaligned to the array (outside the total above): {plain:.2f} "
        f"CPU-s counted on the held relations, {simplified:.2f} "
        f"CPU-s simplified against their keys ({plain / max(simplified, 1e-9):.0f}x)"
    )


def _footprint_counting(problem: Problem, stamps: list[tuple[str, isl.Map]]) -> tuple[float, float]:
    """CPU time of the per-key footprint counts of every level and tensor of one tiling,
    counted by barvinok on the held relation as it is and after simplifying it against its own
    keys (what ``evaluate_memory`` does); the figures must agree."""
    plain = simplified = 0.0
    for tiled in tile_levels(problem, stamps):
        for tensor, (read, write) in tensor_relations(problem).items():
            held = tiled.key_of.reverse().apply_range(read.union(write))
            start = time.process_time()
            before = held.card().max()
            middle = time.process_time()
            keys = held.domain()
            after = held.gist_domain(keys).card().intersect_domain(keys).max()
            simplified += time.process_time() - middle
            plain += middle - start
            assert before.eq(after), (tiled.level.name, tensor)
    return plain, simplified


def _headline(workload: str, arch: str, params: dict[str, int], bandwidths: list[int]) -> None:
    base = load_architecture(arch)
    for elements in bandwidths:
        spec = base.model_copy(update={"bandwidth": elements * base.bits_per_element})
        space = DesignSpace(Specs(load_workload(workload), spec, None, params), SpaceOptions())
        candidates = list(space)
        chosen = {c.index: c for c in rank_mappings(space, candidates, TOP, links=True)}
        chosen.update({c.index: c for c in candidates if c.data_centric})
        rows = _evaluate(space, list(chosen.values()))
        best = _best(rows)
        centric = _best([r for r in rows if chosen[r["index"]].data_centric])
        reduction = 1 - best["latency_cycles"] / centric["latency_cycles"]
        print(
            f"  {elements:>3} el/cycle: best {best['latency_cycles']:>10,}  data-centric "
            f"{centric['latency_cycles']:>10,}  reduction {reduction:6.1%}  "
            f"{best['name']}  |  {centric['name']}"
        )


def main() -> None:
    quick = "--quick" in sys.argv
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else None
    print("quality: constructive top 10 against exhaustive")
    if only in (None, "gemm"):
        # Loops split once more by 4 in time: 3336 candidates instead of 198.
        _quality("GEMM 256^3 on 8x8", *GEMM, full=not quick, options=GEMM_OPTIONS)
    if not quick and only in (None, "conv"):
        _quality("conv2d TENET layer on 8x8", *CONV, full=True)
    if not quick and only in (None, "resnet"):
        network = {layer.name: layer for layer in load_network("resnet50").layers}
        for name in RESNET_FIVE:
            layer = network[name]
            _quality(
                f"resnet50/{name} on 16x16",
                layer.workload,
                "systolic-2d-16x16",
                dict(layer.params),
                full=True,
            )
    if not quick and only in (None, "headline"):
        print("headline: best overall vs best data-centric, by scratchpad bandwidth")
        for label, case in (("GEMM 256^3 on 8x8", GEMM), ("conv2d TENET layer on 8x8", CONV)):
            print(label)
            _headline(*case, bandwidths=[1, 2, 4, 8, 16, 32, 64, 1024])
    if only in (None, "speed"):
        print("speed: best mapping and tiles of every distinct ResNet-50 layer, 16x16, 3 levels")
        _speed(4 if quick else None)


if __name__ == "__main__":
    main()
