"""The MiniZinc backend: every status translated, answers checked against the naive reference, the
deadline kept by killing MiniZinc's process group.

Most tests run a fake ``minizinc`` written here (a Python script on PATH speaking MiniZinc's documented
``--json-stream`` format, answering by brute force), so the parsing, the exit codes and the kills are
tested everywhere, CI included. The tests marked ``needs_minizinc`` run the real binary with Gecode where
it is installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from naive import naive_has_solution, naive_is_solution
from timing import Stopwatch

import nqcsp
import nqcsp.solvers as registry
from nqcsp import Status

ROOT = Path(__file__).resolve().parents[2]


def _gecode_installed() -> bool:
    if shutil.which("minizinc") is None:
        return False
    try:
        listing = subprocess.run(["minizinc", "--solvers"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "org.gecode.gecode" in listing


needs_minizinc = pytest.mark.skipif(not _gecode_installed(), reason="minizinc with Gecode is not installed")


def test_minizinc_is_registered_complete_with_its_options():
    spec = registry.spec("minizinc")
    assert spec.complete and spec.requires == ("bin:minizinc",)
    assert registry.options_for("minizinc", {}) == {"mzn_solver": "gecode"}
    with pytest.raises(ValueError, match="mzn_solver"):
        registry.options_for("minizinc", {"mzn_solver": "gecode; rm"})
    with pytest.raises(TypeError, match="mzn_solver"):
        registry.options_for("minizinc", {"mzn_solver": 3})


def test_importing_the_backend_module_starts_nothing():
    code = "import sys, nqcsp.solvers.minizinc; print(sorted(m for m in ('numba', 'ortools', 'pysat') " \
           "if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr


def test_the_data_file_is_the_example_format():
    from nqcsp.solvers.minizinc import dzn_text

    example = (ROOT / "models" / "example.dzn").read_text()
    for line in dzn_text(nqcsp.Problem(8, [(0, 3)])).splitlines():
        assert line in example


def test_the_model_is_found():
    from nqcsp.solvers.minizinc import model_path

    assert model_path().read_text() == (ROOT / "models" / "nqueens.mzn").read_text()


@needs_minizinc
def test_answers_agree_with_the_naive_reference():
    # Every cell of n = 6 up to symmetry (12 of its 36 cells are blocked), a few empty boards, completions.
    cases = [(n, []) for n in (1, 2, 3, 5)]
    cases += [(6, [(r, c)]) for r in range(6) for c in range(6) if r <= c <= 5 - r]
    cases += [(9, nqcsp.random_completion(9, 4, seed)) for seed in range(2)]
    claims = 0
    for n, queens in cases:
        result = nqcsp.solve(n, queens, solver="minizinc", time_limit=20)
        truth = naive_has_solution(n, queens)
        assert result.status is (Status.SAT if truth else Status.UNSAT), (n, queens, result.stats)
        if truth:
            assert naive_is_solution(n, result.column_tuple(), queens)
        elif result.solver == "minizinc":
            # MiniZinc's claim, carried as such: nqcsp cannot check it, so it stays unchecked.
            assert result.certificate.kind == "minizinc-unsat" and not result.certificate.checked
            claims += 1
    assert claims > 0, "no UNSAT reached MiniZinc (all were answered before the backend)"


@needs_minizinc
def test_a_deadline_kills_minizinc_and_answers_unknown():
    hard = nqcsp.random_completion(171, 141, 3)
    with Stopwatch() as watch:
        result = nqcsp.solve(171, hard, solver="minizinc", time_limit=0.5)
    took = watch.seconds
    if result.status is Status.SAT:
        pytest.skip("Gecode solved the instance within 0.5 s on this machine")
    assert result.status is Status.UNKNOWN and "0.5 s" in result.stats["reason"]
    assert took < 0.5 + 0.5
    leftover = subprocess.run(["pgrep", "-f", "nqcsp-mzn-"], capture_output=True, text=True)
    assert leftover.stdout.strip() == "", "MiniZinc outlived the deadline"


@needs_minizinc
def test_a_board_that_cannot_fit_is_unknown_before_minizinc_starts():
    result = nqcsp.solve(10**6, [(0, 3)], solver="minizinc", time_limit=5)
    assert result.status is Status.UNKNOWN and result.stats["stage"] == "build"
    assert "memory" in result.stats["reason"]


@needs_minizinc
def test_an_unknown_minizinc_solver_is_bad_input_naming_it():
    with pytest.raises(ValueError, match="no-such-solver"):
        nqcsp.solve(8, [(0, 3)], solver="minizinc", mzn_solver="no-such-solver", time_limit=20)


# ---------------------------------------------------------------- a fake minizinc, everywhere

# MiniZinc's command line as the backend uses it, answered per --solver NAME: "gecode" solves by brute force
# (with a log line on stdout that is not JSON); the others each stand for one way MiniZinc can end.
FAKE_MINIZINC = """#!{python}
import json, os, subprocess, sys, time
sys.path.insert(0, {tests!r})
from naive import naive_solutions

