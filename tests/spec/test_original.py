"""Every TENET input file loads, and the readers keep TENET's meaning: on our examples
(``examples/tenet/``), on TENET's experiments written from the zoo, and (tests marked
``shared``) on the original's own files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import islpy as isl
import pytest

from tenet.spec import read_experiment, read_mapping, read_pe_array, read_statement
from tests.conftest import ROOT, TENET_DATA, need_shared
from tests.tenet_files import EXPERIMENTS, EXTRA_MAPPINGS, FILES, PE_ARRAYS

EXAMPLES = ROOT / "examples" / "tenet"
STATEMENTS = sorted({s for s, _, _ in FILES.values()})
MAPPINGS = sorted({m for _, m, _ in FILES.values()} | set(EXTRA_MAPPINGS))
ARRAYS = sorted({p for _, _, p in FILES.values()} | set(PE_ARRAYS.values()))


def _check_statement_loads(path: Path) -> None:
    spec = read_statement(path)
    assert spec.accesses and spec.domain.startswith("{")


def _check_mapping_loads(path: Path) -> None:
    spec = read_mapping(path)
    assert "PE[" in spec.space_stamp and "T[" in spec.time_stamp


def _check_pe_array_loads(path: Path) -> None:
    spec = read_pe_array(path)
    assert spec.bits_per_element == 16 and len(spec.interconnect) == 1


def _check_experiment_loads(path: Path) -> None:
    specs = read_experiment(path).specs
    assert specs.workload.source and specs.require_dataflow().source


@pytest.mark.parametrize("relative", STATEMENTS)
def test_original_every_statement_loads(relative: str, tenet_data: Path) -> None:
    _check_statement_loads(tenet_data / relative)


@pytest.mark.parametrize("relative", MAPPINGS)
def test_original_every_mapping_loads(relative: str, tenet_data: Path) -> None:
    _check_mapping_loads(tenet_data / relative)


@pytest.mark.parametrize("relative", ARRAYS)
def test_original_every_pe_array_loads(relative: str, tenet_data: Path) -> None:
    _check_pe_array_loads(tenet_data / relative)


@pytest.mark.parametrize("key", list(EXPERIMENTS))
def test_original_every_experiment_loads(key: str, tenet_data: Path) -> None:
    folder, name = key.split("/")
    _check_experiment_loads(tenet_data / folder / "experiment" / name)


@pytest.mark.parametrize("path", sorted(EXAMPLES.rglob("*.*")), ids=lambda p: p.name)
def test_original_every_example_loads(path: Path) -> None:
    {".s": _check_statement_loads, ".m": _check_mapping_loads, ".p": _check_pe_array_loads}[
        path.suffix
    ](path)


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("experiment/experiment_*")), ids=str)
def test_original_every_example_experiment_loads(path: Path) -> None:
    _check_experiment_loads(path)


def test_original_pe_array_links_are_reversed_to_sender_receiver() -> None:
    # systolic_4x4.p reads PE[i,j] -> PE[i,j-1]; PE[i,j] -> PE[i-1,j] (the receiver takes from
    # its left and upper neighbours), so data moves right and down: as sender -> receiver
    # that is PE[i,j] -> PE[i,j+1] and PE[i,j] -> PE[i+1,j].
    spec = read_pe_array(EXAMPLES / "systolic_4x4.p")
    links = isl.Map(spec.interconnect[0].link)
    assert links.is_equal(isl.Map("{PE[i, j] -> PE[i + 1, j]; PE[i, j] -> PE[i, j + 1]}"))
    assert (spec.l1_size, spec.l2_size, spec.bandwidth, spec.latency) == (256, 1024, 64, 16)


def test_original_statement_groups_several_maps_of_one_tensor() -> None:
    # jacobi.s: line 3 reads A at the point and its four neighbours, line 4 writes B
    spec = read_statement(EXAMPLES / "jacobi.s")
    assert list(spec.accesses) == ["A", "B"]
    assert len(spec.accesses["A"].read) == 1 and spec.accesses["A"].read[0].count("->") == 5
    assert spec.where("accesses.B.write") == "accesses.B.write (line 4)"


def test_original_experiment_paths_are_relative_to_the_data_root() -> None:
    specs = read_experiment(EXAMPLES / "experiment" / "experiment_1").specs
    assert Path(specs.workload.source or "").resolve() == (EXAMPLES / "gemm.s").resolve()
    assert specs.require_dataflow().name == "gemm_os"


# -- the original's own files ----------------------------------------------------------------


@pytest.mark.shared
@pytest.mark.parametrize(
    ("pattern", "loads"),
    [
        ("**/*.s", _check_statement_loads),
        ("**/*.m", _check_mapping_loads),
        ("**/*.p", _check_pe_array_loads),
        ("*/experiment/experiment_*", _check_experiment_loads),
    ],
    ids=["statements", "mappings", "pe-arrays", "experiments"],
)
def test_original_every_original_file_loads(pattern: str, loads: Callable[[Path], None]) -> None:
    need_shared()
    paths = sorted(TENET_DATA.glob(pattern))
    assert paths
    for path in paths:
        loads(path)


@pytest.mark.shared
def test_original_original_systolic_links_and_jacobi_maps() -> None:
    need_shared()
    # systolic.p reads PE[i,j] -> PE[i-1,j] (receiver takes from the PE above): as sender ->
    # receiver that is PE[i,j] -> PE[i+1,j].
    spec = read_pe_array(TENET_DATA / "pe_array" / "systolic.p")
    links = isl.Map(spec.interconnect[0].link)
    assert links.is_equal(isl.Map("{PE[i, j] -> PE[i + 1, j]; PE[i, j] -> PE[i, j + 1]}"))
    jacobi = read_statement(TENET_DATA / "statement" / "jacobi2d.s")
    assert jacobi.accesses["A"].read[0].count("->") == 5
