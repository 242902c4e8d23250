"""``tenet layout``: scratchpad layout figures (transactions, bank conflicts, use distance,
layout-aware ingress latency) of a dataflow, and the automatic layout search."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import cast

import click

from tenet.cli.app import choice_option, cli, neighbourhood_option
from tenet.cli.checks import Refusal, refuses
from tenet.cli.options import (
    YAML_FILES,
    OutputOptions,
    ProblemOptions,
    ScratchpadOptions,
    output_options,
    problem_options,
    save_plot,
    scratchpad_options,
    written_file,
)
from tenet.errors import SpecError
from tenet.layout import (
    SEARCHES,
    SearchMethod,
    load_layout_problem,
    search_layout,
    write_layout_file,
)
from tenet.report import layout_dict, layout_text
from tenet.spec import load_architecture, load_workload
from tenet.vocab import Neighbourhood, column

__all__ = ["layout_command", "layout_rank_command", "LAYOUT_NOTE"]

LAYOUT_NOTE = (
    "latency_ingress_layout_cycles: the fetches of every read tensor through the banks, one\n"
    "tensor after another (the sum of their cycles, plus the scratchpad latency - 1), with no\n"
    "overlap with compute; latency_cycles overlaps ingress, compute and egress, so it can be\n"
    "the smaller of the two (docs/layout.md)."
)
"""Printed under the ``tenet layout-rank`` table: why its two latencies differ."""


def _objective(name: str) -> str:
    """Check an objective's name while the command line is parsed (before the search)."""
    from tenet.dse import objective

    try:
        objective(name)
    except SpecError as exc:
        raise SpecError(str(exc), source="--objective") from exc
    return name


@refuses(
    Refusal("--depth", "--search", "only the exhaustive search has a depth", ("exhaustive",), True),
    Refusal("--plot-tensor", "--plot", "nothing is drawn", missing=True),
)
@cli.command("layout")
@problem_options(YAML_FILES)
@click.option("--layout", "layout_file", type=click.Path(), help="Layout file (layouts: ...).")
@scratchpad_options()
@choice_option(
    "--search",
    ["none", *SEARCHES],
    "none",
    "Search layouts of the read tensors that lower the layout-aware ingress latency.",
    dest="method",
)
@click.option(
    "--depth", type=click.IntRange(min=1), default=2, show_default=True, help="Exhaustive depth."
)
@written_file("--save", help="Write the layouts to this file.")
@written_file(
    "--plot",
    "plot_file",
    help="Draw bank use per time-stamp of --plot-tensor to this image (.png, .svg, .pdf).",
    image=True,
)
@click.option("--plot-tensor", help="Tensor of --plot (default: the first read tensor).")
@neighbourhood_option("window")
@output_options()
def layout_command(
    out: OutputOptions,
    geometry: ScratchpadOptions,
    problem: ProblemOptions,
    layout_file: str | None,
    method: str,
    depth: int,
    save: str | None,
    plot_file: str | None,
    plot_tensor: str | None,
    neighbourhood: Neighbourhood,
) -> None:
    """Count where each tensor element lives in a banked scratchpad and what its fetches
    cost: transactions, bank conflicts, line misses, use distance and the layout-aware
    ingress latency; with --search, find layouts that lower that latency.

    Layouts come from the dataflow's ``layout`` key and --layout; the scratchpad from the
    architecture's ``scratchpad`` key, overridden by --banks, --bank-width and
    --transaction-width."""
    given = load_layout_problem(
        *problem.names(), problem.params(), layout=layout_file, neighbourhood=neighbourhood
    )
    lp = replace(given, scratchpad=geometry.apply(given.scratchpad))
    found = None
    if method != "none":
        lp.evaluate()  # the given layouts first: sizes too large for any layout end here
        found = search_layout(lp, cast(SearchMethod, method), depth=depth)  # one of SEARCHES
        lp = lp.with_layouts(found.layouts())
    metrics = lp.evaluate()
    if save is not None:
        write_layout_file(save, lp.layouts)
        click.echo(f"wrote {save}", err=True)
    if plot_file is not None:
        from tenet.report import bank_use, plot_bank_use, plot_bank_use_pair

        reads = [a.tensor for a in lp.problem.accesses if a.access == "read"]
        tensor = plot_tensor or (reads[0] if reads else "")
        if found is None:
            ax = plot_bank_use(bank_use(lp, tensor), title=f"{tensor}: bank use per time-stamp")
        else:
            titles = (f"{tensor}: given layout", f"{tensor}: layout found ({method})")
            before = bank_use(replace(given, scratchpad=lp.scratchpad), tensor)
            ax = plot_bank_use_pair(before, bank_use(lp, tensor), titles)[0]
        save_plot(ax, plot_file, "--plot")
    if out.fmt == "json":
        out.write(json.dumps(layout_dict(metrics, found), indent=2))
    else:
        out.write(layout_text(metrics, found, out.fmt == "csv"))


@cli.command("layout-rank")
@problem_options(YAML_FILES[:2])
@click.option(
    "--objective",
    default="latency",
    show_default=True,
    callback=lambda ctx, param, value: _objective(value),
    help="Objective of the first cut.",
)
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True)
@scratchpad_options()
@choice_option(
    "--search",
    ["none", *SEARCHES],
    "none",
    "Search layouts for each design point before ranking.",
    dest="method",
)
@output_options()
def layout_rank_command(
    out: OutputOptions,
    geometry: ScratchpadOptions,
    problem: ProblemOptions,
    objective: str,
    top: int,
    method: str,
) -> None:
    """Explore the design space of --workload on --arch, keep the --top points by
    --objective, and rank them by the layout-aware ingress latency."""
    from tenet import explore
    from tenet.dse import LAYOUT_COLUMN, ExecutionOptions, rank_by_layout

    assert problem.workload and problem.architecture  # required options
    workload_spec = load_workload(problem.workload)
    architecture = load_architecture(problem.architecture)
    params = problem.params()
    exploration = explore(
        workload_spec, architecture, params=params, execution=ExecutionOptions(workers=1)
    )
    ranked = rank_by_layout(
        exploration.results,
        workload_spec,
        architecture,
        params,
        scratchpad=geometry.apply(architecture.scratchpad),
        search=None if method == "none" else cast(SearchMethod, method),
        by=objective,
        top=top,
    )
    columns = [
        c for c in ("name", column("latency"), LAYOUT_COLUMN, "layouts") if c in ranked.columns
    ]
    table = ranked[columns]
    if out.fmt == "json":
        out.write(table.to_json(orient="records", indent=2))
    elif out.fmt == "csv":
        out.write(table.to_csv(index=False).rstrip("\n"))
    else:
        out.write(f"{table.to_string(index=False)}\n\n{LAYOUT_NOTE}")
