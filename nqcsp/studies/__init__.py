"""Studies over many boards, built on ``nqcsp.api``: which single mandatory queens leave no solution
(``blockades``), which sets of k queens do (``queen_sets``), a search for blocked sets on boards too big
to sweep (``blockade_search``), and the completion threshold of OEIS A374013 (``threshold``).

One direction between them: threshold > blockade_search > blockades > queen_sets. May import every layer
below: ``nqcsp.api``, ``nqcsp.solvers``, ``nqcsp.bitboard``, ``nqcsp.proof``, ``nqcsp.board``,
``nqcsp.runtime``.
"""
