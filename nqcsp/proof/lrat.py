"""The LRAT checker: the smallest piece of the trust chain, in time linear in the proof.

It takes a formula that nqcsp already holds as arrays (``nqcsp.proof.dimacs.Cnf``: a statement it rebuilt, or
the clauses its one DIMACS reader read) and an LRAT proof, either text or the compressed binary form of
drat-trim's README. It reads no DIMACS itself and shares no code with any proof producer.

The proof's grammar, from the format's definition:
- binary: ``a`` id lits 0 hints 0 (an addition) and ``d`` ids 0 (a deletion), every number mapped to ``2x``
  or ``2|x| + 1`` for negatives and written in little-endian base-128;
- text: ``id lits 0 hints 0`` and ``id d ids 0``, numbers separated by any white space (a step ends at its
  second 0, or its first for a deletion, wherever the line breaks fall; the last newline is optional).

A proof is all of its bytes: every step is read and checked, those after the empty clause too (a producer
deletes the empty clause's hints after it), and the proof is accepted when one of its steps added the
empty clause. A comment line, or a binary "-0" (the byte 0x01), is not in the format and rejects the
proof. cake_lpr, the outside checker, reads proofs the same way, so the two judge the same bytes (it is
stricter only in layout: a step a line).

Every added clause is checked by reverse unit propagation along its hints: the clause's literals are set
false, then each hint must name a live clause that is unit under that assignment (its last literal is then
set true) or falsified (the conflict that ends the check of that clause). Nothing is searched for: a hint
that is neither unit nor falsified, a deleted or future clause, a literal beyond the formula's variables,
a RAT hint (negative: the statement needs none) or a malformed number rejects the proof. The proof is
accepted only when it derives the empty clause. Each number of the proof is read once and each hint's
clause scanned once, so the check is linear in the size of the proof and of the hinted clauses.

The k-th step of a proof (additions and deletions counted) may add a clause numbered at most the formula's
clauses plus k, above every number added before it: consecutive numbering, as LRAT producers write it,
so the table of clauses is indexed by number and grows only with the steps read, never with what the
proof's bytes claim.
"""

from __future__ import annotations

import mmap
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.proof.dimacs import Cnf, read_dimacs
from nqcsp.runtime.lazy import load, loaded
from nqcsp.runtime.limits import OutOfMemory, default_memory_limit, format_bytes

CHECKER = "nqcsp-lrat"
# Measured on backtrack proofs of prob079 residuals (`python -m benchmarks certified`, shared 2-core
# machine): 20-30 ns a proof byte, 34 MB in 0.92 s; the estimate refuses a check only when it clearly
# cannot end in time.
SECONDS_PER_PROOF_BYTE = 3e-8
SECONDS_PER_CNF_BYTE = 2e-8
# Loading the cached kernel, once per process: 0.3 to 1.3 s measured on the shared 2-core machine;
# compiling it when numba's cache has no copy (a fresh install): about 6 s measured with the other core
# busy, with margin.
KERNEL_LOAD_S = 0.8
KERNEL_COMPILE_S = 8.0
# Per proof byte, the tables of a backtrack proof (21 bytes a lemma of 40 bytes or more); the literals of
# live clauses are compacted as the proof deletes, within a fixed share; per CNF byte its literals and
# tables. A proof that needs more than its budget as it goes is stopped there (OutOfMemory).
BYTES_PER_PROOF_BYTE = 1
BYTES_PER_CNF_BYTE = 12
STORE_BYTES = 1 << 26
# Bytes per variable (value and trail), per table entry (start, length, alive, order) and per literal.
_BYTES_PER_VARIABLE = 9
_BYTES_PER_ENTRY = 21
_BYTES_PER_LITERAL = 4
# Room in the tables beyond the formula's clauses and in the store, before the proof asks for more.
_TABLE_ROOM = 1 << 16
_STORE_ROOM = 1 << 20

_OK = 0
_REASONS = {
    3: "the proof is malformed: {detail}",
    4: "clause {detail}: its number does not increase along the proof or is beyond what its step can add",
    5: "clause {detail}: a literal is beyond the formula's variables",
    6: "clause {detail}: a hint names a clause that does not exist or was deleted",
    7: "clause {detail}: a hint is satisfied, not unit, under the clause's negation",
    8: "clause {detail}: a hint is neither unit nor falsified under the clause's negation",
    9: "clause {detail}: its hints end without a conflict (not implied by unit propagation)",
    10: "clause {detail}: RAT hints (negative) are not accepted: the statement needs none",
    11: "a deletion names clause {detail}, which does not exist or was already deleted",
    12: "the proof ends without deriving the empty clause",
}
_DETAILS = {-1: "a number does not fit", -2: "an unexpected character", -3: "a step ends early"}


@dataclass(frozen=True)
class LratVerdict:
    ok: bool
    reason: str
    stats: dict[str, Any] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return self.ok


