"""Studies over many boards, built on ``nqcsp.api``: which single mandatory queens leave no solution
(``blockades``), which sets of k queens do (the level sweeps: ``queen_sets`` by classes, ``row_sweep`` by
row combinations, both on the skeleton of ``level_sweep``), a search for blocked sets on boards too big
to sweep (``blockade_search``), and the completion threshold of OEIS A374013 (``threshold``, its
evidence ``evidence``).

One direction between them (the import contract "studies" in pyproject.toml): threshold > row_sweep >
row_tasks > witness_file > blockade_search > blockades > queen_sets > set_recheck > set_tasks >
cover_cache > level_sweep > ksets. May import every layer below: ``nqcsp.api``, ``nqcsp.solvers``,
``nqcsp.bitboard``, ``nqcsp.proof``, ``nqcsp.board``, ``nqcsp.runtime``.
"""
