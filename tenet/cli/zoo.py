"""``tenet zoo``: list the shipped architectures, workloads and dataflows."""

from __future__ import annotations

import click

from tenet.cli.app import cli
from tenet.zoo import zoo_names

__all__ = ["zoo_command"]


@cli.command("zoo")
@click.argument("kind", type=click.Choice(["archs", "workloads", "dataflows"]))
def zoo_command(kind: str) -> None:
    """List the shipped architectures, workloads or dataflows."""
    names = {"archs": "architecture", "workloads": "workload", "dataflows": "dataflow"}
    for name in zoo_names(names[kind]):  # type: ignore[arg-type]
        click.echo(name)
