"""The contract at the edges of the newer commands (issue 34): limits, paths, checkpoints, CP-SAT
parameters and the output streams. Bad input is exit 2 with one line naming the value, never exit 4 or a
traceback; stdout carries answers only."""

import contextlib
import functools
import io
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

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


# --- checkpoints: bad paths and bad lines are bad input --------------------------------------------------

def _header(n, k, stop_at_blocked):
    from nqcsp.studies.queen_sets import checkpoint_header

    return json.dumps({"header": checkpoint_header(n, k, 0, stop_at_blocked)})


def _honest_record(n, k):
    """One record of a real sweep of (n, k), as a checkpoint writes it."""
    from nqcsp.studies.queen_sets import decide_task, plan_set_tasks

    task = plan_set_tasks(n, k)[0]
    return {"task": task.ident, "outcome": decide_task(task).to_json()}


def _blocked_without_size(record):
    k = record["outcome"]["k"]
    record["outcome"]["blocked"].insert(0, {"queens": [[0, 2 * i] for i in range(k)], "solver": "backtrack",
                                            "certificate": {}, "seconds": 0.0})


def _without(path):
    def edit(record):
        *keys, last = path
        for key in keys:
            record = record[key]
        del record[last]
    return edit


BAD_CHECKPOINT_LINES = {
    "a number first": ["5"], "a list first": ["[1, 2]"], "a string first": ['"header"'],
    "null first": ["null"], "a record without task": [None, _without(["task"])],
    "a record without outcome": [None, _without(["outcome"])],
    "a blocked entry without size": [None, _blocked_without_size],
    "a record that is a list": [None, "[]"], "witnesses as floats": [None, "floats"],
}


def _bad_checkpoint(path, lines, n, k, stop_at_blocked):
    written = []
    for line in lines:
        if line is None:
            written.append(_header(n, k, stop_at_blocked))
        elif callable(line):
            record = _honest_record(n, k)
            line(record)
            written.append(json.dumps(record))
        elif line == "floats":
            record = _honest_record(n, k)
            record["outcome"]["witnesses"] = [[c + 0.25 for c in w] for w in record["outcome"]["witnesses"]]
            written.append(json.dumps(record))
        else:
            written.append(line)
    path.write_text("\n".join(written) + "\n")


def _bad_paths(tmp_path):
    (tmp_path / "file").write_text("x")
    os.symlink(tmp_path / "missing" / "target", tmp_path / "dangling")
    return {"an empty path": "", "a directory": str(tmp_path),
            "a path under a file": str(tmp_path / "file" / "x"), "/proc": "/proc/self/status",
            "/dev/null": "/dev/null", "a dangling symlink": str(tmp_path / "dangling")}


@pytest.mark.parametrize("case", ["an empty path", "a directory", "a path under a file", "/proc", "/dev/null",
                                  "a dangling symlink", *BAD_CHECKPOINT_LINES])
def test_a_bad_sweep_checkpoint_is_exit_2_naming_it(case, tmp_path):
    # Each of these exited 4, "internal error (a bug)"; `--checkpoint ""` was silently ignored.
    if case in BAD_CHECKPOINT_LINES:
        path = str(tmp_path / "c.jsonl")
        _bad_checkpoint(tmp_path / "c.jsonl", BAD_CHECKPOINT_LINES[case], 7, 2, False)
    else:
        path = _bad_paths(tmp_path)[case]
    code, out, err = run_main(["blockades", "7", "--queens", "2", "--jobs", "1", "--checkpoint", path])
    assert code == 2 and out == "", err
    assert repr(path) in one_line(err) or case == "an empty path" and "empty path" in err


@pytest.mark.parametrize("case", ["an empty path", "a file", "a path under a file", "/proc", "/dev/null",
                                  "a dangling symlink", *BAD_CHECKPOINT_LINES])
def test_a_bad_threshold_checkpoint_is_exit_2_naming_it(case, tmp_path):
    paths = _bad_paths(tmp_path)
    folder = tmp_path / "levels"
    folder.mkdir()
    if case in BAD_CHECKPOINT_LINES:
        _bad_checkpoint(folder / "n7-k1.jsonl", BAD_CHECKPOINT_LINES[case], 7, 1, True)
        path, named = str(folder), str(folder / "n7-k1.jsonl")
    else:
        path = named = {"a file": str(tmp_path / "file"), "/proc": "/proc/self"}.get(case) or paths[case]
    code, out, err = run_main(["threshold", "7", "--jobs", "1", "--no-progress", "--checkpoint", path])
    assert code == 2 and out == "", err
    assert named in one_line(err) or case == "an empty path" and "empty path" in err


