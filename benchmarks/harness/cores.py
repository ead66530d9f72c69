"""One CPU of its own for each line that runs beside others, as BenchExec pins its runs to cores.

Parallel lines of a suite otherwise share the machine's CPUs with whatever the scheduler gives them: an
engine that starts a thread per CPU (the backtrack backend's proof search does) then waits for a CPU as
soon as a second line runs, and its runs come out disturbed (CPU wait over 10% of the wall time) and are
run again. Pinned, each line's worker and the engine it starts see one CPU (``os.sched_getaffinity``, which
``nqcsp.runtime.parallel.cpu_count`` reads), so a run measures the engine on one core, undisturbed.

A CPU is claimed by an exclusive lock on a file of its own (in ``$NQCSP_CORE_LOCKS``, default a folder of
the temporary directory), so lines of one run, of Dask workers on one host, and of two runs at once never
share one; when every CPU this process may use is taken the line runs unpinned (``None``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

LOCKS_ENV = "NQCSP_CORE_LOCKS"


def lock_dir() -> Path:
    return Path(os.environ.get(LOCKS_ENV) or Path(tempfile.gettempdir()) / "nqcsp-bench-cores")


@contextlib.contextmanager
def pinned_core() -> Iterator[int | None]:
    """This process (and every process it starts meanwhile) on one free CPU: its number, or None."""
    allowed = os.sched_getaffinity(0)
    where = lock_dir()
    where.mkdir(parents=True, exist_ok=True)
    for core in sorted(allowed):
        handle = open(where / f"cpu{core}.lock", "w")  # noqa: SIM115 - held until the line ends
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            continue
        try:
            os.sched_setaffinity(0, {core})
            yield core
        finally:
            os.sched_setaffinity(0, allowed)
            handle.close()  # closing the file releases its lock
        return
    yield None
