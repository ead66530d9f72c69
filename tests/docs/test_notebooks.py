"""The notebooks run from top to bottom without an error, their pictures and plots appear, the repository
keeps them small and without outputs, and the site shows each of them."""

import json

import pytest
from notebooks import execute, notebooks
from test_site import load_config, nav_pages

BOOKS = notebooks()


def test_there_are_at_least_four_notebooks_each_in_the_site():
    assert len(BOOKS) >= 4
    nav = set(nav_pages(load_config()["nav"]))
    for path in BOOKS:
        assert f"notebooks/{path.name}" in nav, path.name


@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_the_notebook_is_kept_without_outputs(path):
    book = json.loads(path.read_text())
    assert path.stat().st_size < 20_000
    for cell in book["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, cell["source"][:1]


@pytest.mark.slow  # 5 to 30 s each: a kernel, and every cell's work
@pytest.mark.parametrize("path", BOOKS, ids=lambda p: p.stem)
def test_the_notebook_runs_and_shows_its_pictures(path):
    book, _ = execute(path)
    shown = [output for cell in book.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in shown if o.output_type == "error"]
    pictures = [o for o in shown if o.output_type in ("display_data", "execute_result")
                and ({"image/svg+xml", "image/png"} & set(o.data) or "<svg" in o.data.get("text/html", ""))]
    assert pictures, f"{path.name} shows no picture"
