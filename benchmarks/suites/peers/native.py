"""Side by side with the fastest native peers: CPU seconds of whole processes, alternated in one run.

    python -m benchmarks peers [--qs4-peer N=PATH ...] [--qs4-start auto,greedy] [--qs4-alone N ...]
                               [--qs4-queens K] [--count-peer PATH --count-n 16,17] [--repeat 3]
                               [--efficiency-n 16,17]

Each peer is a binary given by path (built outside this repository; never vendored):
- ``--qs4-peer N=PATH``: a QS4-style local search for n = N (the mengxuehu/n-queens-puzzle C++ solver
  fixes N at compile time, so one binary per size; it takes no arguments). Against it nqcsp runs
  ``nqcsp.solve(N, [(0, 3)], solver="qs4")`` in a fresh interpreter: one mandatory queen, and the answer
  verified by ``nqcsp.verify`` before ``solve`` returns, which the peer does not do. One row per
  ``--qs4-start`` (default ``auto,greedy``): ``auto`` is what a caller gets (from 2^20 on a queen that a
  composition holds is built into the start, ``nqcsp.board.construction.composed``), ``greedy`` is local
  search against local search, both from a random greedy start.
- ``--qs4-alone N``: the same nqcsp call where no peer runs (the C++ peer cannot allocate n = 10^9 in
  8 GB): wall and CPU seconds and peak RSS of the whole process, per start; ``--qs4-queens K`` gives it
  K mandatory queens, (0, 3) and K - 1 more spread over the board.
- ``--count-peer PATH``: a counter taking N as its only argument and printing the count among its output
  (Takaken's bitboard counter); against it ``nqcsp count N``, every count compared.

For each pair the two processes run one after the other, ``--repeat`` times; the CPU seconds (user + sys,
the process and its children, from ``wait4``) and peak RSS of each are recorded, and the ratios
nqcsp / peer of the best and the median runs printed.

``--efficiency-n``: the parallel efficiency of ``count`` on this machine's cores, T1 / (P x TP) from wall
seconds at 1 and at P threads (all the CPUs this process may use), alternated, best of ``--repeat``: once
for ``count(n)`` in this process with its kernels loaded (the count itself; the thread count follows the
CPU affinity, which is set for each run), once for ``nqcsp count N`` as a whole process (start-up, which
runs on one thread, included). Wall seconds on a shared machine say as much about the other load as about
nqcsp, so a third figure does not depend on it: each of the thread path's tasks is run alone and timed in
CPU seconds, and the tasks are handed in order to P workers as the thread pool does; the efficiency of
that schedule is the split's own.
"""

from __future__ import annotations

import argparse
import heapq
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

QS4_PROGRAM = ("import sys, nqcsp; n = int(sys.argv[1]); "
               "queens = [tuple(map(int, cell.split(','))) for cell in sys.argv[4].split(';')]; "
               "r = nqcsp.solve(n, queens, solver='qs4', seed=int(sys.argv[2]), start=sys.argv[3]); "
               "print(r.status.value, r.stats.get('start'), r.stats.get('kernel_s'), "
               "r.stats.get('verify_s'))")
QS4_STARTS = ("auto", "greedy", "construction")


@dataclass
class Runs:
    cpu: list[float] = field(default_factory=list)
    peak_mb: list[float] = field(default_factory=list)
    wall: list[float] = field(default_factory=list)

    def record(self, cpu: float, peak_mb: float, wall: float) -> None:
        self.cpu.append(cpu)
        self.peak_mb.append(peak_mb)
        self.wall.append(wall)

    def best(self) -> float:
        return min(self.cpu)

    def median(self) -> float:
        return sorted(self.cpu)[len(self.cpu) // 2]


def measured(command: list[str],
             preexec_fn: Callable[[], None] | None = None) -> tuple[str, float, float, float]:
    """stdout, CPU seconds (user + sys, its children included), peak RSS in MB and wall seconds of one run;
    the child is reaped with wait4 so that its own resource usage is read."""
    started = time.perf_counter()
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                          preexec_fn=preexec_fn) as process:
        assert process.stdout is not None
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if process.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited with {process.returncode}")
    return out, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, wall


def _count_of(text: str, n: int) -> int:
    """The count in a counter's output: its first integer other than n (Takaken prints ``N:TOTAL:UNIQUE``)."""
    for token in re.findall(r"\d+", text):
        if int(token) != n:
            return int(token)
    raise RuntimeError(f"no count in {text!r}")


Pair = tuple[str, list[str], list[str], object]  # label, nqcsp's command, the peer's, a check of outputs


def compare(pairs: list[Pair], repeat: int) -> list[tuple[str, Runs, Runs]]:
    table = []
    for label, ours, theirs, check in pairs:
        mine, peer = Runs(), Runs()
        for _ in range(repeat):
            for runs, command, side in ((peer, theirs, "peer"), (mine, ours, "nqcsp")):
                out, cpu, peak, wall = measured(command)
                if callable(check):
                    check(side, out)
                runs.record(cpu, peak, wall)
            print(f"  {label}: peer {peer.cpu[-1]:.2f} s, nqcsp {mine.cpu[-1]:.2f} s", file=sys.stderr,
                  flush=True)
        table.append((label, peer, mine))
    return table


