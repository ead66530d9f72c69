"""First-solution time of the cpsat backend with a mandatory queen at (0, n // 3), per configuration.

Every run is a fresh subprocess (no warm caches, a hard timeout) timing ``nqcsp.solve`` end to end:
model building, CP-SAT and verification. A configuration that fails at some n is not tried at larger n.
Prints a markdown table (best of --repeat runs; branches and conflicts are CP-SAT's, from the best run).

    PYTHONPATH=. python benchmarks/cpsat.py [--sizes 200 500 1000] [--repeat 3] [--timeout 60]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

# CP-SAT's own defaults, for comparison with the tuned ones this backend uses.
STOCK = {"presolve": True, "symmetry_level": 2, "inprocessing": True, "linearization_level": 1}
# Neither hint nor AllDifferent expansion: the rows below switch them on one at a time.
PLAIN = {"hint": None, "expand_alldiff": False}

CONFIGS: list[tuple[str, dict]] = [
    ("alldiff, CP-SAT stock settings", {"model": "alldiff", **STOCK, **PLAIN}),
    ("alldiff, stock + expand_alldiff", {"model": "alldiff", **STOCK, **PLAIN, "expand_alldiff": True}),
    ("alldiff, stock + min-domain/median fixed search",
     {"model": "alldiff", **STOCK, **PLAIN, "search": "min-domain-median"}),
    ("alldiff, tuned", {"model": "alldiff", **PLAIN}),
    ("alldiff, tuned + expand_alldiff", {"model": "alldiff", **PLAIN, "expand_alldiff": True}),
    ("alldiff, tuned + min-domain/median fixed search",
     {"model": "alldiff", **PLAIN, "search": "min-domain-median"}),
    ("alldiff, tuned + construct hint", {"model": "alldiff", **PLAIN, "hint": "construct"}),
    ("alldiff, tuned + expand + construct hint (backend default)", {"model": "alldiff"}),
    ("boolean, CP-SAT stock settings", {"model": "boolean", **STOCK, **PLAIN}),
    ("boolean, tuned", {"model": "boolean", **PLAIN}),
    ("boolean, tuned, 2 workers", {"model": "boolean", **PLAIN, "workers": 2}),
    ("boolean, tuned + construct hint (auto's choice)", {"model": "boolean"}),
]

WORKER = """
import json, sys
import nqcsp
n, options, limit = int(sys.argv[1]), json.loads(sys.argv[2]), float(sys.argv[3])
result = nqcsp.solve(n, [(0, n // 3)], solver="cpsat", time_limit=limit, seed=1, **options)
stats = result.stats
print(json.dumps({"status": str(result.status), "wall_s": stats["wall_s"], "build_s": stats["build_s"],
                  "branches": stats["branches"], "conflicts": stats["conflicts"]}))
"""


def run_once(n: int, options: dict, timeout: float) -> dict:
    started = time.perf_counter()
    try:
        done = subprocess.run([sys.executable, "-c", WORKER, str(n), json.dumps(options), str(timeout)],
                              capture_output=True, text=True, timeout=timeout + 30, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "TIMEOUT", "wall_s": time.perf_counter() - started}
    if done.returncode != 0:
        return {"status": "ERROR", "wall_s": time.perf_counter() - started,
                "error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[200, 500, 1000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=60.0, help="CP-SAT time limit per run, seconds")
    parser.add_argument("--only", nargs="*", default=None, help="substrings of configuration names to run")
    args = parser.parse_args()
    configs = [c for c in CONFIGS if args.only is None or any(s in c[0] for s in args.only)]
    print(f"mandatory queen at (0, n // 3); best of {args.repeat}; CP-SAT time limit {args.timeout:g} s; "
          "seconds are nqcsp.solve wall time including model building and verification\n")
    print("| configuration | options | n | status | wall s | build s | branches | conflicts |")
    print("| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |")
    for name, options in configs:
        for n in sorted(args.sizes):
            runs = [run_once(n, options, args.timeout) for _ in range(args.repeat)]
            solved = [r for r in runs if r["status"] == "SAT"]
            best = min(solved or runs, key=lambda r: r["wall_s"])
            cells = [name, f"`{json.dumps(options)}`", str(n), best["status"], f"{best['wall_s']:.2f}",
                     f"{best.get('build_s', float('nan')):.2f}", str(best.get("branches", "")),
                     str(best.get("conflicts", ""))]
            print("| " + " | ".join(cells) + " |", flush=True)
            if not solved:
                break


if __name__ == "__main__":
    main()
