import numpy as np
import pytest
from naive import naive_is_solution
from timing import Stopwatch

import nqcsp
from nqcsp import InternalSolverError, Problem, Result, Status, solve


@pytest.mark.parametrize(
    ("bad", "exc", "named"),
    [(-1, ValueError, "-1"), ("8", TypeError, "'8'"), (8.0, TypeError, "8.0"), (True, TypeError, "True"),
     (None, TypeError, "None")],
)
def test_bad_board_size_is_named(bad, exc, named):
    with pytest.raises(exc, match=named):
        solve(bad)
    with pytest.raises(exc, match=named):
        Problem(bad)


@pytest.mark.parametrize(
    ("queens", "exc", "named"),
    [([(8, 0)], ValueError, r"\(8, 0\)"), ([(0, -1)], ValueError, r"\(0, -1\)"),
     ([(0,)], ValueError, r"\(0,\)"),
     ("0,3", TypeError, "'0,3'"), ([(0.0, 3)], TypeError, "0.0"), ([(0, "3")], TypeError, "'3'"),
     ([(True, 3)], TypeError, "True"), ((0, 3), TypeError, r"\(0, 3\)"), ([5], TypeError, "5")],
)
def test_bad_queens_are_named(queens, exc, named):
    with pytest.raises(exc, match=named):
        solve(8, queens)


@pytest.mark.parametrize(("kw", "named"), [({"time_limit": -1}, "-1"), ({"time_limit": "1"}, "'1'"),
                                          ({"seed": 1.5}, "1.5"), ({"solver": "nope"}, "'nope'"),
                                          ({"solver": 3}, "3")])
def test_bad_options_are_named(kw, named):
    with pytest.raises((ValueError, TypeError), match=named):
        solve(8, **kw)


@pytest.mark.parametrize(("kw", "meant"), [
    ({"timelimit": 3}, "time_limit"), ({"queen": [(0, 3)]}, "queens"), ({"seeds": 1}, "seed"),
    ({"solver": "qs4", "max_restart": 2}, "max_restarts"), ({"solver": "cpsta"}, "cpsat"),
    ({"solver": "cpmpy", "engine": "chocco"}, "choco"),
])
def test_a_misspelt_keyword_option_or_name_says_did_you_mean(kw, meant):
    # Said before: "unknown option(s) timelimit" with no hint.
    with pytest.raises((ValueError, TypeError), match=f"did you mean '{meant}'\\?"):
        solve(8, **kw)


@pytest.mark.parametrize(("kw", "says"), [
    ({"encoding": "pairwise"}, "encoding is an option of solver 'sat'"),
    ({"solver": "qs4", "proof": False}, "proof is an option of solver 'backtrack' or 'sat'"),
    ({"solver": "cpsat", "sat_solvr": "g4"}, "did you mean 'sat_solver' (an option of solver 'sat')?"),
])
def test_an_option_of_another_backend_names_the_backend(kw, says):
    # Said before: "solver 'auto' got unknown option(s) encoding; it takes none", and no more.
    with pytest.raises(TypeError) as refused:
        solve(8, **kw)
    assert str(refused.value).endswith(says), refused.value


def test_problem_is_frozen_sorted_and_merges_duplicates():
    problem = Problem(8, [(3, 1), (0, 3), (0, 3)])
    assert problem.queens == ((0, 3), (3, 1))
    with pytest.raises(AttributeError):
        problem.n = 9


@pytest.mark.parametrize("pair", [[(0, 0), (0, 5)], [(0, 0), (5, 0)], [(0, 0), (3, 3)], [(0, 4), (4, 0)]])
def test_attacking_mandatory_queens_are_unsat_with_the_pair_named(pair):
    result = solve(8, pair)
    assert result.status is Status.UNSAT
    assert result.certificate.kind == "attack"
    assert sorted(map(tuple, result.certificate.details["queens"])) == sorted(pair)
    # The second method: the naive brute force agrees there is no solution.
    from naive import naive_has_solution
    assert not naive_has_solution(8, pair)


def test_empty_board_has_the_empty_solution():
    result = solve(0)
    assert result.status is Status.SAT and result.column_tuple() == () and result.board() == ""


