"""``tenet maestro`` (MAESTRO-style estimates of a mapping file) and ``tenet compare`` (exact
counts next to the estimates, per quantity, for one layer or a whole network)."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import click

from tenet import assess, load_problem
from tenet.cli.app import choice_option, cli, progress
from tenet.cli.checks import Refusal, refuses
from tenet.cli.options import (
    TOPOLOGY_ROWS,
    OutputOptions,
    ProblemOptions,
    output_options,
    problem_options,
    save_plot,
    written_file,
)
from tenet.errors import SpecError, TenetError
from tenet.maestro import (
    MaestroEstimate,
    compare_network,
    compare_problem,
    compare_problem_with_layer,
    estimate,
    load_hardware,
    load_mapping,
)
from tenet.report import fits_line, records_table
from tenet.spec import strict_json

if TYPE_CHECKING:
    from tenet.maestro import Interconnect

__all__ = ["maestro_command", "compare_command"]

_SUMMARY = (
    "num_macs",
    "runtime",
    "throughput",
    "average_number_of_utilized_pes",
    "input_l2_buffer_read",
    "filter_l2_buffer_read",
    "output_l2_buffer_write",
    "total_energy_consumption",
)


@cli.command("maestro")
@click.argument("mapping", type=click.Path())
@click.option("--hw", "hardware", required=True, type=click.Path(), help="MAESTRO hardware file.")
@click.option("--layer", "-l", multiple=True, help="Estimate only this layer (repeatable).")
@output_options()
def maestro_command(
    out: OutputOptions, mapping: str, hardware: str, layer: tuple[str, ...]
) -> None:
    """Estimate every layer of a MAESTRO MAPPING file with MAESTRO's data-centric model.

    The JSON format is a list with one object per layer (network, layer, then the figures under
    MAESTRO's names); a layer MAESTRO's model cannot express gets an ``error`` entry instead.
    """
    network = load_mapping(mapping)
    hw = load_hardware(hardware)
    layers = [x for x in network.layers if not layer or x.name in layer]
    missing = sorted(set(layer) - {x.name for x in layers})
    if missing:
        raise SpecError(f"no layer(s) {', '.join(missing)} in the network", source=mapping)
    results: list[MaestroEstimate | TenetError] = []
    for item in progress(layers, total=len(layers), desc="estimating"):
        try:
            results.append(estimate(item, hw, network.name))
        except TenetError as exc:
            results.append(exc)
    failures = [r for r in results if isinstance(r, TenetError)]
    if len(failures) == len(results):
        raise failures[0]
    records = [
        r.to_dict()
        if isinstance(r, MaestroEstimate)
        else {"network": network.name, "layer": x.name, "error": str(r)}
        for x, r in zip(layers, results, strict=True)
    ]
    for record in records:
        if "error" in record:
            click.echo(f"warning: layer {record['layer']}: {record['error']}", err=True)
    if out.fmt == "json":
        out.write(strict_json(records))
        return
    frame = records_table([r for r in records if "error" not in r])
    if out.fmt == "csv":
        out.write(frame.drop(columns=["edge_cases", "warnings"]).to_csv(index=False).rstrip())
        return
    shown = frame[["layer", *_SUMMARY]].set_index("layer")
    notes = [
        f"{r['layer']}: {note}" for r in records if "error" not in r for note in r["edge_cases"]
    ]
    text = f"{network.name}\n{shown.to_string()}"
    if notes:
        text += "\n\nedge cases:\n" + "\n".join(f"  {n}" for n in notes)
    out.write(text)


@refuses(
    Refusal("--interconnect", "--workload", "the relation-centric dataflow has its own links"),
    Refusal("--layer", "MAPPING", "only a MAPPING has layers", missing=True),
    Refusal("--dataflow", "--with", "the peer's mapping is the dataflow"),
    Refusal("--param", "--with", "the peer's workload gives the sizes"),
    Refusal("--hw", "--with", "the peer's specs give the hardware"),
    Refusal("--layer", "--with", "the peer's spec is one layer", values=("accelforge", "zigzag")),
    Refusal("--topology", "--with", "only SCALE-Sim reads a topology", ("scalesim",), True),
    Refusal("--input-type", "--with", "only SCALE-Sim reads a topology", ("scalesim",), True),
    Refusal("--interconnect", "--with", "the peer's specs give the links"),
    Refusal("--plot", "--with", "the peer's figures are printed, not plotted"),
    Refusal("--peer-python", "--with", "no peer runs", missing=True),
)
@cli.command("compare")
@click.argument("mapping", required=False, type=click.Path())
@click.option("--hw", "hardware", type=click.Path(), help="MAESTRO hardware file.")
@click.option("--layer", "-l", help="Compare this layer only (default: every layer).")
@problem_options(
    (
        "Relation-centric dataflow: workload.",
        "Relation-centric dataflow: architecture.",
        "Relation-centric dataflow: dataflow.",
    ),
    required=False,
)
@choice_option(
    "--interconnect",
    ["multicast", "mesh", "none"],
    "multicast",
    "Links of the lowered array (data-centric input only).",
)
@written_file("--plot", "plot_path", help="Save a bar plot here.", image=True)
@click.option(
    "--with",
    "peer",
    type=click.Choice(["accelforge", "zigzag", "scalesim"]),
    help="Run this peer and print its fills and writebacks beside tenet's: MAPPING is an "
    "AccelForge spec, ZigZag's mapping with -w workload and -a accelerator, or SCALE-Sim's "
    "config with -t topology (its cycles, SRAM and DRAM traffic per layer).",
)
@click.option(
    "--peer-python",
    help="Python of the peer's environment (or TENET_PEERS_PYTHON; SCALE-Sim: "
    "TENET_SCALESIM_PYTHON).",
)
@click.option("--topology", "-t", type=click.Path(), help="SCALE-Sim topology CSV.")
@TOPOLOGY_ROWS
@output_options()
def compare_command(
    out: OutputOptions,
    problem: ProblemOptions,
    mapping: str | None,
    hardware: str | None,
    layer: str | None,
    interconnect: str,
    plot_path: str | None,
    peer: str | None,
    peer_python: str | None,
    topology: str | None,
    kind: str,
) -> None:
    """Compare exact counts with MAESTRO-style estimates, quantity by quantity; with --with,
    tenet's per-level fills and writebacks with AccelForge's or ZigZag's, or each layer's
    cycles, SRAM and DRAM traffic with SCALE-Sim's.

    Give the dataflow in MAESTRO's notation (MAPPING with --hw; every layer, or --layer), in
    the relation-centric one (--workload/--arch/--dataflow; the directives are synthesised,
    --hw optionally sets the NoC), or in both (then they are compared with each other).
    """
    if peer == "scalesim":
        _compare_with_scalesim(mapping, topology, kind, layer, peer_python, out)
        return
    if peer is not None:
        _compare_with_peer(peer, mapping, problem.workload, problem.architecture, peer_python, out)
        return
    triple = problem.given()
    if any(triple) and not all(triple):
        raise click.UsageError("give all of --workload, --arch, --dataflow, or none")
    if mapping is None and not all(triple):
        raise click.UsageError("give MAPPING (with --hw), or --workload/--arch/--dataflow")
    if mapping is not None and hardware is None:
        raise click.UsageError("MAPPING needs --hw")
    notice = None
    if all(triple):
        workload, arch, dataflow = problem.names()
        loaded = load_problem(workload, arch, dataflow, problem.params())
        if len(loaded.architecture.levels) > 1:  # tiles that may not fit a level
            found = assess(workload, arch, dataflow, params=problem.params())
            notice = (
                f"{fits_line(found.headline())} (the memory levels; the figures below are the "
                "array model's)"
            )
        if mapping is None:
            table = compare_problem(loaded, load_hardware(hardware) if hardware else None)
        else:  # (a mapping comes with its hardware: checked above)
            hw = load_hardware(cast(str, hardware))
            table = compare_problem_with_layer(loaded, load_mapping(mapping).layer(layer), hw)
    else:
        table = compare_network(
            load_mapping(cast(str, mapping)),  # given: checked above
            load_hardware(cast(str, hardware)),
            layers=[layer] if layer else None,
            interconnect=cast("Interconnect", interconnect),  # one of the option's choices
        )
        if layer and table.empty:
            raise SpecError(f"no layer {layer!r} in the network", source=mapping)
    if plot_path:
        from tenet.report import plot_comparison

        save_plot(plot_comparison(table), plot_path, "--plot")
    if out.fmt == "json":
        out.write(strict_json(table.to_dict(orient="records")))
    elif out.fmt == "csv":
        out.write(table.to_csv(index=False).rstrip())
    else:
        shown = table.assign(relative_error=table["relative_error"].map("{:+.2%}".format))
        text = shown.to_string(index=False)
        out.write(text if notice is None else f"{notice}\n{text}")


def _compare_with_peer(
    peer: str,
    mapping: str | None,
    workload: str | None,
    accelerator: str | None,
    python: str | None,
    out: OutputOptions,
) -> None:
    """Run ``peer`` and print tenet's counters per level and tensor beside its own."""
    import json
    from dataclasses import asdict

    from tenet.peers import compare_accelforge, compare_zigzag, peer_python, render

    if mapping is None:
        raise click.UsageError(f"--with {peer} needs MAPPING")
    if peer == "zigzag":
        if not workload or not accelerator:
            raise click.UsageError("--with zigzag needs -w WORKLOAD and -a ACCELERATOR")
        rows = compare_zigzag(peer_python(python), workload, accelerator, mapping)
    else:
        rows = compare_accelforge(peer_python(python), mapping)
    if out.fmt == "json":
        energy = {"energy_pj": rows.energy, "energy_peer_pj": rows.energy_peer}
        fits = {"fits": rows.overflow is None, "overflow": rows.overflow}
        out.write(json.dumps({**fits, "rows": [asdict(r) for r in rows], **energy}, indent=2))
    elif out.fmt == "csv":
        out.write(records_table([asdict(r) for r in rows]).to_csv(index=False).rstrip())
    else:
        out.write(render(rows, peer))


def _compare_with_scalesim(
    config: str | None,
    topology: str | None,
    kind: str,
    layer: str | None,
    python: str | None,
    out: OutputOptions,
) -> None:
    """Run SCALE-Sim on a config and topology; print tenet's figures per layer beside its."""
    import json
    from dataclasses import asdict

    from tenet.peers import compare_scalesim, render_scalesim, scalesim_python

    if config is None or topology is None:
        raise click.UsageError("--with scalesim needs MAPPING (the config) and -t TOPOLOGY")
    comparisons = compare_scalesim(
        scalesim_python(python),
        config,
        topology,
        "gemm" if kind == "gemm" else "conv",
        [layer] if layer else None,
    )
    if layer and not comparisons:
        raise SpecError(f"no layer {layer!r} in the topology", source=topology)
    if out.fmt == "json":
        out.write(json.dumps([asdict(c) for c in comparisons], indent=2))
    elif out.fmt == "csv":
        rows = [{"layer": c.layer, **asdict(r)} for c in comparisons for r in c.rows]
        out.write(records_table(rows).to_csv(index=False).rstrip())
    else:
        out.write(render_scalesim(comparisons))
