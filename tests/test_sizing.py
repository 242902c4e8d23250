"""One sizing rule: every command that takes an architecture (``-a``) and a zoo dataflow
template (``-d``) sizes the template to the array the same way (``tenet.load_specs``: each
parameter declared with ``array_dim`` takes the extent of that PE index), so that a command
given ``gemm-os-systolic`` on a 16x16 array prints what it prints for
``gemm-os-systolic:rows=16,cols=16``, and not the 8x8 defaults."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from tenet.cli import cli
from tests.conftest import run

SIZES = ("-p", "M=16", "-p", "N=16", "-p", "K=16")
SIXTEEN = ":rows=16,cols=16"
EIGHT = ":rows=8,cols=8"


def _network(tmp_path: Path) -> str:
    path = tmp_path / "net.yaml"
    path.write_text("name: n\nlayers:\n  - {name: fc, workload: gemm, params: {M: 16, N: 16}}\n")
    return str(path)


def _tile_figures(out: str) -> str:
    row = json.loads(out)
    row.pop("cpu_seconds")
    return json.dumps(row)


Args = Callable[[str, Path], tuple[str, ...]]
"""The command line of a command, given the dataflow and a folder for its files."""

COMMANDS: dict[str, Args] = {
    "eval": lambda d, _: ("eval", "-w", "gemm", "-a", "systolic-2d-16x16", "-d", d, *SIZES),
    "check": lambda d, _: ("check", "-w", "gemm", "-a", "systolic-2d-16x16", "-d", d, *SIZES),
    "table": lambda d, _: ("table", "-w", "gemm", "-a", "systolic-2d-16x16", "-d", d, *SIZES),
    "plot": lambda d, tmp: (
        "plot", "reuse", "-w", "gemm", "-a", "systolic-2d-16x16", "-d", d, *SIZES,
        "-o", str(tmp / f"{d}.png"),
    ),  # fmt: skip
    "compare": lambda d, _: (
        "compare", "-w", "gemm", "-a", "systolic-2d-16x16", "-d", d.replace("-systolic", ""),
        *SIZES,
    ),  # fmt: skip  (a dataflow MAESTRO's directives express: no skew)
    "tile": lambda d, _: (
        "tile", "-w", "gemm", "-a", "systolic-levels-16x16", "-d", d, *SIZES, "--format", "json",
    ),  # fmt: skip
    "layout": lambda d, _: ("layout", "-w", "gemm", "-a", "systolic-2d-16x16", "-d", d, *SIZES),
    "eval-network": lambda d, tmp: (
        "eval-network", _network(tmp), "-a", "systolic-2d-16x16", "-d", d, "--format", "csv",
    ),  # fmt: skip
    "export accelforge": lambda d, _: (
        "export", "accelforge", "-w", "gemm", "-a", "systolic-2d-16x16", "-d", d, *SIZES,
    ),  # fmt: skip  (refused: a skewed placement; the message shows the sized template)
    "export zigzag": lambda d, tmp: (
        "export", "zigzag", "-w", "gemm", "-a", "systolic-2d-16x16", "-d", d, *SIZES,
        "-o", str(tmp / "zz"),
    ),  # fmt: skip
}
"""Every command taking ``-a`` and ``-d``, on a 16x16 array with a template whose defaults
are 8x8."""


def _commands(group: click.Group, prefix: str = "") -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found |= _commands(command, f"{prefix}{name} ")
        else:
            found[prefix + name] = command
    return found


def _options(command: click.Command) -> set[str]:
    return {o for p in command.params for o in getattr(p, "opts", [])}


def test_sizing_every_command_with_an_array_and_a_dataflow_is_tested() -> None:
    commands = _commands(cli)
    taking = {n for n, c in commands.items() if {"-a", "-d"} <= _options(c)}
    assert taking == set(COMMANDS)
    # the searches make their own dataflows on the array: they take none to size
    assert not {"-d", "--dataflow"} & (_options(commands["dse"]) | _options(commands["sweep"]))


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_sizing_a_template_takes_the_array_extents_in_every_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    args = COMMANDS[name]
    printed = {}
    for suffix in ("", SIXTEEN, EIGHT):
        code, out, err = run(capsys, *args(f"gemm-os-systolic{suffix}", tmp_path))
        if name == "tile":
            out = _tile_figures(out)
        if name == "plot":
            out, err = (tmp_path / f"gemm-os-systolic{suffix}.png").read_bytes().hex(), ""
        if name == "eval-network":  # names the dataflow as given (sized, it is named so)
            out = out.replace(f'"gemm-os-systolic{SIXTEEN}"', "gemm-os-systolic")
        printed[suffix] = (code, out + err)
    assert printed[""] == printed[SIXTEEN]
    assert printed[""] != printed[EIGHT]


def test_sizing_table_evaluates_the_mapping_eval_evaluates(
    capsys: pytest.CaptureFixture[str],
) -> None:
    problem = ("-w", "gemm", "-a", "systolic-2d-16x16", "-d", "gemm-os-systolic")
    code, out, _ = run(capsys, "table", *problem, "--format", "csv")
    assert code == 0
    header, row = out.strip().splitlines()
    table = dict(zip(header.split(","), row.rsplit(",", len(header.split(",")) - 1), strict=True))
    code, out, _ = run(capsys, "eval", *problem, "--format", "json")
    assert code == 0
    evaluated = json.loads(out)
    # gemm's defaults M = N = K = 64: on 16 columns, each A[i, k] enters the array once per
    # block of 16 values of j (64 / 16 = 4 blocks): unique 64 * 64 * 4 = 16,384 of the
    # 64^3 = 262,144 reads, reuse 16
    assert float(table["A_reuse_factor"]) == 16
    assert int(table["A_volume_unique_elements"]) == 64 * 64 * (64 // 16)
    assert int(table["latency_cycles"]) == evaluated["latency"]


@pytest.mark.parametrize("command", ["table", "plot"])
def test_sizing_a_template_larger_than_the_array_runs_on_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: str
) -> None:
    # conv2d-kcp's defaults are 16x64; on an 8x8 array it takes rows = cols = 8
    problem = ("-w", "conv2d", "-a", "systolic-2d-8x8", "-d", "conv2d-kcp")
    sizes = ("-p", "K=8", "-p", "C=8", "-p", "OX=2", "-p", "OY=2", "-p", "RX=1", "-p", "RY=1")
    args = ("plot", "latency", "-o", str(tmp_path / "p.png")) if command == "plot" else (command,)
    code, out, err = run(capsys, *args, *problem, *sizes)
    assert code == 0, err
    assert "outside the PE set" not in err
