"""The row sweep (``engine="rows"``) killed with SIGKILL at seeded random points and resumed from its
checkpoint (issue 49): the totals of an uninterrupted run, every task recorded once, the witness file
what the last record says, the witnesses covering every set but the blocked ones (counted by the
evidence's re-check, which shares no code with the sweep), and nothing left behind: no scratch file, no
worker. And a sweep that stopped at a blocked set resumes, as a threshold run killed after it does.

``kill_and_resume`` is the whole experiment for one (n, k); the tests run a few pairs, and
``python tests/studies/test_row_sweep_resume.py`` runs the grid n = 12..16, k = 3..4 once."""

import json
import os
import random
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import nqcsp
from nqcsp.runtime.parallel import InProcess
from nqcsp.studies.evidence import _cover_task, count_sets
from nqcsp.studies.row_sweep import iter_row_sweep, plan_combinations
from nqcsp.studies.threshold import completion_threshold
from nqcsp.studies.witness_file import WitnessFile

SWEEP = """
import sys
from nqcsp.runtime.parallel import ProcessPool
from nqcsp.studies.row_sweep import iter_row_sweep
n, k, batch, stop = (int(arg) for arg in sys.argv[2:6])
pool = ProcessPool(2)
for account in iter_row_sweep(n, k, executor=pool, checkpoint=sys.argv[1], batch=batch, random_witnesses=300,
                              stop_at_blocked=bool(stop)):
    print(account.tasks_done, flush=True)
"""


def sweep(n, k, **options):
    options.setdefault("executor", InProcess())
    *_, account = iter_row_sweep(n, k, **options)
    return account


def session_processes(session):
    """The processes still alive in ``session`` (the killed driver's workers, if they outlived it)."""
    alive = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue            # ended meanwhile
        if int(fields[3]) == session and fields[0] != "Z":
            alive.append(int(pid))
    return alive


def recorded_combinations(checkpoint):
    """The batches of row combinations a checkpoint records (a torn last line is the resume's to cut)."""
    if not checkpoint.exists():
        return []
    tasks = []
    for line in checkpoint.read_text().splitlines()[1:]:
        try:
            tasks.append(json.loads(line)["task"])
        except json.JSONDecodeError:
            break
    return [task for task in tasks if task.startswith("combos:")]


def killed_run(checkpoint, n, k, batch, stop, after, delay, scratch):
    """The sweep in a child process of its own session, SIGKILLed (the driver alone, as ``kill -9``
    does) ``delay`` seconds after its ``after``-th yield (after its start for ``after`` = 0), or left to
    end when it ends first: whether it was killed."""
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(SWEEP), str(checkpoint), str(n), str(k),
                              str(batch), str(int(stop))], stdout=subprocess.PIPE, text=True,
                             start_new_session=True, env={**os.environ, "TMPDIR": str(scratch)})
    seen = 0
    try:
        for _ in iter(child.stdout.readline, "") if after else ():
            seen += 1
            if seen >= after:
                break
        time.sleep(delay)
        killed = child.poll() is None
        child.kill()
    finally:
        child.communicate()
    deadline = time.monotonic() + 10
    while session_processes(child.pid) and time.monotonic() < deadline:
        time.sleep(0.1)         # the workers die with the driver (PDEATHSIG)
    assert not session_processes(child.pid), "the killed sweep's workers outlived it"
    return killed


