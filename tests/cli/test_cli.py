import contextlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from naive import naive_is_solution

from nqcsp import parse_board

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def nqcsp(*args, stdin=None, env=None):
    return subprocess.run([sys.executable, "-m", "nqcsp", *args], input=stdin, capture_output=True,
                          text=True, timeout=120, env=env)


def patched_env(tmp_path, code):
    """An environment whose Python runs ``code`` at start-up (a sitecustomize), to break nqcsp from inside."""
    (tmp_path / "sitecustomize.py").write_text(code)
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}


def one_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_solve_prints_a_board_with_the_mandatory_queen():
    out = nqcsp("solve", "8", "--queen", "0,3")
    assert out.returncode == 0, out.stderr
    n, cells = parse_board(out.stdout)
    cols = [c for _, c in sorted(cells)]
    assert n == 8 and cols[0] == 3 and naive_is_solution(8, cols, [(0, 3)])


def test_solve_json_and_columns():
    out = nqcsp("solve", "12", "--format", "json")
    data = json.loads(out.stdout)
    assert data["status"] == "SAT" and naive_is_solution(12, data["columns"])
    cols = nqcsp("solve", "150").stdout.split()  # columns above n = 100
    assert naive_is_solution(150, [int(c) for c in cols])


def test_attacking_queens_exit_1_with_the_certificate_named():
    attack = nqcsp("solve", "8", "-q", "0,0", "-q", "1,1")
    assert attack.returncode == 1 and "attack" in attack.stdout and "checked by" in attack.stdout


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


def test_solvers_lists_every_backend_of_the_registry_in_text_and_json():
    import nqcsp as api
    from nqcsp.solvers import spec

    infos = api.available_solvers()
    text = nqcsp("solvers")
    assert text.returncode == 0
    rows = {line.split()[0]: line.split()[1:3] for line in text.stdout.splitlines()[1:]}
    assert rows == {i.name: ["yes" if i.complete else "no", "yes" if i.installed else "no"] for i in infos}
    out = nqcsp("solvers", "--json")
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    assert [r["name"] for r in records] == [i.name for i in infos]
    for record, info in zip(records, infos, strict=True):
        assert (record["complete"], record["installed"], record["max_free"]) == \
            (info.complete, info.installed, info.max_free)
        assert record["requires"] == list(spec(info.name).requires)
        assert [(o["name"], o["default"]) for o in record["options"]] == \
            [(o.name, o.default) for o in spec(info.name).options]


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


def test_queens_file_json_and_lines(tmp_path):
    as_json = tmp_path / "q.json"
    as_json.write_text("[[0, 3], [1, 6]]")
    as_lines = tmp_path / "q.txt"
    as_lines.write_text("# two queens\n0,3\n1,6\n")
    for path in (as_json, as_lines):
        out = nqcsp("solve", "8", "--queens-file", str(path), "--format", "json")
        data = json.loads(out.stdout)
        assert data["status"] == "SAT" and naive_is_solution(8, data["columns"], [(0, 3), (1, 6)])
    bad = tmp_path / "bad.txt"
    bad.write_text("0,3\n1;6\n")
    out = nqcsp("solve", "8", "--queens-file", str(bad))
    assert out.returncode == 2 and "line 2" in out.stderr


def test_batch_json_lines(tmp_path):
    records = [{"id": 1, "n": 8, "queens": [[0, 3]]}, {"id": 2, "n": 8, "queens": [[0, 0], [1, 1]]},
               {"id": 3, "n": 6, "queens": [[0, 1]]}]
    lines = [json.dumps(record) for record in records]
    out = nqcsp("solve", "--batch", "-", stdin="\n".join(lines) + "\n")
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["id"] for r in records] == [1, 2, 3]
    assert records[1]["status"] == "UNSAT" and records[1]["certificate"]["kind"] == "attack"
    for record in (records[0], records[2]):
        assert naive_is_solution(record["n"], record["columns"], [tuple(q) for q in record["queens"]])
    bad = nqcsp("solve", "--batch", "-", stdin='{"n": -3}\nnot json\n')
    assert bad.returncode == 2
    assert all("error" in json.loads(line) for line in bad.stdout.splitlines())


