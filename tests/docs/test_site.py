"""The site's structure against the code: every page in the nav, every public name in the API reference,
the generated blocks current, the README a short landing page whose every link resolves, and the build
itself strict (a broken link or a missing reference fails it)."""

import dataclasses
import importlib
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from examples import blocks

import nqcsp
from nqcsp.cli import build_parser

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def load_hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_config():
    """mkdocs.yml, its ``!ENV [NAME, default]`` values read as their defaults."""

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!ENV", lambda loader, node: loader.construct_sequence(node)[-1])
    return yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=Loader)


def nav_pages(entries):
    for entry in entries:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        if isinstance(value, list):
            yield from nav_pages(value)
        else:
            yield value


def test_every_page_is_in_the_nav_and_every_nav_entry_exists():
    config = load_config()
    nav = list(nav_pages(config["nav"]))
    hooks = load_hooks()
    borrowed = set(hooks.BORROWED_PAGES.values())
    pages = [p.relative_to(DOCS).as_posix() for p in (*DOCS.glob("*.md"), *DOCS.glob("notebooks/*.ipynb"))]
    assert sorted(pages) == sorted(set(nav) - borrowed)
    assert borrowed <= set(nav)
    assert len(nav) == len(set(nav))
    for task in ("getting-started.md", "guaranteed-answers.md", "backends.md", "blockades.md",
                 "comparison.md", "contract.md", "dask.md", "cli.md", "api.md"):
        assert task in nav, task
    assert config["theme"]["font"] is False       # nothing fetched from outside when the site is read


def test_the_api_reference_covers_every_public_name():
    text = (DOCS / "api.md").read_text()
    documented = set(re.findall(r"^::: ([\w.]+)$", text, flags=re.M))
    for name in nqcsp.__all__:
        home = nqcsp._HOMES[name]
        assert f"{home}.{name}" in documented, name
        assert getattr(importlib.import_module(home), name) is getattr(nqcsp, name)


def test_the_generated_blocks_are_what_the_code_generates():
    hooks = load_hooks()
    for page in sorted(DOCS.glob("*.md")):
        text = page.read_text()
        assert hooks.regenerate(text) == text, f"{page.name} is stale: run python docs/hooks.py"
    assert "<!-- generated: cli -->" in (DOCS / "cli.md").read_text()
    assert "<!-- generated: backends -->" in (DOCS / "backends.md").read_text()


def test_the_generated_blocks_can_go_stale_and_are_refused_by_name(tmp_path):
    hooks = load_hooks()
    stale = "<!-- generated: backends -->\n| old |\n<!-- end generated -->"
    assert hooks.regenerate(stale) != stale
    with pytest.raises(ValueError, match="unknown generated block 'nope'"):
        hooks.regenerate("<!-- generated: nope -->\n<!-- end generated -->")


