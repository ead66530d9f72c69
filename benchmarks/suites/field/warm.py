"""The cpmpy backend's call cost per engine: the first call in a fresh process (the child's start) and the
next calls (the model and the search only), on the board n = 12 with a queen at (0, 3).

    python -m benchmarks field warm [--engines choco,z3] [--calls 5]
"""

from __future__ import annotations

import statistics
import time


def warm_costs(engines: list[str], calls: int) -> list[tuple[str, float, list[float], list[float]]]:
    """Per engine: the first call's wall seconds in this process (its child starts), then each next one's,
    and of each next one the part outside the engine's model and search (the bridge: the request, the
    answer, the verification)."""
    import nqcsp

    board = (12, [(0, 3)])
    rows = []
    for engine in engines:
        seconds, bridge = [], []
        for _ in range(calls + 1):
            started = time.perf_counter()
            result = nqcsp.solve(*board, solver="cpmpy", engine=engine, time_limit=60)
            seconds.append(time.perf_counter() - started)
            if result.status is not nqcsp.Status.SAT or not nqcsp.verify(12, result.columns, board[1]):
                raise AssertionError(f"{engine}: {result.status} on n = 12 with a queen at (0, 3)")
            bridge.append(seconds[-1] - result.stats["build_s"] - result.stats["search_s"])
        rows.append((engine, seconds[0], seconds[1:], bridge[1:]))
    return rows


def print_warm_costs(engines: list[str] | None, calls: int) -> int:
    from nqcsp.solvers.cpmpy import installed_engines

    chosen = engines or installed_engines()
    print("cpmpy backend, n = 12 with a queen at (0, 3): wall seconds of nqcsp.solve (verification included)")
    print(f"{'engine':<10} {'first call':>11} {'warm: best':>11} {'median':>8} {'worst':>8} "
          f"{'outside the engine, median':>27}")
    for engine, first, warm_runs, bridge in warm_costs(chosen, calls):
        print(f"{engine:<10} {first:>11.3f} {min(warm_runs):>11.3f} {statistics.median(warm_runs):>8.3f} "
              f"{max(warm_runs):>8.3f} {statistics.median(bridge):>27.4f}")
    return 0
