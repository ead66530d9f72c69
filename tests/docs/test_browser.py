"""The browser check (``browser.py``, run on the built site by CI) can fail: on a page with a broken image,
a console error and a request to the outside, and on a board picture whose queens stand elsewhere."""

import importlib.util
import os
import shutil

import pytest
from browser import CHROMIUM, check_site

import nqcsp

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM))
    or importlib.util.find_spec("playwright") is None,
    reason="needs Chromium (Debian's chromium package) and the playwright package")


def test_a_broken_page_is_reported(tmp_path):
    (tmp_path / "index.html").write_text(
        "<html><body><img src='missing.png'><img src='http://198.51.100.1/x.png'>"
        "<script>console.error('boom')</script></body></html>")
    problems = check_site(tmp_path, [""], board_page=None)
    assert any("image missing.png is missing" in p for p in problems), problems
    assert any("console error: boom" in p for p in problems), problems
    assert any("asked for http://198.51.100.1/x.png" in p for p in problems), problems


@pytest.mark.slow
def test_the_board_picture_is_read_square_by_square(tmp_path):
    page = tmp_path / "getting-started"
    page.mkdir()
    (page / "index.html").write_text("<html><body><img src='queens-8.svg'></body></html>")
    right = nqcsp.solve(8, [(0, 3)])
    assert nqcsp.verify(8, right.columns, queens=[(0, 3)])
    (page / "queens-8.svg").write_text(right.to_svg())
    assert check_site(tmp_path, ["getting-started/"]) == []
    wrong = nqcsp.solve(8, [(0, 2)])                   # another solution: its queens stand elsewhere
    assert nqcsp.verify(8, wrong.columns, queens=[(0, 2)])
    (page / "queens-8.svg").write_text(wrong.to_svg())
    problems = check_site(tmp_path, ["getting-started/"])
    assert any("square (0, 3)" in p and "mandatory queen" in p for p in problems), problems
    assert any("square (0, 2)" in p and "empty square" in p for p in problems), problems


def test_overflow_of_the_content_column_is_reported(tmp_path):
    long_line = "x" * 400
    (tmp_path / "index.html").write_text(
        "<html><body><nav style='float:left;width:200px'>menu</nav>"
        "<div class='md-content' style='margin-left:220px;width:700px'>"
        f"<pre style='overflow:auto'><code>{long_line}</code></pre>"
        "<table><tr>" + "<td>column&nbsp;of&nbsp;a&nbsp;wide&nbsp;table</td>" * 12 + "</tr></table>"
        "<p>fits</p></div></body></html>")
    problems = check_site(tmp_path, [""], board_page=None)
    assert any('pre "xxxxx' in p and "behind a horizontal scroll" in p for p in problems), problems
    assert any('table "column of a wide table' in p and "sticks out of the content column" in p
               for p in problems), problems
    assert len(problems) == 2, problems                 # the table once, not each of its cells
    (tmp_path / "index.html").write_text(
        "<html><body><div class='md-content' style='width:700px'>"
        f"<pre style='white-space:pre-wrap;overflow-wrap:anywhere'><code>{long_line}</code></pre>"
        "<table><tr><td>narrow</td></tr></table></div></body></html>")
    assert check_site(tmp_path, [""], board_page=None) == []
