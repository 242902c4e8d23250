"""AccelForge and ZigZag specs in and out: GEMM and conv mappings from each format evaluate,
per-level counts by hand and against the oracle, export then import gives the same relations
(isl equality), and errors name the file and the YAML path."""

from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from tenet.api import load_problem
from tenet.errors import NotALoopNestError, SpecError
from tenet.metrics.assessment import assess_problem
from tenet.oracle.tiles import reference_memory
from tenet.peers.accelforge import read_accelforge, write_accelforge
from tenet.peers.files import dump, read_peer_yaml, write_specs
from tenet.peers.specs import Imported
from tenet.peers.zigzag import read_zigzag, write_zigzag
from tenet.spec import ArchitectureSpec, DataflowSpec, Specs, WorkloadSpec, load_architecture
from tenet.vocab import Retention

HERE = Path(__file__).parent
EXAMPLES = HERE.parent.parent / "examples" / "peers"
AF_GEMM = EXAMPLES / "accelforge-gemm.yaml"
AF_CONV = HERE / "accelforge-conv.yaml"
ZZ_ACCEL = EXAMPLES / "zigzag-accelerator.yaml"
ZZ_GEMM = (EXAMPLES / "zigzag-gemm-workload.yaml", ZZ_ACCEL, EXAMPLES / "zigzag-gemm-mapping.yaml")
ZZ_CONV = (HERE / "zigzag-conv-workload.yaml", ZZ_ACCEL, HERE / "zigzag-conv-mapping.yaml")


def _specs(imported: Imported) -> tuple[WorkloadSpec, ArchitectureSpec, DataflowSpec]:
    s = imported.specs
    return s.workload, s.architecture, s.require_dataflow()


def _figures(imported: Imported, retention: Retention = "keep") -> dict:
    w, a, d = _specs(imported)
    found = assess_problem(
        load_problem(w, a, d), imported.nest, figures=["memory"], retention=retention
    )
    return {(r.level, r.tensor): (r.footprint, r.fills, r.writebacks) for r in found.memory.records}


def test_accelforge_gemm_by_hand() -> None:
    # m = 16 is cut into 2 buffer tiles of 8 (main memory's loop); n, k whole. The buffer
    # brings A[m-tile, :] (8 x 12 = 96) per tile: 192; B (12 x 8 = 96) stays over both m
    # tiles: 96; Z: 8 x 8 = 64 partial sums per tile, none needed back: 0 fills, 128
    # writebacks. Each PE's register keeps only Z: its tile is (m-tile, n) with the PE's 2
    # rows: 2 elements, 16 tiles x 4 PEs x 2 = 128 writebacks, never read back.
    got = _figures(read_accelforge(AF_GEMM))
    assert got[("GlobalBuffer", "A")] == (96, 192, 0)
    assert got[("GlobalBuffer", "B")] == (96, 96, 0)
    assert got[("GlobalBuffer", "Z")] == (64, 0, 128)
    assert got[("Register", "Z")] == (2, 0, 128)
    assert ("Register", "A") not in got


def test_accelforge_energy_per_element() -> None:
    # GlobalBuffer: 6 per 64-bit action, 16-bit elements: 6 * 16 / 64 = 1.5 per element.
    arch = read_accelforge(AF_GEMM).specs.architecture
    glb = next(lv for lv in arch.levels if lv.name == "GlobalBuffer")
    assert (glb.energy_read, glb.capacity) == (1.5, 8192)


@pytest.mark.parametrize("path", [AF_GEMM, AF_CONV])
def test_accelforge_matches_oracle(path: Path) -> None:
    imported = read_accelforge(path)
    w, a, d = _specs(imported)
    p = load_problem(w, a, d)
    from tenet.metrics.memory import evaluate_memory

    figures, _ = reference_memory(w, a, d)
    for r in evaluate_memory(p).records:
        ref = figures[(r.level, r.tensor)]
        assert (r.footprint, r.fills, r.writebacks) == (ref.footprint, ref.fills, ref.writebacks)


