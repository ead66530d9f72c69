"""What every layer runs on: time and memory limits (``limits``), executors and Dask (``parallel``),
checkpoint files (``checkpoint``), loading modules on first use (``lazy``), numba's helpers (``jit``) and
the one check of plain values from outside (``values``).

May import: the standard library, numpy, numba, and Dask when asked. Nothing of the rest of nqcsp.
"""
