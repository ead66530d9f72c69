"""The suites as data: edit the grids here. Nothing in this module runs anything.

A suite is a dict:
- ``family`` and ``params``: the instance family in benchmarks/harness/instances.py and its arguments;
- ``configs``: solver configurations, each a solver name, ``(name, options)``, ``(name, options, label)`` or
  a dict with ``solver``, ``options``, ``label``, ``max_n`` (boards above it are not given to it) and
  ``params`` (family parameters of its own), or a function returning such a list (labels have no commas:
  ``--solvers`` takes a comma-separated list of them). Names
  are nqcsp backends (from the registry), ``auto``, the external peers of benchmarks/harness/peers.py, or the
  tasks ``count`` / ``solutions`` (``nqcsp.count``, ``nqcsp.solutions``). A configuration whose solver is
  not registered or not installed is skipped with a note;
- ``seeds``: solver seeds, one run per seed;
- ``timeout``: seconds per run, given to the solver as its ``time_limit`` (``--timeout`` overrides), or
  ``time_limits``: several, one run per limit (a configuration dict may have ``time_limits`` of its own);
- ``stop_after_timeout``: once a configuration runs out of time on a board, skip its larger boards;
- ``complete_only``: run only solvers that can prove UNSAT;
- ``session``: each line (a configuration on one family) in one worker process, warmed up once (see
  benchmarks/harness/worker.py); otherwise every run has a fresh worker.

Every run records whether the call kept its time limit (returned within max(10%, 0.5 s) of it); a run the
runner had to kill is recorded as TIMEOUT, a broken promise.
"""

from __future__ import annotations

from typing import Any

from benchmarks.harness.instances import log_grid
from benchmarks.harness.peers import PEERS
from nqcsp.solvers import specs

BACKENDS = [spec.name for spec in specs()]
COMPLETE = [spec.name for spec in specs() if spec.complete]
PEER_SOLVERS = list(PEERS)
EVERYTHING = [*BACKENDS, "auto", *PEER_SOLVERS]
LOCAL_SEARCH = [spec.name for spec in specs() if spec.module == "nqcsp.solvers.localsearch"]

# The completion hardness peak n ~ 0.19 (n - m)^2 (Gent, Jefferson & Nightingale, JAIR 2017) for 20, 25,
# 30, 40 and 50 free rows, and the two peaks of the paper's own experiments.
PEAK_FREE_ROWS = {20: 76, 25: 119, 30: 171, 40: 304, 50: 475}
PAPER_PEAKS = [(120, 95), (176, 146)]

# CP-SAT's own defaults, for comparison with the tuned ones the cpsat backend uses.
CPSAT_STOCK = {"presolve": True, "symmetry_level": 2, "inprocessing": True, "linearization_level": 1}
# Neither hint nor AllDifferent expansion: the configurations below switch them on one at a time.
CPSAT_PLAIN = {"hint": None, "expand_alldiff": False}
CPSAT_CONFIGS = [
    ("cpsat", {"model": "alldiff", **CPSAT_STOCK, **CPSAT_PLAIN}, "alldiff/stock"),
    ("cpsat", {"model": "alldiff", **CPSAT_STOCK, **CPSAT_PLAIN, "expand_alldiff": True},
     "alldiff/stock+expand"),
    ("cpsat", {"model": "alldiff", **CPSAT_STOCK, **CPSAT_PLAIN, "search": "min-domain-median"},
     "alldiff/stock+min-domain-median"),
    ("cpsat", {"model": "alldiff", **CPSAT_PLAIN}, "alldiff/tuned"),
    ("cpsat", {"model": "alldiff", **CPSAT_PLAIN, "expand_alldiff": True}, "alldiff/tuned+expand"),
    ("cpsat", {"model": "alldiff", **CPSAT_PLAIN, "search": "min-domain-median"},
     "alldiff/tuned+min-domain-median"),
    ("cpsat", {"model": "alldiff", **CPSAT_PLAIN, "hint": "construct"}, "alldiff/tuned+hint"),
    ("cpsat", {"model": "alldiff"}, "alldiff/backend-default"),
    ("cpsat", {"model": "boolean", **CPSAT_STOCK, **CPSAT_PLAIN}, "boolean/stock"),
    ("cpsat", {"model": "boolean", **CPSAT_PLAIN}, "boolean/tuned"),
    ("cpsat", {"model": "boolean", **CPSAT_PLAIN, "workers": 2}, "boolean/tuned/2-workers"),
    ("cpsat", {"model": "boolean"}, "boolean/tuned+hint/auto's-choice"),
]

