"""``tenet table`` and ``tenet plot``: inputs from designs files, experiments and -w/-a/-d,
output formats, image sizes, and one line on stderr with exit code 2 for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from matplotlib.image import imread

from tenet.report import read_table
from tests.conftest import run

EXAMPLE = ["-w", "gemm", "-a", "systolic-2d-8x8", "-p", "M=2", "-p", "N=2", "-p", "K=4"]


def test_cli_table_of_a_designs_file_prints_markdown(
    capsys: pytest.CaptureFixture[str], spec_files: dict[str, Path]
) -> None:
    code, out, _ = run(capsys, "table", "--designs", str(spec_files["designs"]))
    assert code == 0
    header, rule, *rows = out.strip().splitlines()
    assert "| design" in header and "latency_cycles" in header and rule.startswith("|:")
    assert [r.split("|")[1].strip() for r in rows] == [
        "os-skewed @ systolic-2x2",
        "os-unskewed @ systolic-2x2",
        "os-unskewed @ multicast-2x2",
    ]


def test_cli_table_pairs_repeated_options_and_broadcasts_single_ones(
    capsys: pytest.CaptureFixture[str], spec_files: dict[str, Path]
) -> None:
    code, out, _ = run(
        capsys,
        "table",
        "-w",
        str(spec_files["workload"]),
        "-a",
        str(spec_files["systolic"]),
        "-a",
        str(spec_files["multicast"]),
        "-d",
        str(spec_files["unskewed"]),
        "--format",
        "json",
    )
    assert code == 0
    records = json.loads(out)
    assert [r["architecture"] for r in records] == ["systolic-2x2", "multicast-2x2"]
    # T[k]: IBW 0 over registered links, (8 + 8) / 4 over multicast wires
    assert [r["bandwidth_pe_elements_per_cycle"] for r in records] == [0.0, 4.0]


def test_cli_table_reuse_kind_to_a_file_by_its_suffix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    out = tmp_path / "reuse.csv"
    code, _, _ = run(
        capsys, "table", "--kind", "reuse", *EXAMPLE, "-d", "gemm-os-systolic", "-o", str(out)
    )
    assert code == 0
    table = read_table(out)
    # M=N=2, K=4 on the OS systolic array: the worked example (A: 16 / 8, C: 16 / 4)
    assert table["reuse_factor"].tolist() == [2.0, 2.0, 4.0]
    assert table["volume_total_elements"].tolist() == [16, 16, 16]


def test_cli_table_of_tenet_experiments(
    capsys: pytest.CaptureFixture[str], tenet_data: Path
) -> None:
    experiment = tenet_data / "reuse_factor_experiment" / "experiment" / "experiment_1"
    code, out, _ = run(capsys, "table", str(experiment), "--format", "csv")
    assert code == 0
    header, row = out.strip().splitlines()
    assert row.startswith("conv2d_kp,conv2d,lineral,conv2d_kp,")
    # conv2d_kp: W[k,c,rx,ry] is used once per (ox, oy): 112 · 112 = 12544 (TENET's figure)
    assert dict(zip(header.split(","), row.split(","), strict=True))["W_reuse_factor"] == "12544.0"


@pytest.mark.parametrize(
    "args, message",
    [
        (["-w", "gemm"], "give --arch, --dataflow too"),
        (
            ["-w", "gemm", "-a", "x", "-d", "a", "-d", "b", "-w", "c", "-w", "d"],
            "--dataflow given neither once nor 3 times",
        ),
        ([], "give experiment files, --designs FILE, or -w/-a/-d"),
    ],
)
def test_cli_table_refuses_unmatched_options(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    code, _, err = run(capsys, "table", *args)
    assert code == 2
    assert message in err


def test_cli_table_bad_designs_file_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "d.yaml"
    path.write_text("designs: [{workload: gemm}]\n")
    code, _, err = run(capsys, "table", "--designs", str(path))
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "d.yaml" in err and "give experiment, or all of workload" in err


@pytest.mark.parametrize("kind", ["reuse", "latency", "bandwidth", "utilisation", "spacetime"])
def test_cli_plot_writes_an_image_of_the_asked_size(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, spec_files: dict[str, Path], kind: str
) -> None:
    out = tmp_path / f"{kind}.png"
    points = (
        [*EXAMPLE, "-d", "gemm-os-systolic"]
        if kind == "spacetime"
        else ["--designs", str(spec_files["designs"])]
    )
    size = ["--size", "5", "4", "--dpi", "40"]
    code, _, err = run(capsys, "plot", kind, *points, *size, "-o", str(out))
    assert code == 0, err
    assert imread(out).shape[:2] == (160, 200)  # (4 in x 40 dpi, 5 in x 40 dpi)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([out.name, "designs.yaml", "specs"])


@pytest.mark.parametrize("suffix, magic", [(".svg", b"<?xml"), (".pdf", b"%PDF")])
def test_cli_plot_writes_svg_and_pdf(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, suffix: str, magic: bytes
) -> None:
    out = tmp_path / f"st{suffix}"
    code, _, _ = run(
        capsys, "plot", "spacetime", *EXAMPLE, "-d", "gemm-os-systolic", "-o", str(out)
    )
    assert code == 0
    assert out.read_bytes().startswith(magic)


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["spacetime", "-d", "gemm-os-systolic", "-o", "x.gif"],
            "Invalid value for --output: expected a .png, .svg or .pdf file",
        ),
        (
            [
                "spacetime",
                "-d",
                "gemm-os-systolic",
                "-p",
                "K=40",
                "--max-points",
                "100",
                "-o",
                "x.png",
            ],
            # M=N=2, K=40: 4 PEs busy for 40 steps each
            "too large to draw: 160 space-time points (at most 100)",
        ),
    ],
)
def test_cli_plot_bad_input_exits_with_code_2(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    args: list[str],
    message: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    kind, *rest = args
    code, _, err = run(capsys, "plot", kind, *EXAMPLE, *rest)
    assert code == 2
    assert f"rror: {message}" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "args, message",
    [
        (["spacetime"], "spacetime draws one design point, got 3"),
        (["bandwidth", "--by", "architecture"], "several rows have architecture = 'systolic-2x2'"),
    ],
)
def test_cli_plot_refuses_what_it_cannot_draw(
    capsys: pytest.CaptureFixture[str],
    spec_files: dict[str, Path],
    tmp_path: Path,
    args: list[str],
    message: str,
) -> None:
    out = tmp_path / "x.png"
    code, _, err = run(
        capsys, "plot", *args, "--designs", str(spec_files["designs"]), "-o", str(out)
    )
    assert code == 2
    assert f"rror: {message}" in err
    assert not out.exists()
