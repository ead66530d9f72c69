"""The level sweep by row combinations: its sets, coverage and blocked sets against brute force and against
the class sweep, its classes by Burnside against the class sweep's, its witnesses verified, and a run killed
with SIGKILL then resumed from its checkpoint with the same totals as an uninterrupted one."""

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from naive import naive_is_solution
from test_queen_sets import naive_blocked, naive_sets

import nqcsp
from nqcsp.board.result import InternalSolverError
from nqcsp.board.symmetry import SYMMETRIES, transform
from nqcsp.runtime import limits
from nqcsp.runtime.parallel import InProcess
from nqcsp.runtime.values import format_bytes
from nqcsp.studies.evidence import Evidence, check_evidence, count_sets
from nqcsp.studies.queen_sets import orbit_of_set, set_sweep
from nqcsp.studies.row_sweep import (
    WitnessFile,
    burnside_classes,
    combination_weights,
    iter_row_sweep,
    plan_combinations,
)


def sweep(n, k, **options):
    options.setdefault("executor", InProcess())
    *_, account = iter_row_sweep(n, k, **options)
    return account


def covered_by(n, k, witnesses):
    """Every set of k queens in some image of some witness, by brute force."""
    found = set()
    for witness in witnesses:
        for symmetry in SYMMETRIES:
            image = transform(np.asarray(witness, dtype=np.int64), symmetry)
            found.update(itertools.combinations(tuple((r, int(image[r])) for r in range(n)), k))
    return found


def test_the_plan_keeps_each_row_combination_or_its_mirror_once():
    for n, k in [(7, 2), (8, 3), (9, 4), (10, 1)]:
        combos = plan_combinations(n, k)
        weights = combination_weights(n, combos)
        seen = {tuple(c) for c in combos.tolist()}
        for combo in itertools.combinations(range(n), k):
            mirror = tuple(sorted(n - 1 - r for r in combo))
            assert (combo in seen) + (mirror in seen) >= 1 and not (combo in seen and mirror in seen
                                                                      and combo != mirror)
        assert int(weights.sum()) == len(list(itertools.combinations(range(n), k)))


@pytest.mark.parametrize(("n", "k"), [(5, 1), (6, 2), (7, 2), (6, 3), (8, 2)])
def test_every_set_is_covered_or_blocked_as_brute_force_says(n, k):
    account = sweep(n, k, batch=3, random_witnesses=2)
    sets = naive_sets(n, k)
    assert account.finished and account.sets == len(sets) == count_sets(n, k)
    for witness in account.witnesses:
        assert naive_is_solution(n, [int(c) for c in witness])
    covered = covered_by(n, k, account.witnesses)
    assert account.covered + account.found + account.searched == len(covered & set(sets))
    blocked = {s for b in account.blocked for s in orbit_of_set(n, b.queens)}
    assert sorted(blocked) == naive_blocked(n, k)
    assert account.blocked_sets == len(blocked) == len(sets) - len(covered & set(sets))
    assert len({b.queens for b in account.blocked}) == len(account.blocked)
    assert all(b.certificate.get("checked_by") for b in account.blocked)


@pytest.mark.parametrize("n", [12, 13, 14])
def test_level_3_agrees_with_the_class_sweep(n):
    rows = sweep(n, 3, batch=16)
    classes = set_sweep(n, 3, executor=InProcess())
    assert rows.sets == classes.ksets == count_sets(n, 3)
    assert burnside_classes(n, 3, rows.sets) == classes.classes
    assert sorted(b.queens for b in rows.blocked) == sorted(b.queens for b in classes.blocked)
    assert rows.covered + rows.found + rows.searched + rows.blocked_sets == rows.sets
    assert rows.blocked_sets == sum(b.size for b in classes.blocked)


def test_burnside_counts_the_classes_of_odd_and_even_boards():
    for n, k in [(5, 1), (7, 1), (6, 2), (9, 2), (8, 3), (9, 3)]:
        canonical = {min(orbit_of_set(n, s)) for s in naive_sets(n, k)}
        assert burnside_classes(n, k, count_sets(n, k)) == len(canonical)
    with pytest.raises(InternalSolverError, match="not a whole number"):
        burnside_classes(8, 3, count_sets(8, 3) + 1)


def test_stops_at_a_blocked_set_which_has_no_solution():
    account = sweep(14, 4, batch=8, stop_at_blocked=True)
    assert account.blocked and not account.finished
    queens = account.blocked[0].queens
    assert len(queens) == 4 and nqcsp.count(14, list(queens)) == 0


def test_the_threshold_by_rows_matches_the_class_sweep():
    for n in range(4, 13):
        rows = nqcsp.completion_threshold(n, engine="rows", executor=InProcess())
        classes = nqcsp.completion_threshold(n, executor=InProcess())
        assert rows.value == classes.value and rows.exact
        assert [(lv.classes, lv.ksets) for lv in rows.levels] \
            == [(lv.classes, lv.ksets) for lv in classes.levels]
        assert nqcsp.check_threshold(rows.to_json()).ok
    with pytest.raises(ValueError, match="engine"):
        nqcsp.completion_threshold(8, engine="cells")


def test_bad_arguments_are_refused_by_name(tmp_path):
    with pytest.raises(ValueError, match="batch"):
        sweep(8, 2, batch=0)
    with pytest.raises(ValueError, match="random_witnesses"):
        sweep(8, 2, random_witnesses=-1)
    with pytest.raises(ValueError, match="k = 9"):
        sweep(8, 9)


