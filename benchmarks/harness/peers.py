"""External peers run on the same instances: CaDiCaL on DIMACS and the paper's shiftqueens. (MiniZinc is
nqcsp's own ``minizinc`` backend, run like every other backend.)

They are complete solvers outside nqcsp, so their answers are checked like everyone else's: a SAT answer by
``nqcsp.verify`` in the worker, an UNSAT answer by agreement with the other complete solvers in the
analysis (their own claims carry no checked certificate here). shiftqueens prints no solution (see
``solve_shiftqueens``), so its SAT answers are judged by agreement too.

A peer is ``(available, version, solve)``: ``available()`` -> (bool, why not), ``version()`` -> text,
``solve(n, queens, time_limit, seed)`` -> a dict with ``status`` and optionally ``queens``, ``certificate``
and ``stats``. The runner kills the worker's whole process group at its own deadline; the time limits
below only let a peer answer UNKNOWN on time instead of being killed.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

# CaDiCaL reads the DIMACS of ``nqcsp export`` (``nqcsp.solvers.cnf``, cell ``(row, col)`` is variable
# ``row * n + col + 1``), in the sequential-counter encoding: O(n^2) clauses where pairwise needs O(n^3).
PEER_ENCODING = "seqcounter"
# Above this many clauses the CNF takes longer to write than most runs are given, and gigabytes.
MAX_CLAUSES = 20_000_000
# Where the runner tells the worker which shiftqueens binaries to use (os.pathsep-separated, tried in order:
# the 128-bit build for n <= 127, then e.g. the 1024-bit Boost build for larger boards).
SHIFTQUEENS_ENV = "NQCSP_SHIFTQUEENS"

Cell = tuple[int, int]


class PeerSkipped(Exception):
    """The peer cannot take this instance (too large for its input format); not a failure of the peer."""


def _run(command: list[str], timeout: float | None) -> tuple[subprocess.CompletedProcess[str] | None, float]:
    """The finished process, or None when ``timeout`` passed (subprocess.run kills it then)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - started
    return done, time.perf_counter() - started


def _first_line(command: list[str]) -> str | None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (out.stdout or out.stderr).strip()
    return text.splitlines()[0] if text else None


def _unknown(stats: dict[str, Any], reason: str) -> dict[str, Any]:
    return {"status": "UNKNOWN", "stats": {**stats, "reason": reason}}


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
    from nqcsp.board.problem import Problem
    from nqcsp.solvers.cnf import encode, write_dimacs

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
        left = None if time_limit is None else max(0.05, time_limit - encode_s)
        if left is not None:
            command += ["-t", str(max(1, int(left + 0.999)))]
        if seed is not None:
            command += [f"--seed={seed}"]
        done, elapsed = _run(command + [str(cnf)], left)
    stats: dict[str, Any] = {"encode_s": encode_s, "cadical_s": elapsed, "clauses": clauses}
    if done is None:
        return _unknown(stats, f"time limit of {time_limit} s reached during search")
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
    if done.returncode != 0:
        stats["stderr"] = done.stderr.strip()[-500:]
    return _unknown(stats, "cadical stopped without an answer")


# ---------------------------------------------------------------- shiftqueens (CSPLib prob079)

def shiftqueens_binaries() -> list[str]:
    return [path for path in os.environ.get(SHIFTQUEENS_ENV, "").split(os.pathsep) if path]


def shiftqueens_available() -> tuple[bool, str]:
    paths = shiftqueens_binaries()
    if not paths:
        return False, (f"no shiftqueens binary given (--shiftqueens PATH or {SHIFTQUEENS_ENV}); build CSPLib "
                       "prob079's shiftqueens-128.cc with a C++ compiler")
    missing = [p for p in paths if not os.access(p, os.X_OK)]
    if missing:
        return False, f"shiftqueens binary not executable: {', '.join(missing)}"
    return True, ""


def shiftqueens_version() -> str | None:
    return ", ".join(Path(p).name for p in shiftqueens_binaries()) or None


_SQ_TIME = re.compile(r"Time: ([0-9.eE+-]+)")
_SQ_NODES = re.compile(r"Nodes: (\d+)")


def solve_shiftqueens(n: int, queens: list[Cell], time_limit: float | None,
                      seed: int | None) -> dict[str, Any]:
    """Gent, Jefferson & Nightingale's bitboard DFS. Its command line is ``n col row col row ...`` (x is the
    column, y the row). Its solution printer is unusable beyond n = 31 (``1 << j`` on an int, and a
    100-entry array), so builds for this benchmark leave PRINT_SOL off: it says only "Solution Found"
    or "No solution", and the analysis judges both by agreement with the verified and certified answers."""
    if n == 0:
        raise PeerSkipped("shiftqueens needs n >= 1")
    args = [str(n)] + [str(x) for row, col in queens for x in (col, row)]
    stats: dict[str, Any] = {}
    for binary in shiftqueens_binaries():
        done, elapsed = _run([binary, *args], time_limit)
        stats = {"binary": Path(binary).name, "shiftqueens_s": elapsed}
        if done is None:
            return _unknown(stats, f"time limit of {time_limit} s reached during search")
        out = done.stdout
        if "limited to a maximum" in out:
            continue
        if match := _SQ_TIME.search(out):
            stats["cpu_s"] = float(match.group(1))
        if match := _SQ_NODES.search(out):
            stats["nodes"] = int(match.group(1))
        if "Solution Found" in out:
            return {"status": "SAT-CLAIM", "stats": stats}
        if "No solution" in out or "nconsistent" in out:
            return {"status": "UNSAT", "certificate": {"kind": "shiftqueens-exhaustive", "checked_by": []},
                    "stats": stats}
        return _unknown({**stats, "stdout": out[-300:]}, f"shiftqueens exited with code {done.returncode}")
    raise PeerSkipped(f"no shiftqueens binary given takes n = {n}")


PEERS = {
    "cadical": (cadical_available, cadical_version, solve_cadical),
    "shiftqueens": (shiftqueens_available, shiftqueens_version, solve_shiftqueens),
}
