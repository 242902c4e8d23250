"""One sizing rule: every command that takes an architecture (``-a``) and a zoo dataflow
template (``-d``) sizes the template to the array the same way (``tenet.load_specs``: each
parameter declared with ``array_dim`` takes the extent of that PE index), so that a command
given ``gemm-os-systolic`` on a 16x16 array prints what it prints for
``gemm-os-systolic:rows=16,cols=16``, and not the 8x8 defaults."""

from __future__ import annotations

import json
from pathlib import Path

import click
import pytest

from tenet.cli import cli
from tests.conftest import run

SIXTEEN = ":rows=16,cols=16"
EIGHT = ":rows=8,cols=8"


def _tile_figures(out: str) -> str:
    row = json.loads(out)
    row.pop("cpu_seconds")
    return json.dumps(row)


def _map_figures(out: str) -> str:
    printed = json.loads(out)
    for row in printed["layers"]:
        row.pop("cpu_seconds")
        row.pop("cpu_to_best")
    return json.dumps(printed)


ARRAY = "-w gemm -a systolic-2d-16x16 -d {d} -p M=16 -p N=16 -p K=16"
COMMANDS: dict[str, str] = {
    "eval": f"eval {ARRAY}",
    "check": f"check {ARRAY}",
    "table": f"table {ARRAY}",
    "plot": f"plot reuse {ARRAY} -o {{tmp}}/{{d}}.png",
    "compare": f"compare {ARRAY}",
    "tile": "tile -w gemm -a systolic-levels-16x16 -d {d} -p M=16 -p N=16 -p K=16 --format json",
    "layout": f"layout {ARRAY}",
    "map": "map -w gemm -a systolic-levels-16x16 -d {d} -p M=16 -p N=16 -p K=16 --format json",
    "eval-network": "eval-network {tmp}/net.yaml -a systolic-2d-16x16 -d {d} --format csv",
    "export accelforge": f"export accelforge {ARRAY}",
    "export zigzag": f"export zigzag {ARRAY} -o {{tmp}}/zz",
    "export scalesim": "export scalesim -w scalesim-gemm -a scalesim:rows=16,cols=16 -d {d} "
    "-p M=16 -p N=16 -p K=16 -o {tmp}/ss",
}
"""Every command taking ``-a`` and ``-d``, on a 16x16 array with a template whose defaults
are 8x8 (``{d}``: gemm-os-systolic, gemm-os for compare, whose MAESTRO directives express
no skew, or SCALE-Sim's scalesim-os on its array for export scalesim; the exports refuse a
skewed placement, in a message showing the sized template)."""

TEMPLATES = {"compare": "gemm-os", "export scalesim": "scalesim-os"}
"""The template of a command that does not take gemm-os-systolic."""


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
    (tmp_path / "net.yaml").write_text(
        "name: n\nlayers:\n  - {name: fc, workload: gemm, params: {M: 16, N: 16}}\n"
    )
    printed = {}
    for suffix in ("", SIXTEEN, EIGHT):
        dataflow = TEMPLATES.get(name, "gemm-os-systolic") + suffix
        args = COMMANDS[name].format(d=dataflow, tmp=tmp_path).split()
        written = tmp_path / "ss"
        for path in written.glob("*"):
            path.unlink()
        code, out, err = run(capsys, *args)
        if name == "export scalesim":  # SCALE-Sim's inputs as written
            out += "".join(path.read_text() for path in sorted(written.glob("*")))
        if name == "tile":
            out = _tile_figures(out)
        if name == "map":
            out = _map_figures(out)
        if name == "plot":
            out, err = (tmp_path / f"{dataflow}.png").read_bytes().hex(), ""
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
    assert int(table["latency_array_cycles"]) == evaluated["latency_array"]
    assert int(table["latency_cycles"]) == evaluated["headline"]["latency_cycles"]


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
