"""``tenet schema KIND``: the JSON Schema of a kind of spec file, for an editor's completion
and checks."""

from __future__ import annotations

import json
from typing import cast

import click

from tenet.cli.app import cli, write_output
from tenet.cli.checks import writable_path
from tenet.spec import SCHEMA_KINDS, SchemaKind, spec_schema

__all__ = ["schema_command"]


@cli.command("schema")
@click.argument("kind", type=click.Choice(SCHEMA_KINDS))
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    callback=writable_path,
    help="Write to this file.",
)
def schema_command(kind: str, output: str | None) -> None:
    """Print the JSON Schema of a KIND spec file (workload, architecture, dataflow, network,
    layout, constraints, chain, fused): its keys, their types, defaults and meanings, and the
    template header.

    An editor checks and completes a spec file with it: a YAML language server reads the
    file named on a ``# yaml-language-server: $schema=FILE`` line."""
    schema = spec_schema(cast(SchemaKind, kind))  # one of the choices
    write_output(json.dumps(schema, indent=2), output)
