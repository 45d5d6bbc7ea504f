"""Benchmarks: run with ``python -m benchmarks.run`` (see docs/benchmarks.md)."""
