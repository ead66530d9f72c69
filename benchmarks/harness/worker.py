"""One benchmark run in its own process: read a JSON job on stdin, answer with JSON lines on stdout.

Protocol (the runner's side is in runner.py):
1. untimed setup: import the solver and solve tiny instances with it, so numba compilation and imports are
   not timed; then print ``READY {"warmup_s": ...}``;
2. the timed run: one solve of the job's instance through ``nqcsp.solve`` (the public path, which itself
   verifies every SAT answer), or through an external peer; or a task: ``count`` (``nqcsp.count``),
   ``solutions`` (every solution, ``nqcsp.solutions``), ``write-columns`` (``nqcsp solve N --format
   columns`` to /dev/null, the command line's whole call) or a ``batch`` of boards solved in one process;
3. independent evaluation after the timer stops: ``nqcsp.verify`` on the answer; then print
   ``RESULT {...}`` with the run's measurement (``benchmarks.harness.measure``: CPU seconds, CPU wait and
   the peak RSS of this process and its engine's processes, this run only).
The runner measures its wall-clock deadline from READY and kills the process group when it passes.

A suite with ``"session": true`` sends a line's jobs to one worker, one JSON line each: the first is
warmed up for, the next ones are timed from when they are sent (no warm-up, no READY); a worker the runner
killed is replaced by a fresh one for the next job. Each job's measurement is still its own: the
high-water marks are reset before it.
"""

from __future__ import annotations

import contextlib
import json
import resource
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

import nqcsp
from benchmarks.harness.measure import RunMeasure
from benchmarks.harness.peers import PEERS, PeerSkipped
from nqcsp.runtime.warm_child import die_with_parent
from nqcsp.solvers import options_for

Cell = tuple[int, int]
SolveFn = Callable[[int, list[Cell], "float | None", "int | None"], dict[str, Any]]

# Tiny instances for the untimed warm-up: one with a solution, one without (for complete solvers, whose
# proof path may compile different kernels).
WARMUP_SAT = (8, [(0, 3)])
WARMUP_UNSAT = (4, [(0, 0)])
# Every backend auto may run, from the registry: each is loaded in the warm-up.
AUTO_STAGES = tuple(spec.name for spec in nqcsp.solvers.specs())
# Tasks that are not a solve of one board (benchmarks/harness/runner.py knows them too).
TASKS = ("count", "solutions", "write-columns")


def nqcsp_solver(name: str, options: dict[str, Any]) -> SolveFn:
    def solve(n: int, queens: list[Cell], time_limit: float | None, seed: int | None) -> dict[str, Any]:
        result = nqcsp.solve(n, queens, solver=name, time_limit=time_limit, seed=seed, **options)
        out: dict[str, Any] = {"status": result.status.value, "stats": dict(result.stats),
                               "answered_by": result.solver}
        if result.columns is not None:
            out["queens"] = result.columns
        if result.certificate is not None:
            out["certificate"] = {"kind": result.certificate.kind,
                                  "checked_by": list(result.certificate.checked_by)}
        return out

    return solve


def is_complete(name: str) -> bool:
    if name == "auto" or name in PEERS:
        return True
    return name in nqcsp.solvers.complete_names()


def json_safe(value: Any) -> Any:
    """Stats as JSON: numbers and strings kept, containers walked, anything else as its repr."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value][:50]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value)} bytes>"
    return repr(value)[:200]


def peak_rss_mb() -> tuple[float, float]:
    """Peak resident set of this process and of its largest finished child in MiB (ru_maxrss is in KiB)."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, children


def emit(tag: str, payload: dict[str, Any]) -> None:
    sys.stdout.write(f"{tag} {json.dumps(payload)}\n")
    sys.stdout.flush()


