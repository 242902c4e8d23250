"""The root ``tenet`` command group, the shared options' parsing and output helpers, and
``main`` (exit codes: 0 ok, 2 bad input with one line on stderr, 130 interrupted, 1
unexpected)."""

from __future__ import annotations

import functools
import importlib
import signal
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar, cast

import click

from tenet.cli.checks import KEPT, check_writable, describe_error, writable_path
from tenet.errors import TenetError
from tenet.files import write_atomically
from tenet.vocab import NEIGHBOURHOODS, Neighbourhood

__all__ = [
    "cli",
    "main",
    "parse_params",
    "write_output",
    "progress",
    "tell",
    "QUIET_SECONDS",
    "HEARTBEAT_SECONDS",
    "working",
    "INTERRUPTED",
    "param_option",
    "PARAM_HELP",
    "output_option",
    "format_option",
    "neighbourhood_option",
    "choice_option",
    "keep",
    "keep_after",
    "kept_option",
    "kept",
]

Item = TypeVar("Item")
Command = TypeVar("Command", bound=Callable[..., object])


PARAM_HELP = "Size parameter NAME=VALUE (repeatable)."
param_option = click.option("--param", "-p", multiple=True, help=PARAM_HELP)
format_option = click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
    help="Output format.",
)
output_option = click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False),
    callback=writable_path,
    help="Write to this file.",
)


def keep(ctx: click.Context, param: click.Parameter, value: object) -> object:
    """Click callback of an option whose value goes into a record rather than to the command
    (declared with ``expose_value=False``): keep ``value`` aside for :func:`kept`."""
    ctx.meta[KEPT + str(param.name)] = value
    return value


def keep_after(
    check: Callable[[click.Context, click.Parameter, Any], object],
) -> Callable[[click.Context, click.Parameter, Any], object]:
    """Click callback: ``check`` the value (another callback), then :func:`keep` what it
    returns."""
    return lambda ctx, param, value: keep(ctx, param, check(ctx, param, value))


def kept(name: str) -> Any:
    """Return the value kept by :func:`keep` for the option ``name`` of the running command
    (of the type its declaration gives it)."""
    return click.get_current_context().meta[KEPT + name]


def kept_option(
    *decls: str,
    required: bool = False,
    type: click.ParamType[Any] | type[object] | None = None,
    default: object = None,
    show_default: bool = False,
    multiple: bool = False,
    is_flag: bool = False,
    metavar: str | None = None,
    help: str | None = None,
    callback: Callable[[click.Context, click.Parameter, Any], object] | None = None,
) -> Callable[[Command], Command]:
    """An option whose value goes into a record (:func:`keep`, after ``callback``); without
    a ``default``, a flag is False and another option None (or missing, if ``required``)."""
    option = functools.partial(
        click.option,
        *decls,
        type=type,
        required=required,
        multiple=multiple,
        expose_value=False,
        callback=keep if callback is None else keep_after(callback),
        is_flag=True if is_flag else None,  # False would make click read "-1" as an option
        show_default=show_default,
        metavar=metavar,
        help=help,
    )
    return option() if default is None else option(default=default)


def choice_option(
    name: str,
    choices: Sequence[str],
    default: str,
    help: str,
    *,
    dest: str | None = None,
    kept: bool = False,
) -> Callable[[Command], Command]:
    """An option taking one of ``choices`` (``default`` shown in the help); ``kept``: its
    value goes into a record (:func:`keep`)."""
    return click.option(
        name,
        *([dest] if dest else []),
        type=click.Choice(list(choices)),
        default=default,
        show_default=True,
        help=help,
        expose_value=not kept,
        callback=keep if kept else None,
    )


def neighbourhood_option(
    default: Neighbourhood, kept: bool = False
) -> Callable[[Command], Command]:
    """The ``--neighbourhood`` option (where a PE finds data without fetching it)."""
    return choice_option(
        "--neighbourhood",
        NEIGHBOURHOODS,
        default,
        "Where a PE finds data without fetching it: 'window' (the original's: itself or "
        "a linked PE, same or previous step) or 'links' (previous step, or a link at its "
        "delay).",
        kept=kept,
    )


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
    from tenet.spec import check_sizes  # (the specs' models: imported by commands only)

    check_sizes(params)
    return params


