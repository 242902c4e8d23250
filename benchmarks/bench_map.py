"""CPU time of ``tenet map -n NETWORK`` (every layer entry's best mapping over every array
mapping, with its certificate) and each entry's gap.

Runs ``tenet map -n NETWORK -a ARCH --objective OBJECTIVE --format json`` (with
``--time-budget SECONDS`` per layer when given, and ``--workers N``) in a child process; its CPU
time is user + system time of the finished child and of its workers (``os.times``), beside the
load before and after. Then one line per distinct layer: its count, value, bound, gap, whether
its search finished, and its own CPU time (of the main process).
Run from the repository root:
``python benchmarks/bench_map.py [NETWORK] [ARCH] [--objective energy] [--time-budget 60]
[--workers 2]`` (default: resnet50 on systolic-levels-16x16 by latency); one layer instead of a
network with ``-w WORKLOAD -p NAME=VALUE ...`` (e.g. ResNet-50's conv5_1b:
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

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("network", nargs="?", default="resnet50")
    parser.add_argument("arch", nargs="?", default="systolic-levels-16x16")
    parser.add_argument("--objective", default="latency")
    parser.add_argument("--time-budget", type=float)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("-w", "--workload", help="one layer's workload instead of the network")
    parser.add_argument("-p", "--param", action="append", default=[], help="NAME=VALUE")
    parser.add_argument("--json", type=Path, help="also write tenet map's JSON to this file")
    given = parser.parse_args()
    if given.workload is None:
        what = ["-n", given.network]
    else:
        what = ["-w", given.workload, *(x for p in given.param for x in ("-p", p))]
    command = [sys.executable, "-m", "tenet", "map", *what, "-a", given.arch]
    command += ["--objective", given.objective, "--format", "json"]
    command += ["--workers", str(given.workers)]
    if given.time_budget is not None:
        command += ["--time-budget", str(given.time_budget)]
    load = os.getloadavg()
    before, wall = os.times(), time.monotonic()
    done = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT)
    after, wall = os.times(), time.monotonic() - wall
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    printed = json.loads(done.stdout)
    if given.json is not None:
        given.json.write_text(done.stdout)
    rows = printed["layers"]
    seen: set[tuple[str, str]] = set()
    print(f"{'layer':28} {'count':>5} {'value':>14} {'bound':>14} {'gap':>7} done {'CPU-s':>7}")
    for row in rows:
        key = (row["workload"], json.dumps(row["params"], sort_keys=True))
        if key in seen:
            continue
        seen.add(key)
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
        + (f" --time-budget {given.time_budget:g}" if given.time_budget is not None else "")
        + f" --workers {given.workers}: {cpu:.1f} CPU-s (workers included), {wall:.1f} s wall"
    )
    print(f"load {load[0]:.2f} (1 min) before, {os.getloadavg()[0]:.2f} after")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
