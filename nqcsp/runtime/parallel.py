"""The one seam for parallel work (sweeps, counts, batches, benchmark suites): any
``concurrent.futures.Executor`` — a process pool by default, ``dask.distributed``'s
``Client.get_executor()`` for a cluster.

``run_tasks`` submits picklable tasks (a module-level function and its arguments) and yields results as they
complete. A task lost with its worker (the process died, the worker was killed, the connection closed) is
run again, a bounded number of times; a task that raises an ordinary exception is not, since running it
again would raise again. Leaving the loop early, or an interrupt, cancels what is pending and, for the
process pool made here, kills its workers so that nothing keeps running for minutes after Ctrl-C.

The command-line flags that choose an executor (``--jobs``, ``--scheduler``, ``--dask``) live with the CLI
(``nqcsp.cli.common``), which builds on this module, never the other way round.
Dask is an optional extra (``pip install 'nqcsp[dask]'``), imported only when asked for.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, CancelledError, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from nqcsp.runtime.warm_child import die_with_parent, run_on_lasting_thread

# How many times a task lost with its worker is run again before it counts as failed.
RETRIES = 2
# How long a Dask client waits to connect to its scheduler, and to reconnect after losing it, before the
# run fails with a clear error (a scheduler restarting comes back well within it).
SCHEDULER_TIMEOUT_S = 20.0
DASK_MISSING = "Dask is not installed: it is an optional extra, pip install 'nqcsp[dask]'"
# Exceptions of dask.distributed that mean the worker (or the link to it) went away, not that the task failed;
# matched by name so that a run without Dask never imports it.
_DISTRIBUTED_LOST = {"KilledWorker", "CommClosedError", "FutureCancelledError"}


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class WorkerLost(RuntimeError):
    """A task whose worker died on every attempt."""


class SchedulerLost(RuntimeError):
    """The Dask scheduler went away during a run and the client could not reconnect within its timeout."""


def _start_worker(parent: int) -> None:
    """Every pool worker's first step. Ctrl-C in a terminal reaches the whole process group: the parent
    decides what to do (cancel, kill the workers, write what is finished); a worker interrupted mid-task
    would only print a traceback, so it ignores SIGINT. And a worker dies with its parent: killed with
    SIGKILL, the parent cannot kill its workers, and they waited for tasks forever (idle) or ran theirs
    to the end (busy). The pool forks on a thread that lives as long as the process (``ProcessPool.submit``),
    so that this means the parent process's end, not the end of the thread that happened to submit first."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)


@contextlib.contextmanager
def _sigint_deferred(any_thread: bool = False) -> Iterator[None]:
    """SIGINT held back (blocked, not lost) for the duration, in the main thread on POSIX (in this thread,
    whichever it is, with ``any_thread``).

    A Ctrl-C that lands while ``os.fork`` runs its Python at-fork hooks raises KeyboardInterrupt inside a
    hook, where Python prints "Exception ignored" and drops it: ``nqcsp blockades`` then ran on to the end
    and exited 0. Blocked, the signal stays pending and is delivered when the fork is over. A worker forked
    meanwhile inherits the blocked mask; it ignores SIGINT anyway (``_start_worker``)."""
    if not hasattr(signal, "pthread_sigmask") or not (
            any_thread or threading.current_thread() is threading.main_thread()):
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _submit_deferred(pool: ProcessPoolExecutor, fn: Callable[..., Any], args: tuple[Any, ...],
                     kwargs: dict[str, Any]) -> Future:
    """``pool.submit`` on a lasting thread (``run_on_lasting_thread``), SIGINT blocked there too: the workers
    it forks start with it blocked, as when the caller's main thread forks them."""
    with _sigint_deferred(any_thread=True):
        return pool.submit(fn, *args, **kwargs)


class ProcessPool(Executor):
    """A process pool that can be renewed after a worker died (a broken ProcessPoolExecutor refuses every
    further task) and killed at once on an interrupt (``shutdown`` would wait for running tasks)."""

    def __init__(self, max_workers: int | None = None) -> None:
        self.max_workers = max_workers or cpu_count()
        self._pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.max_workers, initializer=_start_worker,
                                   initargs=(os.getpid(),))

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        # The pool forks its workers inside submit: on the main thread or the launcher thread, their
        # parent thread for the kernel's death signal, which lives as long as this process (a pool shared
        # by threads lost every worker when the thread that submitted first ended). SIGINT is held back
        # on both threads.
        with _sigint_deferred():
            return run_on_lasting_thread(_submit_deferred, self._pool, fn, args, kwargs)

    def renew(self) -> None:
        old, self._pool = self._pool, self._new()
        old.shutdown(wait=False, cancel_futures=True)

    def kill(self) -> None:
        processes = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.kill()
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(1)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._pool.shutdown(wait=wait, cancel_futures=cancel_futures)