# Encoding x SAT solver x hint for first solutions; clausal encodings stop at n = 400 (10^7 clauses at
# n = 1000, several GB as Python lists), pairwise at n = 100 (cubic).
_SAT_SEARCH = [
    ("native", "minicard", True), ("native", "minicard", False), ("native", "gluecard3", True),
    ("native", "gluecard4", True), ("seqcounter", "cadical195", True), ("seqcounter", "cadical195", False),
    ("seqcounter", "glucose4", True), ("seqcounter", "minisat22", True), ("seqcounter", "maplechrono", True),
    ("seqcounter", "kissat404", False), ("commander", "cadical195", True), ("commander", "minisat22", True),
    ("commander", "minisat22", False), ("pairwise", "cadical195", True),
    ("cardenc-seqcounter", "cadical195", True), ("cardenc-ladder", "cadical195", True),
    ("cardenc-bitwise", "cadical195", True), ("cardenc-totalizer", "cadical195", True),
    ("cardenc-kmtotalizer", "cadical195", True),
]
SAT_SEARCH_CONFIGS = [
    {"solver": "sat",
     "options": {"encoding": encoding, "sat_solver": sat_solver, "hint": hint, "proof": False},
     "label": f"{encoding}/{sat_solver}" + ("" if hint else "/no-hint"),
     "max_n": 100 if encoding == "pairwise" else None if encoding == "native" else 400}
    for encoding, sat_solver, hint in _SAT_SEARCH
]
# Proof mode: every proof solver the sat backend accepts (its PROOF_SOLVERS, read when the suite is built)
# times these encodings.
PROOF_ENCODINGS = ("seqcounter", "commander", "pairwise", "cardenc-totalizer", "cardenc-ladder")


def sat_proof_configs() -> list[dict[str, Any]]:
    from nqcsp.solvers.sat import PROOF_SOLVERS

    return [{"solver": "sat", "options": {"proof": True, "sat_solver": s, "encoding": e}, "label": f"{s}/{e}"}
            for s in PROOF_SOLVERS for e in PROOF_ENCODINGS]


# The field: every complete engine reachable here, each a program of its own, side by side. nqcsp's sat
# backend searches with the named PySAT solver and proves an UNSAT with it when its DRAT proofs are checked
# here (PROOF_SOLVERS), else with CaDiCaL 1.9.5. Local search runs on the instances known to be solvable.
FIELD_SAT_SOLVERS = ("cadical195", "kissat404", "glucose4", "minisat22", "cryptominisat5", "lingeling",
                     "maplechrono")
