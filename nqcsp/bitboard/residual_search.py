"""One solution of a residual board, or proof by exhaustion that there is none (the ``backtrack`` engine).

The search runs on ``nqcsp.board.residual.Residual`` (free rows x free columns, full-board diagonals) with
multi-word bitboards, so neither n nor the number of free lines is bounded by 64; the answer is mapped
back to the full board with ``Residual.lift``. The kernel is resumable: it runs in chunks of nodes sized
to about ``CHUNK_S`` seconds, and the deadline is checked between chunks.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from nqcsp.bitboard.residual_proof import ProofTables
from nqcsp.board.residual import Residual
from nqcsp.runtime.lazy import load
from nqcsp.runtime.limits import Limits

CHUNK_S = 0.02
_FIRST_CHUNK = 256
VALUE_ORDER = 2
NARROW = 64   # residuals up to this many free lines take the one-word kernel
# Seconds to compile the search kernel when numba's cache has no copy (a fresh install): 7.2 s measured
# with an empty NUMBA_CACHE_DIR (the whole first call 7.9 s under a 0.5 s limit before), with margin.
SEARCH_COMPILE_S = 9.0


def words_for(free: int) -> int:
    return max(1, -(-free // 64))


def state_bytes(free: int, span: int) -> int:
    """Bytes of the search state for ``free`` free lines whose columns span ``span`` full-board columns:
    per level, every line's mask and count; the column lookup; each cell's lines and the level owning
    each line (for a proof); the narrow kernel's diagonal table and its temporaries (k^3 words each)."""
    words = words_for(free)
    levels = free + 1
    narrow = 48 * free ** 3 if free <= NARROW else 0
    return levels * (2 * free * (words + 1) + words + free + 1) * 8 + 4 * span + 16 * free \
        + 64 * free * free + narrow


@dataclass(frozen=True)
class SearchOutcome:
    """``solution`` (full-board columns by row) when found, ``exhausted`` when there is none, neither when
    the deadline came first; ``nodes`` placed."""

    solution: np.ndarray | None
    exhausted: bool
    nodes: int
    search_s: float
    proof_bytes: int = 0


def _pack(bits: np.ndarray, words: int) -> np.ndarray:
    """Rows of a bool matrix as little-endian bit-sets of ``words`` uint64 words each."""
    lines = bits.shape[0]
    packed = np.zeros((lines, words * 8), dtype=np.uint8)
    if bits.shape[1]:
        raw = np.packbits(bits, axis=1, bitorder="little")
        packed[:, :raw.shape[1]] = raw
    return packed.view("<u8").astype(np.uint64)


def _chain_size(free: int) -> int:
    """Hints one lemma may gather: a cell's at-most-one clause once per cell, a line's at-least-one
    clause per line, the children of every level."""
    return 2 * free * free + 4 * free + 8


def _children_size(free: int) -> int:
    return free * (free + 1) + 2


def lemma_bytes(free: int) -> int:
    """The largest lemma: its decisions, its hints and the deletion of its children, 10 bytes a number."""
    return 10 * (free + _chain_size(free) + _children_size(free) + 4)


def proof_room(free: int) -> int:
    """Bytes of the kernel's lemma buffer: the largest lemma and 4 MB more, so that the pieces drained
    to the checker are about 4 MB (larger pieces would only cost memory in its queue)."""
    return lemma_bytes(free) + (1 << 22)


def _attacks(rows: np.ndarray, cols: np.ndarray, col_index: np.ndarray, col_base: int) -> np.ndarray:
    """``attacks[i, j, i']``: the free columns of row i' on the two diagonals through (i, j) (none in
    row i itself), one uint64 per row; for the narrow kernel."""
    distance = rows[None, None, :] - rows[:, None, None]
    attacks = np.zeros((len(rows), len(cols), len(rows)), dtype=np.uint64)
    for sign in (1, -1):
        target = cols[None, :, None] - col_base + sign * distance
        inside = (target >= 0) & (target < len(col_index))
        index = np.where(inside, col_index[np.clip(target, 0, len(col_index) - 1)], -1)
        hit = (index >= 0) & (distance != 0)
        attacks |= np.where(hit, np.left_shift(np.uint64(1), np.maximum(index, 0).astype(np.uint64)),
                            np.uint64(0))
    return attacks


def _cell_lines(rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, int]:
    """Per cell (free row i, free column j): its row i, column j and the numbers of its diagonal r + c and
    anti-diagonal r - c among the residual's; and how many numbers a line kind needs at most."""
    k = len(rows)
    lines = np.empty((k, k, 4), dtype=np.int64)
    lines[:, :, 0] = np.arange(k)[:, None]
    lines[:, :, 1] = np.arange(k)[None, :]
    for relation, values in ((2, rows[:, None] + cols[None, :]), (3, rows[:, None] - cols[None, :])):
        _, numbers = np.unique(values, return_inverse=True)
        lines[:, :, relation] = numbers.reshape(k, k)
    return lines, max(k, int(lines[:, :, 2:].max()) + 1)


