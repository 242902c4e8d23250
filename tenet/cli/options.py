"""The options several commands share, each group given to the command as one typed record:
the problem (``-w/-a/-d/-p``), the output (``--format``, ``-o``), where points are evaluated
(``--engine``, ``--workers``, ``--address``, ``--store``) and the scratchpad's geometry; the
design points of ``table`` and ``plot`` (given to the command as one list), and the check of
an image file option.

A group's options do not reach the command as keyword arguments: while the command line is
parsed, each keeps its value aside (:func:`tenet.cli.app.keep`), and the group's decorator
passes the record built from them as the command's first argument, as ``click.pass_context``
passes the context. Stacked groups give their records innermost first.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Concatenate, ParamSpec, TypeVar

import click

from tenet import designs
from tenet.cli.app import (
    PARAM_HELP,
    choice_option,
    kept,
    kept_option,
    parse_params,
    progress,
    tell,
    write_output,
)
from tenet.cli.checks import writable_path
from tenet.designs import DesignPoint
from tenet.dse import ExecutionOptions, Progress
from tenet.errors import SpecError
from tenet.report import image_format, save_axes
from tenet.spec import ScratchpadSpec

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "P",
    "R",
    "written_file",
    "save_plot",
    "TOPOLOGY_ROWS",
    "Decorator",
    "record_options",
    "ProblemOptions",
    "problem_options",
    "TENET_FILES",
    "TENET_FILES_LONG",
    "YAML_FILES",
    "OutputOptions",
    "format_and_output",
    "kept_output",
    "output_options",
    "engine_options",
    "execution_options",
    "checked_execution",
    "search_execution",
    "ScratchpadOptions",
    "scratchpad_options",
    "image_path",
    "design_inputs",
    "collect_designs",
    "constraints_option",
    "dataflows_option",
    "residency_option",
    "time_budget_option",
    "cpu_budget_option",
    "aligned_option",
    "blocks_option",
]

P = ParamSpec("P")
"""The parameters of a command a decorator wraps."""
R = TypeVar("R")
"""What the command returns."""
Record = TypeVar("Record")
Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]
"""A click option (or argument) decorator."""


def record_options(
    options: Sequence[Decorator], build: Callable[[], Record]
) -> Callable[[Callable[Concatenate[Record, P], R]], Callable[P, R]]:
    """Declare ``options`` (kept with :func:`keep`) and pass the record ``build`` makes of
    them as the command's first argument."""

    def decorate(function: Callable[Concatenate[Record, P], R]) -> Callable[P, R]:
        @functools.wraps(function)
        def command(*args: P.args, **kwargs: P.kwargs) -> R:
            return function(build(), *args, **kwargs)

        declared: Callable[P, R] = command
        for option in reversed(options):
            declared = option(declared)
        return declared

    return decorate


@dataclass(frozen=True)
class ProblemOptions:
    """The problem given on the command line: workload, architecture and dataflow (files or
    zoo names; None where not given or not offered) and the size parameters as given."""

    workload: str | None
    architecture: str | None
    dataflow: str | None
    param: tuple[str, ...]
    """``-p NAME=VALUE`` options, parsed by :meth:`params`."""

    def given(self) -> tuple[str | None, str | None, str | None]:
        """Return workload, architecture and dataflow as given."""
        return self.workload, self.architecture, self.dataflow

    def names(self) -> tuple[str, str, str]:
        """Return workload, architecture and dataflow of a command that requires them (or
        has checked that all are given)."""
        assert self.workload and self.architecture and self.dataflow
        return self.workload, self.architecture, self.dataflow

    def params(self) -> dict[str, int]:
        """Return the size parameters (``-p``), checked."""
        return parse_params(self.param)


TENET_FILES = (
    "Workload: YAML, TENET .s or zoo name.",
    "Architecture: YAML, TENET .p or zoo name.",
    "Dataflow: YAML, TENET .m or zoo name.",
)
"""Help of ``-w/-a/-d`` where TENET's own files are read too."""
TENET_FILES_LONG = (
    "Workload: YAML file, TENET .s file or zoo name.",
    "Architecture: YAML file, TENET .p file or zoo name.",
    "Dataflow: YAML file, TENET .m file or zoo name.",
)
"""The same, in the words of ``tenet eval``."""
YAML_FILES = (
    "Workload: YAML file or zoo name.",
    "Architecture: YAML file or zoo name.",
    "Dataflow: YAML file or zoo name.",
)
"""Help of ``-w/-a/-d`` where only YAML files and zoo names are read."""