def write_output(text: str, output: str | None) -> None:
    """Print ``text``, or write it to ``output`` through a temporary file (never half-written)
    and say so on stderr."""
    if output is None:
        click.echo(text)
        return
    check_writable(output, "--output")
    write_atomically(output, lambda tmp: tmp.write_text(text + "\n"))
    click.echo(f"wrote {output}", err=True)


QUIET_SECONDS = 2.0
"""Without a terminal, progress lines start once the command has run this long (seconds), so
that quick commands print only their result (and errors their one line)."""


def _started(default: float) -> float:
    """When the running ``tenet`` command started (``default`` outside a command)."""
    ctx = click.get_current_context(silent=True)
    root = ctx.find_root() if ctx is not None else None
    if root is not None and isinstance(root.obj, dict):
        return float(root.obj.get("started", default))
    return default


def progress(
    items: Iterable[Item], total: int | None = None, desc: str = "evaluating", each: bool = True
) -> Iterable[Item]:
    """Report progress over ``items`` on stderr: a bar on a terminal; otherwise (a log, a pipe)
    a line per finished item (``each``), or one line when all are done, once the command has
    run for :data:`QUIET_SECONDS`."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        return cast("Iterable[Item]", tqdm(items, total=total, desc=desc, file=sys.stderr))
    return _progress_lines(items, total, desc, each)


def tell(line: str) -> None:
    """Print one line of news of a running search on stderr (above a progress bar on a
    terminal)."""
    if sys.stderr.isatty():
        from tqdm import tqdm

        tqdm.write(line, file=sys.stderr)
    else:
        click.echo(line, err=True)


HEARTBEAT_SECONDS = 9.5
"""Without a terminal, the longest time without a progress line (seconds; a line comes within
10 s, the thread looking every quarter of a second)."""


def _status(desc: str, done: int, total: int | None, elapsed: float) -> str:
    """``desc: done/total done (elapsed, about the time left)``, times in seconds."""
    count = f"{done}/{total}" if total is not None else str(done)
    left = ""
    if total is not None and 0 < done < total:
        left = f", about {elapsed / done * (total - done):.0f} s left"
    return f"{desc}: {count} done ({elapsed:.1f} s{left})"


class _Heartbeat:
    """A thread calling ``show()`` whenever :data:`HEARTBEAT_SECONDS` pass without a progress
    line, once the command has run for :data:`QUIET_SECONDS`."""

    def __init__(self, show: Callable[[], object], every: float | None = None) -> None:
        self.show = show
        self.every = HEARTBEAT_SECONDS if every is None else every
        self.started = _started(time.monotonic())
        self.last = time.monotonic()
        self.stop = threading.Event()
        threading.Thread(target=self._beat, name="progress", daemon=True).start()

    def _beat(self) -> None:
        while not self.stop.wait(min(0.25, self.every)):
            now = time.monotonic()
            if now - self.last >= self.every and now - self.started >= QUIET_SECONDS:
                self.beat()

    def beat(self) -> None:
        """Show the progress now (and count the time to the next from here)."""
        self.last = time.monotonic()
        self.show()

    def close(self) -> None:
        """Stop the thread."""
        self.stop.set()


def _progress_lines(
    items: Iterable[Item], total: int | None, desc: str, each: bool
) -> Iterator[Item]:
    start = time.monotonic()
    started = _started(start)
    done = 0
    beat = _Heartbeat(
        lambda: click.echo(_status(desc, done, total, time.monotonic() - start), err=True)
    )

    def line() -> None:
        if time.monotonic() - started >= QUIET_SECONDS:
            beat.beat()

    try:
        for item in items:
            yield item
            done += 1
            if each:
                line()
        if not each:
            line()
    finally:
        beat.close()


class working:  # noqa: N801  (a statement: ``with working("counting"): ...``)
    """Show that a step without parts to count is running: on a terminal, a line with the
    time spent, redrawn every second; otherwise a line every :data:`HEARTBEAT_SECONDS`
    (after :data:`QUIET_SECONDS`) with the time spent so far."""

    def __init__(self, desc: str) -> None:
        self.desc = desc
        self.start = time.monotonic()
        self.bar: Any = None
        self.beat: _Heartbeat | None = None

    def _line(self) -> None:
        click.echo(f"{self.desc}: running ({time.monotonic() - self.start:.0f} s)", err=True)

    def __enter__(self) -> working:
        if sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(desc=self.desc, file=sys.stderr, bar_format="{desc}: {elapsed}")
            self.beat = _Heartbeat(self.bar.refresh, every=1.0)
        else:
            self.beat = _Heartbeat(self._line)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.beat is not None:
            self.beat.close()
        if self.bar is not None:
            self.bar.close()


COMMANDS: dict[str, tuple[str, str]] = {
    "check": (
        "evaluate",
        "Check that a dataflow is a legal schedule; name a witness for each violation.",
    ),
    "compare": (
        "maestro",
        "Compare exact counts with MAESTRO-style estimates, quantity by quantity; with --with, "
        "tenet's per-level fills and writebacks with AccelForge's or ZigZag's, or each layer's "
        "cycles, SRAM and DRAM traffic with SCALE-Sim's.",
    ),
    "deps": (
        "schedule",
        "Print the dependence polyhedra of a workload and, where uniform, their distances.",
    ),
    "dse": (
        "dse",
        "Search the affine space-time mappings of a workload on an array; print the best (and, "
        "with --tile, the best tiling of each).",
    ),
    "eval": (
        "evaluate",
        "Evaluate TENET EXPERIMENTS files, or one --workload/--arch/--dataflow triple.",
    ),
    "eval-network": (
        "network",
        "Evaluate every layer of NETWORK (zoo name, YAML or ONNX file) and print a per-layer "
        "table with the totals (layers weighted by their count).",
    ),
    "export": (
        "peers",
        "Write a tenet problem in a peer's format, when a per-level loop nest expresses its "
        "dataflow (skewed or modulo placements are refused, with the reason).",
    ),
    "import": (
        "peers",
        "Read a peer's specs (AccelForge, ZigZag, SCALE-Sim) into tenet specs: "
        "DIR/workload.yaml, DIR/architecture.yaml and DIR/dataflow.yaml (SCALE-Sim: one such "
        "folder per layer), which ``tenet eval`` reads; or a chain of an ONNX model's nodes: "
        "DIR/chain.yaml.",
    ),
    "layout": (
        "layout",
        "Count where each tensor element lives in a banked scratchpad and what its fetches "
        "cost: transactions, bank conflicts, line misses, use distance and the layout-aware "
        "ingress latency; with --search, find layouts that lower that latency.",
    ),
    "layout-rank": (
        "layout",
        "Explore the design space of --workload on --arch, keep the --top points by "
        "--objective, and rank them by the layout-aware ingress latency.",
    ),
    "maestro": (
        "maestro",
        "Estimate every layer of a MAESTRO MAPPING file with MAESTRO's data-centric model.",
    ),
    "map": (
        "mapper",
        "Search the best mapping of a layer (-w, -p) or of every layer entry of a network (-n) "
        "on an architecture with memory levels: every array mapping, the tensors each level "
        "keeps, the tile sizes and the loop orders together, by branch and bound (docs/dse.md); "
        "print each entry's figures, the bound below which no mapping goes and what the gap "
        "means, and a network's total (entries weighted by their count).",
    ),
    "plot": ("plot", "Draw KIND for design points into an image file."),
    "report": (
        "report",
        "Write one self-contained HTML page on the searches stored in STORE (the --store file "
        "of tenet dse or tenet sweep): inputs, sortable tables, plots and dataflows.",
    ),
    "schedule": (
        "schedule",
        "Find a Pluto-style schedule of a workload: its dependences, each hyperplane's (u, w, "
        "c), the permutable bands, the schedule as an isl map, the time hyperplanes and, with "
        "--arch, the space-time mappings made from them (sizes from -p over the defaults).",
    ),
    "schema": (
        "schema",
        "Print the JSON Schema of a KIND spec file (workload, architecture, dataflow, network, "
        "layout, constraints, chain, fused): its keys, their types, defaults and meanings, and "
        "the template header.",
    ),
    "sweep": (
        "dse",
        "Search every workload (or network layer) on every array; print the best of each.",
    ),
    "table": (
        "table",
        "Tabulate several design points side by side (the paper's table layout).",
    ),
    "tile": (
        "tile",
        "Search tile sizes (nested divisors) and loop orders per memory level, under the "
        "capacities, for the least latency, energy or EDP; print the best tiling, its tile "
        "stamps and its exact figures per level and tensor (docs/memory.md).",
    ),
    "zoo": (
        "zoo",
        "List the zoo's archs, workloads, dataflows (with the workloads and arrays each is made "
        "for) or networks.",
    ),
}
"""Each command: the module of ``tenet.cli`` that declares it, and its help's first sentence
(what ``tenet --help`` lists without importing the module)."""


class LazyGroup(click.Group):
    """The root group: each command's module is imported when the command runs (or shows its
    help), so that ``tenet --help`` and every command start without the others' imports."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in COMMANDS and cmd_name not in self.commands:
            importlib.import_module(f"tenet.cli.{COMMANDS[cmd_name][0]}")
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        width = formatter.width - 6 - max(map(len, COMMANDS))
        rows = [(name, _shortened(text, width)) for name, (_, text) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(sorted(rows))


def _shortened(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters at a word, ending with ``...``, as click cuts a
    command's help in a listing."""
    if len(text) <= width:
        return text
    import textwrap

    return textwrap.shorten(text, max(width, 3), placeholder="...", break_on_hyphens=False)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--debug", is_flag=True, help="Show tracebacks on errors.")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """Exact relation-centric analysis of dataflows on spatial accelerators."""
    ctx.obj = {"debug": debug, "started": time.monotonic()}


def main(argv: Sequence[str] | None = None) -> None:
    """Run the command line; bad input exits with status 2 and one line on stderr."""
    args = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in args
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _terminated) if in_main_thread else None
    try:
        _run(args, debug)
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _run(args: list[str], debug: bool) -> None:
    try:
        cli.main(args=args, prog_name="tenet", standalone_mode=False)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.ClickException as exc:
        hint = ""
        if isinstance(exc, click.UsageError) and exc.ctx is not None:
            hint = f" (see '{exc.ctx.command_path} --help')"
        click.echo(f"error: {exc.format_message()}{hint}", err=True)
        sys.exit(2)
    except click.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):
            click.echo(f"interrupted: {_resume_hint(args, exc.__cause__)}", err=True)
            sys.exit(INTERRUPTED)
        sys.exit(1)
    except KeyboardInterrupt as exc:
        click.echo(f"interrupted: {_resume_hint(args, exc)}", err=True)
        sys.exit(INTERRUPTED)
    except TenetError as exc:
        if debug:
            raise
        click.echo(f"error: {_one_line(str(exc))}", err=True)
        sys.exit(2)
    except (OSError, UnicodeDecodeError, sqlite3.Error, MemoryError, OverflowError) as exc:
        message = describe_error(exc)
        if debug or message is None:
            raise
        click.echo(f"error: {_one_line(message)}", err=True)
        sys.exit(2)
    sys.exit(0)


INTERRUPTED = 128 + signal.SIGINT
"""Exit status after Ctrl-C (SIGINT), as a shell reports it."""


def _resume_hint(args: Sequence[str], stop: KeyboardInterrupt | None = None) -> str:
    """What an interrupted command kept, and how to go on from there: the best so far that a
    search wrote (``stop`` carrying it), the store given with ``--store``, or the option to
    give for a command that has one."""
    if getattr(stop, "partial", None) is not None:
        kept = "the best so far is written with what the search proved"
        later = _resume_hint(args)
        if later.startswith("nothing kept"):
            later = later.removeprefix("nothing kept").lstrip("; ")
        return "; ".join(part for part in (kept, later) if part)
    for k, arg in enumerate(args):
        if arg == "--store" and k + 1 < len(args):
            store: str | None = args[k + 1]
            break
        if arg.startswith("--store="):
            store = arg.partition("=")[2]
            break
    else:
        store = None
    if store is not None:
        return f"finished results are kept in {store}; run the same command again to resume"
    command = next((cli.commands[a] for a in args if a in cli.commands), None)  # (the one run)
    options = {o for p in (command.params if command else []) for o in getattr(p, "opts", [])}
    if "--store" in options:
        return "nothing kept; with --store FILE, finished results are kept and a run resumes"
    return "nothing kept"


def _terminated(signum: int, frame: object) -> None:
    """On SIGTERM, unwind (closing pools and stores) and exit with 128 + the signal."""
    raise SystemExit(128 + signum)


def _one_line(message: str) -> str:
    """``message`` on one line, unless it lists several problems (one per line on purpose)."""
    return message if "\n  " in message else " ".join(message.split())
