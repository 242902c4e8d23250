"""The design space of affine space-time mappings: its points, symmetries, equivalence, data
movement and the points derived from schedules."""