# --- files nqcsp writes: whole or not at all, never through a symlink, never beside stale evidence -------

def test_ctrl_c_during_export_to_a_file_leaves_the_file_as_it_was(tmp_path):
    # Issue 34: Ctrl-C during `export -o FILE` left a truncated CNF there.
    from interrupting import interrupt_when, start_interruptible

    target = tmp_path / "formula.cnf"
    target.write_text("c the previous CNF\np cnf 1 1\n1 0\n")

    def writing(out, err):
        return any(p.stat().st_size > 1 << 20 for p in tmp_path.iterdir())

    proc = start_interruptible([sys.executable, "-m", "nqcsp", "export", "700", "--encoding", "pairwise",
                                "-o", str(target)], stdout=subprocess.DEVNULL)
    code, _, err, _ = interrupt_when(proc, writing)
    assert code == 130 and "Traceback" not in err, err
    assert target.read_text() == "c the previous CNF\np cnf 1 1\n1 0\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["formula.cnf"]


def test_export_writes_through_the_users_link_and_in_place_on_a_device(tmp_path):
    real = tmp_path / "real.cnf"
    real.write_text("old\n")
    os.symlink(real, tmp_path / "link.cnf")
    assert run_main(["export", "6", "-o", str(tmp_path / "link.cnf")])[0] == 0
    assert os.path.islink(tmp_path / "link.cnf") and real.read_text().startswith("c nqcsp")
    assert run_main(["export", "6", "-o", "/dev/null"])[0] == 0
    for bad in ("", str(tmp_path), str(real / "x")):
        code, _, err = run_main(["export", "6", "-o", bad])
        assert code == 2 and "output" in one_line(err)


def test_a_proof_dir_is_written_whole_never_through_a_symlink_and_without_stale_evidence(tmp_path):
    # Issue 34: --proof-dir "" wrote into the current directory, a symlinked proof.lrat was followed and its
    # target overwritten, and a reused directory kept an old proof.drat beside the new proof.lrat.
    precious = tmp_path / "precious.txt"
    precious.write_text("not a proof\n")
    folder = tmp_path / "proofs"
    folder.mkdir()
    (folder / "proof.drat").write_text("an old DRAT proof of another statement\n")
    os.symlink(precious, folder / "proof.lrat")
    code, out, err = run_main(["solve", "8", "--queen", "0,0", "--queen", "1,2", "--solver", "backtrack",
                               "--proof-dir", str(folder)])
    assert code == 1 and "checked by" in out, err
    assert precious.read_text() == "not a proof\n"
    assert sorted(p.name for p in folder.iterdir()) == ["certificate.json", "proof.lrat", "statement.cnf"]
    assert not os.path.islink(folder / "proof.lrat")
    code, out, err = run_main(["check-proof", str(folder / "statement.cnf"), str(folder / "proof.lrat")])
    assert code == 0, out + err
    from naive import naive_has_solution

    assert not naive_has_solution(8, [(0, 0), (1, 2)])
    document = json.loads((folder / "certificate.json").read_text())
    assert set(document["files"]) == {"statement.cnf", "proof.lrat"}


@pytest.mark.parametrize("case", ["an empty path", "a file", "a path under a file", "/dev/null",
                                  "a dangling symlink"])
