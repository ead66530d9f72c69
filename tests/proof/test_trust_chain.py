"""The trust chain against forged statements, proofs and backends: what nqcsp reads is checked, not believed.

Each finding of the hostile review (issue 33) is a test here that failed on the code before: a statement
forged with a line separator that one reader ends a line at and another does not, variables that wrapped
in 32 bits, a header that allocated a terabyte, the text LRAT grammar, clause numbers raised by the proof's
own bytes, a backend that marked its certificate checked, a unit lemma written with a literal twice.
"""

from __future__ import annotations

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from naive import naive_dimacs, naive_has_solution, naive_lrat

import nqcsp
from nqcsp.board.completion import random_completion
from nqcsp.board.problem import Problem
from nqcsp.board.result import Certificate, InternalSolverError, Result, Status
from nqcsp.cli import main as cli_main
from nqcsp.proof import certify
from nqcsp.proof.audit import audit
from nqcsp.proof.dimacs import MAX_VARIABLES, Cnf, read_dimacs
from nqcsp.proof.lrat import LratStream, check_lrat
from nqcsp.proof.statement import reference_cnf
from nqcsp.runtime.limits import Limits, OutOfMemory
from nqcsp.solvers import backtrack as backtrack_module
from nqcsp.solvers.backtrack import BacktrackSolver

CAKE_LPR = os.environ.get("NQCSP_CAKE_LPR")
needs_cake_lpr = pytest.mark.skipif(not CAKE_LPR, reason="no cake_lpr binary given (NQCSP_CAKE_LPR)")

# Every byte or character that some reader (Python's str.splitlines among them) ends a line at.
SEPARATORS = [b"\r", b"\x0b", b"\x0c", b"\x1c", b"\x1d", b"\x1e", "\u0085".encode(), "\u2028".encode(),
              "\u2029".encode()]


def forged_statement(problem: Problem, separator: bytes) -> tuple[bytes, bytes]:
    """The one-byte forgery of the review: the first clause behind 'c' + separator, its '0' on the next
    line, so that a reader ending the comment at the separator sees the statement and one ending it at
    the line feed sees the empty clause; and the 5-byte proof 'empty clause, hint 1'."""
    text = reference_cnf(problem).dimacs()
    body = text.index(b"\n", text.index(b"\np cnf") + 1) + 1
    first_end = text.index(b" 0\n", body)
    forged = text[:body] + b"c" + separator + text[body:first_end] + b"\n0\n" + text[first_end + 3:]
    clauses = len(reference_cnf(problem).clauses)
    return forged, f"{clauses + 1} 0 1 0\n".encode()


