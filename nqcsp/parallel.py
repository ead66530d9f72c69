"""The one seam for parallel work (sweeps, counts, batches, benchmark suites): any
``concurrent.futures.Executor`` — a process pool by default, ``dask.distributed``'s
``Client.get_executor()`` for a cluster.

``run_tasks`` submits picklable tasks (a module-level function and its arguments), yields results as they
complete, and cancels what is pending when the caller stops early or is interrupted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, as_completed
from typing import Any


def cpu_count() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def run_tasks(fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]], *, executor: Executor | None = None,
              jobs: int | None = None) -> Iterator[tuple[int, Any]]:
    """Yield ``(index, fn(*tasks[index]))`` as each task completes, in completion order.

    Without ``executor`` a process pool of ``jobs`` processes (default: one per core) is made and shut
    down here. Leaving the loop early, or an interrupt, cancels every task not yet started.
    """
    owned = executor is None
    pool = executor if executor is not None else ProcessPoolExecutor(max_workers=jobs or cpu_count())
    futures: dict[Future, int] = {}
    try:
        for index, args in enumerate(tasks):
            futures[pool.submit(fn, *args)] = index
        for future in as_completed(futures):
            yield futures[future], future.result()
    finally:
        for future in futures:
            future.cancel()
        if owned:
            pool.shutdown(wait=True, cancel_futures=True)