args = sys.argv[1:]
def value(flag, default=None):
    return args[args.index(flag) + 1] if flag in args else default
def say(message):
    print(json.dumps(message), flush=True)

if "--json-stream" not in args or value("--output-mode") != "json":
    print("the fake speaks only --json-stream --output-mode json", file=sys.stderr); sys.exit(9)
model, data = args[-2], args[-1]
assert model.endswith("nqueens.mzn") and os.path.isfile(model), model
fields = dict(line.rstrip(";").split(" = ") for line in open(data).read().splitlines() if " = " in line)
n = int(fields["n"])
rows, cols = (json.loads(fields[key]) for key in ("mrow", "mcol"))
solver = value("--solver")
limit_s = int(value("--time-limit", "60000")) / 1000
if solver == "gecode":
    print("% a solver logging on stdout", flush=True)
    found = next(naive_solutions(n, list(zip(rows, cols))), None)
    if found is None:
        say({{"type": "status", "status": "UNSATISFIABLE"}})
    else:
        say({{"type": "solution", "output": {{"json": {{"q": list(found)}}, "raw": "q = ...;"}},
             "sections": ["json", "raw"]}})
elif solver == "liar":
    say({{"type": "solution", "output": {{"json": {{"q": list(range(n))}}}}, "sections": ["json"]}})
elif solver == "plausible":
    # A real solution of the empty board that ignores a mandatory queen: right shape, wrong answer.
    wrong = next(q for q in naive_solutions(n, []) if any(q[r] != c for r, c in zip(rows, cols)))
    say({{"type": "solution", "output": {{"json": {{"q": list(wrong)}}}}, "sections": ["json"]}})
elif solver == "unsat-liar":
    say({{"type": "status", "status": "UNSATISFIABLE"}})
elif solver == "garbled":
    say({{"type": "solution", "output": {{"default": "q = [0];"}}, "sections": ["default"]}})
elif solver == "patient":
    time.sleep(limit_s / 2)
    say({{"type": "status", "status": "UNKNOWN"}})
elif solver == "hang":
    child = subprocess.Popen(["sleep", "60"])
    open({pid_file!r}, "w").write(str(child.pid))
    time.sleep(60)
elif solver == "crash":
    print("Segmentation fault", file=sys.stderr); sys.exit(139)
elif solver == "oom":
    print("terminate called after throwing an instance of 'std::bad_alloc'", file=sys.stderr); sys.exit(1)
else:
    say({{"type": "error", "what": "configuration error", "message": f"no solver with tag {{solver}} found"}})
    sys.exit(1)
