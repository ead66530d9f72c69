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
