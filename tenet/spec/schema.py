"""The JSON Schema of each kind of spec file, for an editor's completion and checks (``tenet
schema KIND``): the keys the spec accepts, their types, defaults and descriptions, and the
``template`` (and, for a dataflow, ``fits``) header, where a whole value may be a placeholder
(``l1_size: ${l1}``) of a template parameter."""

from __future__ import annotations

from typing import Any, Literal, get_args

from tenet.spec.architecture import ArchitectureSpec
from tenet.spec.base import SpecModel
from tenet.spec.chain import ChainSpec
from tenet.spec.constraints import ConstraintsSpec
from tenet.spec.dataflow import DataflowSpec
from tenet.spec.fused import FusedSpec
from tenet.spec.layout import LayoutSpec
from tenet.spec.network import NetworkSpec
from tenet.spec.template import Fits, TemplateDecl
from tenet.spec.workload import WorkloadSpec

__all__ = ["SchemaKind", "SCHEMA_KINDS", "spec_schema"]

SchemaKind = Literal[
    "workload", "architecture", "dataflow", "network", "layout", "constraints", "chain", "fused"
]
"""The kinds of spec file with a schema."""
SCHEMA_KINDS: tuple[SchemaKind, ...] = get_args(SchemaKind)

_MODELS: dict[SchemaKind, type[SpecModel]] = {
    "workload": WorkloadSpec,
    "architecture": ArchitectureSpec,
    "dataflow": DataflowSpec,
    "network": NetworkSpec,
    "layout": LayoutSpec,
    "constraints": ConstraintsSpec,
    "chain": ChainSpec,
    "fused": FusedSpec,
}

PLACEHOLDER = {
    "type": "string",
    "pattern": r"^\s*\$(\{\w+\}|\w+)\s*$",
    "description": "A template parameter standing for the whole value (${name}).",
}
"""A whole value given by a template parameter, which the file's ``template`` declares."""


def spec_schema(kind: SchemaKind) -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) of a ``kind`` spec file.

    Examples
    --------
    >>> schema = spec_schema("architecture")
    >>> schema["title"], "pe" in schema["required"], "template" in schema["properties"]
    ('tenet architecture spec', True, True)
    """
    model = _MODELS[kind]
    schema = model.model_json_schema(mode="validation")
    properties = schema["properties"]
    for internal in ("source", "lines"):  # where a spec was read from: never written
        properties.pop(internal)
    schema["required"] = [k for k in schema.get("required", []) if k != "name"]
    properties["name"]["description"] = "Name of this entry (default: the file's name)."
    if kind in ("workload", "chain"):  # a tensor's read or write: one map, or a list of them
        access = schema["$defs"]["AccessSpec"]["properties"]
        for key in ("read", "write"):
            listed = access[key]
            access[key] = {
                "description": listed.pop("description"),
                "anyOf": [{"type": "string"}, listed],
            }
    schema = _placeholders(_described(schema))
    if kind not in ("layout", "constraints", "chain", "fused"):  # read as they are
        headers: dict[str, type[Any]] = {"template": TemplateDecl}
        if kind == "dataflow":
            headers["fits"] = Fits
        for key, header in headers.items():
            part = _described(header.model_json_schema(mode="validation"))
            schema.setdefault("$defs", {}).update(part.pop("$defs", {}))
            schema["properties"][key] = part
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
        "title": f"tenet {kind} spec",
    }


def _described(schema: Any) -> Any:
    """``schema`` with each description cut before its examples (docstrings' doctests)."""
    if isinstance(schema, dict):
        out = {k: _described(v) for k, v in schema.items()}
        if isinstance(out.get("description"), str):
            out["description"] = out["description"].split("\n\nExamples")[0].strip()
        return out
    if isinstance(schema, list):
        return [_described(v) for v in schema]
    return schema


def _placeholders(schema: Any) -> Any:
    """``schema`` where every number, integer or boolean may also be a :data:`PLACEHOLDER`."""
    if isinstance(schema, list):
        return [_placeholders(v) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _placeholders(v) for k, v in schema.items()}
    if out.get("type") in ("integer", "number", "boolean"):
        kept = {k: v for k, v in out.items() if k not in ("description", "title", "default")}
        shown = {k: v for k, v in out.items() if k not in kept}
        return {**shown, "anyOf": [kept, PLACEHOLDER]}
    return out
