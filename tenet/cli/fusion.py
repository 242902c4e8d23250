"""A chain on the command line: ``tenet eval -w CHAIN -d FUSED`` prints a fused chain's
figures, ``tenet map -w CHAIN -a ARCH`` searches its fusion choices (``docs/fusion.md``)."""

from __future__ import annotations

from typing import Any

import click

from tenet.cli.app import parse_params
from tenet.cli.options import OutputOptions
from tenet.dse import (
    FUSION_OBJECTIVES,
    ChainFigures,
    chain_document,
    evaluate_chain,
    fused_dataflow_text,
    search_chain,
)
from tenet.files import write_atomically
from tenet.report import fits_line, records_csv, records_text
from tenet.spec import strict_json
from tenet.vocab import ENERGY_UNIT_LABELS

__all__ = ["eval_chain", "map_chain", "chain_text"]


def eval_chain(
    out: OutputOptions, workload: str, dataflow: str, arch: str | None, param: tuple[str, ...]
) -> None:
    """Print the figures of chain ``workload`` under the fused dataflow file ``dataflow``."""
    figures = evaluate_chain(workload, dataflow, arch, parse_params(param))
    out.write(chain_text(figures, out.fmt))


def chain_text(figures: ChainFigures, fmt: str) -> str:
    """A chain's figures in ``fmt`` (table, csv or json): whether the buffer fits first."""
    if fmt == "json":
        return strict_json(chain_document(figures))
    tensors = [{"tensor": t} | row for t, row in figures.tensors().items()]
    statements = [{"statement": s} | row for s, row in figures.statements().items()]
    head = figures.headline()
    if fmt == "csv":
        return "\n\n".join(records_csv(r) for r in ([head], tensors, statements))
    capacity = "unbounded" if head["capacity"] is None else f"{head['capacity']:,}"
    overflow = f"{head['level']} needs {head['need']:,} of {capacity} elements"
    lines = [
        fits_line(head | {"overflow": overflow}),
        f"{'buffer':24} {overflow}",
        f"{'traffic_dram':24} {head['dram']} elements "
        f"({head['dram_reads']} read, {head['dram_writes']} written)",
        f"{'macs':24} {head['macs']} ({head['recomputed_macs']} recomputed)",
    ]
    if "energy" in head:
        unit = ENERGY_UNIT_LABELS.get(head["energy_unit"], head["energy_unit"])
        lines += [
            f"{'energy':24} {head['energy']} {unit} (DRAM, buffer and MACs)",
            f"{'latency':24} {head['latency']} cycles (MACs over the PEs)",
        ]
    groups = [_group_line(g) for g in chain_document(figures)["groups"]]
    return "\n".join(
        [*lines, "", records_text(tensors), "", records_text(statements), "", "groups:", *groups]
    )


def _group_line(group: dict[str, Any]) -> str:
    tiles = ", ".join(f"{r}={t}" for r, t in group["tiles"].items())
    resident = ", ".join(group.get("resident", [])) or "none"
    return (
        f"  {'+'.join(group['statements'])}: tiles {tiles}, halo {group['halo']}, "
        f"resident {resident}"
    )


def map_chain(
    out: OutputOptions,
    workload: str,
    arch: str,
    param: tuple[str, ...],
    objective: str,
    save_dataflow: str | None,
) -> None:
    """Search the fusion choices of chain ``workload`` on ``arch`` by ``objective``; print
    the best with its certificate, and write its fused dataflow file to ``save_dataflow``."""
    if objective not in FUSION_OBJECTIVES:
        raise click.UsageError(
            f"--objective {objective}: a chain is searched by {', '.join(FUSION_OBJECTIVES)} "
            "(each a sum over its groups)"
        )
    found = search_chain(workload, arch, objective, parse_params(param))
    if out.fmt == "json":
        certificate = {
            "status": found.status(),
            "gap": 0,
            "space": found.space,
            "fitting": found.fitting,
            "evaluated": found.evaluated,
        }
        document = chain_document(found.best) | {
            "objective": objective,
            "value": found.value,
            "certificate": certificate,
        }
        out.write(strict_json(document))
    else:
        name = found.best.chain.spec.name
        head = f"best fusion of {name} on {arch} by {objective}: {found.value}"
        text = chain_text(found.best, out.fmt)
        out.write(text if out.fmt == "csv" else "\n".join([head, found.status(), "", text]))
    if save_dataflow is not None:
        text = fused_dataflow_text(found.best)
        write_atomically(save_dataflow, lambda tmp: tmp.write_text(text))
        click.echo(f"wrote {save_dataflow}", err=True)
