"""The row sweep's witness file (``row_sweep``): every witness of a sweep, ``n`` bytes each (the column of
each row), appended by the driver only, after it has verified them (``verified_rows``), and read by the
workers into a copy by row that grows as the file does (``loaded_copy``). With a checkpoint the file is
its ``.witnesses``; without, a scratch file that goes with the sweep however it ends (``witness_path``)."""

from __future__ import annotations

import contextlib
import os
import pathlib
import tempfile
from collections.abc import Iterator

import numpy as np

from nqcsp.runtime import limits
from nqcsp.runtime.values import format_bytes

WITNESS_SUFFIX = ".witnesses"
# Copies of the witnesses a read holds at its peak: the bytes read, the whole witnesses cut from them and
# the driver's verified copy (a worker: its two tables by row). Estimated before the read, so that a
# witness file larger than memory is refused by its size instead of a MemoryError.
READ_COPIES = 3


class WitnessFile:
    """The sweep's witnesses, ``n`` bytes each, appended by the driver (verified first) and read by the
    workers (``LoadedWitnesses``)."""

    def __init__(self, path: pathlib.Path, n: int) -> None:
        self.path = path
        self.n = n

    def count(self) -> int:
        try:
            return self.path.stat().st_size // self.n
        except FileNotFoundError:
            return 0

    def append(self, rows: np.ndarray) -> int:
        """Append ``rows`` (verified solutions), synced before returning the count now held."""
        data = np.ascontiguousarray(rows, dtype=np.uint8).tobytes()
        try:
            with open(self.path, "ab") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        except OSError as exc:
            raise ValueError(f"cannot write the witness file {str(self.path)!r}: {exc.strerror or exc}") \
                from None
        return self.count()

    def read(self, start: int = 0, stop: int | None = None) -> np.ndarray:
        """Witnesses ``start .. stop - 1`` (to the last whole one when ``stop`` is None), (m, n) uint8;
        ValueError naming the size when their copies cannot fit in the memory available."""
        size = max(0, (self.count() if stop is None else stop) - start) * self.n
        available = limits.available_memory()
        if size * READ_COPIES > available:
            raise ValueError(f"the witness file {str(self.path)!r} holds {format_bytes(size)} of witnesses "
                             f"to read, {READ_COPIES} copies of which do not fit in the "
                             f"{format_bytes(available)} of memory available")
        with open(self.path, "rb") as handle:
            handle.seek(start * self.n)
            data = handle.read() if stop is None else handle.read((stop - start) * self.n)
        whole = len(data) // self.n
        return np.frombuffer(data[:whole * self.n], dtype=np.uint8).reshape(whole, self.n)

    def cut(self, count: int) -> None:
        """Keep the first ``count`` witnesses (what the checkpoint records): bytes of a batch that was
        being appended when the run was killed go."""
        if self.count() < count:
            raise ValueError(f"the witness file {str(self.path)!r} holds {self.count()} witnesses, but its "
                             f"checkpoint records {count}: it was truncated or replaced")
        try:
            with open(self.path, "ab") as handle:
                handle.truncate(count * self.n)
        except OSError as exc:
            raise ValueError(f"cannot write the witness file {str(self.path)!r}: {exc.strerror or exc}") \
                from None