@contextlib.contextmanager
def owned_pool(jobs: int | None) -> Iterator[ProcessPool]:
    """A process pool for one run: shut down when the run is done, its workers killed when the run is
    interrupted or fails (a pool waited on after Ctrl-C would finish every queued task first)."""
    pool = ProcessPool(jobs)
    finished = False
    try:
        yield pool
        finished = True
    finally:
        if finished:
            pool.shutdown(wait=True)
        else:
            pool.kill()


class InProcess(Executor):
    """Runs each task at submit, here: for work smaller than a pool's start-up, and for ``--jobs 1``."""

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future:
        future: Future = Future()
        future.set_running_or_notify_cancel()
        try:
            future.set_result(fn(*args, **kwargs))
        except Exception as exc:  # handed to the caller through the future, as any executor does
            future.set_exception(exc)
        return future


def is_lost_worker(exc: BaseException) -> bool:
    """Whether ``exc`` says the worker went away (run the task again) rather than that the task failed."""
    return isinstance(exc, BrokenProcessPool) or _of_distributed(exc, _DISTRIBUTED_LOST)


def _of_distributed(exc: BaseException, names: set[str]) -> bool:
    """Whether ``exc`` is one of dask.distributed's exceptions ``names`` (by name: no import of Dask)."""
    kind = type(exc)
    return kind.__module__.split(".")[0] == "distributed" and kind.__name__ in names


@dataclass
class TaskOutcome:
    """One task's end: its value, or the exception it raised (``lost`` when its worker kept dying)."""

    value: Any = None
    error: BaseException | None = None
    attempts: int = 1

    @property
    def lost(self) -> bool:
        return isinstance(self.error, WorkerLost)


def _after_lost_worker(index: int, attempts: int, retries: int,
                       exc: BaseException | None) -> TaskOutcome | None:
    """A task whose worker went away: failed with ``WorkerLost`` once it has had ``retries`` reruns, else
    None (run it again)."""
    if attempts <= retries:
        return None
    lost = WorkerLost(f"the worker running task {index} died on all {attempts} attempts "
                      f"({type(exc).__name__}: {exc})")
    return TaskOutcome(error=lost, attempts=attempts)


def _window(executor: Executor) -> int | None:
    """How many tasks to keep submitted at once; None for all. A bounded window is what lets a lost worker
    be blamed on the few tasks in flight, and leaves nothing queued in the executor to cancel on Ctrl-C."""
    if isinstance(executor, InProcess):
        return 1
    # Two per worker keeps every worker busy while results travel back.
    if isinstance(executor, ProcessPool):
        return 2 * executor.max_workers
    if isinstance(executor, ProcessPoolExecutor):
        return 2 * executor._max_workers  # type: ignore[attr-defined]
    # Anything else (a thread pool, another engine's executor) gets every task at once: its size is unknown
    # here. Dask's executor never comes this way: iter_outcomes hands it to _dask_outcomes.
    return None


