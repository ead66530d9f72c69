"""Cross-check of ``nqcsp.random_completion`` against CSPLib prob079's own generator, taken by path.

``python -m benchmarks check-generator PATH`` runs ``python3 PATH n m seed`` (CSPLib's
``data/queens-gen-fast.py``, not shipped here) for each (n, m) and seed, and checks each instance it
prints: m queens on the board, none attacking another (``nqcsp.Problem``), n - m free rows and free columns,
and whether it is the very instance ``random_completion(n, m, seed)`` gives. Both implement the paper's
method (a random free row and a random free column, kept when both diagonals are free) with Python's
``random`` seeded the same way, so they are expected to agree seed for seed; the generator's "given up"
(after n^2 tries, where nqcsp restarts) is counted apart.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

from nqcsp import Problem, random_completion

DEFAULT_SIZES = [(30, 20), (76, 56), (120, 95), (176, 146), (304, 264)]
Cell = tuple[int, int]


def parse(output: str) -> list[Cell] | None:
    """The queens of ``letting init = [[row, col], ...]``, or None when the generator gave up."""
    for line in output.splitlines():
        if line.startswith("letting init"):
            return sorted((int(r), int(c)) for r, c in ast.literal_eval(line.split("=", 1)[1].strip()))
    return None


def check_instance(n: int, m: int, queens: list[Cell]) -> list[str]:
    """What is wrong with the instance (empty when it is a valid completion instance of n, m)."""
    problems = []
    if len(queens) != m:
        problems.append(f"{len(queens)} queens, not {m}")
    try:
        problem = Problem(n, queens)
    except (TypeError, ValueError) as exc:
        return [*problems, f"not a valid input: {exc}"]
    if problem.attack is not None:
        problems.append(f"queens {problem.attack} attack each other")
    free_rows = n - len({r for r, _ in queens})
    free_cols = n - len({c for _, c in queens})
    if free_rows != n - m or free_cols != n - m:
        problems.append(f"{free_rows} free rows and {free_cols} free columns, not {n - m}")
    return problems


def run(generator: Path, sizes: list[tuple[int, int]], seeds: range,
        python: str = sys.executable) -> list[dict[str, Any]]:
    rows = []
    for n, m in sizes:
        row: dict[str, Any] = {"n": n, "m": m, "instances": 0, "valid": 0, "identical": 0, "gave_up": 0,
                               "problems": []}
        for seed in seeds:
            done = subprocess.run([python, str(generator), str(n), str(m), str(seed)], capture_output=True,
                                  text=True, timeout=120)
            queens = parse(done.stdout)
            if queens is None:
                row["gave_up"] += 1
                continue
            row["instances"] += 1
            wrong = check_instance(n, m, queens)
            if wrong:
                row["problems"].append(f"seed {seed}: {'; '.join(wrong)}")
            else:
                row["valid"] += 1
            row["identical"] += queens == random_completion(n, m, seed)
        rows.append(row)
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    lines = ["| n | m | free rows | instances | valid | identical to random_completion | gave up |",
             "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for r in rows:
        lines.append(f"| {r['n']} | {r['m']} | {r['n'] - r['m']} | {r['instances']} | {r['valid']} | "
                     f"{r['identical']} | {r['gave_up']} |")
    for r in rows:
        lines.extend(f"- n = {r['n']}, m = {r['m']}, {problem}" for problem in r["problems"])
    return "\n".join(lines) + "\n"