def test_blockades_command_json():
    out = nqcsp("blockades", "4", "6", "--format", "json", "--no-progress", "--jobs", "2")
    assert out.returncode == 0, out.stderr
    boards = {b["n"]: b for b in json.loads(out.stdout)}
    from naive import naive_has_solution
    for n, board in boards.items():
        blocked = sorted([r, c] for r in range(n) for c in range(n) if not naive_has_solution(n, [(r, c)]))
        assert board["blocked"] == blocked


def test_exit_3_names_the_stage_that_ran_out():
    out = nqcsp("solve", "1000000000000", "--time-limit", "5")
    assert out.returncode == 3 and "memory limit" in out.stdout and "TiB" in out.stdout


@pytest.mark.slow  # 5 s: one CLI process per backend
def test_exit_5_for_an_unchecked_claim_and_1_only_with_a_checked_certificate():
    claim = nqcsp("solve", "6", "--queen", "1,1", "--solver", "cpsat")
    assert claim.returncode == 5 and "claim" in claim.stdout
    proven = nqcsp("solve", "6", "--queen", "1,1")
    assert proven.returncode == 1 and "checked by" in proven.stdout
    # The backtracker's search tree is its own proof: one backend, checked all the same.
    searched = nqcsp("solve", "6", "--queen", "1,1", "--solver", "backtrack")
    assert searched.returncode == 1 and "lrat, checked by nqcsp-lrat" in searched.stdout


def broken_backend(exception):
    """A sitecustomize that makes the backtrack backend raise ``exception`` (source text)."""
    return ("import nqcsp.solvers as r\n"
            "class Broken:\n"
            "    def solve(self, problem, *, limits, seed=None, **options):\n"
            f"        raise {exception}\n"
            "r._instances['backtrack'] = Broken()\n")


@pytest.mark.parametrize(("patch", "named"), [
    (broken_backend("ZeroDivisionError('kaboom')"), "kaboom"),
    # A ValueError inside a backend is its bug, not the user's bad input.
    (broken_backend("ValueError('inner bug')"), "ValueError: inner bug"),
    # A backend module that cannot be imported (a broken install): ImportError, not "bad input".
    ("import sys\nsys.modules['nqcsp.solvers.backtrack'] = None\n", "ModuleNotFoundError"),
    # A backend whose certificate is malformed: the re-check raises TypeError inside nqcsp.
    ("import nqcsp.solvers as r\nfrom nqcsp.board.result import Certificate, Result, Status\n"
     "class Malformed:\n"
     "    def solve(self, problem, *, limits, seed=None, **options):\n"
     "        return Result(problem, Status.UNSAT, 'backtrack', certificate=Certificate('attack', (), "
     "{'queens': [1, 2]}))\n"
     "r._instances['backtrack'] = Malformed()\n", "TypeError"),
], ids=["crash", "value-error", "module-import-fails", "malformed-certificate"])
def test_an_exception_from_inside_a_backend_is_exit_4_not_a_usage_error(tmp_path, patch, named):
    out = nqcsp("solve", "8", "-q", "0,3", "--solver", "backtrack", env=patched_env(tmp_path, patch))
    assert out.returncode == 4, out.stderr
    line = one_line(out.stderr)
    assert "internal error" in line and named in line


def test_a_backend_that_is_not_installed_is_bad_input_naming_what_is_missing(tmp_path):
    # An empty PATH: no `minizinc` executable, whatever this machine has.
    env = {**os.environ, "PATH": str(tmp_path)}
    out = nqcsp("solve", "8", "--solver", "minizinc", env=env)
    assert out.returncode == 2 and "'minizinc' executable" in one_line(out.stderr)


