"""The comparison suite: instance generators, the runner end to end, timeouts, the analysis, the peers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

import pytest
from naive import naive_has_solution, naive_is_solution

from benchmarks import instances as inst
from benchmarks import peers
from benchmarks.analyze import analyze, judge
from benchmarks.runner import Config, Job, build_jobs, read_results, run_job, run_suite
from benchmarks.suites import SUITES

ROOT = Path(__file__).resolve().parent.parent
# The nqcsp side of the MiniZinc comparison; "cpsat" once that backend is merged.
REFERENCE_SOLVER = "cpsat"


# ---------------------------------------------------------------- instances

def test_brute_force_blocked_cells_match_the_naive_reference():
    for n in range(1, 8):
        naive_blocked = {(r, c) for r in range(n) for c in range(n) if not naive_has_solution(n, [(r, c)])}
        assert set(inst.blocked_cells(n)) == naive_blocked, n


def test_codewars_suite_has_the_kata_shape():
    cases = list(inst.codewars())
    assert len(cases) == 31
    families = [c["family"] for c in cases]
    assert families.count("codewars-small") == 8 and families.count("codewars-none") == 8
    for family, low, high in (("codewars-10-50", 11, 50), ("codewars-100-500", 101, 500),
                              ("codewars-500-1000", 501, 1000)):
        sizes = [c["n"] for c in cases if c["family"] == family]
        assert len(sizes) == 5 and all(low <= n <= high for n in sizes)
    for case in cases:
        assert case["m"] == 1
        if case["n"] <= 10:
            truth = "SAT" if naive_has_solution(case["n"], [tuple(case["queens"][0])]) else "UNSAT"
            assert case["expected"] == truth, case
    assert all(c["expected"] == "UNSAT" for c in cases if c["family"] == "codewars-none")
    assert cases == list(inst.codewars()), "the suite must not change between runs"


def test_blockade_suite_lists_every_blocked_cell():
    cells = {(c["n"], tuple(c["queens"][0])) for c in inst.blockades(max_n=7)}
    expected = {(n, (r, c)) for n in range(1, 8) for r in range(n) for c in range(n)
                if not naive_has_solution(n, [(r, c)])}
    assert cells == expected


def test_log_grid_spans_ten_to_a_hundred_million():
    grid = SUITES["big"]["params"]["sizes"]
    assert grid[0] == 10 and grid[-1] == 10**8 and grid == sorted(set(grid))


# ---------------------------------------------------------------- runner

def test_tiny_suite_runs_end_to_end_and_every_sat_answer_verifies(tmp_path):
    out = tmp_path / "tiny.jsonl"
    counts = run_suite("tiny", SUITES["tiny"], out, progress=False)
    records = read_results([out])
    sizes = SUITES["tiny"]["params"]["sizes"]
    assert len(records) == len(sizes) * len(SUITES["tiny"]["configs"]) == sum(counts.values())
    for r in records:
        mandatory = [tuple(cell) for cell in r["mandatory"]]
        truth = "SAT" if naive_has_solution(r["n"], mandatory) else "UNSAT"
        assert r["expected"] == truth
        assert r["status"] in ("SAT", "UNSAT", "UNKNOWN"), r
        if r["status"] == "SAT":
            assert r["verified"] is True
            assert naive_is_solution(r["n"], r["queens"], mandatory), r
        assert r["status"] in ("UNKNOWN", truth)
        assert r["wall_s"] >= 0 and r["peak_rss_mb"] > 0 and r["versions"]["nqcsp"]
        assert r["machine"]["cores"] >= 1 and r["date"]
    assert any(r["status"] == "SAT" for r in records)

    table = analyze([out], tmp_path / "analysis", "tiny")[0]
    text = table.read_text()
    for config in SUITES["tiny"]["configs"]:
        assert f"| {config} |" in text
    assert all(r["correct"] is not False for r in judge(records))


def test_plots_are_written(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "r.jsonl"
    suite = {"family": "completion", "params": {"sizes": [(8, 2), (8, 4), (8, 6)], "count": 2},
             "configs": ["construct"], "timeout": 10}
    run_suite("completion-mini", suite, out, progress=False)
    written = analyze([out], tmp_path, "mini")
    names = {p.name for p in written}
    assert {"mini.md", "mini-time-vs-n.png", "mini-cactus.png", "mini-completion.png"} <= names
    assert all(p.stat().st_size > 0 for p in written)


def test_unknown_solver_is_skipped_with_a_note():
    suite = {"family": "small", "params": {"sizes": [4]}, "configs": ["construct", "no-such-solver"]}
    jobs, notes = build_jobs(suite)
    assert [job.config.solver for job in jobs] == ["construct"]
    assert len(notes) == 1 and "no-such-solver" in notes[0]


def test_configuration_labels_name_their_options():
    assert Config("sat", {"encoding": "seqcounter"}).name == "sat[encoding=seqcounter]"
    assert Config("sat", {"encoding": "seqcounter"}, "sat-seq").name == "sat-seq"
    assert Config("construct").name == "construct"


@pytest.fixture()
def sleeping_cadical(tmp_path, monkeypatch):
    """A fake `cadical` on PATH that hangs on the n = 5 instance and answers UNKNOWN on any other."""
    pid_file = tmp_path / "sleeper.pid"
    script = tmp_path / "bin" / "cadical"
    script.parent.mkdir()
    script.write_text("#!/bin/sh\nfor last; do :; done\n"
                      f'if grep -q "^c n 5$" "$last"; then echo $$ > {pid_file}; exec sleep 60; fi\n'
                      "exit 0\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{script.parent}{os.pathsep}{os.environ['PATH']}")
    return pid_file


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def test_timeout_kills_the_run_and_its_children(sleeping_cadical):
    instance = inst.make_instance("small", 5, [(0, 0)])
    started = time.monotonic()
    record = run_job(Job(Config("cadical"), instance, 0, timeout=0.5))
    assert record["status"] == "TIMEOUT"
    assert time.monotonic() - started < 30
    pid = int(sleeping_cadical.read_text())
    deadline = time.monotonic() + 5
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(pid), "the external solver outlived the killed run"


def test_larger_boards_are_skipped_after_a_timeout(sleeping_cadical, tmp_path):
    out = tmp_path / "r.jsonl"
    suite = {"family": "small", "params": {"sizes": [4, 5, 6, 7]}, "configs": ["cadical"], "timeout": 0.5,
             "stop_after_timeout": True}
    counts = run_suite("stop", suite, out, progress=False)
    assert [(r["n"], r["status"]) for r in read_results([out])] == [(4, "UNKNOWN"), (5, "TIMEOUT")]
    assert counts["skipped"] == 2


def test_cli_lists_suites_as_module_and_as_script(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    as_module = subprocess.run([sys.executable, "-m", "benchmarks", "list"], capture_output=True, text=True,
                               cwd=ROOT, env=env, timeout=60)
    as_script = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "__main__.py"), "list"],
                               capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert as_module.returncode == 0 and as_script.returncode == 0
    assert as_module.stdout == as_script.stdout and "codewars" in as_module.stdout
    bad = subprocess.run([sys.executable, "-m", "benchmarks", "analyze", str(tmp_path / "none.jsonl")],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


# ---------------------------------------------------------------- external peers

def small_instances() -> list[tuple[int, list[tuple[int, int]]]]:
    cases: list[tuple[int, list[tuple[int, int]]]] = [(n, []) for n in range(1, 9)]
    cases += [(n, [(r, c)]) for n in (4, 6) for r in range(n) for c in range(n) if r <= c <= n - 1 - r]
    cases += [(10, inst.random_completion(10, 4, seed)[0]) for seed in range(4)]
    cases += [(7, [(0, 0), (1, 1)])]  # attacking mandatory queens
    return cases


def test_pairwise_clause_count_is_the_number_of_attacking_pairs():
    """models/README.md states n(n-1)(5n-1)/3 attack pairs: checked against the shared encoder."""
    import nqcsp
    from nqcsp.cnf import encode

    for n in range(2, 9):
        cells = [(r, c) for r in range(n) for c in range(n)]
        attacks = sum(1 for (r1, c1), (r2, c2) in combinations(cells, 2)
                      if r1 == r2 or c1 == c2 or abs(r1 - r2) == abs(c1 - c2))
        formula = encode(nqcsp.Problem(n, [(0, 0)]), "pairwise")
        assert n * (n - 1) * (5 * n - 1) // 3 == attacks
        assert formula.num_clauses == attacks + 2 * n + 1


@pytest.mark.skipif(not peers.cadical_available()[0], reason="cadical is not installed")
def test_cadical_on_the_exported_cnf_agrees_with_brute_force():
    for n, queens in small_instances():
        answer = peers.solve_cadical(n, queens, 20, 0)
        assert answer["status"] == ("SAT" if naive_has_solution(n, queens) else "UNSAT"), (n, queens)
        if answer["status"] == "SAT":
            assert naive_is_solution(n, answer["queens"], queens)


@pytest.mark.skipif(not peers.minizinc_available()[0], reason="minizinc with gecode is not installed")
def test_minizinc_model_gives_the_same_status_as_nqcsp():
    import nqcsp

    for n, queens in small_instances():
        answer = peers.solve_minizinc(n, queens, 20, 0)
        truth = "SAT" if naive_has_solution(n, queens) else "UNSAT"
        assert answer["status"] == truth, (n, queens)
        if truth == "SAT":
            assert naive_is_solution(n, answer["queens"], queens)
        ours = nqcsp.solve(n, queens, solver=REFERENCE_SOLVER, time_limit=20).status.value
        assert ours == answer["status"], (n, queens, ours)


def test_dzn_text_is_the_example_format():
    text = peers.dzn_text(8, [(0, 3)])
    example = (ROOT / "models" / "example.dzn").read_text()
    for line in text.splitlines():
        assert line in example
    assert json.loads(text.split("mcol = ")[1].rstrip(";\n")) == [3]