"""


@pytest.fixture()
def fake_minizinc(tmp_path, monkeypatch):
    """The fake on PATH (ahead of any real one); returns the file where the "hang" mode writes its child."""
    pid_file = tmp_path / "child.pid"
    binary = tmp_path / "bin" / "minizinc"
    binary.parent.mkdir()
    binary.write_text(FAKE_MINIZINC.format(python=sys.executable, tests=str(ROOT / "tests"),
                                           pid_file=str(pid_file)))
    binary.chmod(0o755)
    monkeypatch.setenv("PATH", f"{binary.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert registry.is_installed("minizinc")
    return pid_file


def test_fake_answers_are_read_from_the_json_stream_and_checked(fake_minizinc):
    cases = [(8, [(0, 3)]), (6, [(0, 0)]), (6, [(1, 2)]), (5, [(0, 0), (1, 2)]), (3, [])]
    for n, queens in cases:
        # Cells the pre-check cannot decide, so the backend's answer is the one read.
        result = nqcsp.solve(n, queens, solver="minizinc", time_limit=20)
        assert result.solver == "minizinc", (n, queens, result)
        if naive_has_solution(n, queens):
            assert result.status is Status.SAT and naive_is_solution(n, result.column_tuple(), queens)
        else:
            assert result.status is Status.UNSAT and result.certificate.kind == "minizinc-unsat"
            assert not result.certificate.checked


@pytest.mark.parametrize("name", ["nope", "org.example.absent"])
def test_fake_an_unknown_solver_name_is_bad_input_naming_it(fake_minizinc, name):
    with pytest.raises(ValueError, match=name) as caught:
        nqcsp.solve(8, [(0, 3)], solver="minizinc", mzn_solver=name, time_limit=20)
    assert not isinstance(caught.value, nqcsp.InternalSolverError)


def test_fake_an_unknown_solver_name_in_a_batch_is_an_input_error_and_exit_2(fake_minizinc):
    line = json.dumps({"n": 8, "queens": [[0, 3]], "solver": "minizinc", "mzn_solver": "nope", "id": 1})
    out = subprocess.run([sys.executable, "-m", "nqcsp", "solve", "--batch", "-"], input=line + "\n",
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    (record,) = [json.loads(text) for text in out.stdout.splitlines()]
    assert record["error_type"] == "input" and "'nope'" in record["error"], record
    assert out.returncode == 2, out.stderr


@pytest.mark.parametrize("name", ["liar", "plausible", "garbled", "crash"])
def test_fake_a_broken_answer_or_a_crash_is_an_internal_error(fake_minizinc, name):
    with pytest.raises(nqcsp.InternalSolverError):
        nqcsp.solve(8, [(0, 3)], solver="minizinc", mzn_solver=name, time_limit=20)


AUTO_BOARD = (8, [(0, 0), (1, 4)])        # solvable, and not by construct's closed forms


@pytest.fixture()
def auto_with_minizinc_first(fake_minizinc, monkeypatch):
    """``nqcsp.solve(..., solver="auto")`` on AUTO_BOARD (too small for local search, so the complete
    backends answer), with the fake MiniZinc in mode ``mzn_solver`` first and only ``then`` after it."""
    import functools

    import nqcsp.solvers.portfolio as portfolio

    assert naive_has_solution(*AUTO_BOARD)

    def solve(mzn_solver: str, then: tuple[str, ...], time_limit: float = 20):
        order = ("minizinc", *then)
        policy = portfolio.Policy(complete_order=order, open_board_order=order,
                                  backend_options={"minizinc": {"mzn_solver": mzn_solver}})
        monkeypatch.setattr(portfolio, "solve_auto", functools.partial(portfolio.solve_auto, policy=policy))
        # Only the backends named: the portfolio would otherwise append every other installed one.
        monkeypatch.setattr(portfolio, "complete_backends", lambda problem, policy: list(order))
        return nqcsp.solve(*AUTO_BOARD, solver="auto", time_limit=time_limit)

    return solve


def test_fake_unsat_claim_alone_is_never_auto_s_answer(auto_with_minizinc_first):
    result = auto_with_minizinc_first("unsat-liar", ())
    assert [stage["solver"] for stage in result.stats["stages"]] == ["construct", "minizinc"], result.stats
    assert result.status is Status.UNKNOWN and result.stats["stage"] == "confirm", result.stats


@pytest.mark.parametrize("second", ["backtrack", "sat"])
def test_fake_unsat_claim_contradicted_by_a_second_backend_is_an_internal_error(auto_with_minizinc_first,
                                                                                second):
    if second == "sat":
        pytest.importorskip("pysat")
    with pytest.raises(nqcsp.InternalSolverError, match=rf"minizinc answered UNSAT but {second} found"):
        auto_with_minizinc_first("unsat-liar", (second,))


def test_fake_minizinc_hanging_silently_inside_auto_keeps_auto_s_deadline(auto_with_minizinc_first):
    with Stopwatch() as watch:
        result = auto_with_minizinc_first("hang", ("backtrack",), time_limit=1.0)
    took = watch.seconds
    assert result.status is Status.UNKNOWN and took < 1.0 + 0.5, (took, result.stats)
    assert "1.0 s" in result.stats["reason"], result.stats


def test_fake_wrong_solution_inside_auto_is_an_internal_error_not_sat(auto_with_minizinc_first):
    with pytest.raises(nqcsp.InternalSolverError, match="minizinc"):
        auto_with_minizinc_first("plausible", ("backtrack",))


def test_fake_wrong_solution_from_the_command_line_is_exit_4_in_one_line(fake_minizinc):
    out = subprocess.run([sys.executable, "-m", "nqcsp", "solve", "8", "--queen", "0,3",
                          "--solver", "minizinc", "--option", "mzn_solver=plausible"],
                         capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert out.returncode == 4 and out.stdout == "", (out.stdout, out.stderr)
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr, out.stderr


def test_fake_running_out_of_memory_is_unknown_naming_memory(fake_minizinc):
    result = nqcsp.solve(8, [(0, 3)], solver="minizinc", mzn_solver="oom", time_limit=20)
    assert result.status is Status.UNKNOWN and result.stats["reason"].startswith("memory")


def test_fake_minizinc_stopping_at_its_own_limit_is_unknown_within_the_promise(fake_minizinc):
    with Stopwatch() as watch:
        result = nqcsp.solve(8, [(0, 3)], solver="minizinc", mzn_solver="patient", time_limit=1.0)
    took = watch.seconds
    # Read from MiniZinc's own UNKNOWN status (its stats are there), not from a kill at the deadline.
    assert result.status is Status.UNKNOWN and result.stats["mzn_solver"] == "patient", result.stats
    assert "1.0 s" in result.stats["reason"]
    assert took < 1.0 + 0.5


def test_fake_the_deadline_kills_minizinc_and_its_children(fake_minizinc):
    with Stopwatch() as watch:
        result = nqcsp.solve(8, [(0, 3)], solver="minizinc", mzn_solver="hang", time_limit=1.0)
    took = watch.seconds
    assert result.status is Status.UNKNOWN and result.stats["stage"] == "search", result.stats
    assert took < 1.0 + 0.5
    child = int(fake_minizinc.read_text())
    deadline = time.monotonic() + 3
    while Path(f"/proc/{child}").exists() and "Z" not in _state(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{child}").exists() or "Z" in _state(child), "MiniZinc's child outlived the call"


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return "X"