def test_an_incomplete_backend_named_explicitly_says_the_pre_check_answered():
    # qs4 cannot prove anything: the UNSAT comes from the pre-check every call runs first, and says so.
    text = nqcsp("solve", "6", "--queen", "0,0", "--queen", "1,1", "--solver", "qs4")
    assert text.returncode == 1 and "attack, checked by" in text.stdout and "pre-check" in text.stdout
    data = json.loads(nqcsp("solve", "6", "-q", "0,0", "-q", "1,1", "--solver", "qs4", "--format",
                            "json").stdout)
    assert data["solver"] == "trivial" and data["certificate"]["checked_by"]


def test_proof_dir_writes_an_unsat_certificate_and_says_why_it_writes_nothing_on_sat(tmp_path):
    proven = nqcsp("solve", "6", "-q", "0,0", "-q", "1,1", "--proof-dir", str(tmp_path / "unsat"))
    assert proven.returncode == 1
    written = json.loads((tmp_path / "unsat" / "certificate.json").read_text())
    assert written["kind"] == "attack" and written["checked_by"]
    solved = nqcsp("solve", "8", "-q", "0,3", "--proof-dir", str(tmp_path / "sat"))
    assert solved.returncode == 0
    assert "nothing written" in one_line(solved.stderr) and "SAT" in solved.stderr
    assert not (tmp_path / "sat").exists() or not any((tmp_path / "sat").iterdir())


def test_jobs_help_gives_each_command_its_own_default():
    batch = nqcsp("solve", "--help").stdout
    sweep = nqcsp("blockades", "--help").stdout
    assert "(default: 1)" in " ".join(batch.split()) and "one per core" not in " ".join(batch.split())
    assert "(default: one per core)" in " ".join(sweep.split())


def test_no_progress_bar_when_stderr_is_not_a_terminal():
    out = nqcsp("blockades", "6", "7", "--jobs", "1")
    assert out.returncode == 0 and out.stderr == "", out.stderr


def test_board_text_too_big_is_refused_before_solving():
    out = nqcsp("solve", "1000000", "--format", "board")
    assert out.returncode == 2 and "TiB" in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_version_and_memory_limit_flags():
    version = nqcsp("--version")
    assert version.returncode == 0 and version.stdout.startswith("nqcsp ")
    small = nqcsp("solve", "10000000", "--queen", "5,17", "--memory-limit", "1M", "--solver", "qs4")
    assert small.returncode == 3 and "memory limit" in small.stdout
    bad = nqcsp("solve", "8", "--memory-limit", "lots")
    assert bad.returncode == 2 and "'lots'" in bad.stderr


def test_batch_lines_carry_solver_options_and_a_misspelt_one_is_an_error_record():
    lines = [json.dumps({"n": 6, "queens": [[0, 0]], "solver": "qs4", "max_restarts": 0, "id": "a"}),
             json.dumps({"n": 8, "id": "b", "max_restart": 3})]
    out = nqcsp("solve", "--batch", "-", stdin="\n".join(lines) + "\n")
    first, second = (json.loads(line) for line in out.stdout.splitlines())
    # Honoured: the default would restart 1000 times on this blocked cell.
    assert first["status"] == "UNKNOWN" and first["stats"]["restarts"] <= 1
    assert second["error_type"] == "input" and "max_restart" in second["error"]
    assert out.returncode == 2


