"""No silently ignored option: every option of every command is read by the command, and an
option that another leaves without effect is refused with it (exit 2, one line, before any
work), as the command's help lists (``tenet.cli.checks.REFUSALS``)."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from tenet.cli import cli
from tenet.cli.checks import REFUSALS, Refusal
from tests.conftest import ROOT, run


def _commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    ctx = click.Context(group)
    for name in group.list_commands(ctx):  # each imported: registered
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            found |= _commands(command, f"{prefix}{name} ")
        else:
            found[prefix + name] = command
    return found


COMMANDS = _commands(cli)


def _kept_names() -> set[str]:
    """The options read from a record's store anywhere in ``tenet/cli`` (``kept("name")``)."""
    names = set()
    for path in (ROOT / "tenet" / "cli").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "kept"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                names.add(str(node.args[0].value))
    return names


def _read_names(callback: Callable[..., object]) -> set[str]:
    """The names each function of the command's chain of wrappers reads in its body."""
    names: set[str] = set()
    function: object = callback
    while function is not None:
        code = function.__code__  # type: ignore[attr-defined]
        tree = ast.parse(Path(code.co_filename).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name == code.co_name:
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                if first == code.co_firstlineno:
                    for statement in node.body:
                        names |= {n.id for n in ast.walk(statement) if isinstance(n, ast.Name)}
        function = getattr(function, "__wrapped__", None)
    return names


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_is_read_by_its_command(name: str) -> None:
    command = COMMANDS[name]
    assert command.callback is not None
    read = _read_names(command.callback) | _kept_names()
    unread = [
        p.name for p in command.params if p.name not in read and p.name not in ("help", "debug")
    ]
    assert unread == []


REQUIRED = {
    "tile": "-w gemm -a systolic-levels-8x8 -d gemm-os-systolic",
    "layout": "-w gemm -a systolic-2d-8x8 -d gemm-os-systolic",
    "map": "-a systolic-levels-8x8",
    "dse": "-w gemm -a systolic-2d-8x8",
    "sweep": "-a systolic-2d-8x8",
}
"""The options each command requires (with values that load)."""

VALUES = {
    "--aligned": "4",
    "--constraint": "latency<=10",
    "--cpu-budget": "5",
    "--dataflow": "gemm-os",
    "--depth": "3",
    "--dim": "i",
    "--hw": "hw.m",
    "--layer": "conv1",
    "--level": "glb",
    "--max-points": "10",
    "--pareto": "latency,energy",
    "--param": "M=4",
    "--peer-python": "python3",
    "--plot-tensor": "A",
    "--tensor": "A",
    "--time-budget": "5",
    "--workload": "gemm",
    "--with": "accelforge",
    "EXPERIMENTS": "experiment_1",
    "MAPPING": "mapping.m",
}
"""A value of each option a rule names that is not a flag, a choice or an image or file."""

EXTRA = {
    ("eval", "--latex", "--format"): ["--symbolic"],
    ("compare", "--layer", "--with"): ["mapping.m"],
}
"""What some rules need besides their two options for them, and not an earlier rule, to
apply."""


def _words(command: click.Command, name: str, value: str | None, tmp: Path) -> list[str]:
    """The command line words giving parameter ``name`` (``value``: of a choice)."""
    (param,) = [
        p for p in command.params if name in getattr(p, "opts", []) or name.lower() == p.name
    ]
    if isinstance(param, click.Argument):
        return [value or VALUES[name]]
    assert isinstance(param, click.Option)
    if param.is_flag:
        return [param.opts[0]]
    if isinstance(param.type, click.Choice):
        choices = [str(c) for c in param.type.choices]
        return [name, value or next(c for c in choices if c != param.default)]
    if isinstance(param.type, click.Path):
        suffix = ".db" if name == "--store" else ".png"
        return [name, value or str(tmp / f"{name.strip('-')}{suffix}")]
    return [name, value or VALUES.get(name, "2")]


def _refusal_line(name: str, rule: Refusal, tmp: Path) -> list[str]:
    command = COMMANDS[name]
    values = [str(c) for c in getattr(_param(command, rule.other).type, "choices", [])]
    if rule.missing:
        other = next((v for v in values if v not in rule.values), None) if rule.values else None
    else:
        other = rule.values[0] if rule.values else None
    words = [*name.split(), *REQUIRED.get(name, "").split()]
    words += _words(command, rule.option, None, tmp)
    if other is not None or not rule.missing:
        words += _words(command, rule.other, other, tmp)
    if name == "sweep" and rule.other == "--layers-plot":
        words += ["--network", "tiny-cnn"]
    if name == "plot":
        words += ["-o", str(tmp / "plot.png")]
        if "KIND" not in (rule.option, rule.other) or (rule.missing and other is None):
            words.insert(1, "latency")
    return words + EXTRA.get((name, rule.option, rule.other), [])


def _param(command: click.Command, name: str) -> click.Parameter:
    return next(
        p for p in command.params if name in getattr(p, "opts", []) or name.lower() == p.name
    )


RULES = [(name, rule) for name, rules in sorted(REFUSALS.items()) for rule in rules]


@pytest.mark.parametrize(("name", "rule"), RULES, ids=[f"{n} {r.message()}" for n, r in RULES])
def test_each_refusal_exits_2_with_its_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, rule: Refusal
) -> None:
    code, out, err = run(capsys, *_refusal_line(name, rule, tmp_path))
    assert code == 2 and out == ""
    assert err.splitlines() == [f"error: {rule.message()} (see 'tenet {name} --help')"]


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_each_command_lists_its_refusals_in_its_help(
    capsys: pytest.CaptureFixture[str], name: str
) -> None:
    code, out, _ = run(capsys, *name.split(), "--help")
    assert code == 0
    listed = " ".join(out.split())
    assert all(f"{r.option} {r.condition()}: {r.why}" in listed for r in REFUSALS[name])


