"""The blockade sweep: every cell matches brute force, every witness and proof is checked, tasks are
planned whole-board, small work needs no pool (spawn-safe), Ctrl-C keeps the finished boards."""

import itertools
import json
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from interrupting import interrupt_when, start_interruptible
from naive import naive_has_solution, naive_is_solution

import nqcsp
from nqcsp.board.symmetry import canonical, canonical_cells, canonical_codes, class_codes, class_count, orbit
from nqcsp.studies.blockades import estimated_seconds, plan_tasks, sweep


def naive_blocked_cells(n):
    return sorted(cell for cell in itertools.product(range(n), repeat=2) if not naive_has_solution(n, [cell]))


@pytest.mark.parametrize("n", range(1, 9))
def test_blockades_match_brute_force(n):
    with ThreadPoolExecutor(2) as pool:
        assert nqcsp.blockades(n, executor=pool) == naive_blocked_cells(n)


def test_sweep_reports_witnesses_and_checked_proofs():
    with ThreadPoolExecutor(2) as pool:
        boards = sweep([4, 6, 13], executor=pool)
    for board in boards:
        assert board.classes == len(canonical_cells(board.n))
        assert sum(board.witnesses_by_solver.values()) + len(board.blocked_classes) == board.classes
        assert board.solves <= board.classes
        for verdict in board.verdicts:
            if verdict.status == "SAT":
                assert naive_is_solution(board.n, verdict.witness)
                assert any(verdict.witness[r] == c for r, c in orbit(board.n, verdict.cell))
            else:
                assert verdict.certificate["checked_by"]
    assert [b.n for b in boards if b.blocked] == [4, 6]


def test_vectorised_classes_match_the_symmetry_module():
    for n in range(0, 41):
        cells = canonical_cells(n)
        assert class_codes(n).tolist() == [r * n + c for r, c in cells]
        assert class_count(n) == len(cells)
        if n:
            rows, cols = np.divmod(np.arange(n * n), n)
            expected = [canonical(n, cell) for cell in itertools.product(range(n), repeat=2)]
            assert canonical_codes(n, rows, cols).tolist() == [r * n + c for r, c in expected]


@pytest.mark.slow  # 8 s: 60 x 60 board swept in this process
def test_a_witness_covers_many_classes_so_big_boards_need_few_solves():
    board = sweep([60])[0]
    assert board.solves < board.classes / 4, (board.solves, board.classes)
    for verdict in board.verdicts[::37]:
        assert naive_is_solution(60, verdict.witness)


def test_tasks_are_whole_boards_of_about_a_second_largest_first():
    tasks = plan_tasks(range(1, 1001))
    assert sorted(n for task in tasks for n in task) == list(range(1, 1001))
    assert tasks[0] == (1000,) and tasks[-1][-1] == 1
    costs = [sum(map(estimated_seconds, task)) for task in tasks]
    assert all(cost >= 1.0 for cost in costs[:-1]) and max(costs) < 2.5


def test_a_board_that_lies_is_caught():
    from nqcsp.board.result import InternalSolverError
    from nqcsp.studies.blockades import decide_board, summarise

    outcome = decide_board(8)
    outcome.witnesses[0, 1] = outcome.witnesses[0, 0]   # two queens in one column
    with pytest.raises(InternalSolverError, match="not a solution"):
        summarise(outcome)
    outcome = decide_board(6)
    outcome.others[0] = outcome.others[0][:4] + ({"kind": "exhaustive", "checked_by": []},)
    with pytest.raises(InternalSolverError, match="without a checked certificate"):
        summarise(outcome)


@pytest.mark.slow  # 3 s: a fresh interpreter under spawn
def test_blockades_from_an_unguarded_script_under_spawn(tmp_path):
    # Under spawn (macOS, Windows, Python 3.14's default) a pool's workers re-run an unguarded script's
    # top level; the sweep of a small board must not need a pool at all.
    script = tmp_path / "plain.py"
    script.write_text("import multiprocessing\nmultiprocessing.set_start_method('spawn')\n"
                      "import nqcsp\nprint(nqcsp.blockades(6))\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert eval(out.stdout) == naive_blocked_cells(6)


@pytest.mark.slow  # 4 s: spawned workers import numba and load kernels
def test_sweep_on_a_spawned_pool(tmp_path):
    script = tmp_path / "guarded.py"
    script.write_text("import multiprocessing, json\nfrom nqcsp.studies.blockades import sweep\n"
                      "if __name__ == '__main__':\n    multiprocessing.set_start_method('spawn')\n"
                      "    boards = sweep(range(1, 9), jobs=2)\n"
                      "    print(json.dumps([b.blocked for b in boards]))\n")
    assert sum(map(estimated_seconds, range(1, 9))) < 0.5  # runs in-process: force a pool below
    script.write_text(script.read_text().replace("sweep(range(1, 9), jobs=2)",
                                                 "sweep(range(1, 9), jobs=2, executor=__import__("
                                                 "'nqcsp.runtime.parallel').runtime.parallel.ProcessPool(2))"))
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout) == [[list(c) for c in naive_blocked_cells(n)] for n in range(1, 9)]


@pytest.mark.slow  # 6 s: it must wait for the workers to load their kernels and finish a first board
def test_ctrl_c_writes_the_finished_boards_and_exits_130():
    proc = start_interruptible([sys.executable, "-m", "nqcsp", "blockades", "1", "400", "--jobs", "2",
                                "--progress"])
    # Interrupt once a first board is reported by the progress bar (largest boards come first).
    rc, out, err, took = interrupt_when(
        proc, lambda out, err: any(int(done) for done in re.findall(r"\| *(\d+)/\d+", err)))
    assert rc == 130 and took < 2, (rc, took, err[-500:])
    rows = out.splitlines()
    assert rows[0].split()[:2] == ["n", "classes"] and len(rows) >= 2
    for row in rows[1:]:
        n, classes, blocked = map(int, row.split()[:3])
        assert 1 <= n <= 400 and classes == class_count(n) and blocked == 0 if n > 6 else True
    assert "interrupted" in err and "Traceback" not in err


def test_undecided_cells_are_reported_and_the_exit_code_says_so(monkeypatch, capsys):
    # Without pysat and ortools, backtrack's exhaustive claims had no second backend: the undecided
    # classes were dropped from the blocked counts and the command exited 0.
    import nqcsp.solvers.portfolio
    from nqcsp.cli import main

    installed = nqcsp.solvers.portfolio.is_installed
    monkeypatch.setattr(nqcsp.solvers.portfolio, "is_installed",
                        lambda name: name not in ("sat", "cpsat", "minizinc") and installed(name))
    # backtrack's own LRAT proofs decide every cell without a second backend ...
    assert main(["blockades", "1", "8", "--jobs", "1", "--no-progress"]) == 0
    assert "UNDECIDED" not in capsys.readouterr().out
    # ... and without them its claims stay undecided, and say so.
    monkeypatch.setitem(nqcsp.solvers.portfolio.POLICY.backend_options, "backtrack", {"proof": False})
    assert main(["blockades", "1", "8", "--jobs", "1", "--no-progress"]) == 3
    out, err = capsys.readouterr()
    six = next(line for line in out.splitlines() if line.split()[:1] == ["6"])
    assert "UNDECIDED" in six and "?" in six.split()[2]
    assert "undecided" in err and len(err.strip().splitlines()) == 1
