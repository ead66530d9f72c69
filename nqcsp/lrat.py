"""The LRAT checker: the smallest piece of the trust chain, in time linear in the proof.

It reads two things only: a DIMACS CNF (the statement, text) and an LRAT proof, either text (``id lits 0
hints 0`` and ``id d ids 0`` lines) or the compressed binary form of drat-trim's README (``a`` id lits 0
hints 0 and ``d`` ids 0, every number mapped to ``2x`` or ``2|x| + 1`` for negatives and written in
little-endian base-128). It shares no code with any proof producer.

Every added clause is checked by reverse unit propagation along its hints: the clause's literals are set
false, then each hint must name a live clause that is unit under that assignment (its last literal is then
set true) or falsified (the conflict that ends the check of that clause). Nothing is searched for: a hint
that is neither unit nor falsified, a deleted or future clause, a literal beyond the formula's variables,
a RAT hint (negative: the statement needs none) or a malformed number rejects the proof. The proof is
accepted only when it derives the empty clause. Each number of the proof is read once and each hint's
clause scanned once, so the check is linear in the size of the proof and of the hinted clauses.

Clause numbers must increase along the proof and stay below the formula's clauses plus the proof's lines
(consecutive numbering, as every LRAT producer writes): the table of clauses is indexed by number.
"""

from __future__ import annotations

import mmap
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from nqcsp.lazy import load, loaded

CHECKER = "nqcsp-lrat"
# Measured on backtrack proofs of prob079 residuals (benchmarks.certified, shared 2-core machine): 20-30 ns
# a proof byte, 34 MB in 0.92 s; the estimate refuses a check only when it clearly cannot end in time.
SECONDS_PER_PROOF_BYTE = 3e-8
SECONDS_PER_CNF_BYTE = 2e-8
# Loading the cached kernel, once per process: 0.3 to 1.3 s measured on the shared 2-core machine;
# compiling it when numba's cache has no copy (a fresh install): about 6 s measured with the other core
# busy, with margin.
KERNEL_LOAD_S = 0.8
KERNEL_COMPILE_S = 8.0
# Per proof byte: the table of clause numbers (13 bytes a lemma of 40 bytes or more); the literals of
# live clauses are compacted as the proof deletes (``_compact``), within a fixed share; per CNF byte its
# literals and table.
BYTES_PER_PROOF_BYTE = 1
BYTES_PER_CNF_BYTE = 12
STORE_BYTES = 1 << 26

_COUNT_SLICE = 1 << 24
_OK = 0
_REASONS = {
    1: "the CNF is malformed (expected 'p cnf VARS CLAUSES' and clauses of integers ending in 0)",
    2: "the CNF has more clauses or variables than its 'p cnf' line says",
    3: "the proof is malformed: {detail}",
    4: "clause {detail}: its number does not increase along the proof or is beyond what it can add",
    5: "clause {detail}: a literal is beyond the formula's variables",
    6: "clause {detail}: a hint names a clause that does not exist or was deleted",
    7: "clause {detail}: a hint is satisfied, not unit, under the clause's negation",
    8: "clause {detail}: a hint is neither unit nor falsified under the clause's negation",
    9: "clause {detail}: its hints end without a conflict (not implied by unit propagation)",
    10: "clause {detail}: RAT hints (negative) are not accepted: the statement needs none",
    11: "a deletion names clause {detail}, which does not exist or was already deleted",
    12: "the proof ends without deriving the empty clause",
    13: "the CNF has fewer clauses than its 'p cnf' line says",
}


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
    already = loaded("nqcsp._lrat_kernel")
    loading = 0.0 if already is not None and already.check_steps.signatures else KERNEL_LOAD_S
    if loading and "numba" in sys.modules:
        from nqcsp._jit import needs_compiling

        kernels = load("nqcsp._lrat_kernel")  # numba is imported: only the module's own definitions
        if needs_compiling(kernels.read_formula) or needs_compiling(kernels.check_steps):
            loading = KERNEL_COMPILE_S
    return loading + SECONDS_PER_CNF_BYTE * cnf_bytes + SECONDS_PER_PROOF_BYTE * proof_bytes


def estimated_bytes(cnf_bytes: int, proof_bytes: int) -> int:
    return BYTES_PER_CNF_BYTE * cnf_bytes + BYTES_PER_PROOF_BYTE * proof_bytes + STORE_BYTES


def _as_array(data: bytes | bytearray | memoryview | mmap.mmap | str) -> np.ndarray:
    if isinstance(data, str):
        data = data.encode("ascii", errors="replace")
    return np.frombuffer(data, dtype=np.uint8)