def _pinned(cpus: set[int]) -> Callable[[], None]:
    return lambda: os.sched_setaffinity(0, cpus)


def split_efficiency(n: int, workers: int) -> float:
    """The efficiency of the thread path's split of count(n) on ``workers`` threads, from the CPU seconds
    of its tasks run one by one (the pool hands them out in order, each to the first idle thread)."""
    from nqcsp.bitboard.counting import run_count_task, thread_tasks

    seconds = []
    for task in thread_tasks(n):
        started = time.process_time()
        run_count_task(task)
        seconds.append(time.process_time() - started)
    finish = [0.0] * workers
    for task_seconds in seconds:
        heapq.heapreplace(finish, finish[0] + task_seconds)
    return sum(seconds) / (workers * max(finish))


def efficiency(ns: list[int], repeat: int) -> None:
    """Print the parallel efficiency of ``count`` (see the module's docstring)."""
    import nqcsp
    from nqcsp.bitboard.counting import load_kernels

    everyone = os.sched_getaffinity(0)
    one = {min(everyone)}
    cores = len(everyone)
    load_kernels()
    print(f"parallel efficiency of count on {cores} CPUs: wall seconds, best of {repeat} (alternated); "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"{'':<30} {'1 thread':>9} {f'{cores} threads':>10} {'efficiency':>10}")
    try:
        for n in ns:
            walls: dict[tuple[str, int], list[float]] = {}
            for _ in range(repeat):
                for cpus in (one, everyone):
                    os.sched_setaffinity(0, cpus)
                    started = time.perf_counter()
                    nqcsp.count(n)
                    walls.setdefault(("in process", len(cpus)), []).append(time.perf_counter() - started)
                    os.sched_setaffinity(0, everyone)
                    _, _, _, wall = measured([sys.executable, "-m", "nqcsp", "count", str(n)],
                                             preexec_fn=_pinned(cpus))
                    walls.setdefault(("whole process", len(cpus)), []).append(wall)
            for kind in ("in process", "whole process"):
                serial, parallel = min(walls[kind, 1]), min(walls[kind, cores])
                print(f"{f'count {n}, {kind}':<30} {serial:>9.3f} {parallel:>10.3f} "
                      f"{serial / (cores * parallel):>10.2f}")
            print(f"{f'count {n}, split (CPU s)':<30} {'':>9} {'':>10} {split_efficiency(n, cores):>10.2f}")
    finally:
        os.sched_setaffinity(0, everyone)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks peers", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--qs4-peer", action="append", default=[], metavar="N=PATH",
                        help="a QS4 peer binary built for n = N (repeatable)")
    parser.add_argument("--qs4-start", default="auto,greedy", metavar="START,...",
                        help="qs4's start option, a row each (default auto,greedy)")
    parser.add_argument("--qs4-alone", action="append", default=[], metavar="N",
                        help="nqcsp's qs4 call alone at n = N: wall, CPU, peak (repeatable)")
    parser.add_argument("--qs4-queens", type=int, default=1, metavar="K",
                        help="mandatory queens of the --qs4-alone call: (0, 3) and K - 1 more (default 1)")
    parser.add_argument("--count-peer", metavar="PATH", help="a counter binary taking N")
    parser.add_argument("--count-n", default="16,17", help="boards to count (default 16,17)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--efficiency-n", default="", metavar="N,...",
                        help="boards whose count's parallel efficiency to measure (wall, 1 thread vs all)")
    args = parser.parse_args(argv)
    try:
        efficiency_ns = [int(x) for x in args.efficiency_n.split(",") if x.strip()]
    except ValueError:
        parser.error(f"--efficiency-n: not a list of integers: {args.efficiency_n!r}")
    starts = [x.strip() for x in args.qs4_start.split(",") if x.strip()]
    if not starts or any(start not in QS4_STARTS for start in starts):
        parser.error(f"--qs4-start: not a list of {', '.join(QS4_STARTS)}: {args.qs4_start!r}")
    if args.qs4_queens < 1:
        parser.error(f"--qs4-queens: at least 1, got {args.qs4_queens}")
    try:
        alone = [int(float(x)) for x in args.qs4_alone]
    except ValueError:
        parser.error(f"--qs4-alone: not a board size: {args.qs4_alone!r}")
    for n in alone:
        if n < 4:
            parser.error(f"--qs4-alone: a board of at least 4, got {n}")
        try:
            qs4_queens(n, args.qs4_queens)
        except ValueError as exc:
            parser.error(str(exc))
    pairs: list[Pair] = []
    for item in args.qs4_peer:
        size, _, path = item.partition("=")
        n = int(float(size))
        if not os.access(path, os.X_OK):
            parser.error(f"--qs4-peer: not an executable: {path}")
        for start in starts:
            pairs.append((f"qs4 n={_size(n)} {start}", qs4_command(n, start), [path], qs4_check(n)))
    if args.count_peer:
        if not os.access(args.count_peer, os.X_OK):
            parser.error(f"--count-peer: not an executable: {args.count_peer}")
        for n in (int(x) for x in args.count_n.split(",")):
            counts: dict[str, int] = {}

            def count_check(side: str, out: str, n: int = n, counts: dict[str, int] = counts) -> None:
                counts[side] = int(out.split()[-1]) if side == "nqcsp" else _count_of(out, n)
                if len(set(counts.values())) > 1:
                    raise RuntimeError(f"count({n}): the counts disagree: {counts}")

            pairs.append((f"count n={n}", [sys.executable, "-m", "nqcsp", "count", str(n)],
                          [args.count_peer, str(n)], count_check))
    if not pairs and not efficiency_ns and not alone:
        parser.error("give at least one peer (--qs4-peer N=PATH or --count-peer PATH), --qs4-alone or "
                     "--efficiency-n")
    load = os.getloadavg()[0]
    try:
        table = compare(pairs, args.repeat)
        solo = [(f"qs4 n={_size(n)} {start}" + (f" {args.qs4_queens}q" if args.qs4_queens > 1 else ""),
                 alone_runs(n, start, args.repeat, args.qs4_queens))
                for n in alone for start in starts]
    except (OSError, RuntimeError) as exc:
        print(f"python -m benchmarks peers: {exc}", file=sys.stderr)
        return 1
    if table:
        print_table(table, args.repeat, load)
    if solo:
        print_alone(solo, args.repeat)
    if efficiency_ns:
        # After the peers: with nqcsp loaded here, a forked peer's peak RSS would start at this process's.
        efficiency(efficiency_ns, args.repeat)
    return 0


