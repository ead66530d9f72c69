"""One deadline and one memory budget per call, shared by every stage (build, search, prove, check,
verify, render).

A stage asks before it starts: ``limits.check_time(stage)`` when it can be cut short, ``limits.need_time(
stage, seconds)`` when it cannot be interrupted once started (a numpy pass, a C call), and
``limits.need_memory(stage, nbytes, what)`` before a big allocation. A stage that cannot finish in time or
fit in memory raises ``Unfinished``; ``nqcsp.solve`` turns that into UNKNOWN with a reason naming the stage
and the figure, so no user ever sees MemoryError or waits past the deadline.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from nqcsp.runtime.values import as_int, as_seconds, format_bytes

# What is left for the rest of the process (the interpreter, imports, result objects) when the default
# budget is taken from the machine's available memory.
_HEADROOM = 0.85


class Unfinished(Exception):
    """A stage that cannot finish within the limits; the call answers UNKNOWN with ``reason``."""

    def __init__(self, stage: str, reason: str) -> None:
        super().__init__(reason)
        self.stage = stage
        self.reason = reason


class OutOfTime(Unfinished):
    pass


class OutOfMemory(Unfinished):
    pass


def _read_int(path: str) -> int | None:
    try:
        with open(path, encoding="ascii") as handle:
            text = handle.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _address_space_used() -> int:
    """Bytes of address space this process has mapped (Linux: VmSize); 0 where that is not known."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def available_memory() -> int:
    """Bytes this process may still use: the smallest of the machine's available memory, the cgroup's
    remaining allowance and the address-space rlimit (each when known)."""
    candidates: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    candidates.append(int(line.split()[1]) * 1024)
                    break
    except OSError:
        pass
    if not candidates:
        with contextlib.suppress(ValueError, OSError, AttributeError):
            candidates.append(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    cgroup_max = _read_int("/sys/fs/cgroup/memory.max")
    cgroup_used = _read_int("/sys/fs/cgroup/memory.current")
    if cgroup_max is not None and cgroup_used is not None:
        candidates.append(max(0, cgroup_max - cgroup_used))
    try:
        import resource  # POSIX only: Windows has no rlimits, and `import nqcsp` must work there
    except ImportError:
        pass
    else:
        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            # The cap counts address space already mapped (the interpreter, numpy, numba's LLVM: a few
            # hundred MB to GBs), so what is left under it is the cap less that.
            candidates.append(max(0, soft - _address_space_used()))
    return min(candidates) if candidates else 1 << 32


def default_memory_limit() -> int:
    return int(available_memory() * _HEADROOM)


def as_time_limit(time_limit: object) -> float | None:
    """Seconds, finite and > 0, or None for no limit (infinity is refused: a limit is a promise to answer
    by then, and None says "no limit" without pretending to be one)."""
    if time_limit is None:
        return None
    return as_seconds(time_limit, "time_limit")


def as_memory_limit(memory_limit: object) -> int:
    """Bytes, >= 1 MiB; None means the memory available to this process now."""
    if memory_limit is None:
        return default_memory_limit()
    value = as_int(memory_limit, "memory_limit")
    if value < 1 << 20:
        raise ValueError(f"memory_limit must be at least 1 MiB (1048576 bytes), got {value}")
    return value


@dataclass(frozen=True)
class Limits:
    """An absolute deadline (``perf_counter`` seconds, or None) and a memory ceiling in bytes."""

    deadline: float | None
    memory: int
    time_limit: float | None = None

    @classmethod
    def start(cls, time_limit: object = None, memory_limit: object = None) -> Limits:
        seconds = as_time_limit(time_limit)
        deadline = None if seconds is None else time.perf_counter() + seconds
        return cls(deadline, as_memory_limit(memory_limit), seconds)

    @classmethod
    def unlimited(cls) -> Limits:
        return cls(None, default_memory_limit())

    def remaining(self) -> float | None:
        """Seconds left; a limit of centuries is capped at the longest wait Python's timers take
        (``threading.TIMEOUT_MAX``), so every stage can hand it to a timer."""
        if self.deadline is None:
            return None
        return min(max(0.0, self.deadline - time.perf_counter()), threading.TIMEOUT_MAX)

    def expired(self) -> bool:
        return self.deadline is not None and time.perf_counter() >= self.deadline

    def within(self, seconds: float | None) -> Limits:
        """The same budget with the deadline brought forward to ``seconds`` from now (never later)."""
        if seconds is None:
            return self
        end = time.perf_counter() + max(0.0, seconds)
        deadline = end if self.deadline is None else min(end, self.deadline)
        return Limits(deadline, self.memory, self.time_limit)

    def check_time(self, stage: str) -> None:
        """Raise OutOfTime when the deadline has passed (between steps of an interruptible stage)."""
        if self.expired():
            raise OutOfTime(stage, time_limit_reason(stage, self.time_limit))

    def need_time(self, stage: str, seconds: float, grace: float = 0.0, why: str = "") -> None:
        """Raise OutOfTime when an uninterruptible stage, estimated at ``seconds``, cannot end in time.

        ``grace`` (seconds) lets a stage that cannot be avoided, such as loading compiled kernels, run
        over the deadline by that much rather than leave every later stage without a chance. ``why``
        says what the seconds are for, in the reason.
        """
        remaining = self.remaining()
        if remaining is not None and seconds > remaining + grace:
            what = f" ({why})" if why else ""
            raise OutOfTime(stage, f"time limit: {stage} needs about {seconds:.2g} s{what}, "
                                   f"{remaining:.2g} s of the {self.time_limit} s are left")

    def need_compiled(self, stage: str, kernel: Any, seconds: float, what: str, grace: float = 0.0) -> None:
        """``need_time`` for compiling ``kernel`` (a numba dispatcher, ``what`` naming it) when numba's
        cache has no copy of it (a fresh install); nothing when it is loaded or cached. Only for a
        caller that has imported numba already."""
        from nqcsp.runtime.jit import needs_compiling

        if needs_compiling(kernel):
            self.need_time(stage, seconds, grace, why=f"compiling {what} once: numba's cache has no copy")

    def need_memory(self, stage: str, nbytes: float, what: str) -> None:
        """Raise OutOfMemory when ``what`` (``nbytes``, estimated) would not fit in the memory budget."""
        if nbytes > self.memory:
            raise OutOfMemory(stage, f"memory limit: {stage} needs about {format_bytes(nbytes)} for {what}, "
                                     f"over the limit of {format_bytes(self.memory)}")


def time_limit_reason(stage: str, time_limit: float | None) -> str:
    """The one wording of "the deadline passed", naming the stage it passed in."""
    return f"time limit of {time_limit} s reached during {stage}"
