"""The trusted base: the few modules that decide whether an answer counts.

``verifier`` (and ``_verify_kernel``) checks a solution in O(n); ``statement`` builds the reference CNF of
a residual board and counts its size; ``dimacs`` is the one reader of DIMACS text from outside; ``lrat``
(and ``_lrat_kernel``) checks LRAT in linear time; ``drat`` runs dratify; ``certify`` decides whether a
certificate is checked, owning the check of a proof written during a search (``ProofChannel``); ``audit``
is ``nqcsp check-proof``'s check of a statement and proof from outside; ``outside`` runs a checker nobody
here wrote (cake_lpr) as a second opinion.

May import: ``nqcsp.board``, ``nqcsp.runtime``, numpy, numba, dratify, the standard library. Nothing that
produces an answer or a proof (no backend, kernel, study or command): the import-linter contracts in
``pyproject.toml`` and ``tests/test_layout.py`` keep it so.
"""
