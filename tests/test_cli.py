import json
import subprocess
import sys

import pytest
from naive import naive_is_solution

from nqcsp import parse_board


def nqcsp(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "nqcsp", *args], input=stdin, capture_output=True,
                          text=True, timeout=120)


def test_solve_prints_a_board_with_the_mandatory_queen():
    out = nqcsp("solve", "8", "--queen", "0,3")
    assert out.returncode == 0, out.stderr
    n, cells = parse_board(out.stdout)
    cols = [c for _, c in sorted(cells)]
    assert n == 8 and cols[0] == 3 and naive_is_solution(8, cols, [(0, 3)])


def test_solve_json_and_columns():
    out = nqcsp("solve", "12", "--format", "json")
    data = json.loads(out.stdout)
    assert data["status"] == "SAT" and naive_is_solution(12, data["queens"])
    cols = nqcsp("solve", "150").stdout.split()  # columns above n = 100
    assert naive_is_solution(150, [int(c) for c in cols])


def test_unsat_and_unknown_exit_codes():
    attack = nqcsp("solve", "8", "-q", "0,0", "-q", "1,1")
    assert attack.returncode == 1 and "attack" in attack.stdout


def test_verify_round_trip_and_rejection():
    board = nqcsp("solve", "10").stdout
    ok = nqcsp("verify", "-", stdin=board)
    assert ok.returncode == 0 and ok.stdout.startswith("valid")
    bad = board.replace("Q", ".", 1)
    rejected = nqcsp("verify", "-", stdin=bad)
    assert rejected.returncode == 1 and "row 0 has 0 queens" in rejected.stdout
    cols = nqcsp("verify", "-", stdin="0 1 2 3\n")
    assert cols.returncode == 1 and "share" in cols.stdout
    missing = nqcsp("verify", "-", "--queen", "0,0", stdin=board)
    assert missing.returncode == 1 and "mandatory queen (0, 0)" in missing.stdout


def test_solvers_lists_construct():
    out = nqcsp("solvers")
    assert out.returncode == 0 and "construct" in out.stdout


@pytest.mark.parametrize(
    ("args", "named"),
    [(["solve", "-1"], "-1"), (["solve", "8.0"], "'8.0'"), (["solve", "eight"], "'eight'"),
     (["solve", "8", "--queen", "9,9"], "(9, 9)"), (["solve", "8", "--queen", "0"], "'0'"),
     (["solve", "8", "--queen", "a,b"], "'a,b'"), (["solve", "8", "--solver", "nope"], "'nope'"),
     (["solve", "8", "--time-limit", "-3"], "'-3'"), (["solve", "8", "--format", "xml"], "'xml'"),
     (["verify", "/no/such/file"], "/no/such/file"), (["frobnicate"], "'frobnicate'")],
)
def test_bad_input_exits_2_with_one_line(args, named):
    out = nqcsp(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("text", ["..Q\nQ\n", "xyz\n", "0 1 two\n", ""])
def test_malformed_verify_input_exits_2(text):
    out = nqcsp("verify", "-", stdin=text)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
