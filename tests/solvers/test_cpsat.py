import json
import subprocess
import sys
import textwrap

import pytest
from interrupting import interrupt_when, ready_after, start_interruptible
from naive import naive_count, naive_has_solution, naive_is_solution, naive_solutions
from timing import Stopwatch

from nqcsp import InternalSolverError, Problem, Status, solve, verify
from nqcsp.board.construction import permutation_near
from nqcsp.runtime.limits import Limits
from nqcsp.solvers import cpsat, options_for
from nqcsp.solvers.cpsat import CpSatSolver

pytest.importorskip("ortools")

MODELS = ["alldiff", "boolean"]
A000170 = [1, 0, 0, 2, 10, 4, 40, 92, 352]  # solutions of n = 1..9 queens (OEIS)


def mandatory_for(n):
    return [(0, n // 3)]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("n", [2, 3])
def test_boards_without_solutions_are_unsat_with_a_cpsat_claim(model, n):
    assert not naive_has_solution(n)
    result = solve(n, solver="cpsat", model=model)
    assert result.status is Status.UNSAT
    assert result.certificate.kind == "cpsat-infeasible"
    assert result.certificate.checked_by == ()  # only CP-SAT's claim; another method checks it
    assert result.certificate.details["model"] == model


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("n", [4, 6])
def test_every_single_queen_cell_agrees_with_brute_force(model, n):
    blockades = 0
    for row in range(n):
        for col in range(n):
            result = solve(n, [(row, col)], solver="cpsat", model=model)
            if naive_has_solution(n, [(row, col)]):
                assert result.status is Status.SAT, (row, col)
                assert naive_is_solution(n, result.columns.tolist(), [(row, col)])
            else:
                blockades += 1
                assert result.status is Status.UNSAT, (row, col)
                assert result.certificate.kind == "cpsat-infeasible"
    assert blockades > 0  # n = 4 and 6 both have blockade cells; otherwise this test checks nothing UNSAT


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("queens", [[(0, 0), (1, 1)], [(0, 0), (3, 0)], [(2, 1), (2, 5)], [(0, 5), (5, 0)]])
def test_attacking_mandatory_queens_are_unsat_in_the_api_and_in_the_backend(model, queens):
    problem = Problem(8, queens)
    assert problem.attack is not None and naive_count(8, queens) == 0
    assert solve(problem, solver="cpsat", model=model).certificate.kind == "attack"
    direct = CpSatSolver().solve(problem, limits=Limits.unlimited(), **options_for("cpsat", {"model": model}))
    assert direct.status is Status.UNSAT and direct.certificate.kind == "cpsat-infeasible"


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("hint", [None, "construct", "localsearch"])
@pytest.mark.parametrize("n", [1, 5, 8, 13, 40, 101])
def test_sat_answers_pass_the_naive_checker(model, hint, n):
    for queens in ([], mandatory_for(n), [(n - 1, n // 2)] if n > 1 else []):
        result = solve(n, queens, solver="cpsat", model=model, hint=hint, seed=7)
        assert result.status is Status.SAT
        assert naive_is_solution(n, result.columns.tolist(), queens)
        assert not result.columns.flags.writeable


def enumerate_solutions(problem, **options):
    """Every solution the backend's model admits, by CP-SAT's solution callback (one worker, presolve
    keeping every solution): the model is right when this is exactly the naive set."""
    from ortools.sat.python import cp_model

    if problem.attack is not None:
        return []
    if problem.n == 0:
        return [()]
    config = cpsat.resolve_options(options)
    found = []

    class Collector(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            found.append(tuple(cpsat.columns_from(self.response_proto.solution, problem.n,
                                                  config["model"]).tolist()))

    solver = cpsat.make_solver(config, time_limit=None, seed=None)
    solver.parameters.num_workers = 1
    solver.parameters.enumerate_all_solutions = True
    assert solver.solve(cpsat.build(problem, config), Collector()) in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
    return found


def count_solutions(problem, **options):
    return len(enumerate_solutions(problem, **options))


@pytest.mark.parametrize("model", MODELS)
def test_a_local_search_hint_is_used_when_found_and_unsat_boards_stay_unsat(model):
    n, queens = 300, [(0, 100)]
    result = solve(n, queens, solver="cpsat", model=model, hint="localsearch", seed=3)
    assert result.status is Status.SAT and naive_is_solution(n, result.columns.tolist(), queens)
    assert result.stats["hint"] == "qs4"
    # No solution holds a queen on (0, 0) of the 6-board: qs4 gives up, the construction is hinted
    # and CP-SAT still proves it.
    assert not naive_has_solution(6, [(0, 0)])
    unsat = CpSatSolver().solve(Problem(6, [(0, 0)]), limits=Limits.unlimited(), seed=1,
                                **options_for("cpsat", {"model": model, "hint": "localsearch"}))
    assert unsat.status is Status.UNSAT and unsat.stats["hint"] == "construction"


@pytest.mark.slow
def test_the_default_hint_is_local_search_from_big_boards_on():
    from nqcsp.board.construction import closed_form
    from nqcsp.solvers.cpsat import LOCALSEARCH_HINT_MIN_FREE_ROWS

    n = LOCALSEARCH_HINT_MIN_FREE_ROWS + 1  # one queen: exactly the threshold's free rows
    queen = [(0, n // 3)]
    big = solve(n, queen, solver="cpsat", seed=1)
    small = solve(n - 1, queen, solver="cpsat", seed=1)
    asked = solve(n, queen, solver="cpsat", seed=1, hint="construct")
    # A completion board of few free rows: CP-SAT's own search is quicker than loading qs4.
    base = closed_form(2 * n)[::-1].tolist()
    completion = [(r, base[r]) for r in range(2 * n) if r % 10]
    few_free = solve(2 * n, completion, solver="cpsat", seed=1)
    results = (big, small, asked, few_free)
    assert [r.stats["hint"] for r in results] == ["qs4", "construction", "construction", "construction"]
    for result, queens in zip(results, [queen] * 3 + [completion], strict=True):
        assert result.status is Status.SAT
        assert naive_is_solution(result.problem.n, result.columns.tolist(), queens)


@pytest.mark.parametrize("model", MODELS)
def test_counts_match_the_known_sequence_and_the_naive_count(model):
    for n, known in enumerate(A000170, start=1):
        assert count_solutions(Problem(n), model=model) == known == naive_count(n)
        queens = mandatory_for(n)
        assert count_solutions(Problem(n, queens), model=model) == naive_count(n, queens)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("n, queens", [(6, []), (8, [(0, 3)]), (8, [(4, 4)]), (9, [(2, 7)]),
                                       (5, [(0, 0), (1, 2)])])
def test_enumerated_solutions_are_exactly_the_naive_ones(model, n, queens):
    found = list(enumerate_solutions(Problem(n, queens), model=model))
    assert len(found) == len(set(found))
    assert all(naive_is_solution(n, cols, queens) and verify(n, cols, queens) for cols in found)
    assert set(found) == set(naive_solutions(n, queens))


def test_construction_hint_is_a_permutation_holding_the_mandatory_queens():
    for n in (1, 2, 3, 4, 9, 50):
        for queens in ([], [(0, n // 3)], [(n - 1, 0), (0, n - 1)] if n > 3 else []):
            hint = permutation_near(Problem(n, queens))
            assert sorted(hint.tolist()) == list(range(n))
            assert all(hint[row] == col for row, col in queens)


def test_time_limit_ends_in_sat_or_unknown_with_a_reason():
    result = solve(400, mandatory_for(400), solver="cpsat", model="alldiff", time_limit=0.05)
    assert result.status in (Status.SAT, Status.UNKNOWN)
    if result.status is Status.UNKNOWN:
        assert "time limit" in result.stats["reason"] and result.stats["stage"] in ("build", "search")
    else:
        assert verify(400, result.columns, mandatory_for(400))


def test_search_options_and_raw_parameters_still_give_verified_answers():
    for options in ({"search": "min-domain-median"}, {"search": "min-domain-min", "presolve": True},
                    {"workers": 2, "linearization_level": 2, "symmetry_level": 2, "inprocessing": True},
                    {"parameters": {"cp_model_probing_level": 0, "initial_polarity": "POLARITY_TRUE",
                                   "max_deterministic_time": 30.0, "use_lns_only": False}}):
        result = solve(24, [(3, 5)], solver="cpsat", **options)
        assert result.status is Status.SAT and naive_is_solution(24, result.columns.tolist(), [(3, 5)])


@pytest.mark.parametrize("options, error, named", [
    ({"model": "grid"}, ValueError, "'grid'"),
    ({"search": "fastest"}, ValueError, "'fastest'"),
    ({"hint": "random"}, ValueError, "'random'"),
    ({"model": "boolean", "search": "min-domain-min"}, ValueError, "min-domain-min"),
    ({"workers": 0}, ValueError, "0"),
    ({"workers": "2"}, TypeError, "'2'"),
    ({"workers": 1.5}, TypeError, "1.5"),
    ({"presolve": 1}, TypeError, "presolve"),
    ({"linearization_level": 3}, ValueError, "3"),
    ({"parameters": [("num_workers", 1)]}, TypeError, "num_workers"),
    ({"parameters": {"no_such_parameter": 1}}, ValueError, "no_such_parameter"),
    ({"parameters": {"cp_model_probing_level": "many"}}, TypeError, "many"),
    ({"parameters": {"cp_model_probing_level": True}}, TypeError, "True"),
    ({"parameters": {"search_branching": "NO_SUCH_SEARCH"}}, ValueError, "NO_SUCH_SEARCH"),
    ({"parameters": {"subsolvers": "fj"}}, TypeError, "subsolvers"),
    ({"bogus": 1}, TypeError, "bogus"),
])
def test_bad_options_raise_naming_the_value(options, error, named):
    with pytest.raises(error, match=named):
        solve(8, solver="cpsat", **options)


def test_an_invalid_model_raises_instead_of_answering(monkeypatch):
    def broken_model(problem, config):
        from ortools.sat.python import cp_model

        model = cp_model.CpModel()
        model.proto.merge_text_format("variables { domain: [3, 1] }")
        return model

    monkeypatch.setattr(cpsat, "build", broken_model)
    with pytest.raises(InternalSolverError, match="rejected"):
        CpSatSolver().solve(Problem(8), limits=Limits.unlimited(), **options_for("cpsat", {}))


def test_importing_nqcsp_does_not_import_ortools():
    code = "import sys, nqcsp, nqcsp.solvers.cpsat; sys.exit('ortools' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


# --- the edges (issue 11) -----------------------------------------------------------------------------


@pytest.mark.parametrize("name, value", [("fix_variables_to_their_hinted_value", True),
                                         ("stop_after_first_solution", True), ("stop_after_presolve", True),
                                         ("stop_after_root_propagation", True),
                                         ("instantiate_all_variables", False),
                                         ("debug_crash_on_bad_hint", True)])
def test_parameters_that_change_what_a_status_means_are_refused_by_name(name, value):
    with pytest.raises(ValueError, match=name):
        solve(8, [(0, 0)], solver="cpsat", parameters={name: value})
    # CP-SAT's own default changes nothing and is accepted.
    result = solve(8, [(0, 0)], solver="cpsat", parameters={name: not value})
    assert result.status is Status.SAT and naive_is_solution(8, result.columns.tolist(), [(0, 0)])


def test_the_hinted_value_parameter_no_longer_turns_a_solvable_board_into_unsat():
    # Issue 11: this returned UNSAT for a board with 4 solutions.
    assert naive_count(8, [(0, 0)]) == 4
    with pytest.raises(ValueError, match="fix_variables_to_their_hinted_value"):
        solve(8, [(0, 0)], solver="cpsat", parameters={"fix_variables_to_their_hinted_value": True})
    result = solve(8, [(0, 0)], solver="cpsat")
    assert result.status is Status.SAT and naive_is_solution(8, result.columns.tolist(), [(0, 0)])


@pytest.mark.parametrize("name, value", [("max_time_in_seconds", 1000.0), ("num_workers", 4),
                                         ("num_search_workers", 4), ("max_memory_in_mb", 10**6),
                                         ("catch_sigint_signal", True), ("subsolver_params", [])])
def test_parameters_that_would_override_the_call_are_refused(name, value):
    with pytest.raises((ValueError, TypeError), match=name):
        solve(8, solver="cpsat", parameters={name: value})


def test_a_boolean_model_that_cannot_fit_is_unknown_naming_its_size_before_anything_is_built():
    with Stopwatch() as watch:
        result = solve(3000, [(0, 3)], solver="cpsat", model="boolean", memory_limit=1 << 30)
    assert watch.seconds < 1.0, watch
    assert result.status is Status.UNKNOWN and result.stats["stage"] == "build"
    assert "memory" in result.stats["reason"] and "3000 x 3000" in result.stats["reason"]


@pytest.mark.parametrize("model, n, limit", [("boolean", 1500, 0.5), ("alldiff", 700, 0.5),
                                             ("alldiff", 2000, 1.0)])
def test_the_deadline_holds_through_build_and_load(model, n, limit):
    # Issue 11: solve(2000, [(1000, 666)], solver="cpsat", time_limit=2) took 20 s and 4 GB.
    with Stopwatch() as watch:
        result = solve(n, [(n // 2, n // 3)], solver="cpsat", model=model, time_limit=limit)
    elapsed = watch.seconds
    assert elapsed < limit + max(0.1 * limit, 0.5), elapsed
    if result.status is Status.UNKNOWN:
        assert "time limit" in result.stats["reason"] and result.stats["stage"] in ("build", "search")
    else:
        assert result.status is Status.SAT and verify(n, result.columns, [(n // 2, n // 3)])


def test_a_tiny_time_limit_is_unknown_naming_the_stage():
    with Stopwatch() as watch:
        result = solve(60, [(0, 20)], solver="cpsat", time_limit=1e-6)
    assert watch.seconds < 0.5, watch
    assert result.status is Status.UNKNOWN and "time limit" in result.stats["reason"]
    assert result.stats["stage"] in ("build", "search")


def test_ctrl_c_during_a_cpsat_search_is_a_keyboard_interrupt_not_unknown():
    # A search that runs for seconds (expansion off, no hint, one worker), interrupted after it started.
    code = textwrap.dedent("""
        import sys, time
        from nqcsp import solve
        print("ready", flush=True)
        try:
            result = solve(1500, [(700, 500)], solver="cpsat", hint=None, expand_alldiff=False,
                           time_limit=60)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(130)
        print("answered", result.status, result.stats.get("reason"), flush=True)
    """)
    child = start_interruptible([sys.executable, "-c", code])
    # 1.5 s after "ready": ortools imported and CP-SAT searching.
    rc, out, err, took = interrupt_when(child, ready_after(1.5, lambda out, err: "ready" in out))
    assert took < 3, "Ctrl-C was not acted on promptly"
    if "answered SAT" in out:
        pytest.skip("CP-SAT solved it before the interrupt")
    assert out.split() == ["ready", "interrupted"] and rc == 130, (out, err[-500:])


def test_the_residual_alldiff_model_agrees_with_brute_force_and_with_checked_sat_proofs():
    from nqcsp.board.completion import random_completion

    for n in (6, 7):
        for a in range(n):
            for b in range(n):
                queens = [(0, a), (2, b)]
                if Problem(n, queens).attack is not None:
                    continue
                result = solve(n, queens, solver="cpsat", model="alldiff")
                assert (result.status is Status.SAT) == naive_has_solution(n, queens), queens
                if result.status is Status.SAT:
                    assert naive_is_solution(n, result.columns.tolist(), queens)
    decided = set()
    for n, m in ((40, 20), (120, 95), (176, 146)):
        for seed in range(4):
            queens = random_completion(n, m, seed)
            by_cpsat = solve(n, queens, solver="cpsat", model="alldiff")
            by_sat = solve(n, queens, solver="sat")
            assert by_cpsat.status is by_sat.status, (n, m, seed)
            if by_sat.status is Status.UNSAT:
                assert by_sat.certificate.checked
            decided.add(by_sat.status)
            if by_cpsat.status is Status.SAT:
                assert verify(n, by_cpsat.columns, queens)
                assert by_cpsat.stats["model"] == "alldiff (residual board)"
    assert decided == {Status.SAT, Status.UNSAT}


def test_a_few_queens_on_a_big_board_are_modelled_on_the_whole_board_not_a_residual_table():
    # The residual board is a free x free table: with one queen at n = 10^4 building it took 2.3 s for a
    # search of 0.01 s. It is kept for boards whose free rows are few (completion problems).
    n, queens = 6000, [(0, 3), (2999, 17)]
    whole = solve(n, queens, solver="cpsat", model="alldiff")
    assert whole.status is Status.SAT and whole.stats["model"] == "alldiff"
    assert naive_is_solution(n, whole.columns.tolist(), queens)
    config = {**options_for("cpsat", {"model": "alldiff"}), "model": "alldiff"}
    completion = Problem(200, [(r, (2 * r + 1) % 200) for r in range(0, 180, 7)])
    assert cpsat.plan(completion, config, Limits.unlimited()).get("residual")
    assert not cpsat.plan(Problem(n, queens), config, Limits.unlimited()).get("residual")


# --- the edges (issue 34): every parameter value checked before the solve, logs on stderr --------------

@pytest.mark.parametrize("parameters, named", [
    ({"relative_gap_limit": float("nan")}, "relative_gap_limit"),
    ({"relative_gap_limit": float("inf")}, "relative_gap_limit"),
    ({"mip_max_bound": float("inf")}, "mip_max_bound"),          # JSON's 1e400
    ({"mip_max_bound": 1e300}, "mip_max_bound"),
    ({"mip_max_bound": 10**400}, "mip_max_bound"),
    ({"solution_pool_size": -1}, "solution_pool_size"),
    ({"random_seed": 10**23}, "random_seed"),
    ({"search_branching": 999}, "search_branching"),
    ({"restart_algorithms": ["LUBY_RESTART", "NOPE"]}, "restart_algorithms"),
    ({"subsolvers": ["no_such_subsolver"]}, "no_such_subsolver"),
    ({"log_to_stdout": True}, "log_to_stdout"),
])
def test_every_parameter_value_is_checked_before_the_solve(parameters, named):
    # NaN, inf, 1e400 and -1 gave InternalSolverError (exit 4) from the solve; the resolved options of the
    # registry already refuse them, so nothing is built or searched.
    with pytest.raises((ValueError, TypeError), match=named):
        options_for("cpsat", {"parameters": parameters})
    with pytest.raises((ValueError, TypeError), match=named):
        solve(8, [(0, 0)], solver="cpsat", parameters=parameters)


@pytest.mark.parametrize("parameters", ['{"search_branching": 999}', '{"search_branching": "NOPE"}',
                                        '{"random_seed": 100000000000000000000000}',
                                        '{"relative_gap_limit": NaN}', '{"mip_max_bound": 1e400}'])
def test_a_refused_parameter_is_one_line_of_nqcsp_and_nothing_of_ortools(parameters):
    # OR-Tools' C++ text parser wrote "WARNING: All log messages before absl::InitializeLog()..." and
    # "E0000 ... text_format.cc:379] Error parsing text-format" before nqcsp's line.
    out = subprocess.run([sys.executable, "-m", "nqcsp", "solve", "8", "--solver", "cpsat", "-O",
                          f"parameters={parameters}"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.splitlines()
    # nqcsp's own line: from the option's check, or from the command line's reader of -O values, which
    # refuses a value that is not JSON (NaN, 1e400) before any solver sees it.
    assert len(lines) == 1 and lines[0].startswith(("nqcsp: error: ", "nqcsp solve: error: ")), out.stderr
    assert "parameter" in lines[0], out.stderr


@pytest.mark.parametrize("how", [["-O", "log=true"], ["-O", 'parameters={"log_search_progress": true}']])
def test_the_search_log_goes_to_stderr_and_stdout_stays_json(how):
    # stdout held 103 lines of CP-SAT's log before the record.
    out = subprocess.run([sys.executable, "-m", "nqcsp", "solve", "9", "--queen", "0,1", "--solver", "cpsat",
                          "--format", "json", *how], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    (line,) = out.stdout.splitlines()
    record = json.loads(line)
    assert naive_is_solution(9, record["columns"], [(0, 1)])
    assert "Starting CP-SAT solver" in out.stderr and "CpSolverResponse summary" in out.stderr


def test_batch_lines_with_the_log_keep_stdout_one_record_per_line():
    # 162 log lines came between the records.
    lines = [{"n": 8, "id": "a", "solver": "cpsat", "log": True, "queens": [[0, 0]]},
             {"n": 6, "id": "b", "solver": "cpsat", "parameters": {"log_search_progress": True},
              "queens": [[0, 0]]}]
    out = subprocess.run([sys.executable, "-m", "nqcsp", "solve", "--batch", "-"], capture_output=True,
                         text=True, timeout=120, input="".join(json.dumps(line) + "\n" for line in lines))
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["id"] for r in records] == ["a", "b"], out.stdout[:500]
    assert naive_is_solution(8, records[0]["columns"], [(0, 0)])
    assert records[1]["status"] == "UNSAT" and not naive_has_solution(6, [(0, 0)])
    assert out.stderr.count("Starting CP-SAT solver") == 2
