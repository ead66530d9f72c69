"""Every reader of outside input holds it to a schema (issue 49, item 1), and every refusal names the file,
the line and the key, with the likely mistake where there is one (issue 50, item 5). Each test fails on the
code before: a queens file without "queens" was read as no queens, and the messages named no file."""

from __future__ import annotations

import json

import pytest
from test_edges import one_line, run_main

from nqcsp import verify
from nqcsp.board.problem import Problem
from nqcsp.runtime.checkpoint import Checkpoint
from nqcsp.runtime.limits import Limits

# --- queens files --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "says"), [
    ('{"queen": [[0, 0], [1, 1]]}', "'queen' is not one of its fields (queens); did you mean 'queens'?"),
    ("{}", "the field 'queens' is missing"),
    ('{"0": 3}', "'0' is not one of its fields (queens)"),
    ('{"queens": [[0, 3]], "n": 8}', "'n' is not one of its fields"),
    ('{"queens": {"0": 3}}', "queens must be a list"),
    ("[[0, 3], [1]]", "queen 1 must be a [row, col] pair of integers, got [1]"),
    ("[[0, 3], [1, true]]", "queen 1 must be a [row, col] pair"),
])
def test_a_queens_file_off_its_schema_is_refused_naming_the_file_and_the_key(tmp_path, text, says):
    # {"queen": ...} (two attacking queens) was answered with a solution of the empty 8 x 8 board: exit 0.
    path = tmp_path / "q.json"
    path.write_text(text)
    code, out, err = run_main(["solve", "8", "--queens-file", str(path)])
    line = one_line(err)
    assert code == 2 and out == "" and f"queens file {str(path)!r}" in line and says in line, line


def test_a_queens_file_on_its_schema_is_read_whole(tmp_path):
    path = tmp_path / "q.json"
    path.write_text('{"queens": [[0, 3], [1, 6]]}')
    code, out, err = run_main(["solve", "8", "--queens-file", str(path), "--format", "json"])
    record = json.loads(out)
    assert code == 0 and record["queens"] == [[0, 3], [1, 6]], err
    assert verify(8, record["columns"], [(0, 3), (1, 6)])
    path.write_text('{"queens": [[0, 0], [1, 1]]}')
    code, out, err = run_main(["solve", "8", "--queens-file", str(path)])
    assert code == 1 and "attack" in out, (code, out, err)


# --- batch lines ---------------------------------------------------------------------------------------


def test_a_batch_line_off_its_schema_is_an_error_record_and_one_line_on_stderr_names_file_line_and_key(
        tmp_path):
    lines = [{"n": 8, "queens": [[0, 3]], "id": "a"}, {"n": 8, "queen": [[0, 0], [1, 1]], "id": "b"}, {},
             {"n": 6, "solver": "qs4", "max_restart": 0}]
    path = tmp_path / "b.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, out, err = run_main(["solve", "--batch", str(path)])
    records = [json.loads(line) for line in out.splitlines()]
    assert code == 2 and [r["line"] for r in records] == [1, 2, 3, 4], (code, out, err)
    assert records[0]["status"] == "SAT" and verify(8, records[0]["columns"], [(0, 3)])
    assert records[1]["id"] == "b" and "'queen' is not one of its fields" in records[1]["error"]
    assert "did you mean 'queens'?" in records[1]["error"]
    assert "the field 'n' is missing" in records[2]["error"]
    # The line's solver's options are its allowed keys: a near miss of one is named.
    assert "'max_restart'" in records[3]["error"] and "did you mean 'max_restarts'?" in records[3]["error"]
    line = one_line(err)
    assert f"batch {str(path)!r} line 2" in line and "'queen'" in line and "3 of 4 lines" in line, line


# --- checkpoints' headers ------------------------------------------------------------------------------


def test_a_checkpoint_header_with_a_field_more_is_refused_naming_the_file_the_line_and_the_key(tmp_path):
    path = tmp_path / "c.jsonl"
    header = {"n": 8, "k": 2}
    Checkpoint(path, header).record("t", {"x": 1})
    first, *rest = path.read_text().splitlines()
    assert Checkpoint(path, header).done["t"]["x"] == 1
    # A field beside the header (read past before) and a header of another run: refused, named.
    path.write_text("\n".join([json.dumps({**json.loads(first), "seed": 3}), *rest]) + "\n")
    with pytest.raises(ValueError, match=r"c\.jsonl' line 1: 'seed' is not one of its fields \(header\)"):
        Checkpoint(path, header)
    path.write_text("\n".join([json.dumps({"heder": header}), *rest]) + "\n")
    with pytest.raises(ValueError, match="'heder' is not one of its fields .*did you mean 'header'"):
        Checkpoint(path, header)
    path.write_text("\n".join([json.dumps({"header": {"n": 8}}), *rest]) + "\n")
    with pytest.raises(ValueError, match="belongs to another run.*it has no field 'k'"):
        Checkpoint(path, header)


def test_a_checkpoint_header_off_its_schema_is_exit_2_from_the_command(tmp_path):
    path = tmp_path / "c.jsonl"
    code, _, err = run_main(["blockades", "6", "--queens", "2", "--jobs", "1", "--no-progress",
                             "--checkpoint", str(path)])
    assert code == 0, err
    first, *rest = path.read_text().splitlines()
    path.write_text("\n".join([json.dumps({**json.loads(first), "note": "mine"}), *rest]) + "\n")
    code, out, err = run_main(["blockades", "6", "--queens", "2", "--jobs", "1", "--no-progress",
                               "--checkpoint", str(path)])
    line = one_line(err)
    assert code == 2 and out == "" and "c.jsonl' line 1" in line and "'note'" in line, line


