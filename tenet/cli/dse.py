"""``tenet dse`` and ``tenet sweep``: search the affine mappings of a workload on an array, and
over lists of workloads and arrays."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Concatenate

import click

from tenet.cli.app import (
    choice_option,
    cli,
    kept,
    kept_option,
    neighbourhood_option,
    parse_params,
    progress,
)
from tenet.cli.checks import Refusal, check_before_work, refuses
from tenet.cli.options import (
    Decorator,
    OutputOptions,
    P,
    R,
    blocks_option,
    checked_execution,
    constraints_option,
    cpu_budget_option,
    engine_options,
    format_and_output,
    kept_output,
    record_options,
    save_plot,
    search_execution,
    time_budget_option,
    written_file,
)
from tenet.dse import (
    OBJECTIVES,
    POINT_COLUMNS,
    Constraint,
    ExecutionOptions,
    Progress,
    SpaceOptions,
    by_source,
    constrained,
    rank,
    space_options,
)
from tenet.errors import SpecError
from tenet.spec import (
    ConstraintsSpec,
    NetworkSpec,
    WorkloadSpec,
    load_architecture,
    load_constraints,
    load_network,
    load_workload,
    strict_json,
)
from tenet.vocab import (
    MEMORY_OBJECTIVES,
    SPACE_STRATEGIES,
    MemoryObjective,
    Neighbourhood,
    SpaceStrategy,
    column,
    unit_label,
)

if TYPE_CHECKING:
    import pandas as pd

    from tenet.dse import Exploration, Sweep

__all__ = ["dse_command", "sweep_command", "SearchRequest", "blocked_space"]


def _integers(text: str, option: str) -> tuple[int, ...]:
    try:
        return tuple(int(v) for v in text.split(",") if v.strip())
    except ValueError as exc:
        raise click.BadParameter(
            f"expected integers separated by commas, got {text!r}", param_hint=option
        ) from exc


def _options(
    skew: str,
    pe_digits: int,
    order_depth: str,
    tiles: str,
    per_step: int | None,
    prune: bool,
    blocks: str = "",
) -> SpaceOptions:
    if order_depth != "all" and not order_depth.isdigit():
        raise click.BadParameter(
            f"expected a number or 'all', got {order_depth!r}", param_hint="--order-depth"
        )
    try:
        return space_options(
            skew=_integers(skew, "--skew"),
            pe_digits=pe_digits,
            order_depth=None if order_depth == "all" else int(order_depth),
            temporal_tiles=_integers(tiles, "--temporal-tiles"),
            blocks=_integers(blocks, "--blocks"),
            instances_per_step=per_step,
            prune_scratchpad=prune,
        )
    except SpecError as exc:
        raise click.BadParameter(exc.reason) from exc


def blocked_space(blocks: str) -> SpaceOptions | None:
    """The design space's options with the block sizes ``blocks`` (``--blocks``, integers
    separated by commas); None when none is given (the space's defaults)."""
    sizes = _integers(blocks, "--blocks")
    if not sizes:
        return None
    try:
        return space_options(blocks=sizes)
    except SpecError as exc:
        raise click.BadParameter(exc.reason, param_hint="--blocks") from exc


@dataclass(frozen=True)
class SearchRequest:
    """The search options of ``tenet dse`` and ``tenet sweep``, parsed and checked."""

    params: dict[str, int]
    """Size parameters (``-p NAME=VALUE``)."""
    objective: str
    """What the best are ranked by."""
    top: int
    """How many of the best are shown."""
    constraints: tuple[Constraint, ...]
    """Conditions a shown design point meets."""
    space: SpaceOptions
    """What the design space holds."""
    execution: ExecutionOptions
    """Where and how the points are evaluated (no progress display yet)."""
    neighbourhood: Neighbourhood
    """Where a PE finds data without fetching it."""
    every_figure: bool
    """Count every figure of every point (else only what the ranking needs)."""
    strategy: SpaceStrategy
    """Evaluate every point, or build the ``top_k`` best (``auto``: by the space's size)."""
    top_k: int
    """Points the constructive strategy evaluates exactly."""
    pareto: str | None
    """``X,Y``: the objectives of the Pareto front plotted to ``plot``."""
    plot: str | None
    """Image file of the front."""
    out: OutputOptions
    """Output format and file."""
    report: str | None = None
    """HTML file of the report (inputs, tables, plots, dataflows)."""
    mapping_constraints: ConstraintsSpec | None = None
    """What the mappings searched satisfy (``--constraints FILE``)."""

    def spatial(self) -> ConstraintsSpec | None:
        """The mapping constraints that apply to the array mappings: their spread."""
        limits = self.mapping_constraints
        return None if limits is None else limits.model_copy(update={"levels": {}})


def _request() -> SearchRequest:
    """The search options of the running command, checked before any work starts."""
    execution = checked_execution(kept("time_budget"), kept("cache"), kept("cpu_budget"))
    path = kept("mapping_constraints")
    out = kept_output()
    constraints = check_before_work(
        kept("constraint"), execution, kept("pareto"), kept("plot"), out.path
    )
    space = _options(
        kept("skew"),
        kept("pe_digits"),
        kept("order_depth"),
        kept("temporal_tiles"),
        kept("instances_per_step"),
        kept("prune_scratchpad"),
        kept("blocks"),
    )
    return SearchRequest(
        params=parse_params(kept("param")),
        objective=kept("objective"),
        top=kept("top"),
        constraints=tuple(constraints),
        space=space,
        execution=execution,
        neighbourhood=kept("neighbourhood"),
        every_figure=kept("every_figure"),
        strategy=kept("strategy"),
        top_k=kept("top_k"),
        pareto=kept("pareto"),
        plot=kept("plot"),
        out=out,
        report=kept("report"),
        mapping_constraints=None if path is None else load_constraints(path),
    )


def _space_options() -> Callable[[Callable[Concatenate[SearchRequest, P], R]], Callable[P, R]]:
    """The search options of ``tenet dse`` and ``tenet sweep``, passed as one
    :class:`SearchRequest`."""
    decorators: list[Decorator] = [
        kept_option("--param", "-p", multiple=True, help="Size parameter NAME=VALUE."),
        choice_option("--objective", list(OBJECTIVES), "latency", "What to rank by.", kept=True),
        kept_option("--top", type=click.IntRange(min=1), default=10, show_default=True),
        kept_option(
            "--constraint",
            "-c",
            multiple=True,
            help="Keep points meeting NAME OP VALUE, e.g. 'sbw<=bandwidth' (repeatable).",
        ),
        constraints_option(
            "Mapping constraints (YAML): the array mappings spread loops over the PEs it "
            "says; with dse --tile, the levels' tile sizes, orders and kept tensors too.",
            "mapping_constraints",
            kept=True,
        ),
        *engine_options(workers=2),
        time_budget_option("Seconds after which no point starts.", kept=True),
        cpu_budget_option("after which no point starts", kept=True),
        kept_option("--skew", default="0,1", show_default=True, help="Skew coefficients."),
        kept_option("--pe-digits", type=click.IntRange(1, 4), default=1, show_default=True),
        kept_option(
            "--order-depth",
            default="2",
            show_default=True,
            help="Innermost time digits whose order is searched, or 'all'.",
        ),
        kept_option("--temporal-tiles", default="", help="Extra temporal tile sizes, e.g. 2,4."),
        blocks_option(kept=True),
        kept_option("--instances-per-step", type=click.IntRange(min=1), help="Per PE and step."),
        kept_option("--prune-scratchpad", is_flag=True, help="Drop scratchpad-fed points."),
        kept_option(
            "--every-figure",
            is_flag=True,
            help="Count every figure of every point (default: only what the ranking needs).",
        ),
        choice_option(
            "--strategy",
            list(SPACE_STRATEGIES),
            "auto",
            "Evaluate every point, or build the top-k (auto: by the space's size).",
            kept=True,
        ),
        kept_option(
            "--top-k",
            type=click.IntRange(min=1),
            default=10,
            show_default=True,
            help="Points the constructive strategy evaluates exactly.",
        ),
        neighbourhood_option("links", kept=True),
        kept_option(
            "--cache",
            type=click.Path(file_okay=False),
            help="Folder keeping each distinct design point's figures for later runs.",
        ),
        kept_option(
            "--pareto", metavar="X,Y", help="Plot the Pareto front of objectives X,Y to --plot."
        ),
        written_file("--plot", help="PNG/SVG/PDF of the front.", image=True, kept=True),
        written_file(
            "--report",
            help="Also write the HTML report (inputs, tables, plots, dataflows) to this file.",
            kept=True,
        ),
        *format_and_output(),
    ]
    return record_options(decorators, _request)


def _render(table: pd.DataFrame, fmt: str, head: str) -> str:
    """The rows of ``table`` in ``fmt``; in text, under ``head``, itself under the line that
    says how many rows do not fit, if any."""
    shown = table[[c for c in ("source", *POINT_COLUMNS) if c in table.columns]]
    if fmt == "json":
        return strict_json(json.loads(shown.to_json(orient="records")))
    if fmt == "csv":
        return _render_columns(shown, fmt)
    text = _render_columns(shown, fmt)
    return _noticed(f"{head}\n{text}" if len(shown) else f"{head}\n(no design point)", shown)


def _noticed(text: str, rows: pd.DataFrame) -> str:
    """``text`` (a table of mapping rows) under the line saying which of ``rows`` do not fit,
    if any (:func:`tenet.report.fits_notice`)."""
    from tenet.report import fits_notice

    notice = fits_notice(rows.to_dict(orient="records")) if "fits" in rows.columns else None
    return text if notice is None else f"{notice}\n{text}"


def _sizes_line(exploration: Exploration) -> str:
    s = exploration.sizes
    if s is None:
        from tenet.dse import NOT_SEARCHED

        return f"{exploration.workload} on {exploration.architecture}: {NOT_SEARCHED}"
    return (
        f"{exploration.workload} on {exploration.architecture}: {s.every_order} mappings with "
        f"every order, {s.generated} generated, {s.distinct} without symmetric duplicates, "
        f"{s.scratchpad_fed} scratchpad-fed, {s.kept} kept ({s.data_centric} data-centric)"
        + ("" if exploration.complete else "; time budget ran out")
    )


def _plot(results: pd.DataFrame, pareto: str | None, plot: str | None) -> None:
    if plot is None:
        return
    x, _, y = (pareto or "latency,energy").partition(",")
    from tenet.dse import draw_pareto

    ax = draw_pareto(results, x.strip(), y.strip() or "energy")
    save_plot(ax, plot, "--plot")


SweepItem = str | WorkloadSpec | tuple[str, str, Mapping[str, int]]
"""A workload of a sweep: a source, a spec, or a network layer's (label, source, sizes)."""


def _bars(items: Sequence[SweepItem], archs: Sequence[str]) -> Progress:
    """A progress wrapper per exploration (workload x array, in the sweep's order): a line when
    each one is done."""
    names = [
        f"{item[0] if isinstance(item, tuple) else getattr(item, 'name', item)} on {arch}"
        for item in items
        for arch in archs
    ]
    count = iter(range(len(names)))

    def bar(rows: Iterable[Any], total: int, desc: str) -> Iterable[Any]:
        k = next(count, len(names) - 1)
        shown = f"exploration {k + 1}/{len(names)} ({names[k]}): {desc}"
        return progress(rows, total=total, desc=shown, each=False)

    return bar


def _search(
    items: list[SweepItem],
    archs: Sequence[str],
    reductions: Sequence[str] | None,
    request: SearchRequest,
    scheduled: pd.DataFrame | None = None,
    tiled: Callable[[Sweep, pd.DataFrame, str], str] | None = None,
    network: NetworkSpec | None = None,
) -> Sweep:
    """Search, print the best rows (with ``tiled``, what it makes of the search, the best
    rows and the heading instead; with the ``network`` of the items, its layer entries and
    total), plot and report."""
    from tenet.dse import sweep

    r = request
    constraints = r.constraints
    # only the best `top` are shown: points that cannot enter them are not counted further,
    # unless all rows are kept, filtered or plotted
    ranking_only = not (r.every_figure or constraints or r.plot or r.execution.store or r.report)
    result = sweep(
        items,
        list(archs),
        params=r.params,
        options=r.space,
        reductions=reductions,
        neighbourhood=r.neighbourhood,
        execution=replace(r.execution, progress=_bars(items, archs)),
        best=(r.objective, r.top) if ranking_only else None,
        strategy=r.strategy,
        top_k=r.top_k,
        constraints=r.spatial() if tiled is not None else r.mapping_constraints,
    )
    for exploration in result.explorations:
        click.echo(_sizes_line(exploration), err=True)
        kept = exploration.sizes.kept if exploration.sizes is not None else 0
        if exploration.complete and len(exploration.results) < kept:
            click.echo(
                f"  {len(exploration.results)} of {kept} evaluated exactly (constructive)",
                err=True,
            )
    objective, top = r.objective, r.top
    best = result.ranked(objective, top, constraints, mapping_rows=True)
    shown = max(
        (len(e.ranked(objective, top, constraints)) for e in result.explorations), default=0
    )
    head = f"best {shown} by the array's {objective}" + (
        " per workload and array" if len(result.explorations) > 1 else ""
    )
    if not shown and not result.complete:
        head = "no design point evaluated within the time budget"
    if scheduled is not None:
        from tenet.dse import untiled_figures, with_mapping_rows

        ranked = rank(scheduled, objective, top, constraints)
        spec = items[0]
        assert not isinstance(spec, tuple)  # `tenet dse`: one workload
        ours = with_mapping_rows(ranked, untiled_figures(spec, archs[0], r.params))
        best = by_source({"schedule": ours, "space": best})
        head = (
            f"best {max(shown, len(ours))} by the array's {objective} from the schedule and "
            "from the space"
        )
    if tiled is not None:
        r.out.write(tiled(result, best, head))
    elif network is None:
        r.out.write(_render(best, r.out.fmt, head))
    else:
        firsts = result.ranked(objective, 1, constraints, mapping_rows=True)
        text = _render(best, r.out.fmt, head)
        r.out.write(_with_network(text, firsts, network, objective, r.out.fmt))
    _plot(constrained(result.results, constraints), r.pareto, r.plot)
    _report(result, items, archs, r, network)
    return result


def _with_network(
    text: str, best: pd.DataFrame, network: NetworkSpec, objective: str, fmt: str
) -> str:
    """``text`` (the rows printed in ``fmt``) followed by each layer entry of ``network`` with
    its count and best mapping by ``objective`` (of ``best``) and the network's total: JSON
    as ``{"rows": ..., "network": ...}``."""
    from tenet.dse import layer_counts, network_totals

    totals = network_totals(best, layer_counts(network))
    if fmt == "json":
        rows = json.loads(text)
        return strict_json({"rows": rows, "network": json.loads(totals.to_json(orient="records"))})
    if fmt == "csv":
        return f"{text}\n\n{_render_columns(totals, fmt)}"
    head = (
        f"{network.name}: each layer entry's best mapping by {objective} and the network "
        "(layers weighted by their count)"
    )
    return f"{text}\n\n{head}\n{_render_columns(totals, fmt)}"


def _report(
    result: Sweep,
    items: Sequence[SweepItem],
    archs: Sequence[str],
    r: SearchRequest,
    network: NetworkSpec | None = None,
) -> None:
    """Write the HTML report of a search to ``r.report``, if asked (each exploration's best
    mapping with its headline; with the ``network``, its layer entries and total); keep the
    network's layer entries in the results store."""
    from tenet.dse import layer_counts, record_network

    results = result.results

    if network is not None and isinstance(r.execution.store, str):
        record_network(r.execution.store, network)
    if r.report is None:
        return
    from tenet.dse import design_report
    from tenet.report import write_report

    if network is not None:
        results = results.assign(count=results["workload"].map(dict(layer_counts(network))))

    names = [
        item[0] if isinstance(item, tuple) else getattr(item, "name", str(item)) for item in items
    ]
    inputs = {
        "workloads": ", ".join(names),
        "architectures": ", ".join(archs),
        "size parameters": ", ".join(f"{k}={v}" for k, v in r.params.items()) or "defaults",
        "objective": r.objective,
        "strategy": r.strategy + (f" (top-k {r.top_k})" if r.strategy != "exhaustive" else ""),
        "neighbourhood": r.neighbourhood,
    }
    specs = {(e.workload, e.architecture): e.specs for e in result.explorations if e.specs}
    report = design_report(results, inputs, objective=r.objective, specs=specs)
    click.echo(f"wrote {write_report(report, r.report)}", err=True)


_SEARCH_REFUSALS = (
    Refusal("--top-k", "--strategy", "no point is built", values=("exhaustive",)),
    Refusal("--pareto", "--plot", "the front is drawn into --plot", missing=True),
)
"""What ``tenet dse`` and ``tenet sweep`` refuse alike."""


@refuses(
    *_SEARCH_REFUSALS,
    Refusal("--reuse", "--from-schedule", "only a schedule chains reuse", missing=True),
    Refusal("--constraints", "--from-schedule", "the schedule's dataflows are not constrained"),
)
@cli.command("dse")
@click.option("--workload", "-w", required=True, help="Workload: YAML, TENET .s or zoo name.")
@click.option("--arch", "-a", required=True, help="Architecture: YAML, TENET .p or zoo name.")
@click.option(
    "--reduction", "-r", multiple=True, help="Tensor updated by +=, besides the workload's."
)
@click.option(
    "--from-schedule",
    is_flag=True,
    help="Also evaluate the dataflows made from the workload's schedule; show their best first.",
)
@click.option("--reuse", is_flag=True, help="With --from-schedule: schedule the reuse chains too.")
@click.option(
    "--vs-data-centric",
    is_flag=True,
    help="Also print the best overall against the best data-centric dataflow.",
)
@click.option(
    "--tile",
    "tile_levels",
    multiple=True,
    metavar="LEVEL",
    help="Then search the tiling of memory LEVEL for each of the best mappings (repeatable).",
)
@_space_options()
def dse_command(
    request: SearchRequest,
    workload: str,
    arch: str,
    reduction: tuple[str, ...],
    from_schedule: bool,
    reuse: bool,
    vs_data_centric: bool,
    tile_levels: tuple[str, ...],
) -> None:
    """Search the affine space-time mappings of a workload on an array; print the best (and,
    with --tile, the best tiling of each)."""
    spec = load_workload(workload)
    limits = request.mapping_constraints
    if limits is not None and limits.levels and not tile_levels:
        raise SpecError(
            "constraints of memory levels need --tile (the array mappings are searched by "
            "the spread of their loops alone)",
            source=limits.source,
            location="levels",
        )
    if tile_levels:
        from tenet.dse import check_tile_levels

        check_tile_levels(load_architecture(arch), tile_levels, spec, request.params)
    reductions = (*spec.reductions, *reduction)
    scheduled = None
    if from_schedule:
        from tenet.dse import explore_schedule

        scheduled = explore_schedule(
            spec,
            arch,
            params=request.params,
            reductions=reductions,
            reuse=reuse,
            neighbourhood=request.neighbourhood,
        )
    if vs_data_centric:
        # the best data-centric point is compared exactly: count every point's figures
        request = replace(request, every_figure=True)
    tiled = None
    if tile_levels:

        def tiled(result: Sweep, best: pd.DataFrame, head: str) -> str:
            return _tile_best(spec, arch, best, head, tile_levels, request)

    result = _search([spec], [arch], reductions, request, scheduled, tiled)
    if vs_data_centric:
        from tenet.dse import compare_data_centric

        for exploration in result.explorations:
            comparison = compare_data_centric(exploration.results, request.objective)
            click.echo("\n".join(comparison.lines()))


def _tile_best(
    spec: WorkloadSpec,
    arch: str,
    best: pd.DataFrame,
    head: str,
    levels: Sequence[str],
    request: SearchRequest,
) -> str:
    """Return the best array mappings ``best`` each with its mapping row under its best tiling
    of ``levels`` by the search's objective (its latency for an objective a tiling does not
    minimise), the best first (ties: the better ranked mapping); in text, then the best
    mapping and tiling together."""
    from tenet.dse import TilingSpace, tiled_rows

    execution = search_execution(
        request.execution,
        shown=lambda items, total, desc: progress(items, total=total, desc=f"tiling: {desc}"),
    )
    objective = _tiling_objective(request.objective)
    space = TilingSpace(levels)
    table = tiled_rows(
        spec, arch, best, request.params, space, execution, objective, request.mapping_constraints
    )
    head = f"{head}, each with its best tiling of {', '.join(levels)} (least {objective} first)"
    text = _render(table, request.out.fmt, head)
    if request.out.fmt == "table" and len(table):
        first = table.iloc[0]
        unit = unit_label("energy", str(first["energy_unit"]))
        text += (
            f"\nbest together: {first['name']} with {first['tiling']}, latency "
            f"{first['latency_cycles']} cycles (bottleneck {first['bottleneck']}), energy "
            f"{first['energy']:g} {unit}"
        )
    return text


def _tiling_objective(objective: str) -> MemoryObjective:
    """What the tiling of a best mapping minimises: the search's ``objective`` when a tiling
    minimises it (latency, energy, EDP), else the latency."""
    return next((o for o in MEMORY_OBJECTIVES if o == objective), "latency")


def _layers_of(spec: NetworkSpec) -> list[tuple[str, str, Mapping[str, int]]]:
    """The network's layer entries as workloads of a sweep: (label, workload, sizes)."""
    return [(f"{spec.name}/{layer.name}", layer.workload, layer.params) for layer in spec.layers]


@refuses(
    Refusal("--layers-plot", "--network", "it draws a network's layers", missing=True),
    *(
        Refusal(option, "--layers-plot", why)
        for option, why in (
            ("--workload", "it draws the network's layers only"),
            ("--store", "the per-layer search is not stored"),
            ("--time-budget", "every layer is searched whole"),
            ("--cpu-budget", "every layer is searched whole"),
            ("--top", "one best mapping per layer is shown"),
            ("--constraint", "the best mapping of each layer is not filtered"),
            ("--pareto", "no front is drawn"),
            ("--plot", "the plot is the per-layer one"),
            ("--every-figure", "every figure is counted"),
        )
    ),
    *_SEARCH_REFUSALS,
)
@cli.command("sweep")
@click.option("--workload", "-w", "workloads", multiple=True, help="Workload (repeatable).")
@click.option("--network", "-n", help="Every layer of this network (zoo name or YAML).")
@click.option("--arch", "-a", "archs", multiple=True, required=True, help="Array (repeatable).")
@written_file(
    "--layers-plot",
    help="With --network: per-layer table (latency, DRAM traffic, utilisation) and its plot.",
    image=True,
)
@_space_options()
def sweep_command(
    request: SearchRequest,
    workloads: tuple[str, ...],
    network: str | None,
    archs: tuple[str, ...],
    layers_plot: str | None,
) -> None:
    """Search every workload (or network layer) on every array; print the best of each."""
    spec = load_network(network) if network is not None else None
    if layers_plot is not None:
        assert spec is not None  # refused without --network
        _layers(spec, archs, layers_plot, request)
        return
    items: list[SweepItem] = [*workloads, *(_layers_of(spec) if spec is not None else [])]
    if not items:
        raise click.UsageError("give at least one --workload or a --network")
    # the network's total is of its layers alone: not with other workloads
    _search(items, archs, None, request, network=spec if not workloads else None)


def _layers(spec: NetworkSpec, archs: tuple[str, ...], plot: str, request: SearchRequest) -> None:
    if len(archs) != 1:
        raise click.UsageError("--layers-plot needs one --arch")
    from tenet.dse import LAYER_COLUMNS, layer_table, sweep
    from tenet.report import axis_label, plot_layers

    layers = _layers_of(spec)
    items: list[SweepItem] = list(layers)
    result = sweep(
        items,
        list(archs),
        params=request.params,
        options=request.space,
        neighbourhood=request.neighbourhood,
        execution=replace(
            request.execution,
            store=None,
            time_budget=None,
            cpu_budget=None,
            progress=_bars(items, archs),
        ),
        strategy=request.strategy,
        top_k=request.top_k,
        constraints=request.mapping_constraints,
    )
    best = result.best(request.objective)
    objective = _tiling_objective(request.objective)
    table = layer_table(
        best,
        {label: (w, p) for label, w, p in layers},
        archs[0],
        progress=lambda rows, total: progress(rows, total=total, desc="layers: tilings"),
        objective=objective,
    )
    shown = table[[c for c in LAYER_COLUMNS if c in table.columns]]
    text = _render_columns(shown, request.out.fmt)
    if request.out.fmt == "table":
        head = f"each layer's best array mapping by {request.objective}, its tiling by {objective}"
        text = _noticed(f"{head}\n{text}", shown)
    request.out.write(_with_network(text, table, spec, request.objective, request.out.fmt))
    panels = [
        (name, axis_label(name, table))
        for name in (column("latency"), "energy", column("traffic_dram"), column("utilisation"))
    ]
    save_plot(
        plot_layers(table, panels=panels, title=f"{spec.name} on {archs[0]}")[0],
        plot,
        "--layers-plot",
    )
    _report(result, items, archs, request, spec)


def _render_columns(table: pd.DataFrame, fmt: str) -> str:
    """The rows of ``table`` in ``fmt`` (tile stamps per level as JSON text in CSV and text)."""
    if fmt == "json":
        return json.dumps(json.loads(table.to_json(orient="records")), indent=2)
    flat = table.map(lambda v: json.dumps(v) if isinstance(v, dict) else "-" if v is None else v)
    if fmt == "csv":
        return str(flat.to_csv(index=False).rstrip("\n"))
    return str(flat.to_string(index=False, na_rep="-"))
