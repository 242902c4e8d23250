"""``tenet eval-network``: evaluate every layer of a network on one architecture."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict

import click

from tenet import clock_figures
from tenet.cli.app import cli, progress
from tenet.cli.options import (
    OutputOptions,
    dataflows_option,
    output_options,
    residency_option,
    written_file,
)
from tenet.networks import evaluate_network, network_report
from tenet.report import fits_notice, kept_lines, records_csv, records_text, write_report
from tenet.spec import LayerSpec, strict_json
from tenet.vocab import column

__all__ = ["eval_network_command"]


def _bar(layers: Iterable[LayerSpec], total: int) -> Iterable[LayerSpec]:
    return progress(layers, total=total, desc="layers")


@cli.command("eval-network")
@click.argument("network")
@click.option("--arch", "-a", required=True, help="Architecture: zoo name, YAML or TENET .p file.")
@dataflows_option(
    "Named dataflow (repeatable): each layer takes the first one made for its workload.",
    required=True,
)
@click.option(
    "--cache",
    type=click.Path(file_okay=False),
    help="Folder keeping each distinct layer's exact metrics for later runs.",
)
@residency_option()
@written_file("--report", help="Also write the HTML report (table, plot, dataflows) to this file.")
@output_options()
def eval_network_command(
    out: OutputOptions,
    network: str,
    arch: str,
    dataflows: tuple[str, ...],
    cache: str | None,
    residency: bool,
    report: str | None,
) -> None:
    """Evaluate every layer of NETWORK (zoo name, YAML or ONNX file) and print a per-layer
    table with the totals (layers weighted by their count). Each layer leads with its
    headline (latency, energy, DRAM traffic, whether it fits: the memory-aware model's,
    untiled, when the architecture has levels inside the outermost, else the array's), then
    the array model's latency and energy (latency_array_cycles, energy_array). A layer's output
    that the next layer reads (its input's `from`) stays in the buffer below DRAM when both
    layers leave room for it (--residency, the default): dram_saved_elements and resident say
    what each layer saved and kept (docs/fusion.md)."""
    from tenet.networks import CountCache

    counts = CountCache(cache) if cache is not None else None
    result = evaluate_network(
        network, arch, list(dataflows), progress=_bar, cache=counts, residency=residency
    )
    rows = result.rows()  # (records: printed without pandas)
    latency = column("latency")
    total = {k: v for k, v in rows[-1].items() if k not in ("layer", "workload", "dataflow")}
    if out.fmt == "json":
        payload = {
            "network": result.name,
            "architecture": result.architecture,
            "layers": [
                {"headline": dict(r.headline), "dataflow": r.dataflow, "count": r.layer.count}
                | {column("dram_saved"): r.dram_saved, "resident": r.resident}
                | r.metrics.to_dict()
                | {"name": r.layer.name, "workload": r.layer.workload}
                | clock_figures(h[latency], m.macs, h["energy"], m.energy_unit, result.clock_mhz)
                for r, m, h in ((r, r.metrics, r.headline) for r in result.layers)
            ],
            "total": total,
            "edges": [asdict(e) for e in result.edges],
        }
        out.write(strict_json(payload))
    elif out.fmt == "csv":
        out.write(records_csv(rows))
    else:
        notice = fits_notice(rows[:-1])
        head = f"{result.name} on {result.architecture}"
        kept = kept_lines(result.kept_words())
        out.write("\n".join([*([notice] if notice else []), head, records_text(rows), *kept]))
    if report is not None:
        inputs = {"network": network, "architecture": arch, "dataflows": ", ".join(dataflows)}
        written = write_report(network_report(result, arch, inputs), report)
        click.echo(f"wrote {written}", err=True)
