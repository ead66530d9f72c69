"""A fuzz campaign against the trust chain: forged statements and proofs, binary and text, none accepted.

    python tests/forgery.py --mutants 100000 [--seed S] [--cake-lpr PATH]

Every mutant goes through ``nqcsp.proof.audit.audit`` (what ``nqcsp check-proof`` runs) and is judged by code
that shares nothing with it (``tests/naive.py``: the DIMACS grammar and LRAT written out from their
definitions, and brute force over the boards):

- **forgery**: the audit says "proven" for a board that has a solution, or accepts a proof (``any_cnf``)
  of a CNF that a SAT solver satisfies. Must be 0.
- **disagreement**: the audit's verdict on a proof of the reference statement differs from the naive
  LRAT checker's, either way (the checker must be exact in both directions), or the audit and the naive
  reader disagree on whether a statement is DIMACS. Must be 0.
- **crash**: anything but a verdict, a ValueError (bad input) or an Unfinished (a limit). Must be 0.

The mutants: bytes of the statement edited (every line separator, comments, '%', signs, leading zeros,
huge numbers, NUL, a byte-order mark, random bytes), and bytes, numbers and steps of the proof edited,
cut, spliced and re-encoded, in both LRAT forms, on boards with and without a solution.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, field

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))

from naive import lrat_binary, lrat_steps, lrat_text, naive_dimacs, naive_has_solution, naive_lrat

from nqcsp.board.problem import Problem
from nqcsp.proof.audit import audit
from nqcsp.proof.outside import OutsideChecker
from nqcsp.proof.statement import reference_cnf
from nqcsp.runtime.limits import Limits, Unfinished
from nqcsp.solvers.backtrack import BacktrackSolver

UNSAT_BOARDS = [(6, [(0, 0)]), (8, [(0, 0), (1, 2)]), (4, [(0, 0)]), (5, [(0, 1), (1, 3)]),
                (7, [(0, 0), (1, 2)])]
SAT_BOARDS = [(8, []), (10, [(0, 2)]), (6, [(0, 1)]), (5, [(0, 0)])]
SEPARATORS = [b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", "\u0085".encode(), "\u2028".encode(),
              "\u2029".encode()]
PIECES = [*SEPARATORS, b"\n", b"\r\n", b"\x00", b"\xef\xbb\xbf", b"%", b"c", b"c ", b"p", b"-", b"0", b"+",
          b" ", b"\t", b"1", b"9" * 12, b"-0", b"07", b"\xff", b"d", b"a", b"\n0\n", b"p cnf 3 1\n",
          b"2147483648", b"4294967297"]


@dataclass
class Board:
    problem: Problem
    solvable: bool
    statement: bytes
    clauses: list
    num_vars: int
    proofs: list[bytes]        # binary and text: real proofs, or forged ones for a solvable board
    steps: list[tuple] = field(default_factory=list)


def boards() -> list[Board]:
    out = []
    for n, queens in UNSAT_BOARDS + SAT_BOARDS:
        problem = Problem(n, queens)
        statement = reference_cnf(problem)
        solvable = naive_has_solution(n, queens)
        if solvable:
            empty = len(statement.clauses) + 1
            steps = [("a", empty, [], [1, 2])]
            proofs = [lrat_binary(steps), lrat_text(steps), f"{empty} 0 1 0\n".encode()]
        else:
            answer = BacktrackSolver().solve(problem, limits=Limits.unlimited())
            proof = bytes(answer.certificate.details["proof"])
            steps = list(lrat_steps(proof))
            proofs = [proof, lrat_text(steps)]
        out.append(Board(problem, solvable, statement.dimacs(), [list(c) for c in statement.clauses],
                         statement.num_vars, proofs, steps))
    return out


def mutate_bytes(data: bytes, rng: random.Random, pieces: list[bytes]) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(out))
        piece = rng.choice(pieces) if rng.random() < 0.7 else bytes(rng.randrange(256) for _ in range(3))
        action = rng.random()
        if action < 0.4:
            out[at:at] = piece
        elif action < 0.8:
            out[at:at + len(piece)] = piece
        else:
            del out[at:at + rng.randint(1, 6)]
    return bytes(out)


def mutate_steps(board: Board, rng: random.Random, others: list[Board]) -> list[tuple]:
    steps = [list(s) if s[0] == "d" else [s[0], s[1], list(s[2]), list(s[3])] for s in board.steps]
    for _ in range(rng.randint(1, 2)):
        if not steps:
            steps.append(["a", len(board.clauses) + 1, [], [1]])
        kind = rng.random()
        at = rng.randrange(len(steps))
        step = steps[at]
        if kind < 0.5 and step[0] == "a":
            values = step[2] if step[2] and rng.random() < 0.5 else step[3]
            if values:
                i = rng.randrange(len(values))
                values[i] = rng.choice([-values[i], values[i] + 1, values[i] - 1, rng.randint(-60, 60) or 1,
                                        board.num_vars + 1, 2**31])
            else:
                values.append(rng.randint(1, board.num_vars))
        elif kind < 0.65:
            del steps[at]
        elif kind < 0.75 and len(steps) > 1:
            other = rng.randrange(len(steps))
            steps[at], steps[other] = steps[other], steps[at]
        elif kind < 0.85 and step[0] == "a":
            step[1] += rng.choice([-1, 1, 2, 10**6])
        else:
            donor = rng.choice(others)
            if donor.steps:
                steps.insert(at, list(rng.choice(donor.steps)))
    return [tuple(s) for s in steps]


@dataclass
class Tally:
    counts: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def bad(self, kind: str, what: str) -> None:
        self.counts[kind] += 1
        if len(self.examples) < 10:
            self.examples.append(f"{kind}: {what}")


def judge(board: Board, cnf: bytes, proof: bytes, tally: Tally, limits: Limits, mode: str,
          outside: tuple[OutsideChecker, ...]) -> None:
    """One mutant through the audit, judged by the naive references."""
    tally.counts["mutants"] += 1
    tally.counts[mode] += 1
    binary = proof[:1] in (b"a", b"d")
    try:
        found = audit(cnf, proof, "lrat", limits=limits, any_cnf=True, outside=outside)
    except ValueError:
        found = None
    except Unfinished:
        tally.counts["unfinished"] += 1
        return
    except Exception as exc:  # a crash: never an answer
        tally.bad("crash", f"{type(exc).__name__}: {exc} on {board.problem} ({mode})")
        return
    read = naive_dimacs(cnf)
    if (found is None) != (read is None):
        tally.bad("disagreement", f"the reader and the grammar disagree on a CNF of {board.problem} ({mode})")
        return
    if found is None or read is None:
        tally.counts["refused as input"] += 1
        return
    num_vars, clauses, _ = read
    expected = naive_lrat(clauses, num_vars, proof)
    if found.valid != expected:
        tally.bad("disagreement", f"audit {found.valid}, naive {expected}: {board.problem} ({mode}, "
                                  f"{'binary' if binary else 'text'})")
    if found.proven:
        tally.counts["proven"] += 1
        if naive_has_solution(found.problem.n, found.problem.queens):
            tally.bad("forgery", f"proven for {found.problem}, which has a solution ({mode})")
    if found.valid:
        tally.counts["accepted"] += 1
        from pysat.solvers import Solver

        with Solver(name="minisat22", bootstrap_with=clauses) as sat:
            if sat.solve():
                tally.bad("forgery", f"a proof accepted for a satisfiable CNF ({mode})")


def campaign(mutants: int, seed: int = 0, outside: tuple[OutsideChecker, ...] = ()) -> Tally:
    rng = random.Random(seed)
    corpus = boards()
    limits = Limits.unlimited()
    tally = Tally()
    for number in range(mutants):
        board = corpus[number % len(corpus)]
        proof = rng.choice(board.proofs)
        kind = rng.random()
        if kind < 0.35:
            forged = mutate_bytes(board.statement, rng, PIECES)
            judge(board, forged, proof, tally, limits, "statement", outside)
        elif kind < 0.65:
            judge(board, board.statement, mutate_bytes(proof, rng, PIECES), tally, limits, "proof bytes",
                  outside)
        elif kind < 0.95:
            steps = mutate_steps(board, rng, corpus)
            form = lrat_binary(steps) if rng.random() < 0.5 else lrat_text(steps)
            judge(board, board.statement, form, tally, limits, "proof steps", outside)
        else:
            cut = proof[:rng.randrange(len(proof))]
            cnf = mutate_bytes(board.statement, rng, PIECES) if rng.random() < 0.5 else board.statement
            judge(board, cnf, cut, tally, limits, "truncated", outside)
    return tally


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mutants", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cake-lpr", default=None, metavar="PATH",
                        help="also run cake_lpr on every mutant the audit reads (slower: a process each)")
    args = parser.parse_args()
    outside = (OutsideChecker("cake_lpr", args.cake_lpr),) if args.cake_lpr else ()
    started = time.perf_counter()
    tally = campaign(args.mutants, args.seed, outside)
    seconds = time.perf_counter() - started
    counts = tally.counts
    print(f"mutants {counts['mutants']} (seed {args.seed}, {seconds:.0f} s): "
          f"statement {counts['statement']}, "
          f"proof bytes {counts['proof bytes']}, proof steps {counts['proof steps']}, "
          f"truncated {counts['truncated']}")
    print(f"refused as input {counts['refused as input']}, proofs accepted {counts['accepted']} "
          f"(of them 'proven': {counts['proven']}), limits {counts['unfinished']}")
    print(f"forgeries accepted {counts['forgery']}, disagreements with the naive checker "
          f"{counts['disagreement']}, crashes {counts['crash']}")
    for example in tally.examples:
        print("  " + example)
    return 1 if counts["forgery"] or counts["disagreement"] or counts["crash"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
