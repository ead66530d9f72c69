"""The benchmark runner: instance families against the naive reference, the runner end to end, the
time-limit promise and kills, the analysis and plots, the peers against brute force. Every test is a few
seconds: workers solve tiny boards, and fake peers stand in for the slow or absent ones."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from itertools import combinations
from pathlib import Path

import pytest
from naive import naive_count, naive_has_solution, naive_is_solution

import nqcsp
from benchmarks.harness import instances as inst
from benchmarks.harness import peers
from benchmarks.harness.catalog import BACKENDS, PAPER_PEAKS, PEAK_FREE_ROWS, SUITES
from benchmarks.harness.runner import Config, Job, build_jobs, promise, read_results, run_job, run_suite
from benchmarks.judging.summary import analyze, judge, limits_table
from nqcsp.board.construction import composition_factors

ROOT = Path(__file__).resolve().parents[2]


def non_attacking(queens) -> bool:
    return all(r1 != r2 and c1 != c2 and abs(r1 - r2) != abs(c1 - c2)
               for (r1, c1), (r2, c2) in combinations(queens, 2))


# ---------------------------------------------------------------- instance families

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


def test_big_boards_with_several_queens_have_them_non_attacking_and_stay_the_same():
    cases = list(inst.big_boards([9, 10, 200, 1001], queens=(1, 2, 5)))
    assert [c["m"] for c in cases] == [1, 2, 5] * 4
    for case in cases:
        queens = [tuple(q) for q in case["queens"]]
        assert len(queens) == case["m"] and non_attacking(queens)
        assert all(0 <= r < case["n"] and 0 <= c < case["n"] for r, c in queens)
        if case["m"] > 1:
            assert case["family"] == f"big-{case['m']}-queens"
        if case["n"] <= 10:
            assert case["expected"] == ("SAT" if naive_has_solution(case["n"], queens) else "UNSAT")
    assert cases == list(inst.big_boards([9, 10, 200, 1001], queens=(1, 2, 5)))
    # The one-queen boards are suite (a)'s, unchanged.
    assert [c for c in cases if c["m"] == 1] == list(inst.big_boards([9, 10, 200, 1001]))
    assert len({tuple(map(tuple, c["queens"])) for c in cases if c["n"] == 1001}) == 3
    with pytest.raises(ValueError, match="of 9 non-attacking random cells on n = 4"):
        list(inst.big_boards([4], queens=(9,)))
    # The suite's boards include one with no composition at all and a prime (the padded starts).
    sizes = SUITES["big-queens"]["params"]["sizes"]
    assert any(not composition_factors(n) for n in sizes)
    assert any(all(n % d for d in range(2, math.isqrt(n) + 1)) for n in sizes)


def test_completion_instances_are_valid_with_the_free_rows_asked_and_expected_by_brute_force():
    for case in inst.completion([(10, 4), (12, 6)], count=6):
        queens = [tuple(q) for q in case["queens"]]
        assert len(queens) == case["m"] and non_attacking(queens)
        assert case["n"] - len({r for r, _ in queens}) == case["n"] - case["m"]
        assert case["expected"] == ("SAT" if naive_has_solution(case["n"], queens) else "UNSAT"), case


def test_peak_suites_sit_at_the_papers_peak():
    for free, n in PEAK_FREE_ROWS.items():
        assert abs(n - 0.19 * free * free) <= 0.02 * n, (free, n)
    sizes = SUITES["completion-peaks"]["params"]["sizes"]
    assert sorted(n - m for n, m in sizes) == [20, 25, 30, 40, 50]
    assert SUITES["completion-peaks"]["params"]["count"] == 50
    assert SUITES["completion-paper"]["params"]["sizes"] == PAPER_PEAKS == [(120, 95), (176, 146)]
    phase = SUITES["completion-phase"]["params"]["sizes"]
    for free in (10, 15, 20):
        ns = [n for n, m in phase if n - m == free]
        assert min(ns) < 0.19 * free * free < max(ns), free


def test_limits_family_has_big_boards_few_free_row_completions_and_a_blocked_board():
    cases = list(inst.limits([1000, 10**6], [(30, 20), (40, 33)]))
    big = [c for c in cases if c["family"] == "limits-big"]
    assert [(c["n"], c["queens"]) for c in big] == [(1000, [[500, 333]]), (10**6, [[500000, 333333]])]
    completions = [c for c in cases if c["family"].startswith("limits-completion")]
    assert [(c["n"], c["m"]) for c in completions] == [(30, 20), (40, 33)]
    for case in completions:
        assert non_attacking([tuple(q) for q in case["queens"]])
    blocked = [c for c in cases if c["family"] == "limits-blocked"]
    assert len(blocked) == 1 and blocked[0]["expected"] == "UNSAT"
    assert not naive_has_solution(blocked[0]["n"], [tuple(q) for q in blocked[0]["queens"]])
    suite = SUITES["limits"]
    named = {config for config in suite["configs"] if isinstance(config, str)}
    assert suite["time_limits"] == [0.5, 2.0] and set(BACKENDS) <= named


def test_counting_references_match_the_naive_count():
    for case in inst.counting(list(range(1, 9))):
        assert case["expected_count"] == naive_count(case["n"]), case["n"]


def test_proof_batches_hold_only_unsolvable_boards():
    blocked, triples = inst.proof_batches(max_n=7, triples=(6, 7), per_n=4)
    assert blocked["task"] == triples["task"] == "batch"
    assert len(blocked["batch"]) == len({(c["n"], tuple(c["queens"][0])) for c in inst.blockades(max_n=7)})
    assert triples["batch"]
    for n, queens in blocked["batch"] + triples["batch"]:
        cells = [tuple(q) for q in queens]
        assert non_attacking(cells) and not naive_has_solution(n, cells), (n, cells)


# ---------------------------------------------------------------- jobs and the promise

def test_the_proof_suite_runs_every_proof_solver():
    proof_configs = SUITES["sat-proofs"]["configs"]()
    from nqcsp.solvers.sat import PROOF_SOLVERS

    assert {c["options"]["sat_solver"] for c in proof_configs} == set(PROOF_SOLVERS)


def test_jobs_per_time_limit_per_config_bounds_and_params():
    suite = {"family": "small", "params": {"sizes": [4, 6, 8]}, "time_limits": [0.5, 2.0],
             "configs": [{"solver": "construct", "max_n": 6},
                         {"solver": "construct", "label": "only-8", "params": {"sizes": [8]}},
                         "no-such-solver"]}
    jobs, notes = build_jobs(suite)
    assert sorted((j.config.name, j.instance["n"], j.timeout) for j in jobs) == [
        ("construct", 4, 0.5), ("construct", 4, 2.0), ("construct", 6, 0.5), ("construct", 6, 2.0),
        ("only-8", 8, 0.5), ("only-8", 8, 2.0)]
    assert len(notes) == 1 and "no-such-solver" in notes[0]
    jobs, _ = build_jobs(suite, timeout=3)
    assert {j.timeout for j in jobs} == {3.0}


def test_every_suite_builds_and_its_labels_can_be_named_on_the_command_line():
    from benchmarks.harness.runner import suite_configs

    for name, suite in SUITES.items():
        configs = suite_configs(suite)
        assert configs, name
        assert all("," not in config.name for config in configs), name
        assert len({config.name for config in configs}) == len(configs), name


def test_configuration_labels_name_their_options():
    assert Config("sat", {"encoding": "seqcounter"}).name == "sat[encoding=seqcounter]"
    assert Config("sat", {"encoding": "seqcounter"}, "sat-seq").name == "sat-seq"
    assert Config("construct").name == "construct"


def test_the_promise_is_max_of_ten_percent_and_half_a_second():
    assert promise({"status": "UNKNOWN", "wall_s": 2.49}, 2.0)["kept_limit"]
    assert not promise({"status": "UNKNOWN", "wall_s": 2.51}, 2.0)["kept_limit"]
    assert promise({"status": "SAT", "wall_s": 10.9}, 10.0)["kept_limit"]
    assert not promise({"status": "SAT", "wall_s": 11.1}, 10.0)["kept_limit"]
    killed = promise({"status": "TIMEOUT", "wall_s": 1.55}, 0.5)
    assert killed == {"overshoot_s": pytest.approx(1.05), "kept_limit": False}
    assert promise({"status": "ERROR", "error": "x"}, 1.0) == {}


def test_limits_table_shows_a_killed_run_as_the_worst_broken_promise():
    def record(config, status, wall, limit=0.5):
        return {"config": config, "instance": f"limits-big/n={config}", "status": status, "timeout": limit,
                "wall_s": wall, **promise({"status": status, "wall_s": wall}, limit)}

    table = limits_table([record("a", "UNKNOWN", 0.52), record("a", "TIMEOUT", 1.6), record("b", "SAT", 0.1)])
    row_a = next(line for line in table.splitlines() if line.startswith("| a |"))
    assert "| 2 | 1 | 1 | 1 | +1.100 |" in row_a and "TIMEOUT" in row_a
    assert "| b | 1 | 1 | 0 | 0 | -0.400 |" in table


# ---------------------------------------------------------------- the runner end to end

@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A tiny completion suite run once for the tests below: one solvable board construct answers, one
    unsolvable board it cannot."""
    out = tmp_path_factory.mktemp("tiny") / "tiny.jsonl"
    suite = {"family": "completion", "params": {"sizes": [(8, 1), (6, 2)], "count": 1},
             "configs": ["construct"], "timeout": 10}
    counts = run_suite("tiny", suite, out, progress=False)
    return out, counts


