"""What a solve call answers: status, verified queens or a certificate, and statistics."""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import mmap
import os
import pathlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import IO, Any

import numpy as np

from nqcsp.board.problem import Problem
from nqcsp.board.text import render_board
from nqcsp.runtime.limits import as_memory_limit, format_bytes


class Status(enum.Enum):
    """The three answers of a solve call (``Result.status``); ``str(status)`` is its name.

    Examples:
        >>> import nqcsp
        >>> nqcsp.solve(8).status, nqcsp.solve(3).status
        (<Status.SAT: 'SAT'>, <Status.UNSAT: 'UNSAT'>)
        >>> str(nqcsp.Status.UNKNOWN)
        'UNKNOWN'
    """

    SAT = "SAT"
    """A solution: ``Result.columns`` holds it, verified by the independent checker."""
    UNSAT = "UNSAT"
    """No solution: ``Result.certificate`` says why, ``certificate.checked`` when a second method agreed."""
    UNKNOWN = "UNKNOWN"
    """No answer: a time or memory limit ran out, or an incomplete backend gave up (``stats["reason"]``)."""

    def __str__(self) -> str:
        return self.value


class InputError(ValueError):
    """Bad input that a backend can only detect while it runs (say a SAT solver missing from this PySAT
    build). It reaches the caller as the ValueError it is; any other exception from a backend is a bug."""


class InternalSolverError(RuntimeError):
    """A backend broke its contract (an unverifiable solution, an UNSAT without proof, a disagreement).

    This is always a bug in nqcsp or in a solver it calls, never an answer: ``solve`` raises it instead of
    returning a wrong Result, and the CLI reports it with exit code 4.

    Examples:
        >>> import nqcsp
        >>> issubclass(nqcsp.InternalSolverError, RuntimeError)    # not a ValueError: not bad input
        True
    """


@dataclass(frozen=True)
class Certificate:
    """Why an UNSAT answer holds (``Result.certificate``).

    ``str()`` and ``repr()`` show byte evidence (a proof, its CNF) by its size, never the bytes;
    ``to_json()`` by its size and SHA-256.

    Examples:
        >>> import nqcsp
        >>> cert = nqcsp.solve(6, [(0, 0)]).certificate
        >>> cert.kind, cert.checked_by, cert.checked
        ('lrat', ('nqcsp-lrat',), True)
        >>> cert.summary()
        'lrat, checked by nqcsp-lrat'
        >>> print(cert)
        lrat, checked by nqcsp-lrat (cnf 1.3 KiB, proof ... B)
    """

    kind: str
    """The argument: "attack" (two mandatory queens attack each other), "empty-line" (a free row or
    column has no cell left), "lrat" or "drat" (a proof of the board's CNF), "cpsat-infeasible",
    "agreement", ..."""
    checked_by: tuple[str, ...] = ()
    """The independent methods that confirmed it ("nqcsp-lrat", "dratify", ...); empty: only the
    solver's own claim."""
    details: dict[str, Any] = field(default_factory=dict)
    """The evidence: the attacking pair, the empty line, a proof and its CNF as bytes, node counts, ..."""

    @property
    def checked(self) -> bool:
        """Whether a second, independent method confirmed it (``checked_by`` is not empty)."""
        return bool(self.checked_by)

    def summary(self) -> str:
        """The kind and who checked it, in a few words: ``'lrat, checked by nqcsp-lrat'``."""
        checked = f", checked by {', '.join(self.checked_by)}" if self.checked_by else ", unchecked"
        return f"{self.kind}{checked}"

    def evidence_sizes(self) -> str:
        """The byte evidence by name and size (``'cnf 1.4 KiB, proof 214 B'``), or ""."""
        return ", ".join(f"{name} {format_bytes(len(value))}" for name, value in self.details.items()
                         if isinstance(value, (bytes, bytearray, ProofFile)))

    def __str__(self) -> str:
        sizes = self.evidence_sizes()
        return self.summary() + (f" ({sizes})" if sizes else "")

    def __repr__(self) -> str:
        shown = {name: (f"<{format_bytes(len(value))}>" if isinstance(value, (bytes, bytearray, ProofFile))
                        else _short(value)) for name, value in self.details.items()}
        details = ", ".join(f"{name!r}: {value}" for name, value in shown.items())
        text = f"Certificate(kind={self.kind!r}, checked_by={self.checked_by!r}, details={{{details}}})"
        return _clip(text, REPR_CHARS)

    def to_json(self) -> dict[str, Any]:
        """Kind, checkers and details; byte evidence (a CNF, a proof, nested ones included) as its size and
        SHA-256, so a reader can match it with the files ``nqcsp solve --proof-dir`` writes. The bytes stay
        in ``details``."""
        return {"kind": self.kind, "checked_by": list(self.checked_by),
                "details": evidence_json(self.details)}

    def save(self, directory: str | os.PathLike[str]) -> list[pathlib.Path]:
        """Write the certificate's files into ``directory`` (made, with its parents, when missing), as
        ``nqcsp solve --proof-dir`` does: ``certificate.json`` always (``to_json()`` with ``"files"``, the
        size and SHA-256 of each file written), and when the certificate holds a proof, the statement it
        refutes, ``statement.cnf`` (the board's reference CNF, DIMACS), and the proof, ``proof.lrat`` or
        ``proof.drat``. ``nqcsp check-proof DIR/statement.cnf DIR/proof.lrat`` checks the pair again.

        Each file is written whole or not at all, replacing a symbolic link of its name rather than
        writing through it; the files of an earlier certificate that this one does not have are removed,
        so a directory never holds a proof beside a statement it does not refute. ValueError naming the
        directory for a path that cannot hold them. Returns the paths written.

        Examples:
            >>> import nqcsp, tempfile
            >>> cert = nqcsp.solve(6, [(0, 0)]).certificate
            >>> with tempfile.TemporaryDirectory() as folder:
            ...     sorted(path.name for path in cert.save(folder))
            ['certificate.json', 'proof.lrat', 'statement.cnf']
        """
        from nqcsp.runtime.paths import make_directory, remove_owned, write_whole  # tempfile: only here

        folder = make_directory(directory, "proof directory")
        evidence = _evidence_files(self.kind, self.details)
        remove_owned(folder, tuple(name for name in EVIDENCE_FILES if name not in evidence),
                     "proof directory")
        written = []
        for name, data in evidence.items():
            with write_whole(folder / name, "proof file") as handle:
                handle.write(data.view() if isinstance(data, ProofFile) else data)
            written.append(folder / name)
        document = self.to_json()
        document["files"] = {name: evidence_json(data) for name, data in evidence.items()}
        with write_whole(folder / CERTIFICATE_FILE, "proof file") as handle:
            handle.write((json.dumps(document, indent=2) + "\n").encode("utf-8"))
        written.append(folder / CERTIFICATE_FILE)
        return written