def iter_outcomes(fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]], *,
                  executor: Executor | None = None, jobs: int | None = None,
                  retries: int = RETRIES) -> Generator[tuple[int, TaskOutcome], None, None]:
    """Yield ``(index, TaskOutcome)`` for every task as it completes, without raising on a task's failure.

    A task lost with its worker is run again up to ``retries`` times; after a loss, the suspects run one at a
    time, so the task that kills its worker is the one charged and the others complete.
    """
    tasks = list(tasks)
    client = getattr(executor, "_client", None)   # dask.distributed's ClientExecutor
    if client is not None and hasattr(client, "map"):
        yield from _dask_outcomes(client, fn, tasks, retries)
        return
    owned = executor is None
    pool: Executor = ProcessPool(jobs) if owned else executor  # type: ignore[assignment]
    window = _window(pool) or len(tasks) or 1
    queue = list(range(len(tasks)))[::-1]          # next task at the end
    suspects: list[int] = []                        # tasks in flight when a worker was lost
    attempts = [0] * len(tasks)
    in_flight: dict[Future, int] = {}
    finished = False
    try:
        while queue or suspects or in_flight:
            if suspects:
                if not in_flight:
                    index = suspects.pop()
                    attempts[index] += 1
                    in_flight[pool.submit(fn, *tasks[index])] = index
            else:
                while queue and len(in_flight) < window:
                    index = queue.pop()
                    attempts[index] += 1
                    in_flight[pool.submit(fn, *tasks[index])] = index
            # A timeout so that a signal handler (Ctrl-C) runs promptly on every platform.
            done, _ = wait(in_flight, timeout=0.25, return_when=FIRST_COMPLETED)
            renew = False
            for future in done:
                index = in_flight.pop(future)
                try:
                    value = future.result()
                except (CancelledError, Exception) as exc:
                    # We cancel only in `finally`: a cancellation seen here came from the engine (a lost
                    # connection, a scheduler restart), so it counts as a lost worker.
                    if not (isinstance(exc, CancelledError) or is_lost_worker(exc)):
                        yield index, TaskOutcome(error=exc, attempts=attempts[index])
                        continue
                    renew |= isinstance(exc, BrokenProcessPool)
                    outcome = _after_lost_worker(index, attempts[index], retries, exc)
                    if outcome is None:
                        suspects.append(index)
                    else:
                        yield index, outcome
                    continue
                yield index, TaskOutcome(value=value, attempts=attempts[index])
            if renew:
                if not isinstance(pool, ProcessPool):
                    raise BrokenProcessPool("a worker of the given process pool died; pass no executor "
                                            "(or a Dask one) to have lost tasks run again")
                # Every task of a broken pool fails with it: the ones still listed were in flight too.
                suspects.extend(in_flight.values())
                in_flight.clear()
                pool.renew()
        finished = True
    finally:
        for future in in_flight:
            future.cancel()
        if owned:
            if finished:
                pool.shutdown(wait=True)
            else:
                pool.kill()   # type: ignore[attr-defined]


# Chunks of tasks on Dask: a Dask task costs milliseconds of scheduler and network time (7.6 s for 1,000
# trivial tasks on a 2-core local cluster), so tasks that short travel together. Only tasks measured under
# TINY_S are grouped: grouping longer ones gains little and can tie a long task to others. A chunk aims at
# CHUNK_S of work and never takes more than 1/GUIDED of the tasks left per worker, so that chunks shrink
# towards the end and the workers finish together.
TINY_S = 0.01
CHUNK_S = 0.1
GUIDED = 3


def _run_chunk(fn: Callable[..., Any], chunk: list[list[Any]]) -> list[tuple[bool, Any, float]]:
    """Run a chunk of tasks on a worker: per task (ok, value or exception, seconds). A task's exception is
    its own outcome, so the chunk's other tasks still count."""
    out = []
    for args in chunk:
        started = time.perf_counter()
        try:
            out.append((True, fn(*args), time.perf_counter() - started))
        except Exception as exc:  # handed back as this task's outcome, as an executor would
            try:
                pickle.dumps(exc)
            except Exception:
                exc = RuntimeError(f"{type(exc).__name__}: {exc}")   # must travel back to the client
            out.append((False, exc, time.perf_counter() - started))
    return out


