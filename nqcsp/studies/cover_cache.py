"""The class sweep's cover cache: the k-sets of the board known to extend to a solution, a bit per k-set of
its cells in shared memory, so that a witness one task found covers the classes of every later task and a
sweep that keeps its witnesses (the threshold's evidence) keeps a few per cent of them. Only the driver
sets bits, for witnesses it has checked and recorded; the evidence is re-checked on its own."""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Generator
from dataclasses import dataclass

import numpy as np

from nqcsp.runtime.scratch import process_file, release

# Bytes of the bit per k-set of the board above which a sweep keeps no cover cache.
COVER_CACHE_MAX_BYTES = 2 << 30
_ATTACHED: dict[str, np.ndarray] = {}


def cover_cache_bytes(n: int, k: int) -> int:
    """Bytes of a bit per k-set of the n x n board's cells (colex rank)."""
    return math.comb(n * n, k) // 8 + 1


@dataclass(frozen=True)
class CoverCache:
    """The k-sets known to extend to a solution, shared by the tasks of one sweep: a bit per k-set of the
    board, set for every k-subset of every witness found so far. A task skips the classes one of whose
    images it finds set, so a witness found by one task covers the classes of every later task: the
    sweep keeps far fewer witnesses. Only the driver sets bits, for the witnesses of tasks it has checked
    and recorded. The bits live in shared memory that the sweep holds (``path`` opens it), mapped by every
    process of a local pool or cluster; a process that cannot open it (a worker on another
    machine) sees none, and its tasks cover their own classes as without a cache. A bit is never set
    without a witness of the account, and the evidence is re-checked on its own."""

    n: int
    k: int
    path: str | None = None
    # The memory's identity (device and inode): a descriptor's path names another file once the sweep has
    # closed it, and the next level's cache may be given the same descriptor number. A worker that kept
    # the earlier level's bits under that path read them as this level's (a Dask threshold's evidence
    # missed 388 sets of 3 queens), so a cache is known by its identity, and one that opens as another
    # file is not used.
    identity: str = ""

    def bits(self) -> np.ndarray:
        key = self.identity or f"private-{self.n}-{self.k}"
        if key not in _ATTACHED:
            size = cover_cache_bytes(self.n, self.k)
            bits = None
            if self.path is not None:
                try:
                    with open(self.path, "r+b") as handle:
                        if _identity(handle.fileno()) == self.identity:
                            bits = np.memmap(handle, dtype=np.uint8, mode="r+", shape=(size,))
                except (OSError, ValueError):
                    bits = None       # another machine's cache: this process keeps its own
            _ATTACHED.clear()         # one sweep at a time: an earlier level's bits are not needed
            _ATTACHED[key] = bits if bits is not None else np.zeros(size, dtype=np.uint8)
        return _ATTACHED[key]

    def binom(self) -> np.ndarray:
        return colex_table(self.n * self.n, self.k)

    def mark(self, witnesses: np.ndarray) -> None:
        """Every k-subset of ``witnesses`` (and of their images) set: only the witnesses of tasks the
        driver has checked and recorded, so that a class a task skips is always covered by a witness of
        the account (a witness of a task still running could be lost with it on an interrupt, and a
        resumed sweep would then miss it)."""
        from nqcsp.bitboard import queen_set_kernels

        if len(witnesses):
            queen_set_kernels.mark_known(self.n, self.k, witnesses, self.binom(), self.bits())


def colex_table(cells: int, k: int) -> np.ndarray:
    """``table[i, m]`` = C(m, i) for i <= k and m < cells: the colex rank of a set is the sum of
    ``table[i + 1, c_i]`` over its ascending codes."""
    table = np.zeros((k + 1, cells), dtype=np.int64)
    for i in range(k + 1):
        table[i] = [math.comb(m, i) for m in range(cells)]
    return table


@contextlib.contextmanager
def cover_cache(n: int, k: int, memory: int) -> Generator[CoverCache | None, None, None]:
    """A cover cache for a sweep of (n, k), in shared memory that goes with the sweep however it ends; None
    when k < 2, when its bits would take over a quarter of ``memory`` (or ``COVER_CACHE_MAX_BYTES``), or
    when no memory or folder has room for them (the sweep is then right as without a cache, keeping more
    witnesses)."""
    size = cover_cache_bytes(n, k)
    fits = k >= 2 and size <= min(memory // 4, COVER_CACHE_MAX_BYTES)
    reserved = process_file(f"nqcsp-cover-{n}-{k}", size, in_memory=True) if fits else None
    if reserved is None:
        yield None
        return
    path, handle = reserved
    cache = CoverCache(n, k, path, _identity(handle))
    try:
        yield cache
    finally:
        _ATTACHED.pop(cache.identity, None)
        release(path, handle)


def _identity(descriptor: int) -> str:
    info = os.fstat(descriptor)
    return f"{info.st_dev}-{info.st_ino}"

