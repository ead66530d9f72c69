"""The guaranteed path: auto's answers agree with brute force, UNSAT is always cross-checked, liars raise."""

import itertools
import random

import pytest
from naive import naive_has_solution, naive_is_solution
from timing import Stopwatch

import nqcsp
from nqcsp import InternalSolverError, Problem, Result, Status, solve, solve_n_queens
from nqcsp.board.completion import random_completion
from nqcsp.board.problem import find_attack
from nqcsp.runtime.limits import Limits
from nqcsp.studies.blockades import canonical_cells, orbit


def assert_guaranteed(result, n, queens):
    """SAT verified against the naive checker; UNSAT checked by a second method and true by brute force."""
    expected = naive_has_solution(n, queens)
    if result.status is Status.SAT:
        assert naive_is_solution(n, result.columns.tolist(), queens)
    else:
        assert result.status is Status.UNSAT, result.stats
        assert result.certificate.checked, result.certificate
        if result.certificate.kind == "agreement":
            assert len(result.certificate.checked_by) >= 2
    assert (result.status is Status.SAT) == expected, (n, queens)


@pytest.mark.parametrize("n", range(1, 11))
def test_every_cell_agrees_with_brute_force(n):
    for cell in itertools.product(range(n), repeat=2):
        assert_guaranteed(solve(n, [cell]), n, [cell])


@pytest.mark.parametrize("count", [2, 3])
def test_random_multi_queen_problems_agree_with_brute_force(count):
    rng = random.Random(count)
    for _ in range(60):
        n = rng.randint(1, 9)
        queens = [(rng.randrange(n), rng.randrange(n)) for _ in range(count)]
        assert_guaranteed(solve(n, queens, seed=rng.randrange(1000)), n, queens)


def test_unsat_without_mandatory_queens():
    for n in (2, 3):
        assert_guaranteed(solve(n), n, [])


@pytest.mark.parametrize("cell", [(0, 0), (0, 7), (7, 0), (7, 7)])
def test_codewars_call_never_gives_up_on_solvable_corners(cell):
    board = solve_n_queens(8, cell)
    n, cells = nqcsp.parse_board(board)
    assert n == 8 and naive_is_solution(8, [c for _, c in sorted(cells)], [cell])
    for seed in range(20):
        result = solve(8, [cell], seed=seed)
        assert result.status is Status.SAT and naive_is_solution(8, result.columns.tolist(), [cell])


def test_codewars_call_answers_empty_only_for_blockades():
    assert solve_n_queens(3, (1, 1)) == ""
    assert solve_n_queens(1, (0, 0)) == "Q\n"
    board = solve_n_queens(1000, (0, 333))
    assert board.splitlines()[0][333] == "Q" and nqcsp.verify(
        1000, [line.index("Q") for line in board.splitlines()], [(0, 333)])
    with pytest.raises(TypeError, match="'0,3'"):
        solve_n_queens(8, "0,3")


class _Liar:
    """A complete backend that claims UNSAT with an exhaustive-looking certificate, whatever the problem."""

    name = "liar"
    complete = True

    def solve(self, problem, *, limits, seed=None, **options):
        return Result(problem, Status.UNSAT, self.name, certificate=nqcsp.Certificate("exhaustive"))


def solvable_beyond_construct(n):
    """A solvable one-queen problem that the construction misses, so complete backends must decide it."""
    from nqcsp.solvers.construct import ConstructSolver

    for cell in itertools.product(range(n), repeat=2):
        problem = Problem(n, [cell])
        unknown = ConstructSolver().solve(problem, limits=Limits.unlimited()).status is Status.UNKNOWN
        if unknown and naive_has_solution(n, [cell]):
            return problem
    raise AssertionError(f"construct covers every open cell of n = {n}")


def test_portfolio_raises_when_a_complete_backend_lies(monkeypatch):
    import nqcsp.solvers as registry
    from nqcsp.solvers import portfolio

    problem = solvable_beyond_construct(8)
    order = portfolio.complete_backends(problem)
    assert len(order) >= 2, "the cross-check needs two complete backends"
    monkeypatch.setitem(registry._instances, order[0], _Liar())
    # The second backend's verified solution exposes the lie.
    with pytest.raises(InternalSolverError, match="disagree"):
        solve(problem)


