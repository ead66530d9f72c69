"""The row sweep's tasks (``row_sweep``): the plan, the k-combinations of rows up to their row mirror; a
task's account (``RowOutcome``, as its checkpoint line records it); and how a task sweeps its combinations
against the witness file (``sweep_combos``), with the randomised solutions a sweep starts from
(``random_solutions``)."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.board.problem import Cell
from nqcsp.board.result import InternalSolverError
from nqcsp.runtime.values import Fields
from nqcsp.studies.ksets import check_size, key_cells
from nqcsp.studies.level_sweep import NODES_PER_ROW, BlockedClass, UndecidedClass, settle_open_set
from nqcsp.studies.witness_file import loaded_copy

SAMPLE_COMBOS = 64           # combinations scanned to estimate the sets per combination


def _kernels() -> Any:
    from nqcsp.bitboard import row_sweep_kernels

    return row_sweep_kernels


def plan_combinations(n: int, k: int) -> np.ndarray:
    """The k-combinations R of range(n) with R <= its row mirror (sorted n - 1 - R), lexicographically:
    shape (count, k), int64."""
    kept = [combo for combo in itertools.combinations(range(n), k)
            if combo <= tuple(sorted(n - 1 - r for r in combo))]
    return np.array(kept, dtype=np.int64).reshape(len(kept), k)


def combination_weights(n: int, combos: np.ndarray) -> np.ndarray:
    """2 for a combination whose row mirror is another one (its sets stand for the mirror's too), else 1."""
    mirrored = np.sort(n - 1 - combos, axis=1)
    return np.where((mirrored == combos).all(axis=1), 1, 2).astype(np.int64)


def check_row_sweep_size(n: int, k: int) -> tuple[int, int]:
    """(n, k) as ints that the row sweep takes, or ValueError naming what it cannot."""
    n, k = check_size(n, k)
    if n ** k >= 2 ** 62:
        raise ValueError(f"k = {k} queens on an {n} x {n} board: column tuples would need more than 62 bits")
    return n, k


@dataclass
class RowOutcome:
    """A task's account, in sets (a set and its images on the mirrored rows and columns each count):
    ``sets`` on its combinations = ``covered`` by witnesses known when the scan reached them + ``found`` by
    new witnesses of the randomised search + ``searched`` by the residual engine's witnesses +
    ``blocked_sets`` + ``undecided_sets``; the blocked and undecided classes (each once, canonical, with
    its size); ``witnesses``: the new ones, (m, n) uint8. ``complete`` is False when the task stopped at a
    blocked set. ``hints``: in a derived sweep, the position of each witness of the randomised search
    (``nqcsp.bitboard.derived_witnesses``), increasing; recorded, so that a resumed sweep has them."""

    lo: int
    hi: int
    sets: int = 0
    covered: int = 0
    found: int = 0
    searched: int = 0
    blocked_sets: int = 0
    undecided_sets: int = 0
    blocked: list[BlockedClass] = field(default_factory=list)
    undecided: list[UndecidedClass] = field(default_factory=list)
    witnesses: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), dtype=np.uint8))
    known: int = 0
    complete: bool = True
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    hints: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    @property
    def ident(self) -> str:
        return f"combos:{self.lo}:{self.hi}"

    def to_json(self) -> dict[str, Any]:
        return {"sets": self.sets, "covered": self.covered, "found": self.found, "searched": self.searched,
                "blocked_sets": self.blocked_sets, "undecided_sets": self.undecided_sets,
                "blocked": [b.to_json() for b in self.blocked],
                "undecided": [u.to_json() for u in self.undecided], "known": self.known,
                "complete": self.complete, "seconds": round(self.seconds, 4),
                "cpu_seconds": round(self.cpu_seconds, 4), **_hints_json(self.hints)}

    @classmethod
    def from_json(cls, data: object, lo: int, hi: int, n: int, k: int, where: str) -> RowOutcome:
        """What ``to_json`` wrote for the task ``lo .. hi - 1``, each field's form checked (ValueError naming
        ``where``); its witnesses are those the checkpoint's witness file holds."""
        fields = Fields(data, where)
        hints = _hints_from(fields, lo, hi, n, k)
        sets, covered, found, searched = (fields.integer(name, 0)
                                          for name in ("sets", "covered", "found", "searched"))
        # The first records of this format had no count of blocked and undecided sets: none were listed.
        blocked_sets, undecided_sets = (fields.integer(name, 0) if name in fields.data else 0
                                        for name in ("blocked_sets", "undecided_sets"))
        parts = covered + found + searched + blocked_sets + undecided_sets
        complete = fields.flag("complete")
        if not complete and parts < sets:
            sets = parts     # a stopped task recorded before 2026-12 counted its last combination whole
        if parts != sets:
            raise ValueError(f"{where}: its {sets} sets are not the sum of its covered, found, searched, "
                             "blocked and undecided ones")
        blocked = [BlockedClass.from_json(entry.data, n, k, entry.where)
                   for entry in fields.records("blocked")]
        undecided = [UndecidedClass.from_json(entry.data, n, k, entry.where)
                     for entry in fields.records("undecided")]
        return cls(lo, hi, sets, covered, found, searched, blocked_sets, undecided_sets, blocked, undecided,
                   np.zeros((0, n), dtype=np.uint8), fields.integer("known", 0), complete,
                   fields.number("seconds"),
                   fields.number("cpu_seconds") if "cpu_seconds" in fields.data else 0.0, hints)