def test_zigzag_gemm_and_conv_evaluate() -> None:
    gemm = _figures(read_zigzag(*ZZ_GEMM))
    # reg_O holds O's k and n loops per PE (8 of 16 elements with m's 4 values outside): each
    # of the 4 m values per PE leaves 8 partial sums: 4 PEs x 4 x 8 = 128 writebacks.
    assert gemm[("reg_O", "O")] == (8, 0, 128)
    conv = _figures(read_zigzag(*ZZ_CONV))
    # The buffer holds everything once: the input's 2 x 6 x 6 = 72 elements, fetched once.
    assert conv[("glb", "I")] == (72, 72, 0)


def _same(first: Imported, again: Imported) -> None:
    a, b = first.specs.require_dataflow(), again.specs.require_dataflow()
    assert isl.Map(a.space_stamp).is_equal(isl.Map(b.space_stamp))
    assert isl.Map(a.time_stamp).is_equal(isl.Map(b.time_stamp))
    assert a.tiles.keys() == b.tiles.keys()
    for level, text in a.tiles.items():
        assert isl.Map(text).is_equal(isl.Map(b.tiles[level]))


@pytest.mark.parametrize("path", [AF_GEMM, AF_CONV])
def test_accelforge_round_trip(path: Path, tmp_path: Path) -> None:
    first = read_accelforge(path)
    doc = write_accelforge(first.specs)
    (tmp_path / "spec.yaml").write_text(dump(doc))
    again = read_accelforge(tmp_path / "spec.yaml")
    _same(first, again)
    assert isl.Set(first.specs.workload.domain).is_equal(isl.Set(again.specs.workload.domain))


@pytest.mark.parametrize("files, tiles", [(ZZ_GEMM, True), (ZZ_CONV, False)])
def test_zigzag_round_trip(files: tuple[Path, Path, Path], tiles: bool, tmp_path: Path) -> None:
    # ZigZag allocates loops to memories from their sizes: the exported memories hold every
    # operand (tenet's levels do), so the tiles come back equal only when that allocation is
    # the same (the GEMM's; the conv's register, shared by three operands, holds less).
    first = read_zigzag(*files)
    docs = write_zigzag(first.specs)
    write_specs(tmp_path, docs)
    again = read_zigzag(
        tmp_path / "workload.yaml", tmp_path / "accelerator.yaml", tmp_path / "mapping.yaml"
    )
    flows = first.specs.require_dataflow(), again.specs.require_dataflow()
    assert isl.Map(flows[0].space_stamp).is_equal(isl.Map(flows[1].space_stamp))
    assert isl.Map(flows[0].time_stamp).is_equal(isl.Map(flows[1].time_stamp))
    if tiles:
        _same(first, again)


def test_export_refuses_a_skew() -> None:
    from tenet.spec import load_dataflow, load_workload

    a = load_architecture("systolic-2d-8x8")
    d = load_dataflow("gemm-os-systolic", architecture=a)
    with pytest.raises(NotALoopNestError, match=r"adds the PE coordinates .* systolic skew"):
        write_accelforge(Specs(load_workload("gemm"), a, d, {"M": 8, "N": 8, "K": 4}))