def first_solution(residual: Residual, limits: Limits, order: int = VALUE_ORDER,
                   proof: ProofTables | None = None,
                   sink: Callable[[memoryview], bool] | None = None) -> SearchOutcome:
    """Search ``residual`` until a solution, exhaustion or the deadline (checked between chunks).

    The caller has checked the memory (``state_bytes``): the per-level state grows as free^3 / 32 bytes,
    about 34 MB at 512 free lines, the registry's ``max_free`` for ``backtrack``.

    With ``proof`` (the statement's clause numbers), every failed node becomes a binary LRAT lemma,
    streamed in chunks to ``sink``; an exhausted search has then written the whole refutation, ending in
    the empty clause. ``sink`` answers False to stop the proof (too big to keep): the search goes on
    without it.
    """
    kernels = load("nqcsp.bitboard.residual_kernels")
    limits.need_compiled("search", kernels.search, SEARCH_COMPILE_S, "the search kernel")

    started = time.perf_counter()
    k = residual.size
    if k == 0:
        return SearchOutcome(residual.lift(np.empty(0, dtype=np.int64)), False, 0, 0.0)
    narrow = k <= NARROW
    words = words_for(k)
    rows = np.ascontiguousarray(residual.rows, dtype=np.int64)
    cols = np.ascontiguousarray(residual.cols, dtype=np.int64)
    col_base = int(cols[0])
    col_index = np.full(int(cols[-1]) - col_base + 1, -1, dtype=np.int32)
    col_index[cols - col_base] = np.arange(k, dtype=np.int32)
    allowed = np.asarray(residual.allowed, dtype=bool)
    line = np.full(k + 1, -1, dtype=np.int64)
    remaining = np.zeros((k + 1, words), dtype=np.uint64)
    picks = np.zeros((k, 2), dtype=np.int64)
    score = np.zeros((k + 1, k), dtype=np.int64)
    stats = np.zeros(3, dtype=np.int64)   # depth, nodes, outcome
    gone = np.zeros(words, dtype=np.uint64)
    masks = np.zeros((k + 1, 2 * k, words), dtype=np.uint64)
    masks[0, :k] = _pack(allowed, words)
    masks[0, k:] = _pack(allowed.T, words)
    if narrow:
        attacks = _attacks(rows, cols, col_index, col_base)
        open_rows = np.zeros(k + 1, dtype=np.uint64)
        open_cols = np.zeros(k + 1, dtype=np.uint64)
        open_rows[0] = open_cols[0] = np.uint64((1 << k) - 1)
        counts = np.zeros((1, 1), dtype=np.int64)
    else:
        attacks = np.zeros((1, 1, 1), dtype=np.uint64)
        open_rows = open_cols = np.zeros(1, dtype=np.uint64)
        counts = np.zeros((k + 1, 2 * k), dtype=np.int64)
        counts[0, :k] = allowed.sum(axis=1)
        counts[0, k:] = allowed.sum(axis=0)
    proving = proof is not None and sink is not None
    if proof is not None and sink is not None:
        cells, pairs, alo = proof.cells, proof.pairs, proof.alo
        cell_lines, numbers = _cell_lines(rows, cols)
        owners = np.full((4, numbers), -1, dtype=np.int64)
        children = np.zeros(_children_size(k), dtype=np.int64)
        chain = np.zeros((_chain_size(k), 2), dtype=np.int64)
        falsified_at = np.full((k, k), -1, dtype=np.int64)
        levels = np.zeros((k + 1, 4), dtype=np.int64)
        out = np.zeros(proof_room(k), dtype=np.uint8)
    else:
        cells = np.zeros((1, 1, 9), dtype=np.int64)
        cell_lines = np.zeros((1, 1, 4), dtype=np.int64)
        pairs = owners = np.zeros((1, 2), dtype=np.int64)
        alo = children = np.zeros(1, dtype=np.int64)
        chain = falsified_at = levels = np.zeros((1, 4), dtype=np.int64)
        out = np.zeros(1, dtype=np.uint8)
    # bytes waiting in out, next lemma number, lemmas on the children stack, error, hints on the chain
    proof_state = np.array([0, proof.clauses + 1 if proof is not None else 0, 0, 0, 0], dtype=np.int64)
    room = lemma_bytes(k)
    written = 0
    budget = _FIRST_CHUNK
    while stats[2] == 0:
        if limits.expired():
            return SearchOutcome(None, False, int(stats[1]), time.perf_counter() - started)
        chunk_started = time.perf_counter()
        nodes_before = int(stats[1])
        kernels.search(narrow, k, words, rows, cols, col_index, col_base, masks, counts, open_rows, open_cols,
                       attacks, line, remaining, score, picks, stats, budget, order, proving, owners,
                       cell_lines, cells, pairs, alo, children, chain, falsified_at, levels, out, room,
                       proof_state, gone)
        if proving:
            if proof_state[3]:
                raise RuntimeError("the proof kernel found a removed cell that no decision removed")
            if proof_state[0]:
                assert sink is not None
                proving = sink(out[:proof_state[0]].data)
                written += int(proof_state[0])
                proof_state[0] = 0
        spent = time.perf_counter() - chunk_started
        # Grow or shrink the chunk towards CHUNK_S so the deadline is seen often, at little overhead.
        # From the nodes actually searched: a chunk cut short to drain the proof says nothing of the rate.
        done = max(int(stats[1]) - nodes_before, 1)
        budget = int(min(budget * 4, max(64, done * CHUNK_S / max(spent, 1e-6))))
    elapsed = time.perf_counter() - started
    if stats[2] < 0:
        return SearchOutcome(None, True, int(stats[1]), elapsed, written if proving else 0)
    residual_cols = np.empty(k, dtype=np.int64)
    residual_cols[picks[:, 0]] = cols[picks[:, 1]]
    return SearchOutcome(residual.lift(residual_cols), False, int(stats[1]), elapsed)