def test_solve_accepts_a_problem_and_verifies():
    result = solve(Problem(8, [(0, 3)]))
    assert result.status is Status.SAT
    assert naive_is_solution(8, result.column_tuple(), [(0, 3)])
    assert 0 < result.stats["wall_s"] < 60 and result.stats["verify_s"] > 0


def test_available_solvers_lists_construct():
    infos = {info.name: info for info in nqcsp.available_solvers()}
    assert infos["construct"].installed and not infos["construct"].complete


class _LyingSolver:
    complete = False

    def __init__(self, name, status, queens=None):
        self.name, self.status, self.queens = name, status, queens

    def solve(self, problem, *, limits, seed=None, **options):
        from nqcsp.board.result import columns_array
        queens = None if self.queens is None else columns_array(self.queens, problem.n)
        return Result(problem, self.status, self.name, columns=queens)


def test_an_exception_after_the_input_is_accepted_is_internal_not_bad_input(monkeypatch):
    """A TypeError or ValueError from inside the solving (here: a certificate built wrongly, which makes the
    re-check raise) is a bug; reported as the ValueError/TypeError of bad input, it would blame the user."""
    import nqcsp.solvers as registry
    from nqcsp import Certificate

    class Malformed:
        def solve(self, problem, *, limits, seed=None, **options):
            malformed = Certificate("attack", (), {"queens": [1]})
            return Result(problem, Status.UNSAT, "backtrack", certificate=malformed)

    monkeypatch.setitem(registry._instances, "backtrack", Malformed())
    with pytest.raises(InternalSolverError, match="TypeError"):
        solve(8, [(0, 3)], solver="backtrack")


def test_a_named_backend_that_is_not_installed_says_what_it_lacks(monkeypatch):
    from nqcsp.runtime.lazy import MissingDependency

    monkeypatch.setenv("PATH", "")
    with pytest.raises(MissingDependency, match="'minizinc' executable"):
        solve(8, solver="minizinc")


@pytest.mark.parametrize("liar", [_LyingSolver("bad-board", Status.SAT, [0, 1, 2, 3]),
                                  _LyingSolver("no-board", Status.SAT),
                                  _LyingSolver("fake-unsat", Status.UNSAT)])
def test_a_lying_backend_raises_instead_of_answering(monkeypatch, liar):
    import nqcsp.solvers as registry

    monkeypatch.setitem(registry._instances, "construct", liar)
    with pytest.raises(InternalSolverError):
        solve(4, solver="construct")


def test_import_is_lazy_and_public_names_load_on_first_use():
    import subprocess
    import sys
    # Importing the module nqcsp.studies.blockades leaves the public function nqcsp.blockades in place.
    code = ("import sys, nqcsp; heavy = ('numba', 'ortools', 'pysat', 'numpy'); "
            "print(any(m in sys.modules for m in heavy)); import nqcsp.studies.blockades; "
            "print(callable(nqcsp.blockades), set(nqcsp.__all__) <= set(dir(nqcsp)), "
            "nqcsp.solve(8, [(0, 3)]).status.value, nqcsp.solvers.portfolio.POLICY.local_search)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True", "True", "SAT", "qs4"]
    with pytest.raises(AttributeError, match="no_such_name"):
        nqcsp.no_such_name  # noqa: B018


@pytest.mark.parametrize("limit", [float("inf"), float("-inf"), float("nan"), 0, 0.0, -1, 10**400],
                         ids=["inf", "-inf", "nan", "0", "0.0", "-1", "10**400"])
def test_a_time_limit_is_finite_and_positive_or_none(limit):
    # inf was taken as no limit (`threshold --search-first inf` never ended): None says that, inf is refused.
    from nqcsp.runtime.limits import Limits
    from nqcsp.studies.blockade_search import search

    with pytest.raises(ValueError, match="time_limit must be a finite number of seconds > 0"):
        solve(8, [(0, 3)], time_limit=limit)
    with pytest.raises(ValueError, match="time_limit"):
        Limits.start(limit)
    with pytest.raises(ValueError, match="time_limit"):
        search(8, 2, limit)
    if limit != 0:      # search_first=0 is "no search first", the default
        with pytest.raises(ValueError, match="search_first"):
            nqcsp.completion_threshold(8, search_first=limit)
    unlimited = Limits.start(None)
    assert unlimited.time_limit is None and unlimited.remaining() is None
    result = solve(8, [(0, 3)], time_limit=None)
    assert result.status is Status.SAT and naive_is_solution(8, result.columns.tolist(), [(0, 3)])


