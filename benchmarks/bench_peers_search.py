"""tenet's search against ZigZag's and AccelForge's own, on one accelerator written for all
three (``benchmarks/peers_search/accelerator.yaml``: 16x16 MACs, a 128-byte register file per
PE, a 128 KiB buffer, DRAM; 8-bit operands; DRAM 8 and buffer 64 elements per cycle; 100, 10
and 1 pJ per element) and a set of layers: GEMM 256³, the GEMMs of BERT-base, ResNet-50 and
MobileNet layers.

For each layer and objective, each tool searches on its own: tenet by its joint search
(:func:`tenet.dse.joint.tree.joint_search`: branch and bound over every array mapping of the
design space, kept tensor, tile size and loop order, and for energy each tensor's place in the
register file, seeded by constructive tilings; at most ``--tenet-budget`` CPU seconds, as the
peers' ``--budget``); ZigZag by its spatial mapping generator and LOMA; AccelForge by its
mapper. The peers' best mappings are read back and every best is evaluated exactly in tenet, on
the same accelerator. Per layer the benchmark prints each tool's search CPU time (the peers'
processes and tenet's workers included) and evaluations, and each best's latency, energy and
DRAM traffic under tenet's exact model, with tenet's proven bound of the objective over its
declared space; the verdict says when tenet's search first reached a value at least as good as
each peer's best ("matched in", a multiple of the peer's CPU time) and when it found its own
best.

The peers run in their own virtual environment (``make peers``):

    python benchmarks/bench_peers_search.py --peer-python .peers/bin/python

(or ``TENET_PEERS_PYTHON``); without it only tenet's column is printed. ``--layer`` picks
layers, ``--objective`` the objective, ``--budget`` a peer's CPU seconds per search,
``--gap`` tenet's tolerance (a fraction: its best proven within it), ``--save DIR`` writes
the peers' best mappings in their own formats.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import cast

from benchmarks.cputime import cpu_seconds, load_text
from tenet.dse.joint.tree import joint_search
from tenet.dse.run.execution import ExecutionOptions
from tenet.peers import (
    PeerSearch,
    evaluate_best,
    peer_python,
    search_peer,
)
from tenet.spec import (
    ArchitectureSpec,
    WorkloadSpec,
    load_architecture,
    load_workload,
)
from tenet.vocab import MemoryObjective

ROOT = Path(__file__).resolve().parents[1]
ACCELERATOR = ROOT / "benchmarks" / "peers_search" / "accelerator.yaml"


@dataclass(frozen=True)
class Layer:
    """One layer of the benchmark: a workload of the zoo and its sizes."""

    name: str
    workload: str
    params: Mapping[str, int]


LAYERS = (
    Layer("gemm-256", "gemm", {"M": 256, "N": 256, "K": 256}),
    Layer("bert-attention-out", "gemm", {"M": 128, "N": 768, "K": 768}),
    Layer("bert-ffn-1", "gemm", {"M": 128, "N": 3072, "K": 768}),
    Layer("bert-ffn-2", "gemm", {"M": 128, "N": 768, "K": 3072}),
    Layer("resnet-res2-3x3", "conv2d", {"K": 64, "C": 64, "OX": 56, "OY": 56, "RX": 3, "RY": 3}),
    Layer("resnet-res2-1x1", "pointwise", {"K": 256, "C": 64, "OX": 56, "OY": 56}),
    Layer("resnet-res3-3x3", "conv2d", {"K": 128, "C": 128, "OX": 28, "OY": 28, "RX": 3, "RY": 3}),
    Layer("resnet-res5-3x3", "conv2d", {"K": 512, "C": 512, "OX": 7, "OY": 7, "RX": 3, "RY": 3}),
    Layer("mobilenet-dw3", "depthwise", {"C": 128, "OX": 56, "OY": 56, "RX": 3, "RY": 3}),
    Layer("mobilenet-pw3", "pointwise", {"K": 128, "C": 128, "OX": 56, "OY": 56}),
)
"""GEMM 256³; BERT-base's attention output projection and feed-forward GEMMs (128 tokens);
ResNet-50's first 3x3 and 1x1 layers of stage 2 and 3x3 layers of stages 3 and 5; MobileNet
v1's third depthwise separable block."""


