"""Fused chains: the exact counts of the zoo's chains at their default sizes, and the literal
simulator on a small size, in CPU time.

For each chain of ``workloads/chains/`` fused over the last statement's rows, at a few tile
sizes, with the weights resident and the halo kept and recomputed: the DRAM traffic (reads
and writes of every tensor), the intermediate's largest footprint, the buffer's need and the
recomputed MACs, with the CPU time of :func:`tenet.metrics.fusion.assess_fusion`. Then the
exact counts against the simulator (:mod:`tenet.oracle.fusion`) on a small conv -> conv.
Last, the fusion search (:func:`tenet.dse.fusion.search_fusion`) of each chain on
``systolic-levels-8x8`` (its 110592-element global buffer, DRAM 200 and buffer 6 per access,
in MAC units), by DRAM traffic and by energy: the best with every statement alone (unfused)
against the best over every split, with the search's CPU time.

Run from the repository root: ``python benchmarks/bench_fusion.py`` (seconds).
"""

from __future__ import annotations

import os
import time

from tenet.dse.fusion import search_fusion
from tenet.mapping.fused_groups import FusedGroup
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fused_chain import fusion_costs
from tenet.metrics.fusion import assess_fusion
from tenet.model.chain import Chain
from tenet.oracle.fusion import walk_fusion
from tenet.spec import load_architecture
from tenet.spec.chain import load_chain
from tenet.vocab import HALOS

RANKS = {"matmul-matmul": "m", "conv-conv": "y", "pointwise-depthwise": "y"}
TILES = (1, 4, 8)
SMALL = {"CI": 2, "C": 2, "K": 2, "H": 8, "W": 4}
ARCH = "systolic-levels-8x8"


def _exact_runs() -> None:
    print(
        f"{'chain':22} {'halo':9} {'t':>3} {'DRAM':>10} {'T max':>8} {'need':>9} "
        f"{'recomputed':>12} {'CPU s':>7}"
    )
    for name, rank in RANKS.items():
        spec = load_chain(name)
        chain = Chain.from_spec(spec)
        for halo in HALOS:
            for t in TILES:
                nest = FusedNest(
                    {"S1": (rank,)}, (t,), halo=halo, resident=frozenset(spec.inputs[1:])
                )
                start = time.process_time()
                counts = assess_fusion(chain, nest)
                cpu = time.process_time() - start
                dram = sum(x.dram_reads + x.dram_writes for x in counts.tensors.values())
                middle = counts.tensors[spec.intermediates[0]].footprint
                recomputed = sum(s.recomputed for s in counts.statements.values())
                print(
                    f"{name:22} {halo:9} {t:3} {dram:10} {middle:8} {counts.need:9} "
                    f"{recomputed:12} {cpu:7.2f}"
                )


def _oracle_run() -> None:
    spec = load_chain("conv-conv")
    chain = Chain.from_spec(spec, SMALL)
    for halo in HALOS:
        nest = FusedNest({"S1": ("y",)}, (2,), halo=halo)
        start = time.process_time()
        counts = assess_fusion(chain, nest)
        exact = time.process_time() - start
        start = time.process_time()
        walk = walk_fusion(spec, SMALL, {"S1": ("y",)}, (2,), halo=halo)
        listed = time.process_time() - start
        same = all(
            counts.tensors[t].footprints == tuple(w.footprints)
            and counts.tensors[t].fills == w.fills
            for t, w in walk.tensors.items()
        )
        print(
            f"conv-conv {SMALL} halo={halo}: exact {exact:.3f} s, simulator {listed:.3f} s "
            f"CPU, agree: {same}"
        )


def _group_text(group: FusedGroup) -> str:
    """A group's statements, tile sizes, halo rule and resident inputs."""
    tiles = ", ".join(
        f"{r}={t}"
        for r, t in zip(group.nest.ranks[group.statements[-1]], group.nest.tiles, strict=True)
    )
    resident = ",".join(sorted(group.nest.resident)) or "-"
    return f"{'+'.join(group.statements)} {tiles} {group.nest.halo} resident {resident}"


def _search_runs() -> None:
    costs = fusion_costs(load_architecture(ARCH))
    print(
        f"\nfusion search on {ARCH} (buffer {costs.level}, {costs.capacity} elements; "
        f"energy in {costs.unit} units)"
    )
    print(
        f"{'chain':22} {'objective':9} {'split':9} {'DRAM':>10} {'energy':>12} "
        f"{'candidates':>10} {'CPU s':>7}  groups"
    )
    for name in RANKS:
        chain = Chain.from_spec(load_chain(name))
        alone = tuple((s.name,) for s in chain.statements)
        for objective in ("dram", "energy"):
            for label, split in (("unfused", alone), ("best", None)):
                start = time.process_time()
                found = search_fusion(chain, objective, costs, split=split)
                cpu = time.process_time() - start
                best = found.best
                groups = "; ".join(_group_text(g) for g in best.groups.groups)
                print(
                    f"{name:22} {objective:9} {label:9} {best.dram:10} {best.energy:12.4g} "
                    f"{found.space:10} {cpu:7.2f}  {groups}"
                )


def main() -> None:
    print(f"load average: {os.getloadavg()[0]:.2f} (2 cores shared)")
    _exact_runs()
    _oracle_run()
    _search_runs()
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
