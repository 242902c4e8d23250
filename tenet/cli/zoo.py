"""``tenet zoo``: list the shipped architectures, workloads, dataflows and networks."""

from __future__ import annotations

import click

from tenet.cli.app import cli, write_output
from tenet.spec import Kind
from tenet.zoo import ZooEntry, entries, network

__all__ = ["zoo_command"]

_KINDS: dict[str, Kind] = {
    "archs": "architecture",
    "workloads": "workload",
    "dataflows": "dataflow",
    "networks": "network",
}


def _arguments(entry: ZooEntry) -> str:
    return ",".join(f"{k}={v}" for k, v in entry.args.items())


def _rows(kind: Kind) -> list[tuple[str, ...]]:
    rows: list[tuple[str, ...]] = []
    for entry in entries(kind):
        name = entry.name if entry.is_template else f"  {entry.name}"
        if kind == "dataflow" and entry.fits is not None:
            fits = f"{','.join(entry.fits.workloads)} on {','.join(entry.fits.architectures)}"
            rows.append((name, _arguments(entry), fits))
        elif kind == "network":
            spec = network(entry.name)
            layers = sum(layer.count for layer in spec.layers)
            rows.append((name, f"{layers} layers", entry.description))
        else:
            rows.append((name, _arguments(entry), entry.description))
    return rows


@cli.command("zoo")
@click.argument("kind", type=click.Choice(list(_KINDS)))
def zoo_command(kind: str) -> None:
    """List the zoo's archs, workloads, dataflows (with the workloads and arrays each is made
    for) or networks. Each file's own name (its template defaults) comes first, its presets
    indented below; give other template arguments as NAME:ARG=VALUE,..."""
    rows = _rows(_KINDS[kind])
    headers = {
        "dataflows": ("name", "template arguments", "made for: workloads on architectures"),
        "networks": ("name", "size", "description"),
    }.get(kind, ("name", "template arguments", "description"))
    table = [headers, *rows]
    widths = [max(len(row[k]) for row in table) for k in range(len(headers) - 1)]
    lines = [
        "  ".join(c.ljust(w) for c, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1]
        for row in table
    ]
    write_output("\n".join(line.rstrip() for line in lines), None)