# The files of ``Certificate.save`` (``nqcsp solve --proof-dir``), which ``nqcsp check-proof`` reads.
STATEMENT_FILE = "statement.cnf"
PROOF_FILES = {"drat": "proof.drat", "lrat": "proof.lrat"}
CERTIFICATE_FILE = "certificate.json"
# Every file nqcsp writes into a proof directory (the JSON is always rewritten).
EVIDENCE_FILES = (STATEMENT_FILE, *PROOF_FILES.values())


def _evidence_files(kind: str, details: dict[str, Any]) -> dict[str, bytes | ProofFile]:
    """The byte evidence of a certificate of ``kind`` by file name, looking inside an agreement's claims
    when it has none itself."""
    found: dict[str, bytes | ProofFile] = {}
    for key, name in (("cnf", STATEMENT_FILE), ("proof", PROOF_FILES.get(kind, "proof.drat"))):
        value = details.get(key)
        if isinstance(value, str):
            value = value.encode("ascii")
        if isinstance(value, ProofFile) and len(value):
            found[name] = value
        elif isinstance(value, (bytes, bytearray)) and value:
            found[name] = bytes(value)
    claims = details.get("claims")
    for claim in claims if isinstance(claims, list) and not found else []:
        if isinstance(claim, dict) and (found := _evidence_files(str(claim.get("kind")), claim)):
            break
    return found


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
    stay in the ``Certificate`` and in the files of ``Certificate.save``); nested values are kept."""
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


# The longest repr of a Result or Certificate, and the longest str of a Result; a board is printed up to
# BOARD_TEXT_UP_TO (33 x 32 characters), above that one line of summary.
REPR_CHARS = 300
STR_CHARS = 2000
BOARD_TEXT_UP_TO = 32


def _short(value: Any, chars: int = 40) -> str:
    """A value of a certificate's details in a repr: itself when short, else its kind and size."""
    text = repr(value)
    if len(text) <= chars:
        return text
    if isinstance(value, (dict, list, tuple)):
        return f"<{type(value).__name__} of {len(value)}>"
    return _clip(text, chars)


