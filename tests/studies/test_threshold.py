"""The completion threshold: a(n) from scratch against OEIS A374013 for small n (an oracle, never a table in
the code), its blocked set against brute force, its account against brute-force set counts, saved evidence
re-checked (and tampered evidence rejected), the CLI, and Ctrl-C then resume from a checkpoint."""

import copy
import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from interrupting import interrupt_when, start_interruptible
from naive import naive_has_solution
from test_queen_sets import naive_sets

import nqcsp
from nqcsp.studies.queen_sets import orbit_of_set
from nqcsp.studies.threshold import check_threshold, count_sets, covered_classes

# OEIS A374013, offset 4: the oracle for the small boards computed here from scratch.
A374013 = {4: 0, 5: 1, 6: 0, 7: 1, 8: 1, 9: 1, 10: 2, 11: 2, 12: 2, 13: 2, 14: 3, 15: 3, 16: 3, 17: 3}


@pytest.fixture(scope="module")
def thresholds():
    return {n: nqcsp.completion_threshold(n) for n in range(4, 11)}


@pytest.mark.parametrize("n", range(4, 11))
def test_threshold_matches_oeis_with_evidence(n, thresholds):
    found = thresholds[n]
    assert found.value == A374013[n]
    assert len(found.blocked) == found.value + 1
    assert not naive_has_solution(n, list(found.blocked))
    assert found.certificate.checked
    assert [level.k for level in found.levels] == list(range(found.value + 1))
    for level in found.levels[1:]:
        assert level.ksets == len(naive_sets(n, level.k))
        assert level.covered + level.searched == level.classes
    for witness in found.witnesses:
        assert nqcsp.verify(n, witness)


def test_independent_counts_match_brute_force():
    for n, k in [(5, 2), (6, 3), (7, 3), (8, 4)]:
        assert count_sets(n, k) == len(naive_sets(n, k))
    # Every solution of 6 covers, with its images, every 2-set class it contains and nothing else.
    solutions = [list(s) for s in nqcsp.solutions(6)]
    classes = covered_classes(6, 2, np.array(solutions))
    expected = {}
    for s in solutions:
        for pair in itertools.combinations(enumerate(s), 2):
            orbit = orbit_of_set(6, pair)
            expected[min(orbit)] = len(orbit)
    assert sorted(classes.values()) == sorted(expected.values()) and len(classes) == len(expected)


def test_saved_evidence_is_rechecked_and_tampering_is_caught(thresholds):
    document = json.loads(json.dumps(thresholds[10].to_json()))
    assert check_threshold(document).ok
    broken = copy.deepcopy(document)
    broken["witnesses"][0][0] = broken["witnesses"][0][1]
    assert not check_threshold(broken).ok
    thin = copy.deepcopy(document)
    thin["witnesses"] = thin["witnesses"][:3]       # too few to cover every class of 2 queens
    report = check_threshold(thin)
    assert not report.ok and any(line.startswith("FAIL  k = 2") for line in report.lines)
    forged = copy.deepcopy(document)
    # Three queens of a verified witness: completable, so no proof can be of this board.
    forged["blocked"]["queens"] = [[row, int(col)] for row, col in enumerate(document["witnesses"][0][:3])]
    assert forged["blocked"]["queens"] != document["blocked"]["queens"]
    assert not check_threshold(forged).ok
    lied = copy.deepcopy(document)
    lied["levels"][2]["classes"] += 1
    assert not check_threshold(lied).ok
    with pytest.raises(ValueError, match="not an nqcsp threshold"):
        check_threshold({"n": 10})


def test_threshold_cli_and_check_threshold(tmp_path):
    evidence = tmp_path / "a9.json"
    out = subprocess.run([sys.executable, "-m", "nqcsp", "threshold", "9", "--evidence", str(evidence)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("a(9) = 1\n")
    checked = subprocess.run([sys.executable, "-m", "nqcsp", "check-threshold", str(evidence)],
                             capture_output=True, text=True, timeout=300)
    assert checked.returncode == 0 and "valid: a(9) = 1" in checked.stdout, checked.stdout
    document = json.loads(evidence.read_text())
    document["witnesses"] = document["witnesses"][:1]
    evidence.write_text(json.dumps(document))
    rejected = subprocess.run([sys.executable, "-m", "nqcsp", "check-threshold", str(evidence)],
                              capture_output=True, text=True, timeout=300)
    assert rejected.returncode == 1 and "INVALID" in rejected.stdout
    for argv in (["threshold", "3"], ["check-threshold", str(tmp_path / "missing.json")]):
        bad = subprocess.run([sys.executable, "-m", "nqcsp", *argv], capture_output=True, text=True,
                             timeout=60)
        assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1, bad.stderr


@pytest.mark.slow   # about 10 s: a first run interrupted mid-level, then the resumed run
def test_ctrl_c_then_resume_loses_and_repeats_nothing(tmp_path):
    command = [sys.executable, "-m", "nqcsp", "threshold", "16", "--checkpoint", str(tmp_path), "--jobs", "2",
               "--json"]
    level = tmp_path / "n16-k3.jsonl"

    def some_tasks_done(out, err):
        return level.exists() and len(level.read_text().splitlines()) >= 4

    # start_interruptible: a pytest started in the background (nohup ... &) passes on an ignored SIGINT,
    # and the run then finished instead of stopping (rc 0, "finished before it could be interrupted").
    proc = start_interruptible(command)
    rc, out, err, took = interrupt_when(proc, some_tasks_done)
    assert rc == 130 and "resume" in err and "Traceback" not in err, (rc, err[-500:])
    before = [json.loads(line) for line in level.read_text().splitlines()]
    assert before[0]["header"]["k"] == 3 and 3 <= len(before) - 1 < 35
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    after = [json.loads(line) for line in level.read_text().splitlines()]
    assert after[:len(before)] == before                     # kept, not redone
    assert len({r["task"] for r in after[1:]}) == len(after) - 1
    document = json.loads(done.stdout)
    assert document["value"] == A374013[16]
    report = check_threshold(document)
    # The recorded account of 3 queens equals the independent count: no task lost, none counted twice.
    assert report.ok, "\n".join(report.lines)


def test_search_first_finds_the_blocked_set_and_keeps_the_account():
    found = nqcsp.completion_threshold(12, search_first=3.0)
    assert found.value == A374013[12]
    assert found.blocked_level["found_by"] == "search" and found.blocked_level["k"] == found.value + 1
    assert not naive_has_solution(12, list(found.blocked))
    assert check_threshold(found.to_json()).ok


def test_threshold_benchmark_runs_and_agrees():
    out = subprocess.run([sys.executable, "-m", "benchmarks.thresholds", "sweep", "--from", "4", "--to", "9",
                          "--check"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split() for line in out.stdout.splitlines()[2:-1]]
    assert [int(row[0]) for row in rows] == list(range(4, 10))
    assert all(int(row[1]) == A374013[int(row[0])] for row in rows)
    assert out.stdout.splitlines()[-1].endswith("0 disagreements")
