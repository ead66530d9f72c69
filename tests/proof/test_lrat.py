"""The backtracker's LRAT proofs and the checker that accepts them.

Every proof of the corpus is checked three ways: by ``nqcsp.proof.lrat`` (binary and text forms), by a naive
LRAT checker written here from the format's definition, and, as DRAT (ids and hints dropped), by dratify,
which shares nothing with either. Tampered proofs must be rejected, and on any mutation nqcsp.proof.lrat never
accepts what the naive checker rejects.
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import lrat_binary, lrat_steps, lrat_text, naive_has_solution, naive_lrat

from nqcsp.board.completion import random_completion
from nqcsp.board.problem import Problem
from nqcsp.board.result import Status
from nqcsp.proof.dimacs import read_dimacs
from nqcsp.proof.drat import check_drat
from nqcsp.proof.lrat import check_lrat
from nqcsp.proof.statement import reference_cnf
from nqcsp.runtime.limits import Limits
from nqcsp.solvers.backtrack import BacktrackSolver


def drat(steps: list[tuple], clauses: dict[int, list[int]]) -> str:
    clauses = dict(clauses)
    lines = []
    for step in steps:
        if step[0] == "a":
            clauses[step[1]] = step[2]
            lines.append(" ".join(map(str, [*step[2], 0])))
        else:
            lines.extend("d " + " ".join(map(str, [*clauses[i], 0])) for i in step[1])
    return "\n".join(lines) + "\n"


# --- the corpus -------------------------------------------------------------------------------------------


def unsat_corpus() -> list[Problem]:
    problems = [Problem(n, [cell]) for n in (4, 5, 6, 7) for cell in itertools.product(range(n), repeat=2)
                if not naive_has_solution(n, [cell])]
    problems += [Problem(2), Problem(3), Problem(8, [(0, 0), (1, 2)]),
                 Problem(1000, random_completion(1000, 935, 7))]
    rng = random.Random(3)
    while len(problems) < 60:  # random completions of 10..12-boards, UNSAT by brute force
        n = rng.randint(10, 12)
        queens = random_completion(n, rng.randint(2, 4), rng.randint(0, 10**6))
        if not naive_has_solution(n, queens):
            problems.append(Problem(n, queens))
    return problems


def prove(problem: Problem) -> tuple[bytes, bytes]:
    result = BacktrackSolver().solve(problem, limits=Limits.unlimited())
    assert result.status is Status.UNSAT and result.certificate.kind == "lrat"
    return result.certificate.details["cnf"], result.certificate.details["proof"]


@pytest.fixture(scope="module")
def proofs() -> list[tuple[Problem, bytes, bytes]]:
    # Made when a test asks (8 s of brute force), not when the module is collected: every run paid it.
    return [(problem, *prove(problem)) for problem in unsat_corpus()]


def test_every_proof_of_the_corpus_is_accepted_three_ways(proofs):
    for problem, cnf, proof in proofs:
        statement = reference_cnf(problem)
        assert cnf == statement.dimacs()
        steps = list(lrat_steps(proof))
        binary, plain = check_lrat(cnf, proof), check_lrat(cnf, lrat_text(steps))
        assert binary.ok and plain.ok, (problem, binary.reason, plain.reason)
        assert naive_lrat(statement.clauses, statement.num_vars, proof), problem
        formula = {i: list(c) for i, c in enumerate(statement.clauses, 1)}
        verdict = check_drat(statement.clauses, drat(steps, formula), statement.num_vars, "python")
        assert verdict.ok, (problem, verdict.reason)


# --- tampering --------------------------------------------------------------------------------------------


def tampered(steps: list[tuple], rng: random.Random) -> dict[str, list[tuple]]:
    adds = [at for at, s in enumerate(steps) if s[0] == "a"]
    inner = [at for at in adds if steps[at][2] and steps[at][3]]
    out = {"no empty clause": steps[:adds[-1]]}
    if len(adds) > 1:
        out["dropped lemma"] = steps[:adds[0]] + steps[adds[0] + 1:]
        a, b = adds[-2], adds[-1]
        swapped = list(steps)
        swapped[a], swapped[b] = steps[b], steps[a]
        out["reordered"] = swapped
    if inner:
        at = rng.choice(inner)
        kind, lemma, lits, hints = steps[at]
        out["flipped literal"] = steps[:at] + [(kind, lemma, [*lits[:-1], -lits[-1]], hints)] + steps[at + 1:]
        out["last hint dropped"] = steps[:at] + [(kind, lemma, lits, hints[:-1])] + steps[at + 1:]
        ahead = [lemma + 1, *hints]
        out["hint to a future clause"] = steps[:at] + [(kind, lemma, lits, ahead)] + steps[at + 1:]
        out["RAT hint"] = steps[:at] + [(kind, lemma, lits, [-hints[0], *hints[1:]])] + steps[at + 1:]
        out["unknown variable"] = steps[:at] + [(kind, lemma, [*lits, 10**6], hints)] + steps[at + 1:]
    return out


def test_tampered_proofs_are_rejected(proofs):
    rng = random.Random(7)
    seen = set()
    for problem, cnf, proof in proofs:
        steps = list(lrat_steps(proof))
        for name, bad in tampered(steps, rng).items():
            seen.add(name)
            for form in (lrat_binary(bad), lrat_text(bad)):
                verdict = check_lrat(cnf, form)
                assert not verdict.ok, (problem, name)
        # Cut anywhere before the empty clause is whole (what follows it, deletions, is not needed).
        last_addition = max(at for at, step in enumerate(steps) if step[0] == "a")
        empty_clause_ends = len(lrat_binary(steps[:last_addition + 1]))
        for cut in sorted({1, empty_clause_ends // 2, empty_clause_ends - 1}):
            assert not check_lrat(cnf, proof[:cut]).ok, (problem, "truncated", cut)
    assert len(seen) == 8


def test_a_proof_of_another_statement_is_rejected(proofs):
    problem, cnf, proof = next(p for p in proofs if len(list(lrat_steps(p[2]))) > 3)
    other = reference_cnf(Problem(problem.n + 1, problem.queens)).dimacs()
    assert not check_lrat(other, proof).ok
    short = cnf.rsplit(b"\n", 2)[0] + b"\n"  # the last clause gone, the header unchanged: not DIMACS
    with pytest.raises(ValueError, match="declares"):
        check_lrat(short, proof)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_mutation_is_accepted_that_the_naive_checker_rejects(proofs, data):
    problem, cnf, proof = data.draw(st.sampled_from(proofs[:40]))
    steps = list(lrat_steps(proof))
    at = data.draw(st.integers(0, len(steps) - 1))
    step = steps[at]
    if step[0] == "a":
        lits, hints = list(step[2]), list(step[3])
        target = data.draw(st.sampled_from(["lit", "hint"]))
        values = lits if target == "lit" and lits else hints
        if values:
            i = data.draw(st.integers(0, len(values) - 1))
            values[i] = data.draw(st.integers(-40, 40).filter(lambda v: v != 0))
        step = ("a", step[1], lits, hints)
    else:
        step = ("d", [data.draw(st.integers(1, 60)) for _ in step[1]])
    mutated = steps[:at] + [step] + steps[at + 1:]
    statement = reference_cnf(problem)
    for form in (lrat_binary(mutated), lrat_text(mutated)):
        assert check_lrat(cnf, form).ok is naive_lrat(statement.clauses, statement.num_vars, form)


@settings(max_examples=200, deadline=None)
@given(garbage=st.binary(max_size=200))
def test_random_bytes_never_crash_the_checker(garbage):
    cnf = reference_cnf(Problem(4, [(0, 0)])).dimacs()
    assert not check_lrat(cnf, garbage).ok
    try:
        read_dimacs(garbage)
    except ValueError:  # not DIMACS: bad input, never a verdict
        with pytest.raises(ValueError):
            check_lrat(garbage, garbage)
    else:
        assert not check_lrat(garbage, garbage).ok


@pytest.mark.slow
def test_proof_dir_writes_the_lrat_pair_and_check_proof_accepts_only_it(tmp_path):
    import subprocess
    import sys

    def nqcsp(*args):
        return subprocess.run([sys.executable, "-m", "nqcsp", *args], capture_output=True, text=True,
                              timeout=120)

    solved = nqcsp("solve", "8", "--queen", "0,0", "--queen", "1,2", "--proof-dir", str(tmp_path))
    assert solved.returncode == 1 and "lrat, checked by nqcsp-lrat" in solved.stdout
    cnf, proof = tmp_path / "statement.cnf", tmp_path / "proof.lrat"
    assert cnf.read_bytes() == reference_cnf(Problem(8, [(0, 0), (1, 2)])).dimacs()
    checked = nqcsp("check-proof", str(cnf), str(proof))
    assert checked.returncode == 0 and "valid" in checked.stdout and "n=8 queens=0,0 1,2" in checked.stdout
    steps = list(lrat_steps(proof.read_bytes()))
    (tmp_path / "bad.lrat").write_bytes(lrat_binary(steps[1:]))
    assert nqcsp("check-proof", str(cnf), str(tmp_path / "bad.lrat")).returncode == 1
    (tmp_path / "proof.txt").write_bytes(lrat_text(steps))
    assert nqcsp("check-proof", "--format", "lrat", str(cnf), str(tmp_path / "proof.txt")).returncode == 0


def test_a_check_that_cannot_fit_leaves_a_claim_naming_the_figures(monkeypatch):
    import nqcsp
    from nqcsp.proof import certify, lrat

    problem = Problem(8, [(0, 0), (1, 2)])
    # The check run while the search wrote the proof did not catch up before the deadline, and every
    # proof now "needs" minutes to check again.
    monkeypatch.setattr(certify.ConcurrentLratCheck, "close", lambda self: None)
    monkeypatch.setattr(lrat, "SECONDS_PER_PROOF_BYTE", 1.0)
    claim = nqcsp.solve(problem, solver="backtrack", time_limit=5)
    assert claim.status is Status.UNSAT and not claim.certificate.checked
    reason = claim.certificate.details["unchecked"]
    assert reason.startswith("backtrack decided UNSAT in ") and "LRAT proof's check needs ~" in reason
    assert "s left" in reason and claim.stats["stage"] == "check"
    # auto still answers: a second complete backend confirms the claim, or it says what was missing.
    confirmed = nqcsp.solve(problem, time_limit=30)
    assert confirmed.status is Status.UNSAT and confirmed.certificate.checked
    assert confirmed.certificate.kind in ("agreement", "drat")


def test_deleted_lemmas_make_room_for_new_ones():
    # 3,000 lemmas of 1,001 literals each (3 million, past the checker's first store), each deleted once
    # the next one is there: the store is compacted to what is live, and the live lemma, moved by it,
    # still counts. Formula: the four clauses over x1, x2, and units making x3..x1002 false.
    units = range(3, 1003)
    cnf = ("p cnf 1002 1004\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
           + "".join(f"-{v} 0\n" for v in units)).encode()
    wide = "1 " + " ".join(map(str, units))
    lines = [f"1005 {wide} 0 1 3 0"]
    for lemma in range(1006, 4005):
        lines += [f"{lemma} {wide} 0 1 3 0", f"{lemma} d {lemma - 1} 0"]
    proof = "\n".join(lines) + "\n"
    unit_hints = " ".join(str(clause) for clause in range(5, 1005))
    assert check_lrat(cnf, f"{proof}4005 0 {unit_hints} 4004 2 4 0\n".encode()).ok
    assert not check_lrat(cnf, f"{proof}4005 0 {unit_hints} 4003 2 4 0\n".encode()).ok  # deleted


def test_a_proof_fed_in_pieces_cut_anywhere_gets_the_whole_proofs_verdict(proofs):
    # The streamed check (how backtrack's proofs are checked while the search writes them) must not
    # depend on where the pieces end: inside a number, a hint list or a deletion, in both formats.
    from nqcsp.proof.lrat import LratStream

    rng = random.Random(3)
    for problem, cnf, proof in proofs[::4]:
        steps = list(lrat_steps(proof))
        forms = [lrat_binary(steps), lrat_text(steps)]
        forms += [lrat_binary(bad) for bad in tampered(steps, rng).values()]
        for form in forms:
            whole = check_lrat(cnf, form)
            stream = LratStream(read_dimacs(cnf))
            at = 0
            while at < len(form):
                size = rng.choice([1, 2, 3, 7, 50, len(form)])
                stream.feed(form[at:at + size])
                at += size
            verdict = stream.finish()
            assert verdict.ok == whole.ok, (problem, verdict.reason, whole.reason)
            assert not verdict.ok or verdict.stats["lemmas"] == whole.stats["lemmas"]


def test_a_proof_is_checked_as_it_is_written_and_kept_as_evidence(monkeypatch, tmp_path):
    # backtrack's proof goes to certify's checking thread piece by piece (through the channel that
    # nqcsp.solvers.contract opened); past KEEP_PROOF_BYTES the evidence waits in a temporary file, which
    # --proof-dir writes out and which travels between processes as bytes.
    import pickle

    import nqcsp
    from nqcsp.proof import certify
    from nqcsp.solvers import backtrack

    problem = Problem(8, [(0, 0), (1, 2)])
    monkeypatch.setattr(backtrack, "KEEP_PROOF_BYTES", 64)
    result = nqcsp.solve(problem, solver="backtrack")
    certificate = result.certificate
    details = certificate.details
    assert result.status is Status.UNSAT and certificate.checked_by == ("nqcsp-lrat",)
    report = details[certify.STREAMED]
    assert isinstance(report, dict) and report["lemmas"] > 0   # a report of the check, nothing more
    proof = details["proof"]
    assert isinstance(proof, certify.ProofFile) and len(proof) > 64
    assert check_lrat(details["cnf"], bytes(proof)).ok   # the same bytes, checked again from scratch
    again = certify.recheck(problem, certificate, Limits.unlimited())   # from the evidence alone
    assert again.checked_by == ("nqcsp-lrat",)
    certify.write_certificate(again, tmp_path)
    assert (tmp_path / "proof.lrat").read_bytes() == bytes(proof)
    travelled = pickle.loads(pickle.dumps(result))
    assert travelled.certificate.details["proof"] == bytes(proof)

    # A proof that reaches the checker damaged (its second half cut off) is rejected as it is written.
    original = certify.ConcurrentLratCheck.write
    monkeypatch.setattr(certify.ConcurrentLratCheck, "write",
                        lambda self, piece: original(self, piece[:len(piece) // 2]))
    damaged = nqcsp.solve(problem, solver="backtrack")
    assert damaged.status is Status.UNSAT and not damaged.certificate.checked
    assert "rejected as it was written" in damaged.certificate.details["unchecked"]


@pytest.mark.slow
def test_the_check_estimate_counts_compiling_on_a_cold_numba_cache(tmp_path):
    # With numba's cache empty (a fresh install) the first check compiles its kernel, about 6 s, which
    # the estimate put at 0.8 s of loading: auto, having compiled the backtracker under a 10 s limit,
    # would then check its proof seconds past the deadline.
    import os
    import subprocess
    import sys

    program = ("import nqcsp.runtime.jit; from nqcsp.proof import lrat; "
               "cold = lrat.estimated_seconds(10, 10); "
               "verdict = lrat.check_lrat('p cnf 1 2\\n1 0\\n-1 0\\n', b'3 0 1 2 0\\n'); "
               "print(cold, bool(verdict), lrat.estimated_seconds(10, 10))")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env,
                         timeout=300, check=True).stdout.split()
    from nqcsp.proof.lrat import KERNEL_COMPILE_S

    assert float(out[0]) >= KERNEL_COMPILE_S and out[1] == "True" and float(out[2]) < 0.01
