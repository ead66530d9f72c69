"""The class sweep's acceptance of a task's answer: the driver's check of a task it ran
(``check_outcome``), and of a task a checkpoint records, first its form (``recorded_outcome``), then what it
says, recomputed from its task and its witnesses (``recheck_outcome``) before it counts."""

from __future__ import annotations

import time

import numpy as np

from nqcsp.board.result import InternalSolverError, Status
from nqcsp.runtime.values import Fields
from nqcsp.studies.cover_cache import CoverCache
from nqcsp.studies.level_sweep import BlockedClass, UndecidedClass
from nqcsp.studies.set_tasks import SetTask, TaskOutcome


def check_outcome(outcome: TaskOutcome) -> None:
    """The driver's own acceptance test of a task's answer: every witness is a solution (``verify``), every
    blocked class is k non-attacking queens with a checked certificate, and the account adds up."""
    from nqcsp.board.problem import find_attack
    from nqcsp.proof.verifier import find_violation

    task = outcome.task
    n, k = task.n, task.k
    for witness in outcome.witnesses:
        violation = find_violation(n, witness)
        if violation is not None:
            raise InternalSolverError(f"{task}: a witness is not a solution: {violation}")
    for blocked in outcome.blocked:
        if len(set(blocked.queens)) != k or find_attack(blocked.queens) is not None:
            raise InternalSolverError(f"{task}: {blocked.queens} is not a set of {k} non-attacking queens")
        if not blocked.certificate.get("checked_by"):
            raise InternalSolverError(f"{task}: {blocked.queens} is blocked without a checked certificate")
    settled = outcome.covered + outcome.searched + len(outcome.undecided)
    if outcome.complete and settled != outcome.classes:
        raise InternalSolverError(f"{task}: {outcome.classes} classes but {settled} accounted for")


def recorded_outcome(task: SetTask, record: object, where: str) -> TaskOutcome:
    """The outcome a checkpoint line records for ``task``, its form checked (``TaskOutcome.from_json``) and
    its task the one it is filed under; ValueError naming ``where`` (the file and line) otherwise. What it
    says is still to be recomputed (``recheck_outcome``)."""
    outcome = TaskOutcome.from_json(Fields(record, where).record("outcome").data, f"{where}: outcome")
    if outcome.task != task:
        said = outcome.task
        raise ValueError(f"{where}: the outcome is of task {said.ident} (n = {said.n}, k = {said.k}), "
                         f"not of the task {task.ident} it is filed under")
    return outcome


