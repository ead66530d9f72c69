"""Benchmark of the `sat` backend: encoding x SAT solver x n, clause loading, and proof mode.

    PYTHONPATH=. python benchmarks/sat.py [--max-n 1000] [--timeout 30] [--repeat 1]

Search runs: one mandatory queen at (0, n // 3); each configuration runs in its own subprocess with a time
limit (a configuration that fails or times out is not tried at larger n). Times are the backend's own:
encode (clause generation), load (into the solver), solve; total is all three, as `nqcsp.solve` reports
it (every SAT answer is verified). Clausal encodings stop at n = 400: at n = 1000 they have 10^7 clauses,
several GB as Python lists.

Proof mode: every cell of every n <= 12 is classified; each blocked cell (a single mandatory queen with no
solution) is proven UNSAT with a DRAT proof that dratify checks, per proof solver x encoding.
"""

from __future__ import annotations

import argparse
import gc
import json
import subprocess
import sys
import time

SEARCH_CONFIGS = [
    # (encoding, sat_solver, hint)
    ("native", "minicard", True),
    ("native", "minicard", False),
    ("native", "gluecard3", True),
    ("native", "gluecard4", True),
    ("seqcounter", "cadical195", True),
    ("seqcounter", "cadical195", False),
    ("seqcounter", "glucose4", True),
    ("seqcounter", "minisat22", True),
    ("seqcounter", "maplechrono", True),
    ("seqcounter", "kissat404", False),
    ("commander", "cadical195", True),
    ("commander", "minisat22", True),
    ("commander", "minisat22", False),
    ("pairwise", "cadical195", True),
    ("cardenc-seqcounter", "cadical195", True),
    ("cardenc-ladder", "cadical195", True),
    ("cardenc-bitwise", "cadical195", True),
    ("cardenc-totalizer", "cadical195", True),
    ("cardenc-kmtotalizer", "cadical195", True),
]
SIZES = (50, 100, 200, 400, 1000)
MAX_CLAUSAL_N = 400
MAX_PAIRWISE_N = 100
PROOF_SOLVERS = ("cadical195", "cadical153", "glucose4", "glucose3", "lingeling", "maplechrono", "gluecard4")
PROOF_ENCODINGS = ("seqcounter", "commander", "pairwise", "cardenc-totalizer", "cardenc-ladder")


