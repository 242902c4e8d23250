"""The design space of affine space-time mappings: its points, symmetries, equivalence and data
movement."""