def _hints_json(hints: np.ndarray) -> dict[str, Any]:
    """A derived task's positions, as ``encode_positions`` writes them (base64); nothing for the others."""
    if not len(hints):
        return {}
    import base64

    from nqcsp.bitboard.derived_witnesses import encode_positions

    return {"hints": {"count": len(hints), "base64": base64.b64encode(encode_positions(hints)).decode()}}


def _hints_from(fields: Fields, lo: int, hi: int, n: int, k: int) -> np.ndarray:
    """The positions a record's "hints" hold, each one on the task's own combinations."""
    if "hints" not in fields.data:
        return np.zeros(0, dtype=np.int64)
    import base64
    import binascii

    from nqcsp.bitboard.derived_witnesses import decode_positions

    stored = fields.record("hints").only("count", "base64")
    try:
        data = base64.b64decode(stored.text("base64"), validate=True)
        positions = decode_positions(data, stored.integer("count", 1), hi * n ** k)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError(f"{stored.where}: base64 is not base64") from None
    except ValueError as exc:
        raise ValueError(f"{stored.where}: {exc}") from None
    if positions[0] < lo * n ** k:
        raise ValueError(f"{stored.where}: position {int(positions[0])} is not on combinations "
                         f"{lo}..{hi - 1}")
    return positions


_PLANS: dict[tuple[int, int], np.ndarray] = {}


def cached_plan(n: int, k: int) -> np.ndarray:
    """``plan_combinations(n, k)``, kept for the next call of this process (its tasks share one plan)."""
    if (n, k) not in _PLANS:
        _PLANS.clear()
        _PLANS[(n, k)] = plan_combinations(n, k)
    return _PLANS[(n, k)]


def _rng(seed: int, salt: int) -> np.ndarray:
    mixed = (seed * 0x9E3779B97F4A7C15 + salt * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) % 2**64
    return np.array([mixed or 1], dtype=np.uint64)


def _bit(block: np.ndarray, n: int, columns: np.ndarray) -> bool:
    """Whether the block marks the tuple ``columns`` (canonical: its index is at most its mirror's)."""
    index = 0
    for col in columns.tolist():
        index = index * n + col
    return bool(int(block[index >> 6]) >> (index & 63) & 1)


def _canonical_class(n: int, cells: tuple[Cell, ...]) -> tuple[tuple[Cell, ...], int]:
    """The class of ``cells``: its canonical set (least key) and its size."""
    from nqcsp.bitboard.queen_set_kernels import class_of

    codes = np.array(sorted(r * n + c for r, c in cells), dtype=np.int64)
    least, _, size = class_of(n, codes, len(codes), np.empty(len(codes), dtype=np.int64))
    return key_cells(n, len(cells), int(least)), int(size)


