"""Per-core counting speed against a C reference, and what a whole ``nqcsp count`` process costs.

    python -m benchmarks.counting [--n 16] [--repeat 5] [--cc cc]

Builds ``benchmarks/reference/count_symmetry.c`` (a classic single-threaded C counter with full symmetry)
with ``CC -O3 -march=native`` in a temporary directory, then alternates, ``--repeat`` times:
- the C counter (its own CPU time of the search);
- nqcsp's count kernels on one thread, in this process, kernels loaded beforehand (``process_time`` of
  ``run_count_task`` over ``count_tasks(n)``);
- ``nqcsp count N`` as a fresh process (user + sys CPU of the whole process: interpreter, imports, numba's
  start-up and both threads).
Every count is compared with the others; best and median CPU seconds are printed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

REFERENCE = Path(__file__).resolve().parent / "reference" / "count_symmetry.c"


def build_reference(cc: str, directory: str) -> str:
    binary = os.path.join(directory, "count_symmetry")
    subprocess.run([cc, "-O3", "-march=native", "-o", binary, str(REFERENCE)], check=True)
    return binary


def c_seconds(binary: str, n: int) -> tuple[int, float]:
    out = subprocess.run([binary, str(n)], capture_output=True, text=True, check=True).stdout.split()
    return int(out[1]), float(out[3])


def kernel_seconds(n: int) -> tuple[int, float]:
    from nqcsp.bitboard import count_tasks, run_count_task

    tasks = count_tasks(n)
    started = time.process_time()
    total = sum(run_count_task(task)[0] for task in tasks)
    return total, time.process_time() - started


def process_seconds(n: int) -> tuple[int, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, "-m", "nqcsp", "count", str(n)], capture_output=True, text=True,
                         check=True).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return int(out.split()[-1]), (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.counting", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = parser.parse_args(argv)
    from nqcsp.bitboard.counting import load_kernels

    load_kernels()
    seconds: dict[str, list[float]] = {"C reference": [], "nqcsp kernels, one thread": [],
                                       "nqcsp count N, whole process": []}
    with tempfile.TemporaryDirectory() as directory:
        try:
            binary = build_reference(args.cc, directory)
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"cannot build the C reference with {args.cc!r}: {exc}", file=sys.stderr)
            return 1
        for _ in range(args.repeat):
            totals = set()
            for name, measure in zip(seconds, (lambda: c_seconds(binary, args.n),
                                              lambda: kernel_seconds(args.n),
                                              lambda: process_seconds(args.n)), strict=True):
                total, cpu = measure()
                totals.add(total)
                seconds[name].append(cpu)
            assert len(totals) == 1, f"the counts disagree: {sorted(totals)}"
    print(f"count({args.n}) = {totals.pop()}: CPU seconds, best and median of {args.repeat} (alternated)")
    reference = min(seconds["C reference"])
    print(f"{'':<30} {'best':>7} {'median':>7} {'best / C':>9}")
    for name, runs in seconds.items():
        runs.sort()
        print(f"{name:<30} {runs[0]:>7.3f} {runs[len(runs) // 2]:>7.3f} {runs[0] / reference:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
