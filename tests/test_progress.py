"""Progress on stderr: a bar on a terminal; without one (a log, a pipe), a line per finished
item or exploration once the command has run for a while."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from tqdm import tqdm

from tenet.cli import app
from tests.conftest import run as _run


def test_progress_line_per_item_without_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "QUIET_SECONDS", 0.0)
    assert list(app.progress(["a", "b", "c"], total=3, desc="layers")) == ["a", "b", "c"]
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" (")[0] for line in lines] == [
        "layers: 1/3 done",
        "layers: 2/3 done",
        "layers: 3/3 done",
    ]


def test_progress_one_line_when_all_are_done(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "QUIET_SECONDS", 0.0)
    assert list(app.progress(range(5), desc="points", each=False)) == list(range(5))
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("points: 5 done (") and line.endswith(" s)")


def test_progress_quiet_at_first(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "QUIET_SECONDS", 10**9)
    assert list(app.progress([1, 2], total=2)) == [1, 2]
    assert capsys.readouterr().err == ""


def test_progress_bar_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    terminal = io.StringIO()
    monkeypatch.setattr(terminal, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys, "stderr", terminal)
    bar = app.progress([1, 2], total=2, desc="layers")
    assert isinstance(bar, tqdm)
    assert list(bar) == [1, 2]
    assert "layers" in terminal.getvalue()


def test_cli_network_prints_a_line_per_layer(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(app, "QUIET_SECONDS", 0.0)
    network = tmp_path / "two.yaml"
    network.write_text(
        "version: 1\nname: two\nlayers:\n"
        "  - {name: fc1, workload: gemm, params: {M: 4, N: 4, K: 4}}\n"
        "  - {name: fc2, workload: gemm, params: {M: 4, N: 8, K: 4}}\n"
    )
    code, _, err = _run(
        capsys, "eval-network", str(network), "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic"
    )
    assert code == 0
    assert [line.split(" (")[0] for line in err.splitlines()] == [
        "layers: 1/2 done",
        "layers: 2/2 done",
    ]


def test_cli_sweep_prints_a_line_per_exploration(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "QUIET_SECONDS", 0.0)
    args = ["sweep", "-w", "gemm", "-a", "systolic-2d-8x8", "-a", "multicast-2d-8x8"]
    code, _, err = _run(capsys, *args, "-p", "M=4", "-p", "N=4", "-p", "K=4", "--workers", "1")
    assert code == 0, err
    done = [line for line in err.splitlines() if line.startswith("exploration")]
    assert [line.split(":")[0] for line in done] == [
        "exploration 1/2 (gemm on systolic-2d-8x8)",
        "exploration 2/2 (gemm on multicast-2d-8x8)",
    ]


def test_cli_quick_command_prints_no_progress(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the quiet time counts from the command's start (a clock that stands still here), not
    # from this process's (older) start
    monkeypatch.setattr(app, "time", SimpleNamespace(monotonic=lambda: 1000.0))
    experiments = Path(__file__).parents[1] / "examples" / "tenet" / "experiment"
    paths = [str(experiments / "experiment_1"), str(experiments / "experiment_2")]
    code, out, err = _run(capsys, "eval", *paths, "--format", "json")
    assert code == 0 and out and err == ""


def test_progress_started_outside_a_command() -> None:
    assert app._started(12.5) == 12.5


def test_progress_line_at_least_every_heartbeat_with_an_estimate(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setattr(app, "QUIET_SECONDS", 0.0)
    monkeypatch.setattr(app, "HEARTBEAT_SECONDS", 0.2)

    def slow() -> Iterator[int]:
        for k in range(2):
            time.sleep(0.7)  # no item finishes for several heartbeats
            yield k

    assert list(app.progress(slow(), total=2, desc="spaces", each=False)) == [0, 1]
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("spaces: 0/2 done (")
    assert any(line.startswith("spaces: 1/2 done (") and "s left)" in line for line in lines)
    assert lines[-1].startswith("spaces: 2/2 done (")


def test_working_prints_the_time_spent_without_a_terminal(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import time

    monkeypatch.setattr(app, "QUIET_SECONDS", 0.0)
    monkeypatch.setattr(app, "HEARTBEAT_SECONDS", 0.2)
    with app.working("counting"):
        time.sleep(0.7)
    lines = capsys.readouterr().err.splitlines()
    assert lines and all(line.startswith("counting: running (") for line in lines)


def test_cli_says_which_file_it_wrote(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    out_file, image = tmp_path / "out.txt", tmp_path / "front.png"
    sizes = ("-p", "M=4", "-p", "N=4", "-p", "K=4")
    dse = ("dse", "-w", "gemm", "-a", "systolic-2d-8x8", *sizes)
    code, _, err = _run(capsys, *dse, "-o", str(out_file), "--plot", str(image))
    assert code == 0
    assert f"wrote {out_file}" in err.splitlines() and f"wrote {image}" in err.splitlines()
