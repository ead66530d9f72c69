"""The cpmpy backend's call cost per engine: the first call in a fresh process (the child's start) and the
next calls (the model and the search only), on the board n = 12 with a queen at (0, 3).

    python -m benchmarks field warm [--engines choco,z3] [--calls 5] [--measurement]

``--measurement`` prints what measuring a run costs instead (``measurement_cost``).
"""

from __future__ import annotations

import os
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


def measurement_cost(engines: list[str] | None, calls: int) -> int:
    """What measuring a run costs, beside a warm engine child (so the tree holds its processes): the
    seconds of ``RunMeasure``'s start and stop themselves (median of 50), and warm calls alternated with
    and without the measurement around them (medians of ``calls`` each)."""
    import nqcsp
    from benchmarks.harness.measure import RunMeasure, descendants
    from nqcsp.solvers.cpmpy import installed_engines

    board = (12, [(0, 3)])
    print("measurement of a run (benchmarks.harness.measure) beside the cpmpy backend's warm child, "
          "n = 12 with a queen at (0, 3)")
    print(f"{'engine':<10} {'processes':>9} {'start+stop ms':>14} {'warm call s, measured':>22} "
          f"{'not measured':>13} {'difference ms':>14}")
    for engine in engines or installed_engines():
        nqcsp.solve(*board, solver="cpmpy", engine=engine, time_limit=60)        # the child starts
        own = []
        for _ in range(50):
            started = time.perf_counter()
            RunMeasure().start().stop()
            own.append(time.perf_counter() - started)
        measured, bare = [], []
        for _ in range(calls):
            for times, wrapped in ((measured, True), (bare, False)):
                started = time.perf_counter()
                measure = RunMeasure().start() if wrapped else None
                nqcsp.solve(*board, solver="cpmpy", engine=engine, time_limit=60)
                if measure is not None:
                    measure.stop()
                times.append(time.perf_counter() - started)
        with_, without = statistics.median(measured), statistics.median(bare)
        print(f"{engine:<10} {1 + len(descendants(os.getpid())):>9} {1000 * statistics.median(own):>14.3f} "
              f"{with_:>22.3f} {without:>13.3f} {1000 * (with_ - without):>14.1f}")
    return 0
