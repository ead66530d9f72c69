"""Scores from judged records only, never during a run: solved, PAR-2, the virtual best solver (VBS) and
each engine's marginal contribution to it, and the MiniZinc Challenge's Borda score.

An engine and an instance form a *pair*; the pair holds every copy recorded for it (repetitions, or a
duplicate line), each judged by ``benchmarks.judging.truth``. A pair is **wrong** when any copy is wrong;
else it is **solved** when more than half of its copies are correct, and its time is then the median of
its copies' PAR-2 times (a copy without a correct answer counting twice its limit), so a repeated run is
scored on its median and one lucky copy of three does not make a solve. PAR-2 is the mean over instances
of a solved pair's time, or twice the time limit for anything else (a pair never run included).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from benchmarks.harness.records import Record
from benchmarks.judging.truth import VERDICTS, instance_truth, verdict

LOCAL_SEARCH_SOLVERS = ("qs4", "minconflicts")
# Which clock a score reads: the wall time, or the CPU time of the run's whole process tree.
CLOCKS = {"wall": "wall_s", "cpu": "cpu_s"}
PICKS = {"median": statistics.median, "min": min, "max": max}


def spread(values: list[float]) -> tuple[float, float, float]:
    """Minimum, median and maximum."""
    return min(values), statistics.median(values), max(values)


@dataclass
class Board:
    """The judged runs of complete engines and of local searches, per pair (engine, instance)."""

    engines: list[str]
    local_search: list[str]
    instances: dict[str, Record]                      # id -> family, n, m, expected, timeout
    truth: dict[str, str | None]
    runs: dict[tuple[str, str], list[Record]] = field(default_factory=dict)
    copy_verdicts: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    clock: str = "wall"
    # Which copy's time a solved pair takes: the median (the scores), or the fastest or slowest (the spread).
    pick: str = "median"

    def timeout(self, instance: str) -> float:
        return float(self.instances[instance]["timeout"])

    def verdict(self, engine: str, instance: str) -> str:
        """The pair's verdict: ``wrong`` if any copy is, ``correct`` if more than half are, else the most
        common other verdict (ties broken in ``VERDICTS`` order); ``not run`` for a pair with no copy."""
        verdicts = self.copy_verdicts.get((engine, instance))
        if not verdicts:
            return "not run"
        if "wrong" in verdicts:
            return "wrong"
        if 2 * verdicts.count("correct") > len(verdicts):
            return "correct"
        others = [v for v in VERDICTS if v != "correct" and v in verdicts]
        return max(others, key=verdicts.count) if others else "unsolved"

    def copy_seconds(self, run: Record, run_verdict: str) -> float:
        """A copy's PAR-2 time on this board's clock."""
        limit = float(run["timeout"])
        if run_verdict != "correct":
            return 2 * limit
        value = run.get(CLOCKS[self.clock])
        # A record from before CPU time was measured has none: it cannot be scored on that clock.
        return 2 * limit if value is None else float(value)

    def time(self, engine: str, instance: str) -> float | None:
        """Seconds of a solved pair (the median of its copies' PAR-2 times), else None."""
        if self.verdict(engine, instance) != "correct":
            return None
        key = (engine, instance)
        copies = zip(self.runs[key], self.copy_verdicts[key], strict=True)
        times = [self.copy_seconds(run, v) for run, v in copies]
        return PICKS[self.pick](times)

    def given(self, engine: str) -> list[str]:
        """The instances an engine was meant to run: all of them for a complete engine, the ones it was
        given for local search."""
        if engine in self.local_search:
            return sorted({i for e, i in self.runs if e == engine})
        return sorted(self.instances)

    def on_clock(self, clock: str, pick: str = "median") -> Board:
        """The same judged runs, timed on another clock (``wall`` or ``cpu``), a solved pair taking the
        ``pick`` of its copies' times (``median``, ``min`` or ``max``)."""
        if clock not in CLOCKS:
            raise ValueError(f"clock {clock!r} is none of {', '.join(CLOCKS)}")
        if pick not in PICKS:
            raise ValueError(f"pick {pick!r} is none of {', '.join(PICKS)}")
        return Board(self.engines, self.local_search, self.instances, self.truth, self.runs,
                     self.copy_verdicts, clock, pick)

    def most_copies(self) -> int:
        return max((len(runs) for runs in self.runs.values()), default=0)


def board_of(records: list[Record], suite: str | None = None) -> Board:
    """The board of the records (of ``suite`` only when named), every copy judged; SKIPPED runs left out."""
    records = [r for r in records if (suite is None or r["suite"] == suite) and r["status"] != "SKIPPED"]
    if not records:
        raise ValueError(f"no runs{f' of the {suite} suite' if suite else ''} in these results")
    truth = instance_truth(records)
    local = sorted({r["config"] for r in records if r["solver"] in LOCAL_SEARCH_SOLVERS})
    engines = sorted({r["config"] for r in records} - set(local))
    instances: dict[str, Record] = {}
    for r in records:
        facts = {"family": r["family"], "n": r["n"], "m": r["m"], "expected": r.get("expected"),
                 "timeout": r["timeout"]}
        if instances.setdefault(r["instance"], facts) != facts:
            raise ValueError(f"{r['instance']}: two records describe the instance differently "
                             f"({instances[r['instance']]} and {facts})")
    board = Board(engines, local, instances, truth)
    for r in records:
        key = (r["config"], r["instance"])
        board.runs.setdefault(key, []).append(r)
        board.copy_verdicts.setdefault(key, []).append(verdict(r, truth[r["instance"]]))
    return board


def par2(board: Board, engine: str, instances: list[str]) -> float:
    """Mean seconds per instance, a pair without a solve (or never run) counting twice its limit."""
    if not instances:
        return 0.0
    total = 0.0
    for instance in instances:
        seconds = board.time(engine, instance)
        total += 2 * board.timeout(instance) if seconds is None else seconds
    return total / len(instances)


def vbs_times(board: Board, engines: list[str], instances: list[str]) -> dict[str, float | None]:
    """The virtual best solver of ``engines``: the fastest solve on each instance, or None."""
    best: dict[str, float | None] = {}
    for instance in instances:
        times = [t for t in (board.time(e, instance) for e in engines) if t is not None]
        best[instance] = min(times) if times else None
    return best


def vbs_score(board: Board, engines: list[str], instances: list[str]) -> tuple[int, float]:
    """Solved instances and PAR-2 of the virtual best solver of ``engines``."""
    best = vbs_times(board, engines, instances)
    solved = sum(t is not None for t in best.values())
    total = sum(2 * board.timeout(i) if t is None else t for i, t in best.items())
    return solved, total / len(instances) if instances else 0.0


def marginal(board: Board, instances: list[str]) -> dict[str, tuple[int, float]]:
    """Each complete engine's marginal contribution: instances the VBS loses without it, and how much its
    PAR-2 grows."""
    solved, score = vbs_score(board, board.engines, instances)
    out = {}
    for engine in board.engines:
        without_solved, without_score = vbs_score(board, [e for e in board.engines if e != engine], instances)
        out[engine] = (solved - without_solved, without_score - score)
    return out


def borda(board: Board, engines: list[str], instances: list[str]) -> dict[str, float]:
    """The MiniZinc Challenge's Borda score for a satisfaction problem, over every pair of ``engines``: on
    each instance each pair of engines shares one point, all to the one that solved when the other did
    not, split as t_other / (t_self + t_other) when both did."""
    score = {engine: 0.0 for engine in engines}
    for instance in instances:
        times = {engine: board.time(engine, instance) for engine in engines}
        for engine, mine in times.items():
            if mine is None:
                continue
            for other, theirs in times.items():
                if other == engine:
                    continue
                if theirs is None:
                    score[engine] += 1.0
                else:
                    score[engine] += 0.5 if mine + theirs == 0 else theirs / (mine + theirs)
    return score


def family_instances(board: Board, family: str | None) -> list[str]:
    return sorted(i for i, facts in board.instances.items() if family is None or facts["family"] == family)


def families(board: Board) -> list[str]:
    """The families that ran, in the order of first appearance of their names sorted."""
    return sorted({facts["family"] for facts in board.instances.values()})


def score_rows(board: Board, family: str | None, program: Callable[[str], str] = str) -> list[dict[str, Any]]:
    """One row per complete engine on a family (None: every instance), best Borda first."""
    instances = family_instances(board, family)
    points = borda(board, board.engines, instances)
    contribution = marginal(board, instances)
    rows = []
    for engine in board.engines:
        verdicts = [board.verdict(engine, i) for i in instances]
        rows.append({"engine": engine, "program": program(engine),
                     "solved": verdicts.count("correct"), "instances": len(instances),
                     "par2": par2(board, engine, instances), "borda": points[engine],
                     "only_solver": contribution[engine][0], "marginal_par2": contribution[engine][1],
                     "wrong": verdicts.count("wrong"), "unconfirmed": verdicts.count("unconfirmed"),
                     "failed": verdicts.count("failed"), "not_run": verdicts.count("not run")})
    rows.sort(key=lambda row: (-row["borda"], row["par2"], row["engine"]))
    return rows


def wrong_answers(board: Board) -> list[tuple[str, str, Record]]:
    """Every wrong copy: the engine, the instance and the record."""
    return sorted(((engine, instance, run) for (engine, instance), runs in board.runs.items()
                   for run, v in zip(runs, board.copy_verdicts[(engine, instance)], strict=True)
                   if v == "wrong"), key=lambda item: (item[0], item[1]))


def accepted_wrong(board: Board) -> list[tuple[str, str]]:
    """Pairs the scores count as solved on a copy whose record contradicts the instance's truth: a second
    look at the judging, from the records alone (a solution that failed verification, an UNSAT where the
    truth is not UNSAT, a SAT where it is UNSAT, a status that is no answer)."""
    accepted = set()
    for (engine, instance), runs in board.runs.items():
        if board.verdict(engine, instance) != "correct":
            continue
        truth = board.truth[instance]
        for run, v in zip(runs, board.copy_verdicts[(engine, instance)], strict=True):
            contradicted = (run["status"] == "SAT" and (run.get("verified") is False or truth == "UNSAT")) \
                or (run["status"] == "UNSAT" and truth != "UNSAT") or run["status"] not in ("SAT", "UNSAT")
            if v == "correct" and contradicted:
                accepted.add((engine, instance))
    return sorted(accepted)


def limit_breaks(board: Board) -> list[tuple[str, str, Record]]:
    """Copies that did not keep the time-limit promise (max(10%, 0.5 s)) or that the runner killed."""
    broken = [(e, i, r) for (e, i), runs in board.runs.items() for r in runs if r.get("kept_limit") is False]
    return sorted(broken, key=lambda item: (item[0], item[1]))
