import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_has_solution, naive_is_solution, naive_solutions
from timing import Stopwatch

from nqcsp import Problem, Status, solve, verify
from nqcsp.board.construction import closed_form
from nqcsp.runtime.limits import Limits
from nqcsp.solvers import get_solver, options_for
from nqcsp.solvers.localsearch import default_restarts

pytest.importorskip("numba")

from nqcsp.solvers._kernels import localsearch as kernels

SOLVERS = ("qs4", "minconflicts")


def naive_collisions(n, queens):
    """Sum over columns and diagonals of (queens on the line - 1), counted from scratch."""
    total = 0
    for key in (lambda r, c: c, lambda r, c: r + c, lambda r, c: r - c):
        lines = {}
        for r, c in enumerate(queens):
            lines[key(r, c)] = lines.get(key(r, c), 0) + 1
        total += sum(k - 1 for k in lines.values())
    return total


def naive_counters(n, queens):
    """Column counts, and both diagonal families packed as the kernels keep them: 2-bit counts, four to a
    byte, lowest bits first; anti-diagonals r + c, then diagonals r - c + n - 1 after those 2n - 1."""
    cols = np.zeros(n, dtype=np.uint8)
    lines = [0] * (2 * (2 * n - 1))
    for r, c in enumerate(queens):
        cols[c] += 1
        lines[r + c] += 1
        lines[(2 * n - 1) + r - c + n - 1] += 1
    assert max(lines) <= 3, "a test board beyond what a 2-bit counter holds"
    packed = np.zeros((len(lines) + 3) // 4, dtype=np.uint8)
    for line, count in enumerate(lines):
        packed[line // 4] |= count << (2 * (line % 4))
    return cols, packed


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("n", range(1, 9))
def test_every_single_mandatory_cell_on_small_boards(solver, n):
    for row in range(n):
        for col in range(n):
            result = solve(n, [(row, col)], solver=solver, seed=row * n + col)
            # Only the trivial stage before any backend (an empty free line) may answer UNSAT.
            assert result.status is not Status.UNSAT or result.solver == "trivial"
            if result.status is Status.SAT:
                assert naive_is_solution(n, result.columns.tolist(), [(row, col)])
            else:
                # The default budget is enough for every solvable cell up to n = 8 at these seeds; an
                # UNKNOWN on a solvable cell would mean the search or its budget broke.
                assert not naive_has_solution(n, [(row, col)]), (n, row, col)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("n", [2, 3])
def test_boards_without_solutions_end_unknown(solver, n):
    result = solve(n, solver=solver, seed=1)
    assert result.status is Status.UNKNOWN and result.stats["reason"] == "restart budget exhausted"


@pytest.mark.parametrize("solver", SOLVERS)
def test_blockade_cell_gives_up_within_the_default_budget(solver):
    assert not naive_has_solution(6, [(0, 0)])
    result = solve(6, [(0, 0)], solver=solver, seed=3)
    assert result.status is Status.UNKNOWN and result.stats["reason"] == "restart budget exhausted"
    assert result.stats["restarts"] == default_restarts(6) + 1


@pytest.mark.parametrize("solver", SOLVERS)
def test_time_limit_stops_a_hopeless_search(solver):
    limit = 0.5
    solve(8, solver=solver, seed=0)  # loads the kernels: the one stage allowed past the limit
    with Stopwatch() as watch:
        result = solve(6, [(0, 0)], solver=solver, seed=5, time_limit=limit, max_restarts=10**12)
    took = watch.seconds
    assert result.status is Status.UNKNOWN and result.stats["stage"] == "search"
    assert result.stats["reason"] == "time limit of 0.5 s reached during search"
    assert took < limit + max(0.1 * limit, 0.5)  # the promise itself


@pytest.mark.parametrize("solver", SOLVERS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_hypothesis_instances_taken_from_a_solution(solver, data):
    """Mandatory queens drawn from a known solution: the instance is solvable, every answer checkable."""
    n = data.draw(st.integers(min_value=4, max_value=80), label="n")
    base = closed_form(n).tolist()
    rows = data.draw(st.lists(st.integers(0, n - 1), max_size=min(n, 6), unique=True), label="rows")
    mandatory = [(r, base[r]) for r in rows]
    seed = data.draw(st.integers(0, 2**63 - 1), label="seed")
    result = solve(n, mandatory, solver=solver, seed=seed)
    assert result.status is not Status.UNSAT
    if result.status is Status.SAT:
        assert naive_is_solution(n, result.columns.tolist(), mandatory)
    else:
        assert len(mandatory) >= 3  # one or two mandatory queens on these boards are always solved


# min-conflicts is O(n) per step: n = 10^5 is left to the benchmark.
@pytest.mark.parametrize(("solver", "n", "seed"),
                         [(solver, n, seed) for solver in SOLVERS
                          for n, seed in [(50, 0), (200, 1), (1000, 2), (5000, 3), (100_000, 4)]
                          if solver == "qs4" or n <= 10_000])
def test_bigger_boards_with_one_mandatory_queen(solver, n, seed):
    cell = (n // 2, n // 3)
    result = solve(n, [cell], solver=solver, seed=seed)
    assert result.status is Status.SAT
    assert verify(n, result.columns, [cell])
    if n <= 1000:
        assert naive_is_solution(n, result.columns.tolist(), [cell])


@pytest.mark.parametrize("solver", SOLVERS)
def test_many_mandatory_queens_are_kept_or_the_answer_is_unknown(solver):
    n = 40
    base = closed_form(n).tolist()
    rng = np.random.default_rng(7)
    for count in (5, 10, 20, 39, 40):
        rows = rng.choice(n, size=count, replace=False)
        mandatory = [(int(r), base[r]) for r in rows]
        result = solve(n, mandatory, solver=solver, seed=count)
        assert result.status is not Status.UNSAT
        if result.status is Status.SAT:
            assert naive_is_solution(n, result.columns.tolist(), mandatory)
        if count >= n - 1:  # nothing left to choose: the mandatory queens are the solution
            assert result.status is Status.SAT and result.columns.tolist() == base


@pytest.mark.parametrize("solver", SOLVERS)
def test_same_seed_same_board_and_the_drawn_seed_is_recorded(solver):
    n, cell = 3000, (1500, 1000)
    first = solve(n, [cell], solver=solver, seed=42)
    again = solve(n, [cell], solver=solver, seed=42)
    assert first.status is Status.SAT and np.array_equal(first.columns, again.columns)
    drawn = solve(n, [cell], solver=solver)
    replay = solve(n, [cell], solver=solver, seed=drawn.stats["seed"])
    assert np.array_equal(drawn.columns, replay.columns)
    other = solve(n, [cell], solver=solver, seed=43)
    assert not np.array_equal(first.columns, other.columns)


def _run_with_chunks_of(monkeypatch, budget, solver, n, mandatory, seed):
    """Solve with every kernel call given the same fixed budget instead of a timed one; the board."""
    import nqcsp.solvers.localsearch as layer

    def fixed_chunks(step, state, kernels_module, clock):
        while state[kernels.PHASE] < kernels.SOLVED:
            step(budget)
        return 0.0, 0

    monkeypatch.setattr(layer, "_run_in_chunks", fixed_chunks)
    result = get_solver(solver).solve(Problem(n, mandatory), limits=Limits.unlimited(), seed=seed,
                                      **options_for(solver, {}))
    return None if result.columns is None else result.columns.tolist()


@pytest.mark.parametrize("solver", SOLVERS)
def test_the_board_does_not_depend_on_how_the_run_is_chunked(monkeypatch, solver):
    n, mandatory = 2000, [(7, 11), (1000, 400)]
    budgets = (1, 97, 5000, 10**12)
    boards = [_run_with_chunks_of(monkeypatch, budget, solver, n, mandatory, 9) for budget in budgets]
    assert boards[0] is not None and naive_is_solution(n, boards[0], mandatory)
    assert all(board == boards[0] for board in boards)


def _fits(n, queens):
    """No line holds more queens than a 2-bit counter can."""
    for key in (lambda r, c: c, lambda r, c: r + c, lambda r, c: r - c):
        lines = {}
        for r, c in enumerate(queens.tolist()):
            lines[key(r, c)] = lines.get(key(r, c), 0) + 1
        if max(lines.values(), default=0) > 3:
            return False
    return True


def test_swap_counters_match_a_naive_recount():
    rng = np.random.default_rng(11)
    for n in (1, 2, 5, 17, 64):
        q = np.arange(n, dtype=np.int32)[::-1].copy() if n < 4 else closed_form(n).astype(np.int32)
        _, diag = naive_counters(n, q.tolist())
        collisions = naive_collisions(n, q.tolist())
        swaps = 0
        while swaps < 300:
            i, j = (int(x) for x in rng.integers(0, n, size=2))
            swapped = q.copy()
            swapped[[i, j]] = swapped[[j, i]]
            if not _fits(n, swapped):
                continue  # the kernels' callers never swap a queen onto a full line
            swaps += 1
            delta = kernels.swap_queens(q, diag, i, j)
            now = naive_collisions(n, q.tolist())
            assert delta == now - collisions
            collisions = now
            assert np.array_equal(diag, naive_counters(n, q.tolist())[1])


def test_move_counters_match_a_naive_recount():
    rng = np.random.default_rng(12)
    for n in (1, 3, 8, 31):
        q = np.arange(n, dtype=np.int32)[::-1].copy() if n < 4 else closed_form(n).astype(np.int32)
        cols, diag = naive_counters(n, q.tolist())
        collisions = naive_collisions(n, q.tolist())
        moves = 0
        while moves < 300:
            row, col = (int(x) for x in rng.integers(0, n, size=2))
            moved = q.copy()
            moved[row] = col
            if not _fits(n, moved):
                continue  # the kernels' callers never move a queen onto a full line
            moves += 1
            delta = kernels.move_queen(q, cols, diag, row, col)
            now = naive_collisions(n, q.tolist())
            assert delta == now - collisions
            collisions = now
            want = naive_counters(n, q.tolist())
            assert all(np.array_equal(a, b) for a, b in zip((cols, diag), want, strict=True))


def test_greedy_start_is_nearly_conflict_free():
    """The greedy phase leaves at most the random tail in conflict: a check on the start the repair gets."""
    n, cell = 20_000, (10_000, 6_666)
    result = solve(n, [cell], solver="qs4", seed=5)
    assert result.status is Status.SAT
    assert result.stats["initial_conflicts"] <= 2 * result.stats["tail"] + 10


def test_small_solution_sets_are_reached():
    """Boards with a single solution through the mandatory queens still end SAT with exactly it."""
    n = 8
    for solution in list(naive_solutions(n))[:10]:
        mandatory = [(r, solution[r]) for r in range(0, n, 2)]
        unique = list(naive_solutions(n, mandatory))
        for solver in SOLVERS:
            result = solve(n, mandatory, solver=solver, seed=1)
            assert result.status is Status.SAT and result.column_tuple() in unique


@pytest.mark.parametrize("solver", SOLVERS)
def test_bad_options_are_rejected_by_name(solver):
    with pytest.raises(TypeError, match="bogus"):
        solve(10, solver=solver, bogus=1)
    with pytest.raises(ValueError, match="max_restarts"):
        solve(10, solver=solver, max_restarts=-1)
    with pytest.raises(TypeError, match="tail"):
        solve(10, solver=solver, tail=2.5)


def test_importing_the_backend_module_does_not_load_numba():
    code = "import sys, nqcsp, nqcsp.solvers.localsearch; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


FIRST_CALLS_FROM_THREADS = """
import threading
import nqcsp
errors = []
barrier = threading.Barrier(4)
def call(solver):
    barrier.wait()
    try:
        result = nqcsp.solve(200, [(0, 5)], solver=solver, seed=1)
        assert result.status is nqcsp.Status.SAT and nqcsp.verify(200, result.columns, [(0, 5)])
    except BaseException as exc:
        errors.append(f"{solver}: {type(exc).__name__}: {exc}")
threads = [threading.Thread(target=call, args=(s,)) for s in ("qs4", "minconflicts", "auto", "qs4")]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(errors)
"""


@pytest.mark.slow
def test_first_calls_from_threads_in_fresh_processes():
    # A thread saw the kernel module while another was still executing it: AttributeError from `auto`.
    runs = [subprocess.Popen([sys.executable, "-c", FIRST_CALLS_FROM_THREADS], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for run in runs:
        out, err = run.communicate(timeout=120)
        assert run.returncode == 0 and out.strip() == "[]", out + err


def test_a_memory_limit_below_the_calls_peak_is_refused_not_exceeded():
    # The stages' estimates (qs4's arrays 9 bytes a queen, the verifier's marks 6) each fitted a limit that
    # the call's peak (the columns stay alive while they are verified) exceeded by 24%.
    import tracemalloc

    n = 5_000_000
    solve(1000, solver="qs4", seed=1)
    tracemalloc.start()
    try:
        assert solve(n, solver="qs4", seed=1).status is Status.SAT
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    result = solve(n, solver="qs4", seed=1, memory_limit=int(0.95 * peak))
    assert result.status is Status.UNKNOWN and "memory limit" in result.stats["reason"]


def _kernel_run(n, mandatory, seed, constructed, tail, max_failed, scan_limit=4096):
    """A qs4 run driven directly, one unit of budget per call, as the Python layer would set it up."""
    from nqcsp.board.construction import near_solution

    cells = np.array(sorted(mandatory), dtype=np.int64).reshape(-1, 2)
    rows, cols = cells[:, 0].copy(), cells[:, 1].copy()
    fixed = np.zeros((n + 7) // 8, dtype=np.uint8)
    for r in rows:
        fixed[r >> 3] |= 1 << (r & 7)
    state = np.zeros(kernels.STATE_SIZE, dtype=np.int64)
    state[kernels.GREEDY_END] = n - tail
    state[kernels.MAX_RESTARTS] = 50
    state[kernels.SCAN_LIMIT] = scan_limit
    state[kernels.FREE_ROWS] = n - len(rows)
    state[kernels.MAX_FAILED] = max_failed
    state[kernels.CONSTRUCTED] = int(constructed)
    q = near_solution(n, cells) if constructed else np.zeros(n, dtype=np.int32)
    diag = np.zeros(kernels.diagonal_bytes(n), dtype=np.uint8)
    work = np.zeros(4 * n + 64, dtype=np.int64)
    rng = np.array([seed], dtype=np.uint64)
    return q, diag, fixed, rows, cols, np.sort(cols), work, state, rng


def _check_repair_start(n, q, diag, work, state, fixed_rows):
    """What the repair may rely on when it starts: exact counters, and on every line holding two or more
    queens all of them but at most one listed, never a mandatory queen."""
    assert np.array_equal(diag, naive_counters(n, q.tolist())[1])
    assert state[kernels.COLLISIONS] == naive_collisions(n, q.tolist())  # a permutation: no column term
    listed = set(work[: state[kernels.WORK_SIZE]].tolist())
    assert not listed & set(fixed_rows)
    for key in (lambda r, c: r + c, lambda r, c: r - c):
        lines = {}
        for r, c in enumerate(q.tolist()):
            lines.setdefault(key(r, c), []).append(r)
        for on_line in lines.values():
            assert sum(r not in listed for r in on_line) <= 1


@pytest.mark.parametrize(("constructed", "scan_limit"), [(False, 4096), (False, 6), (True, 4096)])
def test_every_attempt_starts_the_repair_from_exact_counters(constructed, scan_limit):
    # A restart used to keep the cursor where the greedy phase had stopped: the next set-up then skipped
    # clearing the counters and filled only the tail rows, and the attempt on doubled counters overflowed
    # and was thrown away: every restart from the repair cost two of the restart budget.
    # scan_limit=6: greedy rows that find no free cell switch the occupancy bits to counters mid-phase.
    n, mandatory = 60, [(3, 17), (40, 2)]
    run = _kernel_run(n, mandatory, seed=5, constructed=constructed, tail=12, max_failed=3,
                      scan_limit=scan_limit)
    q, diag, _, rows, _, _, work, state, _ = run
    repairs_started = 0
    was_repairing = False
    for _ in range(200_000):
        kernels.run_qs4(*run, 1)
        repairing = state[kernels.PHASE] == kernels.REPAIR
        if repairing and not was_repairing:
            repairs_started += 1
            _check_repair_start(n, q, diag, work, state, rows.tolist())
        was_repairing = repairing
        if state[kernels.PHASE] >= kernels.SOLVED:
            break
    # Every attempt reaches the repair (refused swaps are the only reason to restart here); the old code
    # reached it in 10 of 51 attempts. With a short scan, crowded greedy rows also restart attempts.
    assert repairs_started >= 3
    assert scan_limit < 4096 or state[kernels.RESTARTS] <= repairs_started


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_constructed_start_solves_instances_taken_from_a_solution(data):
    """The near-solution start (closed form, mandatory queens swapped in) on small boards, checked by
    the naive checker; restarts fall back to the greedy start."""
    n = data.draw(st.integers(min_value=4, max_value=60), label="n")
    base = closed_form(n)[::-1].tolist()  # a solution, mirrored: not the start's own board
    rows = data.draw(st.lists(st.integers(0, n - 1), max_size=min(n - 2, 4), unique=True), label="rows")
    mandatory = [(r, base[r]) for r in rows]
    result = solve(n, mandatory, solver="qs4", seed=data.draw(st.integers(0, 2**63 - 1)),
                   start="construction")
    # One queen is built into a composed solution where n has a factor coprime to 6 and the outer
    # board a solution for the queen's block; else the closed form takes the queens swapped in (more
    # queens are swapped into a composition only from an outer board of 128, beyond these sizes).
    assert result.stats["start"] in (("construction", "composition") if len(rows) == 1 else ("construction",))
    assert result.status is not Status.UNSAT
    if result.status is Status.SAT:
        assert naive_is_solution(n, result.columns.tolist(), mandatory)
    else:
        assert len(mandatory) >= 3


def test_the_default_start_is_constructed_only_for_big_boards_where_it_does_not_fail():
    from nqcsp.solvers.localsearch import CONSTRUCTED_START_MIN_N, REPAIRED_QUEENS_MAX

    n = CONSTRUCTED_START_MIN_N          # 2^20: no factor coprime to 6, so no composition of its own
    prime = 1048583                      # the first prime past 2^20: only the modular solution (outer 1)
    base = closed_form(n)[::-1]
    many = [(int(row), int(base[row])) for row in range(0, n, n // (REPAIRED_QUEENS_MAX + 1))]
    small = solve(1000, solver="qs4", seed=1)
    empty = solve(n, solver="qs4", seed=1)
    crowded = solve(n, many, solver="qs4", seed=1)
    asked = solve(n, many, solver="qs4", seed=1, start="construction")
    assert len(many) > REPAIRED_QUEENS_MAX
    assert [r.stats["start"] for r in (small, empty, crowded, asked)] == [
        "greedy", "construction", "greedy", "construction"]
    for result, queens in ((small, []), (empty, []), (crowded, many), (asked, many)):
        assert result.status is Status.SAT and verify(result.problem.n, result.columns, queens)
    assert empty.stats["initial_conflicts"] == 0
    # A board with a few queens but no composition of its own starts from a padded one (was greedy).
    for board, queens in ((n, [(0, 3)]), (prime, [(0, 3), (9, 0)])):
        padded = solve(board, queens, solver="qs4", seed=1)
        assert padded.stats["start"] == "composition" and padded.stats["padding"] >= 1
        assert padded.status is Status.SAT and verify(board, padded.columns, queens)
        assert padded.stats["initial_conflicts"] < 10 < crowded.stats["initial_conflicts"]


@pytest.mark.parametrize(("n", "cells"), [
    (2**21, [(0, 3)]),
    (1048583, [(0, 3), (9, 0)]),
    (3 * 1000003, [(2999999, 5), (17, 2999990), (1500000, 1500002)]),
    (5 * 1048583, [(0, 3), (9, 0)]),     # its one split with an outer board of 128 or more: 1048583 x 5
])
def test_a_board_without_a_composition_of_its_own_starts_from_a_padded_one(n, cells):
    # m = n - k is composed on the corner holding the first queen, k queens on the opposite corner;
    # the greedy start it replaces took about 110 s at 10^9. An outer board past CHEAP_OUTER_MAX (its
    # nested run a greedy start: 25 s at 2 * 10^8) gives way to a padding with a smaller one.
    from nqcsp.solvers.localsearch import CHEAP_OUTER_MAX, REPAIRED_OUTER_MIN

    result = solve(n, cells, solver="qs4", seed=2)
    assert result.stats["start"] == "composition"
    outer, inner = map(int, result.stats["composition"].split(" x "))
    padding = result.stats["padding"]
    assert outer * inner == n - padding and padding in (1, *range(4, 65))
    assert REPAIRED_OUTER_MIN <= outer <= CHEAP_OUTER_MAX
    assert result.status is Status.SAT and verify(n, result.columns, cells)
    assert result.stats["restarts"] == 0 and result.stats["initial_conflicts"] <= 4 * len(cells) + 2 * padding


@pytest.mark.parametrize(("n", "cells"), [
    (5 * 2**20, [(0, 3), (9, 0)]),
    (128 * 8405, [(0, 3), (537920, 77), (1075839, 1000), (17, 1075000), (700000, 699990)]),
])
def test_more_queens_on_a_big_board_start_from_a_composition_holding_the_first_the_others_swapped_in(
        n, cells):
    # Before, two or more mandatory queens meant the greedy start: 113 s at 10^9 with two.
    from nqcsp.solvers.localsearch import REPAIRED_OUTER_MIN

    result = solve(n, cells, solver="qs4", seed=5)
    assert result.stats["start"] == "composition" and result.stats["padding"] == 0
    outer, inner = map(int, result.stats["composition"].split(" x "))
    assert outer * inner == n and outer >= REPAIRED_OUTER_MIN
    assert result.status is Status.SAT and verify(n, result.columns, cells)
    # Only the swapped queens and the rows that held their columns can attack.
    assert result.stats["initial_conflicts"] <= 4 * len(cells)


def test_many_queens_on_a_big_board_start_greedy_the_swaps_would_not_repair_a_composition():
    # 33 queens: past REPAIRED_QUEENS_MAX (at 10^7, 100 queens swapped into a composition made the first
    # attempt restart, about 0.4 s lost before the greedy start).
    from nqcsp.solvers.localsearch import REPAIRED_QUEENS_MAX

    n = 128 * 8405
    base = closed_form(n)[::-1]
    rows = np.random.default_rng(3).choice(n, REPAIRED_QUEENS_MAX + 1, replace=False)
    cells = [(int(row), int(base[row])) for row in rows]
    result = solve(n, cells, solver="qs4", seed=5)
    assert result.stats["start"] == "greedy"
    assert result.status is Status.SAT and verify(n, result.columns, cells)
    # Asked for, a constructed start is the closed form with the queens swapped in.
    asked = solve(n, cells, solver="qs4", seed=5, start="construction")
    assert asked.stats["start"] == "construction"
    assert asked.status is Status.SAT and verify(n, asked.columns, cells)


@pytest.mark.parametrize(("n", "cell"), [(5 * 2**20, (0, 3)), (5 * 2**20, (2621440, 2621441)),
                                         (3 * 7**7, (411771, 5)), (11**6, (1771560, 0))])
def test_one_queen_on_a_big_board_with_a_factor_coprime_to_6_starts_from_a_solution_holding_it(n, cell):
    # Before, any mandatory queen meant the greedy start: 76 s of random lookups at 10^9.
    result = solve(n, [cell], solver="qs4", seed=3)
    assert result.stats["start"] == "composition"
    outer, inner = map(int, result.stats["composition"].split(" x "))
    assert outer * inner == n and inner % 2 and inner % 3 and outer not in (2, 3)
    assert result.status is Status.SAT and verify(n, result.columns, [cell])
    assert result.stats["initial_conflicts"] == 0 and result.stats["iterations"] == 0


def test_paddings_are_tried_cheap_outer_boards_first_then_the_others_by_outer_board():
    from nqcsp.board.construction import composition_factors
    from nqcsp.solvers.localsearch import CHEAP_OUTER_MAX, PADDING_MAX, REPAIRED_OUTER_MIN, _paddings

    n = 5 * 1048583                      # its own split's outer board, 1048583, is past CHEAP_OUTER_MAX
    order = list(_paddings(n, 2, Limits.unlimited()))
    paddings = [padding for padding, _ in order]
    assert len(set(paddings)) == len(paddings) and not {2, 3} & set(paddings)
    assert set(paddings) == {k for k in range(PADDING_MAX + 1) if k not in (2, 3) and any(
        outer >= REPAIRED_OUTER_MIN for outer, _ in composition_factors(n - k))}
    smallest = [splits[0][0] for _, splits in order]
    cheap = [outer <= CHEAP_OUTER_MAX for outer in smallest]
    assert cheap[0] and cheap == sorted(cheap, reverse=True)
    assert paddings[:sum(cheap)] == sorted(paddings[:sum(cheap)])
    assert smallest[sum(cheap):] == sorted(smallest[sum(cheap):]) and 0 in paddings[sum(cheap):]
    for padding, splits in order:
        assert all(outer >= REPAIRED_OUTER_MIN and outer * inner == n - padding for outer, inner in splits)
    # One queen: the composition of n itself comes first whatever its outer board (nothing to repair).
    assert next(_paddings(n, 1, Limits.unlimited()))[0] == 0


def test_a_composition_whose_outer_board_has_no_solution_for_the_block_is_not_used():
    from nqcsp.solvers.localsearch import bytes_needed, composed_start

    def cells(*queens):
        return np.array(queens, dtype=np.int64)

    # 20 = 4 * 5 is the only split; the 4-board has no solution with a corner queen, one with (0, 1).
    assert composed_start(20, cells((2, 4)), Limits.unlimited(), seed=1) is None
    found = composed_start(20, cells((2, 7)), Limits.unlimited(), seed=1)
    assert found is not None and found[1:] == ((4, 5), 0) and verify(20, found[0], [(2, 7)])
    # An outer board whose run would not fit in memory beside this one's is not tried: 5 * 2^20's own
    # split (2^20 x 5) then gives way to a padded composition with a smaller outer board.
    n = 5 * 2**20
    found = composed_start(n, cells((0, 3)), Limits(None, int(1.5 * bytes_needed(n))), seed=1)
    assert found is not None and found[1:] == ((2**20, 5), 0) and verify(n, found[0], [(0, 3)])
    tight = Limits(None, int(1.3 * bytes_needed(n)))
    found = composed_start(n, cells((0, 3)), tight, seed=1)
    assert found is not None and found[2] >= 1
    assert bytes_needed(found[1][0]) <= tight.memory - bytes_needed(n - found[2])
    # A padded board is a permutation holding the queen, with a few attacks left for the swaps.
    assert found[0][0] == 3 and np.array_equal(np.sort(found[0]), np.arange(n))
    # Asked for, the construction then falls back to the closed form with the queen swapped in.
    corner = solve(20, [(2, 4)], solver="qs4", seed=1, start="construction")
    held = solve(20, [(2, 7)], solver="qs4", seed=1, start="construction")
    assert (corner.stats["start"], held.stats["start"]) == ("construction", "composition")
    for result, cell in ((corner, (2, 4)), (held, (2, 7))):
        assert result.status is Status.SAT and verify(20, result.columns, [cell])


@pytest.mark.parametrize("start", ["auto", "construction"])
def test_a_composition_whose_outer_run_used_up_the_time_is_not_built(monkeypatch, start):
    # Building the board cannot be interrupted (about 15 ns a queen, seconds at 10^9). It was budgeted
    # only before the nested outer run, which may end just short of the deadline; the build then ran
    # past it. Here the outer run is held until less time is left than the build needs.
    import nqcsp.solvers.localsearch as localsearch
    from nqcsp.board.construction import NEAR_SOLUTION_S_PER_QUEEN

    n = 5 * 2**20
    outer_board = localsearch._outer_board

    def slow_outer_board(splits, cell, limits, seed):
        found = outer_board(splits, cell, limits, seed)
        while limits.remaining() > NEAR_SOLUTION_S_PER_QUEEN * n / 2:
            time.sleep(0.01)
        return found

    monkeypatch.setattr(localsearch, "_outer_board", slow_outer_board)
    cells = [(0, 3), (9, 0)]
    with Stopwatch() as watch:
        result = solve(n, cells, solver="qs4", seed=1, start=start, time_limit=2.0)
    assert watch.seconds <= 2.5, watch
    assert result.stats["start"] == "greedy"
    assert result.status is not Status.UNSAT
    if result.status is Status.SAT:
        assert verify(n, result.columns, cells)


def test_a_constructed_start_that_would_not_fit_in_the_time_left_gives_way_to_the_greedy_one():
    # Building the near-solution cannot be interrupted (about 1.5 s at 10^8); the greedy start can.
    from nqcsp.solvers.localsearch import constructed_start

    n = 10**8
    assert constructed_start(n, "auto", Limits.unlimited())
    assert constructed_start(n, "construction", Limits.start(time_limit=60))
    assert not constructed_start(n, "construction", Limits.start(time_limit=0.5))
    assert not constructed_start(n, "greedy", Limits.unlimited())
    assert not constructed_start(1000, "auto", Limits.unlimited())


@pytest.mark.parametrize("solver", ["qs4", "minconflicts"])
def test_each_local_search_kernel_has_one_compiled_version_whatever_the_queens(solver):
    # One queen or none used to reach the kernel as read-only views, two or more as copies: a second
    # compiled version, loaded (on a cold cache: compiled) inside a timed call that had already counted
    # the kernel as loaded. A 260-queen completion took 1.56 s under a 0.5 s limit.
    from nqcsp.runtime.lazy import load
    from nqcsp.solvers.localsearch import KERNELS

    kernel = getattr(load(KERNELS), "run_qs4" if solver == "qs4" else "run_minconflicts")
    for queens in ([], [(1, 2)], [(1, 2), (5, 9)], [(1, 2), (5, 9), (10, 20)]):
        result = solve(40, queens, solver=solver, seed=1)
        assert result.status is Status.SAT and naive_is_solution(40, result.columns.tolist(), queens)
    assert len(kernel.signatures) == 1


def test_qs4_does_not_charge_numbas_import_when_numba_is_already_imported():
    # Issue 34: after another kernel had imported numba, qs4 refused n = 10^6 under 0.3 s ("search needs
    # about 0.8 s"), though loading its cached kernel takes hundredths of a second, the search 0.02-0.08 s.
    code = textwrap.dedent("""
        import sys, nqcsp
        assert nqcsp.solve(12, [(0, 0)], solver="backtrack").status.value == "SAT"
        assert "numba" in sys.modules and "nqcsp.solvers._kernels.localsearch" not in sys.modules
        result = nqcsp.solve(10**6, solver="qs4", time_limit=0.3)
        solved = result.status.value == "SAT" and nqcsp.verify(10**6, result.columns)
        print(solved, result.stats.get("reason"))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    # Solved; or, on a machine too busy to give it 0.3 s of CPU, stopped by the deadline mid-search. Never
    # refused before the search for a start-up it does not pay ("search needs about 0.8 s").
    assert out.stdout in ("True None\n", "False time limit of 0.3 s reached during search\n"), out.stdout


def test_a_kernels_start_up_counts_only_what_this_process_has_not_loaded():
    code = textwrap.dedent("""
        from nqcsp.runtime.lazy import load, kernel_startup_s
        kernels = "nqcsp.solvers._kernels.localsearch"
        fresh = kernel_startup_s(kernels, "run_qs4")
        import nqcsp.runtime.jit
        imported = kernel_startup_s(kernels, "run_qs4")
        import nqcsp
        nqcsp.solve(100, solver="qs4")
        print(fresh, imported, kernel_startup_s(kernels, "run_qs4"),
              kernel_startup_s(kernels, "run_minconflicts"))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert [float(x) for x in out.stdout.split()] == [0.8, 0.2, 0.0, 0.2]