class _ChunkPlanner:
    """How many of the remaining tasks the next chunk takes: one until tasks are known to be tiny, then
    about ``CHUNK_S`` seconds' worth (guided: at most a ``GUIDED * workers``-th of what is left)."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.task_s: float | None = None

    def observe(self, seconds: list[float]) -> None:
        # The slowest recent task counts, forgotten by halves: sweeps often mix short and long tasks.
        longest = max(seconds)
        self.task_s = longest if self.task_s is None else max(longest, self.task_s / 2)

    def size(self, remaining: int) -> int:
        if self.task_s is None or self.task_s >= TINY_S:
            return 1
        by_time = int(CHUNK_S / max(self.task_s, 1e-6))
        guided = -(-remaining // (GUIDED * self.workers))
        return max(1, min(by_time, guided, remaining))


def _dask_outcomes(client: Any, fn: Callable[..., Any], tasks: list[tuple[Any, ...]],
                   retries: int) -> Generator[tuple[int, TaskOutcome], None, None]:
    """``iter_outcomes`` on Dask's own API, in chunks (see ``CHUNK_S``) with two chunks per worker in flight.

    The scheduler already reruns the chunk of a worker that died (up to
    ``distributed.scheduler.allowed-failures``); a chunk lost after that is broken up and its tasks rerun
    one by one here, so that a task that kills its worker is the one charged and the others complete.
    """
    from distributed import as_completed

    address = getattr(getattr(client, "scheduler", None), "address", None) or "?"
    planner = _ChunkPlanner(1)
    checked = [-1.0]

    def in_flight_wanted() -> int:
        # Two chunks per worker thread. Workers of a cluster that is still scaling up (SLURM jobs starting)
        # arrive during the run, so their number is asked again, at most once a second.
        if time.monotonic() - checked[0] >= 1.0:
            planner.workers = max(1, sum(client.nthreads().values()))
            checked[0] = time.monotonic()
        return 2 * planner.workers

    queue = list(range(len(tasks)))[::-1]          # next task at the end
    suspects: list[int] = []                        # tasks of a lost chunk, to run alone
    attempts = [0] * len(tasks)
    live: dict[str, tuple[Any, list[int]]] = {}     # future key -> (future, task indices)
    pending = as_completed([], with_results=True, raise_errors=False)

    def submit(indices: list[int]) -> None:
        for index in indices:
            attempts[index] += 1
        # Arguments travel as lists: Dask reads a tuple whose first item is callable as a task of its own.
        future = client.submit(_run_chunk, fn, [list(tasks[index]) for index in indices], pure=False)
        live[future.key] = (future, indices)
        pending.add(future)

    def refill() -> None:
        wanted = in_flight_wanted()
        while suspects and len(live) < wanted:
            submit([suspects.pop()])
        while queue and len(live) < wanted:
            size = planner.size(len(queue))
            submit([queue.pop() for _ in range(size)])

    def connected() -> None:
        # The client cancels every future when it loses the scheduler, then tries to reconnect for its
        # timeout and closes itself if it cannot: wait for either, rather than resubmitting into the void.
        give_up = time.monotonic() + 2 * float(getattr(client, "_timeout", None) or SCHEDULER_TIMEOUT_S) + 5
        while client.status != "running":
            if client.status in ("closing", "closed") or time.monotonic() > give_up:
                raise SchedulerLost(_lost_scheduler_message(address))
            time.sleep(0.05)

    def next_done() -> tuple[Any, Any]:
        # Polled, not a blocking next(): a client that lost its scheduler would leave next() waiting.
        ready = getattr(pending, "thread_condition", None)   # what next() itself waits on (distributed 2023+)
        while not pending.has_ready():
            connected()
            if ready is None:
                time.sleep(0.05)
            else:
                with ready:
                    ready.wait(timeout=0.1)
        return next(pending)

    try:
        refill()
        while live:
            future, result = next_done()
            _, indices = live.pop(future.key)
            if future.status != "finished":
                connected()
            if future.status == "finished":
                planner.observe([seconds for _, _, seconds in result])
                for index, (ok, value, _) in zip(indices, result, strict=True):
                    if ok:
                        yield index, TaskOutcome(value=value, attempts=attempts[index])
                    else:
                        yield index, TaskOutcome(error=value, attempts=attempts[index])
            else:
                exc = result if isinstance(result, BaseException) else future.exception()
                # A cancellation seen here came from the engine (we cancel only in `finally`), and an
                # exception escaping the chunk runner is not any one task's: run each task alone.
                lost_worker = isinstance(exc, CancelledError) or is_lost_worker(exc)
                if len(indices) > 1 or lost_worker:
                    for index in indices:
                        outcome = None
                        if lost_worker:
                            outcome = _after_lost_worker(index, attempts[index], retries, exc)
                        if outcome is None:
                            suspects.append(index)
                        else:
                            yield index, outcome
                else:
                    yield indices[0], TaskOutcome(error=exc, attempts=attempts[indices[0]])
            refill()
    except Exception as exc:
        # A call to the client (nthreads, submit) that failed because the scheduler went away mid-call. The
        # call may see the link break before the client does (its status still "running").
        if isinstance(exc, SchedulerLost) or (client.status == "running" and not _broken_link(exc)):
            raise
        raise SchedulerLost(_lost_scheduler_message(address, exc)) from exc
    finally:
        if live:
            with contextlib.suppress(Exception):
                client.cancel([future for future, _ in live.values()])


def _broken_link(exc: BaseException) -> bool:
    """Whether ``exc``, raised by a call to the client, says its connection broke (not a refusal)."""
    return isinstance(exc, ConnectionError) or _of_distributed(exc, {"CommClosedError"})


def _lost_scheduler_message(address: str, exc: BaseException | None = None) -> str:
    cause = f" ({type(exc).__name__}: {exc})" if exc is not None else ""
    return (f"lost the Dask scheduler at {address} during the run and could not reconnect{cause}; "
            "the tasks not finished were not run")


def run_tasks(fn: Callable[..., Any], tasks: Iterable[tuple[Any, ...]], *, executor: Executor | None = None,
              jobs: int | None = None, retries: int = RETRIES) -> Generator[tuple[int, Any], None, None]:
    """Yield ``(index, fn(*tasks[index]))`` as each task completes, in completion order.

    Without ``executor`` a process pool of ``jobs`` processes (default: one per core) is made and shut
    down here. A task's own exception is raised here (pending tasks are cancelled); a task lost with its
    worker is run again up to ``retries`` times, then raises ``WorkerLost``. Leaving the loop early, or an
    interrupt, cancels every task not yet started; use ``contextlib.closing`` to make that happen at once.
    """
    outcomes = iter_outcomes(fn, tasks, executor=executor, jobs=jobs, retries=retries)
    with contextlib.closing(outcomes):
        for index, outcome in outcomes:
            if outcome.error is not None:
                raise outcome.error
            yield index, outcome.value


def _import_distributed() -> Any:
    from nqcsp.runtime.lazy import MissingDependency

    try:
        import distributed
    except ImportError:
        raise MissingDependency(DASK_MISSING) from None
    return distributed


# A local cluster shares this machine's cores with its tasks. Dask's statistical profiler samples every
# worker's stack every 10 ms, and its monitors poll every 100-500 ms: together 0.2 CPU s per second on an
# idle 2-worker cluster, 0.03 with these (and count(17) ran 10% slower than on the process pool).
_QUIET_LOCAL_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.tick.interval": "1s",
}


def _can_fork_workers() -> bool:
    """Whether a local cluster may fork its workers from this process: only on Linux, and only when this
    process runs no thread of its own. A thread that holds a lock at the fork (a log stream's, say) leaves
    it held forever in the child: a worker forked inside a test process whose other Dask cluster was
    logging hung in ``StreamHandler.flush`` and the cluster never started."""
    return sys.platform == "linux" and threading.active_count() == 1


@contextlib.contextmanager
def dask_executor(address: str | None = None, jobs: int | None = None,
                  warm: Callable[[], object] | None = None) -> Iterator[Executor]:
    """An Executor on the Dask scheduler at ``address``, or on a local cluster of ``jobs`` processes.

    On Linux, called from a process with no other threads, the local cluster's workers are forked from
    this process after ``warm()`` has run here, so they start with whatever it loaded: a spawned worker
    spent about 1.4 s importing numba and loading its kernels before its first task, and starting the
    cluster took 2.4 s instead of 0.8 s. Anywhere else they are spawned, and ``warm`` is not called.
    """
    distributed = _import_distributed()
    import logging

    import dask

    cluster = None
    with contextlib.ExitStack() as stack:
        if address is None:
            if _can_fork_workers() and warm is not None:
                warm()
            if _can_fork_workers():       # again: warm() may have left threads of its own running
                # Held for the cluster's life: the nanny reads it again to restart a worker that died.
                stack.enter_context(dask.config.set({"distributed.worker.multiprocessing-method": "fork"}))
            stack.enter_context(dask.config.set(_QUIET_LOCAL_CLUSTER))
            # Errors only: a cancelled task or a worker stopped on Ctrl-C is not news to the user.
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=jobs or cpu_count(), threads_per_worker=1, processes=True,
                dashboard_address=":0", silence_logs=logging.ERROR))
            address = cluster.scheduler_address
        # The client logs a lost scheduler with tracebacks on stderr; SchedulerLost says it in one line.
        stack.enter_context(_logger_level("distributed.client", logging.CRITICAL))
        try:
            client = stack.enter_context(distributed.Client(address, timeout=SCHEDULER_TIMEOUT_S))
        except OSError as exc:
            raise ValueError(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
        try:
            yield client.get_executor()
        except BaseException:
            if cluster is not None:
                _kill_local_workers(cluster)
            raise


@contextlib.contextmanager
def _logger_level(name: str, level: int) -> Iterator[None]:
    import logging

    logger = logging.getLogger(name)
    before = logger.level
    logger.setLevel(level)
    try:
        yield
    finally:
        logger.setLevel(before)


def _kill_local_workers(cluster: Any) -> None:
    """Stop our own local workers at once: a closing cluster waits seconds for a running task (a numba
    kernel does not return to Python), while a cancelled sweep or batch has no use for its result."""
    for nanny in list(getattr(cluster, "workers", {}).values()):
        with contextlib.suppress(Exception):
            os.kill(nanny.pid, signal.SIGKILL)
