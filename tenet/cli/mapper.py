"""``tenet map``: the best mapping of a layer, or of every layer entry of a network, over every
array mapping, kept tensors, tile sizes and loop orders, with a proven bound and its gap."""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any, cast

import click

from tenet.cli.app import choice_option, cli, parse_params, tell
from tenet.cli.checks import Refusal, check_before_work, check_folder, check_writable, refuses
from tenet.cli.dse import blocked_space
from tenet.cli.options import (
    OutputOptions,
    aligned_option,
    blocks_option,
    constraints_option,
    cpu_budget_option,
    dataflows_option,
    execution_options,
    output_options,
    residency_option,
    search_execution,
    time_budget_option,
    written_file,
)
from tenet.dse import SHOWN_COLUMNS, ExecutionOptions, Interrupted, Mapped, ties_words
from tenet.report import kept_lines, records_csv, records_text, write_report
from tenet.spec import is_chain, strict_json
from tenet.vocab import ENERGY_UNIT_LABELS, MEMORY_OBJECTIVES, MemoryObjective

__all__ = ["map_command"]


@refuses(
    Refusal("--workload", "--network", "the network's layer entries are mapped"),
    Refusal("--param", "--network", "each layer entry gives its own sizes"),
)
@cli.command("map")
@click.option("--workload", "-w", help="Workload: YAML file or zoo name.")
@click.option("--network", "-n", help="Map every layer entry of this network (zoo name or YAML).")
@click.option("--arch", "-a", required=True, help="Architecture with memory levels.")
@dataflows_option(
    "Array mapping to search (repeatable; zoo templates take the array's extents; "
    "default: every array mapping of the design space); with --network, those made for each "
    "layer's workload."
)
@click.option("--param", "-p", multiple=True, help="Size parameter NAME=VALUE (repeatable).")
@choice_option(
    "--objective",
    (*MEMORY_OBJECTIVES, "dram"),
    "latency",
    "What the search minimises (dram: a chain's DRAM elements).",
)
@time_budget_option(
    "Seconds per layer after which no part of its search starts; what it could not prove "
    "stays in its bound and gap."
)
@cpu_budget_option(
    "per layer, after which no part of its search starts and each part running stops where it "
    "is (each part spends at most its share of what is left)"
)
@click.option(
    "--gap",
    type=click.FloatRange(min=0),
    default=0.0,
    show_default=True,
    help="Tolerance, a fraction (0.01 for 1 %): prune what cannot beat the best by more than "
    "it, proving each best at most that far above the best possible (0: proven optimal).",
)
@constraints_option(
    "Mapping constraints (YAML): a loop's spread over the array, and per level the tile "
    "sizes, loop order and kept or bypassed tensors (docs/dse.md); with --network, of every "
    "layer entry."
)
@aligned_option(
    "Also search tile sizes that are multiples of this, dividing the loop or not (the last "
    "tile partial), as tenet tile --aligned; with --network, of every layer entry."
)
@click.option(
    "--save-dataflow",
    type=click.Path(),
    help="Write the best mapping as a dataflow file that tenet eval reads (with --network, a "
    "folder: one file per layer entry).",
)
@residency_option()
@blocks_option()
@written_file("--report", help="Also write the HTML report (table, plot, mappings) to this file.")
@execution_options(workers=1)  # as `tenet tile`: this process by default
@output_options()
def map_command(
    out: OutputOptions,
    execution: ExecutionOptions,
    workload: str | None,
    network: str | None,
    arch: str,
    dataflows: tuple[str, ...],
    param: tuple[str, ...],
    objective: str,
    time_budget: float | None,
    cpu_budget: float | None,
    gap: float,
    constraints: str | None,
    aligned: int | None,
    save_dataflow: str | None,
    residency: bool,
    blocks: str,
    report: str | None,
) -> None:
    """Search the best mapping of a layer (-w, -p) or of every layer entry of a network (-n)
    on an architecture with memory levels: every array mapping, the tensors each level keeps,
    the tile sizes and the loop orders together, by branch and bound (docs/dse.md); print
    each entry's figures, the bound below which no mapping goes and what the gap means, and
    a network's total (entries weighted by their count). Progress, the best so far, its bound
    and gap go to stderr; Ctrl-C prints what was found so far (exit 130). With -n, an entry's
    output that the next entry reads (its input's `from`) stays in the buffer below DRAM when
    both best mappings leave room for it (--residency, the default; each entry is searched
    alone, then its figures lose what stayed on chip: dram_saved_elements, resident).

    A chain (-w CHAIN) is searched over its fusion choices (docs/fusion.md): the groups of
    consecutive statements, each group's shared rank and tile size, halo rule and resident
    inputs, exhaustively, by --objective dram, energy or latency."""
    if (workload is None) == (network is None):
        raise click.UsageError("give --workload or --network")
    if workload is not None and is_chain(workload):
        from tenet.cli.fusion import map_chain

        engine = execution.engine != "local" or execution.workers != 1 or execution.store
        given = dataflows or constraints or report or aligned is not None or blocks
        budgets = time_budget is not None or cpu_budget is not None or gap
        if given or budgets or engine:
            raise click.UsageError(
                "a chain (-w) is searched over its fusion choices in this process: no "
                "--dataflow, --constraints, --aligned, --blocks, --report, --time-budget, "
                "--cpu-budget, --gap, --engine, --workers, --address or --store"
            )
        map_chain(out, workload, arch, param, objective, save_dataflow)
        return
    if objective == "dram":
        raise click.UsageError("--objective dram is a chain's (-w CHAIN)")
    design = blocked_space(blocks)
    if design is not None and dataflows:
        raise click.UsageError(
            "--blocks shapes the design space's array mappings: give it without --dataflow"
        )
    check_before_work((), execution, None, None, out.path)
    (check_folder if network is not None else check_writable)(save_dataflow, "--save-dataflow")
    from tenet.dse import LayerEntry, map_layers, network_entries
    from tenet.spec import load_constraints, load_network, load_workload

    params = parse_params(param)
    spec = load_network(network) if network is not None else None
    if spec is not None:
        entries = network_entries(spec)
    else:
        assert workload is not None
        entries = [LayerEntry(load_workload(workload).name, workload, params)]
    try:
        mapped = map_layers(
            entries,
            arch,
            dataflows=dataflows,
            objective=cast(MemoryObjective, objective),
            execution=search_execution(execution, time_budget, cpu_budget),
            network=spec,
            told=tell,
            constraints=None if constraints is None else load_constraints(constraints),
            residency=residency,
            design=design,
            aligned=aligned,
            gap=gap,
        )
    except Interrupted as stop:
        if isinstance(stop.partial, Mapped) and stop.partial.layers:
            out.write(_render(stop.partial, out.fmt))
        raise
    out.write(_render(mapped, out.fmt))
    if save_dataflow is not None:
        from tenet.dse import save_dataflows

        for path in save_dataflows(mapped, save_dataflow):
            click.echo(f"wrote {path}", err=True)
    if report is not None:
        from tenet.dse import map_report

        inputs = {
            "workload" if spec is None else "network": workload or str(network),
            "architecture": arch,
            "objective": objective,
            "array mappings": ", ".join(dataflows)
            or "every mapping of the design space"
            + (f" (blocks {blocks})" if design is not None else ""),
            "time budget per layer": "none" if time_budget is None else f"{time_budget:g} s",
            "CPU budget per layer": "none" if cpu_budget is None else f"{cpu_budget:g} CPU-s",
            "gap tolerance": f"{gap:.2%}" if gap else "none (proven optimal where finished)",
            "constraints": constraints or "none",
        }
        if aligned is not None:
            inputs["tile sizes"] = f"nested divisors and multiples of {aligned}"
        click.echo(f"wrote {write_report(map_report(mapped, inputs), report)}", err=True)