def test_checkpoint_paths_are_checked_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="empty path"):
        sweep(8, 2, checkpoint="")
    (tmp_path / "level.jsonl.witnesses").mkdir()
    with pytest.raises(ValueError, match="witness file .* is a directory"):
        sweep(8, 2, checkpoint=str(tmp_path / "level.jsonl"))


def test_a_witness_file_shorter_than_its_checkpoint_is_refused(tmp_path):
    checkpoint = str(tmp_path / "level.jsonl")
    sweep(11, 2, checkpoint=checkpoint, batch=4)
    witnesses = WitnessFile(tmp_path / "level.jsonl.witnesses", 11)
    held = witnesses.count()
    with open(witnesses.path, "r+b") as handle:
        handle.truncate((held - 1) * 11)
    with pytest.raises(ValueError, match="truncated or replaced"):
        sweep(11, 2, checkpoint=checkpoint, batch=4)


def test_a_witness_file_larger_than_memory_is_refused_by_its_size(tmp_path, monkeypatch):
    # The resume read the whole witness file with no estimate: one larger than memory was a MemoryError.
    checkpoint = str(tmp_path / "level.jsonl")
    options = {"checkpoint": checkpoint, "batch": 4, "random_witnesses": 40_000}
    sweep(11, 2, **options)
    held = WitnessFile(tmp_path / "level.jsonl.witnesses", 11).count() * 11
    monkeypatch.setattr(limits, "available_memory", lambda: 2 * held)
    refusal = f"holds {format_bytes(held)} of witnesses to read, 3 copies of which do not fit"
    with pytest.raises(ValueError, match=refusal):
        sweep(11, 2, **options)
    monkeypatch.setattr(limits, "available_memory", lambda: 3 * held)
    assert sweep(11, 2, **options).finished


KILLED_RUN = """
import sys, time
from nqcsp.runtime.parallel import InProcess
from nqcsp.studies.row_sweep import iter_row_sweep
for account in iter_row_sweep(17, 3, executor=InProcess(), checkpoint=sys.argv[1], batch=1,
                              random_witnesses=50):
    print(account.tasks_done, flush=True)
    time.sleep(0.05)
"""


UNKEPT_RUN = """
import sys
from nqcsp.runtime.parallel import ProcessPool
from nqcsp.studies.row_sweep import iter_row_sweep
pool = ProcessPool(2)
for account in iter_row_sweep(17, 3, executor=pool, batch=1, random_witnesses=50):
    print(account.tasks_done, flush=True)
"""


def _open_files(pid):
    targets = []
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(FileNotFoundError):     # a descriptor closed meanwhile
            targets.append(os.readlink(f"/proc/{pid}/fd/{fd}"))
    return targets


def test_a_sweep_without_checkpoint_killed_leaves_no_witness_file(tmp_path):
    # Its witness file was a temporary file removed at the end: each SIGKILL left one in the temporary
    # folder. Now it has no name there from the start, and goes with the sweep and its workers.
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(UNKEPT_RUN)], stdout=subprocess.PIPE,
                             text=True, env={**os.environ, "TMPDIR": str(tmp_path)})
    try:
        held = []
        for line in child.stdout:
            held = _open_files(child.pid)
            if int(line) >= 2:
                break
        assert child.poll() is None and any("nqcsp-witnesses-" in target for target in held), held
        assert not [name for name in os.listdir(tmp_path) if name.startswith("nqcsp-")]
        child.kill()
    finally:
        child.wait()
    time.sleep(0.5)         # the workers die with the sweep (PDEATHSIG)
    assert not [name for name in os.listdir(tmp_path) if name.startswith("nqcsp-")]


@pytest.mark.slow
def test_a_killed_sweep_resumes_with_the_totals_of_an_uninterrupted_one(tmp_path):
    checkpoint = tmp_path / "level.jsonl"
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(KILLED_RUN), str(checkpoint)],
                             stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        for line in child.stdout:
            if int(line) >= 12:
                break
        os.killpg(child.pid, signal.SIGKILL)        # no chance to clean up: as a crash or `kill -9`
    finally:
        child.wait()
    records = [json.loads(line) for line in checkpoint.read_text().splitlines()]
    done = [r["task"] for r in records[1:] if r["task"].startswith("combos:")]
    assert 12 <= len(done) < len(plan_combinations(17, 3))
    # A kill in the middle of an append: half a witness past what the checkpoint records.
    with open(str(checkpoint) + ".witnesses", "ab") as handle:
        handle.write(bytes(range(9)))
    resumed = sweep(17, 3, checkpoint=str(checkpoint), batch=1, random_witnesses=50)
    whole = sweep(17, 3, batch=1, random_witnesses=50)
    assert resumed.finished and resumed.resumed == len(done)
    assert (resumed.sets, resumed.tasks_done) == (whole.sets, whole.tasks_done) == (count_sets(17, 3),
                                                                                    whole.tasks)
    assert resumed.covered + resumed.found + resumed.searched == resumed.sets
    tasks = [json.loads(line)["task"] for line in checkpoint.read_text().splitlines()[1:]]
    assert len(tasks) == len(set(tasks))              # no task recorded twice
    # Every witness kept, those of the tasks before the kill too: together they cover every set.
    for witness in resumed.witnesses:
        assert nqcsp.verify(17, witness)
    evidence = Evidence(17, 3, False, (), None, tuple(count_sets(17, k) for k in range(4)), resumed.witnesses)
    report = check_evidence(evidence, executor=InProcess())
    assert report.ok, report.lines