def write(tmp_path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def check_proof(*args: str) -> int:
    return cli_main(["check-proof", *args])


@pytest.mark.parametrize("board", [(8, ()), (10, ((0, 2),))])
@pytest.mark.parametrize("separator", SEPARATORS, ids=lambda s: s.hex())
def test_a_statement_forged_with_any_line_separator_proves_nothing(tmp_path, capsys, board, separator):
    problem = Problem(*board)
    assert naive_has_solution(problem.n, problem.queens)
    forged, proof = forged_statement(problem, separator)
    with pytest.raises(ValueError, match="not allowed"):
        read_dimacs(forged)
    code = check_proof("--format", "lrat", write(tmp_path, "s.cnf", forged), write(tmp_path, "p.lrat", proof))
    assert code == 2 and "not allowed in DIMACS" in capsys.readouterr().err


def test_a_clause_commented_out_for_real_is_not_the_statement(tmp_path, capsys):
    # Without a stray separator the comment truly hides the clause: then every reader sees the empty
    # clause, the CNF is not the statement, and the valid proof of it says nothing about the board.
    problem = Problem(8)
    forged, proof = forged_statement(problem, b" ")
    cnf = read_dimacs(forged)
    assert cnf.clause(0) == ()
    found = audit(forged, proof, "lrat", limits=Limits.unlimited())
    assert found.valid and not found.proven
    cnf_path, proof_path = write(tmp_path, "s.cnf", forged), write(tmp_path, "p.lrat", proof)
    assert check_proof("--format", "lrat", cnf_path, proof_path) == 1
    assert "NOT the reference CNF" in capsys.readouterr().out
    assert check_proof("--format", "lrat", "--any-cnf", cnf_path, proof_path) == 0  # that CNF is UNSAT


def test_the_statement_with_crlf_line_ends_is_the_statement_for_lrat_and_drat(tmp_path):
    problem = Problem(6, [(0, 0)])
    result = BacktrackSolver().solve(problem, limits=Limits.unlimited())
    crlf = result.certificate.details["cnf"].replace(b"\n", b"\r\n")
    cnf_path = write(tmp_path, "s.cnf", crlf)
    assert check_proof(cnf_path, write(tmp_path, "p.lrat", bytes(result.certificate.details["proof"]))) == 0
    drat = nqcsp.solve(problem, solver="sat").certificate
    assert drat.kind == "drat"
    assert check_proof("--format", "drat", cnf_path, write(tmp_path, "p.drat", drat.details["proof"])) == 0


def test_variables_beyond_32_bits_are_refused_not_wrapped(tmp_path, capsys):
    # 2147483649 read back as -2147483647 in the kernel's int32 store: this satisfiable CNF was refuted.
    cnf = b"p cnf 2147483649 2\n2147483647 0\n2147483649 0\n"
    with pytest.raises(ValueError, match=str(MAX_VARIABLES)):
        check_lrat(cnf, b"3 0 1 2 0\n")
    code = check_proof("--any-cnf", "--format", "lrat", write(tmp_path, "s.cnf", cnf),
                       write(tmp_path, "p.lrat", b"a\x06\x00\x02\x04\x00"))
    assert code == 2 and str(MAX_VARIABLES) in capsys.readouterr().err


@pytest.mark.parametrize("header", [b"p cnf 1099511627776 0\n", b"p cnf 34359738368 0\n",
                                    b"p cnf 0 1099511627776\n"])
def test_a_huge_header_is_bad_input_not_a_memory_error(tmp_path, capsys, header):
    for extra in ([], ["--any-cnf"]):
        code = check_proof(*extra, "--format", "lrat", write(tmp_path, "s.cnf", header),
                           write(tmp_path, "p.lrat", b"1 0 0\n"))
        assert code == 2, capsys.readouterr()
        assert "Memory" not in capsys.readouterr().err


def test_a_formula_too_big_for_the_budget_is_unknown_naming_the_size(tmp_path, capsys):
    header = b"p cnf 2000000000 0\n"
    with pytest.raises(OutOfMemory, match="GiB"):
        check_lrat(header, b"1 0 0\n", memory=100 << 20)
    code = check_proof("--any-cnf", "--format", "lrat", "--memory-limit", "100M",
                       write(tmp_path, "s.cnf", header), write(tmp_path, "p.lrat", b"1 0 0\n"))
    assert code == 3 and "GiB" in capsys.readouterr().err


ONE_VARIABLE = b"p cnf 1 2\n1 0\n-1 0\n"


@pytest.mark.parametrize(("proof", "ok"), [
    (b"\n\n\n3 0 1\n4 0 1 2 0", False),   # step 3 hints 1 and 4: clause 4 does not exist yet
    (b"3 0\n1 2\n0\n", True),             # a lemma over three lines
    (b"3 0 1 2 0", True),                 # no final newline
    (b"c a comment\n3 0 1\nc another\n2 0", False),   # comments are not in the format (nor cake_lpr's)
    (b"3 0 1 2 0\nc a comment\n", False),
    (b"3\t0 1\r\n2 0\r\n", True),
    (b"3 0 1 2 -0", True),                # "-0" is 0 in text, for cake_lpr too
    # A proof is all of its bytes: the steps after the empty clause are read and checked too.
    (b"3 0 1 2 0\n3 d 1 2 0\n", True),    # its hints deleted after it, as producers write
    (b"3 0 1 2 0\n4 1 0 3 0\n", True),    # a valid step after it
    (b"3 0 1 2 0\n4 1 0 2 0\n", False),   # an invalid step after it: its hint, clause 2, is satisfied
    (b"3 0 1 2 0\n3 d 9 0\n", False),     # a deletion of a clause that does not exist
    (b"3 0 1 2 0\njunk\n", False),
    (b"3 0 1 2 0 7", False),              # a step cut short after it
])
def test_text_lrat_steps_end_at_their_second_zero(proof, ok):
    assert check_lrat(ONE_VARIABLE, proof).ok is ok
    assert naive_lrat([[1], [-1]], 1, proof) is ok


@pytest.mark.parametrize(("proof", "ok"), [
    (b"a\x06\x00\x02\x04\x00", True),                  # a 3 0 1 2 0
    (b"a\x06\x00\x02\x04\x01", False),                 # its last 0 written as "-0" (0x01)
    (b"a\x06\x01\x02\x04\x00", False),
    (b"a\x06\x00\x02\x04\x00d\x02\x04\x00", True),     # then its hints deleted
    (b"a\x06\x00\x02\x04\x00\x00", False),             # then a byte that is no step
    (b"a\x06\x00\x02\x04\x00a", False),                # then a step cut short
])
def test_binary_lrat_is_read_to_its_end_and_has_no_negative_zero(proof, ok):
    assert check_lrat(ONE_VARIABLE, proof).ok is ok
    assert naive_lrat([[1], [-1]], 1, proof) is ok
    for size in (1, 2, 3):   # the same verdict whatever the pieces
        stream = LratStream(read_dimacs(ONE_VARIABLE))
        for at in range(0, len(proof), size):
            stream.feed(proof[at:at + size])
        assert stream.finish().ok is ok


def test_the_clause_number_limit_is_the_steps_read_not_the_proofs_bytes():
    # Bytes 0x61 ('a') anywhere in a binary proof used to raise the limit: with 40 of them after the
    # empty clause, its first lemma could take number 43.
    def empty_clause(number: int) -> bytes:
        return b"a" + bytes([2 * number]) + b"\x00\x02\x04\x00"

    assert check_lrat(ONE_VARIABLE, empty_clause(3)).ok
    assert not check_lrat(ONE_VARIABLE, empty_clause(43) + b"a" * 40).ok
    assert "beyond what its step can add" in check_lrat(ONE_VARIABLE, empty_clause(4)).reason
    # The k-th step may take the formula's clauses + k: after one deletion, number 4.
    assert check_lrat(ONE_VARIABLE, b"d\x00" + empty_clause(4)).ok


def test_a_unit_lemma_written_with_a_literal_twice_is_unit():
    proof = b"3 -1 -1 0 2 0\n4 0 3 1 0\n"
    assert naive_lrat([[1], [-1]], 1, proof)
    assert check_lrat(ONE_VARIABLE, proof).ok
    assert check_lrat(b"p cnf 2 3\n1 1 0\n-1 2 0\n-2 0\n", b"4 0 1 2 3 0\n").ok   # a formula clause too


# --- a backend never decides its own trust -----------------------------------------------------------------


def solvable_completion() -> Problem:
    """A solvable board that construct does not answer, so that auto asks the complete backends."""
    rng = random.Random(5)
    while True:
        problem = Problem(12, random_completion(12, 5, rng.randrange(10**6)))
        if problem.attack is None and naive_has_solution(problem.n, problem.queens) \
                and nqcsp.solve(problem, solver="construct").status is not Status.SAT:
            return problem


class LyingBacktrack:
    """backtrack that answers UNSAT whatever the board, with a certificate forged one way or another."""

    name = "backtrack"

    def __init__(self, lie: str) -> None:
        self.lie = lie

    def solve(self, problem, *, limits, seed=None, proof=True, proofs=None, **options):
        statement = reference_cnf(problem)
        details = {"search": "backtrack", "format": "binary", "cnf": statement.dimacs(), "proof": b"\x00junk"}
        if self.lie == "forged stream":
            stream = LratStream(Cnf.of_clauses(statement.num_vars, statement.clauses))
            stream.verdict = nqcsp.proof.lrat.LratVerdict(True, "the proof derives the empty clause", {})
            details[certify.STREAMED] = stream
        elif self.lie == "stale stream":
            # A genuine accepted check, of another (blocked) board's statement.
            other = Problem(6, [(0, 0)])
            real = BacktrackSolver().solve(other, limits=limits)
            stream = LratStream(read_dimacs(real.certificate.details["cnf"]))
            stream.feed(bytes(real.certificate.details["proof"]))
            assert stream.finish().ok
            details[certify.STREAMED] = stream
        elif self.lie == "verdict in details":
            details[certify.STREAMED] = {"ok": True, "lemmas": 1, "proof_bytes": 5, "check_s": 0.0}
            details["checked_by"] = ["nqcsp-lrat"]
        elif self.lie == "garbage into the channel":
            assert proofs is not None
            sink = proofs.open(1 << 20, 1 << 22)
            sink.write(memoryview(b"a\x02\x00\x00" * 10))
        forged = Certificate("lrat", ("nqcsp-lrat",), details)
        return Result(problem, Status.UNSAT, self.name, certificate=forged)


LIES = ["forged stream", "stale stream", "verdict in details", "garbage into the channel"]


@pytest.mark.parametrize("lie", LIES)
def test_a_lying_backend_gets_no_checked_unsat_from_any_path(monkeypatch, lie):
    from nqcsp import solvers

    monkeypatch.setitem(solvers._instances, "backtrack", LyingBacktrack(lie))
    claimed = nqcsp.solve(8, [], solver="backtrack")
    assert claimed.status is Status.UNSAT and not claimed.certificate.checked, claimed.certificate
    problem = solvable_completion()
    try:
        answer = nqcsp.solve(problem)
    except InternalSolverError as exc:
        assert "disagree" in str(exc)   # the second backend's solution unmasked the claim
    else:
        assert answer.status is Status.SAT
        assert any(stage["solver"] == "backtrack" for stage in answer.stats["stages"])


def test_a_genuine_proof_beside_garbage_evidence_counts_only_with_the_channels_bytes(monkeypatch):
    # backtrack writes a real proof into certify's channel, then hands over garbage as its evidence:
    # certify keeps its own copy of what it checked, so the evidence that leaves is the real proof.
    original = BacktrackSolver.solve

    def garbage_evidence(self, problem, **kwargs):
        result = original(self, problem, **kwargs)
        details = {**result.certificate.details, "proof": b"\x00junk", "cnf": b"p cnf 0 0\n"}
        return Result(problem, result.status, self.name, certificate=Certificate("lrat", (), details))

    monkeypatch.setattr(BacktrackSolver, "solve", garbage_evidence)
    result = nqcsp.solve(Problem(6, [(0, 0)]), solver="backtrack")
    details = result.certificate.details
    assert result.certificate.checked_by == ("nqcsp-lrat",)
    assert details["cnf"] == reference_cnf(Problem(6, [(0, 0)])).dimacs()
    assert check_lrat(details["cnf"], bytes(details["proof"])).ok


def test_forged_pieces_through_the_real_checking_thread_are_rejected():
    problem = Problem(8, [(0, 0), (1, 2)])
    real = BacktrackSolver().solve(problem, limits=Limits.unlimited()).certificate.details
    proof = bytes(real["proof"])
    other = BacktrackSolver().solve(Problem(6, [(0, 0)]), limits=Limits.unlimited()).certificate.details
    rng = random.Random(1)
    cases = {"genuine": (proof, True), "garbage": (bytes(rng.randrange(256) for _ in range(500)), False),
             "another statement's proof": (bytes(other["proof"]), False),
             "cut in half": (proof[:len(proof) // 2], False)}
    for name, (data, ok) in cases.items():
        channel = certify.ProofChannel(problem, Limits.unlimited())
        sink = channel.open(1 << 20, 1 << 22)
        at = 0
        while at < len(data):
            size = rng.choice([1, 5, 64, 4096])
            sink.write(memoryview(data[at:at + size]))
            at += size
        verdict = channel.close()
        assert verdict is not None and verdict.ok is ok, name
        assert channel.evidence()["proof"] == data


# --- one reading: every reader in the project, and a naive one from the grammar, agree ---------------------

INTERESTING = [*SEPARATORS, b"\n", b"\r\n", b"\x00", b"\xef\xbb\xbf", b"%", b"c", b"p", b"-", b"0", b"+",
               b" ", b"\t", b"1", b"9" * 12, b"p cnf 3 1\n", b"-0", b"07", b"\xff", b"d"]


@st.composite
def mutated_cnf(draw) -> bytes:
    base = draw(st.sampled_from([reference_cnf(Problem(4, [(0, 1)])).dimacs(),
                                 reference_cnf(Problem(5, [(0, 0)])).dimacs(),
                                 b"p cnf 3 2\n1 -2 0\n3 0\n", b"c x\np cnf 2 1\n1\n-2 0\n"]))
    data = bytearray(base)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        piece = draw(st.one_of(st.sampled_from(INTERESTING), st.binary(min_size=1, max_size=3)))
        action = draw(st.sampled_from(["insert", "replace", "delete"]))
        if action == "insert":
            data[at:at] = piece
        elif action == "replace":
            data[at:at + len(piece)] = piece
        else:
            del data[at:at + draw(st.integers(1, 4))]
    return bytes(data)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_cnf())
def test_the_reader_and_the_grammar_agree_on_every_mutant(data):
    expected = naive_dimacs(data)
    try:
        cnf = read_dimacs(data)
    except ValueError:
        assert expected is None, expected
        return
    assert expected is not None
    num_vars, clauses, comments = expected
    assert (cnf.num_vars, cnf.clauses(), list(cnf.comments)) == (num_vars, clauses, comments)
    assert read_dimacs(cnf.dimacs()).clauses() == clauses   # the canonical text reads back the same


@needs_cake_lpr
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_cnf())
def test_cake_lpr_reads_the_clauses_nqcsp_read(tmp_path_factory, data):
    # cake_lpr, given only a CNF, prints the formula it parsed: on every text both accept, the same
    # clauses (it is stricter in places: a comment needs "c " with its space).
    import subprocess

    try:
        cnf = read_dimacs(data)
    except ValueError:
        return
    path = tmp_path_factory.mktemp("cake") / "f.cnf"
    path.write_bytes(data)
    printed = subprocess.run([CAKE_LPR, str(path)], capture_output=True, timeout=60).stdout
    if printed.startswith(b"p cnf"):
        assert read_dimacs(printed).clauses() == cnf.clauses()


@needs_cake_lpr
def test_cake_lpr_as_a_second_opinion_in_check_proof(tmp_path, capsys):
    problem = Problem(8, [(0, 0), (1, 2)])
    details = BacktrackSolver().solve(problem, limits=Limits.unlimited()).certificate.details
    cnf = write(tmp_path, "s.cnf", details["cnf"])
    proof = bytes(details["proof"])
    assert check_proof("--checker", f"cake_lpr={CAKE_LPR}", cnf, write(tmp_path, "p.lrat", proof)) == 0
    assert "cake_lpr" in capsys.readouterr().out
    half = write(tmp_path, "bad.lrat", proof[:len(proof) // 2])
    assert check_proof("--checker", f"cake_lpr={CAKE_LPR}", cnf, half) == 1


def test_an_outside_checker_that_rejects_makes_the_audit_reject(tmp_path, capsys):
    # A stand-in for cake_lpr that rejects everything: nqcsp-lrat alone accepting is not enough.
    fake = tmp_path / "cake_lpr"
    fake.write_text("#!/bin/sh\necho 'c empty clause not derived at end of proof' >&2\nexit 1\n")
    fake.chmod(0o755)
    problem = Problem(6, [(0, 0)])
    details = BacktrackSolver().solve(problem, limits=Limits.unlimited()).certificate.details
    cnf = write(tmp_path, "s.cnf", details["cnf"])
    proof = write(tmp_path, "p.lrat", bytes(details["proof"]))
    assert check_proof(cnf, proof) == 0
    assert check_proof("--checker", f"cake_lpr={fake}", cnf, proof) == 1
    assert "cake_lpr rejected it" in capsys.readouterr().out
    assert check_proof("--checker", "cake_lpr=/nonexistent", cnf, proof) == 2
    assert check_proof("--checker", f"drat-trim={fake}", cnf, proof) == 2


def test_the_proof_channel_builds_the_statement_the_backend_numbers_by():
    problem = Problem(6, [(0, 0)])
    channel = certify.ProofChannel(problem, Limits.unlimited())
    result = BacktrackSolver().solve(problem, limits=Limits.unlimited(), proofs=channel)
    assert channel.statement() is channel.statement()
    verdict = channel.close()
    assert verdict is not None and verdict.ok
    assert result.certificate.details["cnf"] == channel.statement().dimacs()
    assert len(channel.statement().clauses) < backtrack_module.PROOF_MAX_CLAUSES


# --- the campaign, and no input file that makes check-proof exit 4 ----------------------------------------


@pytest.mark.slow
def test_a_fuzz_campaign_of_forged_statements_and_proofs_accepts_none():
    # The campaign of tests/forgery.py (run with --mutants 100000 for the published figure), smaller.
    from forgery import campaign

    tally = campaign(3000, seed=11)
    counts = tally.counts
    assert counts["mutants"] == 3000 and counts["proven"] > 0 and counts["refused as input"] > 0
    assert counts["forgery"] == counts["disagreement"] == counts["crash"] == 0, tally.examples


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cnf=st.one_of(st.binary(max_size=120), mutated_cnf()), proof=st.binary(max_size=120),
       proof_format=st.sampled_from(["lrat", "drat"]), any_cnf=st.booleans())
def test_no_input_file_makes_check_proof_exit_4(tmp_path, cnf, proof, proof_format, any_cnf):
    extra = ["--any-cnf"] if any_cnf else []
    code = check_proof(*extra, "--format", proof_format, "--memory-limit", "256M",
                       write(tmp_path, "s.cnf", cnf), write(tmp_path, "p.proof", proof))
    assert code in (0, 1, 2, 3)
    if code == 0 and not any_cnf:
        found = audit(cnf, proof, proof_format, limits=Limits.unlimited())
        assert found.proven and not naive_has_solution(found.problem.n, found.problem.queens)


@pytest.mark.parametrize("where", ["directory", "missing", "/dev/null", "/dev/zero", "under a file",
                                   "dangling link"])
def test_a_path_that_is_no_file_is_bad_input_or_a_named_limit(tmp_path, capsys, where):
    proof = write(tmp_path, "p.lrat", b"1 0 0\n")
    cnf = write(tmp_path, "s.cnf", b"p cnf 0 0\n")
    paths = {"directory": str(tmp_path), "missing": str(tmp_path / "none"), "/dev/null": "/dev/null",
             "/dev/zero": "/dev/zero", "under a file": cnf + "/x", "dangling link": str(tmp_path / "link")}
    path = paths[where]
    if where == "dangling link":
        (tmp_path / "link").symlink_to(tmp_path / "gone")
    for args in ([path, proof], [cnf, path]):
        code = check_proof("--format", "lrat", "--memory-limit", "64M", *args)
        err = capsys.readouterr().err
        assert code in (1, 2, 3) and len(err.strip().splitlines()) <= 1, (where, args, err)
