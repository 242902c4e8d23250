"""Design-space exploration: enumerate affine space-time mappings, prune them, evaluate them in
parallel and rank them.

What the command line and other clients use is re-exported here, each name imported on first
use (the search needs pandas, slow to import for every command)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.lazy import lazy_exports

if TYPE_CHECKING:
    from tenet.dse.explore import NOT_SEARCHED, Exploration, Sweep, sweep
    from tenet.dse.joint.run import Certificate, joint_search
    from tenet.dse.layers import LAYER_COLUMNS, layer_table
    from tenet.dse.network import layer_counts, network_totals, record_network
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
    from tenet.dse.report import POINT_COLUMNS, design_report, stored_results, stored_specs
    from tenet.dse.rows import (
        ARRAY_COLUMNS,
        tiled_figures,
        tiled_row,
        tiled_rows,
        untiled_figures,
        with_mapping_rows,
    )
    from tenet.dse.run.execution import ExecutionOptions, Progress
    from tenet.dse.run.store import ROW_COLUMNS, ResultStore
    from tenet.dse.space.design import SpaceOptions, space_options
    from tenet.dse.space.schedules import explore_schedule
    from tenet.dse.tiling.run import (
        TILING_AUTO_LIMIT,
        check_tile_levels,
        check_tiling,
        run_tiling,
        tile_mappings,
    )
    from tenet.dse.tiling.search import TilingSearch, TilingSpace

__all__ = [
    "ALIASES",
    "ARRAY_COLUMNS",
    "Certificate",
    "Constraint",
    "ExecutionOptions",
    "Exploration",
    "LAYER_COLUMNS",
    "LAYOUT_COLUMN",
    "NOT_SEARCHED",
    "OBJECTIVES",
    "POINT_COLUMNS",
    "Progress",
    "ROW_COLUMNS",
    "ResultStore",
    "SpaceOptions",
    "Sweep",
    "TILING_AUTO_LIMIT",
    "TilingSearch",
    "TilingSpace",
    "by_source",
    "check_tile_levels",
    "check_tiling",
    "compare_data_centric",
    "constrained",
    "design_report",
    "draw_pareto",
    "explore_schedule",
    "joint_search",
    "layer_table",
    "layer_counts",
    "network_totals",
    "record_network",
    "objective",
    "parse_constraint",
    "rank",
    "rank_by_layout",
    "run_tiling",
    "space_options",
    "stored_results",
    "stored_specs",
    "sweep",
    "tile_mappings",
    "tiled_figures",
    "tiled_row",
    "tiled_rows",
    "untiled_figures",
    "with_mapping_rows",
]

_HOME = {
    "Exploration": "explore",
    "NOT_SEARCHED": "explore",
    "Sweep": "explore",
    "sweep": "explore",
    "Certificate": "joint.run",
    "joint_search": "joint.run",
    "LAYER_COLUMNS": "layers",
    "layer_table": "layers",
    "layer_counts": "network",
    "network_totals": "network",
    "record_network": "network",
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
    "POINT_COLUMNS": "report",
    "stored_results": "report",
    "stored_specs": "report",
    "ARRAY_COLUMNS": "rows",
    "tiled_figures": "rows",
    "tiled_row": "rows",
    "tiled_rows": "rows",
    "untiled_figures": "rows",
    "with_mapping_rows": "rows",
    "ExecutionOptions": "run.execution",
    "Progress": "run.execution",
    "ROW_COLUMNS": "run.store",
    "ResultStore": "run.store",
    "SpaceOptions": "space.design",
    "space_options": "space.design",
    "explore_schedule": "space.schedules",
    "TILING_AUTO_LIMIT": "tiling.run",
    "run_tiling": "tiling.run",
    "check_tile_levels": "tiling.run",
    "check_tiling": "tiling.run",
    "tile_mappings": "tiling.run",
    "TilingSearch": "tiling.search",
    "TilingSpace": "tiling.search",
}
"""The module of each re-export, under ``tenet.dse``."""

__getattr__ = lazy_exports("tenet.dse", _HOME)
