"""What every layer runs on: time and memory limits (``limits``), executors and Dask (``parallel``),
checkpoint files (``checkpoint``), loading modules on first use (``lazy``), numba's helpers (``jit``), the
one check of plain values from outside (``values``: integers, seconds, JSON records), the one check of
paths nqcsp writes and the writing of whole files (``paths``), the one way native solver logs go
(``solver_logs``), and the one warm child (``warm_child``: a program asked many times over JSON lines,
killed with its group at a deadline, tied to the life of the process that owns it; the cpmpy backend's
engines, the pools' workers and the benchmark runner's workers all use it).

May import: the standard library, numpy, numba, and Dask when asked. Nothing of the rest of nqcsp.
"""