def test_a_tiny_suite_runs_end_to_end_and_every_answer_checks(tiny_run):
    out, counts = tiny_run
    records = read_results([out])
    assert len(records) == 2 == sum(counts.values())
    for r in records:
        mandatory = [tuple(cell) for cell in r["mandatory"]]
        truth = "SAT" if naive_has_solution(r["n"], mandatory) else "UNSAT"
        assert r["expected"] == truth and r["status"] in ("UNKNOWN", truth), r
        if r["status"] == "SAT":
            assert r["verified"] is True and naive_is_solution(r["n"], r["queens"], mandatory), r
        assert r["kept_limit"] is True and r["overshoot_s"] < 0
        assert r["wall_s"] >= 0 and r["peak_rss_mb"] > 0 and r["versions"]["nqcsp"]
        assert r["machine"]["cores"] >= 1 and r["date"]
    assert any(r["status"] == "SAT" for r in records)
    assert all(r["correct"] is not False for r in judge(records))


def test_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path, capsys):
    suite = {"family": "small", "params": {"sizes": [4, 5]}, "configs": ["construct"], "timeout": 10}
    run_suite("quiet", suite, tmp_path / "quiet.jsonl", progress=True)
    assert capsys.readouterr().err == ""


def test_the_analysis_writes_the_table_and_plots(tiny_run, tmp_path):
    pytest.importorskip("matplotlib")
    out, _ = tiny_run
    written = analyze([out], tmp_path, "tiny")
    names = {p.name for p in written}
    assert {"tiny.md", "tiny-time-vs-n.png", "tiny-cactus.png", "tiny-completion.png",
            "tiny-outcomes.png"} <= names
    assert all(p.stat().st_size > 0 for p in written)
    table = (tmp_path / "tiny.md").read_text()
    assert "| construct | 2 | 1 | 0 | 1 |" in table