def recheck_outcome(outcome: TaskOutcome, where: str, seed: int = 0, time_limit: float | None = None,
                    stop_at_blocked: bool = False, cover: CoverCache | None = None) -> TaskOutcome:
    """``outcome`` as far as it is true, recomputed from its task and its witnesses alone (and, with
    ``cover``, the witnesses of the other records, verified and marked there by the driver): the task's
    classes and k-sets enumerated again, every witness verified as a solution (``nqcsp.verify``), the
    classes they cover counted again and matched with ``covered`` and ``searched``, every blocked and
    undecided class one of the task's classes that no witness of its own covers (with its class size), the
    account whole; and every blocked class decided again by ``nqcsp.solve(..., solver="auto")``, whose
    fresh certificate replaces the recorded one (a class it cannot decide within ``time_limit`` becomes
    undecided). ValueError naming ``where`` for anything false: a record that was edited, or belongs to
    another task, counts nothing."""
    from nqcsp.api import solve
    from nqcsp.bitboard import queen_set_kernels as kernels
    from nqcsp.proof.verifier import find_violation

    task = outcome.task
    n, k = task.n, task.k
    args = (n, k, task.first, task.second_lo, task.second_hi)

    def false(what: str) -> ValueError:
        return ValueError(f"{where}: the record of task {task.ident} is false: {what}")

    keys, sizes = kernels.task_classes(*args)
    ksets = int(sizes.sum(dtype=np.int64))
    if (outcome.classes, outcome.ksets) != (len(keys), ksets):
        raise false(f"it says {outcome.classes} classes and {outcome.ksets} sets, the task has {len(keys)} "
                    f"and {ksets}")
    for index, witness in enumerate(outcome.witnesses):
        violation = find_violation(n, witness)
        if violation is not None:
            raise false(f"witness {index} is not a solution: {violation}")
    state = np.zeros(len(keys), dtype=np.int8)
    gains = np.zeros(len(outcome.witnesses), dtype=np.int64)
    kernels.cover_many(*args, keys, state, np.ascontiguousarray(outcome.witnesses), gains)
    scratch = np.empty(k, dtype=np.int64)
    seen: set[int] = set()
    named_classes: list[BlockedClass | UndecidedClass] = [*outcome.blocked, *outcome.undecided]
    for named in named_classes:
        codes = np.array(sorted(r * n + c for r, c in named.queens), dtype=np.int64)
        least, own, size = kernels.class_of(n, codes, k, scratch)
        index = int(np.searchsorted(keys, least))
        if least != own or index >= len(keys) or keys[index] != least:
            raise false(f"{named.queens} is not a class of this task in its canonical form")
        if state[index] == kernels.WITNESSED:
            raise false(f"{named.queens} is listed undecided or blocked, but a witness completes it")
        if int(least) in seen or named.size != int(sizes[index]):
            raise false(f"{named.queens} is listed twice, or with a class size other than {sizes[index]}")
        seen.add(int(least))
        state[index] = kernels.EXHAUSTED      # named: not to be taken as covered by the cache below
    if cover is not None:
        kernels.take_known(n, k, keys, cover.binom(), cover.bits(), state)
    witnessed = int(np.count_nonzero(state == kernels.WITNESSED))
    by_search = outcome.searched - len(outcome.blocked)
    if by_search < 0 or outcome.covered + by_search != witnessed:
        raise false(f"its witnesses cover {witnessed} classes, it says {outcome.covered} covered and "
                    f"{by_search} solved by search")
    settled = witnessed + len(seen)
    stopped = stop_at_blocked and outcome.blocked
    if settled > len(keys) or (settled != len(keys) and (outcome.complete or not stopped)) \
            or (not outcome.complete and not stopped):
        raise false(f"{settled} of its {len(keys)} classes are accounted for "
                    f"({'complete' if outcome.complete else 'stopped at a blocked class'})")
    blocked: list[BlockedClass] = []
    undecided = list(outcome.undecided)
    for recorded in outcome.blocked:
        began = time.perf_counter()
        result = solve(n, list(recorded.queens), solver="auto", seed=seed, time_limit=time_limit)
        if result.status is Status.SAT:
            raise false(f"{recorded.queens} is listed blocked, but it has a solution")
        certificate = result.certificate
        if result.status is Status.UNSAT and certificate is not None and certificate.checked:
            blocked.append(BlockedClass(recorded.queens, recorded.size, result.solver, certificate.to_json(),
                                        time.perf_counter() - began))
        else:
            undecided.append(UndecidedClass(recorded.queens, recorded.size, str(result.stats.get(
                "reason", "UNSAT without a checked certificate"))))
    return TaskOutcome(task, outcome.classes, outcome.ksets, outcome.covered, by_search + len(blocked),
                       blocked, undecided, outcome.witnesses, outcome.complete, outcome.seconds)


def verified_witnesses(outcome: TaskOutcome, where: str) -> None:
    """Every witness of a recorded outcome a solution (ValueError naming ``where``), before it may mark
    the cover cache."""
    from nqcsp.proof.verifier import find_violation

    for index, witness in enumerate(outcome.witnesses):
        violation = find_violation(outcome.task.n, witness)
        if violation is not None:
            raise ValueError(f"{where}: the record of task {outcome.task.ident} is false: witness {index} is "
                             f"not a solution: {violation}")
