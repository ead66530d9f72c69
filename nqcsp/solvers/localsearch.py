"""Local search in numba (incomplete): ``qs4`` (Sosic & Gu) and ``minconflicts`` (Minton et al.).

The Python layer validates options, allocates the state arrays once, and calls a kernel in chunks of
work sized from the measured speed, so ``time_limit`` is checked between chunks (numba has no clock)
and the run resumes from its arrays. Both answer SAT or UNKNOWN, never UNSAT: when the restart budget
or the time runs out they give up, which is also how boards without a solution (n = 2, 3, blockade
cells) end. The default budget is finite and small for small n, so a caller that falls back to a
complete solver does not wait long on a hopeless instance.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

from nqcsp.board.construction import (
    NEAR_SOLUTION_S_PER_QUEEN,
    composed,
    composition_factors,
    near_solution,
    padded,
    padding_origin,
    swap_in,
)
from nqcsp.board.problem import Problem
from nqcsp.board.result import Result, Status, columns_array
from nqcsp.runtime.lazy import kernel_startup_s, load
from nqcsp.runtime.limits import Limits, time_limit_reason
from nqcsp.solvers.base import REASON, STAGE, Clock

_DEFAULT_RESTARTS = 10
# Greedy tries per row before the row is placed anyway (only hit on crowded boards).
_SCAN_LIMIT = 4096
# qs4's list of attacked rows: a run that would outgrow it restarts (never seen at the default tail).
_MAX_WORK = 1 << 20
# Chunks take at most this long without a time limit, and at most this share of a limit.
_CHUNK_S = 0.25
_CHUNK_SHARE = 0.03


# ``start="construction"``: the first attempt starts from the closed-form solution with the mandatory
# queens swapped in. The greedy start is a chain of random lookups into counters far beyond the cache
# (about 40 ns a try, 13 s at n = 10^8), while the near-solution is written and counted in memory order:
# at 10^8 about 1 s in all. But the closed form is rigid: every line of the middle band of one diagonal
# family is taken, so a conflict in a middle row has nowhere to go, and the repair succeeded for only 6
# of 40 random single queens at n = 2^21 (the others fell back to the greedy start, having spent about
# 0.7 s at 10^8 on the attempt). One mandatory queen is instead built into the start: where n = m * k with
# k > 1 coprime to 6, a solution of m queens holding the queen's block (a nested qs4 run on the small
# board) composed with a modular solution of k is a solution holding the queen itself
# (``construction.composed``), with nothing left to repair. More mandatory queens are swapped into the
# composition holding the first; unlike the closed form, it is then repaired at once when its outer
# board is big enough: no restart in 76 random sets of 2 to 30 queens (n from 2.56 * 10^6 to 10^9) on
# outer boards of 128 to 4096, against restarts in 5 of 29 on outer boards of 64 and 80, in 2 of 3 on
# one of 8, and in 2 of 2 from the modular solution alone (outer 1). The swaps stop succeeding as the
# queens get many: 50 queens were repaired at 10^7 and 100 at 10^8, 100 were not at 10^7, nor 200 to
# 1000 at either (queens taken from another solution). A restart falls back to the greedy start, at 10^9
# about 110 s. An n with no such composition (a prime, 2^30, 4p, ...) gets a padded one: a composition of
# m = n - k on the m x m corner holding the first queen and k queens on the opposite corner, which attack
# a few of its queens on the lines through that corner (``construction.padded``). With an outer board of
# 128 or more those are repaired at once too: no restart in 72 random sets of 2 to 30 queens on 12 boards
# near 3 * 10^6 (primes, 2p, 3p, 4p, 2^21, 2^22, 3 * 2^20, 9 * 2^18; k = 1 in each), nor in 168 sets of
# 1, 2 and 5 with k forced to 1, 4, 5, 8, 16, 40 and 64; against restarts in 6 of 12 single queens padded
# onto the modular solution alone or an outer board of 8, and in 10 of 12 with k = 3 (the corner then
# has three queens on one line: k = 2 and 3 are skipped). So ``"auto"``
# takes a constructed start where it does not fail: big boards without mandatory queens (the closed
# form), with one that a composition of n holds, or with up to ``REPAIRED_QUEENS_MAX`` and a composition,
# padded or not, of an outer board of at least ``REPAIRED_OUTER_MIN``; every other board starts greedy.
CONSTRUCTED_START_MIN_N = 1 << 20
REPAIRED_OUTER_MIN = 128
REPAIRED_QUEENS_MAX = 32
# Rows and columns left outside a padded composition, at most (``composed_start``): past 2^20, an m this
# close to n with an outer board of 128 or more is found within a few.
PADDING_MAX = 64
# Outer boards whose nested run is cheap (a greedy start of 2^20 queens, about 0.2 s): a padding up to
# PADDING_MAX with one is preferred to a composition of n itself with a bigger one.
CHEAP_OUTER_MAX = 1 << 20
# Compositions tried before giving up (a small outer board may have no solution holding the block). The
# outer board is at most n / 5, so its nested run costs a fraction of the greedy start it replaces.
COMPOSED_TRIES = 4


def constructed_start(n: int, start: str, limits: Limits) -> bool:
    """Whether the first attempt may start from a constructed board (``start`` is "auto", "greedy" or
    "construction"): only when building it, which cannot be interrupted, fits in the time left; else the
    greedy start, which runs in chunks between looks at the clock. "auto" asks for it on big boards (see
    ``_start_board`` for the boards with mandatory queens)."""
    automatic = start == "auto" and n >= CONSTRUCTED_START_MIN_N
    return _build_fits(n, limits) and (start == "construction" or automatic)


def _build_fits(n: int, limits: Limits) -> bool:
    """Whether building a constructed board of n queens, which cannot be interrupted, ends in the time
    left. Asked again right before a build: a nested outer run may have used the time in between."""
    remaining = limits.remaining()
    return remaining is None or NEAR_SOLUTION_S_PER_QUEEN * n <= remaining


def _outer_board(splits: list[tuple[int, int]], cell: tuple[int, int], limits: Limits,
                 seed: int) -> tuple[np.ndarray, int] | None:
    """For a composition holding ``cell``: a solution of the outer board of one of the first ``splits``
    holding the cell's block, found by a nested qs4 run, and the inner size."""
    row, col = cell
    for outer, inner in splits[:COMPOSED_TRIES]:
        if outer == 1:
            return np.zeros(1, dtype=np.int64), inner
        found = Qs4Solver().solve(Problem(outer, [(row // inner, col // inner)]),
                                  limits=limits, seed=seed, start="greedy")
        if found.status is Status.SAT and found.columns is not None:
            return found.columns, inner
    return None


def _splits(n: int, limits: Limits, outer_min: int) -> list[tuple[int, int]]:
    """The compositions of n with an outer board of at least ``outer_min``, smallest first."""
    # The outer run's arrays and answer live beside this run's; a split whose outer board would not fit
    # with them is not tried.
    room = limits.memory - bytes_needed(n)
    return [(outer, inner) for outer, inner in composition_factors(n)
            if outer >= outer_min and bytes_needed(outer) <= room]


def default_tail(n: int) -> int:
    """Queens placed at random after the greedy phase (Sosic & Gu's c).

    Interpolated in log10(n) through the published values (30 at 10^3, 50 at 10^4, 80 at 10^5, 100 from
    10^6 on); below n = 10 every queen is random, since a greedy start buys nothing there.
    """
    if n <= 10:
        return n
    return min(n, round(float(np.interp(math.log10(n), [1, 3, 4, 5, 6], [10, 30, 50, 80, 100]))))


def default_restarts(n: int) -> int:
    """Attempts after the first: many for small boards, where one costs microseconds and a strict
    descent often ends in a local minimum, few for big ones, where the greedy start almost never fails."""
    return max(_DEFAULT_RESTARTS, min(1000, 10_000 // max(n, 1)))


def default_failed_swaps(n: int, tail: int) -> int:
    """Refused swaps before a qs4 attempt restarts: generous for big boards, small for tiny ones."""
    return min(2000 + 400 * tail, 100 * n + 100)


def _seed(seed: int | None) -> int:
    return secrets.randbits(63) if seed is None else seed


# Loading the kernel (``nqcsp.runtime.lazy.kernel_startup_s``) may run this much over the deadline rather
# than never start in a fresh process.
KERNEL_LOAD_GRACE_S = 0.4
# Seconds to compile a kernel that numba's cache does not hold (a fresh install), measured with an empty
# NUMBA_CACHE_DIR: qs4 4.6 s on the idle machine, minconflicts 5.5 s with the other core busy; with
# margin. A limit too short for it answers UNKNOWN instead of compiling past its deadline (qs4 took 5.1 s
# under a 0.5 s limit before).
KERNEL_COMPILE_S = 8.0


KERNELS = "nqcsp.solvers._kernels.localsearch"




def diagonal_bytes(n: int) -> int:
    """The kernels' diagonal counters: 2 bits per line, 2n - 1 lines in each of the two families."""
    return (2 * (2 * n - 1) + 3) // 4 if n else 0


def bytes_needed(n: int) -> int:
    """The arrays of a run: columns (4 or 8 bytes), the packed diagonal counters (n bytes), the column
    counters of min-conflicts (n), the mandatory-row bitset, and qs4's bounded list of attacked rows."""
    column_bytes = 4 if n < 2**31 else 8
    return n * (column_bytes + 1) + diagonal_bytes(n) + n // 8 + 8 * _MAX_WORK


def _option(options: dict[str, Any], name: str, default: int) -> int:
    """A resolved option (already checked by the registry's schema), or its per-n default when None."""
    value = options.get(name)
    return default if value is None else int(value)


class _LocalSearch:
    name = ""
    kernel = ""

    def startup_s(self) -> float:
        """Seconds before the search can start: loading its compiled kernel, once per process (numba's
        import too, when no kernel imported it yet). The portfolio adds them to a local-search budget,
        which is meant for searching."""
        return kernel_startup_s(KERNELS, self.kernel)

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None = None,
              **options: Any) -> Result:
        startup = self.startup_s()
        if startup:
            # Importing numba and loading the cached kernel cannot be interrupted.
            limits.need_time("search", startup, grace=KERNEL_LOAD_GRACE_S,
                             why=f"loading {self.name}'s kernel")
        kernels = load(KERNELS)
        limits.need_compiled("search", getattr(kernels, self.kernel), KERNEL_COMPILE_S,
                             f"{self.name}'s kernel", grace=KERNEL_LOAD_GRACE_S)

        clock = Clock(limits)
        seed = _seed(seed)
        n = problem.n
        stats: dict[str, Any] = {"seed": seed}
        if problem.attack is not None or n == 0:
            stats[REASON] = "mandatory queens attack each other" if n else "empty board"
            return Result(problem, Status.UNKNOWN if n else Status.SAT, self.name,
                          columns=None if n else columns_array([], 0), stats=stats)
        limits.need_memory("search", bytes_needed(n), f"local search on {n} queens")
        state = np.zeros(kernels.STATE_SIZE, dtype=np.int64)
        rng = np.array([seed], dtype=np.uint64)
        mandatory = problem.queen_array
        fixed = np.zeros((n + 7) // 8, dtype=np.uint8)
        np.bitwise_or.at(fixed, mandatory[:, 0] >> 3, (1 << (mandatory[:, 0] & 7)).astype(np.uint8))
        tail = _option(options, "tail", default_tail(n))
        state[kernels.GREEDY_END] = n - min(tail, n)
        state[kernels.MAX_RESTARTS] = _option(options, "max_restarts", default_restarts(n))
        state[kernels.SCAN_LIMIT] = _SCAN_LIMIT
        state[kernels.FREE_ROWS] = n - len(mandatory)
        self._configure(state, options, n, tail, kernels)
        q, how = _start_board(n, mandatory, str(options.get("start") or "auto"), limits, seed)
        stats.update(how)
        if q is None:
            q = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
        else:
            state[kernels.CONSTRUCTED] = 1
        diag = np.zeros(diagonal_bytes(n), dtype=np.uint8)
        step = self._stepper(kernels, q, diag, fixed, mandatory, state, rng)
        kernel_s, chunks = _run_in_chunks(step, state, kernels, clock)
        stats.update(iterations=int(state[kernels.ITERATIONS]), restarts=int(state[kernels.RESTARTS]),
                     initial_conflicts=int(state[kernels.INITIAL_CONFLICTS]), kernel_s=kernel_s,
                     chunks=chunks, tail=tail)
        phase = state[kernels.PHASE]
        if phase == kernels.SOLVED:
            return Result(problem, Status.SAT, self.name, columns=columns_array(q, n), stats=stats)
        if phase == kernels.EXHAUSTED:
            stats[REASON] = "restart budget exhausted"
        else:
            stats[REASON], stats[STAGE] = time_limit_reason("search", limits.time_limit), "search"
        return Result(problem, Status.UNKNOWN, self.name, stats=stats)

    def _configure(self, state: np.ndarray, options: dict[str, Any], n: int, tail: int, kernels: Any) -> None:
        raise NotImplementedError

    def _stepper(self, kernels: Any, q: np.ndarray, diag: np.ndarray, fixed: np.ndarray,
                 mandatory: np.ndarray, state: np.ndarray, rng: np.ndarray) -> Any:
        raise NotImplementedError


def _start_board(n: int, mandatory: np.ndarray, start: str, limits: Limits,
                 seed: int) -> tuple[np.ndarray | None, dict[str, Any]]:
    """The first attempt's board and the stats saying how it was made: "composition" (a composition
    holding the first mandatory queen, the others swapped in; "composition" names the split, "padding"
    the queens outside it), "construction" (the closed form, mandatory queens swapped in) or "greedy"
    (no board: the kernel builds it)."""
    if not constructed_start(n, start, limits):
        return None, {"start": "greedy"}
    if len(mandatory):
        found = composed_start(n, mandatory, limits, seed)
        if found is not None:
            board, (outer, inner), padding = found
            return swap_in(board, mandatory), {"start": "composition", "composition": f"{outer} x {inner}",
                                               "padding": padding}
        if start == "auto" or not _build_fits(n, limits):
            return None, {"start": "greedy"}
    return near_solution(n, mandatory), {"start": "construction"}


def composed_start(n: int, mandatory: np.ndarray, limits: Limits,
                   seed: int) -> tuple[np.ndarray, tuple[int, int], int] | None:
    """A composition holding the first mandatory queen (``(k, 2)`` cells) that the swaps will repair once
    the others are swapped in, with its split (outer, inner) and padding (``construction.padded``; 0: a
    composition of n itself, which for one queen may have any outer board since nothing is left to
    repair). The outer board is a nested qs4 run. None past ``REPAIRED_QUEENS_MAX`` queens, when no
    composition qualifies, or when the time left no longer covers building the board."""
    if len(mandatory) > REPAIRED_QUEENS_MAX:
        return None
    cell = (int(mandatory[0, 0]), int(mandatory[0, 1]))
    for padding, splits in _paddings(n, len(mandatory), limits):
        top, left = padding_origin(n, n - padding, cell)
        found = _outer_board(splits, (cell[0] - top, cell[1] - left), limits, seed)
        if not _build_fits(n, limits):
            return None
        if found is not None:
            blocks, inner = found
            board = composed(blocks, inner, cell) if padding == 0 else padded(blocks, inner, cell, n)
            return board, (len(blocks), inner), padding
    return None


def _paddings(n: int, queens: int, limits: Limits) -> Iterator[tuple[int, list[tuple[int, int]]]]:
    """(padding, splits of n - padding allowed) to try, best first: by padding those with a cheap outer
    board (at most ``CHEAP_OUTER_MAX``), then the others by the size of their smallest outer board (its
    nested run is a greedy start, at 2 * 10^8 about 25 s). Lazy: the first usually does."""
    costly = []
    for padding in range(min(PADDING_MAX, (n - 1) // 2) + 1):
        if padding in (2, 3):
            continue    # the corner needs a solution of its own (``construction.padded``)
        splits = _splits(n - padding, limits, 1 if padding == 0 and queens == 1 else REPAIRED_OUTER_MIN)
        if splits and splits[0][0] <= CHEAP_OUTER_MAX:
            yield padding, splits
        elif splits:
            costly.append((splits[0][0], padding, splits))
    for _, padding, splits in sorted(costly, key=lambda entry: entry[:2]):
        yield padding, splits


def _mandatory_arrays(mandatory: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows, columns and sorted columns of the mandatory queens, always fresh writable int64 copies.

    numba compiles a kernel once per argument type, and a read-only array is another type: with
    ``np.ascontiguousarray`` one queen (or none) passed read-only views of the problem's frozen array,
    two or more passed copies, so each kernel had two versions. The second one loaded inside a timed
    call, and on a cold cache it compiled there: qs4 on a 260-queen completion took 1.56 s under a 0.5 s
    limit in the benchmarks' limits suite.
    """
    rows = np.array(mandatory[:, 0], dtype=np.int64)
    cols = np.array(mandatory[:, 1], dtype=np.int64)
    return rows, cols, np.sort(cols)


def _run_in_chunks(step: Any, state: np.ndarray, kernels: Any, clock: Clock) -> tuple[float, int]:
    """Call ``step(budget)`` until the run ends or the clock runs out; kernel seconds and chunk count.

    The first call is a zero-budget warm-up so that compiling or loading the kernel is not timed.
    """
    step(0)
    budget = 1 << 14
    kernel_s = 0.0
    chunks = 0
    done = (kernels.SOLVED, kernels.EXHAUSTED)
    while True:
        started = time.perf_counter()
        step(budget)
        took = time.perf_counter() - started
        kernel_s += took
        chunks += 1
        if state[kernels.PHASE] in done or clock.expired():
            return kernel_s, chunks
        target = _CHUNK_S
        remaining = clock.remaining()
        if remaining is not None and clock.time_limit is not None:
            target = min(target, _CHUNK_SHARE * clock.time_limit, remaining)
        rate = budget / max(took, 1e-6)
        budget = int(min(max(rate * target, 1 << 10), 1 << 50))


class Qs4Solver(_LocalSearch):
    """Sosic & Gu's QS4: greedy conflict-free start on a permutation, then collision-lowering swaps."""

    name = "qs4"
    kernel = "run_qs4"

    def _configure(self, state: np.ndarray, options: dict[str, Any], n: int, tail: int, kernels: Any) -> None:
        state[kernels.MAX_FAILED] = _option(options, "max_failed_swaps", default_failed_swaps(n, tail))

    def _stepper(self, kernels: Any, q: np.ndarray, diag: np.ndarray, fixed: np.ndarray,
                 mandatory: np.ndarray, state: np.ndarray, rng: np.ndarray) -> Any:
        rows, cols, sorted_cols = _mandatory_arrays(mandatory)
        work = np.zeros(min(4 * len(q) + 64, _MAX_WORK), dtype=np.int64)

        def step(budget: int) -> None:
            kernels.run_qs4(q, diag, fixed, rows, cols, sorted_cols, work, state, rng, budget)

        return step


class MinConflictsSolver(_LocalSearch):
    """Minton et al.'s min-conflicts from a greedy start, restarting when it stagnates."""

    name = "minconflicts"
    kernel = "run_minconflicts"

    def _configure(self, state: np.ndarray, options: dict[str, Any], n: int, tail: int, kernels: Any) -> None:
        state[kernels.STALL_LIMIT] = _option(options, "stall_steps", 100)

    def _stepper(self, kernels: Any, q: np.ndarray, diag: np.ndarray, fixed: np.ndarray,
                 mandatory: np.ndarray, state: np.ndarray, rng: np.ndarray) -> Any:
        rows, cols, sorted_cols = _mandatory_arrays(mandatory)
        n = len(q)
        column_counts = np.zeros(n, dtype=np.uint8)

        def step(budget: int) -> None:
            kernels.run_minconflicts(q, column_counts, diag, fixed, rows, cols, sorted_cols, state, rng,
                                     budget)

        return step
