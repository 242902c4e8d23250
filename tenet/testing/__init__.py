"""Test support shipped with the package: hypothesis strategies for random problems."""
