"""Design-space exploration: enumerate affine space-time mappings, prune them, evaluate them in
parallel and rank them.

What the command line and other clients use is re-exported here, each name imported on first
use (the search needs pandas, slow to import for every command)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tenet.dse.explore import Exploration, Sweep, sweep
    from tenet.dse.joint.run import Certificate, joint_search
    from tenet.dse.layers import LAYER_COLUMNS, layer_table
    from tenet.dse.ranking.headline import compare_data_centric
    from tenet.dse.ranking.layout import LAYOUT_COLUMN, rank_by_layout
    from tenet.dse.ranking.objectives import (
        ALIASES,
        OBJECTIVES,
        Constraint,
        by_source,
        constrained,
        objective,
        parse_constraint,
        rank,
    )
    from tenet.dse.ranking.pareto import draw_pareto
    from tenet.dse.report import design_report, stored_results
    from tenet.dse.run.execution import ExecutionOptions, Progress
    from tenet.dse.run.store import ROW_COLUMNS, ResultStore
    from tenet.dse.space.design import SpaceOptions, space_options
    from tenet.dse.space.schedules import explore_schedule
    from tenet.dse.tiling.run import run_tiling, tile_mappings
    from tenet.dse.tiling.search import TilingSearch, TilingSpace

__all__ = [
    "ALIASES",
    "Certificate",
    "Constraint",
    "ExecutionOptions",
    "Exploration",
    "LAYER_COLUMNS",
    "LAYOUT_COLUMN",
    "OBJECTIVES",
    "Progress",
    "ROW_COLUMNS",
    "ResultStore",
    "SpaceOptions",
    "Sweep",
    "TilingSearch",
    "TilingSpace",
    "by_source",
    "compare_data_centric",
    "constrained",
    "design_report",
    "draw_pareto",
    "explore_schedule",
    "joint_search",
    "layer_table",
    "objective",
    "parse_constraint",
    "rank",
    "rank_by_layout",
    "run_tiling",
    "space_options",
    "stored_results",
    "sweep",
    "tile_mappings",
]

_HOME = {
    "Exploration": "explore",
    "Sweep": "explore",
    "sweep": "explore",
    "Certificate": "joint.run",
    "joint_search": "joint.run",
    "LAYER_COLUMNS": "layers",
    "layer_table": "layers",
    "compare_data_centric": "ranking.headline",
    "LAYOUT_COLUMN": "ranking.layout",
    "rank_by_layout": "ranking.layout",
    "ALIASES": "ranking.objectives",
    "OBJECTIVES": "ranking.objectives",
    "Constraint": "ranking.objectives",
    "by_source": "ranking.objectives",
    "constrained": "ranking.objectives",
    "objective": "ranking.objectives",
    "parse_constraint": "ranking.objectives",
    "rank": "ranking.objectives",
    "draw_pareto": "ranking.pareto",
    "design_report": "report",
    "stored_results": "report",
    "ExecutionOptions": "run.execution",
    "Progress": "run.execution",
    "ROW_COLUMNS": "run.store",
    "ResultStore": "run.store",
    "SpaceOptions": "space.design",
    "space_options": "space.design",
    "explore_schedule": "space.schedules",
    "run_tiling": "tiling.run",
    "tile_mappings": "tiling.run",
    "TilingSearch": "tiling.search",
    "TilingSpace": "tiling.search",
}
"""The module of each re-export, under ``tenet.dse``."""


def __getattr__(name: str) -> Any:
    """Import a re-export on first use."""
    if name not in _HOME:
        raise AttributeError(f"module 'tenet.dse' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"tenet.dse.{_HOME[name]}"), name)
    globals()[name] = value
    return value
