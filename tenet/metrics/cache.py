"""A cache of exact evaluations keyed by the canonical text of a problem's relations.

Two problems with the same bound domain, accesses, stamps, PE set, links, architecture figures,
tensor selection and neighbourhood have the same metrics, whatever their names or the files
they came from: :class:`CountCache` evaluates each such problem once per process and, given a
folder, keeps the results there for later runs (one file per key, written through a temporary
file; read back with :mod:`pickle`, so keep the folder private).
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import replace
from pathlib import Path

from tenet.files import KeyedFiles
from tenet.metrics.assessment import assess_problem
from tenet.metrics.evaluate import Metrics
from tenet.model.problem import Problem

__all__ = ["CountCache", "problem_key"]

#: Bumped when the metrics or their counting change, so that old files are not read.
VERSION = 1


def problem_key(problem: Problem) -> str:
    """Return a hash of the canonical text of ``problem``'s relations and figures.

    Examples
    --------
    >>> from tenet.api import load_problem
    >>> a = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 8})
    >>> b = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8, "K": 8})
    >>> problem_key(a) == problem_key(b)
    True
    """
    arch = problem.architecture
    parts = [
        f"version {VERSION}",
        str(problem.workload.domain),
        *(f"{t} {a} {m}" for t, a, m in problem.workload.accesses),
        f"reductions {problem.workload.reductions}",
        str(problem.theta_space),
        str(problem.theta_time),
        str(arch.pe_set),
        *(f"{link.relation} delay {link.delay}" for link in arch.links),
        repr(
            (
                arch.bits_per_element,
                arch.bandwidth,
                arch.latency,
                arch.l1_size,
                arch.l2_size,
                arch.energy.model_dump(),
                arch.instances_per_step,
            )
        ),
        f"tensors {[(a.tensor, a.access) for a in problem.accesses]}",
        f"neighbourhood {problem.neighbourhood}",
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class CountCache:
    """Evaluations by :func:`problem_key`, in memory and (given ``folder``) on disk."""

    def __init__(self, folder: str | Path | None = None) -> None:
        # pickle reads back only the files this cache wrote
        self._files = KeyedFiles[Metrics](folder, ".pickle", pickle.dumps, pickle.loads)  # noqa: S301
        self.hits = 0
        self.misses = 0

    def evaluate(self, problem: Problem, name: str | None = None) -> Metrics:
        """Return the metrics of ``problem``
        (:func:`~tenet.metrics.assessment.assess_problem`), counted at most once per key.

        Examples
        --------
        >>> from tenet.api import load_problem
        >>> cache = CountCache()
        >>> p = load_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic", {"M": 8, "N": 8})
        >>> cache.evaluate(p) == cache.evaluate(p), (cache.hits, cache.misses)
        (True, (1, 1))
        """
        key = problem_key(problem)
        found = self._files.get(key)
        wanted = name or problem.dataflow.name
        if found is not None:
            self.hits += 1
            self._files.keep(key, found)
            return found if found.name == wanted else replace(found, name=wanted)
        self.misses += 1
        metrics = assess_problem(problem, figures=["metrics"], name=name).metrics
        self._files.put(key, metrics)
        return metrics
