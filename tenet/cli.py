"""The ``tenet`` command line: thin commands over the public API.

Exit codes: 0 success, 2 bad input (one line on stderr naming the file, field and reason),
1 unexpected error.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
from tqdm import tqdm

from tenet.api import analyze
from tenet.errors import TenetError
from tenet.metrics.evaluate import Metrics
from tenet.zoo import zoo_names

__all__ = ["main", "cli"]


def _params(values: Sequence[str]) -> dict[str, int]:
    params = {}
    for value in values:
        name, sep, number = value.partition("=")
        try:
            params[name.strip()] = int(number)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise click.BadParameter(f"expected NAME=INTEGER, got {value!r}", param_hint="--param")
    return params


def _write(text: str, output: str | None) -> None:
    if output is None:
        click.echo(text)
        return
    target = Path(output)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, target)


def _render_table(metrics: Metrics, csv: bool) -> str:
    table = metrics.table()
    if csv:
        return table.to_csv().rstrip("\n")
    table = table[[c for c in table.columns if not c.startswith("accesses_")]]
    table.columns = [c.removeprefix("volume_") for c in table.columns]
    summary = {k: v for k, v in metrics.to_dict().items() if k not in ("tensors", "tenet_compat")}
    lines = [f"{metrics.name}", table.to_string(), ""]
    lines += [f"{key:24} {value}" for key, value in summary.items() if key != "name"]
    return "\n".join(lines)


def _progress(items: Sequence[Any]) -> Any:
    disable = bool(os.environ.get("CI")) or not sys.stderr.isatty() or len(items) < 2
    return tqdm(items, desc="evaluating", file=sys.stderr, disable=disable)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Exact relation-centric analysis of dataflows on spatial accelerators."""
    ctx.obj = {"debug": debug}


@cli.command("eval")
@click.argument("experiments", nargs=-1, type=click.Path())
@click.option("--workload", "-w", help="Workload: YAML file, TENET .s file or zoo name.")
@click.option("--arch", "-a", help="Architecture: YAML file, TENET .p file or zoo name.")
@click.option("--dataflow", "-d", help="Dataflow: YAML file, TENET .m file or zoo name.")
@click.option("--param", "-p", multiple=True, help="Size parameter NAME=VALUE (repeatable).")
@click.option("--tensor", "-t", multiple=True, help="Analyse only this tensor (repeatable).")
@click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
              show_default=True, help="Output format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file.")
def eval_command(
    experiments: tuple[str, ...], workload: str | None, arch: str | None,
    dataflow: str | None, param: tuple[str, ...], tensor: tuple[str, ...], fmt: str,
    output: str | None,
) -> None:
    """Evaluate TENET EXPERIMENTS files, or one --workload/--arch/--dataflow triple."""
    params = _params(param)
    tensors = list(tensor) or None
    triple = (workload, arch, dataflow)
    if experiments and any(triple):
        raise click.UsageError("give experiment files or --workload/--arch/--dataflow, not both")
    if not experiments and not all(triple):
        raise click.UsageError("give experiment files, or all of --workload, --arch, --dataflow")
    if experiments:
        results = [analyze(experiment=e, params=params, tensors=tensors)
                   for e in _progress(experiments)]
    else:
        results = [analyze(workload, arch, dataflow, params=params, tensors=tensors)]
    if fmt == "json":
        payload: Any = [m.to_dict() for m in results]
        _write(json.dumps(payload if experiments and len(experiments) > 1 else payload[0],
                          indent=2), output)
    else:
        _write("\n\n".join(_render_table(m, fmt == "csv") for m in results), output)


@cli.command("zoo")
@click.argument("kind", type=click.Choice(["archs", "workloads", "dataflows"]))
def zoo_command(kind: str) -> None:
    """List the shipped architectures, workloads or dataflows."""
    names = {"archs": "architecture", "workloads": "workload", "dataflows": "dataflow"}
    for name in zoo_names(names[kind]):  # type: ignore[arg-type]
        click.echo(name)


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line; bad input exits with status 2 and one line on stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    try:
        cli.main(args=args, prog_name="tenet", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        sys.exit(2)
    except click.Abort:
        sys.exit(1)
    except TenetError as exc:
        if debug:
            raise
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)
    sys.exit(0)