def problem_options(
    helps: tuple[str] | tuple[str, str] | tuple[str, str, str], *, required: bool = True
) -> Callable[[Callable[Concatenate[ProblemOptions, P], R]], Callable[P, R]]:
    """``-w``, ``-a``, ``-d`` (as many as ``helps``, which are their help texts) and ``-p``,
    passed as one :class:`ProblemOptions`."""
    names = (("--workload", "-w"), ("--arch", "-a"), ("--dataflow", "-d"))
    options = [
        kept_option(*decls, required=required, help=text)
        for decls, text in zip(names, helps, strict=False)
    ]
    options.append(kept_option("--param", "-p", multiple=True, help=PARAM_HELP))
    return record_options(
        options,
        lambda: ProblemOptions(
            kept("workload"),
            kept("arch") if len(helps) > 1 else None,
            kept("dataflow") if len(helps) > 2 else None,
            kept("param"),
        ),
    )


@dataclass(frozen=True)
class OutputOptions:
    """Where and how a command prints its result."""

    fmt: str
    """Output format: one of the command's ``--format`` choices."""
    path: str | None
    """File to write (``-o``); None: standard output."""

    def write(self, text: str) -> None:
        """Print ``text``, or write it to the file (through a temporary file)."""
        write_output(text, self.path)


def format_and_output(formats: Sequence[str] = ("table", "csv", "json")) -> list[Decorator]:
    """``--format`` (one of ``formats``) and ``--output/-o``, kept for an
    :class:`OutputOptions`."""
    return [
        choice_option("--format", formats, "table", "Output format.", dest="fmt", kept=True),
        written_file("--output", "-o", help="Write to this file.", kept=True),
    ]


def kept_output() -> OutputOptions:
    """Return the :class:`OutputOptions` of the kept ``--format`` and ``--output``."""
    return OutputOptions(kept("fmt"), kept("output"))


def output_options(
    formats: Sequence[str] = ("table", "csv", "json"),
) -> Callable[[Callable[Concatenate[OutputOptions, P], R]], Callable[P, R]]:
    """``--format`` (one of ``formats``) and ``--output/-o``, passed as one
    :class:`OutputOptions`."""
    return record_options(format_and_output(formats), kept_output)


def engine_options(workers: int) -> list[Decorator]:
    """The options saying where points are evaluated and stored: ``--engine``, ``--workers``
    (default ``workers``), ``--address``, ``--store`` (kept for a record)."""
    return [
        choice_option(
            "--engine",
            ["local", "dask"],
            "local",
            "Local process pool, or a Dask cluster (local, or --address).",
            kept=True,
        ),
        kept_option("--workers", type=click.IntRange(min=1), default=workers, show_default=True),
        kept_option("--address", help="Dask scheduler address (with --engine dask)."),
        kept_option("--store", type=click.Path(dir_okay=False), help="SQLite results file."),
    ]


def checked_execution(
    time_budget: float | None = None, cache: str | None = None, cpu_budget: float | None = None
) -> ExecutionOptions:
    """Return the :class:`ExecutionOptions` of the kept engine options (with ``time_budget``,
    ``cache`` and ``cpu_budget``); a bad combination is refused naming the option."""
    try:
        return ExecutionOptions(
            engine=kept("engine"),
            workers=kept("workers"),
            address=kept("address"),
            store=kept("store"),
            time_budget=time_budget,
            cpu_budget=cpu_budget,
            cache=cache,
        )
    except SpecError as exc:
        if exc.source == "address":
            raise click.UsageError("--address needs --engine dask") from exc
        option = f"--{exc.source or ''}".replace("_", "-")
        raise click.BadParameter(exc.reason, param_hint=option) from exc


def search_execution(
    execution: ExecutionOptions,
    time_budget: float | None = None,
    cpu_budget: float | None = None,
    shown: Progress = progress,
) -> ExecutionOptions:
    """Return how a command runs its search: ``execution`` in this process when it asks for
    one local worker (no pool to start), else on its engine; with ``time_budget`` (seconds)
    and ``cpu_budget`` (CPU seconds, workers included; None: no limit), the progress
    ``shown`` (default: :func:`tenet.cli.app.progress`) and the search's news told on stderr
    (:func:`tenet.cli.app.tell`).

    Examples
    --------
    >>> run = search_execution(ExecutionOptions(workers=1), 5.0, 30.0)
    >>> run.engine is None, run.time_budget, run.cpu_budget
    (True, 5.0, 30.0)
    >>> search_execution(ExecutionOptions(workers=2), None).engine
    'local'
    """
    in_process = execution.workers == 1 and execution.engine == "local"
    return replace(
        execution,
        engine=None if in_process else execution.engine,
        time_budget=time_budget,
        cpu_budget=cpu_budget,
        progress=shown,
        tell=tell,
    )


