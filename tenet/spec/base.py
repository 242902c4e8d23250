"""Shared base of the spec models: frozen pydantic models that know where they came from."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic_core import ErrorDetails

from tenet.errors import SpecError, VersionError
from tenet.spec.io import read_yaml

__all__ = ["SpecModel", "SUPPORTED_VERSION"]

SUPPORTED_VERSION = 1

Spec = TypeVar("Spec", bound="SpecModel")


class SpecModel(BaseModel):
    """A validated, immutable spec; ``source`` and ``lines`` locate its keys for errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: ClassVar[str] = "spec"

    version: int = Field(SUPPORTED_VERSION, description="Schema version of this file (1).")
    name: str = Field(description="Name of this entry.")
    source: str | None = Field(None, exclude=True, description="File the spec was read from.")
    lines: dict[str, int] = Field(
        default_factory=dict, exclude=True, description="Line of each dotted key path."
    )

    def document(self) -> dict[str, Any]:
        """Return the version and the keys this spec was given, as JSON-ready data (a file's
        content).

        Examples
        --------
        >>> from tenet.spec import DataflowSpec
        >>> DataflowSpec.from_mapping({"name": "d", "space_stamp": "{S[i] -> PE[i]}",
        ...     "time_stamp": "{S[i] -> T[0]}"}).document()["version"]
        1
        """
        return {"version": self.version, **self.model_dump(mode="json", exclude_unset=True)}

    def where(self, path: str) -> str:
        """Return ``path`` with its line number when the spec came from a file."""
        line = self.lines.get(path)
        return f"{path} (line {line})" if line else path

    @classmethod
    def from_mapping(
        cls: type[Spec],
        data: Mapping[str, Any],
        *,
        source: str | None = None,
        lines: Mapping[str, int] | None = None,
    ) -> Spec:
        """Validate ``data``; every problem found is listed in one :class:`SpecError`."""
        version = data.get("version", SUPPORTED_VERSION)
        if version != SUPPORTED_VERSION:
            raise VersionError(
                f"version {version!r} is not supported (expected {SUPPORTED_VERSION})",
                source=source,
                location="version",
            )
        try:
            return cls.model_validate({**data, "source": source, "lines": dict(lines or {})})
        except ValidationError as exc:
            problems = [_problem(cls, err, lines or {}) for err in exc.errors()]
            joined = f" {problems[0]}" if len(problems) == 1 else "\n  " + "\n  ".join(problems)
            raise SpecError(f"invalid {cls.kind} spec:{joined}", source=source) from exc

    @classmethod
    def field_names(cls) -> set[str]:
        """Return the keys this spec and the specs inside it accept."""
        return _field_names(cls, set())

    @classmethod
    def from_yaml(cls: type[Spec], path: str | Path) -> Spec:
        """Read a spec from a YAML file."""
        data, lines = read_yaml(path)
        data = dict(data)
        data.setdefault("name", Path(path).stem)
        return cls.from_mapping(data, source=str(path), lines=lines)


def _field_names(model: type[BaseModel], seen: set[type[BaseModel]]) -> set[str]:
    seen.add(model)
    names = {f.alias or n for n, f in model.model_fields.items() if not f.exclude}
    for info in model.model_fields.values():
        for kind in _types(info.annotation):
            if kind not in seen:
                names |= _field_names(kind, seen)
    return names


def _types(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [t for arg in get_args(annotation) for t in _types(arg)]


def _problem(model: type[SpecModel], error: ErrorDetails, lines: Mapping[str, int]) -> str:
    """One validation problem: its YAML line (of the key, or of the nearest key above it),
    the dotted key path, pydantic's reason, and the closest known key for an unknown one."""
    path = [str(p) for p in error["loc"]]
    line = next(
        (lines[".".join(path[:k])] for k in range(len(path), 0, -1) if ".".join(path[:k]) in lines),
        None,
    )
    where = ".".join(path) or "(top)"
    text = f"{where}: {error['msg']}"
    if error["type"] == "extra_forbidden" and path:
        known = sorted(model.field_names())
        close = difflib.get_close_matches(path[-1], known, n=1) or [
            k for k in known if k.startswith(path[-1])
        ]
        text = f"{where}: unknown key" + (f"; did you mean {close[0]!r}?" if close else "")
    return f"line {line}: {text}" if line else text
