"""Every optional dependency missing is one exception type from Python (``MissingDependency``) and, from the
command line, one line and exit 2 naming what to install (issue 50). Absence is simulated: a module is
hidden (``sys.modules[name] = None`` makes both its import and ``find_spec`` fail), a program is taken
off PATH."""

from __future__ import annotations

import contextlib
import io
import sys

import pytest

import nqcsp
from nqcsp.cli import main
from nqcsp.runtime.lazy import MissingDependency


def run_main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def hide(monkeypatch: pytest.MonkeyPatch, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)


def count_on_dask() -> None:
    from nqcsp.runtime.parallel import dask_executor

    with dask_executor():
        pass


# (what is missing, how it is taken away, the CLI's command, the same from Python, what the message names)
CASES = [
    pytest.param("pycryptosat",
                 lambda mp: hide(mp, "pycryptosat"),
                 ["solve", "100", "-q", "50,33", "--solver", "sat", "-O", "sat_solver=cryptominisat5"],
                 lambda: nqcsp.solve(100, [(50, 33)], solver="sat", sat_solver="cryptominisat5"),
                 r"'pycryptosat'.*pip install 'nqcsp\[field\]'", id="cryptominisat-field"),
    pytest.param("cpmpy",
                 lambda mp: hide(mp, "cpmpy"),
                 ["solve", "8", "--solver", "cpmpy"],
                 lambda: nqcsp.solve(8, solver="cpmpy"),
                 r"'cpmpy'.*pip install 'nqcsp\[field\]'", id="cpmpy-field"),
    pytest.param("distributed",
                 lambda mp: hide(mp, "distributed"),
                 ["count", "8", "--dask", "--jobs", "1"],
                 count_on_dask,
                 r"pip install 'nqcsp\[dask\]'", id="dask"),
    pytest.param("minizinc",
                 lambda mp: mp.setenv("PATH", ""),
                 ["solve", "8", "--solver", "minizinc"],
                 lambda: nqcsp.solve(8, solver="minizinc"),
                 r"'minizinc' executable on PATH", id="minizinc-binary"),
]


@pytest.mark.parametrize("missing, take_away, argv, from_python, named", CASES)
def test_a_missing_optional_dependency_is_exit_2_naming_what_to_install(monkeypatch, missing, take_away, argv,
                                                                         from_python, named):
    import re

    take_away(monkeypatch)
    with pytest.raises(MissingDependency, match=named):
        from_python()
    code, out, err = run_main(argv)
    # Exit 2, not 4: CryptoMiniSat's was PySAT's AssertionError, reported as a bug with a traceback.
    assert (code, out) == (2, ""), (code, out, err)
    assert err.count("\n") == 1 and err.startswith("nqcsp: error: ") and re.search(named, err), err


def test_minizinc_missing_says_how_to_install_it(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(MissingDependency, match=r"apt-get install minizinc"):
        nqcsp.solve(8, solver="minizinc")


def test_the_native_drat_engine_missing_names_nqcsp_native(monkeypatch, tmp_path):
    import nqcsp.proof.drat

    code, _, err = run_main(["solve", "4", "--queen", "0,0", "--solver", "sat", "--proof-dir", str(tmp_path)])
    assert code == 1 and (tmp_path / "proof.drat").exists(), err
    # cdclkit absent: dratify has no native engine (taken away where nqcsp asks for it).
    monkeypatch.setattr(nqcsp.proof.drat, "native_available", lambda: False)
    code, out, err = run_main(["check-proof", str(tmp_path / "statement.cnf"), str(tmp_path / "proof.drat"),
                               "--engine", "native"])
    assert (code, out) == (2, ""), (code, out, err)
    assert err.count("\n") == 1 and "pip install 'nqcsp[native]'" in err, err