def run_one(n: int, encoding: str, sat_solver: str, hint: bool) -> dict:
    from nqcsp import solve

    result = solve(n, [(0, n // 3)], solver="sat", encoding=encoding, sat_solver=sat_solver, hint=hint,
                   proof=False, seed=0)
    keys = ("encode_s", "load_s", "solve_s", "cnf_clauses", "conflicts", "hint_tries")
    return {"status": result.status.value, "wall_s": result.stats["wall_s"],
            **{k: result.stats.get(k) for k in keys}}


def run_isolated(n: int, encoding: str, sat_solver: str, hint: bool, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--one", str(n), encoding, sat_solver, str(int(hint))]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": f"> {timeout:g} s"}
    if out.returncode != 0:
        last = (out.stderr.strip().splitlines() or ["failed"])[-1]
        return {"status": f"error: {last[:60]}"}
    return json.loads(out.stdout)


def search_table(max_n: int, timeout: float, repeat: int) -> list[str]:
    lines = ["| encoding | solver | hint | n | clauses | encode s | load s | solve s | total s | conflicts |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for encoding, sat_solver, hint in SEARCH_CONFIGS:
        limit = MAX_PAIRWISE_N if encoding == "pairwise" else max_n if encoding == "native" else MAX_CLAUSAL_N
        for n in (size for size in SIZES if size <= min(limit, max_n)):
            runs = [run_isolated(n, encoding, sat_solver, hint, timeout) for _ in range(repeat)]
            best = min(runs, key=lambda r: r.get("wall_s", float("inf")))
            prefix = f"| {encoding} | {sat_solver} | {'yes' if hint else 'no'} | {n} |"
            if best["status"] != "SAT":
                lines.append(f"{prefix} | | | | {best['status']} | |")
                print(lines[-1], flush=True)
                break
            lines.append(f"{prefix} {best['cnf_clauses']} | {best['encode_s']:.3f} | {best['load_s']:.3f} | "
                         f"{best['solve_s']:.3f} | {best['wall_s']:.3f} | {best.get('conflicts', '')} |")
            print(lines[-1], flush=True)
    return lines


def loading_table(n: int = 200) -> list[str]:
    """Ways to hand clauses to PySAT, in microseconds per clause (seqcounter CNF, cadical195/glucose4)."""
    from pysat.solvers import Solver

    from nqcsp.cnf import encode
    from nqcsp.problem import Problem

    formula = encode(Problem(n, [(0, n // 3)]), "seqcounter")
    lines = [f"Loading the seqcounter CNF of n = {n} ({formula.num_clauses} clauses), "
             "microseconds per clause:",
             "", "| method | gc | cadical195 | glucose4 |", "| --- | --- | ---: | ---: |"]

    def to_lists():
        return formula.clauses()

    def add_loop(name, clauses):
        solver = Solver(name=name)
        for clause in clauses:
            solver.add_clause(clause)
        return solver

    def append(name, clauses):
        solver = Solver(name=name)
        solver.append_formula(clauses)
        return solver

    def bootstrap(name, clauses):
        return Solver(name=name, bootstrap_with=clauses)

    for label, method in (("numpy to lists", None), ("add_clause loop", add_loop),
                          ("append_formula", append), ("bootstrap_with", bootstrap)):
        for gc_on in (True, False):
            cells = []
            for name in ("cadical195", "glucose4"):
                clauses = to_lists()
                if not gc_on:
                    gc.disable()
                started = time.perf_counter()
                if method is None:
                    to_lists()
                else:
                    method(name, clauses).delete()
                cells.append(f"{(time.perf_counter() - started) / formula.num_clauses * 1e6:.2f}")
                gc.enable()
            lines.append(f"| {label} | {'on' if gc_on else 'off'} | {' | '.join(cells)} |")
    return lines


def unsat_three_queens(n: int, limit: int) -> list[list[tuple[int, int]]]:
    """Queens on the first three rows that attack nothing yet leave no solution: harder proofs."""
    from nqcsp import Problem, Status
    from nqcsp.solvers.sat import SatSolver

    found = []
    for a in range(n):
        for b in range(n):
            for c in range(n):
                queens = [(0, a), (1, b), (2, c)]
                problem = Problem(n, queens)
                if problem.attack is None and \
                        SatSolver().solve(problem, proof=False).status is Status.UNKNOWN:
                    found.append(queens)
                    if len(found) == limit:
                        return found
    return found


def proof_table(title: str, instances: list) -> list[str]:
    from nqcsp import Status, solve

    lines = [title, "", "| proof solver | " + " | ".join(PROOF_ENCODINGS) + " |",
             "| --- |" + " ---: |" * len(PROOF_ENCODINGS)]
    for sat_solver in PROOF_SOLVERS:
        cells = []
        for encoding in PROOF_ENCODINGS:
            t0 = time.perf_counter()
            ok = all(solve(n, queens, solver="sat", proof=True, sat_solver=sat_solver, encoding=encoding)
                     .status is Status.UNSAT for n, queens in instances)
            cells.append(f"{time.perf_counter() - t0:.2f}" if ok else "FAILED")
        lines.append(f"| {sat_solver} | {' | '.join(cells)} |")
        print(lines[-1], flush=True)
    return lines


def proof_section() -> list[str]:
    from nqcsp import Problem, Status, solve
    from nqcsp.solvers.sat import SatSolver

    started = time.perf_counter()
    blocked = []
    for n in range(1, 13):
        for cell in ((r, c) for r in range(n) for c in range(n)):
            if SatSolver().solve(Problem(n, [cell]), proof=False).status is Status.UNKNOWN:
                blocked.append((n, [cell]))
    classify_s = time.perf_counter() - started
    by_n: dict[int, int] = {}
    for n, _ in blocked:
        by_n[n] = by_n.get(n, 0) + 1
    lines = [f"Blocked cells for n <= 12 (classified by the minicard search, {classify_s:.2f} s): "
             f"{len(blocked)} ({', '.join(f'n={n}: {k}' for n, k in by_n.items())}).", ""]
    lines += proof_table("Proving and checking all of them (proof=True), seconds (solve + dratify check):",
                         blocked)
    three = [(n, queens) for n in (8, 10, 12) for queens in unsat_three_queens(n, 20)]
    lines += ["", *proof_table(f"Harder: {len(three)} non-attacking triples on rows 0-2 that leave no "
                               f"solution (up to 20 each for n = 8, 10, 12), seconds:", three)]
    for proof in ("auto", True):
        t0 = time.perf_counter()
        statuses = [solve(n, [(r, c)], solver="sat", proof=proof).status
                    for n in range(1, 13) for r in range(n) for c in range(n)]
        unsat = sum(s is Status.UNSAT for s in statuses)
        sat = sum(s is Status.SAT for s in statuses)
        lines.append("")
        lines.append(f"Every cell of n <= 12 with the defaults and proof={proof!r}: {sat} SAT (verified), "
                     f"{unsat} UNSAT (DRAT checked), {len(statuses) - sat - unsat} other, "
                     f"{time.perf_counter() - t0:.2f} s in total.")
        print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=4, metavar=("N", "ENCODING", "SOLVER", "HINT"), help=argparse.SUPPRESS)
    parser.add_argument("--max-n", type=int, default=max(SIZES))
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per run (default 30)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per cell, best kept (default 1)")
    parser.add_argument("--proof-only", action="store_true", help="only the proof-mode section")
    args = parser.parse_args()
    if args.one:
        n, encoding, sat_solver, hint = args.one
        print(json.dumps(run_one(int(n), encoding, sat_solver, hint == "1")))
        return
    import pysat

    from nqcsp.drat import checker_version

    out = ["# sat backend benchmark", "",
           f"python-sat {pysat.__version__}, dratify {checker_version()}; "
           f"`PYTHONPATH=. python benchmarks/sat.py --max-n {args.max_n} --timeout {args.timeout:g} "
           f"--repeat {args.repeat}`", "",
           "## Search: one mandatory queen at (0, n // 3)", ""]
    if not args.proof_only:
        out += search_table(args.max_n, args.timeout, args.repeat)
        out += ["", "## Loading clauses into PySAT", ""] + loading_table()
    out += ["", "## Proof mode", ""] + proof_section()
    print("\n".join(out))


if __name__ == "__main__":
    main()
