"""Ranking evaluated design points: objectives, constraints, Pareto fronts, the headline comparison
and the layout-aware re-ranking."""
