"""What the wheel carries, read from pyproject.toml (``.ci/smoke-wheel`` installs the built wheel itself)."""

import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_subpackage_is_listed_and_benchmarks_is_not():
    inits = (ROOT / "nqcsp").rglob("__init__.py")
    on_disk = {".".join(init.parent.relative_to(ROOT).parts) for init in inits}
    listed = set(SETUPTOOLS["packages"])
    assert listed - {"nqcsp.models"} == on_disk
    assert not any(name.split(".")[0] == "benchmarks" for name in listed)


def test_the_minizinc_model_ships_from_its_one_source():
    assert SETUPTOOLS["package-dir"]["nqcsp.models"] == "models"
    assert "*.mzn" in SETUPTOOLS["package-data"]["nqcsp.models"]
    assert (ROOT / "models" / "nqueens.mzn").is_file()
    assert "py.typed" in SETUPTOOLS["package-data"]["nqcsp"] and (ROOT / "nqcsp" / "py.typed").is_file()


def test_no_exact_pins_on_dependencies():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    requirements = project["dependencies"] + [r for extra in project["optional-dependencies"].values()
                                              for r in extra]
    assert not [r for r in requirements if "==" in r]


def test_import_nqcsp_and_a_solve_need_no_posix_only_module():
    # Windows has no `resource`: blocked here, nqcsp must still import, size its memory budget and solve.
    script = ("import sys; sys.modules['resource'] = None\n"
              "import nqcsp\n"
              "r = nqcsp.solve(8, [(0, 3)])\n"
              "assert r.status is nqcsp.Status.SAT and nqcsp.verify(8, r.columns, [(0, 3)])\n"
              "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120,
                         cwd=ROOT)
    assert out.returncode == 0 and out.stdout == "ok\n", out.stderr[-2000:]


def test_publish_writes_only_into_a_checkout(tmp_path, monkeypatch, capsys):
    import benchmarks.cli

    installed = tmp_path / "site-packages" / "benchmarks" / "results"
    monkeypatch.setattr(benchmarks.cli, "PUBLISHED_DIR", installed)
    assert benchmarks.cli.main(["run", "tiny", "--publish", "--no-progress"]) == 2
    assert "not in one" in capsys.readouterr().err and not installed.exists()
