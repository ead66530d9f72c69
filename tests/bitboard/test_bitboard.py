"""The bitboard package's counting side: fundamental solutions, count tasks for executors, the CLI."""

import pickle
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np
import pytest
from naive import naive_count, naive_unique

import nqcsp
from nqcsp import Problem, count, count_unique
from nqcsp.bitboard import count_tasks, run_count_task

# OEIS A002562, n = 1..14 (the suite's oracle beyond the naive canonicalisation below).
A002562 = [1, 0, 0, 1, 2, 1, 6, 12, 46, 92, 341, 1787, 9233, 45752]


@pytest.mark.parametrize("n", range(1, 10))
def test_count_unique_matches_naive_canonicalisation(n):
    assert count_unique(n) == naive_unique(n)


@pytest.mark.parametrize("n", range(1, 15))
def test_count_unique_matches_oeis(n):
    assert count_unique(n) == A002562[n - 1]


def test_count_unique_edges_and_bad_input():
    assert count_unique(0) == 1
    with pytest.raises(ValueError, match="65"):
        count_unique(65)
    with pytest.raises(TypeError):
        count_unique(8.0)
    with pytest.raises(TypeError):
        count_unique(8, queens=[(0, 0)])  # type: ignore[call-arg]


@pytest.mark.parametrize("n, queens, symmetry", [
    (8, (), True), (8, (), False), (11, (), True), (12, (), True), (9, [(4, 4)], True),
    (10, [(2, 1), (2, 8)], True), (10, [(0, 3)], True), (9, [(0, 3)], False),
    (8, [(0, 0), (3, 3)], True), (0, (), True), (1, (), True), (3, (), True),
])
def test_count_tasks_add_up_to_count(n, queens, symmetry):
    problem = Problem(n, queens)
    tasks = count_tasks(problem, symmetry, target_s=1e-4)   # tiny target: many tasks, deeper prefixes
    total = sum(run_count_task(task)[0] for task in tasks)
    assert total == count(n, queens, symmetry=symmetry)
    if n <= 9:
        assert total == naive_count(n, queens)
    coarse = count_tasks(problem, symmetry)
    assert len(coarse) <= max(1, len(tasks)) and sum(run_count_task(t)[0] for t in coarse) == total


def test_count_task_leaves_are_the_fundamental_solutions():
    tasks = count_tasks(10)
    assert sum(run_count_task(t)[1] for t in tasks) == A002562[9]


def test_count_tasks_pickle_and_reject_bad_targets():
    tasks = count_tasks(Problem(9, [(4, 4)]), target_s=1e-4)
    again = pickle.loads(pickle.dumps(tasks))
    assert [run_count_task(t) for t in again] == [run_count_task(t) for t in tasks]
    for bad in (0, -1.0, True, "1"):
        with pytest.raises(ValueError, match="target_s"):
            count_tasks(8, target_s=bad)


def test_count_through_an_executor_matches_the_thread_path():
    seen = []
    with ThreadPoolExecutor(max_workers=2) as pool:
        assert count(11, executor=pool, progress=lambda done, total: seen.append((done, total))) == 2680
        assert count(10, [(0, 3)], executor=pool) == count(10, [(0, 3)])
        assert count_unique(11, executor=pool) == A002562[10]
    assert seen and seen[-1][0] == seen[-1][1]


def test_count_through_a_process_pool():
    # Tasks cross a process boundary: picklable, and the kernels load in the worker.
    with ProcessPoolExecutor(max_workers=2) as pool:
        assert count(10, executor=pool) == 724


def test_thread_path_reports_progress_to_the_end():
    seen = []
    assert count(12, progress=lambda done, total: seen.append((done, total))) == 14200
    assert seen and max(done for done, _ in seen) == seen[0][1]


def test_package_exports_and_lazy_numba():
    assert nqcsp.count_unique is count_unique
    code = "import sys, nqcsp.bitboard; sys.exit('numba' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def cli(*args):
    return subprocess.run([sys.executable, "-m", "nqcsp", *args], capture_output=True, text=True, timeout=120)


def test_cli_count_unique():
    out = cli("count", "8", "--unique")
    assert out.returncode == 0 and int(out.stdout) == naive_unique(8)
    bad = cli("count", "8", "--unique", "--queen", "0,0")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "--unique" in bad.stderr


def exact_nodes_below(n, allowed, required, prefix):
    """The search nodes below ``prefix`` (itself included), by plain Python recursion over the same rules
    as the kernels: a row's open cells, and a required column left empty closing the branch."""
    full = (1 << n) - 1

    def open_cells(row, left, down, right):
        free = int(allowed[row]) & ~(left | down | right) & full
        missing = int(required[row]) & ~down
        if missing:
            free = 0 if missing & (missing - 1) else free & missing
        return free

    left = down = right = 0
    for row, col in enumerate(prefix):
        bit = 1 << col
        if not open_cells(row, left, down, right) & bit:
            return 0
        left, down, right = ((left | bit) << 1) & full, down | bit, (right | bit) >> 1

    def below(row, left, down, right):
        if row == n:
            return 1
        total = 1
        free = open_cells(row, left, down, right)
        while free:
            bit = free & -free
            free ^= bit
            total += below(row + 1, ((left | bit) << 1) & full, down | bit, (right | bit) >> 1)
        return total

    return below(len(prefix), left, down, right)


def test_node_estimates_converge_to_the_exact_search_size():
    from nqcsp.bitboard import kernels
    from nqcsp.bitboard.counting import required_masks, subproblems

    n = 11
    _, slices = subproblems(Problem(n))
    piece = slices[-3]                                   # a no-corner slice: bounds on sides and bottom
    required = required_masks(piece.allowed)
    prefixes = np.array([[int(piece.allowed[0]).bit_length() - 1, c] for c in range(n)], dtype=np.int64)
    estimates = np.zeros(len(prefixes))
    seed = np.array([12345], np.uint64)
    kernels.estimate_nodes(n, piece.allowed, required, prefixes, 4000, seed, estimates)
    exact = [exact_nodes_below(n, piece.allowed, required, list(p)) for p in prefixes]
    assert sum(exact) > 1000 and any(e == 0 for e in exact)      # dead prefixes are in the test
    for estimate, truth in zip(estimates, exact, strict=True):
        assert estimate == truth == 0 or abs(estimate - truth) <= 0.1 * truth, (estimate, truth)


def test_loading_a_kernel_leaves_scipy_linalg_alone_and_importable():
    """numba's BLAS probe would import scipy.linalg (0.35 s of start-up); nqcsp.runtime.jit answers it without
    scipy, and scipy.linalg still imports afterwards for whoever needs it. (scipy is no dependency of
    nqcsp: where it is not installed there is no probe cost to avoid.)"""
    pytest.importorskip("scipy.linalg")
    code = ("import sys, nqcsp; assert nqcsp.count(8) == 92; print('scipy.linalg' in sys.modules); "
            "import scipy.linalg; print(scipy.linalg.det([[2.0]]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "2.0"]