def test_accelforge_missing_key(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(AF_GEMM.read_text().replace("tensor_accesses", "accesses"))
    with pytest.raises(SpecError, match=r"bad.yaml: workload.einsums.0.tensor_accesses: missing"):
        read_accelforge(spec)


def test_accelforge_unknown_rank_variable(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(AF_GEMM.read_text().replace("rank_variable: n,", "rank_variable: x,"))
    with pytest.raises(SpecError, match=r"mapping.nodes.4.rank_variable: rank variable 'x'"):
        read_accelforge(spec)


def test_accelforge_inner_tile_must_divide(tmp_path: Path) -> None:
    spec = tmp_path / "bad.yaml"
    spec.write_text(AF_GEMM.read_text().replace("tile_shape: 2, name", "tile_shape: 3, name"))
    with pytest.raises(NotALoopNestError, match="tile_shape 3 does not divide"):
        read_accelforge(spec)


def test_zigzag_bad_equation(tmp_path: Path) -> None:
    work = tmp_path / "w.yaml"
    work.write_text(ZZ_GEMM[0].read_text().replace("+=I[m][k]*W[k][n]", "=I[m][k]"))
    with pytest.raises(SpecError, match=r"w.yaml: 0.equation: expected"):
        read_zigzag(work, ZZ_ACCEL, ZZ_GEMM[2])


def test_zigzag_partial_served_dimensions(tmp_path: Path) -> None:
    accel = tmp_path / "a.yaml"
    text = ZZ_ACCEL.read_text().replace("served_dimensions: []", "served_dimensions: [D1, D2]")
    accel.write_text(text)
    with pytest.raises(NotALoopNestError, match=r"memories.reg_O.served_dimensions"):
        read_zigzag(ZZ_GEMM[0], accel, ZZ_GEMM[2])


def test_peer_file_not_yaml(tmp_path: Path) -> None:
    bad = tmp_path / "t.yaml"
    bad.write_text("a: [1,\n")
    with pytest.raises(SpecError, match="t.yaml: not YAML"):
        read_peer_yaml(bad)


def test_cli_import_export(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from tenet.cli import cli

    runner = CliRunner()
    out = tmp_path / "af"
    result = runner.invoke(cli, ["import", "accelforge", str(AF_GEMM), "-o", str(out)])
    assert result.exit_code == 0, result.output
    files = [str(out / f"{n}.yaml") for n in ("workload", "architecture", "dataflow")]
    result = runner.invoke(cli, ["eval", "-w", files[0], "-a", files[1], "-d", files[2]])
    assert result.exit_code == 0, result.output
    assert "GlobalBuffer" in result.output
    result = runner.invoke(
        cli, ["export", "accelforge", "-w", files[0], "-a", files[1], "-d", files[2]]
    )
    assert result.exit_code == 0 and "!Temporal" in result.output
    zz = tmp_path / "zz"
    result = runner.invoke(
        cli,
        ["import", "zigzag", "-w", str(ZZ_GEMM[0]), "-a", str(ZZ_ACCEL), "-m", str(ZZ_GEMM[2])]
        + ["-o", str(zz)],
    )
    assert result.exit_code == 0, result.output
    result = runner.invoke(
        cli, ["export", "zigzag", "-w", files[0], "-a", files[1], "-d", files[2], "-o", str(zz)]
    )
    assert result.exit_code == 0 and (zz / "mapping.yaml").exists()


def test_cli_export_skew_exits_2() -> None:
    from tenet.cli import main

    args = ["export", "accelforge", "-w", "gemm", "-a", "systolic-2d-8x8", "-d", "gemm-os-systolic"]
    with pytest.raises(SystemExit) as exc:
        main(args)
    assert exc.value.code == 2


def test_bypass_in_tenet_eval_by_hand() -> None:
    # The imported dataflow keeps only Z in the register: tenet eval counts A and B at
    # main memory and the buffer only. The buffer is read for what it sends back to main
    # memory (128 sums) and for the register's fills (0): 128; written with its own fills
    # (192 + 96 + 0) and the register's writebacks (128): 416.
    from tenet.metrics.memory import evaluate_memory

    w, a, d = _specs(read_accelforge(AF_GEMM))
    m = evaluate_memory(load_problem(w, a, d))
    assert [r.tensor for r in m.records if r.level == "Register"] == ["Z"]
    glb = m.summary("GlobalBuffer")
    assert (glb.accesses_read, glb.accesses_write) == (128, 416)
    figures, need = reference_memory(w, a, d)
    assert ("Register", "A") not in figures and need["Register"] == 2


def test_bypass_unknown_tensor() -> None:
    from tenet.errors import UnknownTensorError
    from tenet.metrics.memory import evaluate_memory

    w, a, d = _specs(read_accelforge(AF_GEMM))
    assert d.keep == {"Register": ("Z",)}
    with pytest.raises(UnknownTensorError, match="keep.Register: tensor 'Q' is not in"):
        load_problem(w, a, d.model_copy(update={"keep": {"Register": ("Q",)}}))
    levels = list(a.levels)
    levels[2] = levels[2].model_copy(update={"tensors": ("Q",)})
    a = a.model_copy(update={"levels": tuple(levels)})
    d = d.model_copy(update={"keep": {}})
    with pytest.raises(UnknownTensorError, match="Q"):
        evaluate_memory(load_problem(w, a, d))