def test_a_bad_proof_dir_is_exit_2_before_the_solve(case, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    paths = _bad_paths(tmp_path)
    path = {"a file": str(tmp_path / "file")}.get(case) or paths[case]
    solved = []
    import nqcsp.api

    monkeypatch.setattr(nqcsp.api, "solve", lambda *a, **k: solved.append(a))
    code, out, err = run_main(["solve", "6", "--queen", "0,0", "--proof-dir", path])
    assert code == 2 and out == "" and solved == [], err
    assert "proof directory" in one_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dangling", "file"]


@pytest.mark.parametrize("path", ["", "/proc/self/evidence.json", "/nonexistent/dir/e.json", "."])
def test_threshold_refuses_an_evidence_path_it_cannot_write_before_computing(path, monkeypatch):
    # Issue 34: an unwritable --evidence was found only after the whole computation.
    import nqcsp.studies.threshold

    computed = []
    monkeypatch.setattr(nqcsp.studies.threshold, "completion_threshold", lambda *a, **k: computed.append(a))
    code, out, err = run_main(["threshold", "10", "--no-progress", "--evidence", path])
    assert code == 2 and out == "" and computed == [], err
    assert "evidence file" in one_line(err)


def test_threshold_evidence_is_written_whole(tmp_path):
    path = tmp_path / "evidence.json"
    code, out, err = run_main(["threshold", "8", "--no-progress", "--jobs", "1", "--evidence", str(path)])
    assert code == 0, err
    document = json.loads(path.read_text())
    assert document["value"] == 1 and out.startswith("a(8) = 1")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evidence.json"]


def test_threshold_derived_writes_version_3_that_check_threshold_accepts(tmp_path):
    path = tmp_path / "a12.json.xz"
    code, out, err = run_main(["threshold", "12", "--no-progress", "--jobs", "1", "--engine", "rows",
                               "--derived", "--evidence", str(path)])
    assert code == 0 and out.startswith("a(12) = 2"), err
    code, out, err = run_main(["check-threshold", str(path), "--jobs", "1"])
    assert code == 0 and "witnesses derived from the positions" in out and out.endswith("valid: a(12) = 2\n")
    code, out, err = run_main(["threshold", "12", "--no-progress", "--derived"])
    assert code == 2 and "--derived needs --engine rows" in one_line(err)


# --- the advertised schema is the accepted one -------------------------------------------------------------

def test_every_default_nqcsp_solvers_advertises_is_accepted_when_passed():
    # Issue 34: `nqcsp solvers --json` advertised null defaults that -O tail=null refused.
    from naive import naive_is_solution

    code, out, err = run_main(["solvers", "--json"])
    assert code == 0, err
    checked = 0
    for backend in json.loads(out):
        if not backend["installed"]:
            continue
        for option in backend["options"]:
            value = json.dumps(option["default"])
            code, out, err = run_main(["solve", "10", "--queen", "0,1", "--solver", backend["name"],
                                       "--format", "json", "-O", f"{option['name']}={value}"])
            assert code in (0, 3), (backend["name"], option, err)
            record = json.loads(out)
            if record["status"] == "SAT":
                assert naive_is_solution(10, record["columns"], [(0, 1)])
            checked += 1
    assert checked >= 20


# --- hostile sweeps: --checkpoint, --option and --proof-dir never exit 4 nor print a traceback ----------

_HOSTILE = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.integers(-3, 70),
                     st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=6),
                     st.lists(st.integers(-2, 9), max_size=3), st.dictionaries(st.text(max_size=3), st.none(),
                                                                               max_size=2))


def _paths(value, prefix=()):
    """Every path to a value inside nested dicts and lists."""
    yield prefix
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, item in items:
        yield from _paths(item, (*prefix, key))


def _replace(value, path, new):
    if not path:
        return new
    copy = list(value) if isinstance(value, list) else dict(value)
    copy[path[0]] = _replace(value[path[0]], path[1:], new)
    return copy


def _delete(value, path):
    copy = list(value) if isinstance(value, list) else dict(value)
    if len(path) == 1:
        del copy[path[0]]
    else:
        copy[path[0]] = _delete(value[path[0]], path[1:])
    return copy


@functools.lru_cache(maxsize=1)
def _sweep_8_2():
    """(the checkpoint lines of a whole sweep of 8 x 8, 2 queens; its true account)."""
    import tempfile

    from nqcsp.runtime.parallel import InProcess
    from nqcsp.studies.queen_sets import set_sweep

    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "c.jsonl")
        account = set_sweep(8, 2, executor=InProcess(), checkpoint=path)
        with open(path) as handle:
            lines = handle.read().splitlines()
    return lines, (account.classes, account.ksets, account.covered + account.searched,
                   sorted(tuple(map(tuple, b.queens)) for b in account.blocked))


@st.composite
def hostile_checkpoints(draw):
    """A whole checkpoint with one hostile change: a value anywhere replaced or deleted, a line torn,
    repeated, dropped or swapped, or a line of random bytes or JSON put in."""
    lines, _ = _sweep_8_2()
    lines = list(lines)
    index = draw(st.integers(0, len(lines) - 1))
    how = draw(st.sampled_from(["replace", "delete", "tear", "repeat", "drop", "swap", "insert"]))
    if how in ("replace", "delete"):
        record = json.loads(lines[index])
        paths = [p for p in _paths(record) if p or how == "replace"]
        path = paths[draw(st.integers(0, len(paths) - 1))]
        record = _replace(record, path, draw(_HOSTILE)) if how == "replace" else _delete(record, path)
        lines[index] = json.dumps(record)
    elif how == "tear":
        lines[index] = lines[index][:draw(st.integers(0, len(lines[index])))]
    elif how == "repeat":
        lines.insert(index, lines[index])
    elif how == "drop":
        del lines[index]
    elif how == "swap":
        other = draw(st.integers(1, len(lines) - 1))
        first, second = json.loads(lines[index]), json.loads(lines[other])
        if "outcome" in first and "outcome" in second:
            first["outcome"], second["outcome"] = second["outcome"], first["outcome"]
            lines[index], lines[other] = json.dumps(first), json.dumps(second)
    else:
        junk = draw(st.one_of(st.binary(max_size=40).map(lambda b: b.decode("latin-1")),
                              _HOSTILE.map(json.dumps)))
        lines.insert(index, junk.replace("\n", " "))
    return "\n".join(lines) + "\n"


