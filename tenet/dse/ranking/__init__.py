"""Ranking what a search found: objectives, constraints, Pareto fronts, the headline
comparison, the layout-aware re-ranking, and the certificate of a tiling search."""
