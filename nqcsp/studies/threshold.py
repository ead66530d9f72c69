"""The n-queens completion threshold (OEIS A374013): the largest a(n) such that every placement of a(n) or
fewer mutually non-attacking queens on an n x n board extends to a solution, with its evidence.

``completion_threshold(n)`` sweeps k = 0, 1, 2, ... (``nqcsp.studies.queen_sets``): every class of k-sets
covered by a witness or decided, until the first k with a blocked class; then a(n) = k - 1. The evidence is

- ``blocked``: a set of a(n) + 1 queens with a checked certificate that it has no solution, and
- the account of every k <= a(n): the witness solutions, each a verified solution, whose k-subsets cover
  every class of k-sets, with the per-level totals (classes, k-sets, covered by witnesses, decided by
  search).

``check_threshold(evidence)`` re-checks a saved evidence document without the search: the certificate again
(``nqcsp.proof.certify.recheck``), every witness with ``nqcsp.verify``, and the coverage of every level by
code that shares nothing with the sweep (numpy: canonical forms of every k-subset of every witness, their
orbit sizes summed against a count of all k-sets).
"""

from __future__ import annotations

import base64
import contextlib
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell, as_board_size
from nqcsp.board.result import Certificate, InternalSolverError, Status
from nqcsp.runtime.paths import make_directory
from nqcsp.runtime.values import as_seconds

FORMAT = "nqcsp-threshold"
VERSION = 1
# Certificates whose evidence nqcsp.proof.certify re-checks by itself; any other kind (an agreement of two
# backends) is re-checked by deciding that one set again.
RECHECKABLE = ("attack", "empty-line", "drat", "lrat")
_CHECK_CHUNK = 1 << 21          # subset images held at once while checking coverage


class UndecidedError(RuntimeError):
    """Some class could not be decided (a time limit, or no second complete backend installed), so the
    threshold is not known."""


@dataclass
class Level:
    """The account of the sets of ``k`` queens: every class covered by a witness or decided by search."""

    k: int
    classes: int
    ksets: int
    covered: int
    searched: int
    tasks: int
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "classes": self.classes, "ksets": self.ksets,
                "covered_by_witnesses": self.covered, "decided_by_search": self.searched,
                "tasks": self.tasks, "seconds": round(self.seconds, 3)}


