"""The Executor seam: results as they complete, lost workers retried (process pool and Dask), ordinary
failures not, batch lines isolated with their line numbers, Ctrl-C acted on within a second."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from interrupting import interrupt_when, start_interruptible
from naive import naive_has_solution, naive_is_solution
from timing import Stopwatch

from nqcsp.runtime.parallel import InProcess, ProcessPool, WorkerLost, iter_outcomes, run_tasks


def square(x):
    return x * x


def fail_on_three(x):
    if x == 3:
        raise ValueError(f"task {x} fails by design")
    return x


def die_once(marker, x):
    """Kills its worker on the first attempt of task 0 only (the marker file remembers)."""
    if x == 0 and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    time.sleep(0.05)
    return x * x


def always_die(x):
    if x == 2:
        os._exit(1)
    return x * x


def count_attempts(directory, x):
    with open(os.path.join(directory, f"{x}-{time.monotonic_ns()}"), "w"):
        pass
    raise RuntimeError(f"task {x} fails by design")


@pytest.mark.parametrize("executor", [None, InProcess()], ids=["pool", "in-process"])
def test_run_tasks_yields_every_result_once(executor):
    results = dict(run_tasks(square, [(i,) for i in range(20)], executor=executor, jobs=2))
    assert results == {i: i * i for i in range(20)}


def test_ordinary_exception_is_raised_and_not_retried(tmp_path):
    with pytest.raises(ValueError, match="task 3"):
        dict(run_tasks(fail_on_three, [(i,) for i in range(6)], jobs=2))
    outcomes = dict(iter_outcomes(count_attempts, [(str(tmp_path), 5)], jobs=1))
    assert isinstance(outcomes[0].error, RuntimeError) and outcomes[0].attempts == 1
    assert len(os.listdir(tmp_path)) == 1


def test_worker_killed_mid_run_is_retried_in_a_new_pool(tmp_path):
    marker = str(tmp_path / "died")
    results = dict(run_tasks(die_once, [(marker, i) for i in range(8)], jobs=2))
    assert os.path.exists(marker), "the first attempt did not die: this test checked nothing"
    assert results == {i: i * i for i in range(8)}


def test_a_task_that_always_kills_its_worker_fails_alone():
    outcomes = dict(iter_outcomes(always_die, [(i,) for i in range(6)], jobs=2, retries=1))
    assert isinstance(outcomes[2].error, WorkerLost) and outcomes[2].lost
    assert {i: o.value for i, o in outcomes.items() if i != 2} == {i: i * i for i in range(6) if i != 2}
    with pytest.raises(WorkerLost):
        dict(run_tasks(always_die, [(2,)], jobs=1, retries=0))


def test_leaving_early_kills_the_pool_at_once():
    pool = ProcessPool(2)
    with Stopwatch() as watch:
        for _ in run_tasks(time.sleep, [(0.01,)] + [(30,)] * 4, executor=pool):
            break
        pool.kill()
    assert watch.seconds < 5, watch


CTRL_C_DURING_FORK_SCRIPT = """
import os, signal, time
from nqcsp.runtime.parallel import ProcessPool

pressed = []


def press_ctrl_c_during_the_fork():
    # As if the user's Ctrl-C arrived while os.fork ran its hooks (Python drops an exception raised there).
    if not pressed:
        pressed.append(True)
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)


os.register_at_fork(after_in_parent=press_ctrl_c_during_the_fork)
pool = ProcessPool(1)
try:
    pool.submit(abs, -1).result(timeout=60)
    time.sleep(0.5)
    print("lost", flush=True)
except KeyboardInterrupt:
    print("interrupted", flush=True)
finally:
    pool.kill()
