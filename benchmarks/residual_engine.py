"""Speed of the residual engine (the ``backtrack`` backend) on completion instances (issue 12 targets).

Run from the repository root: ``PYTHONPATH=. python benchmarks/residual_engine.py [--seeds 50]
[--quick] [--time-limit 60]``. Each instance is ``random_completion(n, m, seed)`` (CSPLib prob079's
method) solved with ``nqcsp.solve(..., solver="backtrack")``: every SAT answer is verified by
``nqcsp.solve``; wall time of the whole call, compile excluded (warmed up first). Prints one markdown
table row per instance family, with the machine's load average since it may be shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from nqcsp import random_completion, solve

# (n, m, target) per family; free rows = n - m.
FAMILIES = [
    (120, 95, "median ms, max <= 1 s (shiftqueens: 3-19 ms median)"),
    (176, 146, "median ms, max <= 1 s (shiftqueens: 3-19 ms median)"),
    (171, 141, "each <= 10 s"),
    (304, 264, ">= 90% within 60 s"),
    (475, 425, "reported"),
]


def run_family(n: int, m: int, seeds: range, time_limit: float) -> dict[str, object]:
    times, sat, unsat, unknown, nodes = [], 0, 0, 0, []
    for seed in seeds:
        queens = random_completion(n, m, seed)
        started = time.perf_counter()
        result = solve(n, queens, solver="backtrack", time_limit=time_limit)
        times.append(time.perf_counter() - started)
        status = result.status.value
        sat += status == "SAT"
        unsat += status == "UNSAT"
        unknown += status == "UNKNOWN"
        nodes.append(int(result.stats.get("nodes", 0)))
    return {"n": n, "m": m, "free": n - m, "instances": len(times), "sat": sat, "unsat": unsat,
            "unknown": unknown, "median_s": statistics.median(times), "max_s": max(times),
            "median_nodes": int(statistics.median(nodes)), "max_nodes": max(nodes)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=50, help="instances per family")
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per instance")
    parser.add_argument("--quick", action="store_true", help="only the two prob079 peaks")
    parser.add_argument("--family", action="append", default=[], metavar="N,M",
                        help="run this family instead (repeatable)")
    args = parser.parse_args()

    solve(8, [(0, 0)], solver="backtrack")   # compile
    families = FAMILIES[:2] if args.quick else FAMILIES
    if args.family:
        families = [(*map(int, f.split(",")), "") for f in args.family]
    rows = []
    for n, m, target in families:
        row = run_family(n, m, range(args.seeds), args.time_limit)
        row["target"] = target
        row["load"] = os.getloadavg()[0]
        rows.append(row)
        print(row, flush=True)
    singles = [(1000, 927, 1, "well under 1 s"), (10_000, 9_950, 1, "<= 5 s")]
    for n, m, seed, target in singles:
        queens = random_completion(n, m, seed)
        started = time.perf_counter()
        result = solve(n, queens, solver="backtrack", time_limit=args.time_limit)
        wall = time.perf_counter() - started
        print(f"random_completion({n}, {m}, {seed}): {result.status} in {wall:.3f} s, "
              f"{result.stats.get('nodes')} nodes ({target})", flush=True)

    print()
    print(f"time limit {args.time_limit} s per instance; wall time of nqcsp.solve(solver='backtrack'), "
          f"compile excluded")
    print()
    print("| n | m | free | instances | SAT | UNSAT | UNKNOWN | median s | max s | median nodes | max nodes "
          "| target | load |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |")
    for r in rows:
        print(f"| {r['n']} | {r['m']} | {r['free']} | {r['instances']} | {r['sat']} | {r['unsat']} "
              f"| {r['unknown']} | {r['median_s']:.4f} | {r['max_s']:.3f} | {r['median_nodes']} "
              f"| {r['max_nodes']} | {r['target']} | {r['load']:.1f} |")


if __name__ == "__main__":
    main()
