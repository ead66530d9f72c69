"""What the wheel carries, read from pyproject.toml (``.ci/smoke-wheel`` installs the built wheel itself)."""

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


def test_import_nqcsp_needs_no_posix_only_module():
    # Windows has no `resource`: it must be imported where it is used, guarded, never at module level.
    for path in (ROOT / "nqcsp").rglob("*.py"):
        assert "\nimport resource\n" not in path.read_text(), path