@dataclass(frozen=True)
class Best:
    """One tool's search of one layer: its CPU seconds and evaluations, and its best's
    figures under tenet's exact model (None: no result, with ``note`` saying why)."""

    tool: str
    seconds: float
    evaluations: int | None
    latency: Fraction | None = None
    energy: float | None = None
    traffic_dram: int | None = None
    note: str = ""
    to_best: float | None = None
    """CPU seconds until the best was found (None: the whole search's)."""
    improvements: tuple[tuple[float, float], ...] = ()
    """tenet's better values as they came: (CPU seconds, value of the objective)."""
    fits: bool = True
    """Every tile of the best fits its level under tenet's count."""

    def value(self, objective: str) -> tuple[float, float]:
        """The objective, then the other figure (latency then energy, or the reverse)."""
        assert self.latency is not None and self.energy is not None
        pair = (float(self.latency), self.energy)
        return pair if objective == "latency" else (pair[1], pair[0])


def search_tenet(
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    params: Mapping[str, int],
    objective: MemoryObjective,
    budget: float,
    gap: float = 0.0,
) -> Best:
    """tenet's search: the joint search over every array mapping of the design space, kept
    tensor, tile size and loop order (seeded by constructive tilings) and, for energy, each
    tensor's place in the register file, for ``budget`` CPU seconds at most (in this process,
    as a peer's search in its own), proving its best within ``gap`` (a fraction; 0: optimal);
    its certificate's bound is proven over that whole space."""
    start = cpu_seconds()
    found = joint_search(
        workload,
        architecture,
        None,
        params,
        objective=objective,
        places=objective != "latency",
        execution=ExecutionOptions(None, cpu_budget=budget),
        gap=gap,
    )
    row = found.row()
    return Best(
        "tenet",
        cpu_seconds() - start,
        found.evaluated,
        found.best.memory.latency,
        row["energy"],
        row["traffic_dram_elements"],
        f"bound {float(found.bound):,.6g}, gap {float(found.relative_gap):.1%}"
        + ("" if found.complete else " (not finished)")
        + f"; best found after {found.cpu_to_best:.1f} CPU-s; better values at "
        + ", ".join(f"{at:.1f} CPU-s: {float(value):,.6g}" for at, value in found.improvements),
        found.cpu_to_best,
        tuple((at, float(value)) for at, value in found.improvements),
    )


def evaluate_peer(
    found: PeerSearch,
    workload: WorkloadSpec,
    architecture: ArchitectureSpec,
    params: Mapping[str, int],
) -> Best:
    """The peer's best evaluated exactly by tenet on ``architecture``
    (:func:`tenet.peers.evaluate_best`)."""
    if found.imported is None:
        return Best(found.peer, found.cpu_seconds, found.evaluations, note=found.reason)
    figures = evaluate_best(found, workload, architecture, params)
    own = f"{found.latency:,.0f} cycles, {found.energy:,.5g} pJ" if found.energy else "none"
    fits = "" if figures["fits"] else "; DOES NOT FIT"
    return Best(
        found.peer,
        found.cpu_seconds,
        found.evaluations,
        figures["latency_cycles"],
        figures["energy"],
        figures["traffic_dram_elements"],
        f"peer's own figures: {own}{fits}",
        fits=bool(figures["fits"]),
    )


