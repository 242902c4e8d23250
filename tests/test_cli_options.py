"""The option groups several commands share reach each command as one typed record, and keep
the behaviour of plain click options: required ones are refused when missing, flags are False
unless given, output paths are checked while the command line is parsed."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tenet.cli.app import kept, kept_option
from tenet.cli.options import (
    YAML_FILES,
    OutputOptions,
    ProblemOptions,
    ScratchpadOptions,
    output_options,
    problem_options,
    record_options,
    scratchpad_options,
)
from tenet.dse.run.execution import ExecutionOptions
from tenet.spec.layout import ScratchpadSpec
from tests.test_cli import run

Received = list[object]


def _command(received: Received) -> click.Command:
    @click.command()
    @problem_options(YAML_FILES)
    @scratchpad_options()
    @click.option("--plain", default="x")
    @output_options()
    def toy(
        out: OutputOptions, geometry: ScratchpadOptions, problem: ProblemOptions, plain: str
    ) -> None:
        received.extend([out, geometry, problem, plain])

    return toy


def test_options_records_arrive_in_order_with_their_values(tmp_path: Path) -> None:
    received: Received = []
    target = str(tmp_path / "out.txt")
    args = ["-w", "gemm", "-a", "simba", "-d", "df", "-p", "M=4", "--banks", "2", "-o", target]
    result = CliRunner().invoke(_command(received), args)
    assert result.exit_code == 0, result.output
    out, geometry, problem, plain = received
    assert out == OutputOptions("table", target)
    assert geometry == ScratchpadOptions(2, None, None)
    assert problem == ProblemOptions("gemm", "simba", "df", ("M=4",))
    assert problem.params() == {"M": 4}
    assert plain == "x"


def test_options_scratchpad_overrides_only_what_is_given() -> None:
    base = ScratchpadSpec(banks=8, bank_width=4, transaction_width=4)
    applied = ScratchpadOptions(None, 2, None).apply(base)
    assert (applied.banks, applied.bank_width, applied.transaction_width) == (8, 2, 4)
    assert ScratchpadOptions(None, None, None).apply(None) == ScratchpadSpec()


def test_options_required_problem_option_missing() -> None:
    result = CliRunner().invoke(_command([]), ["-w", "gemm", "-a", "simba"])
    assert result.exit_code == 2
    assert "Missing option '--dataflow' / '-d'" in result.output


def test_options_output_path_checked_while_parsing(tmp_path: Path) -> None:
    received: Received = []
    bad = str(tmp_path / "no" / "out.txt")
    result = CliRunner().invoke(_command(received), ["-w", "g", "-a", "a", "-d", "d", "-o", bad])
    assert result.exit_code != 0
    assert received == []


def test_options_kept_flag_false_unless_given() -> None:
    seen: list[tuple[bool, str | None]] = []

    @click.command()
    @record_options(
        [kept_option("--flag", is_flag=True), kept_option("--name")],
        lambda: (kept("flag"), kept("name")),
    )
    def toy(given: tuple[bool, str | None]) -> None:
        seen.append(given)

    assert CliRunner().invoke(toy, []).exit_code == 0
    assert CliRunner().invoke(toy, ["--flag", "--name", "n"]).exit_code == 0
    assert CliRunner().invoke(toy, ["--name", "-1"]).exit_code == 0  # a value, not an option
    assert seen == [(False, None), (True, "n"), (False, "-1")]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("check", "-w", "gemm", "-a", "systolic-2d-8x8"), "Missing option '--dataflow'"),
        (("tile", "-w", "gemm", "-a", "simba", "-d", "x", "--address", "a"), "--address needs"),
        (("dse", "-w", "gemm", "-a", "simba", "--workers", "0"), "--workers"),
        (("deps",), "Missing option '--workload'"),
    ],
)
def test_options_errors_of_records_exit_2(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, _, err = run(capsys, *args)
    assert code == 2
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_options_execution_record_of_tile_defaults_to_one_worker() -> None:
    from tenet.cli.options import execution_options

    seen: list[ExecutionOptions] = []

    @click.command()
    @execution_options(workers=1)
    def toy(execution: ExecutionOptions) -> None:
        seen.append(execution)

    assert CliRunner().invoke(toy, []).exit_code == 0
    assert seen == [ExecutionOptions(engine="local", workers=1)]


def test_options_search_execution_runs_one_local_worker_in_process() -> None:
    from tenet.cli.app import progress, tell
    from tenet.cli.options import search_execution

    given = ExecutionOptions(engine="local", workers=1, store="runs.sqlite")
    run = search_execution(given, 2.5, 30.0)
    assert (run.engine, run.workers, run.store, run.time_budget) == (None, 1, "runs.sqlite", 2.5)
    assert run.cpu_budget == 30.0
    assert (run.progress, run.tell) == (progress, tell)
    # a pool, or a Dask cluster, is kept: the search runs on it
    assert search_execution(ExecutionOptions(workers=2), None).engine == "local"
    dask = ExecutionOptions(engine="dask", workers=1, address="tcp://127.0.0.1:8786")
    assert search_execution(dask, None).engine == "dask"