"""


@pytest.mark.skipif(not hasattr(os, "register_at_fork") or sys.platform != "linux",
                    reason="the pool forks its workers on Linux only")
def test_ctrl_c_while_the_pool_forks_its_workers_is_not_lost():
    # Found by Ctrl-C at random moments: `nqcsp blockades 1 400` went on to the end and exited 0.
    from interrupting import start_interruptible

    proc = start_interruptible([sys.executable, "-c", CTRL_C_DURING_FORK_SCRIPT],
                               cwd=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert out.split() == ["interrupted"], (out, err[-1000:])
    assert "Exception ignored" not in err, err


# --- Dask: the same work on a LocalCluster of 2 worker processes, compared with the default executor ----

@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed")
    import cloudpickle

    # Dask workers are spawned: they cannot import this test module by name, so its functions travel
    # by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, distributed.Client(cluster) as client:
        yield client
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def test_dask_sweep_matches_the_process_pool(dask_client):
    from nqcsp.studies.blockades import sweep

    sizes = list(range(1, 9)) + [40, 41]
    on_dask = sweep(sizes, executor=dask_client.get_executor())
    on_pool = sweep(sizes, jobs=2)
    assert [b.to_json() | {"seconds": 0} for b in on_dask] == [b.to_json() | {"seconds": 0} for b in on_pool]
    for board in on_dask:
        if board.n <= 8:
            assert all(not naive_has_solution(board.n, [cell]) for cell in board.blocked)
            assert len(board.blocked) == sum(not naive_has_solution(board.n, [(r, c)])
                                             for r in range(board.n) for c in range(board.n))


@pytest.mark.slow   # about 20 s: two thresholds of 15 and a re-check on the cluster
def test_dask_threshold_and_its_recheck_match_the_process_pool(dask_client):
    # The sweep's tasks share their cover cache through a file of shared memory on the local cluster too;
    # the re-check runs its coverage and count tasks on the same executor.
    import nqcsp
    from nqcsp.studies.threshold import check_threshold

    on_dask = nqcsp.completion_threshold(15, executor=dask_client.get_executor())
    on_pool = nqcsp.completion_threshold(15, jobs=2)
    assert on_dask.value == on_pool.value
    assert [level.ksets for level in on_dask.levels] == [level.ksets for level in on_pool.levels]
    # The blocked set is the least of those found before the sweep stops, which depends on which tasks
    # finished first (a busy machine found another one): each must be blocked, by a second method.
    for found in (on_dask, on_pool):
        assert len(found.blocked) == found.value + 1 and not naive_has_solution(15, list(found.blocked))
    report = check_threshold(on_dask.to_json(), executor=dask_client.get_executor())
    assert report.ok, "\n".join(report.lines)
    assert all(nqcsp.verify(15, witness) for witness in on_dask.witnesses)


def _as_list(columns):
    return None if columns is None else columns.tolist()


def test_dask_batch_matches_the_process_pool(dask_client):
    from nqcsp.cli.batch import solve_line

    lines = [json.dumps({"n": n, "queens": queens, "id": k}) for k, (n, queens) in
             enumerate([(8, [[0, 3]]), (6, [[0, 0]]), (-1, []), (30, [[5, 7]]), (4, [[1, 1]])])]
    tasks = [(k + 1, line, {"solver": "auto", "time_limit": None, "seed": 1}) for k, line in enumerate(lines)]

    def records(executor):
        out = {i: o.value for i, o in iter_outcomes(solve_line, tasks, executor=executor, jobs=2)}
        # Timings and proof details differ run to run; the verdicts may not.
        keep = ("line", "id", "n", "status", "error_type")
        return [{key: out[i].get(key) for key in keep} | {"columns": _as_list(out[i].get("columns"))}
                for i in range(len(tasks))]

    on_dask = records(dask_client.get_executor())
    on_pool = records(None)
    assert [{k: v for k, v in r.items() if k != "columns"} for r in on_dask] == \
        [{k: v for k, v in r.items() if k != "columns"} for r in on_pool]
    assert [r["line"] for r in on_dask] == [1, 2, 3, 4, 5]
    assert on_dask[2]["error_type"] == "input" and on_dask[1]["status"] == "UNSAT"
    assert naive_is_solution(30, on_dask[3]["columns"], [(5, 7)])


def test_dask_worker_killed_mid_run_completes(dask_client, tmp_path):
    marker = str(tmp_path / "died")
    results = dict(run_tasks(die_once, [(marker, i) for i in range(6)], executor=dask_client.get_executor()))
    assert os.path.exists(marker), "the first attempt did not die: this test checked nothing"
    assert results == {i: i * i for i in range(6)}


def test_dask_runs_short_tasks_in_chunks_and_isolates_a_failing_one(dask_client):
    from distributed import get_task_stream

    tasks = [(i,) for i in range(400)]
    with get_task_stream(dask_client) as stream:
        outcomes = dict(iter_outcomes(fail_on_three, tasks, executor=dask_client.get_executor()))
    assert sorted(outcomes) == list(range(400))
    assert isinstance(outcomes[3].error, ValueError) and outcomes[3].attempts == 1
    assert {i: o.value for i, o in outcomes.items() if i != 3} == {i: i for i in range(400) if i != 3}
    # Chunked: far fewer Dask tasks than tasks (one per task before, 7.6 s per 1,000 on 2 cores).
    assert len(stream.data) < 100


def test_chunks_follow_the_measured_task_time_and_shrink_towards_the_end():
    from nqcsp.runtime.parallel import CHUNK_S, TINY_S, _ChunkPlanner

    planner = _ChunkPlanner(workers=2)
    assert planner.size(1000) == 1                      # nothing measured yet
    planner.observe([CHUNK_S / 64] * 4)
    assert planner.size(10_000) == 64                   # about CHUNK_S of work
    assert planner.size(60) == 10                       # a sixth of what is left (3 per worker)
    assert planner.size(1) == 1
    planner.observe([CHUNK_S / 64, 2 * TINY_S])         # one task of a chunk is not tiny: alone again
    assert planner.size(10_000) == 1
    for _ in range(3):                                  # until tiny tasks have been seen for a while
        planner.observe([TINY_S / 4])
    assert planner.size(10_000) > 1


WARM_WORKERS_SCRIPT = """
import sys
from nqcsp.bitboard import count
from nqcsp.bitboard.counting import load_kernels
from nqcsp.runtime.parallel import dask_executor, run_tasks


