"""The field's page in a real browser: ``python tests/docs/field_page.py [PAGE]`` (CI; default
benchmarks/results/field.html) serves the page's folder on a local port and opens it in headless Chromium,
as tests/docs/browser.py opens the site: it must load with no console error, no request outside the page
itself (it is self-contained: its pictures are inside it) and no broken image; then the first table is
sorted by clicking its PAR-2 title, and the rows must come in that order. Exit 0 when all holds, else 1
with one line per problem.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from browser import CHROMIUM, CHROMIUM_ARGS, check_page, serve

DEFAULT = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "field.html"
# The PAR-2 title: "PAR-2 wall s" where the runs measured CPU time too (then beside "PAR-2 CPU s"), else
# "PAR-2 s".
SORT_COLUMNS = ("PAR-2 wall s", "PAR-2 s")


def check_field_page(path: Path) -> list[str]:
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    with serve(path.parent) as root, tempfile.TemporaryDirectory(prefix="nqcsp-chromium-") as profile, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900}, service_workers="block")
        try:
            def own_only(route: object) -> None:
                request = route.request  # type: ignore[attr-defined]
                if request.url.startswith(root + path.name) or request.url.startswith("data:"):
                    route.continue_()  # type: ignore[attr-defined]
                else:
                    problems.append(f"the page asked for {request.url}: it must hold all it shows")
                    route.abort()  # type: ignore[attr-defined]

            browser.route("**/*", own_only)
            problems += check_page(browser, root + path.name, path.name)
            problems += check_sorting(browser, root + path.name)
        finally:
            browser.close()
    return problems


def check_sorting(browser: object, url: str) -> list[str]:
    page = browser.new_page()  # type: ignore[attr-defined]
    try:
        page.goto(url, wait_until="networkidle")
        table = page.locator("table.sortable").first
        titles = table.locator("th").all_inner_texts()
        present = [title for title in SORT_COLUMNS if title in titles]
        if not present:
            return [f"{url}: the first table has no column {' or '.join(map(repr, SORT_COLUMNS))} ({titles})"]
        sort_column = present[0]
        column = titles.index(sort_column)
        problems = []
        for click, order in ((1, "descending"), (2, "ascending")):
            table.locator("th").nth(column).click()
            values = [float(v) for v in table.locator(f"tbody tr td:nth-child({column + 1})").evaluate_all(
                "cells => cells.map(c => c.getAttribute('data-value'))")]
            wanted = sorted(values, reverse=order == "descending")
            if values != wanted or len(values) < 2:
                problems.append(f"{url}: after {click} click(s) on {sort_column!r} the rows are "
                                f"{values}, not {order}")
        return problems
    finally:
        page.close()


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else DEFAULT
    if len(argv) > 1 or not path.is_file():
        print("usage: python tests/docs/field_page.py [PAGE] (default benchmarks/results/field.html)",
              file=sys.stderr)
        return 2
    problems = check_field_page(path.resolve())
    for problem in problems:
        print(problem)
    print(f"{path.name} opened in Chromium: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
