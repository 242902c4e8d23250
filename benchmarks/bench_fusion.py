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

With the peers' environment (``--peer-python``, or ``TENET_PEERS_PYTHON``), AccelForge's
fused mapper against ``tenet map`` on three chains (two and three matrix multiplies, a
pointwise then depthwise convolution), each at two sizes, by energy, both bests counted by
tenet (:mod:`tenet.peers.chain_mapper`): energy, DRAM traffic, the buffer's need under
tenet's rule, and each search's CPU seconds (the peer's process included), the load average
beside each row.


Then outputs kept on chip between layers (``docs/fusion.md``): ResNet-50 and BERT-base on
``systolic-levels-16x16``, each with residency off and on: ``tenet eval-network`` (untiled
figures; ResNet-50's convolutions with ``conv2d-os``, BERT's matrices with
``gemm-os-systolic`` and the others with ``bmm-os-systolic``) and ``tenet map -n`` by latency
(each entry searched once, residency applied to the bests): the network's DRAM traffic, the
elements saved, the energy, and the CPU time.

Run from the repository root: ``python benchmarks/bench_fusion.py [--peer-python PY]`` (a
few CPU-minutes, most of it the two networks' searches and the peer);
``python benchmarks/bench_fusion.py residency``: the networks alone; ``--peer-chain LABEL``:
one row of the comparison with AccelForge alone.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from tenet.dse import kept_between, map_layers, network_entries
from tenet.dse.fusion import search_fusion
from tenet.mapping.fused_groups import FusedGroup
from tenet.mapping.fusion import FusedNest
from tenet.metrics.fused_chain import fusion_costs
from tenet.metrics.fusion import assess_fusion
from tenet.model.chain import Chain
from tenet.networks import evaluate_network
from tenet.oracle.fusion import walk_fusion
from tenet.peers.chain_mapper import search_accelforge_chain
from tenet.peers.compare import peer_python
from tenet.spec import load_architecture, load_network
from tenet.spec.chain import load_chain
from tenet.vocab import HALOS

RANKS = {"matmul-matmul": "m", "conv-conv": "y", "pointwise-depthwise": "y"}
TILES = (1, 4, 8)
SMALL = {"CI": 2, "C": 2, "K": 2, "H": 8, "W": 4}
ARCH = "systolic-levels-8x8"
MATMUL3 = str(
    Path(__file__).resolve().parents[1] / "tests" / "data" / "accelforge" / "matmul3.yaml"
)
PEER_CHAINS = (
    ("matmul-matmul", "matmul-matmul", {}),
    ("matmul-matmul 256", "matmul-matmul", {"M": 256, "N": 256, "K": 256, "P": 256}),
    ("matmul3 64", MATMUL3, {"M": 64, "K": 64, "N": 64, "P": 64, "Q": 64}),
    ("matmul3 256", MATMUL3, {"M": 256, "K": 256, "N": 256, "P": 256, "Q": 256}),
    ("pointwise-depthwise 14", "pointwise-depthwise", {"H": 14, "W": 14}),
    ("pointwise-depthwise", "pointwise-depthwise", {}),
)
"""The chains of the comparison with AccelForge's fused mapper: at the zoo's sizes (everything
fits the buffer but pointwise -> depthwise's input) and larger."""
NETWORK_ARCH = "systolic-levels-16x16"
NETWORK_DATAFLOWS = {
    "resnet50": ["workloads/dataflows/conv2d-os.yaml"],
    "bert-base": ["gemm-os-systolic", "workloads/dataflows/bmm-os-systolic.yaml"],
}
"""Each network's dataflows: the zoo's templates as files (made for every architecture)."""


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
                recomputed = sum(counts.recomputed.values())
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
    """A group's statements, tile sizes, halo rule, resident inputs and sub-tiles."""
    tiles = ", ".join(
        f"{r}={t}"
        for r, t in zip(group.nest.ranks[group.statements[-1]], group.nest.tiles, strict=True)
    )
    resident = ",".join(sorted(group.nest.resident)) or "-"
    text = f"{'+'.join(group.statements)} {tiles} {group.nest.halo} resident {resident}"
    own = [
        f"{name} " + ",".join(f"{r}={t}" for r, t in sizes.items())
        for name, sizes in group.nest.subtiles.items()
    ]
    return text + (f" subtiles {'; '.join(own)}" if own else "")


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


def _load() -> str:
    return "/".join(f"{x:.1f}" for x in os.getloadavg())


def _peer_runs(python: str | None, only: str | None = None) -> None:
    costs = fusion_costs(load_architecture(ARCH))
    print(f"\nAccelForge's fused mapper against tenet map on {ARCH}, by energy, counted by tenet")
    if python is None:
        print("no peers' environment (--peer-python or TENET_PEERS_PYTHON): skipped")
        return
    print(
        f"{'chain':24} {'tool':10} {'energy':>13} {'DRAM':>8} {'need':>7} {'fits':>4} "
        f"{'CPU s':>6} {'load':>14}  best"
    )
    for label, name, sizes in PEER_CHAINS:
        if only is not None and label != only:
            continue
        chain = Chain.from_spec(load_chain(name), sizes)
        start = time.process_time()
        best = search_fusion(chain, "energy", costs).best
        cpu = time.process_time() - start
        groups = "; ".join(_group_text(g) for g in best.groups.groups)
        print(
            f"{label:24} {'tenet':10} {best.energy:13,.0f} {best.dram:8} {best.need:7} "
            f"{'yes' if best.fits else 'no':>4} {cpu:6.1f} {_load():>14}  {groups}"
        )
        found = search_accelforge_chain(python, chain, costs, objective="energy")
        figures = found.figures
        if figures is None:
            print(
                f"{label:24} {'AccelForge':10} {'-':>13} {'-':>8} {'-':>7} {'-':>4} "
                f"{found.cpu_seconds:6.1f} {_load():>14}  {found.reason[:160]}"
            )
            continue
        groups = "; ".join(_group_text(g) for g in figures.groups.groups)
        print(
            f"{label:24} {'AccelForge':10} {figures.energy:13,.0f} {figures.dram:8} "
            f"{figures.need:7} {'yes' if figures.fits else 'no':>4} {found.cpu_seconds:6.1f} "
            f"{_load():>14}  {groups} (its own energy {found.peer_value:,.0f})"
        )


def _residency_runs() -> None:
    print(
        f"\noutputs kept on chip between layers, on {NETWORK_ARCH} (totals weighted by count; "
        "energy in MAC units)"
    )
    print(
        f"{'network':10} {'figures':14} {'residency':9} {'DRAM':>12} {'saved':>11} "
        f"{'energy':>12} {'kept':>5} {'CPU s':>7}"
    )
    for name in ("resnet50", "bert-base"):
        for on in (False, True):
            start = time.process_time()
            result = evaluate_network(name, NETWORK_ARCH, NETWORK_DATAFLOWS[name], residency=on)
            cpu = time.process_time() - start
            kept = sum(e.level is not None for e in result.edges)
            print(
                f"{name:10} {'eval-network':14} {'on' if on else 'off':9} "
                f"{result.traffic_dram:12} {result.dram_saved:11} {result.energy:12.4g} "
                f"{kept:2}/{len(result.edges):<2} {cpu:7.2f}"
            )
        network = load_network(name)
        start = time.process_time()
        entries = network_entries(network)
        mapped = map_layers(entries, NETWORK_ARCH, network=network, residency=False)
        searched = time.process_time() - start
        for on in (False, True):
            start = time.process_time()
            kept_on = kept_between(mapped, on)
            cpu = time.process_time() - start + (searched if not on else 0.0)
            total = kept_on.total()
            assert total is not None
            kept = sum(e.level is not None for e in kept_on.edges)
            print(
                f"{name:10} {'map (latency)':14} {'on' if on else 'off':9} "
                f"{total['traffic_dram_elements']:12} {total['dram_saved_elements']:11} "
                f"{total['energy']:12.4g} {kept:2}/{len(kept_on.edges):<2} {cpu:7.2f}"
            )
        for edge in kept_on.edges:
            print(f"  {edge.words}")
    print("(map: CPU s with residency off is the search's, on the residency's alone)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer-python", help="the peers' Python (default TENET_PEERS_PYTHON)")
    parser.add_argument(
        "section", nargs="?", choices=["residency"], help="run only the networks' residency"
    )
    parser.add_argument(
        "--peer-chain",
        choices=[label for label, _, _ in PEER_CHAINS],
        help="only this row of the comparison with AccelForge (and no other run)",
    )
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} (2 cores shared)")
    if args.section is None and args.peer_chain is None:
        _exact_runs()
        _oracle_run()
        _search_runs()
    if args.section is None:
        _peer_runs(peer_python(args.peer_python), args.peer_chain)
    if args.peer_chain is None:
        _residency_runs()
    print(f"load average: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