def test_tables_name_configurations_and_a_legend_gives_their_options():
    from benchmarks.judging.summary import legend, option_text

    records = [{"config": "sat/pairwise", "solver": "sat",
                "options": {"encoding": "pairwise", "hint": False}},
               {"config": "auto", "solver": "auto", "options": {}}]
    assert legend(records).splitlines()[2:] == [
        "| auto | `auto` | none (its defaults) |",
        "| sat/pairwise | `sat` | `encoding='pairwise'`, `hint=False` |"]
    assert option_text({"parameters": {"x": 1}}) == "`parameters={'x': 1}`"


def test_no_published_table_puts_an_options_dictionary_in_a_cell():
    results = ROOT / "benchmarks" / "results"
    for table in sorted(results.glob("*.md")):
        cells = [cell.strip() for line in table.read_text().splitlines() if line.startswith("|")
                 for cell in line.strip("|").split("|")]
        assert not [cell for cell in cells if cell.startswith(("`{", "{"))], table.name


def test_a_counting_task_is_checked_against_oeis():
    instance = next(inst.counting([7]))
    record = run_job(Job(Config("count"), instance, 0, timeout=10))
    assert record["status"] == "DONE" and record["value"] == naive_count(7) and record["verified"] is True


def test_the_phase_plot_draws_fraction_solvable_against_n(tmp_path):
    pytest.importorskip("matplotlib")
    from benchmarks.judging.plots import plot_phase

    records = [{"family": "completion-x", "instance": f"{n}/{k}", "n": n, "m": n - 3, "status": status,
                "verified": True, "expected": None, "config": "auto", "solver": "auto", "wall_s": 0.1,
                "timeout": 1}
               for n in (5, 8, 12) for k, status in enumerate(("SAT", "UNSAT"))]
    path = plot_phase(judge(records), tmp_path / "phase.png")
    assert path is not None and path.stat().st_size > 0


# ---------------------------------------------------------------- kills, with a fake peer

FAKE_SHIFTQUEENS = """#!/bin/sh
# shiftqueens' output format. n = 5 starts a child of its own (recording its pid) and hangs; n = 6 has no
# solution; any other board has one.
if [ "$1" = 5 ]; then sleep 60 & echo $! > {pid_file}; exec sleep 60; fi
echo "$#"
if [ "$1" = 6 ]; then echo "No solution"; else echo "Solution Found"; fi
echo "Solutions: 0 Nodes: 7 Timeout: 0 Time: 0.001"
"""


@pytest.fixture()
def fake_shiftqueens(tmp_path, monkeypatch):
    pid_file = tmp_path / "sleeper.pid"
    script = tmp_path / "bin" / "shiftqueens"
    script.parent.mkdir()
    script.write_text(FAKE_SHIFTQUEENS.format(pid_file=pid_file))
    script.chmod(0o755)
    monkeypatch.setenv(peers.SHIFTQUEENS_ENV, str(script))
    return pid_file


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except FileNotFoundError:
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while not _gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _gone(pid)


def test_a_run_past_its_deadline_is_killed_and_recorded_as_a_broken_promise():
    # Counting has no time limit of its own: only the runner's kill at limit * 1.1 + 1 s ends it.
    instance = inst.make_instance("count", 19, [], task="count")
    started = time.monotonic()
    record = run_job(Job(Config("count"), instance, 0, timeout=0.3))
    assert record["status"] == "TIMEOUT" and record["kept_limit"] is False
    assert record["overshoot_s"] >= 0.3 * 0.1 + 1 - 0.05
    assert time.monotonic() - started < 10
    # Killed, it reported nothing: the runner read its tree from outside before the kill. count(19) keeps
    # its threads (one a CPU) busy for the whole 1.3 s, an idle worker would show none of it; its search
    # state is well past a bare interpreter's.
    from nqcsp.runtime.parallel import cpu_count

    assert record["measured_by"] == "proc (runner)", record
    assert 0.3 <= record["cpu_s"] <= cpu_count() * record["wall_s"] + 0.1, record
    assert record["cpu_wait_s"] >= 0 and record["peak_rss_mb"] > 20


def test_the_whole_process_group_ends_with_the_run(fake_shiftqueens):
    instance = inst.make_instance("small", 5, [(0, 0)])
    record = run_job(Job(Config("shiftqueens"), instance, 0, timeout=0.5))
    # The peer kept its limit (it stops shiftqueens itself); the child shiftqueens left behind is the
    # runner's to end, with the worker's process group.
    assert record["status"] == "UNKNOWN" and record["kept_limit"] is True, record
    assert _wait_gone(int(fake_shiftqueens.read_text())), "the external solver's child outlived the run"


def test_larger_boards_are_skipped_after_a_timeout_and_claims_are_judged_by_truth(fake_shiftqueens, tmp_path):
    out = tmp_path / "r.jsonl"
    suite = {"family": "small", "params": {"sizes": [4, 5, 6, 7]}, "configs": ["shiftqueens"],
             "timeout": 0.5, "stop_after_timeout": True}
    counts = run_suite("stop", suite, out, progress=False)
    records = read_results([out])
    assert [(r["n"], r["status"]) for r in records] == [(4, "SAT"), (5, "UNKNOWN")]
    assert counts["skipped"] == 2
    # A SAT without a solution is right exactly when the board is solvable (brute force says n = 4 is).
    assert records[0]["verified"] is None and judge(records)[0]["correct"] is True


def test_a_session_runs_a_lines_jobs_in_one_worker_and_replaces_a_killed_one(tmp_path):
    # count(19) has no time limit of its own: the runner kills the session's worker, and the next job
    # gets a fresh one (warmed up again), not the dead one.
    out = tmp_path / "session.jsonl"
    suite = {"family": "counting", "params": {"sizes": [8, 9, 19, 20]}, "configs": ["count"], "timeout": 0.3,
             "session": True}
    run_suite("session", suite, out, progress=False)
    records = sorted(read_results([out]), key=lambda r: r["n"])
    assert [(r["n"], r["status"]) for r in records] == [(8, "DONE"), (9, "DONE"), (19, "TIMEOUT"),
                                                        (20, "TIMEOUT")]
    assert records[0]["verified"] is True and records[1]["verified"] is True
    # The second job's worker ran the first (a try again of a disturbed run is the same job).
    assert "warmup_s" in records[0] and records[1].get("warm_job") == 2 and "warmup_s" not in records[1]
    assert "warmup_s" in records[3] and "warm_job" not in records[3]
    # The killed runs are measured too, the warm one from when it was sent, the fresh one from its READY.
    for killed in records[2:]:
        assert killed["measured_by"] == "proc (runner)" and killed["cpu_s"] >= 0.3, killed