def sweep_combos(path: str, run: str, n: int, k: int, lo: int, hi: int, seed: int = 0,
                 time_limit: float | None = None, stop_at_blocked: bool = False,
                 derived: bool = False) -> RowOutcome:
    """Combinations ``lo .. hi - 1`` of ``plan_combinations(n, k)`` swept against the witnesses of the
    file ``path`` of the sweep ``run`` (read again before each combination), those found here kept in
    ``witnesses``. With ``derived`` each randomised search starts from its set's position
    (``nqcsp.bitboard.derived_witnesses``), which ``hints`` keeps for every witness it found."""
    kernels = _kernels()
    started, cpu = time.perf_counter(), time.process_time()
    combos = cached_plan(n, k)
    weights = combination_weights(n, combos[lo:hi])
    loaded = loaded_copy(path, run, n)
    own = np.zeros((0, n), dtype=np.uint8)
    loaded.refresh(own)
    outcome = RowOutcome(lo, hi, known=loaded.in_file)
    block = np.zeros(kernels.block_words(n, k), dtype=np.uint64)
    rng = _rng(seed, lo)
    no_hard = np.zeros((0, k), dtype=np.int64)
    no_hints = np.zeros(0, dtype=np.int64)
    derivation_seed = np.uint64(seed % 2**64)
    hinted = [no_hints]
    decided: dict[tuple[Cell, ...], BlockedClass | UndecidedClass] = {}   # classes blocked or undecided
    for offset, rows in enumerate(combos[lo:hi]):
        loaded.refresh(own)
        block[:] = 0
        kernels.mark_combo(n, k, rows, loaded.cols_t, loaded.inverse_t, 0, loaded.count, block)
        totals = np.zeros(4, dtype=np.int64)
        _, _, _, uncovered = kernels.scan_combo(n, k, rows, loaded.cols_t, loaded.inverse_t, loaded.count,
                                                block, False, 0, rng, no_hard, totals, -1,
                                                derivation_seed, no_hints)
        searched = 0
        met: dict[tuple[Cell, ...], int] = {}      # sets of the classes in ``decided`` on these rows
        if uncovered:
            loaded.reserve(uncovered)
            hard = np.zeros((uncovered, k), dtype=np.int64)
            totals[:] = 0
            before = loaded.count
            hints = np.full(uncovered, -1, dtype=np.int64)
            position_base = (lo + offset) * n ** k if derived else -1
            status, loaded.count, hard_count, _ = kernels.scan_combo(
                n, k, rows, loaded.cols_t, loaded.inverse_t, before, block, True, NODES_PER_ROW * n, rng,
                hard, totals, position_base, derivation_seed, hints)
            if derived:
                hinted.append(hints[:loaded.count - before])
            if status != kernels.SCANNED:
                raise InternalSolverError(f"n = {n}, rows {rows.tolist()}: a solution found for a set of "
                                          "queens does not contain it")
            found = [loaded.cols_t[:, before:loaded.count].T]
            for columns in hard[:hard_count]:
                weight = 2 - int(k == 1 and n % 2 == 1 and columns[0] == (n - 1) // 2)
                totals[3] -= weight
                if _bit(block, n, columns):
                    searched += weight     # covered by the residual engine's witness for another set here
                    continue
                cells = tuple((int(r), int(c)) for r, c in zip(rows.tolist(), columns.tolist(), strict=True))
                queens, size = _canonical_class(n, cells)
                if queens in decided:
                    met[queens] = met.get(queens, 0) + weight
                    continue
                witness, blocked, undecided = settle_open_set(n, queens, size, seed, time_limit,
                                                              exhausted=False)
                if witness is not None:
                    rows_found = np.asarray(witness, dtype=np.uint8)
                    loaded.append(rows_found)
                    found.append(rows_found)
                    kernels.mark_combo(n, k, rows, loaded.cols_t, loaded.inverse_t, loaded.count - 1,
                                       loaded.count, block)     # the residual engine's witness
                    if not _bit(block, n, columns):
                        raise InternalSolverError(f"n = {n}: the residual engine's solution for {queens} "
                                                  f"covers no image of {cells}")
                    searched += weight
                    continue
                named = blocked if blocked is not None else undecided
                assert named is not None
                (outcome.blocked if blocked is not None else outcome.undecided).append(named)  # type: ignore[arg-type]
                decided[queens] = named
                met[queens] = weight
                if blocked is not None and stop_at_blocked:
                    outcome.complete = False
                    break
            own = np.concatenate([own, *found])
        multiple = int(weights[offset])
        for queens, spent in met.items():
            if isinstance(decided[queens], BlockedClass):
                outcome.blocked_sets += multiple * spent
            else:
                outcome.undecided_sets += multiple * spent
        # The sets left in ``hard`` (totals[3]) when the task stopped at a blocked set are not decided, so
        # not counted: the task's sets are the sum of its parts, as a resumed record is checked to be.
        if outcome.complete and totals[3]:
            raise InternalSolverError(f"n = {n}, rows {rows.tolist()}: {int(totals[3])} sets left unsettled")
        outcome.sets += multiple * (int(totals[0]) - int(totals[3]))
        outcome.covered += multiple * int(totals[1])
        outcome.found += multiple * int(totals[2])
        outcome.searched += multiple * searched
        if not outcome.complete:
            break
    outcome.witnesses = own
    outcome.hints = np.concatenate(hinted)
    outcome.seconds = time.perf_counter() - started
    outcome.cpu_seconds = time.process_time() - cpu
    return outcome


def random_solutions(n: int, how_many: int, seed: int, salt: int) -> np.ndarray:
    """``how_many`` solutions of the empty board by randomised search, (how_many, n) uint8."""
    kernels = _kernels()
    cols_t = np.zeros((n, how_many), dtype=np.uint8)
    inverse_t = np.zeros((n, how_many), dtype=np.uint8)
    kernels.random_witnesses(n, how_many, NODES_PER_ROW * n, _rng(seed, -1 - salt), cols_t, inverse_t, 0)
    return np.ascontiguousarray(cols_t.T)


def sets_per_combination(n: int, k: int, sample: int = SAMPLE_COMBOS) -> float:
    """The mean number of sets of k non-attacking queens on one combination of k rows, over ``sample``
    combinations spread over the plan (exact when the plan has no more)."""
    kernels = _kernels()
    combos = cached_plan(n, k)
    picked = np.unique(np.linspace(0, len(combos) - 1, min(sample, len(combos))).astype(np.int64))
    block = np.zeros(kernels.block_words(n, k), dtype=np.uint64)
    empty = np.zeros((n, 0), dtype=np.uint8)
    totals = np.zeros(4, dtype=np.int64)
    for rows in combos[picked]:
        kernels.scan_combo(n, k, rows, empty, empty, 0, block, False, 0, _rng(0, 0),
                           np.zeros((0, k), dtype=np.int64), totals, -1, np.uint64(0),
                           np.zeros(0, dtype=np.int64))
    return float(totals[0]) / len(picked)