@pytest.mark.parametrize("limit", ["1e10", "1e300"])
def test_a_time_limit_of_centuries_is_still_a_limit(limit, capsys, monkeypatch):
    # The SAT search's timer took the remaining seconds as they were: OverflowError in its thread.
    import threading

    from nqcsp.cli import main

    escaped = []
    monkeypatch.setattr(threading, "excepthook", escaped.append)
    assert main(["solve", "6", "--queen", "0,0", "--time-limit", limit]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("no solution (") and "checked by" in out and err == ""
    assert escaped == []


@pytest.mark.slow
def test_writing_columns_is_inside_the_time_limit(capsysbinary):
    # Columns were written with Python's str after the solve, outside the limit: 2.9 s at 2 * 10^7 for 1 s.
    import numpy as np
    from timing import Stopwatch, promise

    from nqcsp import verify
    from nqcsp.cli import main

    n = 20_000_000
    with Stopwatch() as watch:
        code = main(["solve", str(n), "--format", "columns", "--time-limit", "2"])
    # Read out before any assertion: a failure report would otherwise print 20 million captured lines.
    out = capsysbinary.readouterr().out
    assert watch.seconds <= promise(2.0), watch
    if code == 0:
        columns = np.array(out.split(), dtype=np.int64)
        assert len(columns) == n and verify(n, columns), f"{len(columns)} columns, not a solution"
    else:
        assert code == 3 and out.startswith(b"unknown: time limit"), (code, out[:200])


def test_a_batch_record_of_millions_of_columns_is_written_in_bounded_memory(tmp_path, capsysbinary):
    # Records were built as a list of Python ints and one JSON string: 1.9 GB for one line of n = 3 * 10^7.
    import json
    import tracemalloc

    import numpy as np

    from nqcsp import verify
    from nqcsp.cli import main

    n = 4_000_000
    batch = tmp_path / "big.jsonl"
    batch.write_text(json.dumps({"n": n, "id": "big"}) + "\n")
    tracemalloc.start()
    try:
        assert main(["solve", "--batch", str(batch)]) == 0
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    record = json.loads(capsysbinary.readouterr().out)
    assert record["id"] == "big" and verify(n, np.array(record["columns"]))
    # The construction (16 bytes a queen) and the verifier's marks and chunks dominate now (about 30 bytes
    # a queen measured); a list of Python ints and its JSON string added about 28 more (58 measured).
    assert peak < 40 * n


def test_a_batch_line_that_is_not_utf8_is_that_lines_error(tmp_path, capsys):
    # One non-UTF-8 line lost every line: "is not text", exit 2, no records.
    from nqcsp.cli import main

    batch = tmp_path / "mixed.jsonl"
    batch.write_bytes(b'{"n": 8, "id": "a"}\n{"n": 4, "id": "\xff\xfe"}\n'
                      b'{"n": 6, "queens": [[0, 0]], "id": "c"}\n')
    assert main(["solve", "--batch", str(batch)]) == 2
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["line"] for r in records] == [1, 2, 3]
    assert records[0]["status"] == "SAT" and naive_is_solution(8, records[0]["columns"])
    assert records[1]["error_type"] == "input" and "UTF-8" in records[1]["error"]
    assert records[2]["status"] == "UNSAT" and records[2]["id"] == "c"


@pytest.mark.parametrize("text", ["[" * 100_000 + "]" * 100_000, "{\"queens\": " + "[" * 50_000],
                         ids=["list", "object"])
def test_a_deeply_nested_queens_file_is_bad_input(tmp_path, capsys, text):
    # json.loads raised RecursionError: exit 4, "internal error".
    from nqcsp.cli import main

    path = tmp_path / "queens.json"
    path.write_text(text)
    assert main(["solve", "8", "--queens-file", str(path)]) == 2
    err = capsys.readouterr().err
    assert "queens.json" in err and len(err.strip().splitlines()) == 1


