"""The root ``tenet`` command group, the shared options' parsing and output helpers, and
``main`` (exit codes: 0 ok, 2 bad input with one line on stderr, 1 unexpected)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TypeVar

import click
from tqdm import tqdm

from tenet.errors import TenetError

__all__ = ["cli", "main", "parse_params", "write_output", "progress"]

Item = TypeVar("Item")


def parse_params(values: Sequence[str]) -> dict[str, int]:
    """Parse repeated ``NAME=INTEGER`` options into a binding of size parameters."""
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


def write_output(text: str, output: str | None) -> None:
    """Print ``text``, or write it to ``output`` through a temporary file (never half-written)."""
    if output is None:
        click.echo(text)
        return
    target = Path(output)
    fd, tmp = tempfile.mkstemp(dir=target.parent or ".", prefix=f".{target.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text + "\n")
    os.replace(tmp, target)


def progress(
    items: Iterable[Item], total: int | None = None, desc: str = "evaluating"
) -> Iterable[Item]:
    """Wrap ``items`` in a progress bar on stderr; off when stderr is not a TTY or CI is set."""
    disable = bool(os.environ.get("CI")) or not sys.stderr.isatty()
    return tqdm(items, total=total, desc=desc, file=sys.stderr, disable=disable)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Exact relation-centric analysis of dataflows on spatial accelerators."""
    ctx.obj = {"debug": debug}


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
