"""Entry points: load a problem with its layouts and scratchpad, and count its layout figures.

Layouts come from the dataflow's ``layout`` key, overridden tensor by tensor by a layout file
(:class:`tenet.spec.layout.LayoutSpec`) or a mapping; the scratchpad from the architecture's
``scratchpad`` key, else :class:`~tenet.spec.layout.ScratchpadSpec`'s defaults.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from tenet.api import load_specs
from tenet.files import write_atomically
from tenet.layout.metrics import LayoutMetrics, build_layouts, evaluate_layout
from tenet.layout.relation import Layout
from tenet.model.problem import Problem
from tenet.spec import ArchitectureSpec, DataflowSpec, WorkloadSpec
from tenet.spec.layout import LayoutSpec, ScratchpadSpec, TransformSpec
from tenet.vocab import Neighbourhood, Source, TensorName

__all__ = ["LayoutProblem", "load_layout_problem", "load_layout_file", "write_layout_file"]

Transforms = Mapping[TensorName, Sequence[TransformSpec]]


@dataclass(frozen=True)
class LayoutProblem:
    """A checked problem with the layout of every tensor and the scratchpad."""

    problem: Problem
    layouts: dict[TensorName, Layout]
    scratchpad: ScratchpadSpec

    def evaluate(self) -> LayoutMetrics:
        """Count the layout figures (see :mod:`tenet.layout.metrics`)."""
        return evaluate_layout(self.problem, self.layouts, self.scratchpad)

    def with_layouts(self, transforms: Transforms) -> LayoutProblem:
        """Return the same problem with the given tensors' layouts replaced."""
        built = build_layouts(self.problem, transforms, prefix="search")
        return LayoutProblem(
            self.problem,
            {**self.layouts, **{t: built[t] for t in transforms}},
            self.scratchpad,
        )


def load_layout_file(path: Source | LayoutSpec) -> LayoutSpec:
    """Read a layout file (``layouts: {tensor: [transforms]}``)."""
    return path if isinstance(path, LayoutSpec) else LayoutSpec.from_yaml(path)


def write_layout_file(path: str | Path, layouts: Mapping[TensorName, Layout]) -> None:
    """Write the transforms of ``layouts`` as a layout file that :func:`load_layout_file`
    reads back (tensors without a transform are left out)."""
    kept = {
        tensor: [s.model_dump(exclude_none=True) for s in layout.transforms]
        for tensor, layout in layouts.items()
        if layout.transforms
    }
    text = yaml.safe_dump({"version": 1, "layouts": kept}, sort_keys=False)
    write_atomically(path, lambda tmp: tmp.write_text(text))


def load_layout_problem(
    workload: Source | WorkloadSpec,
    architecture: Source | ArchitectureSpec,
    dataflow: Source | DataflowSpec,
    params: Mapping[str, int] | None = None,
    *,
    layout: Source | LayoutSpec | None = None,
    layouts: Transforms | None = None,
    scratchpad: ScratchpadSpec | None = None,
    neighbourhood: Neighbourhood = "window",
) -> LayoutProblem:
    """Load a problem and build its layouts (dataflow's ``layout`` key, then the ``layout``
    file, then ``layouts``) and scratchpad (``scratchpad``, else the architecture's).

    Examples
    --------
    >>> lp = load_layout_problem("gemm", "systolic-2d-8x8", "gemm-os-systolic",
    ...     {"M": 8, "N": 8, "K": 8}, layouts={"B": [TransformSpec(op="column_major")]})
    >>> lp.layouts["B"].address_text, lp.scratchpad.banks
    ('8 * (i1) + i0', 16)
    """
    specs = load_specs(workload, architecture, dataflow, params)
    problem = Problem.from_specs(specs, neighbourhood=neighbourhood)
    d = specs.require_dataflow()
    built = build_layouts(problem, d.layout, source=d.source, prefix="layout")
    if layout is not None:
        spec = load_layout_file(layout)
        built |= {
            t: lay
            for t, lay in build_layouts(
                problem, spec.layouts, source=spec.source, prefix="layouts"
            ).items()
            if t in spec.layouts
        }
    if layouts:
        built |= {
            t: lay
            for t, lay in build_layouts(problem, layouts, prefix="layouts").items()
            if t in layouts
        }
    scratchpad = scratchpad or specs.architecture.scratchpad or ScratchpadSpec()
    return LayoutProblem(problem, built, scratchpad)