FIELD_CPMPY_ENGINES = ("choco", "exact", "z3", "pumpkin", "highs")
FIELD_CONFIGS = [
    "backtrack", "cpsat", "minizinc",
    *({"solver": "sat", "options": {"sat_solver": name}, "label": f"sat/{name}"}
      for name in FIELD_SAT_SOLVERS),
    *({"solver": "cpmpy", "options": {"engine": name}, "label": f"cpmpy/{name}"}
      for name in FIELD_CPMPY_ENGINES),
    *({"solver": name, "params": {"families": ("codewars", "one-queen"), "known_solvable_only": True}}
      for name in ("qs4", "minconflicts")),
]

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
    "big-queens": {
        "description": "2, 5 and 30 mandatory queens (random, none attacking) on big boards of every kind of "
                       "factorization: 2^21, 3000017 (prime), 10^7, 2^24, 10^8 + 7 (prime), 10^8",
        "family": "big",
        "params": {"sizes": [2**21, 3_000_017, 10**7, 2**24, 10**8 + 7, 10**8], "queens": (2, 5, 30)},
        "configs": ["qs4", "auto"],
        "seeds": [0],
        "timeout": 120,
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
    "completion-peaks": {
        "description": "completion at the peak for 20, 25, 30, 40, 50 free rows (n = 76 .. 475), 50 each",
        "family": "completion",
        "params": {"sizes": [(n, n - free) for free, n in PEAK_FREE_ROWS.items()], "count": 50},
        "configs": EVERYTHING,
        "seeds": [0],
        "timeout": 60,
    },
    "completion-paper": {
        "description": "the paper's peaks 120/95 and 176/146 side by side with shiftqueens (--shiftqueens)",
        "family": "completion",
        "params": {"sizes": PAPER_PEAKS, "count": 50},
        "configs": EVERYTHING,
        "seeds": [0],
        "timeout": 60,
    },
    "completion-phase": {
        "description": "the phase transition: fraction solvable against n for 10, 15, 20 free rows",
        "family": "completion",
        "params": {"sizes": [(n, n - free) for free in (10, 15, 20)
                             for n in sorted({max(free + 1, round(0.19 * free * free * k / 4))
                                              for k in range(1, 13)})],
                   "count": 20},
        "configs": ["auto"],
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
    "limits": {
        "description": "the time-limit promise: every backend, big boards, few-free-row completions and "
                       "10^6 mandatory queens; sat's pairwise formula at n = 4000; writing 10^8 columns "
                       "on the command line; limits 0.5 and 2 s, overshoot per run",
        "family": "limits",
        "params": {"sizes": [10**3, 10**4, 10**6], "completions": [(300, 260), (1000, 927)],
                   "many_queens": [(10**6, 999_000)]},
        "configs": [*BACKENDS, "auto",
                    {"solver": "sat", "options": {"encoding": "pairwise"}, "label": "sat/pairwise",
                     "params": {"sizes": [4000], "completions": [], "blocked": None, "many_queens": []}},
                    # Writing 10^8 columns can only fit a limit that leaves the solve its 3 s.
                    {"solver": "write-columns", "params": {"sizes": [], "completions": [], "blocked": None,
                                                           "many_queens": [], "columns_written": [10**8]},
                     "time_limits": [0.5, 2.0, 8.0]}],
        "seeds": [0],
        "time_limits": [0.5, 2.0],
    },
    "field": {
        "description": "the field on one board: every complete engine here (nqcsp's, PySAT's SAT solvers, "
                       "Gecode, CPMpy's Choco, Exact, Z3, Pumpkin, HiGHS) on CSPLib prob079 (--prob079 DIR), "
                       "its excluded-diagonals problems at the phase transition (n = 21 published, n = 22 "
                       "from its generator), peak completions, Codewars, one queen on n = 10^2..10^5 and "
                       "blocked cells",
        "family": "field",
        # At 2 s a run, the phase transition's points (P(solvable) near 1/2 in CSPLib's own runs at 19
        # diagonals of 21 and 18 of 20, so 20 of 22 beyond them) leave backtrack, the best engine there,
        # 25% and 30% unsolved (the
        # published run; 20 each); the other families are one per prob079 size and more unsolvable triples,
        # cheap for every engine, so that 153 instances x 15 engines x 3 repetitions took 41 minutes on two
        # cores. Every pair runs (no stop after a timeout): a skipped pair would be no repetition.
        "params": {"prob079_sizes": list(range(10, 22)), "prob079_per_size": 1,
                   "peaks": [(n, n - free) for free, n in PEAK_FREE_ROWS.items()], "peak_count": 7,
                   "one_queen": [10**2, 10**3, 10**4, 10**5], "triples": (8, 10, 12), "triples_per_n": 9,
                   "diagonals": [(21, 19, 20, "csplib"), (22, 20, 20, "generator")]},
        "configs": FIELD_CONFIGS,
        "seeds": [0],
        "timeout": 2,
        "session": True,
    },
    "backtrack": {
        "description": "the bitboard engine: count(14..17), count(14) without symmetry, all of n = 12",
        "family": "counting",
        "params": {"sizes": [14, 15, 16, 17]},
        "configs": [{"solver": "count"},
                    {"solver": "count", "options": {"symmetry": False}, "label": "count/no-symmetry",
                     "params": {"sizes": [14]}},
                    {"solver": "solutions", "params": {"sizes": [12], "task": "enumerate"}}],
        "seeds": [0],
        "timeout": 120,
    },
    "backtrack-first": {
        "description": "first solutions of the backtrack backend, one queen at (0, n // 3), n = 20..64",
        "family": "first-row",
        "params": {"sizes": [20, 25, 30, 40, 64]},
        "configs": ["backtrack"],
        "seeds": [0],
        "timeout": 60,
    },
    "cpsat": {
        "description": "cpsat configurations (stock/tuned, models, hints, search), queen at (0, n // 3)",
        "family": "first-row",
        "params": {"sizes": [200, 500, 1000]},
        "configs": CPSAT_CONFIGS,
        "seeds": [1],
        "timeout": 60,
        "stop_after_timeout": True,
    },
    "sat": {
        "description": "sat encodings x SAT solvers x hint, first solutions, one queen at (0, n // 3)",
        "family": "first-row",
        "params": {"sizes": [50, 100, 200, 400, 1000]},
        "configs": SAT_SEARCH_CONFIGS,
        "seeds": [0],
        "timeout": 30,
        "stop_after_timeout": True,
    },
    "sat-proofs": {
        "description": "proof mode per proof solver x encoding: blocked cells n <= 12, unsolvable triples",
        "family": "proofs",
        "params": {},
        "configs": sat_proof_configs,
        "seeds": [0],
        "timeout": 600,
    },
    "localsearch": {
        "description": "local search speed and peak memory, one queen at (n // 2, n // 3), n = 10^4 .. 10^8",
        "family": "big",
        "params": {"sizes": [10**4, 10**5, 10**6, 10**7, 10**8]},
        "configs": [{"solver": name, "max_n": 10**8 if name == "qs4" else 10**6} for name in LOCAL_SEARCH],
        "seeds": [1],
        "timeout": 120,
        "stop_after_timeout": True,
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
