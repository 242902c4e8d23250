"""``tenet schema KIND``: the JSON Schema of each kind of spec file names every key the spec
accepts, and every file of the zoo (templates as written, placeholders and all) and of the
examples validates against it; ``docs/specs.md`` lists the keys too."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tenet.spec import SCHEMA_KINDS, SchemaKind
from tenet.spec.architecture import ArchitectureSpec, LevelSpec
from tenet.spec.chain import ChainSpec, StatementSpec
from tenet.spec.constraints import ConstraintsSpec, LevelConstraints
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.fused import FusedGroupSpec, FusedSpec
from tenet.spec.layout import LayoutSpec
from tenet.spec.network import LayerSpec, NetworkSpec
from tenet.spec.workload import WorkloadSpec
from tests.conftest import ROOT, run

MODELS = {
    "workload": WorkloadSpec,
    "architecture": ArchitectureSpec,
    "dataflow": DataflowSpec,
    "network": NetworkSpec,
    "layout": LayoutSpec,
    "constraints": ConstraintsSpec,
    "chain": ChainSpec,
    "fused": FusedSpec,
}

FILES: dict[str, list[Path]] = {
    "workload": sorted((ROOT / "workloads").glob("*.yaml")),
    "architecture": sorted((ROOT / "arch_zoo").glob("*.yaml")),
    "dataflow": sorted((ROOT / "workloads" / "dataflows").glob("*.yaml"))
    + sorted((ROOT / "examples" / "dataflows").glob("*.yaml")),
    "network": sorted((ROOT / "workloads" / "networks").glob("*.yaml"))
    + [ROOT / "examples" / "network.yaml", ROOT / "examples" / "repeated-layers.yaml"],
    "layout": [ROOT / "examples" / "layout" / "pad.yaml"],
    "constraints": sorted((ROOT / "workloads" / "constraints").glob("*.yaml")),
    "chain": sorted((ROOT / "workloads" / "chains").glob("*.yaml")),
    "fused": sorted((ROOT / "examples" / "fused").glob("*.yaml")),
}
"""The zoo's files and the examples', by kind."""


def _schema(capsys: pytest.CaptureFixture[str], kind: str) -> dict[str, Any]:
    code, out, err = run(capsys, "schema", kind)
    assert code == 0, err
    schema: dict[str, Any] = json.loads(out)
    return schema


def _keys(schema: Any) -> Iterator[str]:
    """Every property name anywhere in ``schema`` (its definitions included)."""
    if isinstance(schema, dict):
        yield from (
            schema.get("properties", {}) if isinstance(schema.get("properties"), dict) else ()
        )
        for value in schema.values():
            yield from _keys(value)
    elif isinstance(schema, list):
        for value in schema:
            yield from _keys(value)


@pytest.mark.parametrize("kind", SCHEMA_KINDS)
def test_schema_names_every_key_of_the_spec(
    capsys: pytest.CaptureFixture[str], kind: SchemaKind
) -> None:
    schema = _schema(capsys, kind)
    assert schema["title"] == f"tenet {kind} spec"
    assert schema["additionalProperties"] is False  # unknown keys are errors, as on loading
    assert MODELS[kind].field_names() <= set(_keys(schema))
    assert not {"source", "lines"} & set(schema["properties"])  # not written in a file


@pytest.mark.parametrize("kind", SCHEMA_KINDS)
def test_every_zoo_file_validates_against_its_schema(
    capsys: pytest.CaptureFixture[str], kind: SchemaKind
) -> None:
    import jsonschema

    schema = _schema(capsys, kind)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    assert FILES[kind]
    for path in FILES[kind]:
        errors = [e.message for e in validator.iter_errors(yaml.safe_load(path.read_text()))]
        assert errors == [], path


@pytest.mark.parametrize(
    ("kind", "document"),
    [
        ("architecture", {"pe": "{PE[i]: 0 <= i < 4}", "bandwith": 64}),
        ("architecture", {"pe": "{PE[i]: 0 <= i < 4}", "bandwidth": "wide"}),
        ("architecture", {"bandwidth": 64}),
        ("dataflow", {"space_stamp": "{S[i] -> PE[i]}"}),
        ("network", {"layers": [{"name": "a", "workload": "gemm", "count": 0}]}),
        ("layout", {"layouts": {"A": [{"op": "shuffle"}]}}),
        ("constraints", {"levels": {"rf": {"sizes": {"k": [0]}}}}),
        ("constraints", {"spatial": {"i": 8}, "level": {}}),
        ("chain", {"statements": [{"name": "S0", "domain": "{S0[i]}", "acceses": {}}]}),
        ("fused", {"groups": [{"statements": ["S0"], "tiles": {"i": 0}}]}),
        ("fused", {"groups": [{"statements": ["S0"], "tiles": {"i": 2}, "halo": "drop"}]}),
    ],
)
def test_schema_refuses_what_loading_refuses(
    capsys: pytest.CaptureFixture[str], kind: str, document: dict[str, Any]
) -> None:
    import jsonschema

    errors = list(jsonschema.Draft202012Validator(_schema(capsys, kind)).iter_errors(document))
    assert errors


def _documented() -> set[str]:
    """The keys named in the tables of ``docs/specs.md``: the backquoted names of each row's
    first cell, and the keys listed as ``{a, b, ...}`` in a row."""
    keys = set()
    for line in (ROOT / "docs" / "specs.md").read_text().splitlines():
        if not line.startswith("| `"):
            continue
        quoted = line.split("`")[1::2]
        keys |= set(line.split("|")[1].split("`")[1::2])
        keys |= {k.strip() for q in quoted if q.startswith("{") for k in q.strip("{}").split(",")}
    return keys


@pytest.mark.parametrize(
    "model",
    [
        WorkloadSpec,
        ArchitectureSpec,
        LevelSpec,
        DataflowSpec,
        NetworkSpec,
        LayerSpec,
        ConstraintsSpec,
        LevelConstraints,
        ChainSpec,
        StatementSpec,
        FusedSpec,
        FusedGroupSpec,
    ],
)
def test_docs_list_every_key(model: type[Any]) -> None:
    keys = {n for n, f in model.model_fields.items() if not f.exclude} - {"version", "name"}
    assert keys <= _documented()
