"""Per-core counting speed against a C reference, and what a whole ``nqcsp count`` process costs.

    python -m benchmarks counting [--n 16] [--repeat 5] [--cc cc]

Builds ``benchmarks/reference/count_symmetry.c`` (a classic single-threaded C counter with full symmetry)
with ``CC -O2 -march=native`` (the flags of the reference counter the issue quoted) and with ``-O3`` in a
temporary directory, then alternates, ``--repeat`` times:
- both C builds (each its own CPU time of the search);
- nqcsp's count kernels on one thread, in this process, kernels loaded beforehand (``process_time`` of
  ``run_count_task`` over ``count_tasks(n)``);
- ``nqcsp count N`` as a fresh process (user + sys CPU of the whole process: interpreter, imports, numba's
  start-up and both threads).
Every count is compared with the others; best and median CPU seconds are printed, and each best against
the faster C build.
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

REFERENCE = Path(__file__).resolve().parents[2] / "reference" / "count_symmetry.c"


def build_reference(cc: str, directory: str, level: str = "-O3") -> str:
    binary = os.path.join(directory, f"count_symmetry{level}")
    subprocess.run([cc, level, "-march=native", "-o", binary, str(REFERENCE)], check=True)
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
    parser = argparse.ArgumentParser(prog="python -m benchmarks counting", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=16)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    args = parser.parse_args(argv)
    from nqcsp.bitboard.counting import load_kernels

    load_kernels()
    with tempfile.TemporaryDirectory() as directory:
        try:
            builds = {level: build_reference(args.cc, directory, level) for level in ("-O2", "-O3")}
        except (OSError, subprocess.CalledProcessError) as exc:
            print(f"cannot build the C reference with {args.cc!r}: {exc}", file=sys.stderr)
            return 1
        measures = {f"C reference {level} -march=native": (lambda binary=binary: c_seconds(binary, args.n))
                    for level, binary in builds.items()}
        measures["nqcsp kernels, one thread"] = lambda: kernel_seconds(args.n)
        measures["nqcsp count N, whole process"] = lambda: process_seconds(args.n)
        seconds: dict[str, list[float]] = {name: [] for name in measures}
        for _ in range(args.repeat):
            totals = set()
            for name, measure in measures.items():
                total, cpu = measure()
                totals.add(total)
                seconds[name].append(cpu)
            assert len(totals) == 1, f"the counts disagree: {sorted(totals)}"
    print(f"count({args.n}) = {totals.pop()}: CPU seconds, best and median of {args.repeat} (alternated)")
    reference = min(min(runs) for name, runs in seconds.items() if name.startswith("C "))
    print(f"{'':<32} {'best':>7} {'median':>7} {'best / faster C':>16}")
    for name, runs in seconds.items():
        runs.sort()
        print(f"{name:<32} {runs[0]:>7.3f} {runs[len(runs) // 2]:>7.3f} {runs[0] / reference:>16.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
