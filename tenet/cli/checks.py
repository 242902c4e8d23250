"""Checks made before a command starts working (output paths, options that another option
leaves without effect, and the options a search uses only once it is done), and the one-line
message for each error that reaches ``main`` from the system rather than from tenet's own
checks."""

from __future__ import annotations

import functools
import os
import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click
from click.core import ParameterSource

from tenet.errors import SpecError

if TYPE_CHECKING:
    from tenet.dse import Constraint, ExecutionOptions

__all__ = [
    "KEPT",
    "REFUSALS",
    "Refusal",
    "refuses",
    "check_before_work",
    "check_folder",
    "check_writable",
    "describe_error",
    "writable_folder",
    "writable_path",
]


def check_writable(path: str | None, option: str) -> None:
    """Refuse, naming ``option``, an output ``path`` that cannot be written: a directory, a
    file in a folder that does not exist, or where no file can be created.

    Examples
    --------
    >>> check_writable("nodir/out.txt", "--output")
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --output: cannot write 'nodir/out.txt': no folder 'nodir'
    """
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise SpecError(f"cannot write {path!r}: it is a directory", source=option)
    folder = target.parent
    if not folder.exists():
        raise SpecError(f"cannot write {path!r}: no folder '{folder}'", source=option)
    if not folder.is_dir():
        raise SpecError(f"cannot write {path!r}: '{folder}' is not a folder", source=option)
    if target.exists() and not os.access(target, os.W_OK):
        raise SpecError(f"cannot write {path!r}: permission denied", source=option)
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=f".{target.name}.", suffix=".tmp"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SpecError(f"cannot write {path!r}: {reason}", source=option) from exc


def check_folder(path: str | None, option: str) -> None:
    """Refuse, naming ``option``, an output folder ``path`` that cannot be made or written
    into: a file, or below a folder where nothing can be created.

    Examples
    --------
    >>> check_folder("/proc/specs", "--output")
    Traceback (most recent call last):
    ...
    tenet.errors.SpecError: --output: cannot write into '/proc/specs': No such file or directory
    """
    if path is None:
        return
    folder = Path(path)
    if folder.exists() and not folder.is_dir():
        raise SpecError(f"cannot write into {path!r}: it is a file, not a folder", source=option)
    existing = next(p for p in (folder, *folder.parents) if p.exists())
    if not existing.is_dir():
        raise SpecError(f"cannot write into {path!r}: '{existing}' is a file", source=option)
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".tenet.", suffix=".tmp"):
            pass
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise SpecError(f"cannot write into {path!r}: {reason}", source=option) from exc