def kill_and_resume(tmp_path, n, k, seed, kills=3, batch=1, stop=False):
    """Kill the sweep of (n, k) ``kills`` times at points drawn from ``seed`` (a number of tasks, then a
    delay of up to 50 ms: inside a task, an append or a record; with ``stop_at_blocked``, a time from the
    start), resume it to its end, and check it against an uninterrupted run. Returns what the report
    needs."""
    draw = random.Random(seed)
    checkpoint = tmp_path / f"n{n}-k{k}.jsonl"
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    tasks = -(-len(plan_combinations(n, k)) // batch)
    points = []
    for _ in range(kills):
        done = len(recorded_combinations(checkpoint))
        if done >= tasks - 1:
            break
        if stop:
            # The sweep ends at its first blocked set, within its first tasks and a second: killed at a
            # time instead, from its imports to the blocked set's certificate.
            after, delay = 0, draw.uniform(0.3, 1.0)
        else:
            # A yield is a task added (the first of a resumed run: those read back); the kill falls in
            # the first two thirds of the tasks left, so that the next run has some left to be killed in.
            after, delay = draw.randint(1, max(1, (tasks - done) * 2 // 3)), draw.uniform(0, 0.05)
        killed = killed_run(checkpoint, n, k, batch, stop, after, delay, scratch)
        points.append((done, after, round(delay, 3), killed))
    recorded = recorded_combinations(checkpoint)
    resumed = sweep(n, k, checkpoint=str(checkpoint), batch=batch, random_witnesses=300, stop_at_blocked=stop)
    whole = sweep(n, k, batch=batch, random_witnesses=300, stop_at_blocked=stop)
    assert not [name for name in os.listdir(scratch) if name.startswith("nqcsp-")], os.listdir(scratch)
    lines = [json.loads(line) for line in checkpoint.read_text().splitlines()[1:]]
    assert len({line["task"] for line in lines}) == len(lines), "a task recorded twice"
    held = WitnessFile(tmp_path / f"n{n}-k{k}.jsonl.witnesses", n).count()
    assert held == max(line["witnesses"] for line in lines) == len(resumed.witnesses)
    assert all(nqcsp.verify(n, witness) for witness in resumed.witnesses)
    parts = (resumed.covered + resumed.found + resumed.searched + resumed.blocked_sets
             + resumed.undecided_sets)
    assert parts == resumed.sets and not resumed.undecided
    if not whole.complete:
        # Which blocked set ends the sweep depends on which task ends first; each is certified blocked.
        assert resumed.blocked and not resumed.complete
        for blocked in resumed.blocked:
            assert blocked.certificate["checked_by"]
            assert nqcsp.solve(n, list(blocked.queens)).status is nqcsp.Status.UNSAT
    else:
        assert resumed.finished and resumed.resumed == len(recorded)
        assert (resumed.sets, resumed.tasks_done) == (whole.sets, whole.tasks_done) == (count_sets(n, k),
                                                                                        whole.tasks)
        assert resumed.blocked_sets == whole.blocked_sets
        assert sorted(b.queens for b in resumed.blocked) == sorted(b.queens for b in whole.blocked)
        rows = len(plan_combinations(n, k))
        covered, _ = _cover_task(n, k, np.ascontiguousarray(resumed.witnesses), 0, rows, None)
        assert covered == resumed.sets - resumed.blocked_sets
    return {"n": n, "k": k, "seed": seed, "stop_at_blocked": stop, "kills": points,
            "recorded_before_resume": len(recorded), "resumed_tasks": resumed.resumed,
            "tasks": resumed.tasks, "sets": resumed.sets, "blocked_sets": resumed.blocked_sets,
            "blocked_classes": len(resumed.blocked), "witnesses": held}


def test_a_sweep_that_stopped_at_a_blocked_set_resumes_from_its_checkpoint(tmp_path):
    # A task that stopped at a blocked set counted every set of its last row combination, the ones it
    # left undecided too, so its record did not add up and the resume refused its own checkpoint: a
    # threshold run by rows killed after that record could not go on.
    checkpoint = str(tmp_path / "level.jsonl")
    first = sweep(12, 3, checkpoint=checkpoint, stop_at_blocked=True, batch=4)
    assert first.blocked and not first.complete
    assert first.covered + first.found + first.searched + first.blocked_sets + first.undecided_sets \
        == first.sets < count_sets(12, 3)
    again = sweep(12, 3, checkpoint=checkpoint, stop_at_blocked=True, batch=4)
    assert again.resumed == first.tasks_done
    assert (again.sets, again.blocked_sets, [b.queens for b in again.blocked]) == \
        (first.sets, first.blocked_sets, [b.queens for b in first.blocked])


def test_a_threshold_by_rows_resumes_after_its_blocked_set(tmp_path):
    # The level that ends the run is recorded up to its blocked set; a rerun reads it back.
    first = completion_threshold(12, executor=InProcess(), checkpoint_dir=str(tmp_path), engine="rows")
    again = completion_threshold(12, executor=InProcess(), checkpoint_dir=str(tmp_path), engine="rows")
    assert (again.value, again.exact, again.blocked) == (first.value, first.exact, first.blocked)
    assert [level.ksets for level in again.levels] == [level.ksets for level in first.levels]
    assert again.blocked_level == first.blocked_level


@pytest.mark.slow
@pytest.mark.parametrize(("n", "k"), [(12, 3), (15, 3)])
def test_a_row_sweep_killed_at_random_points_resumes_to_the_totals_of_an_uninterrupted_one(tmp_path, n, k):
    report = kill_and_resume(tmp_path, n, k, seed=100 * n + k)
    assert any(killed for *_, killed in report["kills"]), report["kills"]


if __name__ == "__main__":
    import pathlib
    import tempfile

    # The grid of issue 49, once: the sweep to its first blocked set (as a threshold runs it; the whole
    # level where it has none), and the whole level where its blocked classes are few enough to certify
    # each in minutes (k = 3, and k = 4 from n = 14 on: about 3,000 of them at n = 14).
    for n in range(12, 17):
        for k in (3, 4):
            for stop in [True] + [False] * (k == 3 or n >= 14):
                with tempfile.TemporaryDirectory() as folder:
                    began = time.perf_counter()
                    report = kill_and_resume(pathlib.Path(folder), n, k, seed=100 * n + k, stop=stop,
                                             batch=1 if k == 3 else 4)
                    print(json.dumps({**report, "wall_s": round(time.perf_counter() - began, 1)}), flush=True)