@pytest.mark.parametrize(("options", "named"), [
    ({"solver": "qs4", "max_restarts": 2**70}, "max_restarts"),
    ({"solver": "qs4", "tail": -1}, "tail"),
    ({"solver": "sat", "proof": 1}, "proof"),
    ({"solver": "sat", "hint": 1}, "hint"),
    ({"solver": "cpsat", "workers": 2**70}, "workers"),
    ({"bogus": 1}, "bogus"),
])
def test_option_values_are_checked_before_any_work(options, named):
    with pytest.raises((TypeError, ValueError), match=named):
        solve(8, **options)
    with pytest.raises((TypeError, ValueError), match=named):
        solve(0, **options)  # also when the answer needs no search


@pytest.mark.parametrize("memory_limit", [0, -5, 2**19, 1.5, "1G"])
def test_a_bad_memory_limit_is_named(memory_limit):
    with pytest.raises((TypeError, ValueError), match="memory_limit"):
        solve(8, memory_limit=memory_limit)


def test_an_impossible_board_is_a_value_error_and_a_huge_one_unknown():
    with pytest.raises(ValueError, match="beyond"):
        solve(2**63)
    result = solve(10**12, [(0, 1)], time_limit=5)
    assert result.status is Status.UNKNOWN and "TiB" in result.stats["reason"]


def test_board_text_that_cannot_fit_is_refused_naming_the_size():
    result = solve(10**5, [(0, 1)])
    assert result.status is Status.SAT
    with pytest.raises(ValueError, match="GiB"):
        result.board(memory_limit=2**30)


def test_a_free_line_left_without_a_cell_is_decided_before_any_backend():
    # Row 2 of a 4-board: (0, 0) and (1, 2) take columns 0 and 2 and attack (2, 1) and (2, 3).
    result = solve(4, [(0, 0), (1, 2)], solver="qs4")
    assert result.status is Status.UNSAT and result.solver == "trivial"
    assert result.certificate.kind == "empty-line" and result.certificate.checked
    assert result.certificate.details["line"] == "row" and result.certificate.details["index"] == 2


def _many_queens_of_a_solution(n: int, kept: int):
    from nqcsp.board.construction import closed_form

    columns = closed_form(n)
    rows = np.sort(np.random.default_rng(1).choice(n, kept, replace=False))
    return np.column_stack((rows, columns[rows]))


@pytest.mark.parametrize("as_list", [False, True])
def test_a_million_mandatory_queens_are_checked_within_the_deadline(as_list):
    # 999,000 queens were validated and attack-checked in plain Python before the clock started (11-17 s).
    queens = _many_queens_of_a_solution(10**6, 999_000)
    given = [tuple(cell) for cell in queens.tolist()] if as_list else queens
    with Stopwatch() as watch:
        result = solve(10**6, given, time_limit=0.5)
    assert watch.seconds <= 1.0, watch
    if result.status is Status.SAT:
        assert nqcsp.verify(10**6, result.columns, queens)
    else:
        assert result.status is Status.UNKNOWN


def test_queens_as_an_integer_array_equal_the_pairs():
    pairs = [(3, 1), (0, 3), (0, 3)]
    assert Problem(8, np.array(pairs)) == Problem(8, pairs)
    assert Problem(8, np.array(pairs, dtype=np.uint8)).queens == ((0, 3), (3, 1))
    with pytest.raises(TypeError, match="float64"):
        Problem(8, np.array([[0.0, 3.0]]))
    with pytest.raises(ValueError, match=r"\(9, 3\)"):
        Problem(8, np.array([[9, 3]]))


def test_a_vectorised_attack_check_finds_the_same_pair_as_a_walk():
    rng = np.random.default_rng(7)
    for _ in range(200):
        cells = {tuple(c) for c in rng.integers(0, 12, size=(rng.integers(0, 6), 2)).tolist()}
        problem = Problem(12, cells)
        walk = None
        seen: list[dict] = [{}, {}, {}, {}]
        for row, col in problem.queens:
            for lines, key in zip(seen, (row, col, row + col, row - col), strict=True):
                if walk is None and key in lines:
                    walk = (lines[key], (row, col))
                lines[key] = (row, col)
            if walk is not None:
                break
        assert problem.attack == walk