def test_the_backend_table_follows_the_registry():
    text = (DOCS / "backends.md").read_text()
    table = text.split("<!-- generated: backends -->", 1)[1].split("<!-- end generated -->", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`([a-z0-9]+)`", cells[0])
        if match:
            rows[match.group(1)] = cells
    infos = {info.name: info for info in nqcsp.available_solvers()}
    assert set(rows) == set(infos)
    for name, cells in rows.items():
        assert cells[1] == ("yes" if infos[name].complete else "no"), name
        assert f"### `{name}`" in text, f"backends.md has no section on {name}"
        for option in infos[name].options:
            assert f"| `{name}` | `{option}` |" in text, f"option {option} of {name} is not documented"


def test_the_cli_reference_has_every_command():
    choices = build_parser()._subparsers._group_actions[0].choices
    text = (DOCS / "cli.md").read_text()
    for name in choices:
        assert f"### `nqcsp {name}`" in text, name


def test_the_readme_is_a_short_landing_page_that_starts_with_the_two_commands():
    lines = README.splitlines()
    assert len(lines) <= 150
    assert lines[0] == "```" and lines[3] == "```"
    assert lines[1] == "pip install -e . && nqcsp solve 8 --queen 0,3"
    assert lines[2] == "pip install -e '.[dev]' && python -m pytest -q"
    assert "benchmarks/results/big-time-vs-n.png" in README          # the headline comparison figure
    for page in ("getting-started", "guaranteed-answers", "backends", "blockades", "comparison", "contract",
                 "dask", "cli", "api"):
        assert f"(docs/{page}.md)" in README, page


def test_nothing_is_shown_only_in_the_readme():
    docs = "\n".join(p.read_text() for p in DOCS.glob("*.md"))
    for block in blocks(ROOT / "README.md"):
        for line in block.body.splitlines():
            if line.startswith(("$ ", ">>> ")):
                assert line in docs, f"README.md:{block.line} shows {line!r}, which no page of docs/ does"


@pytest.mark.parametrize("page", [ROOT / "README.md", *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_every_relative_link_resolves_in_the_repository(page):
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.split("#", 1)[0]).resolve()
        assert path.exists(), f"{page.name} links to {target}, which does not exist"


@pytest.mark.skipif(shutil.which("mkdocs") is None and importlib.util.find_spec("mkdocs") is None,
                    reason="mkdocs is not installed (pip install -e '.[docs]')")
def test_the_site_builds_strict(tmp_path):
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          # The notebooks run in test_notebooks.py, and again in CI's own build of the site.
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1", "NQCSP_EXECUTE_NOTEBOOKS": "false"})
    assert done.returncode == 0, done.stderr[-3000:]
    site = tmp_path / "site"
    assert (site / "getting-started" / "index.html").exists()
    assert (site / "img" / "queens-8.svg").read_bytes() == (DOCS / "img" / "queens-8.svg").read_bytes()
    assert (site / "results" / "big-time-vs-n.png").exists()
    # The field's report page ships with the site as it is, linked from the comparison page.
    field = ROOT / "benchmarks" / "results" / "field.html"
    assert (site / "results" / "field.html").read_bytes() == field.read_bytes()
    assert 'href="../results/field.html"' in (site / "comparison" / "index.html").read_text()
    api = (site / "api" / "index.html").read_text()
    for name in nqcsp.__all__:
        assert f'id="{nqcsp._HOMES[name]}.{name}"' in api, name
    pages = [p for p in site.rglob("*.html")]
    assert not [p for p in pages if "fonts.googleapis" in p.read_text()]
    inventory = inventory_names(site / "objects.inv")
    assert not missing_from_inventory(inventory), missing_from_inventory(inventory)


# Every type a public call returns or raises, beside the public names themselves.
RETURNED_OR_RAISED = ("nqcsp.board.problem.Queens", "nqcsp.studies.threshold.Threshold",
                      "nqcsp.studies.threshold.Level", "nqcsp.studies.threshold.UndecidedError",
                      "nqcsp.studies.evidence.CheckReport", "nqcsp.studies.evidence.Evidence",
                      "nqcsp.proof.verifier.VerificationTimeout", "nqcsp.runtime.lazy.MissingDependency")


def inventory_names(path):
    """The object names of a Sphinx inventory (``objects.inv``, which mkdocstrings writes): four lines of
    header, then zlib-compressed lines ``name domain:role priority uri display``."""
    import zlib

    header, _, packed = path.read_bytes().partition(b"compressed using zlib.\n")
    assert header.startswith(b"# Sphinx inventory version 2"), header[:40]
    return {line.split(" ", 1)[0] for line in zlib.decompress(packed).decode().splitlines()}


def missing_from_inventory(inventory):
    """The public names, the members of Status and Result (and SolverInfo, Certificate) and the returned
    or raised types that the inventory lacks."""
    wanted = {f"{nqcsp._HOMES[name]}.{name}" for name in nqcsp.__all__} | set(RETURNED_OR_RAISED)
    wanted |= {f"nqcsp.board.result.Status.{member.name}" for member in nqcsp.Status}
    for cls, home in ((nqcsp.Result, "nqcsp.board.result"), (nqcsp.Certificate, "nqcsp.board.result"),
                      (nqcsp.SolverInfo, "nqcsp.solvers")):
        wanted |= {f"{home}.{cls.__name__}.{field.name}" for field in dataclasses.fields(cls)}
    return sorted(wanted - inventory)


def test_the_inventory_check_finds_what_is_missing(tmp_path):
    import zlib

    names = [f"{nqcsp._HOMES[name]}.{name}" for name in nqcsp.__all__ if name != "count"]
    body = "".join(f"{name} py:class 1 api/#$ -\n" for name in names).encode()
    (tmp_path / "objects.inv").write_bytes(b"# Sphinx inventory version 2\n# Project: x\n# Version: 0\n"
                                           b"# The remainder of this file is compressed using zlib.\n"
                                           + zlib.compress(body))
    missing = missing_from_inventory(inventory_names(tmp_path / "objects.inv"))
    assert "nqcsp.bitboard.count" in missing and "nqcsp.board.result.Status.SAT" in missing
    assert "nqcsp.board.result.Result.columns" in missing and "nqcsp.studies.threshold.Threshold" in missing
    assert "nqcsp.solve" not in missing
