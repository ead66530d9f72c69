"""Speed and memory of the local-search backends, one fresh subprocess per run; prints markdown tables.

    PYTHONPATH=. python benchmarks/localsearch.py            # the issue's targets (10^8 needs ~1.2 GB)
    PYTHONPATH=. python benchmarks/localsearch.py --quick    # skip 10^8 and minconflicts at 10^6

Each run: one mandatory queen at (n // 2, n // 3), seed 1, a warm-up solve at n = 1000 first (so numba's
cache load is not timed), then the timed ``nqcsp.solve`` (verification included). Peak RSS is the
child's ru_maxrss, so it covers allocation, search and verification.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

RUN = """
import json, resource, sys, time
import nqcsp
solver, n = sys.argv[1], int(sys.argv[2])
nqcsp.solve(1000, [(500, 333)], solver=solver, seed=0)
started = time.perf_counter()
result = nqcsp.solve(n, [(n // 2, n // 3)], solver=solver, seed=1)
wall = time.perf_counter() - started
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
keys = ("kernel_s", "iterations", "restarts", "initial_conflicts")
print(json.dumps({"status": str(result.status), "wall_s": wall, "rss_mb": rss,
                  **{k: result.stats[k] for k in keys}}))
"""

FIRST = """
import time
started = time.perf_counter()
import nqcsp
result = nqcsp.solve(1000, [(500, 333)], solver=SOLVER, seed=1)
print(time.perf_counter() - started)
"""

LIMIT = """
import time, nqcsp
nqcsp.solve(6, [(0, 0)], solver=SOLVER, seed=0)
for limit in (0.1, 1.0, 3.0):
    started = time.perf_counter()
    result = nqcsp.solve(6, [(0, 0)], solver=SOLVER, seed=0, time_limit=limit, max_restarts=10**15)
    print(limit, time.perf_counter() - started, result.status)
"""

TARGETS = {("qs4", 10**6): 0.15, ("qs4", 10**7): 2.5, ("qs4", 10**8): 30.0,
           ("minconflicts", 10**5): 1.0, ("minconflicts", 10**6): 10.0}


def child(code: str, *args: str) -> str:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return out.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 10^8 and minconflicts 10^6 runs")
    quick = parser.parse_args().quick
    runs = [("qs4", n) for n in (10**5, 10**6, 10**7, 10**8)]
    runs += [("minconflicts", n) for n in (10**4, 10**5, 10**6)]
    if quick:
        runs = [(s, n) for s, n in runs if n < 10**8 and not (s == "minconflicts" and n >= 10**6)]
    print("| solver | n | status | wall s | target s | kernel s | iterations | restarts | initial conflicts "
          "| peak RSS MB |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for solver, n in runs:
        row = json.loads(child(RUN, solver, str(n)))
        target = TARGETS.get((solver, n))
        print(f"| {solver} | {n:.0e} | {row['status']} | {row['wall_s']:.3f} | {target or ''} | "
              f"{row['kernel_s']:.3f} | {row['iterations']} | {row['restarts']} | "
              f"{row['initial_conflicts']} | {row['rss_mb']:.0f} |", flush=True)
    print()
    print("| solver | import + first solve at n = 1000, warm cache (s, target 1.0) |")
    print("| --- | ---: |")
    for solver in ("qs4", "minconflicts"):
        code = FIRST.replace("SOLVER", repr(solver))
        child(code)  # fills the cache if it is cold
        print(f"| {solver} | {min(float(child(code)) for _ in range(3)):.3f} |", flush=True)
    print()
    print("| solver | time_limit s | returned after s | overshoot | status (n = 6, mandatory (0, 0)) |")
    print("| --- | ---: | ---: | ---: | --- |")
    for solver in ("qs4", "minconflicts"):
        for line in child(LIMIT.replace("SOLVER", repr(solver))).splitlines():
            limit, took, status = line.split()
            over = (float(took) - float(limit)) / float(limit)
            print(f"| {solver} | {limit} | {float(took):.3f} | {over:+.1%} | {status} |", flush=True)


if __name__ == "__main__":
    started = time.perf_counter()
    main()
    print(f"\n(total {time.perf_counter() - started:.0f} s)")
