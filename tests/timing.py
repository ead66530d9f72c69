"""Time-limit promises measured so that a busy machine cannot break them.

A call promises to return within max(10%, 0.5 s) of its time limit. What a test can hold the code to is the
time the code itself took: on a shared 2-core machine at load 4 to 7, the wall clock also counts the
seconds the process stood in the scheduler's run queue, runnable but given no CPU (a test of a 0.5 s limit
measured 1.27 s there, and passed alone). Linux counts those seconds per thread (``/proc/PID/task/TID/
schedstat``, its second field), so a stopwatch here reads the wall clock less the run-queue wait of the
measured process's threads. On a quiet machine that wait is near 0 and the figure is the wall clock; where
schedstat is missing (not Linux) it is the wall clock. The wall-clock figures themselves, quiet machine
and all, are the ``limits`` benchmark's (``python -m benchmarks run limits``).
"""

from __future__ import annotations

import subprocess
import time
from typing import Any

from benchmarks.harness.measure import run_queue_waits as _run_queue_waits


def promise(limit: float) -> float:
    """The most seconds a call with ``limit`` may take: limit + max(10% of it, 0.5 s)."""
    return limit + max(0.1 * limit, 0.5)


def _waited(before: dict[str, int], after: dict[str, int]) -> float:
    """Seconds of run-queue wait between two readings, over the threads seen in the second (a thread
    that ended between them is not counted: the figure errs towards the wall clock)."""
    return sum(ns - before.get(thread, 0) for thread, ns in after.items()) / 1e9


class Stopwatch:
    """``with Stopwatch() as watch: call()``; then ``watch.seconds`` (the wall clock less this process's
    wait for a CPU meanwhile), ``watch.wall`` and ``watch.waited``."""

    def __enter__(self) -> Stopwatch:
        self._waits = _run_queue_waits()
        self._started = time.perf_counter()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.wall = time.perf_counter() - self._started
        self.waited = min(self.wall, max(0.0, _waited(self._waits, _run_queue_waits())))
        self.seconds = self.wall - self.waited

    def __repr__(self) -> str:
        return f"{self.seconds:.3f} s ({self.wall:.3f} s wall, {self.waited:.3f} s waiting for a CPU)"


class ChildStopwatch(Stopwatch):
    """Times another process (``pid``) as ``Stopwatch`` times this one: ``start()``, then ``wait(process,
    timeout)`` reads its threads' wait every ``POLL_S`` until it ends (a thread that ends between two
    readings keeps its last one), then ``seconds``, ``wall`` and ``waited`` as for ``Stopwatch``."""

    POLL_S = 0.01

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def start(self) -> ChildStopwatch:
        self._waits = _run_queue_waits(self.pid)
        self._latest = dict(self._waits)
        self._started = time.perf_counter()
        return self

    def wait(self, process: subprocess.Popen, timeout: float) -> bool:
        """Whether ``process`` ended within ``timeout`` seconds (its output must go to a file, DEVNULL or
        a pipe it cannot fill); the stopwatch stops when it ends or the timeout passes."""
        end = time.perf_counter() + timeout
        while process.poll() is None and time.perf_counter() < end:
            self._latest.update(_run_queue_waits(self.pid))
            time.sleep(self.POLL_S)
        self.wall = time.perf_counter() - self._started
        self.waited = min(self.wall, max(0.0, _waited(self._waits, self._latest)))
        self.seconds = self.wall - self.waited
        return process.poll() is not None
