import json
import os
import subprocess
import sys

import pytest
from naive import naive_is_solution

from nqcsp import parse_board


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
    ("import nqcsp.solvers as r\nfrom nqcsp.result import Certificate, Result, Status\n"
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
