"""The suites as data: edit the grids here. Nothing in this module runs anything.

A suite is a dict:
- ``family`` and ``params``: the instance family in benchmarks/instances.py and its arguments;
- ``configs``: solver configurations, each a solver name, ``(name, options)`` or ``(name, options, label)``;
  names are nqcsp backends, ``auto``, or the external peers ``minizinc-gecode`` and ``cadical``. A
  configuration whose solver is not registered or not installed is skipped with a note;
- ``seeds``: solver seeds, one run per seed; ``timeout``: seconds per run (``--timeout`` overrides);
- ``stop_after_timeout``: once a configuration runs out of time on a board, skip its larger boards;
- ``complete_only``: run only solvers that can prove UNSAT.

Backend options are per backend, e.g. ``("sat", {"encoding": "seqcounter", "sat_solver": "cadical195"})``;
the defaults below use empty options, so each backend runs with its own defaults.
"""

from __future__ import annotations

from typing import Any

from benchmarks.instances import log_grid

BACKENDS = ["construct", "qs4", "minconflicts", "backtrack", "cpsat", "sat"]
PEER_SOLVERS = ["minizinc-gecode", "cadical"]
EVERYTHING = [*BACKENDS, "auto", *PEER_SOLVERS]

SUITES: dict[str, dict[str, Any]] = {
    "big": {
        "description": "(a) one mandatory queen at (n // 2, n // 3), n = 10 .. 10^8 on a log grid",
        "family": "big",
        "params": {"sizes": log_grid(10, 10**8)},
        "configs": EVERYTHING,
        "seeds": [0],
        "timeout": 60,
        "stop_after_timeout": True,
    },
    "codewars": {
        "description": "(b) the Codewars kata's 31 instances, n <= 1000, cells from a fixed seed",
        "family": "codewars",
        "params": {"seed": 2017},
        "configs": EVERYTHING,
        "seeds": [0],
        "timeout": 30,
    },
    "completion": {
        "description": "(c) random completion instances near the hardness peak n = 0.19 (n - m)^2",
        "family": "completion",
        "params": {"sizes": [(74, 54), (115, 90)], "count": 50},
        "configs": EVERYTHING,
        "seeds": [0],
        "timeout": 60,
    },
    "completion-sweep": {
        "description": "completion instances across m on one board: easy, hard near the peak, easy again",
        "family": "completion",
        "params": {"sizes": [(40, m) for m in range(4, 40, 4)], "count": 10},
        "configs": EVERYTHING,
        "seeds": [0],
        "timeout": 30,
    },
    "blockades": {
        "description": "(d) proof time for every blocked cell of the boards n <= 12 (found by brute force)",
        "family": "blockades",
        "params": {"max_n": 12},
        "configs": EVERYTHING,
        "seeds": [0],
        "timeout": 60,
        "complete_only": True,
    },
    "tiny": {
        "description": "smoke test: small boards with known answers, in seconds",
        "family": "small",
        "params": {"sizes": [1, 2, 4, 6, 8, 10]},
        "configs": ["construct", "auto"],
        "seeds": [0],
        "timeout": 20,
    },
}