def verified_rows(n: int, rows: np.ndarray, where: str) -> np.ndarray:
    """``rows`` as (m, n) uint8 if every one is a solution, else ValueError naming ``where`` and the first
    one that is not (with ``nqcsp.proof.verifier``'s reason). The driver's acceptance test of what its
    workers found, in bulk (millions of witnesses at n = 24: one call of the verifier each would cost
    minutes); the evidence's re-check verifies every witness again with code of its own."""
    from nqcsp.proof.verifier import find_violation

    rows = np.asarray(rows)
    if rows.ndim != 2 or rows.shape[1] != n or rows.dtype.kind not in "iu":
        raise ValueError(f"{where}: witnesses must be rows of {n} integer columns, got {rows.dtype} "
                         f"{rows.shape}")
    good = np.ones(len(rows), dtype=bool)
    line = np.arange(n)
    for start in range(0, len(rows), 1 << 16):
        part = rows[start:start + (1 << 16)].astype(np.int64)
        ok = (np.sort(part, axis=1) == line).all(axis=1)
        for diagonal in (part + line, part - line):
            ok &= (np.diff(np.sort(diagonal, axis=1), axis=1) != 0).all(axis=1)
        good[start:start + len(part)] = ok
    if not good.all():
        index = int(np.flatnonzero(~good)[0])
        raise ValueError(f"{where}: witness {index} is not a solution: {find_violation(n, rows[index])}")
    return rows.astype(np.uint8)


class LoadedWitnesses:
    """A worker's copy of the witness file, by row (``cols_t[row, w]``) with inverses: the file's first
    ``in_file`` witnesses, then those its task found (``count`` in all). One per process, kept between
    tasks of the same file and grown as the file grows."""

    def __init__(self, path: str, n: int) -> None:
        self.file = WitnessFile(pathlib.Path(path), n)
        self.n = n
        self.in_file = 0
        self.count = 0
        self.cols_t = np.zeros((n, 0), dtype=np.uint8)
        self.inverse_t = np.zeros((n, 0), dtype=np.uint8)

    def reserve(self, room: int) -> None:
        """Capacity for ``room`` more witnesses than held now."""
        need = self.count + room
        if need <= self.cols_t.shape[1]:
            return
        capacity = max(need, 2 * self.cols_t.shape[1], 1024)
        for name in ("cols_t", "inverse_t"):
            grown = np.zeros((self.n, capacity), dtype=np.uint8)
            grown[:, :self.count] = getattr(self, name)[:, :self.count]
            setattr(self, name, grown)

    def append(self, rows: np.ndarray) -> None:
        if not len(rows):
            return
        self.reserve(len(rows))
        stop = self.count + len(rows)
        self.cols_t[:, self.count:stop] = rows.T
        self.inverse_t[rows.T, np.arange(self.count, stop)[None, :]] = \
            np.arange(self.n, dtype=np.uint8)[:, None]
        self.count = stop

    def refresh(self, own: np.ndarray) -> None:
        """The witnesses appended to the file since the last look, then the task's ``own`` after them."""
        self.count = self.in_file
        self.append(self.file.read(self.in_file))
        self.in_file = self.count
        self.append(own)


_LOADED: dict[tuple[str, str], LoadedWitnesses] = {}


def loaded_copy(path: str, run: str, n: int) -> LoadedWitnesses:
    """This process's copy of the witness file of ``run``: a file is append-only during its run, but a
    resumed run cuts it back and appends other witnesses."""
    if (path, run) not in _LOADED:
        _LOADED.clear()          # one sweep at a time
        _LOADED[(path, run)] = LoadedWitnesses(path, n)
    return _LOADED[(path, run)]


@contextlib.contextmanager
def witness_path(checkpoint: str | None) -> Iterator[pathlib.Path]:
    """The checkpoint's witness file, or a scratch file that goes with the sweep however it ends
    (``nqcsp.runtime.scratch``: a SIGKILL left the temporary file of a sweep without a checkpoint)."""
    from nqcsp.runtime.paths import file_to_append
    from nqcsp.runtime.scratch import process_file, release

    if checkpoint is not None:
        yield file_to_append(str(checkpoint) + WITNESS_SUFFIX, "witness file")
        return
    scratch = process_file("nqcsp-witnesses")
    if scratch is None:
        raise ValueError(f"no room for the sweep's witness file in the temporary folder "
                         f"{tempfile.gettempdir()!r}")
    name, handle = scratch
    try:
        yield pathlib.Path(name)
    finally:
        release(name, handle)