def _render(mapped: Mapped, fmt: str) -> str:
    """The rows of ``mapped`` (and a network's total) in ``fmt``."""
    rows = mapped.rows()
    total = mapped.total()
    if fmt == "json":
        payload: dict[str, Any] = {"architecture": mapped.architecture}
        if mapped.network is not None:
            payload["network"] = mapped.network.name
        payload |= {"objective": mapped.objective, "complete": mapped.complete, "layers": rows}
        if total is not None:
            payload["total"] = total
        if mapped.edges:
            payload["edges"] = [asdict(e) for e in mapped.edges]
        return strict_json(payload)
    if fmt == "csv":
        flat = [
            {k: json.dumps(v) if isinstance(v, (dict, list)) else v for k, v in r.items()}
            for r in rows
        ]
        return records_csv(flat + ([total] if total is not None else []))
    shown = [{k: _whole(r[k]) for k in SHOWN_COLUMNS} for r in rows]
    unit = ENERGY_UNIT_LABELS.get(rows[0]["energy_unit"], "") if rows else ""
    value_unit = rows[0]["value_unit"] if rows else ""
    subject = mapped.network.name if mapped.network is not None else "the layer"
    head = (
        f"best mapping of {subject} on {mapped.architecture} by {mapped.objective} "
        f"(value and bound in {value_unit}; energy {unit}; certificate: what the bound proves)"
    )
    if not mapped.complete:
        head += "; interrupted: the last entry's search was cut short"
    totals = [{k: _whole(v) for k, v in total.items()}] if total is not None else []
    table = records_text(shown + totals)
    ties = [
        f"{r['layer']}: {ties_words(r['ties_open'], mapped.objective)}"
        for r in rows
        if r["ties_open"]
    ]
    mappings = [f"{r['layer']}: {r['space_stamp']} {r['time_stamp']}; {r['tiling']}" for r in rows]
    tied = ["", "ties:", *ties] if ties else []
    kept = kept_lines([e.words for e in mapped.edges])
    return "\n".join([head, table, *kept, *tied, "", "mappings:", *mappings])


def _whole(value: object) -> object:
    """A float that is a whole number as an integer (printed in full), anything else as is."""
    return int(value) if isinstance(value, float) and value.is_integer() else value
