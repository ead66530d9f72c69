"""The bitboard engine, in one place: exact counting and enumeration on the full board (n <= 64) and the
residual first-solution search behind the ``backtrack`` backend (any n, multi-word bitboards).

Importing this package is cheap: the numba kernels (``kernels``, ``residual_kernels``) load on first use.
"""

from nqcsp.bitboard.counting import CountTask, count, count_tasks, count_unique, run_count_task, solutions

__all__ = ["CountTask", "count", "count_tasks", "count_unique", "run_count_task", "solutions"]