def _row(best: Best) -> str:
    evaluations = "?" if best.evaluations is None else f"{best.evaluations:,}"
    if best.latency is None:
        return f"  {best.tool:<11}{best.seconds:>9.1f}{evaluations:>12}  {best.note}"
    return (
        f"  {best.tool:<11}{best.seconds:>9.1f}{evaluations:>12}"
        f"{float(best.latency):>14,.0f}{best.energy:>14,.5g}{best.traffic_dram:>14,}  {best.note}"
    )


def _verdict(tenet: Best, peers: Sequence[Best], objective: str) -> str:
    words = []
    for peer in peers:
        if peer.latency is None:
            words.append(f"{peer.tool}: no result")
            continue
        ours, theirs = tenet.value(objective), peer.value(objective)
        as_good = ours[0] <= theirs[0]
        found = tenet.seconds if tenet.to_best is None else tenet.to_best
        reached = next((at for at, value in tenet.improvements if value <= theirs[0]), None)
        matched = (
            f"matched in {reached / max(peer.seconds, 1e-9):.2f}×, " if reached is not None else ""
        )
        overflows = "" if peer.fits else " (the peer's best overflows a level under tenet's count)"
        words.append(
            f"{peer.tool}{overflows}: tenet {'at least as good' if as_good else 'WORSE'} "
            f"({ours[0] / theirs[0]:.3f}×), {matched}best found in "
            f"{found / max(peer.seconds, 1e-9):.2f}× and searched in "
            f"{tenet.seconds / max(peer.seconds, 1e-9):.2f}× the peer's CPU time"
        )
    return "; ".join(words)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer-python", help="Python of the peers' virtual environment.")
    parser.add_argument("--layer", action="append", help="Only these layers (repeatable).")
    parser.add_argument(
        "--objective", action="append", choices=("latency", "energy"), help="(repeatable)"
    )
    parser.add_argument("--budget", type=float, default=600.0, help="Peer CPU-s per search.")
    parser.add_argument(
        "--tenet-budget", type=float, default=60.0, help="tenet's CPU-s per search."
    )
    parser.add_argument(
        "--gap",
        type=float,
        default=0.0,
        help="tenet's tolerance: prove each best within this fraction (0.01: 1 %%; 0: optimal).",
    )
    parser.add_argument("--save", type=Path, help="Write the peers' best mappings here.")
    args = parser.parse_args(argv)
    python = peer_python(args.peer_python)
    architecture = load_architecture(ACCELERATOR)
    layers = [layer for layer in LAYERS if not args.layer or layer.name in args.layer]
    if not layers:
        parser.error(f"no layer named {args.layer}: {', '.join(x.name for x in LAYERS)}")
    if python is None:
        print("bench_peers_search: no peers' Python (--peer-python or TENET_PEERS_PYTHON)")
    header = (
        f"  {'tool':<11}{'CPU-s':>9}{'evaluations':>12}{'latency':>14}{'energy pJ':>14}"
        f"{'DRAM elem.':>14}  note"
    )
    for objective in cast(list[MemoryObjective], args.objective or ["latency"]):
        for layer in layers:
            workload = load_workload(layer.workload)
            sizes = " ".join(f"{k}={v}" for k, v in layer.params.items())
            print(f"\n{layer.name} ({layer.workload} {sizes}), by {objective}; {load_text()}")
            print(header)
            tenet = search_tenet(
                workload, architecture, layer.params, objective, args.tenet_budget, args.gap
            )
            print(_row(tenet), flush=True)
            peers = []
            for peer in ("zigzag", "accelforge") if python else ():
                found = search_peer(
                    peer,
                    python,
                    workload,
                    architecture,
                    layer.params,
                    objective=objective,
                    time_budget=args.budget,
                )
                if args.save is not None and found.files:
                    found.write(args.save / f"{layer.name}-{objective}-{found.peer}")
                best = evaluate_peer(found, workload, architecture, layer.params)
                peers.append(best)
                print(_row(best), flush=True)
            if peers:
                print(f"  {_verdict(tenet, peers, objective)}; {load_text()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
