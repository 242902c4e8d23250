"""A chain on the command line: ``tenet eval -w CHAIN -d FUSED`` prints a fused chain's
figures, ``tenet map -w CHAIN -a ARCH`` searches its fusion choices (``docs/fusion.md``)."""

from __future__ import annotations

from typing import Any

import click
import yaml

from tenet.cli.app import parse_params
from tenet.cli.options import OutputOptions
from tenet.errors import SpecError
from tenet.files import write_atomically
from tenet.metrics.fused_chain import ChainFigures, FusionCosts
from tenet.model.chain import Chain
from tenet.report import fits_line, records_csv, records_text
from tenet.spec import strict_json
from tenet.vocab import ENERGY_UNIT_LABELS

__all__ = ["eval_chain", "map_chain", "chain_document", "chain_text"]


def _chain(workload: str, param: tuple[str, ...]) -> Chain:
    """The chain named ``workload`` at its default sizes overridden by ``-p``."""
    from tenet.spec.chain import load_chain

    spec = load_chain(workload)
    params = parse_params(param)
    unknown = sorted(set(params) - set(spec.params))
    if unknown:
        raise SpecError(
            f"-p {unknown[0]}: not a size parameter of chain {spec.name} "
            f"(known: {', '.join(spec.params)})"
        )
    return Chain.from_spec(spec, params)


def _costs(arch: str | None, level: str | None) -> FusionCosts | None:
    if arch is None:
        return None
    from tenet.metrics.fused_chain import fusion_costs
    from tenet.spec import load_architecture

    return fusion_costs(load_architecture(arch), level)


def eval_chain(
    out: OutputOptions, workload: str, dataflow: str, arch: str | None, param: tuple[str, ...]
) -> None:
    """Print the figures of chain ``workload`` under the fused dataflow file ``dataflow``."""
    from tenet.mapping.fused_groups import FusedGroups
    from tenet.metrics.fused_chain import assess_groups
    from tenet.spec.fused import load_fused

    chain = _chain(workload, param)
    fused = load_fused(dataflow)
    fused.check_chain(chain.spec)
    costs = _costs(arch, fused.level)
    level = costs.level if costs is not None else "buffer"
    groups = FusedGroups.from_spec(fused, level, costs.capacity if costs is not None else None)
    out.write(chain_text(assess_groups(chain, groups, costs), out.fmt))


def chain_document(figures: ChainFigures) -> dict[str, Any]:
    """The JSON of a chain's figures: headline, per tensor, per statement, and the groups
    (as in a fused dataflow file)."""
    return {
        "chain": figures.chain.spec.name,
        "headline": figures.headline(),
        "tensors": figures.tensors(),
        "statements": figures.statements(),
        "groups": figures.groups.document(figures.chain.spec.name)["groups"],
    }


def chain_text(figures: ChainFigures, fmt: str) -> str:
    """A chain's figures in ``fmt`` (table, csv or json)."""
    if fmt == "json":
        return strict_json(chain_document(figures))
    tensors = [{"tensor": t} | row for t, row in figures.tensors().items()]
    statements = [{"statement": s} | row for s, row in figures.statements().items()]
    head = figures.headline()
    if fmt == "csv":
        return "\n\n".join(records_csv(r) for r in ([head], tensors, statements))
    overflow = f"{head['level']} needs {head['need']:,} of {head['capacity']:,} elements"
    lines = [
        fits_line(head | {"overflow": overflow}),
        f"{'buffer':24} {head['level']}: needs {head['need']} of "
        f"{'unbounded' if head['capacity'] is None else head['capacity']} elements",
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
    groups = [_group_line(g) for g in figures.groups.document("")["groups"]]
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
    from tenet.dse.fusion import FUSION_OBJECTIVES, search_fusion

    if objective not in FUSION_OBJECTIVES:
        raise click.UsageError(
            f"--objective {objective}: a chain is searched by {', '.join(FUSION_OBJECTIVES)} "
            "(each a sum over its groups)"
        )
    chain = _chain(workload, param)
    costs = _costs(arch, None)
    assert costs is not None
    found = search_fusion(chain, objective, costs)
    if out.fmt == "json":
        document = chain_document(found.best) | {
            "objective": objective,
            "value": found.value,
            "certificate": {
                "status": found.status(),
                "gap": 0,
                "space": found.space,
                "fitting": found.fitting,
                "evaluated": found.evaluated,
            },
        }
        out.write(strict_json(document))
    else:
        head = f"best fusion of {chain.spec.name} on {arch} by {objective}: {found.value}"
        text = chain_text(found.best, out.fmt)
        out.write(text if out.fmt == "csv" else "\n".join([head, found.status(), "", text]))
    if save_dataflow is not None:
        document = found.best.groups.document(chain.spec.name)
        text = yaml.safe_dump(document, sort_keys=False, width=1000)
        write_atomically(save_dataflow, lambda tmp: tmp.write_text(text))
        click.echo(f"wrote {save_dataflow}", err=True)
