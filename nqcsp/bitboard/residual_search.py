"""One solution of a residual board, or proof by exhaustion that there is none (the ``backtrack`` engine).

The search runs on ``nqcsp.residual.Residual`` (free rows x free columns, full-board diagonals) with
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
from nqcsp.lazy import load
from nqcsp.limits import Limits
from nqcsp.residual import Residual

CHUNK_S = 0.02
_FIRST_CHUNK = 256
VALUE_ORDER = 2


def words_for(free: int) -> int:
    return max(1, -(-free // 64))


def state_bytes(free: int, span: int) -> int:
    """Bytes of the search state for ``free`` free lines whose columns span ``span`` full-board columns:
    per level, every line's mask and count; plus the column lookup and which level took each cell."""
    words = words_for(free)
    levels = free + 1
    return levels * (2 * free * (words + 1) + words + free + 1) * 8 + 4 * span + 16 * free + 4 * free * free


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


def proof_room(free: int) -> int:
    """Bytes of the kernel's lemma buffer: room for many lemmas of ``free`` lines between two drains."""
    return max(1 << 22, 64 * (8 * (4 * free + 8) + 16 * words_for(free)))


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

    started = time.perf_counter()
    k = residual.size
    if k == 0:
        return SearchOutcome(residual.lift(np.empty(0, dtype=np.int64)), False, 0, 0.0)
    words = words_for(k)
    rows = np.ascontiguousarray(residual.rows, dtype=np.int64)
    cols = np.ascontiguousarray(residual.cols, dtype=np.int64)
    col_base = int(cols[0])
    col_index = np.full(int(cols[-1]) - col_base + 1, -1, dtype=np.int32)
    col_index[cols - col_base] = np.arange(k, dtype=np.int32)
    masks = np.zeros((k + 1, 2 * k, words), dtype=np.uint64)
    counts = np.zeros((k + 1, 2 * k), dtype=np.int64)
    allowed = np.asarray(residual.allowed, dtype=bool)
    masks[0, :k] = _pack(allowed, words)
    masks[0, k:] = _pack(allowed.T, words)
    counts[0, :k] = allowed.sum(axis=1)
    counts[0, k:] = allowed.sum(axis=0)
    line = np.full(k + 1, -1, dtype=np.int64)
    remaining = np.zeros((k + 1, words), dtype=np.uint64)
    picks = np.zeros((k, 2), dtype=np.int64)
    score = np.zeros((k + 1, k), dtype=np.int64)
    stats = np.zeros(3, dtype=np.int64)   # depth, nodes, outcome
    removed_by = np.zeros((k, k), dtype=np.int32)  # the level whose queen took each cell away
    proving = proof is not None and sink is not None
    if proof is not None and sink is not None:
        cells, pairs, alo = proof.cells, proof.pairs, proof.alo
        children = np.zeros(k * (k + 1) + 2, dtype=np.int64)
        child_start = np.zeros(k + 1, dtype=np.int64)
        out = np.zeros(proof_room(k), dtype=np.uint8)
    else:
        cells = np.zeros((1, 1, 9), dtype=np.int64)
        pairs = np.zeros((1, 2), dtype=np.int64)
        alo = children = child_start = np.zeros(1, dtype=np.int64)
        out = np.zeros(1, dtype=np.uint8)
    # bytes waiting in out, next lemma number, children on the stack, error
    proof_state = np.array([0, proof.clauses + 1 if proof is not None else 0, 0, 0], dtype=np.int64)
    written = 0
    budget = _FIRST_CHUNK
    while stats[2] == 0:
        if limits.expired():
            return SearchOutcome(None, False, int(stats[1]), time.perf_counter() - started)
        chunk_started = time.perf_counter()
        nodes_before = int(stats[1])
        kernels.search(k, words, rows, cols, col_index, col_base, masks, counts, line, remaining, score,
                       picks, stats, budget, order, removed_by, proving, cells, pairs, alo, children,
                       child_start, out, proof_state)
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
