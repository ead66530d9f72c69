"""The architecture on the folder tree: wings by concept, layers kept by contracts, the trusted base stated.

The contracts are import-linter's (``[tool.importlinter]`` in pyproject.toml, run by ``lint-imports`` in
CI); these tests show each one can fail, and check what import-linter cannot see: the modules loaded by
name (``nqcsp.runtime.lazy.load``), and the trusted base's list of files in docs/guaranteed-answers.md.
"""

from __future__ import annotations

import ast
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "nqcsp"
PROOF = PACKAGE / "proof"
# What the trusted base may import from nqcsp: itself, the board and the runtime.
PROOF_MAY_IMPORT = ("nqcsp.proof", "nqcsp.board", "nqcsp.runtime")
LINT = shutil.which("lint-imports") or str(pathlib.Path(sys.executable).parent / "lint-imports")
needs_linter = pytest.mark.skipif(not pathlib.Path(LINT).exists(), reason="import-linter is not installed")


def lint(root: pathlib.Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([LINT, "--config", str(root / "pyproject.toml"), "--no-cache"], cwd=root,
                          capture_output=True, text=True, timeout=300,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"})


def nqcsp_imports(path: pathlib.Path) -> set[str]:
    """Every nqcsp module a file imports: import statements anywhere in it, and names given to
    ``load``/``loaded`` (the lazy imports import-linter cannot see)."""
    tree = ast.parse(path.read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("nqcsp"):
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("nqcsp"))
        elif isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in \
                ("load", "loaded") and node.args and isinstance(node.args[0], ast.Constant):
            found.add(str(node.args[0].value))
    return found


def test_the_top_of_the_package_holds_at_most_six_modules():
    modules = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(modules) <= 6, modules
    wings = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()}
    assert {"board", "proof", "bitboard", "solvers", "studies", "runtime", "cli"} <= wings
    for wing in wings:   # each wing says what it holds and what it may import
        doc = ast.get_docstring(ast.parse((PACKAGE / wing / "__init__.py").read_text()))
        assert doc, wing


def test_the_trusted_base_imports_only_the_board_and_the_runtime():
    for path in sorted(PROOF.glob("*.py")):
        for name in nqcsp_imports(path):
            assert name.startswith(PROOF_MAY_IMPORT) or name == "nqcsp", (path.name, name)


def test_the_docs_name_every_file_of_the_trusted_base_with_its_line_count():
    text = (ROOT / "docs" / "guaranteed-answers.md").read_text()
    section = text[text.index("## The trusted base"):]
    section = section[:section.index("\n## ")] if "\n## " in section else section
    listed = dict(re.findall(r"\| `nqcsp/proof/([\w.]+)` \| (\d+) \|", section))
    actual = {p.name: str(len(p.read_text().splitlines())) for p in PROOF.glob("*.py")}
    assert listed == actual
    total = sum(map(int, actual.values()))
    assert f"{total} lines" in section


def test_lazily_loaded_modules_exist_and_point_down():
    # load("nqcsp.x") is an import import-linter cannot see: every one names a module that exists, and
    # none points up a layer.
    order = ["nqcsp.runtime", "nqcsp.board", "nqcsp.proof", "nqcsp.bitboard", "nqcsp.solvers", "nqcsp.api",
             "nqcsp.studies", "nqcsp.cli"]

    def layer(name: str) -> int:
        return next((i for i, wing in enumerate(order) if name == wing or name.startswith(wing + ".")), -1)

    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for name in nqcsp_imports(path):
            target = ROOT / (name.replace(".", "/") + ".py")
            assert target.exists() or (ROOT / name.replace(".", "/") / "__init__.py").exists(), (module, name)
            if layer(module) >= 0 and layer(name) >= 0:
                assert layer(name) <= layer(module), f"{module} imports {name}, a layer above it"


@needs_linter
def test_the_contracts_hold():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "broken" not in result.stdout.lower().replace("0 broken", "")


@needs_linter
@pytest.mark.parametrize(("module", "line", "contract"), [
    ("proof/lrat.py", "import nqcsp.solvers.cnf", "The trusted base"),
    ("board/problem.py", "import nqcsp.proof.statement", "Layers point down"),
    ("studies/queen_sets.py", "import nqcsp.studies.threshold", "One direction between the studies"),
    ("cli/common.py", "import nqcsp.cli.cmd_solve", "No circle"),
    ("../benchmarks/harness/runner.py", "import benchmarks.judging.truth", "The lab's layers"),
    ("../benchmarks/judging/truth.py", "import benchmarks.suites.field.report", "The lab's layers"),
    ("runtime/values.py", "import benchmarks.harness.records", "The lab's layers"),
])
def test_each_contract_fails_on_a_reversed_import(tmp_path, module, line, contract):
    copy = tmp_path / "repo"
    shutil.copytree(PACKAGE, copy / "nqcsp", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "benchmarks", copy / "benchmarks",
                    ignore=shutil.ignore_patterns("__pycache__", "results"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    target = copy / "nqcsp" / module
    target.write_text(target.read_text() + f"\n\ndef _reversed() -> None:\n    {line}  # noqa\n")
    result = lint(copy)
    assert result.returncode != 0
    broken = [block for block in result.stdout.split("\n\n") if "BROKEN" in block]
    assert any(contract in block for block in broken), result.stdout[-3000:]
