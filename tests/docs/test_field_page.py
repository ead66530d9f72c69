"""The field page's browser check (``field_page.py``, run by CI on benchmarks/results/field.html) can fail:
on a page that asks the network for a picture and whose table does not sort."""

import importlib.util
import os
import shutil

import pytest
from browser import CHROMIUM
from field_page import check_field_page

pytestmark = pytest.mark.skipif(
    not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM))
    or importlib.util.find_spec("playwright") is None,
    reason="needs Chromium (Debian's chromium package) and the playwright package")


# A page of runs without CPU time titles its column "PAR-2 s", one with it "PAR-2 wall s": the check knew
# only the first, and failed on the published page of the second.
@pytest.mark.parametrize("title", ["PAR-2 s", "PAR-2 wall s"])
def test_a_page_that_needs_the_network_and_does_not_sort_is_reported(tmp_path, title):
    page = tmp_path / "field.html"
    page.write_text(
        "<html><body><img src='http://198.51.100.1/cactus.png'><table class='sortable'><thead><tr>"
        f"<th>engine</th><th>{title}</th></tr></thead><tbody>"
        "<tr><td data-value='a'>a</td><td data-value='1'>1</td></tr>"
        "<tr><td data-value='b'>b</td><td data-value='3'>3</td></tr>"
        "<tr><td data-value='c'>c</td><td data-value='2'>2</td></tr></tbody></table></body></html>")
    problems = check_field_page(page)
    assert any("asked for http://198.51.100.1/cactus.png" in p for p in problems), problems
    assert any("not descending" in p for p in problems) and any("not ascending" in p for p in problems), \
        problems