def _in_process_executor(args, warm=None):
    from nqcsp.runtime.parallel import InProcess

    return contextlib.nullcontext(InProcess())


@pytest.mark.slow
@given(hostile_checkpoints())
@settings(max_examples=160, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_hostile_checkpoint_is_refused_on_one_line_or_counted_exactly(text):
    import tempfile

    import nqcsp.cli.cmd_blockades

    _, truth = _sweep_8_2()
    with tempfile.TemporaryDirectory() as folder, pytest.MonkeyPatch.context() as patch:
        # The tasks run here, not in a pool forked from the test process: the sweep is the same.
        patch.setattr(nqcsp.cli.cmd_blockades, "executor_from_args", _in_process_executor)
        path = os.path.join(folder, "c.jsonl")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(text)
        code, out, err = run_main(["blockades", "8", "--queens", "2", "--format", "json", "--no-progress",
                                   "--checkpoint", path])
    event(f"exit {code}")
    assert code in (0, 2, 3) and "Traceback" not in err, (code, err[-2000:])
    if code == 2:
        assert out == "" and "checkpoint" in one_line(err)
        return
    account = json.loads(out)
    found = (account["classes"], account["ksets"],
             account["covered_by_witnesses"] + account["decided_by_search"],
             sorted(tuple(map(tuple, b["queens"])) for b in account["blocked"]))
    if code == 0:       # never a wrong total with exit 0
        assert found == truth and account["finished"] and not account["undecided"]
    else:               # a class the record calls undecided is believed undecided, never counted
        assert account["undecided"] and found[:2] == truth[:2]


@st.composite
def cpsat_parameters(draw):
    """CP-SAT parameters: mostly values of the field's own type at its edges (NaN, infinities, numbers
    beyond 64 bits, negative sizes, unknown enum names), some of any type, some names unknown."""
    from google.protobuf.descriptor import FieldDescriptor
    from ortools.sat.sat_parameters_pb2 import SatParameters

    fields = list(SatParameters.DESCRIPTOR.fields)
    numbers = [f for f in fields if f.cpp_type not in (FieldDescriptor.CPPTYPE_BOOL,
                                                       FieldDescriptor.CPPTYPE_STRING,
                                                       FieldDescriptor.CPPTYPE_MESSAGE)]
    parameters = {}
    for _ in range(draw(st.integers(1, 2))):
        field = draw(st.one_of(st.sampled_from(numbers), st.sampled_from(fields)))
        if draw(st.integers(0, 4)) == 0:
            parameters[draw(st.one_of(st.just(field.name), st.text(max_size=8)))] = draw(_HOSTILE)
            continue
        if field.cpp_type in (FieldDescriptor.CPPTYPE_DOUBLE, FieldDescriptor.CPPTYPE_FLOAT):
            value = draw(st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                                   st.sampled_from([0.0, -1.0, 1e300, 1e-320]), st.integers(-2, 10)))
        elif field.cpp_type == FieldDescriptor.CPPTYPE_BOOL:
            value = draw(st.booleans())
        elif field.cpp_type == FieldDescriptor.CPPTYPE_ENUM:
            value = draw(st.one_of(st.sampled_from([v.name for v in field.enum_type.values]),
                                   st.integers(-2, 12), st.text(max_size=6)))
        elif field.cpp_type == FieldDescriptor.CPPTYPE_STRING:
            value = draw(st.text(max_size=6))
        elif field.cpp_type == FieldDescriptor.CPPTYPE_MESSAGE:
            value = draw(_HOSTILE)
        else:
            value = draw(st.one_of(st.integers(-3, 70), st.integers(-(2**70), 2**70),
                                   st.sampled_from([2**31, 2**63, -(2**63) - 1])))
        parameters[field.name] = [value] if field.is_repeated and draw(st.booleans()) else value
    return parameters


