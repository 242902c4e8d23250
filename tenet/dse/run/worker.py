"""What a worker process runs: design points arrive as spec text (JSON and isl strings, never
isl objects), are checked against the workload's dependences, evaluated exactly, and leave as
flat rows of figures (one per design point, units in the column names)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import islpy as isl

from tenet.dse.run.row_cache import row_key, worker_cache
from tenet.errors import TenetError
from tenet.isl_utils import parse_map
from tenet.metrics import Metrics
from tenet.metrics.assessment import assess_problem
from tenet.metrics.design import Cutoff, SharedCounts
from tenet.model import Architecture, Dataflow, Problem, Workload
from tenet.model.legality import Dependence, check_dependences, dependences
from tenet.spec import Specs
from tenet.vocab import Neighbourhood, column

__all__ = [
    "Context",
    "Task",
    "METRIC_COLUMNS",
    "evaluate_tasks",
    "metric_row",
]

METRIC_COLUMNS: dict[str, str] = {
    column("latency"): "INTEGER",
    column("latency_compute"): "INTEGER",
    column("latency_ingress"): "INTEGER",
    column("latency_egress"): "INTEGER",
    column("energy"): "REAL",
    column("edp"): "REAL",
    column("bandwidth_scratchpad"): "REAL",
    column("bandwidth_pe"): "REAL",
    column("utilisation"): "REAL",
    column("active_pes"): "INTEGER",
    column("timestamps"): "INTEGER",
    column("instances_per_step_max"): "INTEGER",
    column("volume_unique"): "INTEGER",
}
"""Figures of one evaluated design point and their SQL types."""


@dataclass(frozen=True)
class Context:
    """What every design point of one exploration shares, as JSON text."""

    text: str

    @classmethod
    def make(
        cls,
        specs: Specs,
        reductions: tuple[str, ...],
        neighbourhood: Neighbourhood = "links",
    ) -> Context:
        """Serialise the specs (workload, architecture and size parameters), the reductions
        and the neighbourhood of the unique volume."""
        return cls(
            json.dumps(
                {
                    "specs": specs.to_json(),
                    "reductions": list(reductions),
                    "neighbourhood": neighbourhood,
                },
                sort_keys=True,
            )
        )


Task = tuple[int, str, str, str]
"""(index, name, space-stamp text, time-stamp text) of one design point."""


@dataclass(frozen=True)
class _Parsed:
    workload: Workload
    architecture: Architecture
    params: dict[str, int]
    dependences: tuple[Dependence, ...]
    neighbourhood: Neighbourhood
    shared: SharedCounts


@lru_cache(maxsize=8)
def _parse(text: str) -> _Parsed:
    data = json.loads(text)
    specs = Specs.from_json(data["specs"])
    params = specs.bound
    workload = Workload.from_spec(specs.workload, params)
    return _Parsed(
        workload,
        Architecture.from_spec(specs.architecture, params),
        params,
        dependences(workload, data["reductions"]),
        data["neighbourhood"],
        SharedCounts(),
    )


@lru_cache(maxsize=1024)
def _stamp(text: str, params: tuple[tuple[str, int], ...]) -> isl.Map:
    """Parse a stamp of a design point, its size parameters bound (points share stamps)."""
    return parse_map(text, dict(params))


def metric_row(metrics: Metrics) -> dict[str, Any]:
    """Return the figures of :data:`METRIC_COLUMNS` from ``metrics`` (floats for ratios)."""
    return {
        column("latency"): metrics.latency,
        column("latency_compute"): metrics.latency_compute,
        column("latency_ingress"): metrics.latency_ingress,
        column("latency_egress"): metrics.latency_egress,
        column("energy"): metrics.energy,
        column("edp"): metrics.energy * metrics.latency,
        "energy_unit": metrics.energy_unit,
        column("bandwidth_scratchpad"): float(metrics.bandwidth_scratchpad),
        column("bandwidth_pe"): float(metrics.bandwidth_pe),
        column("utilisation"): float(metrics.utilisation),
        column("active_pes"): metrics.active_pes,
        column("timestamps"): metrics.timestamps,
        column("instances_per_step_max"): metrics.instances_per_step_max,
        column("volume_unique"): sum(t.volume_unique for t in metrics.tensors),
    }


def _evaluate_one(
    parsed: _Parsed, task: Task, bound: Cutoff | None, cache: str | None
) -> dict[str, Any]:
    index, name, space_stamp, time_stamp = task
    row: dict[str, Any] = {"index": index, "name": name, "status": "ok", "reason": ""}
    try:
        values = tuple(sorted(parsed.params.items()))
        dataflow = Dataflow(name, _stamp(space_stamp, values), _stamp(time_stamp, values))
        # design-space candidates place every instance once inside the array by construction
        problem = Problem(
            parsed.workload,
            parsed.architecture,
            dataflow,
            neighbourhood=parsed.neighbourhood,
            placed=True,
        )

        def figures() -> dict[str, Any]:
            broken = check_dependences(parsed.workload, dataflow, parsed.dependences)
            if broken:
                return {"status": "illegal", "reason": broken[0].message}
            found = assess_problem(problem, figures=["design"], shared=parsed.shared, cutoff=bound)
            return {"status": "ok", "reason": "", **found.design}

        key = row_key(problem, parsed.dependences)
        row.update(worker_cache(cache).get(key, figures, bound))
    except (TenetError, isl.Error) as exc:
        return {**row, "status": "error", "reason": str(exc)}
    return row


def evaluate_tasks(
    context: str, tasks: list[Task], bound: Cutoff | None = None, cache: str | None = None
) -> list[dict[str, Any]]:
    """Evaluate a batch of design points of the exploration ``context`` (JSON text); with a
    ``bound``, points that surely cannot beat it are left ``pruned`` (see
    :func:`tenet.metrics.design.design_row`). A point whose relations this process (or, given
    the folder ``cache``, any run) has counted already is not counted again
    (:mod:`tenet.dse.run.row_cache`).

    Examples
    --------
    >>> from tenet.spec import load_workload, load_architecture
    >>> specs = Specs(load_workload("gemm"), load_architecture("systolic-2d-8x8"), None,
    ...               {"M": 8, "N": 8, "K": 8})
    >>> ctx = Context.make(specs, ("C",))
    >>> [row] = evaluate_tasks(ctx.text, [(0, "os", "{S[i,j,k] -> PE[i, j]}",
    ...                                    "{S[i,j,k] -> T[i + j + k]}")])
    >>> row["status"], row["latency_compute_cycles"]
    ('ok', 22)
    """
    parsed = _parse(context)
    return [_evaluate_one(parsed, task, bound, cache) for task in tasks]
