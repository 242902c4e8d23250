"""Every zoo entry loads and evaluates; networks have their published sizes; TENET's experiments
expressed by zoo names give the same figures as its text files (the original's files: tests
marked ``shared``; the same names written as TENET text: every run)."""

from __future__ import annotations

from collections import defaultdict
from functools import reduce
from pathlib import Path

import islpy as isl
import pytest

import tenet
from tenet.api import load_experiment, load_problem
from tenet.networks import evaluate_network
from tenet.spec import LayerSpec, load_workload, read_mapping, read_pe_array
from tenet.spec.catalog import KINDS, zoo_entries
from tenet.zoo import ZooEntry, combinations, entries
from tests.conftest import TENET_DATA, need_shared
from tests.tenet_files import EXPERIMENTS, FILES, MAPPINGS, PE_ARRAYS

SLOW_EXPERIMENTS = {"alexnet/experiment_2"}  # about 6 s for each of the two evaluations


def _small(workload: str) -> dict[str, int]:
    return {k: min(v, 8) for k, v in load_workload(workload).params.items()}


def _dataflows_for(entry: ZooEntry) -> list[ZooEntry]:
    return [
        d
        for d in entries("dataflow")
        if d.fits is not None
        and (
            (
                entry.kind == "architecture"
                and {entry.family, entry.name} & set(d.fits.architectures)
            )
            or (entry.kind == "workload" and entry.family in d.fits.workloads)
        )
    ]


def _combinations(entry: ZooEntry) -> list[tuple[str, str, str]]:
    """Zoo combinations that evaluate ``entry``: a dataflow with each workload it is made for;
    an architecture or a workload with the first dataflow made for it."""
    if entry.kind == "dataflow":
        assert entry.fits is not None, f"{entry.name} states no 'fits'"
        return [(w, entry.fits.architectures[0], entry.name) for w in entry.fits.workloads]
    fitting = _dataflows_for(entry)
    assert fitting, f"no zoo dataflow is made for {entry.kind} {entry.name}"
    first = fitting[0]
    assert first.fits is not None
    if entry.kind == "architecture":
        return [(first.fits.workloads[0], entry.name, first.name)]
    return [(entry.name, first.fits.architectures[0], first.name)]


ENTRIES = [e for kind in ("architecture", "workload", "dataflow") for e in entries(kind)]


@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: f"{e.kind}/{e.name}")
def test_zoo_entry_loads_and_evaluates(entry: ZooEntry) -> None:
    assert entry.description, f"{entry.name}: the file starts with no comment"
    for workload, arch, dataflow in _combinations(entry):
        fixed = tenet.dataflow(dataflow).params
        metrics = tenet.analyze(
            workload, arch, dataflow, params=None if fixed else _small(workload)
        )
        assert metrics.macs > 0 and 0 < metrics.utilisation <= 1


def test_zoo_architecture_files_state_their_figures() -> None:
    for entry in zoo_entries("architecture"):
        text = entry.path.read_text()
        assert "Figures:" in text, f"{entry.path.name} does not say where its figures come from"
        for key in ("bits_per_element", "bandwidth", "latency", "l1_size", "l2_size", "energy"):
            assert f"\n{key}:" in text, f"{entry.path.name} does not state {key}"


def test_zoo_names_are_unique_and_files_named_as_their_entries() -> None:
    for kind in KINDS:
        names = [e.name for e in entries(kind)]
        assert len(names) == len(set(names)), kind
        for entry in zoo_entries(kind):
            assert entry.body.get("name", entry.stem) == entry.stem, entry.path


def test_zoo_counts() -> None:
    # At least the entries the zoo promises: 10 array families, 13 workload files, 7 networks.
    assert len(zoo_entries("architecture")) >= 10
    assert len(zoo_entries("workload")) >= 13
    assert {e.stem for e in zoo_entries("network")} >= {
        "alexnet",
        "vgg16",
        "googlenet",
        "mobilenet-v1",
        "resnet50",
        "bert-base",
        "als",
    }


def test_zoo_combinations_name_zoo_entries() -> None:
    workloads = {e.name for e in entries("workload")}
    archs = {e.name for e in entries("architecture")}
    for workload, arch, dataflow in combinations():
        assert workload in workloads and arch in archs, (workload, arch, dataflow)


