"""The child process of the ``cpmpy`` backend: one CPMpy engine, loaded once, answering models on request.

``python -m nqcsp.solvers.cpmpy_worker ENGINE`` imports CPMpy and the engine, solves a tiny board so that
the engine's own start-up is behind it, and says ``{"ready": ...}``; then it reads one request a line on
stdin and answers one JSON line each. A third-party native engine that crashes or hangs takes this
process with it, never the caller (``nqcsp.solvers.cpmpy`` kills the process group at the deadline).

The protocol has a descriptor of its own: file descriptor 1 is pointed at stderr before any engine
loads, since engines write banners and logs to stdout (HiGHS does), which must not mix with answers
(``nqcsp.runtime.warm_child.answer_channel``). The process ends with the one that started it
(``die_with_parent``), and when its stdin ends.

A request is the model of ``nqcsp.solvers.cpmpy``: ``{"model": "residual", "rows": [r, ...], "domains":
[[c, ...], ...]}`` (the free rows and, per free row, the columns no mandatory queen attacks) or ``{"model":
"board", "n": n, "queens": [[r, c], ...]}`` (every row, the mandatory queens as fixed values), with
``time_limit`` (seconds, or null) and ``seed``. Either way the constraints are AllDifferent on q, q + r
and q - r. The answer: ``status`` (SAT, UNSAT or UNKNOWN), ``values`` (the column of each row of the
request, for SAT), ``build_s`` and ``search_s``; or ``error`` with the engine's message.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
import traceback
from typing import Any, TextIO

from nqcsp.runtime.warm_child import answer_channel, die_with_parent


def build(cp: Any, request: dict[str, Any]) -> tuple[Any, Any, list[int]]:
    """The CPMpy model of a request, its variables, and the row of each variable."""
    if request["model"] == "residual":
        rows = [int(r) for r in request["rows"]]
        domains = [[int(c) for c in domain] for domain in request["domains"]]
        q = [cp.intvar(min(d), max(d), name=f"q{r}") if d else cp.intvar(0, 0, name=f"q{r}")
             for r, d in zip(rows, domains, strict=True)]
        constraints = [cp.InDomain(x, d) for x, d in zip(q, domains, strict=True)
                       if d and len(d) < max(d) - min(d) + 1]
        if not all(domains):
            constraints.append(cp.BoolVal(False))  # a free row without a free cell: no solution
    else:
        n = int(request["n"])
        rows = list(range(n))
        q = [cp.intvar(0, max(n - 1, 0), name=f"q{r}") for r in rows]
        constraints = [q[int(r)] == int(c) for r, c in request["queens"]]
    if len(q) > 1:
        constraints += [cp.AllDifferent(q), cp.AllDifferent([x + r for x, r in zip(q, rows, strict=True)]),
                        cp.AllDifferent([x - r for x, r in zip(q, rows, strict=True)])]
    return cp.Model(constraints), q, rows


def solve(cp: Any, engine: str, request: dict[str, Any]) -> dict[str, Any]:
    received = time.perf_counter()
    time_limit = request.get("time_limit")
    model, q, _rows = build(cp, request)
    solver = cp.SolverLookup.get(engine, model)
    build_s = time.perf_counter() - received
    options: dict[str, Any] = {}
    if time_limit is not None:
        left = float(time_limit) - build_s
        if left <= 0:
            return {"status": "UNKNOWN", "stage": "build", "build_s": build_s}
        options["time_limit"] = left
    if engine == "ortools":
        # One worker, as nqcsp's own cpsat backend runs by default: the field compares engines, not cores.
        options["num_workers"] = 1
        if request.get("seed") is not None:
            options["random_seed"] = int(request["seed"]) % 2**31
    elif engine == "highs":
        # One thread for the same reason. On two cores HiGHS's idle threads also took CPU from CPMpy's
        # linearisation in this process: a warm call's median was 1.19 s, 0.94 s on one thread (n = 12, a
        # queen at (0, 3)).
        options["threads"] = 1
    started = time.perf_counter()
    found = solver.solve(**options)
    search_s = time.perf_counter() - started
    exit_status = solver.status().exitstatus.name
    answer: dict[str, Any] = {"build_s": build_s, "search_s": search_s, "exit": exit_status}
    if found:
        answer["status"] = "SAT"
        answer["values"] = [int(x.value()) for x in q]
    elif exit_status == "UNSATISFIABLE" and search_complete(engine, solver):
        answer["status"] = "UNSAT"
    else:
        answer.update(status="UNKNOWN", stage="search")
    return answer


def search_complete(engine: str, solver: Any) -> bool:
    """Whether an UNSATISFIABLE from CPMpy is the engine's finished search. CPMpy tells Choco's timeout
    from its "no solution" by its own clock (no solution in less time than the limit: UNSAT), which a stop
    a hair before the limit fools: the field run of 2026-11-27 got a wrong UNSAT so (Codewars n = 136).
    Choco's own search state says which it was (TERMINATED, or STOPPED by the limit)."""
    if engine == "choco":
        return str(solver.chc_solver.get_search_state()) == "TERMINATED"
    return True


def versions(engine: str) -> dict[str, str]:
    from importlib import metadata

    found = {}
    for dist in ("cpmpy", *DISTRIBUTIONS.get(engine.split(":")[0], ())):
        with contextlib.suppress(metadata.PackageNotFoundError):
            found[dist] = metadata.version(dist)
    return found


# The PyPI distributions behind each engine, for the versions a run records.
DISTRIBUTIONS = {"ortools": ("ortools",), "choco": ("pychoco",), "exact": ("exact",), "z3": ("z3-solver",),
                 "pumpkin": ("pumpkin-solver",), "highs": ("highspy",),
                 "pysat": ("python-sat", "pypblib", "pindakaas")}


def serve(engine: str, answers: TextIO) -> int:
    def say(message: dict[str, Any]) -> None:
        answers.write(json.dumps(message) + "\n")
        answers.flush()

    started = time.perf_counter()
    try:
        import cpmpy as cp

        solve(cp, engine, {"model": "board", "n": 6, "queens": [], "time_limit": None})
    except Exception as exc:
        say({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    say({"ready": True, "start_s": time.perf_counter() - started, "versions": versions(engine)})
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            say(solve(cp, engine, json.loads(line)))
        except Exception as exc:
            say({"error": f"{type(exc).__name__}: {exc}", "traceback": traceback.format_exc()[-1500:]})
    return 0


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m nqcsp.solvers.cpmpy_worker ENGINE", file=sys.stderr)
        return 2
    # Ends with the process that asks (not with the thread that started it), before any engine loads;
    # at EOF on stdin (the caller is gone) serve's loop ends too.
    die_with_parent()
    return serve(argv[0], answer_channel())


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
