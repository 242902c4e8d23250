"""CPU time of ``tenet map -n NETWORK`` (every layer entry's best mapping over every array
mapping, with its certificate) and each entry's gap; then the same network on the Dask engine
with 1 and 2 workers, their wall speed-up and the same figures.

Runs ``tenet map -n NETWORK -a ARCH --objective OBJECTIVE --format json`` (with ``--time-budget
SECONDS`` of the clock and ``--cpu-budget SECONDS`` of CPU, workers included, per layer when
given, and ``--workers N``) in a child process; its CPU time is user + system time of the
finished child and of what it waited for (``os.times``: the pool's workers are children of its
fork server, which may end unwaited, so their time may be missing there), beside the distinct
layers' ``cpu_seconds`` (the search's own count, workers included) and the load before and
after. Then one line per distinct layer: its count, value, bound, gap, whether its search
finished, and its CPU time (of the main process and the workers' tasks). Then the run again
with ``--engine dask --workers 1`` and ``--workers 2``: each one's CPU time (the child's and
its workers', and the rows' sum), wall time and load, and the wall speed-up of 2 workers; every
entry's figures (latency, energy, DRAM traffic, value, bound) must be equal.
A network's entries keep their own figures (``--no-residency``: no output kept on chip between
layers; ``benchmarks/bench_fusion.py`` measures that). Run from the repository root:
``python benchmarks/bench_map.py [NETWORK] [ARCH] [--objective energy] [--time-budget 60]
[--cpu-budget 60] [--workers 2] [--quick] [--no-dask]`` (default: resnet50 on
systolic-levels-16x16 by latency; ``--quick``: the two small layers of
``examples/network.yaml``); one layer instead of a network with ``-w WORKLOAD -p NAME=VALUE
...`` (e.g. ResNet-50's conv5_1b:
``-w conv2d -p K=512 -p C=512 -p OX=7 -p OY=7 -p RX=3 -p RY=3``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
QUICK = "examples/network.yaml"
"""The network of ``--quick``: two small layers (alexnet takes about a CPU-minute alone)."""
FIGURES = ("layer", "latency_cycles", "energy", "traffic_dram_elements", "value", "bound")
"""The figures of an entry that every engine must give alike."""


def run_map(command: list[str]) -> tuple[dict[str, Any], float, float, float]:
    """Run ``command`` (a ``tenet map`` printing JSON); return what it printed, the CPU
    seconds of the child and its workers, the wall seconds and the load before."""
    load = os.getloadavg()[0]
    before, wall = os.times(), time.monotonic()
    done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
    after, wall = os.times(), time.monotonic() - wall
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return json.loads(done.stdout), cpu, wall, load


def figures(printed: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Every entry's :data:`FIGURES`."""
    return [tuple(row[k] for k in FIGURES) for row in printed["layers"]]


def on_dask(base: list[str]) -> None:
    """Run ``base`` on the Dask engine with 1 and 2 workers; print each run's CPU and wall
    seconds and load, and the speed-up; the figures must be equal."""
    runs = []
    for workers in (1, 2):
        printed, cpu, wall, load = run_map([*base, "--engine", "dask", "--workers", str(workers)])
        rows = sum(row["cpu_seconds"] for row in printed["layers"])
        print(
            f"dask, {workers} worker{'s' if workers > 1 else ''}: {cpu:.1f} CPU-s (workers "
            f"included; rows' sum {rows:.1f}), {wall:.1f} s wall, load {load:.2f} (1 min) before"
        )
        runs.append((printed, wall))
    (one, wall_one), (two, wall_two) = runs
    assert figures(one) == figures(two), "1 and 2 Dask workers gave other figures"
    print(f"dask: 2 workers {wall_one / wall_two:.2f}x the wall speed of 1; the same figures")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network", nargs="?")
    parser.add_argument("arch", nargs="?", default="systolic-levels-16x16")
    parser.add_argument("--objective", default="latency")
    parser.add_argument("--time-budget", type=float, help="wall seconds per layer")
    parser.add_argument("--cpu-budget", type=float, help="CPU-s per layer, workers included")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help=f"the network {QUICK}")
    parser.add_argument("--no-dask", action="store_true", help="no runs on the Dask engine")
    parser.add_argument("-w", "--workload", help="one layer's workload instead of the network")
    parser.add_argument("-p", "--param", action="append", default=[], help="NAME=VALUE")
    parser.add_argument("--json", type=Path, help="also write tenet map's JSON to this file")
    given = parser.parse_args()
    network = given.network or (QUICK if given.quick else "resnet50")
    if given.workload is None:
        what = ["-n", network, "--no-residency"]  # each layer's own figures, as searched
    else:
        what = ["-w", given.workload, *(x for p in given.param for x in ("-p", p))]
    base = [sys.executable, "-m", "tenet", "map", *what, "-a", given.arch]
    base += ["--objective", given.objective, "--format", "json"]
    budgets: list[str] = []
    for option, seconds in (
        ("--time-budget", given.time_budget),
        ("--cpu-budget", given.cpu_budget),
    ):
        if seconds is not None:
            budgets += [option, f"{seconds:g}"]
    base += budgets
    printed, cpu, wall, load = run_map([*base, "--workers", str(given.workers)])
    if given.json is not None:
        given.json.write_text(json.dumps(printed))
    rows = printed["layers"]
    seen: set[tuple[str, str]] = set()
    searched = 0.0  # the distinct layers' cpu_seconds
    print(f"{'layer':28} {'count':>5} {'value':>14} {'bound':>14} {'gap':>7} done {'CPU-s':>7}")
    for row in rows:
        key = (row["workload"], json.dumps(row["params"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
        searched += row["cpu_seconds"]
        print(
            f"{row['layer']:28} {row['count']:5} {row['value']:14,.6g} {row['bound']:14,.6g} "
            f"{row['gap']:7.2%} {'yes' if row['complete'] else 'no ':4} {row['cpu_seconds']:7.2f}"
        )
    gaps = [r["gap"] for r in rows]
    print(f"{len(rows)} entries, {len(seen)} distinct; largest gap {max(gaps):.2%}")
    if "total" in printed:
        print(f"total: {json.dumps(printed['total'])}")
    print(
        f"tenet map {' '.join(what)} -a {given.arch} --objective {given.objective}"
        + "".join(f" {word}" for word in budgets)
        + f" --workers {given.workers}: {cpu:.1f} CPU-s by os.times, {searched:.1f} by the rows"
        + f" (workers included), {wall:.1f} s wall"
    )
    print(f"load {load:.2f} (1 min) before, {os.getloadavg()[0]:.2f} after")
    if not given.no_dask:
        on_dask(base)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
