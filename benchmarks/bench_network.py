"""CPU time per layer of ``tenet eval-network resnet50 -a systolic-2d-16x16 -d conv2d-os``:
without a cache, then with a count cache on disk (the first run fills it: the one-off counts;
a later run, in a fresh cache object, reads it). CPU time is ``time.process_time`` of this
process, which does all the counting. Run from the repository root:
``python benchmarks/bench_network.py [--quick]`` (``--quick``: the alexnet network).
"""

from __future__ import annotations

import sys
import tempfile
import time

from tenet.metrics.cache import CountCache
from tenet.networks import evaluate_network


def _run(network: str, cache: CountCache | None) -> tuple[float, int]:
    start = time.process_time()
    result = evaluate_network(network, "systolic-2d-16x16", ["conv2d-os"], cache=cache)
    return time.process_time() - start, len(result.layers)


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
    return 0


if __name__ == "__main__":
    sys.exit(main())
