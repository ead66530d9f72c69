"""``nqcsp warmup``: compile every numba kernel ahead, so that no later command waits for a compiler.

numba compiles a kernel on its first call and keeps the machine code in its cache (``__pycache__`` beside
the source, or ``NUMBA_CACHE_DIR``); after a fresh install the first commands wait for it (23.8 s for the
first ``nqcsp solve 6 --queen 0,0``, then 0.9 s). Each step below runs a small problem through a public
path that reaches a family of kernels, on the argument types the commands use; on a warm cache it only
loads them.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

from nqcsp.cli.common import EXIT_OK

# The modules that define numba kernels: ``kernels()`` lists their dispatchers, and the test of this
# command checks that every one of them is compiled after it.
KERNEL_MODULES = ("nqcsp.bitboard.coverage", "nqcsp.bitboard.derived_witnesses", "nqcsp.bitboard.kernels",
                  "nqcsp.bitboard.permutation_ranks",
                  "nqcsp.bitboard.queen_set_kernels", "nqcsp.bitboard.residual_kernels",
                  "nqcsp.bitboard.row_sweep_kernels", "nqcsp.board._text_kernel", "nqcsp.proof._lrat_kernel",
                  "nqcsp.proof._verify_kernel", "nqcsp.solvers._kernels.localsearch")

# Kernels only large studies reach, left to compile on first use (with the notice of nqcsp.runtime.jit):
# the rank encoding of published evidence, the re-check of cached set covers, the blocked-set search's
# estimate, the row sweep's marking of one witness at a time, and the derivation of derived witnesses.
NOT_WARMED = frozenset({
    "nqcsp.bitboard.derived_witnesses.derive", "nqcsp.bitboard.derived_witnesses.hint_state",
    "nqcsp.bitboard.permutation_ranks._select", "nqcsp.bitboard.permutation_ranks._rank",
    "nqcsp.bitboard.permutation_ranks.permutations_to_gaps",
    "nqcsp.bitboard.permutation_ranks.gaps_to_permutations", "nqcsp.bitboard.queen_set_kernels.cover_many",
    "nqcsp.bitboard.queen_set_kernels.estimate_completions", "nqcsp.bitboard.row_sweep_kernels._mark_one"})


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("warmup", help="compile every numba kernel ahead (once after installing)",
                            description="Compile every numba kernel nqcsp uses into numba's cache, so that "
                                        "no later command waits for the compiler (the first commands "
                                        "after an install otherwise compile what they use: seconds to "
                                        "tens of seconds). On a warm cache it only loads them.")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.set_defaults(run=run)


def _solve_and_prove() -> None:
    import nqcsp

    nqcsp.solve(8, [(0, 3)])
    nqcsp.solve(6, [(0, 0)])  # the backtracker's search writes an LRAT proof, checked by nqcsp's checker
    nqcsp.solve(12, [(0, 0), (5, 7)], solver="backtrack")


def _count_and_enumerate() -> None:
    import nqcsp
    from nqcsp.bitboard.counting import count_tasks

    nqcsp.count(8, [(0, 3)])
    nqcsp.count_unique(8)
    count_tasks(10)  # the split of a count into tasks of about a second each, by estimated nodes
    for _ in nqcsp.solutions(6):
        pass


def _local_search() -> None:
    import nqcsp

    for solver in ("qs4", "minconflicts"):
        nqcsp.solve(200, [(100, 66)], solver=solver, seed=0)


def _big_boards() -> None:
    """The checker's and the board text's own kernels, which only boards past a size use."""
    import nqcsp
    from nqcsp.board.text import KERNEL_FROM, column_text_chunks
    from nqcsp.proof.verifier import KERNEL_MIN_N_NUMBA_LOADED

    n = max(KERNEL_MIN_N_NUMBA_LOADED, KERNEL_FROM)
    columns = nqcsp.solve(n, solver="construct").columns
    if columns is None:
        raise nqcsp.InternalSolverError(f"the construction gave no solution of n = {n}")
    nqcsp.verify(n, columns)
    for _ in column_text_chunks(columns):
        pass


def _export() -> None:
    import io

    from nqcsp.board.problem import Problem
    from nqcsp.solvers.cnf import stream_pairwise_dimacs

    stream_pairwise_dimacs(Problem(6, ((0, 0),)), io.BytesIO())


def _blockades_and_thresholds() -> None:
    """The blockade sweep, both engines of the threshold's sweep and the re-check of their evidence (its
    coverage counts)."""
    import nqcsp
    from nqcsp.studies.threshold import ENGINES

    nqcsp.blockades(6)
    for engine in ENGINES:
        threshold = nqcsp.completion_threshold(10, engine=engine, jobs=1)  # a(10) = 2: a sweep of sets
        nqcsp.check_threshold(threshold.to_json(), jobs=1)


# (what the step compiles, the step), in the order a new user meets them.
STEPS: tuple[tuple[str, Callable[[], None]], ...] = (
    ("solving and proving", _solve_and_prove),
    ("counting and enumerating", _count_and_enumerate),
    ("local search", _local_search),
    ("big boards: the checker, the board text", _big_boards),
    ("DIMACS export", _export),
    ("blockades and thresholds", _blockades_and_thresholds),
)


def kernels() -> Iterator[tuple[str, Any]]:
    """Every numba kernel of nqcsp: (module.name, dispatcher)."""
    import importlib

    from numba.core.dispatcher import Dispatcher

    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            if isinstance(value, Dispatcher) and value.py_func.__module__ == name:
                yield f"{name}.{attribute}", value


def inlined(kernel: Any) -> bool:
    """Whether ``kernel`` is inlined into its callers (``inline="always"``): then it has no machine code of
    its own to compile or cache."""
    return kernel.targetoptions.get("inline", "never") != "never"


def warm(progress: bool = False) -> None:
    """Run every step (with a bar on stderr when ``progress`` and stderr is a terminal)."""
    from tqdm import tqdm

    bar = tqdm(STEPS, desc="nqcsp warmup", unit="step", file=sys.stderr,
               disable=not (progress and sys.stderr.isatty()), leave=False)
    for description, step in bar:
        bar.set_postfix_str(description, refresh=True)
        step()
    bar.close()


def run(args: argparse.Namespace) -> int:
    from nqcsp.runtime.jit import hold_compile_notice, needs_compiling

    hold_compile_notice()  # the bar says what is compiling
    started = time.perf_counter()
    own = [kernel for _, kernel in kernels() if not inlined(kernel)]
    cold = sum(needs_compiling(kernel) for kernel in own)
    warm(progress=not args.no_progress)
    left = sum(needs_compiling(kernel) for kernel in own)
    seconds = time.perf_counter() - started
    print(f"{len(own) - left} numba kernels ready, {cold - left} of them compiled now, in {seconds:.1f} s "
          f"({left} that only large studies use compile when first used)")
    return EXIT_OK
