"""``tenet layout``: scratchpad layout figures (transactions, bank conflicts, use distance,
layout-aware ingress latency) of a dataflow, and the automatic layout search."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import TYPE_CHECKING, Any, cast

import click
import yaml

from tenet.cli.app import (
    cli,
    format_option,
    neighbourhood_option,
    output_option,
    param_option,
    parse_params,
    write_output,
)
from tenet.cli.plot import save_figure
from tenet.files import write_atomically
from tenet.layout.evaluate import load_layout_problem
from tenet.layout.metrics import LayoutMetrics
from tenet.layout.search import SEARCHES, LayoutSearch, Search, search_layout
from tenet.spec import load_architecture, load_workload
from tenet.spec.layout import ScratchpadSpec
from tenet.vocab import Neighbourhood, column

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["layout_command"]


def _plain(value: object) -> object:
    return str(value) if isinstance(value, Fraction) else value


def _json_value(value: object) -> object:
    return float(value) if isinstance(value, Fraction) else value


def _to_dict(metrics: LayoutMetrics, found: LayoutSearch | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "scratchpad": metrics.scratchpad.model_dump(),
        "tensors": [{k: _json_value(v) for k, v in r.items()} for r in metrics.rows()],
        "latency_ingress_layout": metrics.latency_ingress_layout,
        "latency_egress_layout": metrics.latency_egress_layout,
    }
    if found is not None:
        out["search"] = {
            "method": found.method,
            "latency_ingress_before": found.latency_ingress_before,
            "latency_ingress_after": found.latency_ingress_after,
            "evaluations": found.evaluations,
            "tensors": found.rows(),
        }
    return out


def _render(metrics: LayoutMetrics, found: LayoutSearch | None, csv: bool) -> str:
    import pandas as pd

    table = pd.DataFrame([{k: _plain(v) for k, v in r.items()} for r in metrics.rows()])
    if csv:
        return str(table.to_csv(index=False).rstrip("\n"))
    sp = metrics.scratchpad
    lines = [
        table.to_string(index=False),
        "",
        f"{'scratchpad':24} {sp.banks} banks x {sp.bank_width} words, "
        f"{sp.transaction_width}-word transactions",
        f"{'latency_ingress_layout':24} {metrics.latency_ingress_layout}",
        f"{'latency_egress_layout':24} {metrics.latency_egress_layout}",
    ]
    if found is not None:
        lines += [
            "",
            f"{found.method} search ({found.evaluations} layouts counted): ingress "
            f"{found.latency_ingress_before} -> {found.latency_ingress_after} cycles",
            pd.DataFrame(found.rows()).to_string(index=False),
        ]
    return "\n".join(lines)


@cli.command("layout")
@click.option("--workload", "-w", required=True, help="Workload: YAML file or zoo name.")
@click.option("--arch", "-a", required=True, help="Architecture: YAML file or zoo name.")
@click.option("--dataflow", "-d", required=True, help="Dataflow: YAML file or zoo name.")
@param_option
@click.option("--layout", "layout_file", type=click.Path(), help="Layout file (layouts: ...).")
@click.option("--banks", type=click.IntRange(min=1), help="Banks (overrides the architecture).")
@click.option("--bank-width", type=click.IntRange(min=1), help="Words per bank row.")
@click.option("--transaction-width", type=click.IntRange(min=1), help="Words per transaction.")
@click.option(
    "--search",
    "method",
    type=click.Choice(["none", *SEARCHES]),
    default="none",
    show_default=True,
    help="Search layouts of the read tensors that lower the layout-aware ingress latency.",
)
@click.option(
    "--depth", type=click.IntRange(min=1), default=2, show_default=True, help="Exhaustive depth."
)
@click.option("--save", type=click.Path(dir_okay=False), help="Write the layouts to this file.")
@click.option(
    "--plot",
    "plot_file",
    type=click.Path(dir_okay=False),
    help="Draw bank use per time-stamp of --plot-tensor to this image (.png, .svg, .pdf).",
)
@click.option("--plot-tensor", help="Tensor of --plot (default: the first read tensor).")
@format_option
@neighbourhood_option("window")
@output_option
def layout_command(
    workload: str,
    arch: str,
    dataflow: str,
    param: tuple[str, ...],
    layout_file: str | None,
    banks: int | None,
    bank_width: int | None,
    transaction_width: int | None,
    method: str,
    depth: int,
    save: str | None,
    plot_file: str | None,
    plot_tensor: str | None,
    fmt: str,
    neighbourhood: Neighbourhood,
    output: str | None,
) -> None:
    """Count where each tensor element lives in a banked scratchpad and what its fetches
    cost: transactions, bank conflicts, line misses, use distance and the layout-aware
    ingress latency; with --search, find layouts that lower that latency.

    Layouts come from the dataflow's ``layout`` key and --layout; the scratchpad from the
    architecture's ``scratchpad`` key, overridden by --banks, --bank-width and
    --transaction-width."""
    architecture = load_architecture(arch)
    base = architecture.scratchpad or ScratchpadSpec()
    given = {"banks": banks, "bank_width": bank_width, "transaction_width": transaction_width}
    scratchpad = base.model_copy(update={k: v for k, v in given.items() if v is not None})
    lp = load_layout_problem(
        workload,
        architecture,
        dataflow,
        parse_params(param),
        layout=layout_file,
        scratchpad=scratchpad,
        neighbourhood=neighbourhood,
    )
    found = None
    if method != "none":
        found = search_layout(lp, cast(Search, method), depth=depth)  # one of SEARCHES
        lp = lp.with_layouts(found.layouts())
    metrics = lp.evaluate()
    if save is not None:
        layouts = {
            t: [s.model_dump(exclude_none=True) for s in lay.transforms]
            for t, lay in lp.layouts.items()
            if lay.transforms
        }
        text = yaml.safe_dump({"version": 1, "layouts": layouts}, sort_keys=False)
        write_atomically(save, lambda tmp: tmp.write_text(text))
    if plot_file is not None:
        from tenet.report.banks import bank_use, plot_bank_use

        reads = [a.tensor for a in lp.problem.accesses if a.access == "read"]
        tensor = plot_tensor or (reads[0] if reads else "")
        ax = plot_bank_use(bank_use(lp, tensor), title=f"{tensor}: bank use per time-stamp")
        save_figure(cast("Figure", ax.figure), plot_file, "--plot")
    if fmt == "json":
        write_output(json.dumps(_to_dict(metrics, found), indent=2), output)
    else:
        write_output(_render(metrics, found, fmt == "csv"), output)


@cli.command("layout-rank")
@click.option("--workload", "-w", required=True, help="Workload: YAML file or zoo name.")
@click.option("--arch", "-a", required=True, help="Architecture: YAML file or zoo name.")
@param_option
@click.option(
    "--objective", default="latency", show_default=True, help="Objective of the first cut."
)
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--banks", type=click.IntRange(min=1), help="Banks (overrides the architecture).")
@click.option("--bank-width", type=click.IntRange(min=1), help="Words per bank row.")
@click.option("--transaction-width", type=click.IntRange(min=1), help="Words per transaction.")
@click.option(
    "--search",
    "method",
    type=click.Choice(["none", *SEARCHES]),
    default="none",
    show_default=True,
    help="Search layouts for each design point before ranking.",
)
@format_option
@output_option
def layout_rank_command(
    workload: str,
    arch: str,
    param: tuple[str, ...],
    objective: str,
    top: int,
    banks: int | None,
    bank_width: int | None,
    transaction_width: int | None,
    method: str,
    fmt: str,
    output: str | None,
) -> None:
    """Explore the design space of --workload on --arch, keep the --top points by
    --objective, and rank them by the layout-aware ingress latency."""
    from tenet.dse.execution import ExecutionOptions
    from tenet.dse.explore import explore
    from tenet.dse.layout import LAYOUT_COLUMN, rank_by_layout

    workload_spec, architecture = load_workload(workload), load_architecture(arch)
    params = parse_params(param)
    exploration = explore(
        workload_spec, architecture, params=params, execution=ExecutionOptions(workers=1)
    )
    base = architecture.scratchpad or ScratchpadSpec()
    given = {"banks": banks, "bank_width": bank_width, "transaction_width": transaction_width}
    scratchpad = base.model_copy(update={k: v for k, v in given.items() if v is not None})
    ranked = rank_by_layout(
        exploration.results,
        workload_spec,
        architecture,
        params,
        scratchpad=scratchpad,
        search=None if method == "none" else cast(Search, method),
        by=objective,
        top=top,
    )
    columns = [
        c for c in ("name", column("latency"), LAYOUT_COLUMN, "layouts") if c in ranked.columns
    ]
    table = ranked[columns]
    if fmt == "json":
        write_output(table.to_json(orient="records", indent=2), output)
    elif fmt == "csv":
        write_output(table.to_csv(index=False).rstrip("\n"), output)
    else:
        write_output(table.to_string(index=False), output)
