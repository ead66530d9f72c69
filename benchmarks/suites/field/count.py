"""Counting compared: nqcsp's bitboard ``count`` against Ganak, an exact #SAT model counter (pyganak), on
the reference CNF, and against CP-SAT enumerating every solution of the AllDifferent model.

    python -m benchmarks field-count [--sizes 6-12] [--limit 60] [--beyond 20] [--publish]

For each n of ``--sizes``, on the empty board and with two mandatory queens at (0, 1) and (2, n - 2), each
counter runs in a process of its own, killed after ``--limit`` seconds; the counts must agree with each
other (and with OEIS A000170 on the empty board): a disagreement is a failure (exit 1). Then each counter
goes on past the sizes, one n at a time up to ``--beyond``, until a count takes longer than the limit:
the largest n each counts within the limit. ``--publish`` writes the table to
``benchmarks/results/field-count.md``; it is printed either way.

- **bitboard**: ``nqcsp.count(n, queens)``, the numba kernels with symmetry, all threads of the process;
- **ganak**: the reference CNF of the residual board (``nqcsp.proof.statement``: a variable per allowed
  cell, exactly one queen per free row and column, at most one per diagonal), whose models are exactly the
  solutions, counted by Ganak (Arjun preprocessing, then Ganak) through pyganak;
- **cpsat**: OR-Tools CP-SAT with ``enumerate_all_solutions`` on AllDifferent of q, q + r, q - r with the
  mandatory queens fixed, one worker, each solution counted in a callback.

Seconds are the child's wall time for the count alone (imports and building the formula or model not
included), as the child measures it.
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from collections.abc import Sequence

from benchmarks.harness.instances import A000170
from benchmarks.harness.runner import PUBLISHED_DIR, ROOT, machine, worker_env

COUNTERS = ("bitboard", "ganak", "cpsat")


def mandatory(n: int, variant: str) -> list[tuple[int, int]]:
    return [] if variant == "empty" else [(0, 1), (2, n - 2)]


def count_bitboard(n: int, queens: list[tuple[int, int]]) -> tuple[int, float]:
    import nqcsp

    nqcsp.count(4)  # the kernels load before the clock starts
    started = time.perf_counter()
    return nqcsp.count(n, queens), time.perf_counter() - started


def count_ganak(n: int, queens: list[tuple[int, int]]) -> tuple[int, float]:
    from pyganak import Counter

    from nqcsp.board.problem import Problem
    from nqcsp.proof.statement import reference_cnf

    statement = reference_cnf(Problem(n, queens))
    counter = Counter()
    counter.new_vars(statement.num_vars)
    counter.add_clauses([list(clause) for clause in statement.clauses])
    started = time.perf_counter()
    return int(counter.count()), time.perf_counter() - started


def count_cpsat(n: int, queens: list[tuple[int, int]]) -> tuple[int, float]:
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    q = [model.new_int_var(0, n - 1, f"q{r}") for r in range(n)]
    model.add_all_different(q)
    model.add_all_different([q[r] + r for r in range(n)])
    model.add_all_different([q[r] - r for r in range(n)])
    for r, c in queens:
        model.add(q[r] == c)

    class Tally(cp_model.CpSolverSolutionCallback):
        def __init__(self) -> None:
            super().__init__()
            self.solutions = 0

        def on_solution_callback(self) -> None:
            self.solutions += 1

    solver = cp_model.CpSolver()
    solver.parameters.enumerate_all_solutions = True
    solver.parameters.num_workers = 1
    tally = Tally()
    started = time.perf_counter()
    status = solver.solve(model, tally)
    seconds = time.perf_counter() - started
    if status not in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
        raise RuntimeError(f"CP-SAT did not finish the enumeration: {solver.status_name(status)}")
    return tally.solutions, seconds


def one(counter: str, n: int, variant: str) -> int:
    """The child: count one board and print ``{"count": ..., "seconds": ...}``."""
    how = {"bitboard": count_bitboard, "ganak": count_ganak, "cpsat": count_cpsat}[counter]
    total, seconds = how(n, mandatory(n, variant))
    print(json.dumps({"count": total, "seconds": seconds}))
    return 0


def measure(counter: str, n: int, variant: str, limit: float) -> tuple[int | None, float | None]:
    """Count and seconds from a child process; (None, None) when it ran past ``limit`` and was killed."""
    command = [sys.executable, "-m", "benchmarks.suites.field.count", "--one", counter, str(n), variant]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit + 30, env=worker_env(),
                              cwd=str(ROOT), check=True)
    except subprocess.TimeoutExpired:
        return None, None
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    if answer["seconds"] > limit:
        return None, None
    return int(answer["count"]), float(answer["seconds"])


def run(sizes: list[int], limit: float, beyond: int) -> tuple[str, bool]:
    rows = []
    agree = True
    for variant in ("empty", "queens"):
        for n in sizes:
            counts = {c: measure(c, n, variant, limit) for c in COUNTERS}
            values = {v for v, _ in counts.values() if v is not None}
            if variant == "empty":
                values.add(A000170[n])
            same = len(values) == 1
            agree &= same
            rows.append((variant, n, counts, same))
    reach: dict[tuple[str, str], int | None] = {}
    for variant in ("empty", "queens"):
        for counter in COUNTERS:
            last = max((n for v, n, counts, _ in rows if v == variant and counts[counter][0] is not None),
                       default=None)
            n = (last or max(sizes)) + 1
            while last == n - 1 and n <= beyond:
                value, _ = measure(counter, n, variant, limit)
                if value is None:
                    break
                if variant == "empty" and n in A000170 and value != A000170[n]:
                    agree = False
                last = n
                n += 1
            reach[(variant, counter)] = last
    return table(rows, reach, sizes, limit, beyond, agree), agree


def table(rows: list, reach: dict, sizes: list[int], limit: float, beyond: int, agree: bool) -> str:
    host = machine()
    lines = ["# Counting compared: bitboard, Ganak, CP-SAT enumeration\n",
             f"Made by `python -m benchmarks field-count --sizes {sizes[0]}-{sizes[-1]} --limit {limit:g} "
             f"--beyond {beyond}` on {host.get('cpu')} ({host.get('cores')} cores, shared with other work), "
             f"Python {platform.python_version()}. Each counter in a process of its own, killed past "
             f"{limit:g} s; seconds are the count alone. \"queens\": mandatory queens at (0, 1) and "
             "(2, n - 2). The empty board's counts are checked against OEIS A000170 as well.\n",
             f"**{'All counts agree' if agree else 'THE COUNTS DISAGREE'}.**\n",
             "| board | n | bitboard count | s | Ganak count | s | CP-SAT enumeration | s | agree |",
             "|" + " --- |" * 9]
    for variant, n, counts, same in rows:
        cells = []
        for counter in COUNTERS:
            value, seconds = counts[counter]
            cells += ["-" if value is None else str(value),
                      f"> {limit:g}" if seconds is None else f"{seconds:.3g}"]
        lines.append(f"| {variant} | {n} | " + " | ".join(cells) + f" | {'yes' if same else 'NO'} |")
    lines += ["", f"The largest n each counts within {limit:g} s (tried up to n = {beyond}):\n",
              "| board | bitboard | Ganak | CP-SAT enumeration |", "| --- | --- | --- | --- |"]
    for variant in ("empty", "queens"):
        lines.append(f"| {variant} | " + " | ".join(
            str(reach[(variant, c)]) if reach[(variant, c)] is not None else "-" for c in COUNTERS) + " |")
    return "\n".join(lines) + "\n"


def sizes_arg(text: str) -> list[int]:
    low, _, high = text.partition("-")
    return list(range(int(low), int(high or low) + 1))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks field-count", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=sizes_arg, default=sizes_arg("6-12"), help="n range, e.g. 6-12")
    parser.add_argument("--limit", type=float, default=60.0, help="seconds per count (default 60)")
    parser.add_argument("--beyond", type=int, default=20, help="go on up to this n (default 20)")
    parser.add_argument("--publish", action="store_true", help=f"write {PUBLISHED_DIR / 'field-count.md'}")
    parser.add_argument("--one", nargs=3, metavar=("COUNTER", "N", "BOARD"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        counter, n, variant = args.one
        return one(counter, int(n), variant)
    if min(args.sizes) < 6:
        parser.error("--sizes starts at 6 or more (the two mandatory queens need room)")
    text, agree = run(args.sizes, args.limit, args.beyond)
    print(text, end="")
    if args.publish:
        (PUBLISHED_DIR / "field-count.md").write_text(text)
    return 0 if agree else 1


if __name__ == "__main__":
    raise SystemExit(main())
