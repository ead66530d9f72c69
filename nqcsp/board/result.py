"""What a solve call answers: status, verified queens or a certificate, and statistics."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import mmap
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import IO, Any

import numpy as np

from nqcsp.board.problem import Problem
from nqcsp.board.text import render_board
from nqcsp.runtime.limits import as_memory_limit, format_bytes


class Status(enum.Enum):
    SAT = "SAT"
    UNSAT = "UNSAT"
    UNKNOWN = "UNKNOWN"

    def __str__(self) -> str:
        return self.value


class InputError(ValueError):
    """Bad input that a backend can only detect while it runs (say a SAT solver missing from this PySAT
    build). It reaches the caller as the ValueError it is; any other exception from a backend is a bug."""


class InternalSolverError(RuntimeError):
    """A backend broke its contract (an unverifiable solution, an UNSAT without proof, a disagreement).

    This is always a bug in nqcsp or in a solver it calls, never an answer.
    """


@dataclass(frozen=True)
class Certificate:
    """Why an UNSAT answer holds.

    ``kind`` names the argument ("attack", "drat", "exhaustive", "cpsat-infeasible", "agreement", ...);
    ``checked_by`` names the independent methods that confirmed it (empty: only the solver's own claim);
    ``details`` holds the evidence (the attacking pair, a proof and its CNF, node counts, ...).
    """

    kind: str
    checked_by: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def checked(self) -> bool:
        return bool(self.checked_by)

    def summary(self) -> str:
        checked = f", checked by {', '.join(self.checked_by)}" if self.checked_by else ", unchecked"
        return f"{self.kind}{checked}"

    def to_json(self) -> dict[str, Any]:
        """Kind, checkers and details; byte evidence (a CNF, a proof, nested ones included) as its size and
        SHA-256, so a reader can match it with the files ``nqcsp solve --proof-dir`` writes. The bytes stay
        in ``details``."""
        return {"kind": self.kind, "checked_by": list(self.checked_by),
                "details": evidence_json(self.details)}


class ProofFile:
    """A proof too big to keep in memory, spilled to an anonymous temporary file (gone with this object):
    its bytes on demand, as a read-only map. Between processes it travels as bytes."""

    def __init__(self, file: IO[bytes], size: int) -> None:
        self._file = file
        self._size = size

    def __len__(self) -> int:
        return self._size

    def view(self) -> mmap.mmap | bytes:
        return mmap.mmap(self._file.fileno(), self._size, access=mmap.ACCESS_READ) if self._size else b""

    def __bytes__(self) -> bytes:
        return bytes(self.view())

    def __reduce__(self) -> tuple[type[bytes], tuple[bytes]]:
        return bytes, (bytes(self),)

    def __repr__(self) -> str:
        return f"ProofFile({format_bytes(self._size)})"


def evidence_json(value: Any) -> Any:
    """JSON for certificate details: byte strings become their size and sha256 (the bytes themselves
    stay in the ``Certificate`` and in the files of ``nqcsp.proof.certify.write_certificate``); nested values
    are kept."""
    if isinstance(value, (bytes, bytearray, ProofFile)):
        data = value.view() if isinstance(value, ProofFile) else value
        return {"bytes": len(value), "sha256": hashlib.sha256(data).hexdigest()}
    if isinstance(value, dict):
        return {str(key): evidence_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [evidence_json(item) for item in value]
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    return repr(value)


def columns_array(columns: Any, n: int) -> np.ndarray:
    """Columns by row as a read-only integer array, the one solution form that leaves a backend.

    An array rather than a tuple: at n = 10^8 a tuple of Python ints needs several GB, the array 400 MB.
    A backend hands its array over: it is not copied when its dtype already fits.
    """
    dtype = np.int32 if n < 2**31 else np.int64
    arr = np.asarray(columns, dtype=dtype).reshape(-1)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Result:
    """The answer to one problem.

    Naming, everywhere (API, CLI, JSON): ``queens`` are the mandatory cells ``(row, col)`` of the problem
    (``result.problem.queens``); ``columns`` is the solution, ``columns[row] == col`` for every row when
    ``status`` is SAT.

    A Result is immutable, ``stats`` included (a read-only mapping, copied from what the backend gave);
    ``with_stats`` makes a copy with more entries. Two Results are equal when every field is: the same
    problem, status, solver, certificate and stats, and columns equal element by element. Timings are in
    the stats, so two runs of one problem are rarely equal; compare ``status`` and ``columns`` for that.
    Results are not hashable.
    """

    problem: Problem
    status: Status
    solver: str
    columns: np.ndarray | None = None
    certificate: Certificate | None = None
    stats: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stats", MappingProxyType(dict(self.stats)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Result):
            return NotImplemented
        if self.columns is None or other.columns is None:
            same_columns = self.columns is None and other.columns is None
        else:
            same_columns = bool(np.array_equal(self.columns, other.columns))
        return (same_columns and self.problem == other.problem and self.status is other.status
                and self.solver == other.solver and self.certificate == other.certificate
                and dict(self.stats) == dict(other.stats))

    __hash__ = None  # type: ignore[assignment]  # equal by value, and its fields are not hashable

    def __getstate__(self) -> dict[str, Any]:
        # A read-only mapping does not pickle; results travel between processes (batches, sweeps).
        return {**self.__dict__, "stats": dict(self.stats)}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "stats", MappingProxyType(dict(state["stats"])))

    def with_stats(self, more: Mapping[str, Any]) -> Result:
        """This result with ``more`` entries in its stats (an entry of the same name is replaced)."""
        return dataclasses.replace(self, stats={**self.stats, **more})

    @property
    def n(self) -> int:
        return self.problem.n

    def column_tuple(self) -> tuple[int, ...]:
        """The solution as a tuple of Python ints (convenient for small n)."""
        if self.columns is None:
            raise ValueError(f"no solution to show: status is {self.status}")
        return tuple(self.columns.tolist())

    def board(self, memory_limit: int | None = None) -> str:
        """Board text: one line per row, '.' empty and 'Q' a queen, each line ending in '\\n'.

        n (n + 1) bytes, twice while it is built: ValueError naming the size when that exceeds
        ``memory_limit`` (default: the memory available now); ``columns`` is the compact form.
        """
        if self.columns is None:
            raise ValueError(f"no solution to show: status is {self.status}")
        needed = 2 * self.n * (self.n + 1)
        limit = as_memory_limit(memory_limit)
        if needed > limit:
            raise ValueError(f"board text for n = {self.n} needs {format_bytes(needed)}, over the memory "
                             f"limit of {format_bytes(limit)}; ask for the columns instead")
        return render_board(self.columns)

    def to_svg(self, memory_limit: int | None = None) -> str:
        """The board as an SVG picture (``nqcsp.board.svg``): a solution with the mandatory queens drawn
        apart from the found ones; without one (UNSAT, UNKNOWN) the mandatory queens, and for UNSAT the
        cells they attack shaded, an empty line marked and attacking queens joined. Boards above 128
        are drawn as a density picture; ValueError when its counts would exceed ``memory_limit``."""
        from nqcsp.board.svg import board_svg

        verdict = {Status.SAT: f"solved by {self.solver}",
                   Status.UNSAT: "no solution" + (f" ({self.certificate.summary()})" if self.certificate
                                                  else ""),
                   Status.UNKNOWN: "no answer"}[self.status]
        queens = self.problem.queen_array
        plural = "" if len(queens) == 1 else "s"
        title = f"{self.n} x {self.n} board, {len(queens)} mandatory queen{plural}: {verdict}"
        return board_svg(self.n, self.columns, queens, shade_attacks=self.status is Status.UNSAT,
                         title=title, memory_limit=memory_limit)

    def _repr_svg_(self) -> str | None:
        """The picture a notebook shows (IPython's rich display); None falls back to the text repr."""
        try:
            return self.to_svg()
        except ValueError:
            return None

    def to_json(self, with_columns: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "n": self.n,
            "queens": [list(cell) for cell in self.problem.queens],
            "status": self.status.value,
            "solver": self.solver,
            "stats": dict(self.stats),
        }
        if with_columns and self.columns is not None:
            out["columns"] = self.columns.tolist()
        if self.certificate is not None:
            out["certificate"] = self.certificate.to_json()
        return out
