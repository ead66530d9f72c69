"""Comparison suite for nqcsp: ``python -m benchmarks run SUITE``, ``python -m benchmarks analyze FILE``."""
