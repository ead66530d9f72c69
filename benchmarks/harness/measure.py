"""What one run cost, for the process that runs it and every process below it, this run only, read from
Linux's /proc (no cgroup is needed; records say ``measured_by: "proc"``):

- ``cpu_s``: user + system seconds: this process's and its finished children's from ``getrusage`` (to the
  microsecond), and those of every descendant still alive (a warm engine's child) from ``/proc/PID/stat``
  (their own and their finished children's, in clock ticks);
- ``cpu_wait_s``: seconds the tree's threads stood runnable in the scheduler's queue, given no CPU
  (``/proc/PID/task/TID/schedstat``, its second field, as tests/timing.py reads it): the interference of
  the rest of the machine, which the wall clock counts and the CPU time does not;
- ``peak_rss_mb``: the run's own high-water mark: every process of the tree has its mark reset before the
  run (``/proc/PID/clear_refs`` with 5) and its ``VmHWM`` read after, summed over the tree (an upper
  bound of the tree's peak at one instant), with the peak of a child that started and ended within the
  run (``RUSAGE_CHILDREN``'s maximum, when the run raised it).

A thread or process that ends between the two readings takes its schedstat with it: the wait errs low
then, never high. A child alive at the start that this process reaps during the run brings its whole
life's CPU into ``RUSAGE_CHILDREN``: the CPU time errs high then (a warm engine's child is reaped only
when it is replaced, after a crash or a kill at the deadline). Where /proc is missing (not Linux) the
figures are None and ``measured_by`` says so.
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass, field
from typing import Any

TICK_S = 1.0 / os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 0.01
PROC = os.path.isdir("/proc/self/task")


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, from the kernel's children lists (each thread's), depth first."""
    found: list[int] = []
    stack = [pid]
    while stack:
        here = stack.pop()
        try:
            threads = os.listdir(f"/proc/{here}/task")
        except OSError:
            continue
        for thread in threads:
            try:
                with open(f"/proc/{here}/task/{thread}/children", encoding="ascii") as handle:
                    children = [int(word) for word in handle.read().split()]
            except (OSError, ValueError):
                continue
            found.extend(children)
            stack.extend(children)
    return found


def _ticks(pid: int) -> int:
    """utime + stime + cutime + cstime of a process, in clock ticks (0 when it is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0
    return sum(int(value) for value in fields[11:15])


def run_queue_waits(pid: int | str = "self") -> dict[str, int]:
    """Nanoseconds each thread of ``pid`` has waited for a CPU (thread id -> ns); {} where unknown. The one
    reader of schedstat: the benchmarks' measurement and the tests' stopwatch (tests/timing.py) share it."""
    waits: dict[str, int] = {}
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return waits
    for thread in threads:
        try:
            with open(f"/proc/{pid}/task/{thread}/schedstat", encoding="ascii") as handle:
                waits[thread] = int(handle.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue    # the thread ended meanwhile
    return waits


def _waits(pid: int) -> dict[tuple[int, str], int]:
    return {(pid, thread): ns for thread, ns in run_queue_waits(pid).items()}


def _hwm_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _reset_hwm(pid: int) -> None:
    try:
        with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        pass


def _own_cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime, children.ru_maxrss / 1024


@dataclass
class RunMeasure:
    """``measure = RunMeasure().start()``, the run, then ``measure.stop()``: the run's figures as a dict.

    With the ``pid`` of another process (the runner's, for a worker it is about to kill at the deadline,
    which can report nothing), the same figures read from outside: that process's CPU time too comes
    from /proc (clock ticks), the high-water marks are left as the worker reset them when its run began,
    and ``measured_by`` says ``proc (runner)``."""

    pid: int = field(default_factory=os.getpid)
    _cpu: float = 0.0
    _child_peak: float = 0.0
    _ticks: dict[int, int] = field(default_factory=dict)
    _waits: dict[tuple[int, str], int] = field(default_factory=dict)

    @property
    def outside(self) -> bool:
        return self.pid != os.getpid()

    def start(self) -> RunMeasure:
        if PROC:
            tree = [self.pid, *descendants(self.pid)]
            for pid in tree:
                if not self.outside:
                    # From outside, the run has begun: its worker reset the marks itself.
                    _reset_hwm(pid)
                self._waits.update(_waits(pid))
            self._ticks = {pid: _ticks(pid) for pid in tree[0 if self.outside else 1:]}
        if not self.outside:
            self._cpu, self._child_peak = _own_cpu()
        return self

    def stop(self) -> dict[str, Any]:
        cpu, child_peak = (self._cpu, self._child_peak) if self.outside else _own_cpu()
        if not PROC:
            return {"cpu_s": None if self.outside else cpu - self._cpu, "cpu_wait_s": None,
                    "peak_rss_mb": None, "measured_by": "getrusage"}
        tree = [self.pid, *descendants(self.pid)]
        alive_ticks = sum(_ticks(pid) - self._ticks.get(pid, 0) for pid in tree[0 if self.outside else 1:])
        waits: dict[tuple[int, str], int] = {}
        for pid in tree:
            waits.update(_waits(pid))
        waited = sum(ns - self._waits.get(key, 0) for key, ns in waits.items()) / 1e9
        peak = sum(_hwm_kib(pid) for pid in tree) / 1024
        if child_peak > self._child_peak:
            peak += child_peak
        return {"cpu_s": max(0.0, cpu - self._cpu + alive_ticks * TICK_S),
                "cpu_wait_s": max(0.0, waited), "peak_rss_mb": peak,
                "measured_by": "proc (runner)" if self.outside else "proc"}
