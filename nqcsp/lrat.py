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
# Loading the cached kernel, once per process: 0.3 to 1.3 s measured on the shared 2-core machine.
KERNEL_LOAD_S = 0.8
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
    """The check's time from the sizes, the kernel's loading included when this process has not yet."""
    kernel = loaded("nqcsp._lrat_kernel")
    loading = 0.0 if kernel is not None and kernel.check.signatures else KERNEL_LOAD_S
    return loading + SECONDS_PER_CNF_BYTE * cnf_bytes + SECONDS_PER_PROOF_BYTE * proof_bytes


def estimated_bytes(cnf_bytes: int, proof_bytes: int) -> int:
    return BYTES_PER_CNF_BYTE * cnf_bytes + BYTES_PER_PROOF_BYTE * proof_bytes + STORE_BYTES


def _as_array(data: bytes | bytearray | memoryview | str) -> np.ndarray:
    if isinstance(data, str):
        data = data.encode("ascii", errors="replace")
    return np.frombuffer(data, dtype=np.uint8)


def check_lrat(cnf: bytes | str, proof: bytes | bytearray | memoryview) -> LratVerdict:
    """Whether ``proof`` (text or binary LRAT) refutes the DIMACS ``cnf``; never raises on bad input."""
    kernel = load("nqcsp._lrat_kernel")  # under the lazy-import lock: threads may check at once

    started = time.perf_counter()
    formula = _as_array(cnf)
    steps = _as_array(proof)
    binary = is_binary(bytes(steps[:1]))
    # Upper bound on the clauses the proof can add: one a line (text) or one per 'a' byte (binary),
    # counted in slices: a comparison of the whole proof at once would hold a byte per proof byte.
    marker = ord("a") if binary else ord("\n")
    additions = 1 + sum(int(np.count_nonzero(steps[at:at + _COUNT_SLICE] == marker))
                        for at in range(0, len(steps), _COUNT_SLICE))
    outcome = np.zeros(4, dtype=np.int64)  # code, detail, added clauses, hints followed
    kernel.check(formula, steps, binary, additions, outcome)
    code, detail = int(outcome[0]), int(outcome[1])
    stats = {"checker": CHECKER, "format": "binary" if binary else "text", "lemmas": int(outcome[2]),
             "hints": int(outcome[3]), "proof_bytes": len(steps), "check_s": time.perf_counter() - started}
    if code == _OK:
        return LratVerdict(True, "the proof derives the empty clause", stats)
    detail_text = _DETAILS.get(detail, f"at byte {detail}") if code == 3 else str(detail)
    return LratVerdict(False, _REASONS[code].format(detail=detail_text), stats)


_DETAILS = {-1: "a number does not fit", -2: "an unexpected character", -3: "a line ends early"}

