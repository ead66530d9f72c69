"""The board: what a problem and an answer are, and what follows from the board alone.

The problem (``problem``: n and the mandatory queens, validated), the result and its certificate
(``result``), the 8 symmetries and classes of cells (``symmetry``), the residual board every complete
backend searches (``residual``), the closed-form construction (``construction``), completion instances
(``completion``) and board text (``text``, with its column kernel ``_text_kernel``).

May import: ``nqcsp.runtime``, numpy, numba. Nothing that searches, proves or checks.
"""
