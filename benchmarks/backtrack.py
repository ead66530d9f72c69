"""Speed of the bitboard search: count(16), count(17), enumerating n = 12, first solutions.

Run from the repository root: ``PYTHONPATH=. python benchmarks/backtrack.py [--repeat 3] [--quick]``.
Compilation is excluded (every kernel is warmed up first). Each figure is the best of ``--repeat`` runs,
wall clock and the process CPU time of that run (both cores count), and the load average is printed with
it, since the machine may be shared. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from nqcsp import count, solutions, solve
from nqcsp.counting import _workers

A000170 = {12: 14200, 14: 365596, 15: 2279184, 16: 14772512, 17: 95815104}


def best_of(repeat: int, run: Callable[[], object]) -> tuple[float, float, object]:
    best = (float("inf"), 0.0, None)
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        value = run()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if wall < best[0]:
            best = (wall, cpu, value)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip count(17)")
    args = parser.parse_args()

    count(10), count(10, symmetry=False), list(solutions(8)), solve(8, solver="backtrack")  # compile
    rows = []

    def row(task: str, target: str, run: Callable[[], object], check: Callable[[object], bool]) -> None:
        wall, cpu, value = best_of(args.repeat, run)
        load = os.getloadavg()[0]
        rows.append((task, f"{wall:.3f}", f"{cpu:.3f}", target, "yes" if check(value) else "WRONG",
                     f"{load:.1f}"))
        print(f"{task}: {wall:.3f} s wall, {cpu:.3f} s cpu (load {load:.1f})", flush=True)

    for n in (14, 15, 16) + (() if args.quick else (17,)):
        target = {16: "<= 0.9 s", 17: "<= 6 s"}.get(n, "")
        row(f"count({n})", target, lambda n=n: count(n), lambda v, n=n: v == A000170[n])
    row("count(14, symmetry=False)", "", lambda: count(14, symmetry=False), lambda v: v == A000170[14])
    row("list(solutions(12))", "<= 0.5 s", lambda: list(solutions(12)),
        lambda v: len(v) == A000170[12] == len(set(v)))
    for n in (20, 25, 30, 40, 64):
        row(f"solve({n}, backtrack)", "", lambda n=n: solve(n, solver="backtrack"),
            lambda r: r.status.value == "SAT")

    print()
    print(f"best of {args.repeat}; {_workers()} worker threads; compile excluded; cpu = process CPU time")
    print()
    print("| task | wall s | cpu s | target | correct | load avg |")
    print("| --- | ---: | ---: | --- | --- | ---: |")
    for cells in rows:
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