def test_a_session_counts_a_try_again_of_the_same_job_as_that_job():
    from benchmarks.harness.runner import Session

    suite = {"family": "counting", "params": {"sizes": [8, 9]}, "configs": ["count"], "timeout": 30}
    first, second = build_jobs(suite)[0]
    session = Session(600.0, 0)
    try:
        reports = [session.run(job) for job in (first, first, second)]
    finally:
        session.close()
    assert [r["status"] for r in reports] == ["DONE"] * 3 and all(r["verified"] for r in reports)
    assert "warmup_s" in reports[0] and [r.get("warm_job") for r in reports[1:]] == [1, 2]


# ---------------------------------------------------------------- the command line

def test_cli_works_as_module_from_another_directory_and_as_script(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    as_module = subprocess.run([sys.executable, "-m", "benchmarks", "list"], capture_output=True, text=True,
                               cwd=tmp_path, env=env, timeout=60)
    as_script = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "__main__.py"), "list"],
                               capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert as_module.returncode == 0 and as_script.returncode == 0, as_module.stderr + as_script.stderr
    assert as_module.stdout == as_script.stdout
    for suite in ("limits", "completion-peaks", "completion-paper", "backtrack", "cpsat", "sat-proofs"):
        assert suite in as_module.stdout
    bad = subprocess.run([sys.executable, "-m", "benchmarks", "analyze", str(tmp_path / "none.jsonl")],
                         capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1


def test_results_go_to_the_directory_named_and_never_to_the_published_tables(tmp_path, monkeypatch):
    from benchmarks import cli

    seen = {}
    monkeypatch.setattr(cli, "run_suite", lambda name, suite, out, **kw: seen.setdefault("out", out) and {})
    assert cli.main(["run", "tiny", "--out", str(tmp_path / "mine"), "--no-progress"]) == 0
    assert seen.pop("out") == tmp_path / "mine" / "tiny.jsonl"
    assert cli.main(["run", "tiny", "--no-progress"]) == 0
    assert seen.pop("out") == Path("bench-results") / "tiny.jsonl"
    assert cli.main(["run", "tiny", "--publish", "--no-progress"]) == 0
    assert seen.pop("out") == ROOT / "benchmarks" / "results" / "tiny.jsonl"


# ---------------------------------------------------------------- external peers against brute force

def small_instances() -> list[tuple[int, list[tuple[int, int]]]]:
    cases: list[tuple[int, list[tuple[int, int]]]] = [(n, []) for n in range(1, 9)]
    cases += [(n, [(r, c)]) for n in (4, 6) for r in range(n) for c in range(n) if r <= c <= n - 1 - r]
    cases += [(10, inst.random_completion(10, 4, seed)[0]) for seed in range(4)]
    return cases


def test_pairwise_clause_count_is_the_number_of_attacking_pairs():
    """models/README.md states n(n-1)(5n-1)/3 attack pairs: checked against the shared encoder."""
    from nqcsp.solvers.cnf import encode

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


@pytest.mark.skipif(not os.environ.get(peers.SHIFTQUEENS_ENV), reason="no shiftqueens binary given")
def test_real_shiftqueens_agrees_with_brute_force():
    for n, queens in small_instances():
        answer = peers.solve_shiftqueens(n, queens, 20, 0)
        assert answer["status"] == ("SAT-CLAIM" if naive_has_solution(n, queens) else "UNSAT"), (n, queens)


# ---------------------------------------------------------------- CSPLib's generator, by path

FAKE_GENERATOR = """import sys
n, m, seed = map(int, sys.argv[1:])
if seed == 2:
    print("given up trying to generate problem"); sys.exit(1)
print("letting n = ", n)
print("letting init = ", [[0, 1], [1, 3]] if seed == 0 else [[0, 0], [1, 1]])
"""


def test_the_generator_check_parses_csplib_output_and_flags_bad_instances(tmp_path):
    from benchmarks.suites.peers.generator_check import check_instance, parse, run

    assert parse("letting n =  8\nletting init =  [[3, 1], [0, 2]]\n") == [(0, 2), (3, 1)]
    assert parse("given up trying to generate problem\n") is None
    assert check_instance(8, 2, [(0, 2), (3, 1)]) == []
    assert any("attack" in p for p in check_instance(8, 2, [(0, 0), (1, 1)]))
    assert any("queens, not 3" in p for p in check_instance(8, 3, [(0, 2), (3, 1)]))
    generator = tmp_path / "gen.py"
    generator.write_text(FAKE_GENERATOR)
    (row,) = run(generator, [(6, 2)], range(3))
    assert (row["instances"], row["valid"], row["gave_up"]) == (2, 1, 1)
    assert row["identical"] == (nqcsp.random_completion(6, 2, 0) == [(0, 1), (1, 3)])
    assert len(row["problems"]) == 1 and "seed 1" in row["problems"][0]


def test_the_c_counting_reference_counts_what_nqcsp_and_brute_force_count(tmp_path):
    from benchmarks.suites.micro.counting import build_reference, c_seconds
    from nqcsp.bitboard import count, count_unique

    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler")
    try:
        binary = build_reference(cc, str(tmp_path))
    except subprocess.CalledProcessError:
        pytest.skip(f"{cc} cannot build the C reference here (-march=native)")
    for n in (5, 6, 7, 8):
        assert c_seconds(binary, n)[0] == naive_count(n) == count(n)
    for n in (10, 12):
        total, _ = c_seconds(binary, n)
        fundamental = subprocess.run([binary, str(n)], capture_output=True, text=True).stdout.split()[2]
        assert total == count(n, symmetry=False) and int(fundamental) == count_unique(n)


def _fake_counter(tmp_path: Path, printed: str) -> str:
    script = tmp_path / "counter"
    script.write_text(f"#!/bin/sh\necho '{printed}'\n")
    script.chmod(0o755)
    return str(script)


def test_peers_command_prints_ratios_for_a_counter_that_agrees(tmp_path):
    from benchmarks.cli import main

    counter = _fake_counter(tmp_path, f"8:{naive_count(8)}:12 0.000007")  # Takaken's output line
    out = subprocess.run([sys.executable, "-m", "benchmarks", "peers", "--count-peer", counter,
                          "--count-n", "8", "--repeat", "1"], capture_output=True, text=True, check=True)
    row = next(line for line in out.stdout.splitlines() if line.startswith("count n=8"))
    assert len(row.split()) == 10  # label (2 words), 4 CPU figures, 2 ratios, 2 peaks
    with pytest.raises(SystemExit):
        main(["peers"])  # no peer given: a usage error


@pytest.mark.slow
def test_peers_command_runs_qs4_once_per_start_against_a_peer_and_alone(tmp_path):
    peer = _fake_counter(tmp_path, "solved")
    command = [sys.executable, "-m", "benchmarks", "peers", "--qs4-peer", f"1000={peer}",
               "--qs4-alone", "2e3", "--qs4-start", "greedy,construction", "--repeat", "1"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout.splitlines()
    paired = [line.split() for line in out if line.startswith("qs4 n=1e+03")]
    alone = [line.split() for line in out if line.startswith("qs4 n=2e+03")]
    assert [row[2] for row in paired] == [row[2] for row in alone] == ["greedy", "construction"]
    assert all(len(row) == 11 for row in paired) and all(len(row) == 8 for row in alone)
    assert all(float(x) > 0 for row in alone for x in row[3:])
    bad = subprocess.run([sys.executable, "-m", "benchmarks", "peers", "--qs4-alone", "1000", "--qs4-start",
                          "greedy,bogus"], capture_output=True, text=True)
    assert bad.returncode == 2 and "bogus" in bad.stderr


@pytest.mark.parametrize(("args", "named"), [(["--qs4-alone", "8", "--qs4-queens", "20"], "--qs4-queens 20"),
                                             (["--qs4-alone", "2"], "got 2"),
                                             (["--qs4-alone", "1e9", "--qs4-queens", "0"], "got 0")])
def test_peers_command_refuses_queens_it_cannot_place_instead_of_hanging(args, named):
    # --qs4-queens 20 on n = 8 stepped for ever looking for a 20th queen that does not attack.
    bad = subprocess.run([sys.executable, "-m", "benchmarks", "peers", *args], capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and named in bad.stderr and "Traceback" not in bad.stderr


def test_peers_command_refuses_a_counter_that_disagrees(tmp_path):
    counter = _fake_counter(tmp_path, "8:93:12 0.000007")
    out = subprocess.run([sys.executable, "-m", "benchmarks", "peers", "--count-peer", counter,
                          "--count-n", "8", "--repeat", "1"], capture_output=True, text=True)
    assert out.returncode != 0 and "disagree" in out.stderr


def test_peers_command_prints_the_parallel_efficiency_of_count():
    command = [sys.executable, "-m", "benchmarks", "peers", "--efficiency-n", "10", "--repeat", "1"]
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    rows = [line.split() for line in out.stdout.splitlines() if line.startswith("count 10,")]
    assert [row[2:-3] for row in rows[:2]] == [["in", "process"], ["whole", "process"]]
    for row in rows[:2]:
        serial, parallel, efficiency = map(float, row[-3:])
        assert serial > 0 and parallel > 0 and efficiency > 0
    assert rows[2][2:4] == ["split", "(CPU"] and 0 < float(rows[2][-1]) <= 1.0
    bad = subprocess.run([sys.executable, "-m", "benchmarks", "peers", "--efficiency-n", "8x"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "8x" in bad.stderr


def test_limits_family_has_many_queens_of_a_solution_and_a_columns_writing_task():
    from benchmarks.harness.worker import write_columns

    many, written = inst.limits([], [], blocked=None, many_queens=[(100, 90)], columns_written=[1000])
    queens = [tuple(q) for q in many["queens"]]
    assert many["n"] == 100 and many["m"] == 90 == len({r for r, _ in queens}) and non_attacking(queens)
    assert written["task"] == "write-columns" and written["n"] == 1000
    code, wall_s = write_columns(1000, 5.0)
    assert code == 0 and 0 < wall_s < 6.0
    suite = SUITES["limits"]
    labels = {config.get("label", config["solver"])
              for config in suite["configs"] if isinstance(config, dict)}
    assert {"sat/pairwise", "write-columns"} <= labels


def test_compare_flags_wrong_answers_lost_decisions_and_real_slowdowns_only():
    from benchmarks.judging.compare import compare

    def run(instance, status, wall_s, **extra):
        return {"config": "qs4", "instance": instance, "seed": 0, "task": "solve", "solver": "qs4",
                "status": status, "wall_s": wall_s, "verified": status == "SAT", **extra}

    before = [run("a", "SAT", 1.0), run("b", "SAT", 0.001), run("c", "SAT", 1.0), run("d", "UNSAT", 1.0),
              run("e", "SAT", 2.0)]
    after = [run("a", "SAT", 2.0), run("b", "SAT", 0.004), run("c", "UNKNOWN", 10.0),
             run("d", "SAT", 1.0, verified=False), run("e", "SAT", 1.0)]
    rows, alarms = compare(before, after)
    kinds = sorted((line.split()[0], line.split()[2].rstrip(":")) for line in alarms)
    assert kinds == [("SLOWER", "a"), ("UNDECIDED", "c"), ("WRONG", "d")]  # b: 3 ms slower is jitter
    (row,) = rows
    assert row["runs"] == 5 and row["decided"] == "5 -> 4" and row["wrong_after"] == 1
    assert row["worst_ratio"] == 4.0 and row["worst_instance"] == "b"
    assert abs(row["median_ratio"] - 1.5) < 1e-9  # of 2, 4, 1 (d) and 0.5: the runs decided both times


@pytest.mark.parametrize(("options", "hinted_by_qs4"), [
    ({}, True), ({"hint": "localsearch"}, True), ({"hint": None}, False), ({"hint": "construct"}, False)])
def test_cpsat_warm_up_loads_qs4_exactly_when_its_hint_may_use_it(options, hinted_by_qs4):
    # A fresh checkout compiled qs4's kernel inside the first timed run that CP-SAT hinted with it.
    from benchmarks.harness.worker import warm_up
    from nqcsp.solvers.cpsat import LOCALSEARCH_HINT_MIN_FREE_ROWS

    boards = []
    warm_up("cpsat", options, lambda n, queens, limit, seed: boards.append(n - len(queens)))
    assert any(free >= LOCALSEARCH_HINT_MIN_FREE_ROWS for free in boards) is hinted_by_qs4


def _completion_records(sizes, configs=("auto", "qs4")):
    """Runs on completion instances of the given (n, m): auto decides each (SAT, verified), qs4 leaves the
    first undecided and answers the second wrongly (UNSAT where auto found a solution)."""
    records = []
    for n, m in sizes:
        for k in range(2):
            for config in configs:
                status = "SAT" if config == "auto" else ("UNKNOWN" if k == 0 else "UNSAT")
                records.append({"family": "completion-x", "suite": "peaks", "instance": f"{n}/{m}/{k}",
                                "n": n, "m": m, "status": status, "verified": status == "SAT",
                                "expected": None, "config": config, "solver": config, "wall_s": 0.1,
                                "timeout": 1})
    return judge(records)


def test_the_plots_read_well(tmp_path, monkeypatch):
    """Integer ticks for n, titles naming the suite, multi-panel figures in rows of at most 3 with the
    legend outside every panel, and undecided apart from wrong."""
    pytest.importorskip("matplotlib")
    import benchmarks.judging.plots as analysis

    figures = {}
    save = analysis.save

    def keep(plt, fig, path):
        fig.canvas.draw()
        figures[path.name] = (fig, [t.get_text() for ax in fig.axes for t in ax.get_xticklabels()])
        return save(plt, fig, path)

    monkeypatch.setattr(analysis, "save", keep)
    records = _completion_records([(76, 56), (119, 94), (171, 141), (304, 264), (475, 425)])
    analysis.plot_outcomes(records, tmp_path / "outcomes.png")
    fig, _ = figures["outcomes.png"]
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == 5 and len({round(ax.get_position().y0, 2) for ax in panels}) == 2
    legend = fig.legends[0]
    labels = [t.get_text() for t in legend.get_texts()]
    assert "undecided" in labels and "wrong" in labels and not [t for t in labels if " or " in t]
    box = legend.get_window_extent()
    assert all(box.y1 <= ax.get_window_extent().y0 for ax in panels)      # below every panel
    counts = {}
    for patch_label, container in zip(labels, panels[0].containers, strict=True):
        counts[patch_label] = sum(bar.get_height() for bar in container)
    assert counts["undecided"] == 1 and counts["wrong"] == 1               # qs4: one of each, apart

    small = [{**r, "n": n} for n in range(2, 13) for r in records[:1]]
    analysis.plot_time_vs_n(small, tmp_path / "small.png")
    fig, ticks = figures["small.png"]
    assert ticks and all(t.lstrip("\u2212-").isdigit() for t in ticks if t), ticks
    assert fig.axes[0].get_title() == "peaks: time against n"
    big = [{**r, "n": n} for n in (10, 10**3, 10**5, 10**7) for r in records[:1]]
    analysis.plot_time_vs_n(big, tmp_path / "big.png")
    _, ticks = figures["big.png"]
    assert "1,000" in ticks and "100,000" in ticks, ticks
    fig, _ = figures["big.png"]
    ax = fig.axes[0]
    assert ax.get_legend().get_window_extent().x0 >= ax.get_window_extent().x1   # beside the data


# ---------------------------------------------------------------- measured runs, repetitions, resuming

MEASURED_TREE = """
import json, subprocess, sys
from pathlib import Path
from benchmarks.harness.measure import RunMeasure

def burner(seconds, megabytes, linger):
    return (f"import time\\nblock = bytearray({megabytes} << 20)\\nend = time.process_time() + {seconds}\\n"
            "while time.process_time() < end:\\n    pass\\nprint('done', flush=True)\\n"
            + ("time.sleep(60)\\n" if linger else ""))

# A child that peaked at 300 MB before the run: its high-water mark is reset when the run starts.
held = "import time\\nb = bytearray(300 << 20)\\ndel b\\nprint('freed', flush=True)\\ntime.sleep(60)\\n"
before = subprocess.Popen([sys.executable, "-c", held], stdout=subprocess.PIPE, text=True)
assert before.stdout.readline().strip() == "freed"
status = Path("/proc/self/status").read_text().splitlines()
own_mb = int(next(line for line in status if line.startswith("VmRSS:")).split()[1]) / 1024
measure = RunMeasure().start()
# A child alive at the end (a warm engine's) and one that ends within the run.
alive = subprocess.Popen([sys.executable, "-c", burner(0.4, 120, True)], stdout=subprocess.PIPE, text=True)
assert alive.stdout.readline().strip() == "done"
subprocess.run([sys.executable, "-c", burner(0.2, 10, False)], check=True, capture_output=True)
measured = measure.stop()
alive.kill()
before.kill()
print(json.dumps({**measured, "own_mb": own_mb}))
"""


def test_a_run_is_measured_for_its_whole_process_tree_and_this_run_only():
    # In a process of its own: the tree measured is that process's, not the test runner's other children.
    done = subprocess.run([sys.executable, "-c", MEASURED_TREE], capture_output=True, text=True, timeout=120,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    measured = json.loads(done.stdout)
    assert measured["measured_by"] == "proc"
    assert measured["cpu_s"] >= 0.55, measured                 # 0.4 s alive + 0.2 s ended, and imports
    # The alive child's 120 MB beside the process's own, and not the 300 MB the other child held before.
    assert 120 <= measured["peak_rss_mb"] - measured["own_mb"] < 300, measured
    assert measured["cpu_wait_s"] >= 0


def test_every_record_of_a_run_carries_its_measurement(tmp_path):
    counts = run_suite("tiny", SUITES["tiny"], tmp_path / "tiny.jsonl", progress=False, solvers=["backtrack"])
    records = read_results([tmp_path / "tiny.jsonl"])
    assert sum(counts.values()) == len(records) > 0
    for r in records:
        assert r["measured_by"] == "proc" and r["cpu_s"] > 0 and r["cpu_wait_s"] >= 0 and r["peak_rss_mb"] > 0
        assert r["rerun"] in (0, 1, 2) and isinstance(r["disturbed"], bool) and r["load"] >= 0


def test_repeat_runs_each_pair_r_times_with_a_seed_of_its_own_and_resume_skips_them(tmp_path):
    suite = SUITES["tiny"]
    jobs, _ = build_jobs(suite, solvers=["qs4"], repeat=3)
    once, _ = build_jobs(suite, solvers=["qs4"])
    assert len(jobs) == 3 * len(once) and len({job.key() for job in jobs}) == len(jobs)
    first = [job for job in jobs if job.instance["id"] == once[0].instance["id"]]
    assert [(job.seed, job.repetition) for job in first] == [(0, 0), (1, 1), (2, 2)]
    with pytest.raises(ValueError, match="repeat"):
        build_jobs(suite, repeat=0)
    out = tmp_path / "tiny.jsonl"
    run_suite("tiny", suite, out, progress=False, solvers=["qs4"], max_n=6, repeat=2)
    records = read_results([out])
    assert sorted({r["repetition"] for r in records}) == [0, 1]
    again = run_suite("tiny", suite, out, progress=False, solvers=["qs4"], max_n=6, repeat=2, resume=True)
    assert set(again) == {"skipped"} and len(read_results([out])) == len(records)


def test_a_disturbed_run_is_run_again_at_most_twice(monkeypatch):
    from benchmarks.harness import runner

    waits = iter([0.5, 0.5, 0.5, 0.5, 0.0])
    monkeypatch.setattr(runner, "_run_once", lambda *args: {"status": "SAT", "wall_s": 1.0,
                                                            "cpu_wait_s": next(waits)})
    jobs, _ = build_jobs(SUITES["tiny"], solvers=["backtrack"], max_n=2)
    reports = runner.run_line(jobs[:2], False, 60.0, 0)
    assert [(r["rerun"], r["disturbed"]) for _, r in reports] == [(2, True), (1, False)]


def test_a_resumed_run_cuts_the_partial_line_a_kill_left_and_records_nothing_twice(tmp_path, capsys):
    out = tmp_path / "tiny.jsonl"
    run_suite("tiny", SUITES["tiny"], out, progress=False, solvers=["backtrack"], max_n=4)
    whole = out.read_text().splitlines()
    # Killed while writing: the last record half written, no newline.
    out.write_text("\n".join(whole[:-1]) + "\n" + whole[-1][: len(whole[-1]) // 2])
    run_suite("tiny", SUITES["tiny"], out, progress=False, solvers=["backtrack"], max_n=4, resume=True)
    assert "partial last line" in capsys.readouterr().err
    records = read_results([out])
    keys = [(r["config"], r["instance"], r["seed"], r["timeout"], r["repetition"]) for r in records]
    assert len(keys) == len(set(keys)) == len(whole)


@pytest.mark.slow
def test_the_field_on_a_local_dask_cluster_writes_measured_records(tmp_path):
    pytest.importorskip("distributed")
    from benchmarks import cli

    code = cli.main(["run", "field", "--solvers", "backtrack,cpsat", "--max-n", "12", "--timeout", "2",
                     "--dask", "--jobs", "2", "--out", str(tmp_path), "--no-progress"])
    records = read_results([tmp_path / "field.jsonl"])
    assert code == 0 and records
    assert all(r["measured_by"] == "proc" and r["cpu_s"] is not None for r in records)
    for r in records:
        if r["status"] == "SAT":
            assert nqcsp.verify(r["n"], r["queens"], [tuple(c) for c in r["mandatory"]])


# ---------------------------------------------------------------- cores of their own

HOLD_A_CORE = """
import sys
from benchmarks.harness.cores import pinned_core
with pinned_core() as core:
    print(core, flush=True)
    sys.stdin.read()
"""


def test_a_line_is_pinned_to_a_core_no_other_line_holds_and_gets_its_cpus_back(tmp_path, monkeypatch):
    from benchmarks.harness.cores import LOCKS_ENV, pinned_core

    monkeypatch.setenv(LOCKS_ENV, str(tmp_path))
    allowed = os.sched_getaffinity(0)
    holder = subprocess.Popen([sys.executable, "-c", HOLD_A_CORE], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parents[2])
    try:
        taken = int(holder.stdout.readline())
        assert taken in allowed
        with pinned_core() as core:
            if len(allowed) == 1:
                assert core is None and os.sched_getaffinity(0) == allowed
            else:
                assert core in allowed and core != taken and os.sched_getaffinity(0) == {core}
                # Every CPU this process may use is now taken: a line inside runs unpinned.
                with pinned_core() as inner:
                    assert inner is None
        assert os.sched_getaffinity(0) == allowed
    finally:
        holder.communicate("")
    with pinned_core() as core:
        assert core == min(allowed)


def test_a_run_that_keeps_its_cores_busy_waits_for_itself_and_is_not_disturbed():
    from benchmarks.harness.runner import disturbed

    # backtrack pinned to one core: its search and its proof check share the core, busy all along.
    own_threads = {"wall_s": 3.0, "cpu_s": 3.0, "cpu_wait_s": 1.2}
    assert not disturbed(own_threads, cpus=1)
    # The same figures on two CPUs: one stood idle while the threads waited, so other work took it.
    assert disturbed(own_threads, cpus=2)
    assert disturbed({"wall_s": 3.0, "cpu_s": 1.5, "cpu_wait_s": 1.2}, cpus=1)
    assert not disturbed({"wall_s": 3.0, "cpu_s": 1.5, "cpu_wait_s": 0.2}, cpus=1)


def test_parallel_lines_record_the_core_each_ran_on(tmp_path, monkeypatch):
    from benchmarks.harness.cores import LOCKS_ENV
    from nqcsp.runtime.parallel import owned_pool

    monkeypatch.setenv(LOCKS_ENV, str(tmp_path / "locks"))
    out = tmp_path / "tiny.jsonl"
    with owned_pool(2) as pool:
        run_suite("tiny", SUITES["tiny"], out, progress=False, solvers=["backtrack", "construct"], max_n=6,
                  executor=pool)
    records = read_results([out])
    # A machine of one CPU pins the first line only; the line beside it runs unpinned (None).
    cores = {r["core"] for r in records}
    assert records and cores & os.sched_getaffinity(0) and cores <= os.sched_getaffinity(0) | {None}
    alone = tmp_path / "alone.jsonl"
    run_suite("tiny", SUITES["tiny"], alone, progress=False, solvers=["backtrack"], max_n=4)
    assert all("core" not in r for r in read_results([alone]))


def test_excluded_diagonals_files_are_read_as_csplib_writes_them_and_bad_requests_are_named(tmp_path):
    import tarfile

    from benchmarks.harness import prob079

    param = "n =  5\nnumdiags =  3\ndiags =  [[4, 1], [2, 0],\n          [6, 1]]\n"
    assert prob079.excluded_diagonals(param) == [5, 3, 4, 1, 2, 0, 6, 1]
    (tmp_path / "data").mkdir()
    for name in ("diag-5-4-2.param", "diag-5-4-1.param"):
        (tmp_path / name).write_text(param)
    with tarfile.open(tmp_path / "data" / "diag-5.tar.gz", "w:gz") as archive:
        for name in ("diag-5-4-2.param", "diag-5-4-1.param"):
            archive.add(tmp_path / name, arcname=f"diag-5/{name}")
    assert [name for name, _ in prob079.published_params(tmp_path, 5, 1)] == ["diag-5-4-1"]
    with pytest.raises(prob079.Prob079Error, match="fewer than the 4 asked for"):
        prob079.phase_instances(tmp_path, 5, 4, 1, "csplib")
    with pytest.raises(prob079.Prob079Error, match="n = 8..21 only"):
        prob079.phase_instances(tmp_path, 23, 21, 1, "csplib")
    with pytest.raises(ValueError, match="unknown source 'made-up'"):
        prob079.phase_instances(tmp_path, 5, 2, 1, "made-up")
    with pytest.raises(prob079.Prob079Error, match="queens-diag-gen.py"):
        prob079.phase_instances(tmp_path, 23, 21, 1, "generator")
    # No models/diagtoqueens.py in this copy: the converter's failure names it.
    with pytest.raises(prob079.Prob079Error, match=r"models/diagtoqueens.py failed \(exit 1\)"):
        prob079.phase_instances(tmp_path, 5, 2, 1, "csplib")


@pytest.mark.parametrize("param, named", [
    ("numdiags = 3\ndiags = [[4, 1]]\n", "no n = line"),                           # cut before n
    ("n = 5\nnumdiags = 3\n", "no diags = line"),                                   # cut after it
    ("n = 5\ndiags = [[4, 1], [2,", "not a list of numbers"),                        # truncated list
    ("n = 5\ndiags = " + "[" * 100_000 + "]" * 100_000, "not a list of numbers"),    # nested past the stack
    ("n = 5\ndiags = [[9, 1]]\n", "a diagonal of 0..8"),                            # off the board
    ("n = 5\ndiags = [[4, 2]]\n", "a kind of 0 or 1"),
    ("n = 5\ndiags = [[4, True]]\n", "a kind of 0 or 1"),
    ("n = 5\ndiags = [[4.0, 1]]\n", "a kind of 0 or 1"),
    ("n = 999999\ndiags = []\n", "n = 999999, not 1..64"),                           # huge board
])
def test_a_forged_csplib_parameter_file_is_named(param, named):
    from benchmarks.harness import prob079

    with pytest.raises(prob079.Prob079Error, match=f"diag-5-4-1: .*{re.escape(named)}"):
        prob079.excluded_diagonals(param, "diag-5-4-1")


def test_a_copy_of_prob079_that_cannot_give_its_instances_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "diag-10.tar.gz").write_bytes(b"\x1f\x8b not a tar")
    done = subprocess.run([sys.executable, "-m", "benchmarks", "run", "field", "--prob079", str(tmp_path),
                           "--solvers", "backtrack", "--max-n", "12", "--out", str(tmp_path / "out"),
                           "--no-progress"], capture_output=True, text=True, cwd=Path(__file__).parents[2])
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "diag-10.tar.gz: not a readable tar.gz" in last
    assert "Traceback" not in done.stderr