@pytest.mark.slow
@pytest.mark.parametrize("combination", combinations(), ids="/".join)
def test_zoo_every_declared_combination_evaluates(combination: tuple[str, str, str]) -> None:
    workload, arch, dataflow = combination
    assert tenet.analyze(workload, arch, dataflow).macs > 0


# -- networks -----------------------------------------------------------------------------------


def _network_dataflows() -> list[str]:
    return [e.stem for e in zoo_entries("dataflow")]


@pytest.mark.parametrize("name", [e.name for e in entries("network")])
def test_zoo_network_evaluates_every_layer(name: str) -> None:
    result = evaluate_network(name, "systolic-2d-16x16", _network_dataflows())
    assert len(result.layers) == len(tenet.network(name).layers)
    assert all(r.metrics.macs > 0 for r in result.layers)
    table = result.table()
    assert table.loc["total", "macs"] == result.macs


def _layer_macs(layer: LayerSpec) -> int:
    spec = load_workload(layer.workload)
    return layer.count * tenet.count(
        tenet.Workload.from_spec(spec, {**spec.params, **layer.params}).domain
    )


def _macs(name: str) -> int:
    return sum(_layer_macs(layer) for layer in tenet.network(name).layers)


def test_zoo_resnet50_has_the_published_multiply_adds() -> None:
    # He et al. 2016, Table 1: 3.8e9 FLOPs (multiply-adds) for ResNet-50 (3.86e9 unrounded).
    assert abs(_macs("resnet50") / 3.8e9 - 1) < 0.02


def test_zoo_vgg16_multiply_adds() -> None:
    # Convolutions: 64*3*9*224² + 64*64*9*224² + 128*64*9*112² + 128*128*9*112²
    #   + 256*128*9*56² + 2*256*256*9*56² + 512*256*9*28² + 2*512*512*9*28² + 3*512*512*9*14²
    #   = 15,346,630,656; fully connected: 25088*4096 + 4096*4096 + 4096*1000 = 123,633,664.
    assert _macs("vgg16") == 15_346_630_656 + 123_633_664


def test_zoo_alexnet_multiply_adds() -> None:
    # 96*3*121*55² + 256*48*25*27² + 384*256*9*13² + 384*192*9*13² + 256*192*9*13²
    #   + 9216*4096 + 4096*4096 + 4096*1000
    expected = (
        96 * 3 * 121 * 55**2
        + 256 * 48 * 25 * 27**2
        + 384 * 256 * 9 * 13**2
        + 384 * 192 * 9 * 13**2
        + 256 * 192 * 9 * 13**2
        + 9216 * 4096
        + 4096 * 4096
        + 4096 * 1000
    )
    assert _macs("alexnet") == expected


def test_zoo_mobilenet_has_the_published_multiply_adds() -> None:
    # Howard et al. 2017, Table 2: 569 million multiply-adds for MobileNet 1.0-224.
    assert abs(_macs("mobilenet-v1") / 569e6 - 1) < 0.002


def test_zoo_googlenet_blocks_have_the_published_operations() -> None:
    # Szegedy et al. 2015, Table 1, "ops" column (millions). Inception 5a is left out: the
    # table's 54M does not follow from its own filter counts (which give 51M, and 1042K
    # parameters against the 1072K it lists).
    published = {
        "conv1": 118,
        "conv2": 360,
        "inception3a": 128,
        "inception3b": 304,
        "inception4a": 73,
        "inception4b": 88,
        "inception4c": 100,
        "inception4d": 119,
        "inception4e": 170,
        "inception5b": 71,
        "fc": 1,
    }
    blocks: dict[str, int] = defaultdict(int)
    for layer in tenet.network("googlenet").layers:
        blocks[layer.name.split("_")[0]] += _layer_macs(layer)
    for block, millions in published.items():
        assert abs(blocks[block] / 1e6 - millions) < 1, block


