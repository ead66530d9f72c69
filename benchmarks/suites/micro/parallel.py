"""The Executor seam's own costs, and what a blockade sweep would take on a cluster.

    python -m benchmarks parallel overhead [--tasks 1000] [--jobs 2]
        1,000 trivial tasks through nqcsp.runtime.parallel.run_tasks on the process pool and on a local Dask
        cluster of as many worker processes; start-up and per-run times printed separately.
    python -m benchmarks parallel count [--n 17] [--jobs 2] [--repeat 3]
        count(n) on the process pool and on a local Dask cluster: end to end (``nqcsp count N --jobs J`` and
        ``--dask --jobs J`` as fresh processes, alternated, start-up included) and on executors already
        started and warmed (best of ``--repeat``).
    python -m benchmarks parallel tasks [--n 17] [--workers 2 16 64]
        count_tasks(n) run one by one here: how many, their CPU seconds (min, median, max) and the wall time
        they project onto W workers in the order given (largest estimate first).
    python -m benchmarks parallel project TABLE [--workers 64]
        From a ``nqcsp blockades`` text table (its per-board worker seconds), the sweep's tasks as
        ``nqcsp.studies.blockades.plan_tasks`` makes them, scheduled largest first on W workers: the projected
        wall time, next to the total CPU time and the longest task (the floor no cluster can beat).
"""

from __future__ import annotations

import argparse
import heapq
import time
from collections.abc import Sequence


def trivial(x: int) -> int:
    return x + 1


def _timed_run(executor: object, tasks: int) -> float:
    from nqcsp.runtime.parallel import run_tasks

    started = time.perf_counter()
    results = dict(run_tasks(trivial, [(i,) for i in range(tasks)], executor=executor))  # type: ignore
    elapsed = time.perf_counter() - started
    assert results == {i: i + 1 for i in range(tasks)}
    return elapsed


def overhead(tasks: int, jobs: int) -> None:
    from nqcsp.runtime.parallel import ProcessPool, dask_executor

    started = time.perf_counter()
    pool = ProcessPool(jobs)
    _timed_run(pool, jobs)                      # start the workers
    pool_start = time.perf_counter() - started
    pool_runs = [_timed_run(pool, tasks) for _ in range(3)]
    pool.shutdown()
    started = time.perf_counter()
    with dask_executor(None, jobs) as executor:
        _timed_run(executor, jobs)
        dask_start = time.perf_counter() - started
        dask_runs = [_timed_run(executor, tasks) for _ in range(3)]
    print(f"{tasks} trivial tasks on {jobs} workers (best of 3; start-up = first tasks on fresh workers)")
    print(f"{'executor':<22} {'start-up s':>10} {'run s':>8} {'per task ms':>12}")
    for name, start, runs in (("process pool", pool_start, pool_runs),
                              ("dask LocalCluster", dask_start, dask_runs)):
        print(f"{name:<22} {start:>10.2f} {min(runs):>8.2f} {1000 * min(runs) / tasks:>12.2f}")
    print(f"dask extra: {min(dask_runs) - min(pool_runs):+.2f} s per run, "
          f"{dask_start + min(dask_runs) - pool_start - min(pool_runs):+.2f} s including start-up")


def _cli_seconds(argv: list[str], expected: int) -> float:
    import subprocess
    import sys

    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "nqcsp", *argv], capture_output=True, text=True, check=True)
    elapsed = time.perf_counter() - started
    assert int(out.stdout.split()[-1]) == expected, out.stdout
    return elapsed