def _interrupt_after(args, seconds, grace=5.0):
    """Run ``nqcsp ARGS`` in its own process group (SIGINT at its default, as a shell would leave it), send
    the group SIGINT after ``seconds``, and return (seconds from the signal to the exit, exit code, stderr).
    The group is killed in any case, so a command that ignores Ctrl-C fails the test instead of hanging."""
    import os
    import signal
    import time

    from timing import ChildStopwatch

    proc = subprocess.Popen([sys.executable, "-m", "nqcsp", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        time.sleep(seconds)
        watch = ChildStopwatch(proc.pid).start()
        os.killpg(proc.pid, signal.SIGINT)
        if not watch.wait(proc, grace):     # its stderr is one line: the pipe cannot fill
            return float("inf"), None, "did not stop"
        return watch.seconds, proc.returncode, proc.communicate()[1]
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.mark.parametrize("args",
                         [["solutions", "40"], ["solve", "1500", "--solver", "cpsat", "-O", "hint=construct"],
                          ["count", "19"]],
                         ids=["solutions", "cpsat", "count"])
def test_ctrl_c_stops_a_long_command_within_a_second(args):
    # `solutions 40` ran one numba call that never returned (only SIGKILL ended it); CP-SAT at n = 1500
    # took 4 to 30 s to notice its stop; `count 19` ran every queued task of its thread pool (19 s).
    if args[-1] == "cpsat":
        pytest.importorskip("ortools")
    import random

    took, code, err = _interrupt_after(args, random.Random(" ".join(args)).uniform(2.0, 3.0))
    assert code == 130 and err.strip().endswith("interrupted"), err
    assert took <= 1.5  # the promise is 1 s (less the child's wait for a CPU: tests/timing.py)


# Each long-running command, busy for far longer than the test waits (so the only way out is Ctrl-C), and
# what it reads on stdin.
LONG_COMMANDS = {
    # A cell that blocks every solution, searched by an incomplete backend for its whole minute.
    "solve": (["solve", "6", "--queen", "0,0", "--solver", "minconflicts", "--time-limit", "60",
               "--option", "max_restarts=1000000000000"], None),
    "batch": (["solve", "--batch", "-", "--jobs", "2"],
              "".join(json.dumps(line) + "\n" for line in [
                  {"n": 8, "id": "first"},
                  {"n": 6, "queens": [[0, 0]], "solver": "minconflicts", "time_limit": 60,
                   "max_restarts": 10**12, "id": "slow"},
                  {"n": 9, "id": "third"}])),
    "count": (["count", "19"], None),
    "solutions": (["solutions", "40"], None),
    "blockades": (["blockades", "1", "400", "--jobs", "2"], None),
    "export": (["export", "700", "--encoding", "pairwise"], None),    # 5 GiB of CNF to stdout
}
# The command as `python -m nqcsp` runs it, saying "ready" on stderr once it is inside `main` (when it builds
# its parser): a Ctrl-C during Python's own start-up and the import of numpy is Python's to report.
LAUNCHER = ("import sys; import nqcsp.cli as cli; build = cli.build_parser; "
            "cli.build_parser = lambda: (sys.stderr.write('ready\\n'), sys.stderr.flush(), build())[-1]; "
            "cli.entry()")


@pytest.mark.slow  # 12-25 s: two interrupts of each of six commands
@pytest.mark.parametrize("command", LONG_COMMANDS)
@settings(max_examples=2, deadline=None)
@given(delay=st.floats(min_value=0.0, max_value=2.0))
def test_ctrl_c_at_any_moment_of_a_long_command_exits_130_at_once_without_a_traceback(command, delay):
    from interrupting import interrupt_when, ready_after, start_interruptible

    args, stdin = LONG_COMMANDS[command]
    proc = start_interruptible([sys.executable, "-c", LAUNCHER, *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL)
    if stdin is not None:
        proc.stdin.write(stdin)
        proc.stdin.close()
    # To the whole process group, as a terminal sends it: worker processes get it too.
    rc, _, err, took = interrupt_when(proc, ready_after(delay, lambda out, err: "ready" in err),
                                      to_group=True)
    assert rc == 130, (command, delay, rc, err[-800:])
    assert "Traceback" not in err and err.rstrip().splitlines()[-1].startswith("nqcsp: interrupted"), err
    assert took <= 1.5, (command, delay, took)   # the promise is 1 s; the margin is for a loaded machine


CTRL_C_WHILE_NUMPY_LOADS_SCRIPT = """
import sys


class CtrlC:
    # As if the user pressed Ctrl-C while the command was still loading numpy, its first heavy import.
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            raise KeyboardInterrupt
        return None


sys.meta_path.insert(0, CtrlC())
sys.argv = ["nqcsp", "solve", "8"]
from nqcsp.cli import entry

entry()
"""


def test_ctrl_c_while_the_command_loads_is_one_line_not_a_traceback():
    # The subcommand modules used to be imported with nqcsp.cli itself, before main() could catch
    # anything: a Ctrl-C in the first tenth of a second of every command printed a traceback.
    proc = subprocess.run([sys.executable, "-c", CTRL_C_WHILE_NUMPY_LOADS_SCRIPT], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 130, proc.stderr[-800:]
    assert proc.stderr.splitlines() == ["nqcsp: interrupted"], proc.stderr[-800:]


CTRL_C_IN_A_FINALIZER_SCRIPT = """
import os, signal, sys, time
import nqcsp.cli as cli
import nqcsp.cli.cmd_count as cmd_count


class Finalized:
    def __del__(self):
        # As if the user's Ctrl-C arrived while a finalizer ran (Python drops an exception raised there).
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.2)


class HalfBuilt:
    def __del__(self):
        # As an llvmlite object whose construction the interrupt cut short fails when it is collected.
        raise AttributeError("HalfBuilt has no attribute '_as_parameter_'")


def run(args):
    half_built = HalfBuilt()   # collected when the interrupt unwinds this frame
    Finalized()
    time.sleep(30)
    print("ran on", flush=True)
    return 0


cmd_count.run = run
sys.argv = ["nqcsp", "count", "5"]
cli.entry()
"""


def run_script_to_its_end(script: str) -> tuple[int, str, str, float]:
    """A script that interrupts itself, run in its own process group (killed on the way out): exit code,
    stdout, stderr and seconds."""
    from interrupting import start_interruptible

    proc = start_interruptible([sys.executable, "-c", script], cwd=ROOT)
    started = time.monotonic()
    try:
        out, err = proc.communicate(timeout=90)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    return proc.returncode, out, err, time.monotonic() - started


def test_ctrl_c_dropped_inside_a_finalizer_still_stops_the_command():
    # Found by Ctrl-C at random moments: a KeyboardInterrupt raised where Python cannot propagate it was
    # printed as "Exception ignored" and the command ran on to its end, exit 0; and an interrupt during
    # numba's loading left llvmlite objects that printed an AttributeError traceback when collected.
    returncode, out, err, took = run_script_to_its_end(CTRL_C_IN_A_FINALIZER_SCRIPT)
    assert returncode == 130 and "ran on" not in out, (returncode, out, err[-1000:])
    assert took < 20, took      # the command sleeps 30 s unless the interrupt reaches it
    assert err.strip() == "nqcsp: interrupted", err


CTRL_C_SWALLOWED_SCRIPT = """
import os, signal, sys, threading, time
import nqcsp.cli as cli
import nqcsp.cli.cmd_count as cmd_count


def run(args):
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
    try:
        time.sleep(5)
    except BaseException:   # a library that swallows every exception, Ctrl-C included
        pass
    time.sleep(30)
    print("ran on", flush=True)
    return 0


cmd_count.run = run
sys.argv = ["nqcsp", "count", "5"]
cli.entry()
"""


def test_ctrl_c_swallowed_by_a_library_is_pressed_again_within_a_second():
    # Found by Ctrl-C at random moments: `count 19` still ran 30 s after Ctrl-C, its main thread waiting
    # on a result with the interrupt gone.
    returncode, out, err, took = run_script_to_its_end(CTRL_C_SWALLOWED_SCRIPT)
    assert returncode == 130 and "ran on" not in out, (returncode, out, err[-1000:])
    assert err.strip() == "nqcsp: interrupted", err
    assert took < 20, took      # 0.3 s, then 1 s to the second press; 30 s when the interrupt is lost


def test_backend_options_from_the_command_line_reach_the_backend(capsys):
    # The CLI could not set an option (encoding, workers, ...) that a batch line and the API can.
    pytest.importorskip("pysat")
    from nqcsp.cli import main

    assert main(["solve", "12", "--solver", "sat", "--option", "encoding=pairwise", "-O", "hint=false",
                 "--format", "json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["stats"]["encoding"] == "pairwise" and naive_is_solution(12, record["columns"])


@pytest.mark.parametrize(("args", "named"), [
    (["--solver", "sat", "-O", "encoding=nope"], "'nope'"),
    (["--solver", "qs4", "-O", "tail=-1"], "-1"),
    (["--solver", "qs4", "-O", "tail=two"], "'two'"),
    (["--solver", "qs4", "-O", "colour=red"], "colour"),
    (["-O", "tail=5"], "auto"),
    (["--solver", "qs4", "-O", "tail=5", "-O", "tail=6"], "twice"),
    (["-O", "seed=3"], "--seed"),
    (["-O", "tail"], "KEY=VALUE"),
])
def test_a_bad_backend_option_is_bad_input_named_on_one_line(args, named, capsys):
    from nqcsp.cli import main

    with pytest.raises(SystemExit) if named in ("--seed", "KEY=VALUE") else contextlib.nullcontext() as exit_:
        assert main(["solve", "12", *args]) == 2
    if exit_ is not None:
        assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert named in err and len(err.strip().splitlines()) == 1


# --- hostile input, as property tests -----------------------------------------------------------------

_LINE_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
                         st.text(max_size=8), st.lists(st.lists(st.integers(-3, 40), max_size=3), max_size=4))
_LINE_KEYS = st.sampled_from(["n", "queens", "id", "solver", "time_limit", "seed", "memory_limit", "tail",
                              "encoding", "workers", "model", "bogus"])


@st.composite
def batch_lines(draw):
    """Random bytes, or JSON objects of the batch vocabulary with hostile values (small boards only, so
    a line that happens to be valid stays quick)."""
    if draw(st.booleans()):
        return draw(st.binary(max_size=60))
    record = draw(st.dictionaries(_LINE_KEYS, _LINE_VALUES, max_size=5))
    if isinstance(record.get("n"), int) and not isinstance(record["n"], bool):
        record["n"] = record["n"] % 41
    known = (None, "auto", "construct", "qs4", "backtrack", "sat", "cpsat", "minizinc")
    if record.get("solver") not in known:
        record.pop("solver")
    return json.dumps(record).encode()


@given(st.lists(batch_lines(), min_size=1, max_size=4))
@settings(max_examples=120, deadline=None)
def test_hostile_batch_lines_each_get_a_record_never_a_crash(lines):
    from nqcsp.cli.batch import INPUT, solve_line

    for number, raw in enumerate(lines, 1):
        record = solve_line(number, raw, {"solver": "auto", "time_limit": 2.0, "seed": 1})
        assert record["line"] == number
        if "error" in record:
            assert record["error_type"] == INPUT, record
        else:
            assert record["status"] in ("SAT", "UNSAT", "UNKNOWN")
            if record["status"] == "SAT":
                assert naive_is_solution(record["n"], record["columns"].tolist(),
                                         [tuple(q) for q in record["queens"]])


@given(st.one_of(st.binary(max_size=200),
                 st.text(alphabet="[]{}0123456789,-\" queens:#\n", max_size=200).map(str.encode)))
@settings(max_examples=150, deadline=None)
def test_a_hostile_queens_file_is_answered_or_refused_on_one_line(data):
    import tempfile

    from nqcsp.cli import main

    with tempfile.NamedTemporaryFile(suffix=".txt") as handle:
        handle.write(data)
        handle.flush()
        stderr, stdout = sys.stderr, sys.stdout
        sys.stderr = err = __import__("io").StringIO()
        sys.stdout = __import__("io").StringIO()
        try:
            code = main(["solve", "8", "--queens-file", handle.name, "--time-limit", "5"])
        finally:
            sys.stderr, sys.stdout = stderr, stdout
    assert code in (0, 1, 2), err.getvalue()
    if code == 2:
        assert len(err.getvalue().strip().splitlines()) == 1


def test_the_command_keeps_openblas_to_one_thread_unless_told_otherwise():
    code = "import nqcsp.cli, os; print(os.environ.get('OPENBLAS_NUM_THREADS'))"
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    quiet = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    told = subprocess.run([sys.executable, "-c", code], env={**env, "OPENBLAS_NUM_THREADS": "3"},
                          capture_output=True, text=True, check=True)
    assert (quiet.stdout.strip(), told.stdout.strip()) == ("1", "3")