def test_zoo_bert_and_als_multiply_adds() -> None:
    # BERT-base layer on 128 tokens: QKV 3*128*768*768, scores and output 2*12*128*128*64,
    # projection 128*768*768, feed-forward 2*128*768*3072; 12 layers.
    layer = 3 * 128 * 768**2 + 2 * 12 * 128**2 * 64 + 128 * 768**2 + 2 * 128 * 768 * 3072
    assert _macs("bert-base") == 12 * layer
    # Three MTTKRPs of a 24 x 256 x 256 tensor at rank 256: 3 * 24 * 256³.
    assert _macs("als") == 3 * 24 * 256**3


# -- TENET's experiments by name ------------------------------------------------------------------


@pytest.mark.shared
@pytest.mark.parametrize(
    "key",
    [pytest.param(k, marks=pytest.mark.slow) if k in SLOW_EXPERIMENTS else k for k in EXPERIMENTS],
)
def test_zoo_tenet_experiment_by_name_equals_text(key: str) -> None:
    need_shared()
    folder, name = key.split("/")
    workload, params, arch, dataflow = EXPERIMENTS[key]
    text = tenet.analyze_experiment(TENET_DATA / folder / "experiment" / name)
    by_name = tenet.analyze(workload, arch, dataflow, params=params)
    assert by_name.to_dict() | {"name": ""} == text.to_dict() | {"name": ""}


@pytest.mark.shared
def test_zoo_experiment_table_covers_every_tenet_experiment() -> None:
    need_shared()
    found = {f"{p.parts[-3]}/{p.name}": p for p in TENET_DATA.glob("*/experiment/experiment_*")}
    assert set(found) == set(EXPERIMENTS) == set(FILES)
    for key, path in found.items():
        mapping, pe_array, statement = path.read_text().split()
        assert FILES[key] == (statement, mapping, pe_array), key


def test_zoo_experiment_table_has_52_experiments_with_files() -> None:
    assert len(EXPERIMENTS) == 52 and set(EXPERIMENTS) == set(FILES)


@pytest.mark.parametrize("key", list(EXPERIMENTS))
def test_zoo_tenet_experiment_by_name_equals_its_text(key: str, tenet_data: Path) -> None:
    # the zoo names written as TENET text and read back give the same relations
    folder, name = key.split("/")
    workload, params, arch, dataflow = EXPERIMENTS[key]
    text = load_experiment(tenet_data / folder / "experiment" / name)
    by_name = load_problem(workload, arch, dataflow, params=params)
    assert text.workload.domain.is_equal(by_name.workload.domain)
    for tensor, access, relation in by_name.workload.accesses:
        got = (text.workload.reads if access == "read" else text.workload.writes)[tensor]
        assert got.is_equal(relation), (tensor, access)
    assert text.architecture.pe_set.is_equal(by_name.architecture.pe_set)
    links = [
        reduce(isl.Map.union, [k.relation for k in p.architecture.links]) for p in (text, by_name)
    ]
    assert links[0].is_equal(links[1])
    assert text.dataflow.space_stamp.is_equal(by_name.dataflow.space_stamp)
    assert text.dataflow.time_stamp.is_equal(by_name.dataflow.time_stamp)


@pytest.mark.shared
@pytest.mark.parametrize("name", sorted(PE_ARRAYS))
def test_zoo_architecture_equals_tenet_pe_array(name: str) -> None:
    need_shared()
    zoo, text = tenet.architecture(name), read_pe_array(TENET_DATA / PE_ARRAYS[name])
    assert isl.Set(zoo.pe).is_equal(isl.Set(text.pe))
    links = [isl.Map(link.link) for link in zoo.interconnect]
    union = links[0]
    for link in links[1:]:
        union = union.union(link)
    assert union.is_equal(isl.Map(text.interconnect[0].link))
    for key in ("bits_per_element", "bandwidth", "latency", "l1_size", "l2_size", "energy"):
        assert getattr(zoo, key) == getattr(text, key), key


@pytest.mark.shared
@pytest.mark.parametrize("path", sorted(MAPPINGS))
def test_zoo_dataflow_equals_tenet_mapping(path: str) -> None:
    need_shared()
    name, args = MAPPINGS[path]
    zoo, text = tenet.dataflow(name, **args), read_mapping(TENET_DATA / path)
    assert isl.Map(zoo.space_stamp).is_equal(isl.Map(text.space_stamp))
    assert isl.Map(zoo.time_stamp).is_equal(isl.Map(text.time_stamp))