def count_speed(n: int, jobs: int, repeat: int) -> None:
    from nqcsp.bitboard import count
    from nqcsp.bitboard.counting import load_kernels
    from nqcsp.runtime.parallel import ProcessPool, dask_executor

    expected = count(n)
    pool_cli, dask_cli = [], []
    for _ in range(repeat):
        pool_cli.append(_cli_seconds(["count", str(n), "--jobs", str(jobs)], expected))
        dask_cli.append(_cli_seconds(["count", str(n), "--dask", "--jobs", str(jobs)], expected))
    pool = ProcessPool(jobs)
    assert count(12, executor=pool) == count(12)                  # the workers start and load the kernels
    pool_warm = []
    for _ in range(repeat):
        started = time.perf_counter()
        assert count(n, executor=pool) == expected
        pool_warm.append(time.perf_counter() - started)
    pool.shutdown()
    dask_warm = []
    with dask_executor(None, jobs, warm=load_kernels) as executor:
        assert count(12, executor=executor) == count(12)
        for _ in range(repeat):
            started = time.perf_counter()
            assert count(n, executor=executor) == expected
            dask_warm.append(time.perf_counter() - started)
    print(f"count({n}) = {expected} on {jobs} workers, best and median of {repeat}")
    print(f"{'':<34} {'pool s':>8} {'dask s':>8} {'dask/pool':>10}")
    for name, pool_s, dask_s in (("end to end (CLI, start-up incl.)", pool_cli, dask_cli),
                                 ("warm executors", pool_warm, dask_warm)):
        for which, pick in (("best", min), ("median", lambda xs: sorted(xs)[len(xs) // 2])):
            print(f"{name + ', ' + which:<34} {pick(pool_s):>8.2f} {pick(dask_s):>8.2f} "
                  f"{pick(dask_s) / pick(pool_s) - 1:>+10.1%}")


def count_task_sizes(n: int, workers: Sequence[int]) -> None:
    from nqcsp.bitboard import count, count_tasks, run_count_task

    count(8)                                                   # kernels loaded outside the timings
    started = time.perf_counter()
    tasks = count_tasks(n)
    made = time.perf_counter() - started
    seconds, total = [], 0
    for task in tasks:
        began = time.process_time()
        total += run_count_task(task)[0]
        seconds.append(time.process_time() - began)
    ordered = sorted(seconds)
    print(f"count({n}) = {total}: {len(tasks)} tasks made in {made:.2f} s; CPU s per task: "
          f"min {ordered[0]:.3f}, median {ordered[len(ordered) // 2]:.3f}, max {ordered[-1]:.3f}, "
          f"total {sum(seconds):.1f}")
    for count_of in workers:
        projected, ideal = makespan(seconds, count_of, in_order=True), sum(seconds) / count_of
        print(f"projected on {count_of:>3} workers: {projected:7.2f} s (ideal {ideal:7.2f} s)")


def read_table(path: str) -> dict[int, float]:
    seconds = {}
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            fields = line.split()
            if len(fields) >= 4 and fields[0].isdigit():
                seconds[int(fields[0])] = float(fields[3])
    return seconds


def makespan(durations: Sequence[float], workers: int, *, in_order: bool = False) -> float:
    """Each task onto the least loaded worker: largest first, as the blockade sweep submits them, or
    ``in_order`` as given (count tasks come ordered by their estimate, not by the time they took)."""
    loads = [0.0] * workers
    for duration in (durations if in_order else sorted(durations, reverse=True)):
        heapq.heapreplace(loads, loads[0] + duration)
    return max(loads)


def project(path: str, workers: Sequence[int]) -> None:
    from nqcsp.studies.blockades import plan_tasks

    seconds = read_table(path)
    tasks = [sum(seconds[n] for n in task) for task in plan_tasks(seconds)]
    total = sum(tasks)
    print(f"{len(seconds)} boards (n = {min(seconds)}..{max(seconds)}) in {len(tasks)} tasks; "
          f"worker time {total:.0f} s; longest task {max(tasks):.2f} s; "
          f"median task {sorted(tasks)[len(tasks) // 2]:.2f} s")
    for count in workers:
        print(f"projected on {count:>3} workers: {makespan(tasks, count):8.1f} s")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks parallel", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="what", required=True, metavar="COMMAND")
    over = sub.add_parser("overhead", help="1,000 trivial tasks on the process pool and on Dask")
    over.add_argument("--tasks", type=int, default=1000)
    over.add_argument("--jobs", type=int, default=2)
    speed = sub.add_parser("count", help="count(n) end to end and on warmed executors")
    speed.add_argument("--n", type=int, default=17)
    speed.add_argument("--jobs", type=int, default=2)
    speed.add_argument("--repeat", type=int, default=3)
    sizes = sub.add_parser("tasks", help="count_tasks(n) one by one, projected onto W workers")
    sizes.add_argument("--n", type=int, default=17)
    sizes.add_argument("--workers", type=int, nargs="+", default=[2, 16, 64])
    proj = sub.add_parser("project", help="a blockade sweep's wall time on W workers, from its table")
    proj.add_argument("table")
    proj.add_argument("--workers", type=int, nargs="+", default=[2, 16, 64])
    args = parser.parse_args(argv)
    if args.what == "overhead":
        overhead(args.tasks, args.jobs)
    elif args.what == "tasks":
        count_task_sizes(args.n, args.workers)
    elif args.what == "count":
        count_speed(args.n, args.jobs, args.repeat)
    else:
        project(args.table, args.workers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
