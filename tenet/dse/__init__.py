"""Design-space exploration: enumerate affine space-time mappings, prune them, evaluate them in
parallel and rank them.

What the command line and other clients use is re-exported here, each name imported on first
use (the search needs pandas, slow to import for every command)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.lazy import lazy_exports

if TYPE_CHECKING:
    from tenet.dse.constraints import MappingConstraints
    from tenet.dse.explore import NOT_SEARCHED, Exploration, Sweep, sweep
    from tenet.dse.fusion import (
        FUSION_OBJECTIVES,
        ChainFigures,
        FusionCertificate,
        chain_document,
        evaluate_chain,
        fused_dataflow_text,
        search_chain,
    )
    from tenet.dse.joint.tree import joint_search
    from tenet.dse.layers import LAYER_COLUMNS, layer_table
    from tenet.dse.mapper import (
        SHOWN_COLUMNS,
        LayerEntry,
        Mapped,
        MappedLayer,
        dataflow_text,
        gap_words,
        kept_between,
        map_layers,
        map_report,
        network_entries,
        save_dataflows,
    )
    from tenet.dse.network import layer_counts, network_totals, record_network
    from tenet.dse.ranking.certificate import Certificate
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
    from tenet.dse.run.runner import Interrupted
    from tenet.dse.run.store import ROW_COLUMNS, ResultStore
    from tenet.dse.schedules import explore_schedule
    from tenet.dse.space.design import SpaceOptions, space_options
    from tenet.dse.strategies import (
        STRATEGIES,
        TILING_AUTO_LIMIT,
        TilingRequest,
        find_strategy,
        run_tiling,
        strategy_names,
        tile_mappings,
    )
    from tenet.dse.tiling.sizes import TilingSpace, check_tile_levels, check_tiling

__all__ = [
    "MappingConstraints",
    "FUSION_OBJECTIVES",
    "ChainFigures",
    "FusionCertificate",
    "chain_document",
    "evaluate_chain",
    "fused_dataflow_text",
    "search_chain",
    "ALIASES",
    "ARRAY_COLUMNS",
    "Certificate",
    "Constraint",
    "ExecutionOptions",
    "Exploration",
    "Interrupted",
    "LAYER_COLUMNS",
    "LAYOUT_COLUMN",
    "LayerEntry",
    "Mapped",
    "MappedLayer",
    "NOT_SEARCHED",
    "OBJECTIVES",
    "POINT_COLUMNS",
    "Progress",
    "ROW_COLUMNS",
    "ResultStore",
    "STRATEGIES",
    "SHOWN_COLUMNS",
    "SpaceOptions",
    "Sweep",
    "TILING_AUTO_LIMIT",
    "TilingSpace",
    "by_source",
    "check_tile_levels",
    "check_tiling",
    "compare_data_centric",
    "constrained",
    "dataflow_text",
    "design_report",
    "draw_pareto",
    "explore_schedule",
    "gap_words",
    "find_strategy",
    "TilingRequest",
    "joint_search",
    "layer_table",
    "kept_between",
    "layer_counts",
    "map_layers",
    "map_report",
    "network_entries",
    "network_totals",
    "record_network",
    "objective",
    "parse_constraint",
    "rank",
    "rank_by_layout",
    "run_tiling",
    "save_dataflows",
    "space_options",
    "stored_results",
    "stored_specs",
    "strategy_names",
    "sweep",
    "tile_mappings",
    "tiled_figures",
    "tiled_row",
    "tiled_rows",
    "untiled_figures",
    "with_mapping_rows",
]

_HOME = {
    "MappingConstraints": "constraints",
    "Exploration": "explore",
    "NOT_SEARCHED": "explore",
    "Sweep": "explore",
    "sweep": "explore",
    "FUSION_OBJECTIVES": "fusion",
    "ChainFigures": "fusion",
    "FusionCertificate": "fusion",
    "chain_document": "fusion",
    "evaluate_chain": "fusion",
    "fused_dataflow_text": "fusion",
    "search_chain": "fusion",
    "Certificate": "ranking.certificate",
    "joint_search": "joint.tree",
    "LAYER_COLUMNS": "layers",
    "layer_table": "layers",
    "SHOWN_COLUMNS": "mapper",
    "LayerEntry": "mapper",
    "Mapped": "mapper",
    "MappedLayer": "mapper",
    "dataflow_text": "mapper",
    "gap_words": "mapper",
    "kept_between": "mapper",
    "map_layers": "mapper",
    "map_report": "mapper",
    "network_entries": "mapper",
    "save_dataflows": "mapper",
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
    "Interrupted": "run.runner",
    "ROW_COLUMNS": "run.store",
    "ResultStore": "run.store",
    "SpaceOptions": "space.design",
    "space_options": "space.design",
    "explore_schedule": "schedules",
    "STRATEGIES": "strategies",
    "TILING_AUTO_LIMIT": "strategies",
    "TilingRequest": "strategies",
    "find_strategy": "strategies",
    "run_tiling": "strategies",
    "strategy_names": "strategies",
    "tile_mappings": "strategies",
    "check_tile_levels": "tiling.sizes",
    "check_tiling": "tiling.sizes",
    "TilingSpace": "tiling.sizes",
}
"""The module of each re-export, under ``tenet.dse``."""

__getattr__ = lazy_exports("tenet.dse", _HOME)