class LratStream:
    """A check fed the proof in pieces, as its producer writes it (``feed``, then ``finish``): memory
    bounded by the table of clause numbers and the live clauses, never the whole proof. A piece may end
    anywhere: a line cut short waits for the next piece. Clause numbers must stay below the formula's
    clauses plus the proof's lines read so far (an upper bound from the bytes: one line per 'a' byte in
    binary, per newline in text)."""

    def __init__(self, cnf: bytes | str) -> None:
        kernel = load("nqcsp._lrat_kernel")  # under the lazy-import lock: threads may check at once
        self.cnf = cnf.encode("ascii", errors="replace") if isinstance(cnf, str) else bytes(cnf)
        self.verdict: LratVerdict | None = None
        self.proof_bytes = 0
        self.seconds = 0.0
        self._binary: bool | None = None
        self._tail = np.zeros(0, dtype=np.uint8)
        self._outcome = np.zeros(2, dtype=np.int64)
        started = time.perf_counter()
        (self._vars, clauses, self._starts, self._lengths, self._alive, self._store,
         used) = kernel.read_formula(_as_array(self.cnf), _TABLE_ROOM, self._outcome)
        self._limit = clauses + 1
        self._state = np.array([used, clauses, 0, 0, 0], dtype=np.int64)
        self._value = np.zeros(self._vars + 1, dtype=np.int8)
        self._trail = np.zeros(self._vars + 1, dtype=np.int64)
        self.seconds += time.perf_counter() - started
        if self._outcome[0]:
            self._decide()

    def feed(self, piece: bytes | bytearray | memoryview | mmap.mmap) -> bool:
        """Check the proof's next bytes; False once it is decided (the rest need not come)."""
        if self.verdict is not None:
            return False
        steps = _as_array(piece)
        self.proof_bytes += len(steps)
        if not len(steps):
            return True
        if self._binary is None:
            self._binary = is_binary(bytes(steps[:1]))
        marker = ord("a") if self._binary else ord("\n")
        self._limit += sum(int(np.count_nonzero(steps[at:at + _COUNT_SLICE] == marker))
                           for at in range(0, len(steps), _COUNT_SLICE))
        if len(self._tail):
            steps = np.concatenate((self._tail, steps))
        if not self._binary:
            # Text is read in whole lines: a number cut at the end of a piece would read as a smaller one.
            whole = len(steps) - int(np.argmax(steps[::-1] == ord("\n"))) if ord("\n") in steps else 0
            steps, self._tail = steps[:whole], steps[whole:].copy()
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
        kernel = load("nqcsp._lrat_kernel")
        started = time.perf_counter()
        if self._limit > len(self._starts):
            size = max(self._limit, 2 * len(self._starts))
            self._starts = _resized(self._starts, size)
            self._lengths = _resized(self._lengths, size)
            self._alive = _resized(self._alive, size)
        self._state[4] = 0
        while True:
            kernel.check_steps(
                steps, bool(self._binary), final, self._limit, self._vars, self._starts, self._lengths,
                self._alive, self._store, self._value, self._trail, self._state, self._outcome)
            if self._outcome[0] != kernel.GROW:
                break
            used = int(self._state[0])
            bigger = np.empty(max(2 * len(self._store), 4 * used + (1 << 20)), dtype=self._store.dtype)
            bigger[:used] = self._store[:used]
            self._store = bigger
        if self._outcome[0] == kernel.MORE and not final:
            if self._binary:
                self._tail = steps[int(self._state[4]):].copy()
        else:
            self._decide()
        self.seconds += time.perf_counter() - started

    def _decide(self) -> None:
        code, detail = int(self._outcome[0]), int(self._outcome[1])
        stats = {"checker": CHECKER, "format": "binary" if self._binary in (True, None) else "text",
                 "lemmas": int(self._state[2]), "hints": int(self._state[3]),
                 "proof_bytes": self.proof_bytes, "check_s": self.seconds}
        if code == _OK:
            self.verdict = LratVerdict(True, "the proof derives the empty clause", stats)
        else:
            detail_text = _DETAILS.get(detail, f"at byte {detail}") if code == 3 else str(detail)
            self.verdict = LratVerdict(False, _REASONS[code].format(detail=detail_text), stats)
        # Decided: the tables go (a certificate keeps this object, and certificates travel by pickle).
        self._starts = self._lengths = self._alive = self._store = self._value = self._trail = self._tail = \
            np.zeros(0, dtype=np.uint8)

    def __repr__(self) -> str:
        state = "undecided" if self.verdict is None else self.verdict.reason
        return f"LratStream({self.proof_bytes} proof bytes: {state})"



def _resized(array: np.ndarray, size: int) -> np.ndarray:
    bigger = np.zeros(size, dtype=array.dtype)
    bigger[:len(array)] = array
    return bigger


# Room in the table of clause numbers beyond the formula's, before the proof says how many it adds.
_TABLE_ROOM = 1 << 16


def check_lrat(cnf: bytes | str, proof: bytes | bytearray | memoryview | mmap.mmap) -> LratVerdict:
    """Whether ``proof`` (text or binary LRAT) refutes the DIMACS ``cnf``; never raises on bad input."""
    stream = LratStream(cnf)
    stream.feed(proof)
    return stream.finish()


_DETAILS = {-1: "a number does not fit", -2: "an unexpected character", -3: "a line ends early"}