# --- evidence ------------------------------------------------------------------------------------------


def test_evidence_off_its_schema_is_exit_2_naming_the_file_and_the_key(tmp_path):
    path = tmp_path / "e.json"
    for document, says in [({"n": 10}, "the field 'format' is missing"),
                           ({"format": "nqcsp-threshold"}, "the field 'version' is missing"),
                           ({"format": "nqcsp-threshold", "version": 2}, "the field 'n' is missing")]:
        path.write_text(json.dumps(document))
        code, out, err = run_main(["check-threshold", str(path), "--jobs", "1"])
        line = one_line(err)
        assert code == 2 and out == "" and f"evidence {str(path)!r}" in line and says in line, line


# --- --option values -----------------------------------------------------------------------------------


def test_an_option_value_that_opens_as_json_must_be_json():
    # Taken for the text '{"max_time_in_seconds": 5' before, and refused downstream as "not a dict".
    broken = 'parameters={"max_time_in_seconds": 5'
    code, out, err = run_main(["solve", "8", "--solver", "cpsat", "-O", broken])
    line = one_line(err)
    assert code == 2 and out == "" and "option parameters is not JSON" in line, line


@pytest.mark.parametrize(("option", "says"), [
    ("timelimit=3", "timelimit is not a backend option; did you mean --time-limit?"),
    ("seeds=3", "did you mean --seed?"),
    ("solver=cpsat", "solver is not a backend option; use --solver cpsat"),
])
def test_an_option_that_is_a_flag_names_the_flag(option, says):
    code, out, err = run_main(["solve", "8", "-O", option])
    line = one_line(err)
    assert code == 2 and out == "" and says in line, line


def test_solver_given_as_an_option_points_to_the_sat_solver_option():
    pytest.importorskip("pysat", reason="PySAT (the sat backend) is not installed")
    code, out, err = run_main(["solve", "8", "-O", "solver=glucose"])
    line = one_line(err)
    # Said before: "use --solver", which names no backend glucose.
    assert code == 2 and out == "" and "--solver sat -O sat_solver=glucose4" in line, line


# --- messages that name the mistake --------------------------------------------------------------------


def test_a_bare_queen_on_the_command_line_hints_queen():
    code, out, err = run_main(["solve", "8", "0,3", "1,5"])
    line = one_line(err)
    assert code == 2 and out == "" and "unrecognized arguments: 0,3 1,5" in line
    assert "--queen 0,3 --queen 1,5" in line, line


@pytest.mark.parametrize(("argv", "says"), [
    (["solve", "8", "--time-limt", "3"], "did you mean --time-limit?"),
    (["solv", "8"], "did you mean 'solve'?"),
    (["solve", "8", "--format", "jsn"], "did you mean 'json'?"),
    (["solve", "8", "--solver", "cpsta"], "did you mean 'cpsat'?"),
    (["solve", "8", "--solver", "qs4", "-O", "max_restart=2"], "did you mean 'max_restarts'?"),
    (["solve", "8", "--solver", "cpmpy", "-O", "engine=chocco"], "did you mean 'choco'?"),
])
def test_a_near_miss_of_a_flag_a_command_a_choice_or_a_name_says_did_you_mean(argv, says):
    code, out, err = run_main(argv)
    line = one_line(err)
    assert code == 2 and out == "" and says in line, line


def _proof_files(tmp_path):
    from nqcsp.solvers.backtrack import BacktrackSolver

    details = BacktrackSolver().solve(Problem(6, [(0, 0)]), limits=Limits.unlimited()).certificate.details
    cnf, proof = tmp_path / "statement.cnf", tmp_path / "proof.lrat"
    cnf.write_bytes(details["cnf"])
    proof.write_bytes(bytes(details["proof"]))
    return str(cnf), str(proof)


def test_check_proof_with_its_arguments_swapped_says_so_naming_the_file(tmp_path):
    cnf, proof = _proof_files(tmp_path)
    code, out, err = run_main(["check-proof", cnf, proof])
    assert code == 0 and "valid" in out, (code, out, err)
    code, out, err = run_main(["check-proof", proof, cnf])
    line = one_line(err)
    # Said before: "line 1: byte b'\x96' (offset 1) is not allowed in DIMACS here", no file, no swap.
    assert code == 2 and out == "" and f"CNF {proof!r} is not a DIMACS CNF" in line, line
    assert f"the arguments look swapped: PROOF {cnf!r} is the CNF" in line, line
    garbage = tmp_path / "garbage.cnf"
    garbage.write_text("hello\n")
    code, out, err = run_main(["check-proof", str(garbage), proof])
    line = one_line(err)
    assert code == 2 and f"CNF {str(garbage)!r}" in line and "swapped" not in line, line


def test_verify_names_the_file_it_cannot_read(tmp_path):
    path = tmp_path / "cols.txt"
    path.write_text("0 1 two\n")
    code, out, err = run_main(["verify", str(path)])
    line = one_line(err)
    assert code == 2 and out == "" and f"{str(path)!r}: " in line and "'two'" in line, line