def writable_folder(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: check an output folder option with :func:`check_folder` while the
    command line is parsed, before any work starts."""
    check_folder(value, _option_name(param))
    return value


def describe_error(exc: BaseException) -> str | None:
    """Return the one-line message of an error from the system (file, database, network,
    memory, number range), or None for an error that is a bug."""
    if isinstance(exc, sqlite3.Error):
        return f"results store: {exc}"
    if isinstance(exc, OSError):
        reason = exc.strerror or str(exc) or type(exc).__name__
        name = exc.filename
        return f"{name}: {reason}" if name else reason
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text ({exc.reason} at byte {exc.start}): a binary file?"
    if isinstance(exc, MemoryError):
        return "out of memory: give smaller sizes"
    if isinstance(exc, OverflowError):
        return f"number too large ({exc})"
    return None


def writable_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: check an output path option with :func:`check_writable` while the
    command line is parsed, before any work starts."""
    check_writable(value, _option_name(param))
    return value


def _option_name(param: click.Parameter) -> str:
    opts = getattr(param, "opts", None) or [param.name or "?"]
    return str(max(opts, key=len))


def check_before_work(
    constraint: Sequence[str],
    execution: ExecutionOptions,
    pareto: str | None,
    plot: str | None,
    output: str | None,
) -> list[Constraint]:
    """Check the options that are only used after the search, so that none of them fails it
    at the end; return the parsed constraints."""
    from tenet.dse import ALIASES, ROW_COLUMNS, ResultStore, objective, parse_constraint

    store = execution.store if isinstance(execution.store, str) else None
    if pareto is not None:
        x, _, y = pareto.partition(",")
        for name in (x.strip(), y.strip() or "energy"):
            try:
                objective(name)
            except SpecError as exc:
                raise SpecError(str(exc), source="--pareto") from exc
    check_writable(store, "--store")
    if store is not None and Path(store).exists():
        ResultStore(store).close()
    check_writable(output, "--output")
    constraints = []
    columns = {"workload", "architecture", "index", *ROW_COLUMNS, *ALIASES.values()}
    for text in constraint:
        parsed = parse_constraint(text)
        for named in (parsed.column, parsed.bound):
            if isinstance(named, str) and named not in columns:
                raise SpecError(
                    f"constraint {text!r} names {named!r}, which is not a figure of a design "
                    f"point (short names: {', '.join(ALIASES)})",
                    source="--constraint",
                )
        constraints.append(parsed)
    return constraints


@dataclass(frozen=True)
class Refusal:
    """An ``option`` that ``other`` leaves without effect: given together (``values``: when
    ``other`` takes one of them) the command refuses them in one line before it starts; with
    ``missing``, ``option`` needs ``other`` (with one of ``values``) instead."""

    option: str
    """The option refused, by its long name (or an argument's name)."""
    other: str
    """The option (or argument) that makes it meaningless, or that it needs."""
    why: str
    """What happens to ``option`` there, in a few words."""
    values: tuple[str, ...] = ()
    missing: bool = False

    def condition(self) -> str:
        """Return when the option is refused: ``with --strategy joint``, ``without --plot``."""
        other = self.other if not self.values else f"{self.other} {'/'.join(self.values)}"
        return f"{'without' if self.missing else 'with'} {other}"

    def message(self) -> str:
        """Return the line the command prints when it refuses the option."""
        return f"{self.option} {self.condition()}: {self.why}"


KEPT = "tenet.cli.options."
"""The prefix of the keys under which options kept for a record keep their values in the
context's ``meta`` (:func:`tenet.cli.app.keep`)."""

REFUSALS: dict[str, tuple[Refusal, ...]] = {}
"""The refusals of each command, by its name (``tenet tile`` -> ``tile``)."""


def refuses(*rules: Refusal) -> Callable[[click.Command], click.Command]:
    """Make a command refuse each of ``rules`` (:class:`Refusal`) before it starts, with exit
    status 2 and one line, and list them at the end of its help."""

    def attach(command: click.Command) -> click.Command:
        callback = command.callback
        assert callback is not None and command.name is not None

        @functools.wraps(callback)
        def checked(*args: Any, **kwargs: Any) -> Any:
            check_refusals(click.get_current_context(), rules)
            return callback(*args, **kwargs)

        command.callback = checked
        listing = "\n".join(f"  {r.option} {r.condition()}: {r.why}" for r in rules)
        command.epilog = f"\b\nRefused, each where it would have no effect:\n{listing}"
        REFUSALS[command.name] = rules
        return command

    return attach


def _parameter(ctx: click.Context, name: str) -> click.Parameter:
    """The parameter of the running command called ``name`` (an option's name or an
    argument's)."""
    for param in ctx.command.params:
        if name in getattr(param, "opts", []) or name.lower() == param.name:
            return param
    raise KeyError(name)


def _given(ctx: click.Context, param: click.Parameter) -> bool:
    """Whether the command line (or the environment) gives ``param``."""
    source = ctx.get_parameter_source(param.name or "")
    given = source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
    return given and _value(ctx, param) not in (None, ())


def _value(ctx: click.Context, param: click.Parameter) -> object:
    """The value of ``param``, given to the command or kept for a record."""
    name = param.name or ""
    return ctx.params[name] if name in ctx.params else ctx.meta.get(KEPT + name)


def check_refusals(ctx: click.Context, rules: Sequence[Refusal]) -> None:
    """Refuse the first of ``rules`` that the running command's options break."""
    for rule in rules:
        if not _given(ctx, _parameter(ctx, rule.option)):
            continue
        other = _parameter(ctx, rule.other)
        holds = str(_value(ctx, other)) in rule.values if rule.values else _given(ctx, other)
        if holds != rule.missing:
            raise click.UsageError(rule.message(), ctx)