def warm_up(name: str, options: dict[str, Any], solve: SolveFn | None) -> None:
    if name == "count":
        nqcsp.count(8, **options)
        return
    if name == "solutions":
        list(nqcsp.solutions(8))
        return
    if name == "write-columns":
        write_columns(1 << 17, 10.0)  # loads the construction and the columns-text kernel
        return
    assert solve is not None
    warmups = [WARMUP_SAT] + ([WARMUP_UNSAT] if is_complete(name) else [])
    for wn, wq in warmups:
        with contextlib.suppress(PeerSkipped):
            solve(wn, wq, 10.0, 0)
    if name == "cpsat" and options_for(name, options)["hint"] in ("auto", "localsearch"):
        # From LOCALSEARCH_HINT_MIN_FREE_ROWS free rows CP-SAT is hinted by qs4: its kernel loads (or, in
        # a fresh checkout, compiles) now rather than in the first big run.
        from nqcsp.solvers.cpsat import LOCALSEARCH_HINT_MIN_FREE_ROWS

        wn = LOCALSEARCH_HINT_MIN_FREE_ROWS + 1
        solve(wn, [(0, wn // 3)], 10.0, 0)
    if name == "auto":
        # auto reaches each backend only on some boards (qs4 from n = 40 on): load every one it may use
        # now, so that no run pays for loading compiled kernels inside its timed part.
        for backend in AUTO_STAGES:
            if nqcsp.solvers.is_installed(backend):
                for wn, wq in warmups:
                    nqcsp.solve(wn, wq, solver=backend, time_limit=10.0, seed=0)


def write_columns(n: int, time_limit: float | None) -> tuple[int, float]:
    """Exit code and wall seconds of ``nqcsp solve N --format columns`` writing to /dev/null."""
    import io
    import os

    from nqcsp.cli import main

    args = ["solve", str(n), "--format", "columns"]
    if time_limit is not None:
        args += ["--time-limit", str(time_limit)]
    with open(os.devnull, "wb") as sink:
        out = io.TextIOWrapper(sink, encoding="ascii")
        started = time.perf_counter()
        with contextlib.redirect_stdout(out):
            code = main(args)
        wall_s = time.perf_counter() - started
        out.detach()
    return code, wall_s


def run_task(name: str, options: dict[str, Any], instance: dict[str, Any],
             solve: SolveFn | None, job: dict[str, Any]) -> dict[str, Any]:
    """A counting, enumerating or batch task, timed; its answer checked against the instance's reference
    (OEIS counts, brute-force statuses) after the timer stops."""
    n, queens = instance["n"], [tuple(cell) for cell in instance["queens"]]
    task = instance.get("task") or "solve"
    if task == "solve" and name in TASKS:
        task = {"count": "count", "solutions": "enumerate"}.get(name, name)
    started = time.perf_counter()
    if task in ("count", "enumerate"):
        expected = instance.get("expected_count")
        if task == "count":
            value = nqcsp.count(n, queens, **options)
            wall_s = time.perf_counter() - started
            ok: bool | None = value == expected
        else:
            found = list(nqcsp.solutions(n, queens))
            wall_s = time.perf_counter() - started
            value = len(found)
            ok = value == expected == len(set(found)) and all(nqcsp.verify(n, cols, queens) for cols in found)
        # No reference count for this board: the figure is reported, its correctness unknown.
        return {"status": "DONE", "wall_s": wall_s, "value": value,
                "verified": None if expected is None else ok, "answered_by": name}
    if task == "write-columns":
        # The command line's whole call, writing included: `nqcsp solve N --format columns --time-limit T`.
        code, wall_s = write_columns(n, job.get("timeout"))
        status = {0: "SAT", 3: "UNKNOWN"}.get(code, f"EXIT-{code}")
        # nqcsp.solve verified a SAT answer before it was written; the text itself is not read back.
        return {"status": status, "wall_s": wall_s, "value": code, "verified": None, "answered_by": name}
    if task == "batch":
        assert solve is not None
        statuses: dict[str, int] = {}
        checked = 0
        for board_n, board_queens in instance["batch"]:
            answer = solve(board_n, [tuple(c) for c in board_queens], job.get("timeout"), job.get("seed"))
            statuses[answer["status"]] = statuses.get(answer["status"], 0) + 1
            checked += bool(answer.get("certificate", {}).get("checked_by"))
        wall_s = time.perf_counter() - started
        boards = len(instance["batch"])
        return {"status": "DONE", "wall_s": wall_s, "value": statuses, "unsat_checked": checked,
                "verified": statuses.get(instance.get("expected") or "UNSAT", 0) == boards,
                "answered_by": name}
    raise ValueError(f"unknown task {task!r}")


def run(job: dict[str, Any], warm: bool = False) -> dict[str, Any]:
    """One job; its warm-up first, unless this process has warmed up for its configuration already."""
    name, options = job["solver"], job.get("options", {})
    instance = job["instance"]
    n, queens = instance["n"], [tuple(cell) for cell in instance["queens"]]
    solve: SolveFn | None = None
    if name in PEERS:
        solve = PEERS[name][2]
    elif name not in TASKS:
        solve = nqcsp_solver(name, options)

    if not warm:
        started = time.perf_counter()
        warm_up(name, options, solve)
        emit("READY", {"warmup_s": time.perf_counter() - started})

    if name in TASKS or instance.get("task", "solve") != "solve":
        measure = RunMeasure().start()
        record = run_task(name, options, instance, solve, job)
        record.update(measure.stop())
        record["child_peak_rss_mb"] = peak_rss_mb()[1]
        return record
    assert solve is not None
    measure = RunMeasure().start()
    started = time.perf_counter()
    answer = solve(n, queens, job.get("timeout"), job.get("seed"))
    wall_s = time.perf_counter() - started
    measured = measure.stop()

    status = answer["status"]
    record: dict[str, Any] = {"status": "SAT" if status == "SAT-CLAIM" else status, "wall_s": wall_s,
                              "answered_by": answer.get("answered_by", name),
                              "stats": json_safe(answer.get("stats", {}))}
    cols = answer.get("queens")
    if status == "SAT":
        started = time.perf_counter()
        record["verified"] = bool(cols is not None and nqcsp.verify(n, cols, queens))
        record["verify_s"] = time.perf_counter() - started
        if cols is not None and n <= job.get("keep_queens_max_n", 0):
            record["queens"] = [int(c) for c in cols]
    elif status == "SAT-CLAIM":
        # A peer that says SAT without showing a solution: judged by agreement in the analysis.
        record["verified"] = None
    if "certificate" in answer:
        record["certificate"] = answer["certificate"]
    record.update(measured)
    record["child_peak_rss_mb"] = peak_rss_mb()[1]
    return record


def attempt(job: dict[str, Any], warm: bool) -> dict[str, Any]:
    try:
        return run(job, warm)
    except PeerSkipped as exc:
        return {"status": "SKIPPED", "error": str(exc)}
    except MemoryError:
        return {"status": "MEMOUT", "error": "MemoryError"}
    except nqcsp.InternalSolverError as exc:
        # A broken contract (say an unverifiable SAT answer) is a finding, recorded as such.
        return {"status": "WRONG", "error": str(exc)[:1000]}
    except Exception as exc:
        return {"status": "ERROR", "error": f"{type(exc).__name__}: {exc}"[:1000],
                "traceback": traceback.format_exc()[-2000:]}


def main() -> int:
    """One job (its JSON is all of stdin), or with ``"session": true`` a session: the first job a line,
    warmed up once, then one job a line, each answered when it is read, until stdin ends."""
    # Ends with the runner, however the runner ends (the runtime's one way of tying a child to its owner).
    die_with_parent()
    job = json.loads(sys.stdin.readline())
    emit("RESULT", attempt(job, warm=False))
    if job.get("session"):
        for line in sys.stdin:
            if line.strip():
                emit("RESULT", attempt(json.loads(line), warm=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