@dataclass
class Threshold:
    """a(n) (``value``) with its evidence: ``blocked`` (a(n) + 1 queens, no solution, ``certificate``
    checked) and ``levels`` (k = 0..a(n), every class completable), ``witnesses`` behind the levels."""

    n: int
    value: int
    blocked: tuple[Cell, ...]
    certificate: Certificate
    levels: list[Level] = field(default_factory=list)
    witnesses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.int64))
    blocked_level: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The evidence document ``check_threshold`` (``nqcsp check-threshold FILE``) re-checks."""
        return {"format": FORMAT, "version": VERSION, "n": self.n, "value": self.value,
                "blocked": {"queens": [list(c) for c in self.blocked],
                            "certificate": {"kind": self.certificate.kind,
                                            "checked_by": list(self.certificate.checked_by),
                                            "details": _encode(self.certificate.details)}},
                "levels": [level.to_json() for level in self.levels],
                "blocked_level": self.blocked_level, "seconds": round(self.seconds, 3),
                "witnesses": self.witnesses.tolist()}


def _encode(value: Any) -> Any:
    """Certificate details as JSON, byte strings kept whole (base64) so the proof can be checked again."""
    if isinstance(value, (bytes, bytearray)):
        return {"base64": base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, dict):
        return {str(key): _encode(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_encode(item) for item in value]
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    return repr(value)


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"base64"} and isinstance(value["base64"], str):
            return base64.b64decode(value["base64"])
        return {key: _decode(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_decode(item) for item in value]
    return value


def _as_threshold_size(n: object) -> int:
    size = as_board_size(n)
    if size < 4:
        raise ValueError(f"n must be at least 4 (OEIS A374013 starts at n = 4: smaller boards have no "
                         f"solution or only trivial ones), got {size}")
    return size


@contextlib.contextmanager
def _executor(n: int, executor: Executor | None, jobs: int | None) -> Iterator[Executor]:
    from nqcsp.runtime.parallel import InProcess, owned_pool

    if executor is not None:
        yield executor
        return
    if n <= 10:
        yield InProcess()        # a whole run under a second: no pool to start (and spawn-safe)
        return
    with owned_pool(jobs) as pool:
        yield pool


def completion_threshold(n: int, *, executor: Executor | None = None, jobs: int | None = None,
                         seed: int = 0, checkpoint_dir: str | None = None, search_first: float = 0.0,
                         progress: Callable[[int, Any], None] | None = None) -> Threshold:
    """a(n) of OEIS A374013 with its evidence (see the module's doc). ``checkpoint_dir`` keeps each level's
    finished tasks (``n{n}-k{k}.jsonl``), so that a rerun resumes; ``progress(k, account)`` is called after
    each task. Raises ``UndecidedError`` when a class stays undecided (a backend missing, say).

    ``search_first``: seconds of ``nqcsp.studies.blockade_search`` (one chain per worker) before each level's
    sweep from k = 2 on; a certified blocked set it finds ends the run at that level without the sweep (whose
    first blocked class can be hours away on large boards: 5 queens at n = 20). The levels below are swept
    whole either way, so the answer and its evidence are the same kind."""
    from nqcsp.api import solve
    from nqcsp.studies.queen_sets import iter_set_sweep

    n = _as_threshold_size(n)
    if search_first != 0:
        search_first = as_seconds(search_first, "search_first")
    folder = None if checkpoint_dir is None else make_directory(checkpoint_dir, "checkpoint directory")
    started = time.perf_counter()
    first = solve(n, solver="auto", seed=seed)
    if first.status is not Status.SAT:
        raise InternalSolverError(f"n = {n} has solutions, but auto answered {first.status}")
    levels = [Level(0, 1, 1, 1, 0, 0, first.stats.get("wall_s", 0.0))]
    witnesses = [np.asarray(first.columns, dtype=np.int64).reshape(1, n)]

    def finish(k: int, blocked: list[Any], how: dict[str, Any]) -> Threshold:
        """a(n) = k - 1: the least blocked class found, its certificate kept whole."""
        least = min(blocked, key=lambda b: b.queens)
        return Threshold(n, k - 1, least.queens, _certified(n, least.queens, seed), levels,
                         np.concatenate(witnesses), {"k": k, **how}, time.perf_counter() - started)
    with _executor(n, executor, jobs) as pool:
        for k in range(1, n + 1):
            path = None if folder is None else str(folder / f"n{n}-k{k}.jsonl")
            if search_first > 0 and k >= 2:
                from nqcsp.studies.blockade_search import search

                report = search(n, k, search_first, seed=seed, chains=getattr(pool, "max_workers", 1),
                                executor=pool, stop_at_first=True)
                if report.blocked:
                    return finish(k, report.blocked, {"found_by": "search", "search_seconds": search_first,
                                                      "classes_decided_before_stop": report.decided})
            account = None
            with contextlib.closing(iter_set_sweep(n, k, executor=pool, seed=seed, stop_at_blocked=True,
                                                   checkpoint=path, keep_witnesses=True)) as running:
                for account in running:
                    if progress is not None:
                        progress(k, account)
            if account is None:
                raise InternalSolverError(f"n = {n}, k = {k}: the sweep planned no task")
            if account.blocked:
                return finish(k, account.blocked, {"found_by": "sweep",
                                                   "classes_decided_before_stop": account.classes,
                                                   "tasks_done": account.tasks_done, "tasks": account.tasks})
            if account.undecided:
                raise UndecidedError(f"n = {n}: {len(account.undecided)} classes of {k} queens undecided, "
                                     f"such as {account.undecided[0].queens} ({account.undecided[0].reason})")
            levels.append(Level(k, account.classes, account.ksets, account.covered, account.searched,
                                account.tasks, account.seconds))
            witnesses.extend(account.witnesses)
    raise InternalSolverError(f"n = {n}: every set of queens completes, which no board allows")


def _certified(n: int, queens: tuple[Cell, ...], seed: int) -> Certificate:
    """The blocked set decided again here, for a certificate whose evidence (proof bytes) is kept whole."""
    from nqcsp.api import solve

    result = solve(n, list(queens), solver="auto", seed=seed)
    certificate = result.certificate
    if result.status is not Status.UNSAT or certificate is None or not certificate.checked:
        raise InternalSolverError(f"n = {n}: {queens} was certified blocked in its task but auto now answers "
                                  f"{result.status} ({result.stats.get('reason', '')})")
    return certificate


# --- re-checking saved evidence, with code the sweep does not use ----------------------------------------

@dataclass
class CheckReport:
    ok: bool
    lines: list[str]


def count_sets(n: int, k: int) -> int:
    """Sets of k mutually non-attacking queens (cliques of the non-attack graph), by plain numpy."""
    rows, cols = np.divmod(np.arange(n * n), n)
    peaceful = ((rows[:, None] != rows[None, :]) & (cols[:, None] != cols[None, :])
                & (rows[:, None] + cols[:, None] != rows[None, :] + cols[None, :])
                & (rows[:, None] - cols[:, None] != rows[None, :] - cols[None, :]))

    def extend(candidates: np.ndarray, more: int) -> int:
        if more == 0:
            return 1
        if more == 1:
            return len(candidates)
        if more == 2:
            return int(np.triu(peaceful[np.ix_(candidates, candidates)], 1).sum())
        total = 0
        for index, cell in enumerate(candidates.tolist()):
            later = candidates[index + 1:]
            total += extend(later[peaceful[cell, later]], more - 1)
        return total

    return extend(np.arange(n * n), k)


def _sorted_key(codes: np.ndarray, powers: np.ndarray) -> np.ndarray:
    """Key of each row of codes (last axis) once sorted, by a sorting network: numpy's sort of many tiny
    rows took 40% of a check."""
    columns = [codes[..., i] for i in range(codes.shape[-1])]
    for last in range(len(columns) - 1, 0, -1):
        for i in range(last):
            low, high = np.minimum(columns[i], columns[i + 1]), np.maximum(columns[i], columns[i + 1])
            columns[i], columns[i + 1] = low, high
    key = np.zeros(columns[0].shape, dtype=np.int64)
    for column, power in zip(columns, powers.tolist(), strict=True):
        key += column * power
    return key


def covered_classes(n: int, k: int, witnesses: np.ndarray) -> dict[int, int]:
    """Canonical key -> orbit size of every class of k-sets that some k-subset of a witness stands for."""
    if k == 0:
        return {0: 1} if len(witnesses) else {}
    m, base = n - 1, n * n
    subsets = np.array(list(combinations(range(n), k)), dtype=np.int64)
    powers = base ** np.arange(k - 1, -1, -1, dtype=np.int64)
    found_keys, found_sizes = [], []
    chunk = max(1, _CHECK_CHUNK // (8 * len(subsets) * k))
    for start in range(0, len(witnesses), chunk):
        board = witnesses[start:start + chunk]
        r = np.broadcast_to(subsets, (len(board), *subsets.shape))
        c = board[:, subsets]
        images = [(r, c), (c, r), (m - r, c), (r, m - c), (m - r, m - c), (c, m - r), (m - c, r),
                  (m - c, m - r)]
        keys = [_sorted_key(a * n + b, powers) for a, b in images]
        # The orbit's size: how many of the 8 image keys differ from every earlier one.
        sizes = np.ones(keys[0].shape, dtype=np.int64)
        for index in range(1, 8):
            sizes += np.logical_and.reduce([keys[index] != keys[other] for other in range(index)])
        least, first = np.unique(np.minimum.reduce(keys).ravel(), return_index=True)
        found_keys.append(least)
        found_sizes.append(sizes.ravel()[first])
    if not found_keys:
        return {}
    least, first = np.unique(np.concatenate(found_keys), return_index=True)
    return dict(zip(least.tolist(), np.concatenate(found_sizes)[first].tolist(), strict=True))


def check_threshold(evidence: dict[str, Any], time_limit: float | None = None) -> CheckReport:
    """Re-check an evidence document (``Threshold.to_json()``) without re-running the sweep."""
    from nqcsp.board.problem import Problem
    from nqcsp.proof.certify import recheck
    from nqcsp.proof.verifier import find_violation
    from nqcsp.runtime.limits import Limits

    if not isinstance(evidence, dict) or evidence.get("format") != FORMAT:
        raise ValueError(f"not an nqcsp threshold evidence document (no \"format\": \"{FORMAT}\")")
    try:
        n = _as_threshold_size(evidence["n"])
        value = int(evidence["value"])
        queens = [tuple(q) for q in evidence["blocked"]["queens"]]
        cert = evidence["blocked"]["certificate"]
        witnesses = np.array(evidence["witnesses"], dtype=np.int64).reshape(-1, n)
        recorded = {int(level["k"]): level for level in evidence["levels"]}
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"malformed threshold evidence: {type(exc).__name__}: {exc}") from None
    lines, ok = [], True

    def say(good: bool, text: str) -> None:
        nonlocal ok
        ok &= good
        lines.append(("ok    " if good else "FAIL  ") + text)

    problem = Problem(n, queens)
    plain = len(set(problem.queens)) == value + 1 and problem.attack is None
    named = " ".join(f"{r},{c}" for r, c in queens)
    say(plain, f"blocked set: {value + 1} distinct non-attacking queens {named}")
    certificate = Certificate(str(cert.get("kind")), (), _decode(cert.get("details") or {}))
    checked = recheck(problem, certificate, Limits.start(time_limit))
    if checked.checked:
        say(plain, f"its certificate ({certificate.kind}) re-checked by {', '.join(checked.checked_by)}")
    elif certificate.kind in RECHECKABLE:
        say(False, f"its certificate ({certificate.kind}) is rejected: "
            f"{checked.details.get('unchecked', 'the check failed')}")
    else:
        # An agreement of two backends cannot be re-checked from saved bytes: decide that one set again.
        from nqcsp.api import solve

        again = solve(problem, solver="auto", time_limit=time_limit)
        good = again.status is Status.UNSAT and again.certificate is not None and again.certificate.checked
        summary = f", {again.certificate.summary()}" if again.certificate else ""
        say(good and plain, f"its certificate ({certificate.kind}) cannot be re-checked from the file; "
            f"decided again: {again.status}{summary}")
    bad = [index for index, w in enumerate(witnesses) if find_violation(n, w) is not None]
    say(not bad and len(witnesses) > 0, f"{len(witnesses)} witnesses verified as solutions"
        + (f"; invalid: {bad[:5]}" if bad else ""))
    good_witnesses = np.delete(witnesses, bad, axis=0)
    for k in range(value + 1):
        classes = covered_classes(n, k, good_witnesses)
        total = count_sets(n, k)
        covered = sum(classes.values())
        level = recorded.get(k, {})
        say(covered == total, f"k = {k}: {len(classes)} classes covered, {covered} of {total} sets of {k} "
            "queens")
        if level and (level.get("classes") != len(classes) or level.get("ksets") != total):
            say(False, f"k = {k}: the recorded account says {level.get('classes')} classes and "
                f"{level.get('ksets')} sets")
        elif not level:
            say(False, f"k = {k}: no account recorded")
    return CheckReport(ok, lines)
