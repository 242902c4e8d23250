"""Time the MAESTRO-style estimator per layer and over whole networks.

Prints, for each dataflow of ../shared/reference/maestro-tenet-dataflows.csv, the median
estimate time and real MAESTRO's wall time per run (``wall_s_median_O2``, process start
included, -O2 build) with their ratio; then, for MAESTRO's example networks, the time per
network and per layer, and the time of the exact comparison (lowering + counting) of one layer.
Run from the repository root: ``python benchmarks/bench_maestro.py``.
"""

from __future__ import annotations

import csv
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from tenet.compare import compare, estimate, estimate_network, load_hardware, load_mapping

SHARED = Path(__file__).resolve().parents[2] / "shared"
MAESTRO = SHARED / "maestro-data"
REPEATS = 5
NETWORKS = ("Resnet50_kcp_ws.m", "Resnet50_yxp_os.m", "MobileNetV2_xp_ws.m", "vgg16_rs.m")


def _median_ms(run: Callable[[], object], repeats: int = REPEATS) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def per_layer() -> None:
    """Estimator vs MAESTRO on the reference dataflows, one layer each."""
    path = SHARED / "reference" / "maestro-tenet-dataflows.csv"
    rows = list(csv.DictReader(path.read_text().splitlines()))
    print(f"{'dataflow':42} {'tenet ms':>9} {'MAESTRO ms':>11} {'speed-up':>9}")
    ours, theirs = [], []
    for row in rows:
        layer = load_mapping(SHARED / row["mapping"]).layers[0]
        hw = load_hardware(SHARED / row["hw"])
        ms = _median_ms(lambda layer=layer, hw=hw: estimate(layer, hw))
        ref = float(row["wall_s_median_O2"]) * 1000
        ours.append(ms)
        theirs.append(ref)
        print(f"{row['id']:42} {ms:9.2f} {ref:11.2f} {ref / ms:8.1f}x")
    print(
        f"{'median':42} {statistics.median(ours):9.2f} {statistics.median(theirs):11.2f} "
        f"{statistics.median(theirs) / statistics.median(ours):8.1f}x\n"
    )


def networks() -> None:
    """Whole example networks on MAESTRO's own accelerator_1 hardware."""
    hw = load_hardware(MAESTRO / "examples" / "hw" / "accelerator_1.m")
    print(f"{'network':24} {'layers':>6} {'total ms':>9} {'ms/layer':>9}")
    for name in NETWORKS:
        net = load_mapping(MAESTRO / "examples" / name)
        ms = _median_ms(lambda net=net: estimate_network(net, hw), repeats=3)
        print(f"{name:24} {len(net.layers):6d} {ms:9.1f} {ms / len(net.layers):9.2f}")
    every = sorted((MAESTRO / "examples").glob("*.m"))
    start = time.perf_counter()
    count = 0
    for path in every:
        net = load_mapping(path)
        count += len(estimate_network(net, hw))
    total = (time.perf_counter() - start) * 1000
    print(f"{'all 41 example files':24} {count:6d} {total:9.1f} {total / count:9.2f}\n")


def exact_comparison() -> None:
    """One full-size layer: estimate + lowering + exact counting (the compare table)."""
    mapping = MAESTRO / "tenet-comparison" / "conv_kcp_ws_8x8.m"
    hw = MAESTRO / "tenet-comparison" / "hw" / "bw64_64pe.m"
    ms = _median_ms(lambda: compare(mapping, hw), repeats=3)
    print(f"compare(conv_kcp_ws_8x8, K=128 C=64 112x112): {ms:.0f} ms (exact side with isl)")


if __name__ == "__main__":
    per_layer()
    networks()
    exact_comparison()
