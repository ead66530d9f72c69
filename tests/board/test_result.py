"""Result is a value: comparable without raising, immutable (stats included), and it survives pickling."""

import copy
import pickle

import numpy as np
import pytest

from nqcsp import Problem, Result, Status, solve, verify
from nqcsp.board.result import Certificate, columns_array
from nqcsp.solvers.base import VERIFY_S, WALL_S


def _sat(columns, **stats):
    return Result(Problem(4), Status.SAT, "test", columns=columns_array(columns, 4), stats=stats)


def test_equality_compares_columns_element_by_element_and_never_raises():
    assert verify(4, [1, 3, 0, 2]) and verify(4, [2, 0, 3, 1])
    assert _sat([1, 3, 0, 2], k=1) == _sat([1, 3, 0, 2], k=1)
    assert _sat([1, 3, 0, 2]) != _sat([2, 0, 3, 1])
    assert _sat([1, 3, 0, 2], k=1) != _sat([1, 3, 0, 2], k=2)
    unknown = Result(Problem(4), Status.UNKNOWN, "test")
    assert unknown != _sat([1, 3, 0, 2]) and _sat([1, 3, 0, 2]) != unknown
    assert unknown == Result(Problem(4), Status.UNKNOWN, "test")
    assert _sat([1, 3, 0, 2]) != "SAT"
    with pytest.raises(TypeError):
        hash(unknown)


def test_stats_are_read_only_and_copied_from_the_backend():
    given = {"k": 1}
    result = _sat([1, 3, 0, 2], **given)
    given["k"] = 2
    assert result.stats["k"] == 1
    with pytest.raises(TypeError):
        result.stats["k"] = 3  # type: ignore[index]
    more = result.with_stats({"k": 4, "extra": True})
    assert (result.stats["k"], more.stats["k"], more.stats["extra"]) == (1, 4, True)
    assert np.array_equal(more.columns, result.columns) and more.status is result.status


def test_solve_answers_carry_read_only_stats_with_the_call_timings():
    result = solve(8, [(0, 3)])
    assert result.status is Status.SAT and verify(8, result.columns, [(0, 3)])
    assert result.stats[WALL_S] >= result.stats[VERIFY_S] >= 0
    with pytest.raises(TypeError):
        result.stats[WALL_S] = 0.0  # type: ignore[index]


def test_pickle_and_copy_keep_the_value():
    certificate = Certificate("attack", (), {"x": 1})
    unsat = Result(Problem(6, [(0, 0)]), Status.UNSAT, "test", certificate=certificate, stats={"k": [1, 2]})
    for original in (_sat([1, 3, 0, 2], k=1), unsat):
        for clone in (pickle.loads(pickle.dumps(original)), copy.deepcopy(original), copy.copy(original)):
            assert clone == original
            with pytest.raises(TypeError):
                clone.stats["k"] = 0  # type: ignore[index]
    assert solve(8, [(0, 3)]).to_json()["stats"][WALL_S] > 0


def test_str_of_a_small_solution_is_its_board_under_a_headline():
    result = solve(8, [(0, 3)])
    assert verify(8, result.columns, [(0, 3)])
    lines = str(result).splitlines()
    assert lines[0].startswith("SAT: 8 x 8 board, 1 mandatory queen (0, 3): solved by ")
    assert lines[0].endswith("(verified)")
    assert "\n".join(lines[1:]) + "\n" == result.board()
    assert repr(result) == f"Result(n=8, status=SAT, solver={result.solver!r}, queens=1)"


def test_str_of_an_unsat_result_summarises_its_certificate_without_the_bytes():
    result = solve(6, [(0, 0)])
    assert result.status is Status.UNSAT and result.certificate.checked
    cnf, proof = result.certificate.details["cnf"], result.certificate.details["proof"]
    assert isinstance(cnf, bytes) and len(cnf) > 500
    text = str(result)
    head, *board = text.splitlines()
    assert head.startswith("UNSAT: 6 x 6 board, 1 mandatory queen (0, 0): no solution, lrat, checked by "
                           "nqcsp-lrat")
    assert "cnf 1.3 KiB" in head and f"proof {len(proof)} B" in head
    assert board == ["the mandatory queens:", "Q.....", *["......"] * 5]
    for shown in (text, repr(result), repr(result.certificate), str(result.certificate)):
        assert "p cnf" not in shown and "\\x" not in shown, shown
    assert len(repr(result.certificate)) <= 300


def test_str_of_a_big_board_is_one_line_and_of_an_unknown_names_the_reason():
    n = 10**6
    big = solve(n, [(5, 7)])
    assert verify(n, big.columns, [(5, 7)])
    head, columns = str(big).splitlines()
    assert head.startswith(f"SAT: {n} x {n} board") and len(head) < 200
    assert columns.startswith("columns by row: ")
    assert columns.removeprefix("columns by row: ").split(", ")[5] == "7"          # the mandatory queen
    unknown = Result(Problem(200, [(0, 0)]), Status.UNKNOWN, "qs4", stats={"reason": "restarts exhausted"})
    assert str(unknown) == ("UNKNOWN: 200 x 200 board, 1 mandatory queen (0, 0): no answer from qs4: "
                            "restarts exhausted")


@pytest.mark.parametrize("n", [0, 1, 4, 31, 32, 33, 128, 10**5])
def test_no_result_prints_more_than_2000_characters(n):
    many = [(r, (2 * r) % n) for r in range(0, n, 3)][:5000] if n else []
    huge = {"reason": "x" * 10_000, "wall_s": 1.5}
    cert = Certificate("drat", ("dratify",), {"cnf": b"p cnf 1 1\n" * 10_000, "proof": b"\x00" * 10**6,
                                              "notes": ["y" * 100] * 1000, "label": "z" * 5000})
    for status, columns, certificate in ((Status.UNKNOWN, None, None), (Status.UNSAT, None, cert),
                                         (Status.SAT, np.arange(n), None)):
        result = Result(Problem(n, many), status, "s" * 3000, columns=columns, certificate=certificate,
                        stats=huge)
        assert len(str(result)) <= 2000, (n, status, len(str(result)))
        assert len(repr(result)) <= 300
        assert certificate is None or len(repr(certificate)) <= 300
