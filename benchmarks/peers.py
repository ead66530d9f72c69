"""External peers run on the same instances: MiniZinc + Gecode on models/nqueens.mzn, and CaDiCaL on DIMACS.

They are complete solvers outside nqcsp, so their answers are checked like everyone else's: a SAT answer by
``nqcsp.verify`` in the worker, an UNSAT answer by agreement with the other complete solvers in the
analysis (their own claims carry no checked certificate here).

CaDiCaL reads the DIMACS of ``nqcsp export`` (``nqcsp.cnf``, cell ``(row, col)`` is variable
``row * n + col + 1``), in the sequential-counter encoding: O(n^2) clauses where pairwise needs O(n^3).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

MODEL = Path(__file__).resolve().parent.parent / "models" / "nqueens.mzn"
# Above this many clauses the pairwise CNF takes longer to write than most runs are given, and gigabytes.
MAX_CLAUSES = 20_000_000
PEER_ENCODING = "seqcounter"

Cell = tuple[int, int]


class PeerSkipped(Exception):
    """The peer cannot take this instance (too large for its input format); not a failure of the peer."""


def _run(command: list[str], timeout: float | None) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    # The runner kills the whole process group on its own deadline; this timeout is only a backstop.
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return done, time.perf_counter() - started


def _first_line(command: list[str]) -> str | None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else None


# ---------------------------------------------------------------- MiniZinc + Gecode

def minizinc_available() -> tuple[bool, str]:
    if shutil.which("minizinc") is None:
        return False, "minizinc is not installed (Debian package `minizinc`)"
    try:
        listing = subprocess.run(["minizinc", "--solvers"], capture_output=True, text=True, timeout=20).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        return False, f"minizinc --solvers failed: {exc}"
    if "org.gecode.gecode" not in listing:
        return False, "minizinc is installed without the Gecode solver"
    return True, ""


def minizinc_version() -> str | None:
    return _first_line(["minizinc", "--version"])


def dzn_text(n: int, queens: list[Cell]) -> str:
    rows = ", ".join(str(r) for r, _ in queens)
    cols = ", ".join(str(c) for _, c in queens)
    return f"n = {n};\nm = {len(queens)};\nmrow = [{rows}];\nmcol = [{cols}];\n"


def solve_minizinc(n: int, queens: list[Cell], time_limit: float | None, seed: int | None) -> dict[str, Any]:
    if n == 0:
        raise PeerSkipped("the model needs n >= 1")
    with tempfile.TemporaryDirectory(prefix="nqcsp-mzn-") as tmp:
        data = Path(tmp) / "instance.dzn"
        data.write_text(dzn_text(n, queens))
        command = ["minizinc", "--solver", "gecode", str(MODEL), str(data)]
        if time_limit is not None:
            command[1:1] = ["--time-limit", str(max(1, int(time_limit * 1000)))]
        if seed is not None:
            command[1:1] = ["--random-seed", str(seed)]
        done, elapsed = _run(command, None if time_limit is None else time_limit * 2 + 10)
    out = done.stdout
    stats: dict[str, Any] = {"minizinc_s": elapsed}
    if "=====UNSATISFIABLE=====" in out:
        return {"status": "UNSAT", "certificate": {"kind": "gecode-exhaustive", "checked_by": []},
                "stats": stats}
    found = re.search(r"q = \[([^\]]*)\];", out)
    if found and "----------" in out:
        cols = [int(x) for x in found.group(1).split(",")] if found.group(1).strip() else []
        return {"status": "SAT", "queens": cols, "stats": stats}
    if done.returncode not in (0,) and "=====UNKNOWN=====" not in out:
        stats["stderr"] = done.stderr.strip()[-500:]
    return {"status": "UNKNOWN", "stats": stats}


# ---------------------------------------------------------------- CaDiCaL on DIMACS

def cadical_available() -> tuple[bool, str]:
    if shutil.which("cadical") is None:
        return False, "cadical is not installed (Debian package `cadical`)"
    return True, ""


def cadical_version() -> str | None:
    return _first_line(["cadical", "--version"])


def solve_cadical(n: int, queens: list[Cell], time_limit: float | None, seed: int | None) -> dict[str, Any]:
    if n == 0:
        raise PeerSkipped("the CNF of n = 0 is empty")
    from nqcsp.cnf import encode, write_dimacs
    from nqcsp.problem import Problem

    started = time.perf_counter()
    formula = encode(Problem(n, queens), PEER_ENCODING)
    clauses = formula.num_clauses
    if clauses > MAX_CLAUSES:
        raise PeerSkipped(f"the {PEER_ENCODING} CNF of n = {n} has more than {MAX_CLAUSES} clauses")
    with tempfile.TemporaryDirectory(prefix="nqcsp-cnf-") as tmp:
        cnf = Path(tmp) / "instance.cnf"
        with cnf.open("w") as out:
            write_dimacs(formula, out)
        encode_s = time.perf_counter() - started
        command = ["cadical", "-q"]
        if time_limit is not None:
            command += ["-t", str(max(1, int(time_limit - encode_s + 0.999)))]
        if seed is not None:
            command += [f"--seed={seed}"]
        done, elapsed = _run(command + [str(cnf)], None if time_limit is None else time_limit * 2 + 10)
    stats: dict[str, Any] = {"encode_s": encode_s, "cadical_s": elapsed, "clauses": clauses}
    if done.returncode == 20:
        return {"status": "UNSAT", "certificate": {"kind": "cadical-unsat", "checked_by": []}, "stats": stats}
    if done.returncode == 10:
        true_vars = [int(x) for line in done.stdout.splitlines() if line.startswith("v ")
                     for x in line[2:].split() if 0 < int(x) <= n * n]
        cols = [-1] * n
        for var in true_vars:
            row, col = divmod(var - 1, n)
            if cols[row] != -1:
                # Not one queen per row: a wrong model. Leave the row off the board so verify rejects it.
                stats["rows_with_several_queens"] = stats.get("rows_with_several_queens", 0) + 1
                col = -1
            cols[row] = col
        return {"status": "SAT", "queens": cols, "stats": stats}
    stats["returncode"] = done.returncode
    if done.returncode not in (0,):
        stats["stderr"] = done.stderr.strip()[-500:]
    return {"status": "UNKNOWN", "stats": stats}


PEERS = {
    "minizinc-gecode": (minizinc_available, minizinc_version, solve_minizinc),
    "cadical": (cadical_available, cadical_version, solve_cadical),
}
