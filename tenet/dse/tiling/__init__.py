"""Tiles per memory level: the tiling space, the exhaustive tiling search, rTiles, hardware
alignment and the constructive scale-up."""
