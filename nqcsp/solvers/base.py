"""The Solver protocol every backend implements, and small helpers shared by backends."""

from __future__ import annotations

import time
from typing import Any, Protocol, runtime_checkable

from nqcsp.problem import Problem
from nqcsp.result import Result


@runtime_checkable
class Solver(Protocol):
    """A backend. ``complete`` is True only when it can prove that no solution exists.

    An incomplete backend answers SAT or UNKNOWN, never UNSAT. A complete backend answers UNSAT only with a
    ``Certificate``. Backends need not verify their SAT answers: ``nqcsp.solve`` does, always.
    Backend-specific keyword options come in ``**options``; unknown ones raise TypeError.
    """

    name: str
    complete: bool

    def solve(self, problem: Problem, *, time_limit: float | None, seed: int | None,
              **options: Any) -> Result: ...


class Stopwatch:
    """Wall-clock time since creation, and what is left of an optional limit."""

    def __init__(self, time_limit: float | None = None) -> None:
        self.start = time.perf_counter()
        self.time_limit = time_limit

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        if self.time_limit is None:
            return None
        return max(0.0, self.time_limit - self.elapsed())

    def expired(self) -> bool:
        remaining = self.remaining()
        return remaining is not None and remaining <= 0.0


def reject_options(name: str, options: dict[str, Any], allowed: tuple[str, ...] = ()) -> None:
    """Raise TypeError naming any option the backend does not take."""
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        takes = f"; it takes {', '.join(allowed)}" if allowed else "; it takes none"
        raise TypeError(f"solver {name!r} got unknown option(s) {', '.join(unknown)}{takes}")
