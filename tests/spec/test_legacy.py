"""Every TENET input file loads, and the readers keep TENET's meaning."""

from __future__ import annotations

from pathlib import Path

import islpy as isl
import pytest

from tenet.spec import read_experiment, read_mapping, read_pe_array, read_statement
from tests.conftest import TENET_DATA, need_shared


def _files(pattern: str) -> list[Path]:
    return sorted(TENET_DATA.glob(pattern)) if TENET_DATA.is_dir() else []


@pytest.mark.parametrize("path", _files("**/*.s"), ids=str)
def test_legacy_every_statement_loads(path: Path) -> None:
    spec = read_statement(path)
    assert spec.accesses and spec.domain.startswith("{")


@pytest.mark.parametrize("path", _files("**/*.m"), ids=str)
def test_legacy_every_mapping_loads(path: Path) -> None:
    spec = read_mapping(path)
    assert "PE[" in spec.space_stamp and "T[" in spec.time_stamp


@pytest.mark.parametrize("path", _files("**/*.p"), ids=str)
def test_legacy_every_pe_array_loads(path: Path) -> None:
    spec = read_pe_array(path)
    assert spec.bits_per_element == 16 and len(spec.interconnect) == 1


@pytest.mark.parametrize("path", _files("*/experiment/experiment_*"), ids=str)
def test_legacy_every_experiment_loads(path: Path) -> None:
    experiment = read_experiment(path)
    assert experiment.workload.source and experiment.dataflow.source


def test_legacy_pe_array_links_are_reversed_to_sender_receiver() -> None:
    need_shared()
    # systolic.p reads PE[i,j] -> PE[i-1,j] (receiver takes from the PE above), so data moves
    # from PE[i-1,j] to PE[i,j]: as sender -> receiver that is PE[i,j] -> PE[i+1,j].
    spec = read_pe_array(TENET_DATA / "pe_array" / "systolic.p")
    links = isl.Map(spec.interconnect[0].link)
    assert links.is_equal(isl.Map("{PE[i, j] -> PE[i + 1, j]; PE[i, j] -> PE[i, j + 1]}"))
    assert (spec.l1_size, spec.l2_size, spec.bandwidth, spec.latency) == (256, 1024, 64, 16)


def test_legacy_statement_groups_several_maps_of_one_tensor() -> None:
    need_shared()
    spec = read_statement(TENET_DATA / "statement" / "jacobi2d.s")
    assert list(spec.accesses) == ["A", "B"]
    assert len(spec.accesses["A"].read) == 1 and spec.accesses["A"].read[0].count("->") == 5
    assert spec.where("accesses.B.write") == "accesses.B.write (line 4)"