def is_binary(proof: bytes) -> bool:
    """Binary LRAT starts with an addition or deletion byte; text starts with a digit, space or 'c'."""
    return len(proof) > 0 and proof[0] in (ord("a"), ord("d"))


def estimated_seconds(cnf_bytes: int, proof_bytes: int) -> float:
    """The check's time from the sizes, the kernel's loading included when this process has not yet,
    and its compiling when numba is imported already and finds no cached copy (a fresh install)."""
    already = loaded("nqcsp.proof._lrat_kernel")
    loading = 0.0 if already is not None and already.check_steps.signatures else KERNEL_LOAD_S
    if loading and "numba" in sys.modules:
        from nqcsp.runtime.jit import needs_compiling

        kernels = load("nqcsp.proof._lrat_kernel")  # numba is imported: only the module's own definitions
        if needs_compiling(kernels.check_steps):
            loading = KERNEL_COMPILE_S
    return loading + SECONDS_PER_CNF_BYTE * cnf_bytes + SECONDS_PER_PROOF_BYTE * proof_bytes


def estimated_bytes(cnf_bytes: int, proof_bytes: int) -> int:
    return BYTES_PER_CNF_BYTE * cnf_bytes + BYTES_PER_PROOF_BYTE * proof_bytes + STORE_BYTES


def _rooms(cnf: Cnf) -> tuple[int, int]:
    """Entries of the clause tables and literals of the store to start with: the formula's and as much
    again (up to a fixed room), before the proof asks for more."""
    clauses, literals = cnf.num_clauses, len(cnf.literals)
    table = clauses + 1 + min(_TABLE_ROOM, max(clauses, 1024))
    store = max(2 * literals, literals + clauses + min(_STORE_ROOM, max(literals, 4096)))
    return table, store


def formula_bytes(cnf: Cnf) -> int:
    """Memory the check needs for ``cnf`` before the first byte of proof."""
    table, store = _rooms(cnf)
    return _BYTES_PER_VARIABLE * (cnf.num_vars + 1) + _BYTES_PER_ENTRY * table + _BYTES_PER_LITERAL * store


def _as_array(data: bytes | bytearray | memoryview | mmap.mmap | np.ndarray) -> np.ndarray:
    return data if isinstance(data, np.ndarray) else np.frombuffer(data, dtype=np.uint8)


