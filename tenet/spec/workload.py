"""WorkloadSpec: the iteration domain of one statement and its tensor accesses, as isl text."""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator

from tenet.spec.base import SpecModel

__all__ = ["AccessSpec", "WorkloadSpec"]


class AccessSpec(BaseModel):
    """How one tensor is accessed: isl maps ``S[...] -> TENSOR[...]`` (several are joined)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    read: tuple[str, ...] = Field((), description="Read access maps of the tensor.")
    write: tuple[str, ...] = Field((), description="Write access maps of the tensor.")

    @field_validator("read", "write", mode="before")
    @classmethod
    def _one_or_many(cls, value: object) -> object:
        return (value,) if isinstance(value, str) else value


class WorkloadSpec(SpecModel):
    """A tensor operation: ``domain`` is ``{S[...]: ...}``; ``accesses`` maps tensor names to
    their read and write maps. ``params`` gives default values of size parameters.

    Examples
    --------
    >>> spec = WorkloadSpec.from_mapping({"name": "copy", "domain": "{S[i]: 0 <= i < 4}",
    ...     "accesses": {"A": {"read": "{S[i] -> A[i]}"}, "B": {"write": "{S[i] -> B[i]}"}}})
    >>> [t for t in spec.accesses]
    ['A', 'B']
    """

    kind: ClassVar[str] = "workload"

    params: dict[str, int] = Field(
        default_factory=dict, description="Default values of the size parameters."
    )
    domain: str = Field(description="Iteration domain, an isl set {S[...]: ...}.")
    accesses: dict[str, AccessSpec] = Field(
        description="Per tensor name, its read and/or write access maps."
    )
    reductions: tuple[str, ...] = Field(
        (), description="Tensors updated by a reduction (+=), whose order may change."
    )
