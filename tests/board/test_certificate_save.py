"""``Certificate.save(directory)``: the certificate's files from Python, the same files ``nqcsp solve
--proof-dir`` writes (one writer), which ``nqcsp check-proof`` re-checks (issue 50)."""

import contextlib
import hashlib
import io
import json

import nqcsp
from nqcsp.cli import main


def run_main(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def test_a_proof_is_saved_with_its_statement_and_checks_again(tmp_path):
    result = nqcsp.solve(6, [(0, 0)])
    assert result.status is nqcsp.Status.UNSAT and result.certificate.checked
    written = result.certificate.save(tmp_path / "mine")
    assert sorted(path.name for path in written) == ["certificate.json", "proof.lrat", "statement.cnf"]
    folder = tmp_path / "mine"
    document = json.loads((folder / "certificate.json").read_text())
    assert document["kind"] == "lrat" and document["checked_by"] == ["nqcsp-lrat"]
    for name in ("statement.cnf", "proof.lrat"):
        data = (folder / name).read_bytes()
        assert document["files"][name] == {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    code, out, err = run_main(["check-proof", str(folder / "statement.cnf"), str(folder / "proof.lrat")])
    assert code == 0, (out, err)
    # The CLI's --proof-dir writes the same files: the evidence byte for byte, the JSON naming it alike
    # (its details hold the search's timings, which differ from run to run).
    code, _, err = run_main(["solve", "6", "--queen", "0,0", "--proof-dir", str(tmp_path / "cli")])
    assert code == 1, err
    assert sorted(path.name for path in (tmp_path / "cli").iterdir()) == sorted(path.name for path in written)
    for name in ("statement.cnf", "proof.lrat"):
        assert (tmp_path / "cli" / name).read_bytes() == (folder / name).read_bytes(), name
    theirs = json.loads((tmp_path / "cli" / "certificate.json").read_text())
    assert (theirs["kind"], theirs["files"]) == (document["kind"], document["files"])


def test_a_certificate_without_a_proof_writes_its_json_and_removes_an_earlier_proof(tmp_path):
    nqcsp.solve(6, [(0, 0)]).certificate.save(tmp_path)
    attack = nqcsp.solve(8, [(0, 0), (1, 1)]).certificate
    assert [path.name for path in attack.save(tmp_path)] == ["certificate.json"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["certificate.json"]
    assert json.loads((tmp_path / "certificate.json").read_text())["kind"] == "attack"
