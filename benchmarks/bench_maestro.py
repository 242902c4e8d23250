"""CPU time of the MAESTRO-style estimator against real MAESTRO, like with like.

Real MAESTRO's figure is ``wall_s_median_O2`` of ``maestro-tenet-dataflows.csv`` (a copy is in
``tests/data/reference/``): one whole MAESTRO process per run (-O2 build), so its start-up,
parsing and printing are included. Two comparisons are printed:

1. whole process on both sides: ``tenet maestro MAPPING --hw HW --format json`` run as a child
   process, its CPU time (Python start-up, imports, parsing, estimate, printing), one run per
   dataflow (with the ``bw64`` hardware);
2. in-process, parsing included: ``load_mapping`` + ``load_hardware`` + ``estimate``, the median
   CPU time of ``--repeats`` runs, for every row; MAESTRO's start-up is still in its figure, so
   this ratio favours tenet by that much.

Then the time per layer over MAESTRO's own example networks (``../shared/maestro-data``, skipped
when absent) and the exact comparison of one full-size layer. The dataflows are ours
(``tests/data/maestro/``), written to match the rows of the reference file.

Run from the repository root: ``python benchmarks/bench_maestro.py [--repeats N]``.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
from pathlib import Path

from cputime import cpu_seconds, median_cpu_ms

from tenet.maestro import compare_layer, estimate, estimate_network, load_hardware, load_mapping

ROOT = Path(__file__).resolve().parents[1]
OURS = ROOT / "tests" / "data" / "maestro"
REFERENCE = ROOT / "tests" / "data" / "reference" / "maestro-tenet-dataflows.csv"
EXAMPLES = ROOT.parent / "shared" / "maestro-data" / "examples"
NETWORKS = ("Resnet50_kcp_ws.m", "Resnet50_yxp_os.m", "MobileNetV2_xp_ws.m", "vgg16_rs.m")


def _files(row: dict[str, str]) -> tuple[Path, Path]:
    """Our mapping and hardware files for a row of the reference file (same file names)."""
    return OURS / Path(row["mapping"]).name, OURS / "hw" / Path(row["hw"]).name


def _ratio_line(label: str, ours: list[float], theirs: list[float]) -> str:
    ratios = [o / t for o, t in zip(ours, theirs, strict=True)]
    return (
        f"{label}: tenet / MAESTRO median {statistics.median(ratios):.2f}, "
        f"max {max(ratios):.2f}, min {min(ratios):.2f} (below 1: tenet takes less)"
    )


def whole_process(rows: list[dict[str, str]]) -> None:
    """``tenet maestro`` as a process against MAESTRO's process, one row per dataflow."""
    print("1. whole process on both sides (start-up, parsing, estimate, output)")
    print(f"{'dataflow':36} {'tenet CPU ms':>12} {'MAESTRO ms':>11} {'ratio':>8}")
    ours, theirs = [], []
    for row in rows:
        if not Path(row["hw"]).name.startswith("bw64_"):
            continue
        mapping, hw = _files(row)
        command = [sys.executable, "-m", "tenet", "maestro", str(mapping), "--hw", str(hw)]
        start = cpu_seconds()
        subprocess.run([*command, "--format", "json"], check=True, capture_output=True)
        ours.append((cpu_seconds() - start) * 1000)
        theirs.append(float(row["wall_s_median_O2"]) * 1000)
        print(f"{mapping.stem:36} {ours[-1]:12.1f} {theirs[-1]:11.2f} {ours[-1] / theirs[-1]:8.1f}")
    print(_ratio_line("whole process", ours, theirs) + "\n")


def in_process(rows: list[dict[str, str]], repeats: int) -> None:
    """Parse + estimate in this process against MAESTRO's whole process, every row."""
    print("2. in-process, parsing included; MAESTRO's figure still holds its start-up")
    print(f"{'run':42} {'tenet CPU ms':>12} {'MAESTRO ms':>11} {'ratio':>8}")
    ours, theirs = [], []
    for row in rows:
        mapping, hw = _files(row)

        def run(mapping: Path = mapping, hw: Path = hw) -> object:
            return estimate(load_mapping(mapping).layers[0], load_hardware(hw))

        ours.append(median_cpu_ms(run, repeats))
        theirs.append(float(row["wall_s_median_O2"]) * 1000)
        print(f"{row['id']:42} {ours[-1]:12.2f} {theirs[-1]:11.2f} {ours[-1] / theirs[-1]:8.2f}")
    print(_ratio_line("in-process", ours, theirs) + "\n")


def networks(repeats: int) -> None:
    """Whole example networks of MAESTRO's on its own accelerator_1 hardware."""
    if not EXAMPLES.is_dir():
        print(f"MAESTRO's example networks skipped: {EXAMPLES} is absent\n")
        return
    hw = load_hardware(EXAMPLES / "hw" / "accelerator_1.m")
    print(f"{'network (parse + estimate)':28} {'layers':>6} {'CPU ms':>9} {'ms/layer':>9}")
    for name in NETWORKS:
        path = EXAMPLES / name
        layers = len(load_mapping(path).layers)
        ms = median_cpu_ms(lambda path=path: estimate_network(load_mapping(path), hw), repeats)
        print(f"{name:28} {layers:6d} {ms:9.1f} {ms / layers:9.2f}")
    start, count = cpu_seconds(), 0
    for path in sorted(EXAMPLES.glob("*.m")):
        count += len(estimate_network(load_mapping(path), hw))
    total = (cpu_seconds() - start) * 1000
    print(f"{'all 41 example files':28} {count:6d} {total:9.1f} {total / count:9.2f}\n")


def exact_comparison(repeats: int) -> None:
    """One full-size layer: estimate + lowering + exact counting (the compare table)."""
    mapping, hw = OURS / "conv_kcp_ws_8x8.m", OURS / "hw" / "bw64_64pe.m"
    layer, hardware = load_mapping(mapping).layer(), load_hardware(hw)
    ms = median_cpu_ms(lambda: compare_layer(layer, hardware), repeats)
    what = "compare_layer(conv_kcp_ws_8x8, K=128 C=64 112x112)"
    print(f"{what}: {ms:.0f} CPU ms (exact side with isl)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per in-process figure")
    args = parser.parse_args(argv)
    rows = list(csv.DictReader(REFERENCE.read_text().splitlines()))
    whole_process(rows)
    in_process(rows, args.repeats)
    networks(max(1, args.repeats // 2))
    exact_comparison(max(1, args.repeats // 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
