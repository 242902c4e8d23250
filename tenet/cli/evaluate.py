"""``tenet eval`` and ``tenet check``: evaluate TENET experiments or a workload/architecture/
dataflow triple, and check one dataflow's legality."""

from __future__ import annotations

from typing import Any

import click

from tenet import (
    HEADLINE_FIELDS,
    Assessment,
    assess,
    assess_experiment,
    check,
    clock_figures,
    load_specs,
)
from tenet.cli.app import cli, neighbourhood_option, progress, working
from tenet.cli.checks import Refusal, refuses
from tenet.cli.options import (
    TENET_FILES,
    TENET_FILES_LONG,
    OutputOptions,
    ProblemOptions,
    output_options,
    problem_options,
)
from tenet.errors import DataflowError
from tenet.report import assessment_text
from tenet.spec import is_chain, load_workload, strict_json
from tenet.vocab import Neighbourhood, column

__all__ = ["eval_command", "check_command"]


@refuses(
    Refusal("--latex", "--symbolic", "LaTeX is written of the formulas", missing=True),
    Refusal("--latex", "--format", "the LaTeX formulas are text", values=("csv", "json")),
    Refusal("--symbolic", "EXPERIMENTS", "the formulas need a workload/arch/dataflow triple"),
    Refusal("--symbolic", "--format", "the formulas are text or JSON", values=("csv",)),
    Refusal("--tensor", "--symbolic", "the formulas count every tensor"),
)
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

    Prints the design's headline first: whether every tile fits its memory level (and what
    overflows), latency, energy and DRAM traffic, from the memory-aware model when the
    architecture has levels inside the outermost, else from the array model. Then every
    metric of the array model per tensor and per dataflow (its latency and energy as
    latency_array and energy_array), the legality checks (several instances on one PE in one
    step beyond the architecture's ``instances_per_step``, broken dependences), which are
    reported without stopping the evaluation, and the figures per memory level.

    A chain (-w CHAIN) takes its fused dataflow (-d FUSED.yaml, docs/fusion.md), an
    optional architecture for the buffer, energies and PEs, and prints the chain's figures."""
    if problem.workload is not None and is_chain(problem.workload):
        from tenet.cli.fusion import eval_chain

        if experiments or symbolic or tensor or problem.dataflow is None:
            raise click.UsageError(
                "a chain (-w) is evaluated with its fused dataflow (-d FUSED.yaml): "
                "no EXPERIMENTS, --symbolic or --tensor"
            )
        eval_chain(out, problem.workload, problem.dataflow, problem.architecture, problem.param)
        return
    params = problem.params()
    tensors = list(tensor) or None
    triple = problem.given()
    if experiments and any(triple):
        raise click.UsageError("give experiment files or --workload/--arch/--dataflow, not both")
    if not experiments and not all(triple):
        raise click.UsageError("give experiment files, or all of --workload, --arch, --dataflow")
    if symbolic:
        from tenet import analyze_symbolic

        with working("counting the formulas"):
            formulas = analyze_symbolic(
                *problem.names(), params=params, neighbourhood=neighbourhood
            )
        text = formulas.to_json() if out.fmt == "json" else str(formulas)
        out.write(formulas.to_latex() if latex else text)
        return
    if experiments:
        results = [
            assess_experiment(e, params=params, tensors=tensors, neighbourhood=neighbourhood)
            for e in progress(experiments)
        ]
        clock_mhz = None  # (TENET's architectures give no clock)
    else:
        specs = load_specs(*problem.names(), params)
        dataflow = specs.require_dataflow()
        results = [
            assess(
                specs.workload,
                specs.architecture,
                dataflow,
                params=params,
                tensors=tensors,
                neighbourhood=neighbourhood,
            )
        ]
        clock_mhz = specs.architecture.clock_mhz
    # each design's mapping row (its headline first, as the searches print it); with the
    # architecture's clock, the headline's figures in seconds beside the cycles
    rows = [r.row() for r in results]
    clocked = [_clock(row, r.metrics.macs, clock_mhz) for r, row in zip(results, rows, strict=True)]
    rows = [
        row | {column(k): v for k, v in c.items()} for row, c in zip(rows, clocked, strict=True)
    ]
    if out.fmt == "json":
        payload: Any = [
            _document(r, row, c, with_row=not experiments)
            for r, row, c in zip(results, rows, clocked, strict=True)
        ]
        out.write(strict_json(payload if experiments and len(experiments) > 1 else payload[0]))
    else:
        csv = out.fmt == "csv"
        texts = [assessment_text(r, csv, row) for r, row in zip(results, rows, strict=True)]
        out.write("\n\n".join(texts))


def _clock(row: dict[str, Any], macs: int, clock_mhz: float | None) -> dict[str, float]:
    """The figures of a mapping row's headline at the clock (``clock_mhz``, ``runtime``...;
    none without a clock)."""
    latency, energy, unit = row[column("latency")], row["energy"], row["energy_unit"]
    return clock_figures(latency, macs, energy, unit, clock_mhz)


def _document(
    result: Assessment, row: dict[str, Any], clocked: dict[str, float], with_row: bool
) -> dict[str, Any]:
    """The JSON of one design: its ``headline`` (the row's, with its figures at the clock
    ``clocked``), the assessment's fields, the headline's figures at the clock, and (a triple
    of specs) its mapping ``row``."""
    named = {column(k) for k in clocked}
    document = result.to_dict()  # its headline first, given its figures at the clock here
    document["headline"] = {k: v for k, v in row.items() if k in HEADLINE_FIELDS or k in named}
    return document | clocked | ({"row": row} if with_row else {})


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
