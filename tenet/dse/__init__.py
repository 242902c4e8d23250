"""Design-space exploration: enumerate affine space-time mappings, prune them, evaluate them in
parallel and rank them.

What the command line and other clients use is re-exported here, each name imported on first
use (the search needs pandas, slow to import for every command)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tenet.lazy import exported, lazy_exports

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
    from tenet.dse.layers import *  # noqa: F403
    from tenet.dse.mapper import *  # noqa: F403
    from tenet.dse.network import layer_counts, network_totals, record_network
    from tenet.dse.ranking.certificate import Certificate
    from tenet.dse.ranking.headline import compare_data_centric
    from tenet.dse.ranking.layout import *  # noqa: F403
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
    from tenet.dse.ranking.pareto import *  # noqa: F403
    from tenet.dse.report import POINT_COLUMNS, design_report, stored_results, stored_specs
    from tenet.dse.rows import *  # noqa: F403
    from tenet.dse.run.execution import *  # noqa: F403
    from tenet.dse.run.runner import Interrupted
    from tenet.dse.run.store import ROW_COLUMNS, ResultStore
    from tenet.dse.schedules import *  # noqa: F403
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

_WHOLE = {
    name: module
    for module in (
        "layers",
        "mapper",
        "ranking.layout",
        "ranking.pareto",
        "rows",
        "run.execution",
        "schedules",
    )
    for name in exported(f"tenet.dse.{module}")
}
"""The names of the modules re-exported whole (their ``__all__``), with their module."""

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
    "Certificate",
    "Constraint",
    "Exploration",
    "Interrupted",
    "NOT_SEARCHED",
    "OBJECTIVES",
    "POINT_COLUMNS",
    "ROW_COLUMNS",
    "ResultStore",
    "STRATEGIES",
    "SpaceOptions",
    "Sweep",
    "TILING_AUTO_LIMIT",
    "TilingSpace",
    "by_source",
    "check_tile_levels",
    "check_tiling",
    "compare_data_centric",
    "constrained",
    "design_report",
    "find_strategy",
    "TilingRequest",
    "joint_search",
    "layer_counts",
    "network_totals",
    "record_network",
    "objective",
    "parse_constraint",
    "rank",
    "run_tiling",
    "space_options",
    "stored_results",
    "stored_specs",
    "strategy_names",
    "sweep",
    "tile_mappings",
    *_WHOLE,
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
    "layer_counts": "network",
    "network_totals": "network",
    "record_network": "network",
    "compare_data_centric": "ranking.headline",
    "ALIASES": "ranking.objectives",
    "OBJECTIVES": "ranking.objectives",
    "Constraint": "ranking.objectives",
    "by_source": "ranking.objectives",
    "constrained": "ranking.objectives",
    "objective": "ranking.objectives",
    "parse_constraint": "ranking.objectives",
    "rank": "ranking.objectives",
    "design_report": "report",
    "POINT_COLUMNS": "report",
    "stored_results": "report",
    "stored_specs": "report",
    "Interrupted": "run.runner",
    "ROW_COLUMNS": "run.store",
    "ResultStore": "run.store",
    "SpaceOptions": "space.design",
    "space_options": "space.design",
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
    **_WHOLE,
}
"""The module of each re-export, under ``tenet.dse``."""

__getattr__ = lazy_exports("tenet.dse", _HOME)
