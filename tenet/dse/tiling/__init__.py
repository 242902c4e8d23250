"""Tiles per memory level: the exhaustive tiling search and its runner, rTiles, hardware alignment
and the constructive scale-up."""