def kernels_already_loaded():
    module = sys.modules.get("nqcsp.bitboard.kernels")
    return module is not None and len(module.count_many.overloads) > 0


if __name__ == "__main__":
    warm = load_kernels if sys.argv[1] == "warm" else None
    with dask_executor(None, 2, warm=warm) as executor:
        loaded = sorted(set(value for _, value in run_tasks(kernels_already_loaded, [()] * 4,
                                                              executor=executor)))
        total = count(12, executor=executor)
    print(loaded, total == count(12, symmetry=False))
"""


@pytest.mark.slow  # 6-10 s each: a local cluster started in a fresh interpreter
@pytest.mark.skipif(sys.platform != "linux", reason="local Dask workers are forked only on Linux")
@pytest.mark.slow  # 9 s each: starts a local Dask cluster twice
@pytest.mark.parametrize("warm", ["warm", "cold"])
def test_local_cluster_workers_start_with_what_warm_loaded(tmp_path, warm):
    pytest.importorskip("distributed")
    # A fresh process, as the CLI is: this test process runs other threads (the fixture's cluster), and
    # from such a process workers are spawned, not forked.
    script = tmp_path / "warm_workers.py"
    script.write_text(WARM_WORKERS_SCRIPT)
    out = subprocess.run([sys.executable, str(script), warm], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ([f"[{warm == 'warm'}]", "True"]), out.stdout


def test_workers_are_not_forked_from_a_process_running_threads():
    from nqcsp.runtime.parallel import _can_fork_workers

    stop = threading.Event()
    helper = threading.Thread(target=stop.wait)
    helper.start()
    try:
        assert not _can_fork_workers()
    finally:
        stop.set()
        helper.join()


@pytest.mark.slow  # 4.5 s: a CLI process connecting to a cluster
def test_cli_runs_on_a_scheduler_given_by_address(dask_client):
    out = nqcsp("blockades", "4", "6", "--format", "json", "--no-progress",
                "--scheduler", dask_client.scheduler.address)
    assert out.returncode == 0, out.stderr[-2000:]
    assert {b["n"]: len(b["blocked"]) for b in json.loads(out.stdout)} == {
        n: sum(not naive_has_solution(n, [(r, c)]) for r in range(n) for c in range(n)) for n in (4, 5, 6)}


def test_missing_dask_names_the_extra(monkeypatch):
    import nqcsp.runtime.parallel as parallel

    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ImportError, match=r"nqcsp\[dask\]"), parallel.dask_executor():
        pass


# --- Dask under attack: a worker SIGKILLed mid-sweep, the scheduler killed mid-run or never there --------
# A real cluster of its own processes (scheduler and two workers with their nannies, loopback only), so that
# killing a part of it touches nothing else; workers import nqcsp from this checkout.

@pytest.fixture
def own_cluster(tmp_path):
    pytest.importorskip("distributed")
    from distributed import Client

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    address_file = tmp_path / "scheduler.json"
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler",
                                  "--host", "127.0.0.1", "--port", "0", "--dashboard-address", "127.0.0.1:0",
                                  "--scheduler-file", str(address_file)],
                                 env=env, start_new_session=True, stderr=subprocess.DEVNULL)
    workers = None
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists() or not address_file.read_text().strip():
            assert time.monotonic() < deadline and scheduler.poll() is None, "the scheduler did not start"
            time.sleep(0.1)
        address = json.loads(address_file.read_text())["address"]
        workers = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address,
                                    "--nworkers", "2", "--nthreads", "1", "--host", "127.0.0.1",
                                    "--dashboard-address", "127.0.0.1:0"],
                                   env=env, start_new_session=True, stderr=subprocess.DEVNULL)
        with Client(address, timeout=60) as watcher:
            watcher.wait_for_workers(2, timeout=60)
        yield address, scheduler
    finally:
        for process in (workers, scheduler):
            if process is not None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def _kill_after_first(gen, kill):
    """The outcomes of ``gen``, with ``kill()`` called once the first one has arrived (mid-run for sure)."""
    first = next(gen)
    kill()
    yield first
    yield from gen


@pytest.mark.slow  # 10-20 s: a cluster of its own, a worker killed and restarted by its nanny
def test_dask_worker_sigkilled_mid_sweep_gives_the_complete_correct_sweep(own_cluster, monkeypatch):
    import functools
    import importlib

    import nqcsp.runtime.parallel as parallel

    blockades = importlib.import_module("nqcsp.studies.blockades")

    address, _ = own_cluster
    killed = []
    real_outcomes = parallel._dask_outcomes

    def kill_a_busy_worker(client):
        busy = [worker for worker, keys in client.processing().items() if keys]
        assert busy, "nothing was running: the kill would test nothing"
        for pid in client.run(os.getpid, workers=busy[:1]).values():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    monkeypatch.setattr(parallel, "_dask_outcomes", lambda client, *args: _kill_after_first(
        real_outcomes(client, *args), lambda: kill_a_busy_worker(client)))
    # A task per board, so that many are in flight when the worker dies.
    monkeypatch.setattr(blockades, "plan_tasks", functools.partial(blockades.plan_tasks, task_seconds=0))
    sizes = list(range(1, 9)) + list(range(100, 120))
    with parallel.dask_executor(address) as executor:
        on_dask = blockades.sweep(sizes, executor=executor)
    assert killed
    on_pool = blockades.sweep(sizes, jobs=2)
    assert [b.n for b in on_dask] == sizes and not any(b.undecided_classes for b in on_dask)
    # The verdicts; which backend found a witness may differ from run to run (each witness is verified).
    verdicts = ("n", "classes", "blocked", "blocked_classes", "undecided_classes")
    assert [{key: b.to_json()[key] for key in verdicts} for b in on_dask] == \
        [{key: b.to_json()[key] for key in verdicts} for b in on_pool]
    for board in on_dask:
        if board.n <= 8:
            assert len(board.blocked) == sum(not naive_has_solution(board.n, [(r, c)])
                                             for r in range(board.n) for c in range(board.n))


SCHEDULER_KILLED_RUNS = {
    "blockades": (["blockades", "1", "300", "--format", "json", "--no-progress"], None),
    "batch": (["solve", "--batch", "-"], "".join(json.dumps({"n": n, "id": n}) + "\n" for n in range(8, 60))),
}


@pytest.mark.slow  # 8-15 s each: a cluster of its own, then the client's (shortened) reconnection timeout
@pytest.mark.parametrize("command", SCHEDULER_KILLED_RUNS)
def test_dask_scheduler_killed_mid_run_writes_what_finished_one_line_and_exit_4(own_cluster, monkeypatch,
                                                                                 capfd, command):
    import io

    import nqcsp.runtime.parallel as parallel
    from nqcsp.cli import main

    address, scheduler = own_cluster
    # Short, so that the test is cheap; the default (SCHEDULER_TIMEOUT_S) bounds the run the same way.
    monkeypatch.setattr(parallel, "SCHEDULER_TIMEOUT_S", 3.0)
    killed_at = []
    real_outcomes = parallel._dask_outcomes

    def kill_scheduler():
        os.kill(scheduler.pid, signal.SIGKILL)
        killed_at.append(time.monotonic())

    monkeypatch.setattr(parallel, "_dask_outcomes",
                        lambda *args: _kill_after_first(real_outcomes(*args), kill_scheduler))
    argv, stdin = SCHEDULER_KILLED_RUNS[command]
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = main([*argv, "--scheduler", address])
    took = time.monotonic() - killed_at[0]
    out, err = capfd.readouterr()
    assert code == 4, err
    assert took < 3.0 + 10, took          # the reconnection timeout, and no hang after it
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"lost the Dask scheduler at {address}" in err, err
    # What finished before the loss is written, and right.
    if command == "blockades":
        boards = json.loads(out)
        assert boards and all(not board["undecided_classes"] for board in boards)
    else:
        records = [json.loads(line) for line in out.splitlines()]
        assert records and all(naive_is_solution(r["n"], r["columns"]) for r in records)


class _RunningClientFailing:
    """A Dask client whose status says running and whose first call raises ``error``."""

    status = "running"
    scheduler = type("Scheduler", (), {"address": "tcp://127.0.0.1:1"})()

    def __init__(self, error: BaseException):
        self.error = error

    def nthreads(self):
        raise self.error


@pytest.mark.parametrize("broken", ["comm", "reset"])
def test_a_client_call_that_sees_the_scheduler_link_break_first_is_a_lost_scheduler(broken, monkeypatch):
    # Found in CI: the scheduler killed mid-run, `client.nthreads()` raised CommClosedError while the
    # client's status still said "running", and the run ended "internal error (a bug, please report)"
    # instead of "lost the Dask scheduler" (exit 4).
    from nqcsp.runtime import parallel

    comm = pytest.importorskip("distributed.comm.core")
    # No real client: nothing is submitted before the first call to it fails.
    monkeypatch.setattr("distributed.as_completed", lambda *args, **kwargs: None)
    error = comm.CommClosedError("in <TCP (closed) ConnectionPool.ncores>") if broken == "comm" \
        else ConnectionResetError(104, "Connection reset by peer")

    with pytest.raises(parallel.SchedulerLost, match="lost the Dask scheduler at tcp://127.0.0.1:1"):
        list(parallel._dask_outcomes(_RunningClientFailing(error), abs, [(-1,)], 2))


def test_a_client_call_that_fails_otherwise_is_not_taken_for_a_lost_scheduler(monkeypatch):
    from nqcsp.runtime import parallel

    pytest.importorskip("distributed")
    monkeypatch.setattr("distributed.as_completed", lambda *args, **kwargs: None)

    with pytest.raises(ValueError, match="a bug of ours"):
        list(parallel._dask_outcomes(_RunningClientFailing(ValueError("a bug of ours")), abs, [(-1,)], 2))


@pytest.mark.slow  # 3-5 s: the (shortened) connection timeout
def test_dask_scheduler_not_there_is_one_line_and_exit_2(monkeypatch, capfd):
    pytest.importorskip("distributed")
    import socket

    import nqcsp.runtime.parallel as parallel
    from nqcsp.cli import main

    with socket.socket() as probe:          # a loopback port that nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(parallel, "SCHEDULER_TIMEOUT_S", 2.0)
    with Stopwatch() as watch:
        code = main(["blockades", "1", "12", "--no-progress", "--scheduler", f"tcp://127.0.0.1:{port}"])
    took = watch.seconds
    err = capfd.readouterr().err
    assert code == 2 and took < 2.0 + 10, (code, took, err)
    assert err.count("\n") == 1 and "cannot reach the Dask scheduler" in err and "Traceback" not in err, err


# --- the batch command ---------------------------------------------------------------------------------

def nqcsp(*args, stdin=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "nqcsp", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout)


@pytest.mark.slow  # 5 s: a batch whose lines kill their workers, rerun until they are charged
def test_batch_isolates_every_line_with_its_number():
    lines = [json.dumps({"n": 8, "id": "a"}),
             json.dumps({"n": 10**12, "id": "huge"}),
             "[" * 5000 + "]" * 5000,
             "",
             json.dumps({"n": 6, "queens": [[0, 0]], "id": "blocked"}),
             "not json",
             json.dumps({"n": 20, "queens": [[3, 4]], "id": 7})]
    out = nqcsp("solve", "--batch", "-", "--jobs", "2", stdin="\n".join(lines) + "\n")
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3, 5, 6, 7], "input order, blank line skipped"
    assert out.returncode == 2, out.stderr    # bad input lines, no internal error
    by_line = {r["line"]: r for r in records}
    # A board no stage can hold: UNKNOWN naming the size, not an error and not a guess.
    huge = by_line[2]
    assert huge["id"] == "huge" and huge["status"] == "UNKNOWN" and "TiB" in huge["stats"]["reason"]
    assert by_line[3]["error_type"] == "input" and by_line[3]["id"] is None
    assert by_line[6]["error_type"] == "input"
    assert by_line[5]["status"] == "UNSAT" and not naive_has_solution(6, [(0, 0)])
    assert naive_is_solution(8, by_line[1]["columns"])
    assert naive_is_solution(20, by_line[7]["columns"], [(3, 4)])


def test_batch_line_that_kills_its_worker_is_an_internal_error_record(tmp_path, monkeypatch):
    # A line whose worker dies on every attempt: simulated by a solver option that makes the worker exit,
    # through a sitecustomize that only the workers' environment loads.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import os, nqcsp.api as api\n"
        "_solve = api.solve\n"
        "def solve(n, *args, **kwargs):\n"
        "    if n == 13:\n"
        "        os._exit(3)\n"
        "    return _solve(n, *args, **kwargs)\n"
        "api.solve = solve\n")
    env = dict(os.environ, PYTHONPATH=f"{site}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
    lines = [json.dumps({"n": n, "id": n}) for n in (8, 13, 9, 10)]
    out = subprocess.run([sys.executable, "-m", "nqcsp", "solve", "--batch", "-", "--jobs", "2"],
                         input="\n".join(lines), capture_output=True, text=True, timeout=120, env=env)
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3, 4]
    assert records[1]["id"] == 13 and records[1]["error_type"] == "internal", records[1]
    assert "died" in records[1]["error"]
    assert all(naive_is_solution(r["n"], r["columns"]) for r in records if r["line"] != 2)
    assert out.returncode == 4


def test_ctrl_c_on_a_batch_writes_the_finished_lines_and_exits_130():
    lines = [json.dumps({"n": 8, "id": "first"}),
             # Never says UNSAT: searches the blocked cell for the whole minute.
             json.dumps({"n": 6, "queens": [[0, 0]], "solver": "minconflicts", "time_limit": 60,
                         "max_restarts": 10**12, "id": "slow"}),
             json.dumps({"n": 9, "id": "third"})]
    proc = start_interruptible([sys.executable, "-m", "nqcsp", "solve", "--batch", "-", "--jobs", "2"],
                               stdin=subprocess.PIPE)
    proc.stdin.write("\n".join(lines) + "\n")
    proc.stdin.close()
    rc, out, err, took = interrupt_when(proc, lambda out, err: '"first"' in out)
    assert rc == 130 and took < 2, (rc, took, err)
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["id"] for r in records][:1] == ["first"] and "slow" not in [r["id"] for r in records]
    assert "interrupted" in err and "Traceback" not in err


def _children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(child) for child in handle.read().split()]
    except OSError:
        return []


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/task"), reason="reads the process tree from /proc")
@pytest.mark.parametrize("command", [["blockades", "16", "--queens", "4", "--jobs", "2", "--no-progress"],
                                     ["blockades", "22", "--queens", "5", "--search", "--time-limit", "60",
                                      "--jobs", "2"]], ids=["sweep", "search"])
def test_pool_workers_die_with_their_parent_killed_by_sigkill(command):
    # Issue 34: kill -9 of the command left its workers alive: two idle 155 MB ones after a sweep, two busy
    # ones after --search.
    process = subprocess.Popen([sys.executable, "-m", "nqcsp", *command], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    workers = []
    try:
        deadline = time.monotonic() + 60
        while len(workers) < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.1)
            workers = _children(process.pid)
        assert len(workers) == 2, "the command did not start its two workers"
        time.sleep(1.5)                     # the workers are loaded and busy
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        gone_by = time.monotonic() + 5
        while any(map(_alive, workers)) and time.monotonic() < gone_by:
            time.sleep(0.05)
        assert not any(map(_alive, workers)), [w for w in workers if _alive(w)]
    finally:
        for pid in [process.pid, *workers]:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