def test_portfolio_raises_on_an_invalid_solution(monkeypatch):
    import nqcsp.solvers as registry
    from nqcsp.board.result import columns_array

    class BadBoard:
        name, complete = "badboard", True

        def solve(self, problem, *, limits, seed=None, **options):
            return Result(problem, Status.SAT, self.name, columns=columns_array(range(problem.n), problem.n))

    from nqcsp.solvers import portfolio

    problem = solvable_beyond_construct(8)
    monkeypatch.setitem(registry._instances, portfolio.complete_backends(problem)[0], BadBoard())
    with pytest.raises(InternalSolverError, match="invalid solution"):
        solve(problem)


def test_the_time_limit_reaches_every_stage_of_auto():
    queens = random_completion(171, 141, 3)
    # Solvable (the answer is verified here); this call also loads every kernel the spent call could need.
    decided = solve(171, queens, time_limit=60)
    assert decided.status is Status.SAT and naive_is_solution(171, decided.columns.tolist(), queens)
    with Stopwatch() as watch:
        spent = solve(171, queens, time_limit=1e-9)
    assert watch.seconds < 0.5, watch
    assert spent.status is Status.UNKNOWN and "time limit" in spent.stats["reason"], spent.stats
    assert spent.stats["stage"] in spent.stats["reason"]


def test_canonical_cells_cover_the_board_once():
    for n in range(1, 12):
        seen = [orbit(n, cell) for cell in canonical_cells(n)]
        assert set().union(*seen) == set(itertools.product(range(n), repeat=2))
        assert sum(len(o) for o in seen) == n * n


@pytest.mark.parametrize(("n", "m"), [(8, 3), (20, 10), (74, 54)])
def test_random_completion_places_m_non_attacking_queens(n, m):
    for seed in range(5):
        queens = random_completion(n, m, seed)
        assert len(queens) == m and find_attack(queens) is None
        assert queens == random_completion(n, m, seed)
        assert all(0 <= r < n and 0 <= c < n for r, c in queens)


@pytest.mark.parametrize(("m", "exc"), [(9, ValueError), (-1, ValueError), (2.0, TypeError)])
def test_random_completion_rejects_bad_m(m, exc):
    with pytest.raises(exc, match=str(m)):
        random_completion(8, m)


def test_completion_instances_near_the_peak_are_decided_and_certified():
    for seed in range(6):
        queens = random_completion(30, 18, seed)
        result = solve(30, queens)
        assert result.status in (Status.SAT, Status.UNSAT)
        if result.status is Status.UNSAT:
            assert result.certificate.checked
        else:
            assert naive_is_solution(30, result.columns.tolist(), queens)


@pytest.mark.parametrize("solver", ["auto", "qs4"])
def test_a_completion_whose_residual_cannot_fit_is_left_to_local_search(solver):
    # The trivial pre-check built the 60,000 x 60,000 residual first: UNKNOWN "residual needs 80.5 GiB".
    import numpy as np

    from nqcsp import verify

    n = 100_000
    solution = solve(n, solver="qs4", seed=3).columns
    rows = np.sort(np.random.default_rng(2).choice(n, 40_000, replace=False))
    queens = np.column_stack((rows, solution[rows]))
    result = solve(n, queens, solver=solver, seed=1, time_limit=30, memory_limit=2**32)
    assert result.status is Status.SAT and verify(n, result.columns, queens)


def test_the_stage_times_of_auto_are_measured_and_add_up_to_at_most_the_wall_time():
    # Stages took their time from the backend's own stats: qs4 and sat report none, so a 9 s SAT stage
    # showed 0.0 s.
    import numpy as np

    solution = solve(2000, solver="qs4", seed=5).columns
    queens = [(row, int(solution[row])) for row in (3, 500, 1200, 1999)]
    result = solve(2000, queens, seed=1)
    assert result.status is Status.SAT and nqcsp.verify(2000, result.columns, queens)
    stages = result.stats["stages"]
    assert stages[-1]["solver"] == result.solver and stages[-1]["seconds"] > 0
    assert sum(stage.get("seconds", 0.0) for stage in stages) <= result.stats["wall_s"]
    assert np.all([stage["seconds"] >= 0 for stage in stages if "seconds" in stage])
