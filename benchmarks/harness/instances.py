"""Instance families of the comparison suites, generated deterministically from the suite's data.

An instance is a plain dict (it travels as JSON to the worker): ``id``, ``family``, ``n``, ``queens`` (a list
of ``[row, col]``), ``m`` (the number of mandatory queens) and ``expected`` ("SAT", "UNSAT" or None when the
generator does not know). ``expected`` comes only from the brute-force search below, never from a solver
under test, so the analysis can use it to check answers.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from nqcsp.board.construction import closed_form
from nqcsp.board.symmetry import orbit

Instance = dict[str, Any]
Cell = tuple[int, int]

BRUTE_FORCE_MAX_N = 12


def make_instance(family: str, n: int, queens: list[Cell] | tuple[Cell, ...], *, tag: str = "",
                  expected: str | None = None, **extra: Any) -> Instance:
    cells = [[int(r), int(c)] for r, c in queens]
    label = f"{family}/n={n}" + (f"/{tag}" if tag else "")
    return {"id": label, "family": family, "n": int(n), "queens": cells, "m": len(cells),
            "expected": expected, **extra}


# ---------------------------------------------------------------- brute force (independent of nqcsp)

def brute_force_has_solution(n: int, queens: tuple[Cell, ...] = ()) -> bool:
    """Whether the board has a solution, by bitmask search over rows. Meant for n <= BRUTE_FORCE_MAX_N."""
    fixed: dict[int, int] = {}
    for row, col in queens:
        if fixed.setdefault(row, col) != col:
            return False
    full = (1 << n) - 1

    def place(row: int, cols: int, diag: int, anti: int) -> bool:
        if row == n:
            return True
        free = full & ~(cols | diag | anti)
        if row in fixed:
            free &= 1 << fixed[row]
        while free:
            bit = free & -free
            free ^= bit
            if place(row + 1, cols | bit, ((diag | bit) << 1) & full, (anti | bit) >> 1):
                return True
        return False

    return place(0, 0, 0, 0)


@functools.cache
def blocked_cells(n: int) -> tuple[Cell, ...]:
    """Cells where one mandatory queen leaves no solution, by brute force (one search per symmetry class)."""
    if n > BRUTE_FORCE_MAX_N:
        raise ValueError(f"brute force finds blocked cells only up to n = {BRUTE_FORCE_MAX_N}, got {n}")
    blocked: set[Cell] = set()
    seen: set[Cell] = set()
    for r in range(n):
        for c in range(n):
            if (r, c) in seen:
                continue
            images = orbit(n, (r, c))
            seen |= images
            if not brute_force_has_solution(n, ((r, c),)):
                blocked |= images
    return tuple(sorted(blocked))


def expected_status(n: int, queens: list[Cell] | tuple[Cell, ...]) -> str | None:
    if n > BRUTE_FORCE_MAX_N:
        return None
    return "SAT" if brute_force_has_solution(n, tuple(map(tuple, queens))) else "UNSAT"  # type: ignore[arg-type]


# ---------------------------------------------------------------- completion instances (CSPLib prob079)

def random_completion(n: int, m: int, seed: int) -> tuple[list[Cell], str]:
    """The instance and the name of the generator that made it, recorded with every result."""
    from nqcsp.board.completion import random_completion as generate

    return [tuple(cell) for cell in generate(n, m, seed)], "nqcsp.board.completion"


# ---------------------------------------------------------------- families

def big_boards(sizes: list[int], cell: str = "middle-third", queens: tuple[int, ...] = (1,),
               seed: int = 0) -> Iterator[Instance]:
    """Suite (a): one mandatory queen at (n // 2, n // 3) on each board size. With other ``queens``
    counts, that many at random cells drawn from ``seed``, none attacking another: not taken from a
    solution, since the construct backend finds any symmetric image of the closed form holding them."""
    if cell != "middle-third":
        raise ValueError(f"unknown cell rule {cell!r}")
    for n in sizes:
        for count in queens:
            if count == 1:
                cells = [(n // 2, n // 3)]
                yield make_instance("big", n, cells, expected=expected_status(n, cells))
                continue
            cells = non_attacking_cells(n, count, _random_cells(n, np.random.default_rng([seed, n, count])),
                                        "random")
            yield make_instance(f"big-{count}-queens", n, cells, tag=f"seed={seed}",
                                expected=expected_status(n, cells))


def _random_cells(n: int, rng: np.random.Generator) -> Iterator[Cell]:
    while True:
        row, col = (int(value) for value in rng.integers(0, n, size=2))
        yield row, col


def non_attacking_cells(n: int, count: int, candidates: Iterator[Cell], kind: str,
                        first: tuple[Cell, ...] = ()) -> list[Cell]:
    """``first``, then the ``candidates`` that attack none taken before, until ``count``: meant for count
    far below n, and a ValueError naming the ``kind`` of candidates rather than a hang when 1000 a queen
    leave it short (a small board)."""
    cells = list(first)
    for row, col in itertools.islice(candidates, 1000 * count):
        if len(cells) == count:
            break
        if all(row != r and col != c and abs(row - r) != abs(col - c) for r, c in cells):
            cells.append((row, col))
    if len(cells) == count:
        return cells
    raise ValueError(f"found only {len(cells)} of {count} non-attacking {kind} cells on n = {n}")


def codewars(seed: int = 2017) -> Iterator[Instance]:
    """Suite (b): the 31 instances of the Codewars kata's shape, with random cells from a fixed seed.

    8 very small boards (n <= 10), 8 without a solution (n = 2, 3 and blocked cells of small boards, found
    by brute force), 5 each of 10 < n <= 50, 100 < n <= 500 and 500 < n <= 1000.
    """
    rng = random.Random(seed)

    def random_cell(n: int) -> Cell:
        return rng.randrange(n), rng.randrange(n)

    for k in range(8):
        n = rng.randint(1, 10)
        cell = random_cell(n)
        yield make_instance("codewars-small", n, [cell], tag=f"{k}", expected=expected_status(n, [cell]))
    unsolvable = [(n, random_cell(n)) for n in (2, 3)]
    blocked = [(n, cell) for n in range(4, BRUTE_FORCE_MAX_N + 1) for cell in blocked_cells(n)]
    unsolvable += rng.sample(blocked, 6)
    for k, (n, cell) in enumerate(unsolvable):
        yield make_instance("codewars-none", n, [cell], tag=f"{k}", expected=expected_status(n, [cell]))
    for family, low, high in (("codewars-10-50", 11, 50), ("codewars-100-500", 101, 500),
                              ("codewars-500-1000", 501, 1000)):
        for k in range(5):
            n = rng.randint(low, high)
            yield make_instance(family, n, [random_cell(n)], tag=f"{k}")


def completion(sizes: list[tuple[int, int]], count: int = 50, first_seed: int = 0) -> Iterator[Instance]:
    """Suite (c): ``count`` random completion instances for each (n, m)."""
    for n, m in sizes:
        for seed in range(first_seed, first_seed + count):
            queens, generator = random_completion(n, m, seed)
            yield make_instance(f"completion-{n}-{m}", n, queens, tag=f"seed={seed}",
                                expected=expected_status(n, queens), generator=generator, instance_seed=seed)


def blockades(max_n: int = BRUTE_FORCE_MAX_N, up_to_symmetry: bool = False) -> Iterator[Instance]:
    """Suite (d): every blocked cell of every board up to ``max_n`` (or one per symmetry class)."""
    for n in range(1, max_n + 1):
        seen: set[Cell] = set()
        for cell in blocked_cells(n):
            if cell in seen:
                continue
            if up_to_symmetry:
                seen |= orbit(n, cell)
            yield make_instance("blockade", n, [cell], tag=f"{cell[0]},{cell[1]}", expected="UNSAT")


def small_boards(sizes: list[int]) -> Iterator[Instance]:
    """A quick family for tests and smoke runs: one queen at (0, n // 2), status known by brute force."""
    for n in sizes:
        cell = (0, n // 2)
        yield make_instance("small", n, [cell], expected=expected_status(n, [cell]))


def first_row(sizes: list[int]) -> Iterator[Instance]:
    """First solutions with one mandatory queen at (0, n // 3): the configuration grids of cpsat and sat."""
    for n in sizes:
        cell = (0, n // 3)
        yield make_instance("first-row", n, [cell], expected=expected_status(n, [cell]))


def limits(sizes: list[int], completions: list[tuple[int, int]], seed: int = 1,
           blocked: tuple[int, Cell] | None = (6, (0, 0)), many_queens: list[tuple[int, int]] = (),
           columns_written: list[int] = ()) -> Iterator[Instance]:
    """Boards for the time-limit promise: one queen at (n // 2, n // 3) on big boards, completions with few
    free rows (where building, proving and checking cost the most), a small unsolvable board on which
    local search can only run until its limit, (n, m): m mandatory queens taken from a solution of n
    (validating and checking them is part of the call), and boards whose columns are written by
    ``nqcsp solve --format columns`` (the task ``write-columns``: writing is a stage of the limit)."""
    for n in sizes:
        yield make_instance("limits-big", n, [(n // 2, n // 3)])
    for n, m in many_queens:
        rows = np.sort(np.random.default_rng(seed).choice(n, m, replace=False))
        queens = np.column_stack((rows, closed_form(n)[rows]))
        yield make_instance("limits-many-queens", n, queens.tolist(), tag=f"seed={seed}")
    for n in columns_written:
        yield make_instance("limits-columns-written", n, [], task="write-columns")
    for n, m in completions:
        queens, generator = random_completion(n, m, seed)
        yield make_instance(f"limits-completion-{n}-{m}", n, queens, tag=f"seed={seed}", generator=generator,
                            instance_seed=seed)
    if blocked is not None:
        n, cell = blocked
        yield make_instance("limits-blocked", n, [cell], expected=expected_status(n, [cell]))


# Solution counts of n queens, OEIS A000170: independent of nqcsp, the reference for the counting tasks.
A000170 = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92, 9: 352, 10: 724, 11: 2680, 12: 14200,
           13: 73712, 14: 365596, 15: 2279184, 16: 14772512, 17: 95815104, 18: 666090624}


def counting(sizes: list[int], task: str = "count") -> Iterator[Instance]:
    """Counting (``nqcsp.count``) or enumerating (``nqcsp.solutions``) every solution of the empty board."""
    if task not in ("count", "enumerate"):
        raise ValueError(f"unknown counting task {task!r}")
    for n in sizes:
        yield make_instance(task, n, [], task=task, expected_count=A000170.get(n))


def unsat_triples(n: int, limit: int) -> list[list[Cell]]:
    """Non-attacking queens on rows 0-2 that leave no solution, by brute force: harder proofs than one
    blocked cell."""
    found = []
    for a in range(n):
        for b in range(n):
            for c in range(n):
                queens = ((0, a), (1, b), (2, c))
                sums, diffs = {r + q for r, q in queens}, {r - q for r, q in queens}
                if len({a, b, c}) < 3 or len(sums) < 3 or len(diffs) < 3:
                    continue
                if not brute_force_has_solution(n, queens):
                    found.append(list(queens))
                    if len(found) == limit:
                        return found
    return found


def proof_batches(max_n: int = BRUTE_FORCE_MAX_N, triples: tuple[int, ...] = (8, 10, 12),
                  per_n: int = 20) -> Iterator[Instance]:
    """Proof mode as two batch instances, each solved in one process: every blocked cell of the boards up
    to ``max_n``, and up to ``per_n`` unsolvable triples on rows 0-2 for each n in ``triples``. Every
    board in a batch is UNSAT by brute force."""
    cells = [[n, [list(cell)]] for n in range(1, max_n + 1) for cell in blocked_cells(n)]
    yield {**make_instance("proofs-blocked", max_n, [], tag=f"{len(cells)} boards", expected="UNSAT"),
           "task": "batch", "batch": cells}
    boards = [[n, [list(q) for q in queens]] for n in triples for queens in unsat_triples(n, per_n)]
    yield {**make_instance("proofs-triples", max(triples), [], tag=f"{len(boards)} boards", expected="UNSAT"),
           "task": "batch", "batch": boards}


# Where the field suite finds a copy of CSPLib's Problems/prob079 (its data/ and models/), taken by path:
# nothing of it is in this repository (``python -m benchmarks run field --prob079 DIR`` sets it).
PROB079_ENV = "NQCSP_PROB079"


def prob079_copy(what: str) -> Path | None:
    """The copy of Problems/prob079 that ``$NQCSP_PROB079`` names, else None with a note on stderr that no
    ``what`` are made."""
    import os
    import sys

    where = os.environ.get(PROB079_ENV)
    if not where:
        print(f"note: no {what}: ${PROB079_ENV} names no copy of Problems/prob079", file=sys.stderr)
        return None
    return Path(where)


def prob079(sizes: list[int], per_size: int, below_n: int = 2) -> Iterator[Instance]:
    """CSPLib prob079's excluded-diagonals instances, the first ``per_size`` of each board size s (by file
    name), converted by CSPLib's own ``diagtoqueens.py`` into completion problems (N = 2,500 to 5,500,
    s free rows), as the cost-of-the-guarantee study converts them. Their status is not known in advance.
    Without ``$NQCSP_PROB079`` none, with a note on stderr."""
    import tempfile

    from benchmarks.harness.prob079 import instances

    where = prob079_copy("CSPLib prob079 instances")
    if where is None:
        return
    with tempfile.TemporaryDirectory() as scratch:
        found = instances(where, range(min(sizes), max(sizes) + 1), per_size, below_n,
                          Path(scratch) / "prob079.jsonl")
    for item in found:
        if item["size"] in sizes:
            yield make_instance("prob079", item["n"], item["queens"], tag=item["name"])


def phase_diagonals(points: list[tuple[int, int, int, str]]) -> Iterator[Instance]:
    """Excluded-diagonals problems at their phase transition, as completion problems: for each (size,
    excluded, count, source), ``count`` boards of ``size`` with ``excluded`` diagonals excluded, from
    CSPLib's published files (source "csplib") or its generator ("generator"), family
    ``diagonals-SIZE``. Their status is not known in advance: a run's verified solution or checked
    certificate labels them, and one no complete engine decides stays unlabelled. Without
    ``$NQCSP_PROB079`` none, with a note on stderr."""
    from benchmarks.harness.prob079 import phase_instances

    where = prob079_copy("excluded-diagonals instances")
    if where is None:
        return
    for size, excluded, count, source in points:
        for item in phase_instances(where, size, excluded, count, source):
            yield make_instance(f"diagonals-{size}", item["n"], item["queens"], tag=item["name"],
                                generator=f"CSPLib prob079 {source}")


def field(prob079_sizes: list[int], prob079_per_size: int, peaks: list[tuple[int, int]], peak_count: int,
          one_queen: list[int], triples: tuple[int, ...], triples_per_n: int, codewars_seed: int = 2017,
          families: tuple[str, ...] | None = None, known_solvable_only: bool = False,
          diagonals: list[tuple[int, int, int, str]] = ()) -> Iterator[Instance]:
    """The field suite's families, each instance's ``family`` one of them: ``prob079`` (CSPLib's,
    converted), ``peak`` (random completions at the hardness peak), ``codewars``, ``one-queen`` (one
    mandatory queen at (n // 2, n // 3)), ``blocked`` (a blocked cell of each symmetry class up to
    n = 12, and queens on rows 0-2 that leave no solution: UNSAT by brute force) and, for each point of
    ``diagonals``, ``diagonals-SIZE`` (``phase_diagonals``: the families that separate the engines).
    ``families`` keeps only those; ``known_solvable_only`` only the instances known to have a solution
    before any solver runs (one queen on a board above 12, or brute force said so): what local search is
    given."""
    for item in _field_families(prob079_sizes, prob079_per_size, peaks, peak_count, one_queen, triples,
                                triples_per_n, codewars_seed, families, diagonals):
        if not known_solvable_only or item["expected"] == "SAT" or (item["m"] == 1 and item["n"] > 12):
            yield item


def _field_families(prob079_sizes: list[int], prob079_per_size: int, peaks: list[tuple[int, int]],
                    peak_count: int, one_queen: list[int], triples: tuple[int, ...], triples_per_n: int,
                    codewars_seed: int, families: tuple[str, ...] | None,
                    diagonals: list[tuple[int, int, int, str]]) -> Iterator[Instance]:
    def wanted(family: str) -> bool:
        return families is None or family in families

    if wanted("prob079"):
        yield from prob079(prob079_sizes, prob079_per_size)
    if wanted("peak"):
        for item in completion(peaks, peak_count):
            yield {**item, "family": "peak"}
    if wanted("codewars"):
        for item in codewars(codewars_seed):
            yield {**item, "family": "codewars"}
    if wanted("one-queen"):
        for n in one_queen:
            cell = (n // 2, n // 3)
            yield make_instance("one-queen", n, [cell], expected=expected_status(n, [cell]))
    if wanted("blocked"):
        for item in blockades(up_to_symmetry=True):
            yield {**item, "family": "blocked"}
        for n in triples:
            for k, queens in enumerate(unsat_triples(n, triples_per_n)):
                yield make_instance("blocked", n, queens, tag=f"triple-{k}", expected="UNSAT")
    yield from phase_diagonals([point for point in diagonals if wanted(f"diagonals-{point[0]}")])


FAMILIES: dict[str, Callable[..., Iterator[Instance]]] = {
    "big": big_boards,
    "codewars": codewars,
    "completion": completion,
    "blockades": blockades,
    "small": small_boards,
    "first-row": first_row,
    "limits": limits,
    "counting": counting,
    "proofs": proof_batches,
    "field": field,
}


def generate(family: str, params: dict[str, Any]) -> list[Instance]:
    try:
        make = FAMILIES[family]
    except KeyError:
        raise ValueError(f"unknown instance family {family!r}; known: {', '.join(FAMILIES)}") from None
    return list(make(**params))


def log_grid(low: int, high: int, per_decade: int = 2) -> list[int]:
    """Sizes from ``low`` to ``high`` evenly spaced on a log scale, rounded, without duplicates."""
    steps = round(math.log10(high / low) * per_decade)
    return sorted({round(low * 10 ** (k / per_decade)) for k in range(steps + 1)})