def execution_options(
    workers: int,
) -> Callable[[Callable[Concatenate[ExecutionOptions, P], R]], Callable[P, R]]:
    """The engine options (:func:`engine_options`), passed as one :class:`ExecutionOptions`."""
    return record_options(engine_options(workers), checked_execution)


@dataclass(frozen=True)
class ScratchpadOptions:
    """The scratchpad's geometry given on the command line (None: the architecture's)."""

    banks: int | None
    bank_width: int | None
    transaction_width: int | None

    def apply(self, base: ScratchpadSpec | None) -> ScratchpadSpec:
        """Return ``base`` (else the defaults) with the given values in place of its own."""
        given = {
            "banks": self.banks,
            "bank_width": self.bank_width,
            "transaction_width": self.transaction_width,
        }
        scratchpad = base or ScratchpadSpec()
        return scratchpad.model_copy(update={k: v for k, v in given.items() if v is not None})


def scratchpad_options() -> Callable[
    [Callable[Concatenate[ScratchpadOptions, P], R]], Callable[P, R]
]:
    """``--banks``, ``--bank-width``, ``--transaction-width``, passed as one
    :class:`ScratchpadOptions`."""
    helps = {
        "--banks": "Banks (overrides the architecture).",
        "--bank-width": "Words per bank row.",
        "--transaction-width": "Words per transaction.",
    }
    options = [
        kept_option(name, type=click.IntRange(min=1), help=text) for name, text in helps.items()
    ]
    return record_options(
        options,
        lambda: ScratchpadOptions(kept("banks"), kept("bank_width"), kept("transaction_width")),
    )


