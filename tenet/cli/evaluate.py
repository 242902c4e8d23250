"""``tenet eval`` and ``tenet check``: evaluate TENET experiments or a workload/architecture/
dataflow triple, and check one dataflow's legality."""

from __future__ import annotations

from typing import Any

import click

from tenet.api import check, load_experiment, load_problem
from tenet.cli.app import cli, neighbourhood_option, progress, working
from tenet.cli.options import (
    TENET_FILES,
    TENET_FILES_LONG,
    OutputOptions,
    ProblemOptions,
    output_options,
    problem_options,
)
from tenet.errors import DataflowError
from tenet.metrics.evaluate import Metrics, evaluate
from tenet.metrics.memory import MemoryMetrics, evaluate_memory
from tenet.model import Problem
from tenet.model.legality import Legality, check_dataflow
from tenet.spec import load_workload
from tenet.spec.io import strict_json
from tenet.vocab import ENERGY_UNIT_LABELS, Neighbourhood, unit_label

__all__ = ["eval_command", "check_command"]


def _assess(problem: Problem, name: str | None = None) -> tuple[Metrics, Legality, MemoryMetrics]:
    """Evaluate ``problem``, its memory levels, and check its legality (reported, not
    enforced)."""
    legality = check_dataflow(problem.workload, problem.architecture, problem.dataflow)
    metrics = evaluate(problem, name=name)
    return metrics, legality, evaluate_memory(problem, metrics.latency_compute)


def _to_dict(metrics: Metrics, legality: Legality, memory: MemoryMetrics) -> dict[str, Any]:
    return {
        **metrics.to_dict(),
        "legality": [{"kind": v.kind, "message": v.message} for v in legality.violations]
        + [{"kind": v.kind, "message": v.message} for v in memory.violations],
        **memory.to_dict(),
    }


def _render_memory(memory: MemoryMetrics, energy_unit: str) -> list[str]:
    if len(memory.levels) < 2:
        return []
    lines = ["", memory.table().to_string(), ""]
    lines += [
        f"{s.level:8} footprint {s.footprint} of {s.capacity if s.capacity else 'unbounded'}"
        f" elements, reads {s.accesses_read}, writes {s.accesses_write}, latency "
        f"{float(s.latency):g} cycles, energy {s.energy:g} {energy_unit}"
        for s in memory.levels
    ]
    lines.append(
        f"{'memory latency':24} {float(memory.latency):g} cycles (bottleneck: {memory.bottleneck})"
    )
    lines += [f"  capacity: {v.message}" for v in memory.violations]
    return lines


def _render_table(metrics: Metrics, legality: Legality, memory: MemoryMetrics, csv: bool) -> str:
    table = metrics.table()
    if csv:
        return str(table.to_csv().rstrip("\n"))
    table = table[[c for c in table.columns if not c.startswith("accesses_")]]
    table.columns = [c.removeprefix("volume_") for c in table.columns]
    summary = {k: v for k, v in metrics.to_dict().items() if k not in ("tensors", "original")}
    lines = [f"{metrics.name} (volumes in elements)", table.to_string(), ""]
    units = {"energy": ENERGY_UNIT_LABELS[metrics.energy_unit]}
    lines += [
        f"{key:24} {value} {units.get(key, unit_label(key))}".rstrip()
        for key, value in summary.items()
        if key not in ("name", "energy_unit")
    ]
    lines += [f"{'legality':24} {'legal' if legality.legal else 'see below'}"]
    lines += [f"  {v.kind}: {v.message}" for v in legality.violations]
    lines += _render_memory(memory, units["energy"])
    return "\n".join(lines)


@cli.command("eval")
@click.argument("experiments", nargs=-1, type=click.Path())
@problem_options(TENET_FILES_LONG, required=False)
@click.option("--tensor", "-t", multiple=True, help="Analyse only this tensor (repeatable).")
@neighbourhood_option("window")
@click.option(
    "--symbolic",
    is_flag=True,
    help="Print each count as a formula in the sizes not given by -p (pieces with conditions).",
)
@click.option("--latex", is_flag=True, help="With --symbolic: the formulas as LaTeX.")
@output_options()
def eval_command(
    out: OutputOptions,
    problem: ProblemOptions,
    experiments: tuple[str, ...],
    tensor: tuple[str, ...],
    neighbourhood: Neighbourhood,
    symbolic: bool,
    latex: bool,
) -> None:
    """Evaluate TENET EXPERIMENTS files, or one --workload/--arch/--dataflow triple.

    Prints every metric per tensor and per dataflow, then the legality checks (several
    instances on one PE in one step beyond the architecture's ``instances_per_step``, broken
    dependences), which are reported without stopping the evaluation."""
    params = problem.params()
    tensors = list(tensor) or None
    triple = problem.given()
    if experiments and any(triple):
        raise click.UsageError("give experiment files or --workload/--arch/--dataflow, not both")
    if not experiments and not all(triple):
        raise click.UsageError("give experiment files, or all of --workload, --arch, --dataflow")
    if latex and not symbolic:
        raise click.UsageError("--latex needs --symbolic")
    if latex and out.fmt != "table":
        raise click.UsageError(f"--latex writes LaTeX: give it or --format {out.fmt}, not both")
    if symbolic:
        if experiments:
            raise click.UsageError("--symbolic needs --workload/--arch/--dataflow")
        from tenet.api import analyze_symbolic

        with working("counting the formulas"):
            formulas = analyze_symbolic(
                *problem.names(), params=params, neighbourhood=neighbourhood
            )
        text = formulas.to_json() if out.fmt == "json" else str(formulas)
        out.write(formulas.to_latex() if latex else text)
        return
    if experiments:
        results = [
            _assess(
                load_experiment(e, params=params, tensors=tensors, neighbourhood=neighbourhood),
                name=str(e),
            )
            for e in progress(experiments)
        ]
    else:
        loaded = load_problem(*problem.names(), params, tensors, neighbourhood)
        results = [_assess(loaded)]
    if out.fmt == "json":
        payload: Any = [_to_dict(*r) for r in results]
        out.write(strict_json(payload if experiments and len(experiments) > 1 else payload[0]))
    else:
        out.write("\n\n".join(_render_table(*r, out.fmt == "csv") for r in results))


@cli.command("check")
@problem_options(TENET_FILES)
@click.option(
    "--reduction",
    "-r",
    multiple=True,
    help="Tensor updated by a reduction, on top of the workload's (repeatable).",
)
@click.option(
    "--instances-per-step", type=click.IntRange(min=1), help="Instances a PE runs per step."
)
def check_command(
    problem: ProblemOptions, reduction: tuple[str, ...], instances_per_step: int | None
) -> None:
    """Check that a dataflow is a legal schedule; name a witness for each violation."""
    workload, arch, dataflow = problem.names()
    spec = load_workload(workload)
    result = check(
        spec,
        arch,
        dataflow,
        params=problem.params(),
        reductions=(*spec.reductions, *reduction),
        instances_per_step=instances_per_step,
    )
    click.echo(str(result))
    if not result.legal:
        raise DataflowError(
            f"{result.dataflow} is not a legal dataflow ({len(result.violations)} violation(s))"
        )
