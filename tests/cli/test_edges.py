"""The contract at the edges of the newer commands (issue 34): limits, paths, checkpoints, CP-SAT
parameters and the output streams. Bad input is exit 2 with one line naming the value, never exit 4 or a
traceback; stdout carries answers only."""

import contextlib
import io
import os
import subprocess
import sys

import pytest

from nqcsp.cli import build_parser, main

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def nqcsp(*args, stdin=None, timeout=120):
    return subprocess.run([sys.executable, "-m", "nqcsp", *args], input=stdin, capture_output=True,
                          text=True, timeout=timeout)


def one_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def run_main(argv):
    """``main(argv)`` in this process: (exit code, stdout, stderr); an argparse refusal is its exit code."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


# --- time limits: finite and > 0, checked in one place -------------------------------------------------

SECONDS_FLAGS = [["solve", "8", "--time-limit"],
                 ["blockades", "12", "--queens", "2", "--search", "--time-limit"],
                 ["threshold", "8", "--search-first"], ["check-proof", "a.cnf", "a.lrat", "--time-limit"],
                 ["check-threshold", "evidence.json", "--time-limit"]]


@pytest.mark.parametrize("flag", SECONDS_FLAGS, ids=lambda flag: flag[0])
@pytest.mark.parametrize("value", ["inf", "-inf", "Infinity", "nan", "0", "-1", "1e400"])
def test_every_seconds_flag_refuses_what_is_not_a_finite_positive_number(flag, value, capsys):
    # `threshold 10 --search-first inf` and `--time-limit inf` were accepted and never ended.
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([*flag[:-1], f"{flag[-1]}={value}"])
    assert exit_.value.code == 2
    assert repr(value) in one_line(capsys.readouterr().err)


def test_every_seconds_flag_goes_through_the_one_check():
    from nqcsp.cli.common import positive_float_arg

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    seconds = [(name, action.dest) for name, sub in commands.items() for action in sub._actions
               if action.metavar == "S"]
    assert len(seconds) >= 5
    for name, dest in seconds:
        action = next(a for a in commands[name]._actions if a.dest == dest)
        assert action.type is positive_float_arg, (name, dest)