def _size(n: int) -> str:
    """n as 1e+09 where that is exact, else in full (2^30 printed as 1e+09 beside 10^9 itself)."""
    short = f"{n:.0e}"
    return short if float(short) == n else str(n)


def qs4_queens(n: int, count: int) -> list[tuple[int, int]]:
    """(0, 3), then ``count - 1`` more spread over the board, none attacking an earlier one; ValueError
    when the stepping finds too few (a small board), instead of stepping for ever."""
    from benchmarks.harness.instances import non_attacking_cells

    def stepped() -> Iterator[tuple[int, int]]:
        row = col = 0
        while True:
            row = (row + n // count + 7) % n
            col = (col + n // 3 + 11) % n
            yield row, col

    try:
        return non_attacking_cells(n, count, stepped(), "stepped", first=((0, 3),))
    except ValueError as exc:
        raise ValueError(f"--qs4-queens {count}: {exc}") from None


def qs4_command(n: int, start: str, queens: int = 1) -> list[str]:
    cells = ";".join(f"{row},{col}" for row, col in qs4_queens(n, queens))
    return [sys.executable, "-c", QS4_PROGRAM, str(n), "1", start, cells]


def qs4_check(n: int) -> Callable[[str, str], None]:
    def check(side: str, out: str) -> None:
        if side == "nqcsp" and not out.startswith("SAT"):
            raise RuntimeError(f"nqcsp qs4 at n = {n} did not answer SAT: {out!r}")
    return check


def alone_runs(n: int, start: str, repeat: int, queens: int = 1) -> Runs:
    runs = Runs()
    check = qs4_check(n)
    for _ in range(repeat):
        out, cpu, peak, wall = measured(qs4_command(n, start, queens))
        check("nqcsp", out)
        runs.record(cpu, peak, wall)
        print(f"  qs4 n={_size(n)} {start} alone: {wall:.2f} s wall, {out.split()[1]} start", file=sys.stderr,
              flush=True)
    return runs


def print_alone(rows: list[tuple[str, Runs]], repeat: int) -> None:
    print(f"nqcsp alone, whole processes, best and median of {repeat}; load average {os.getloadavg()[0]:.1f}")
    print(f"{'':<24} {'wall best':>9} {'median':>7} {'CPU best':>9} {'median':>7} {'peak MB':>8}")
    for label, runs in rows:
        walls = sorted(runs.wall)
        print(f"{label:<24} {walls[0]:>9.2f} {walls[len(walls) // 2]:>7.2f} {runs.best():>9.2f} "
              f"{runs.median():>7.2f} {max(runs.peak_mb):>8.0f}")


def print_table(table: list[tuple[str, Runs, Runs]], repeat: int, load: float) -> None:
    print(f"CPU seconds of whole processes (user + sys), alternated, best and median of {repeat}; "
          f"load average {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")
    print(f"{'':<24} {'peer best':>9} {'median':>7} {'nqcsp best':>10} {'median':>7} {'ratio best':>10} "
          f"{'median':>7} {'peak MB peer':>12} {'nqcsp':>6}")
    for label, peer, mine in table:
        print(f"{label:<24} {peer.best():>9.2f} {peer.median():>7.2f} "
              f"{mine.best():>10.2f} {mine.median():>7.2f} "
              f"{mine.best() / peer.best():>10.2f} {mine.median() / peer.median():>7.2f} "
              f"{max(peer.peak_mb):>12.0f} {max(mine.peak_mb):>6.0f}")


if __name__ == "__main__":
    raise SystemExit(main())
