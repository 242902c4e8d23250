"""CPU time of a network's layers.

1. ``tenet eval-network resnet50 -a systolic-2d-16x16 -d conv2d-os``, per layer: without a
   cache, then with a count cache on disk (the first run fills it: the one-off counts; a later
   run, in a fresh cache object, reads it). CPU time is ``time.process_time`` of this process,
   which does all the counting.
2. A ``tenet sweep -n resnet50 -a systolic-2d-16x16 --top 1``-style search (a small space:
   innermost order only, no skew), its design points evaluated in this process so that
   ``time.process_time`` covers every count: without the count cache (the workers' cache
   emptied before every batch), filling a cache folder, the same search again and a search for
   the best 3 reading the folder.

Run from the repository root: ``python benchmarks/bench_network.py [--quick]`` (``--quick``:
the alexnet network).
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterator
from typing import Any

from tenet.dse.explore import Sweep, sweep
from tenet.dse.run import row_cache
from tenet.dse.run.engines import UNPACED, InProcessEngine, Job, Pace, Work
from tenet.dse.run.execution import ExecutionOptions
from tenet.dse.space.design import SpaceOptions
from tenet.metrics.cache import CountCache
from tenet.networks import evaluate_network
from tenet.spec import load_network

ARRAY = "systolic-2d-16x16"
SPACE = SpaceOptions(order_depth=1, skew=(0,))


class InProcess(InProcessEngine):
    """Runs every job in this process; ``fresh``: with the workers' row cache emptied first."""

    def __init__(self, fresh: bool = False) -> None:
        self.fresh = fresh

    def run(self, function: Work, jobs: Iterator[Job], pace: Pace = UNPACED) -> Iterator[Any]:
        def emptied_first(*job: Any) -> Any:
            row_cache._CACHES.clear()
            return function(*job)

        return super().run(emptied_first if self.fresh else function, jobs, pace)


def _run(network: str, cache: CountCache | None) -> tuple[float, int]:
    start = time.process_time()
    result = evaluate_network(network, ARRAY, ["conv2d-os"], cache=cache)
    return time.process_time() - start, len(result.layers)


def _sweep(network: str, top: int, fresh: bool, folder: str | None) -> tuple[Sweep, float]:
    spec = load_network(network)
    layers = [(layer.name, layer.workload, layer.params) for layer in spec.layers]
    row_cache._CACHES.clear()
    start = time.process_time()
    result = sweep(
        layers,
        [ARRAY],
        options=SPACE,
        best=("latency", top),
        execution=ExecutionOptions(engine=InProcess(fresh), cache=folder),
    )
    return result, time.process_time() - start


def _best(result: Sweep) -> list[tuple[str, str, int]]:
    best = result.best("latency")
    return list(zip(best["workload"], best["name"], best["latency_cycles"], strict=True))


def main() -> int:
    network = "alexnet" if "--quick" in sys.argv else "resnet50"
    _run("alexnet", None)  # warm-up: imports, zoo files
    seconds, layers = _run(network, None)
    print(f"{network}: {layers} layers, no cache: {seconds * 1000 / layers:.1f} ms CPU per layer")
    with tempfile.TemporaryDirectory() as folder:
        seconds, _ = _run(network, CountCache(folder))
        print(f"  first run filling the cache (one-off counts): {seconds * 1000 / layers:.1f} ms")
        seconds, _ = _run(network, CountCache(folder))
        print(f"  later run reading the cache: {seconds * 1000 / layers:.2f} ms CPU per layer")
    print(f"sweep -n {network} -a {ARRAY} (innermost order, no skew), best 1 by latency:")
    plain, seconds = _sweep(network, 1, True, None)
    points = len(plain.results)
    print(f"  no count cache: {points} design points, {seconds:.2f} CPU-s")
    with tempfile.TemporaryDirectory() as folder:
        cached, seconds = _sweep(network, 1, False, folder)
        misses = row_cache.worker_cache(folder).misses
        print(f"  filling a cache folder: {seconds:.2f} CPU-s, {misses} points counted")
        print(f"  same best as without the cache: {_best(cached) == _best(plain)}")
        again, seconds = _sweep(network, 1, False, folder)
        misses = row_cache.worker_cache(folder).misses
        print(f"  the same search reading it: {seconds:.2f} CPU-s, {misses} points counted")
        print(f"  same best: {_best(again) == _best(plain)}")
        _, seconds = _sweep(network, 3, False, folder)
        misses = row_cache.worker_cache(folder).misses
        print(f"  later search (best 3) reading it: {seconds:.2f} CPU-s, {misses} points counted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