class LratStream:
    """A check fed the proof in pieces, as its producer writes it (``feed``, then ``finish``): memory
    bounded by the table of clause numbers and the live clauses, never the whole proof, and by
    ``memory`` bytes (default: the memory available), past which ``feed`` raises OutOfMemory("check")
    naming the figure. A piece may end anywhere: a step cut short waits for the next piece."""

    def __init__(self, cnf: Cnf, memory: int | None = None) -> None:
        kernel = load("nqcsp.proof._lrat_kernel")  # under the lazy-import lock: threads may check at once
        started = time.perf_counter()
        self.memory = default_memory_limit() if memory is None else memory
        self._need(formula_bytes(cnf),
                   f"the formula of {cnf.num_clauses} clauses and {cnf.num_vars} variables")
        self.num_clauses, self.num_vars = cnf.num_clauses, cnf.num_vars
        self.verdict: LratVerdict | None = None
        self.proof_bytes = 0
        self.seconds = 0.0
        self._binary: bool | None = None
        self._tail = np.zeros(0, dtype=np.uint8)
        self._outcome = np.zeros(2, dtype=np.int64)
        clauses, literals = cnf.num_clauses, len(cnf.literals)
        table, store = _rooms(cnf)
        self._starts = np.zeros(table, dtype=np.int64)
        self._lengths = np.zeros(table, dtype=np.int32)
        self._alive = np.zeros(table, dtype=np.uint8)
        self._order = np.zeros(table, dtype=np.int64)
        self._starts[1:clauses + 1] = cnf.offsets[:-1]
        self._lengths[1:clauses + 1] = np.diff(cnf.offsets)
        self._alive[1:clauses + 1] = 1
        self._order[:clauses] = np.arange(1, clauses + 1)
        self._store = np.empty(store, dtype=np.int32)
        self._store[:literals] = cnf.literals
        self._value = np.zeros(cnf.num_vars + 1, dtype=np.int8)
        self._trail = np.zeros(cnf.num_vars + 1, dtype=np.int64)
        self._state = np.zeros(kernel.STATE_SIZE, dtype=np.int64)
        self._state[kernel.USED], self._state[kernel.LAST] = literals, clauses
        self._state[kernel.LIVE] = clauses
        self.seconds += time.perf_counter() - started

    def _need(self, nbytes: int, what: str) -> None:
        if nbytes > self.memory:
            raise OutOfMemory("check", f"memory limit: the LRAT check needs about {format_bytes(nbytes)} for "
                                       f"{what}, over the limit of {format_bytes(self.memory)}")

    def _held(self) -> int:
        return sum(a.nbytes for a in (self._starts, self._lengths, self._alive, self._order, self._store,
                                      self._value, self._trail))

    def feed(self, piece: bytes | bytearray | memoryview | mmap.mmap | np.ndarray) -> bool:
        """Check the proof's next bytes; False once it is decided (the rest need not come)."""
        if self.verdict is not None:
            return False
        steps = _as_array(piece)
        self.proof_bytes += len(steps)
        if not len(steps):
            return True
        if self._binary is None:
            self._binary = is_binary(bytes(steps[:1]))
        if len(self._tail):
            steps = np.concatenate((self._tail, steps))
            self._tail = np.zeros(0, dtype=np.uint8)
        self._run(steps, final=False)
        return self.verdict is None

    def finish(self) -> LratVerdict:
        """The verdict: accepted only when the proof so far derived the empty clause."""
        if self.verdict is None:
            tail, self._tail = self._tail, np.zeros(0, dtype=np.uint8)
            self._run(tail, final=True)
        assert self.verdict is not None
        return self.verdict

    def _run(self, steps: np.ndarray, final: bool) -> None:
        kernel = load("nqcsp.proof._lrat_kernel")
        started = time.perf_counter()
        state = self._state
        state[kernel.POS] = 0
        while True:
            kernel.check_steps(
                steps, bool(self._binary), final, self.num_clauses, self.num_vars, self._starts,
                self._lengths, self._alive, self._store, self._order, self._value, self._trail, state,
                self._outcome)
            if self._outcome[0] != kernel.GROW:
                break
            self._grow(int(state[kernel.NEED]), int(state[kernel.USED]), int(state[kernel.LIVE]))
        if self._outcome[0] == kernel.MORE and not final:
            self._tail = steps[int(state[kernel.POS]):].copy()
        else:
            self._decide()
        self.seconds += time.perf_counter() - started

    def _grow(self, table: int, used: int, live: int) -> None:
        """The table of clause numbers to ``table`` entries, ``order`` or the store, whichever is full;
        within the memory budget, or OutOfMemory naming what the proof asked for."""
        held = self._held()
        if table > len(self._starts):
            size = max(table, 2 * len(self._starts))
            self._need(held + _BYTES_PER_ENTRY * (size - len(self._starts)),
                       f"a table of {size} clause numbers (clause {table - 1} of the proof)")
            self._starts = _resized(self._starts, size)
            self._lengths = _resized(self._lengths, size)
            self._alive = _resized(self._alive, size)
        elif live >= len(self._order):
            size = 2 * len(self._order)
            self._need(held + 8 * (size - len(self._order)), f"{size} live and deleted clauses")
            self._order = _resized(self._order, size)
        else:
            size = max(2 * len(self._store), 4 * used + _STORE_ROOM)
            self._need(held + _BYTES_PER_LITERAL * (size - len(self._store)),
                       f"{used} literals of live clauses")
            bigger = np.empty(size, dtype=self._store.dtype)
            bigger[:used] = self._store[:used]
            self._store = bigger

    def _decide(self) -> None:
        kernel = load("nqcsp.proof._lrat_kernel")
        code, detail = int(self._outcome[0]), int(self._outcome[1])
        stats = {"checker": CHECKER, "format": "binary" if self._binary in (True, None) else "text",
                 "lemmas": int(self._state[kernel.LEMMAS]), "hints": int(self._state[kernel.HINTS]),
                 "proof_bytes": self.proof_bytes, "check_s": self.seconds}
        if code == _OK:
            self.verdict = LratVerdict(True, "the proof derives the empty clause", stats)
        else:
            detail_text = _DETAILS.get(detail, f"at byte {detail}") if code == 3 else str(detail)
            self.verdict = LratVerdict(False, _REASONS[code].format(detail=detail_text), stats)
        # Decided: the tables go (a certificate keeps this object, and certificates travel by pickle).
        self._starts = self._lengths = self._alive = self._store = self._value = self._trail = self._tail = \
            self._order = np.zeros(0, dtype=np.uint8)

    def __repr__(self) -> str:
        state = "undecided" if self.verdict is None else self.verdict.reason
        return f"LratStream({self.proof_bytes} proof bytes: {state})"


def _resized(array: np.ndarray, size: int) -> np.ndarray:
    bigger = np.zeros(size, dtype=array.dtype)
    bigger[:len(array)] = array
    return bigger


def check_lrat(cnf: Cnf | bytes | str, proof: bytes | bytearray | memoryview | mmap.mmap,
               memory: int | None = None) -> LratVerdict:
    """Whether ``proof`` (text or binary LRAT) refutes ``cnf``: a ``Cnf``, or DIMACS text, read by
    ``nqcsp.proof.dimacs.read_dimacs`` (ValueError when it is not DIMACS). A bad proof is a verdict, never an
    exception; OutOfMemory("check") when the check needs more than ``memory`` bytes."""
    stream = LratStream(cnf if isinstance(cnf, Cnf) else read_dimacs(cnf), memory)
    stream.feed(proof)
    return stream.finish()