def _clip(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[:chars - 3] + "..."


def _seconds(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


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

    ``print(result)`` shows the answer as a person reads it: a headline, then the board up to n = 32 (the
    mandatory queens alone when there is no solution), the certificate's kind, checkers and evidence
    sizes for UNSAT, and the reason for UNKNOWN; never more than 2,000 characters. ``repr`` is one short
    line. A notebook draws the board (``to_svg``).

    Examples:
        >>> import nqcsp
        >>> r = nqcsp.solve(4, [(0, 1)])
        >>> r.status, r.columns.tolist(), r.column_tuple()
        (<Status.SAT: 'SAT'>, [1, 3, 0, 2], (1, 3, 0, 2))
        >>> print(r.board(), end="")
        .Q..
        ...Q
        Q...
        ..Q.
        >>> r
        Result(n=4, status=SAT, solver='construct', queens=1)
    """

    problem: Problem
    """The board size and the mandatory queens (``problem.n``, ``problem.queens``)."""
    status: Status
    """SAT, UNSAT or UNKNOWN."""
    solver: str
    """The backend that answered ("construct", "backtrack", ...; "trivial" when no search was needed)."""
    columns: np.ndarray | None = None
    """The verified solution when SAT, ``columns[row] == col`` (a read-only integer array); else None."""
    certificate: Certificate | None = None
    """Why there is no solution, when UNSAT; else None."""
    stats: Mapping[str, Any] = field(default_factory=dict)
    """Read-only figures of the run: ``wall_s``, ``verify_s``, ``nodes``, ``stages`` (auto's steps),
    ``reason`` (why UNKNOWN), ..."""

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
        """The board size, ``problem.n``."""
        return self.problem.n

    def __repr__(self) -> str:
        return _clip(f"Result(n={self.n}, status={self.status}, solver={self.solver!r}, "
                     f"queens={len(self.problem.queen_array)})", REPR_CHARS)

    def headline(self) -> str:
        """One line: the status, the board, the mandatory queens, who answered and how."""
        queens = self.problem.queen_array
        plural = "" if len(queens) == 1 else "s"
        cells = " ".join(f"({r}, {c})" for r, c in queens[:4].tolist())
        more = f" and {len(queens) - 4} more" if len(queens) > 4 else ""
        given = f"{len(queens)} mandatory queen{plural}" + (f" {cells}{more}" if len(queens) else "")
        took = self.stats.get("wall_s")
        timing = f" in {_seconds(took)}" if isinstance(took, (int, float)) else ""
        if self.status is Status.SAT:
            verdict = f"solved by {self.solver}{timing} (verified)"
        elif self.status is Status.UNSAT:
            proof = f"no solution, {self.certificate}" if self.certificate is not None else "no solution"
            verdict = f"{proof}; {self.solver}{timing}"
        else:
            reason = _clip(str(self.stats.get("reason", "no reason given")), 300)
            verdict = f"no answer from {self.solver}{timing}: {reason}"
        return _clip(f"{self.status}: {self.n} x {self.n} board, {_clip(given, 200)}: {_clip(verdict, 1000)}",
                     STR_CHARS - BOARD_TEXT_UP_TO * (BOARD_TEXT_UP_TO + 1) - 30)

    def __str__(self) -> str:
        head = self.headline()
        if self.n == 0:
            return head
        if self.n > BOARD_TEXT_UP_TO:
            if self.columns is not None:
                shown = ", ".join(str(c) for c in self.columns[:8].tolist())
                head += f"\ncolumns by row: {shown}{', ...' if self.n > 8 else ''} (result.columns)"
            return head
        from nqcsp.board.text import render_cells

        if self.columns is not None:
            return head + "\n" + render_board(self.columns).rstrip("\n")
        if len(self.problem.queen_array):
            board = render_cells(self.n, self.problem.queen_array).rstrip("\n")
            return f"{head}\nthe mandatory queens:\n{board}"
        return head

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

    def to_svg(self, memory_limit: int | None = None, **options: Any) -> str:
        """The board as an SVG picture (``nqcsp.board.svg``): a solution with the mandatory queens drawn
        apart from the found ones; without one (UNSAT, UNKNOWN) the mandatory queens, and for UNSAT the
        cells they attack shaded, an empty line marked and attacking queens joined. Boards above 128
        are drawn as a density picture; ValueError when its counts would exceed ``memory_limit``.
        ``options`` are ``board_svg``'s (``size``, ``colors``, ``highlight``, ``lines``, ``coordinates``,
        ``legend``, ``title``).

        Examples:
            >>> import nqcsp
            >>> svg = nqcsp.solve(8, [(0, 3)]).to_svg(size=240, coordinates=False)
            >>> svg.count('class="queen '), 'width="240"' in svg
            (8, True)
        """
        from nqcsp.board.svg import board_svg

        verdict = {Status.SAT: f"solved by {self.solver}",
                   Status.UNSAT: "no solution" + (f" ({self.certificate.summary()})" if self.certificate
                                                  else ""),
                   Status.UNKNOWN: "no answer"}[self.status]
        queens = self.problem.queen_array
        plural = "" if len(queens) == 1 else "s"
        options.setdefault("title", f"{self.n} x {self.n} board, {len(queens)} mandatory queen{plural}: "
                                    f"{verdict}")
        return board_svg(self.n, self.columns, queens, shade_attacks=self.status is Status.UNSAT,
                         memory_limit=memory_limit, **options)

    def _repr_svg_(self) -> str | None:
        """The picture a notebook shows (IPython's rich display); None falls back to the text repr."""
        try:
            return self.to_svg()
        except ValueError:
            return None

    def to_json(self, with_columns: bool = True) -> dict[str, Any]:
        """The answer as JSON (what ``nqcsp solve --format json`` prints): n, queens, status, solver,
        stats, the columns (unless ``with_columns`` is false) and the certificate's ``to_json()``."""
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
