"""The Solver protocol every backend implements, the one option vocabulary, and the stats vocabulary.

A backend is called only through ``nqcsp.solve`` (or the portfolio), which has already validated the
problem, answered the trivial cases, resolved the options against the backend's declared ``Option``s
(defaults filled in, every value checked), and started the ``Limits``. The backend answers a ``Result``;
``nqcsp.solve`` verifies a SAT answer and re-checks an UNSAT certificate, once, whoever answered.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from nqcsp.board.problem import Problem
from nqcsp.board.result import Result
from nqcsp.runtime.limits import Limits
from nqcsp.runtime.values import close_names, did_you_mean

# The stats vocabulary: every backend reports the same names for the same things. A name that more than one
# module writes or reads is a constant here; a measurement only one backend takes (its solver's counters,
# its options as run) is named where it is measured.
REASON = "reason"            # why a backend answered UNKNOWN (time_limit_reason(stage) on a deadline)
STAGE = "stage"              # the stage that ran out of time or memory
SOLVE_S = "solve_s"          # seconds inside the backend, build included
BUILD_S = "build_s"          # seconds building a model or formula
SEARCH_S = "search_s"        # seconds searching
PROVE_S = "prove_s"          # seconds producing a proof
VERIFY_S = "verify_s"        # seconds verifying a solution
WALL_S = "wall_s"            # seconds of the whole call, set by nqcsp.solve
NODES = "nodes"              # search nodes of a backtracking search
STAGES = "stages"            # auto: every stage it ran, in order (solver, status, seconds, reason)


@runtime_checkable
class Solver(Protocol):
    """A backend.

    An incomplete backend answers SAT or UNKNOWN, never UNSAT. A complete backend answers UNSAT only
    with a ``Certificate`` carrying its evidence; whether that evidence is checked is decided outside the
    backend (``nqcsp.proof.certify``). ``options`` are already resolved: every declared option is present.
    Stages that may be slow or large consult ``limits`` and may raise ``nqcsp.runtime.limits.Unfinished``.
    """

    def solve(self, problem: Problem, *, limits: Limits, seed: int | None, **options: Any) -> Result: ...


@dataclass(frozen=True)
class Option:
    """One backend option: its default and how a value is checked.

    ``kind`` is "bool", "int" (within ``low``..``high``), "choice" (one of ``choices``) or "custom"
    (``check`` validates and returns the value to use). Every check raises TypeError or ValueError naming
    the option and the value. An option whose default is None takes None, its default, too.
    """

    name: str
    default: Any
    kind: str
    doc: str = ""
    choices: tuple[Any, ...] = ()
    low: float | None = None
    high: float | None = None
    check: Callable[[Any], Any] | None = None

    def validate(self, value: Any) -> Any:
        if value is None and self.default is None:
            # The default itself, as ``nqcsp solvers --json`` advertises it: "chosen by n" (or by phase).
            return None
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise TypeError(f"option {self.name} must be True or False, got {value!r}")
            return value
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"option {self.name} must be an integer, got {value!r}")
            number = int(value)
            if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
                raise ValueError(f"option {self.name} must be in {_bound(self.low)}..{_bound(self.high)}, "
                                 f"got {value!r}")
            return number
        if self.kind == "choice":
            if not any(value == choice and type(value) is type(choice) for choice in self.choices):
                raise ValueError(f"option {self.name} must be one of {', '.join(map(repr, self.choices))}, "
                                 f"got {value!r}")
            return value
        if self.kind == "custom" and self.check is not None:
            return self.check(value)
        raise AssertionError(f"option {self.name} has no way to check a value (kind {self.kind!r})")


def _bound(value: float | None) -> str:
    if value is None:
        return ""
    return str(int(value)) if float(value).is_integer() else str(value)


def resolve_options(backend: str, schema: tuple[Option, ...], options: Mapping[str, Any],
                    keywords: Sequence[str] = (), owners: Mapping[str, Sequence[str]] | None = None) \
        -> dict[str, Any]:
    """Every declared option, from ``options`` or its default, validated; unknown names raise TypeError,
    with a near miss among the options and the caller's own ``keywords`` (``time_limit``) named, or the
    backends whose option it is (``owners``: option name -> backends)."""
    known = {option.name: option for option in schema}
    unknown = sorted(set(options) - set(known))
    if unknown:
        takes = f"; it takes {', '.join(known)}" if known else "; it takes none"
        raise TypeError(f"solver {backend!r} got unknown option(s) {', '.join(unknown)}{takes}"
                        f"{_meant(unknown[0], (*known, *keywords), owners or {})}")
    resolved = {}
    for name, option in known.items():
        resolved[name] = option.validate(options[name]) if name in options else option.default
    return resolved


def _meant(name: str, here: Sequence[str], owners: Mapping[str, Sequence[str]]) -> str:
    """What an unknown option ``name`` was likely meant as: another backend's option (``encoding`` given
    to auto), or a near miss of a name taken ``here`` or of another backend's option."""
    def whose(option: str) -> str:
        return f"an option of solver {' or '.join(map(repr, owners[option]))}"

    if name in owners:
        return f"; {name} is {whose(name)}"
    near = close_names(name, (*here, *owners))
    if near and near[0] not in here:
        return f"; did you mean {near[0]!r} ({whose(near[0])})?"
    return did_you_mean(name, here)


class Clock:
    """A backend's view of the call's deadline: seconds since the backend started, and what is left."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.start = time.perf_counter()

    @property
    def time_limit(self) -> float | None:
        return self.limits.time_limit

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        return self.limits.remaining()

    def expired(self) -> bool:
        return self.limits.expired()