_BACKEND_OPTIONS = {"qs4": ["max_restarts", "tail", "start", "max_failed_swaps"],
                    "minconflicts": ["max_restarts", "tail", "stall_steps"], "backtrack": ["proof"],
                    "sat": ["encoding", "sat_solver", "proof", "hint"], "construct": [],
                    "cpsat": ["model", "workers", "presolve", "symmetry_level", "hint", "search", "log"],
                    "minizinc": ["mzn_solver"], "auto": ["bogus"]}


@st.composite
def hostile_options(draw):
    solver = draw(st.one_of(st.just("cpsat"), st.sampled_from(sorted(_BACKEND_OPTIONS))))
    options = []
    if solver == "cpsat" and draw(st.integers(0, 3)):
        options.append("parameters=" + json.dumps(draw(cpsat_parameters())))
    for name in draw(st.lists(st.sampled_from(_BACKEND_OPTIONS[solver] or ["bogus"]), max_size=2,
                              unique=True)):
        value = draw(st.one_of(_HOSTILE.map(json.dumps), st.text(max_size=6)))
        options.append(f"{name}={value}")
    return solver, options


@given(hostile_options())
@settings(max_examples=160, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_hostile_backend_options_are_answered_or_refused_on_one_line(case):
    from naive import naive_is_solution

    solver, options = case
    argv = ["solve", "8", "--queen", "0,1", "--solver", solver, "--format", "json", "--time-limit", "2"]
    for option in options:
        argv += ["-O", option]
    code, out, err = run_main(argv)
    event(f"exit {code}")
    assert code in (0, 1, 2, 3, 5) and "Traceback" not in err, (code, err[-2000:])
    assert "absl::InitializeLog" not in err and "E0000" not in err, err[-2000:]
    if code == 2:
        assert out == "" and one_line(err).startswith(("nqcsp: error:", "nqcsp solve: error:"))
        return
    (line,) = out.splitlines()          # stdout is the record alone, whatever the backend logged
    record = json.loads(line)
    if record["status"] == "SAT":
        assert naive_is_solution(8, record["columns"], [(0, 1)])


_PROOF_NAMES = st.sampled_from(["", ".", "..", "d", "f", "dl", "sd", "proof.lrat", "proof.drat",
                                "statement.cnf", "certificate.json", "new", "x y", "\x01"])


@given(st.lists(_PROOF_NAMES, max_size=3), st.booleans())
@settings(max_examples=110, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_a_hostile_proof_dir_is_written_or_refused_and_never_writes_elsewhere(parts, trailing_slash):
    import tempfile

    from naive import naive_has_solution

    with tempfile.TemporaryDirectory() as root:
        tree = os.path.join(root, "tree")
        os.makedirs(os.path.join(tree, "d", "proof.drat"))           # a directory where a proof goes
        with open(os.path.join(root, "precious"), "w") as handle:
            handle.write("precious\n")
        with open(os.path.join(tree, "f"), "w") as handle:
            handle.write("a file\n")
        os.symlink(os.path.join(root, "precious"), os.path.join(tree, "d", "proof.lrat"))
        os.symlink(os.path.join(root, "precious"), os.path.join(tree, "proof.lrat"))
        os.symlink(os.path.join(root, "missing"), os.path.join(tree, "dl"))
        os.symlink(os.path.join(tree, "d"), os.path.join(tree, "sd"))
        path = os.path.join(tree, *parts) if parts else ""
        path += "/" if trailing_slash and path else ""
        cwd = os.getcwd()
        os.chdir(tree)
        try:
            code, out, err = run_main(["solve", "8", "--queen", "0,0", "--queen", "1,2", "--solver",
                                       "backtrack", "--proof-dir", path])
        finally:
            os.chdir(cwd)
        event(f"exit {code}")
        with open(os.path.join(root, "precious")) as handle:
            assert handle.read() == "precious\n"
        assert code in (1, 2) and "Traceback" not in err, (code, err)
        if code == 2:
            assert out == "" and "proof " in one_line(err)
            return
        assert "checked by" in out and not naive_has_solution(8, [(0, 0), (1, 2)])
        written = os.path.join(tree, path)
        assert not os.path.islink(os.path.join(written, "proof.lrat"))
        assert not os.path.exists(os.path.join(written, "proof.drat"))
        code, out, err = run_main(["check-proof", os.path.join(written, "statement.cnf"),
                                   os.path.join(written, "proof.lrat")])
        assert code == 0, out + err