@pytest.mark.parametrize(
    "args",
    [
        "sweep -n tiny-cnn -a systolic-2d-8x8 --layers-plot {tmp}/l.png --store {tmp}/s.db",
        "sweep -n tiny-cnn -a systolic-2d-8x8 --layers-plot {tmp}/l.png --time-budget 5",
        "tile -w gemm -a systolic-levels-8x8 -d gemm-os-systolic --places",
    ],
)
def test_the_issue_cases_are_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: str
) -> None:
    code, _, err = run(capsys, *args.format(tmp=tmp_path).split())
    assert code == 2 and len(err.splitlines()) == 1
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "l.png").exists()


PLACED = """name: placed
space_stamp: "{{S[i, j, k] -> PE[i % 8, j % 8]}}"
time_stamp: "{{S[i, j, k] -> T[floor(i / 8), floor(j / 8), i % 8 + j % 8 + k]}}"
tiles:
  glb: "{{S[i, j, k] -> GLB[floor(i / 8), floor(j / 8)]}}"
places:
  glb:
    {tensor}: "{{S[i, j, k] -> GLB[floor(j / 8)]{condition}}}"
"""
"""A dataflow of GEMM on systolic-levels-8x8 placing one tensor at the shared buffer."""


@pytest.mark.parametrize(
    ("tensor", "condition", "symbolic", "message"),
    [
        ("Z", "", True, "places.glb.Z: no tensor 'Z' in the workload (A, B, C)"),
        ("Z", "", False, "places.glb.Z: no tensor 'Z' in the workload (A, B, C)"),
        ("B", ": i < 4", False, "places.glb.B: instance S[4, 0, 0] has no tile"),
    ],
)
def test_mistakes_under_places_are_named_there(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    tensor: str,
    condition: str,
    symbolic: bool,
    message: str,
) -> None:
    path = tmp_path / "placed.yaml"
    path.write_text(PLACED.format(tensor=tensor, condition=condition))
    args = ("eval", "-w", "gemm", "-a", "systolic-levels-8x8", "-d", str(path))
    code, _, err = run(
        capsys, *args, "-p", "M=8", "-p", "N=8", "-p", "K=8", *(["--symbolic"] * symbolic)
    )
    assert code == 2
    assert err.splitlines() == [f"error: {path}: {message}"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            "tile -w gemm -a systolic-levels-8x8 -d gemm-os-systolic --strategy joint",
            "loop 'i' runs 1000000000000 iterations",
        ),
        ("dse -w gemm -a systolic-levels-8x8 --tile glb", "loop 'i' runs 1000000000000"),
        (
            "layout -w gemm -a systolic-2d-8x8 -d gemm-os-systolic --search greedy",
            "points are more than the 2000000 the exact walk takes",
        ),
    ],
)
def test_sizes_too_large_end_before_any_search(
    capsys: pytest.CaptureFixture[str], args: str, message: str
) -> None:
    size = "M=100000" if args.startswith("layout") else "M=1000000000000"
    code, out, err = run(capsys, *args.split(), "-p", size)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert message in err and "design points" not in err  # no exploration ran
