"""Shared base of the spec models: frozen pydantic models that know where they came from."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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
            problems = [
                f"{'.'.join(str(p) for p in err['loc']) or '(top)'}: {err['msg']}"
                for err in exc.errors()
            ]
            raise SpecError(
                f"invalid {cls.kind} spec: " + "; ".join(problems), source=source
            ) from exc

    @classmethod
    def from_yaml(cls: type[Spec], path: str | Path) -> Spec:
        """Read a spec from a YAML file."""
        data, lines = read_yaml(path)
        data = dict(data)
        data.setdefault("name", Path(path).stem)
        return cls.from_mapping(data, source=str(path), lines=lines)