def image_path(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Click callback: check an image file option (suffix, and that it can be written) while
    the command line is parsed."""
    if value is not None:
        option = max(getattr(param, "opts", None) or ["--output"], key=len)
        if image_format(value) is None:
            raise click.BadParameter(
                f"expected a .png, .svg or .pdf file, got {value!r}", param_hint=option
            )
        writable_path(ctx, param, value)
    return value


def written_file(
    *names: str, help: str, image: bool = False, required: bool = False, kept: bool = False
) -> Callable[[Any], Any]:
    """An option naming a file the command writes, checked writable (with ``image``: a .png,
    .svg or .pdf file) while the command line is parsed; ``kept`` for a record's option
    (:func:`tenet.cli.app.kept_option`)."""
    make: Callable[..., Callable[[Any], Any]] = kept_option if kept else click.option
    return make(
        *names,
        type=click.Path(dir_okay=False),
        callback=image_path if image else writable_path,
        required=required,
        help=help,
    )


TOPOLOGY_ROWS = click.option(
    "--input-type",
    "-i",
    "kind",
    type=click.Choice(["gemm", "conv"]),
    default="conv",
    show_default=True,
    help="SCALE-Sim topology rows: GEMMs (name, M, N, K) or convolutions, as SCALE-Sim's -i.",
)
"""The kind of a SCALE-Sim topology's rows (its ``-i``), of the commands that read one."""


def constraints_option(help: str, *names: str, kept: bool = False) -> Decorator:
    """The ``--constraints FILE`` option of a search: a mapping constraints YAML
    (:func:`tenet.spec.load_constraints`); ``names`` add the parameter's name, ``kept`` for
    a record's option (:func:`tenet.cli.app.kept_option`)."""
    make: Callable[..., Decorator] = kept_option if kept else click.option
    return make("--constraints", *names, type=click.Path(dir_okay=False), help=help)


def dataflows_option(help: str, *, required: bool = False) -> Decorator:
    """The repeatable ``--dataflow/-d`` option of a command that gives each layer of a
    network its dataflow (the command's ``dataflows``: zoo names or files)."""
    return click.option(
        "--dataflow", "-d", "dataflows", multiple=True, required=required, help=help
    )


def residency_option() -> Decorator:
    """The ``--residency/--no-residency`` option of a network's command (default on): a
    layer's output that the next layer reads stays on chip when both leave room for it."""
    return click.option(
        "--residency/--no-residency",
        default=True,
        show_default=True,
        help="Keep a layer's output in the buffer below DRAM for the next layer that reads it "
        "(its input's `from`) when both layers leave room for it (docs/fusion.md).",
    )


def time_budget_option(help: str, *, kept: bool = False) -> Decorator:
    """The ``--time-budget SECONDS`` option of a search (not negative; 0: no part of the
    search starts after its first answer); ``kept`` for a record's option."""
    make: Callable[..., Decorator] = kept_option if kept else click.option
    return make("--time-budget", type=click.FloatRange(min=0), help=help)


def cpu_budget_option(what: str, *, kept: bool = False) -> Decorator:
    """The ``--cpu-budget SECONDS`` option of a search: CPU seconds, this process's and its
    workers', and ``what`` they do (as ``--time-budget`` says of seconds of the clock; not
    negative; with both, the first to run out stops the search); ``kept`` for a record's
    option."""
    make: Callable[..., Decorator] = kept_option if kept else click.option
    return make(
        "--cpu-budget",
        type=click.FloatRange(min=0),
        help=f"CPU seconds, this process's and its workers' together, {what}; with "
        "--time-budget, the first to run out stops the search.",
    )


def blocks_option(*, kept: bool = False) -> Decorator:
    """The ``--blocks B,...`` option of a design-space search: block sizes of blocked spatial
    digits (:attr:`tenet.dse.SpaceOptions.blocks`); ``kept`` for a record's option."""
    make: Callable[..., Decorator] = kept_option if kept else click.option
    return make(
        "--blocks",
        default="",
        help="Block sizes B of blocked spatial digits, e.g. 2,4: a PE axis may take "
        "floor(x/B) % P of a loop x (each PE B consecutive values, x % B in time) when B "
        "divides the loop and P the number of blocks.",
    )


def aligned_option(help: str) -> Decorator:
    """The ``--aligned N`` option of a tiling search: tile sizes that are multiples of N
    join the nested divisors, dividing their loop or not (the last tile partial;
    :class:`tenet.dse.TilingSpace`)."""
    return click.option("--aligned", type=click.IntRange(min=1), help=help)


def design_inputs(command: Callable[..., None]) -> Callable[..., None]:
    """Add the options that name design points (shared by ``table`` and ``plot``); the command
    gets the labelled points as one list (``points=``, :func:`collect_designs`) and its own
    options as they are."""

    @functools.wraps(command)
    def with_points(
        *,
        experiments: tuple[str, ...],
        designs_file: str | None,
        workload: tuple[str, ...],
        arch: tuple[str, ...],
        dataflow: tuple[str, ...],
        param: tuple[str, ...],
        **own: object,
    ) -> None:
        points = collect_designs(experiments, designs_file, workload, arch, dataflow, param)
        command(points=points, **own)

    options = [
        click.argument("experiments", nargs=-1, type=click.Path(dir_okay=False)),
        click.option(
            "--designs",
            "designs_file",
            type=click.Path(dir_okay=False),
            help="YAML file listing design points (see docs/reports.md).",
        ),
        click.option(
            "--workload", "-w", multiple=True, help="Workload: file or zoo name (repeatable)."
        ),
        click.option(
            "--arch", "-a", multiple=True, help="Architecture: file or zoo name (repeatable)."
        ),
        click.option(
            "--dataflow", "-d", multiple=True, help="Dataflow: file or zoo name (repeatable)."
        ),
        click.option(
            "--param", "-p", multiple=True, help="Size parameter NAME=VALUE for every point."
        ),
    ]
    decorated: Callable[..., None] = with_points
    for option in reversed(options):
        decorated = option(decorated)
    return decorated


def collect_designs(
    experiments: Sequence[str],
    designs_file: str | None,
    workload: Sequence[str],
    arch: Sequence[str],
    dataflow: Sequence[str],
    param: Sequence[str],
) -> list[DesignPoint]:
    """Return the labelled design points named on the command line, in the order: designs
    file, experiments, then the -w/-a/-d points (each option given once applies to all)."""
    params = parse_params(param)
    points = [
        replace(p, specs=p.specs.with_params(params))
        for p in (designs.load_designs(designs_file) if designs_file else [])
    ]
    points += [designs.experiment_point(e, params) for e in experiments]
    given = {"--workload": workload, "--arch": arch, "--dataflow": dataflow}
    if any(given.values()):
        missing = [name for name, values in given.items() if not values]
        if missing:
            raise click.UsageError(f"give {', '.join(missing)} too (or none of -w/-a/-d)")
        n = max(len(v) for v in given.values())
        uneven = [name for name, values in given.items() if len(values) not in (1, n)]
        if uneven:
            raise click.UsageError(
                f"{', '.join(uneven)} given neither once nor {n} times: "
                "-w/-a/-d pair up in order, and one given once applies to every point"
            )
        columns = [list(v) * n if len(v) == 1 else list(v) for v in given.values()]
        points += [designs.design_point(w, a, d, params) for w, a, d in zip(*columns, strict=True)]
    if not points:
        raise click.UsageError("give experiment files, --designs FILE, or -w/-a/-d")
    return designs.label_designs(points)


def save_plot(ax: Axes, path: str, option: str) -> None:
    """Save the figure ``ax`` is drawn on to ``path`` (format from its suffix) and say so on
    stderr."""
    save_axes(ax, path, option)
    click.echo(f"wrote {path}", err=True)
