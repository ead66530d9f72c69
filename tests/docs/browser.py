"""The built site in a real browser: ``python tests/docs/browser.py SITE_DIR`` (CI, after ``mkdocs build
--strict``) serves SITE_DIR on a free local port (``http.server``) and opens every page in headless
Chromium (Debian's, driven by Playwright, never a browser Playwright downloads). Each page must load with
no console error, no failed or outside request (the site must not need the network) and no broken image,
and at a 1280 px wide window nothing may overflow the content column: no code block, table or picture
sticking out of it or hiding part of itself behind a horizontal scroll bar. On the getting-started page
the picture of the 8-queens board is screenshot and each square's colour read where nqcsp's verified
solution puts a queen and where it puts none. Exit 0 when all holds, else 1 with one line per problem.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import io
import os
import re
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

CHROMIUM = os.environ.get("NQCSP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
BOARD_PAGE = "getting-started/"
BOARD_IMAGE = "queens-8.svg"
BOARD = (8, [(0, 3)])
WINDOW = {"width": 1280, "height": 900}
# The content column of a Material page (the article beside the navigation), else a plain page's body.
COLUMNS = (".md-content", "body")
# Elements of the column that overflow it, outermost first: one line each (a table, not each of its cells).
OVERFLOW_SCRIPT = """column => {
  const edge = column.getBoundingClientRect().right;
  const found = [];
  const describe = el => {
    const text = (el.textContent || el.getAttribute('src') || '').replace(/\\s+/g, ' ').trim();
    return el.tagName.toLowerCase() + (text ? ' "' + text.slice(0, 50) + '"' : '');
  };
  for (const el of column.querySelectorAll('*')) {
    if (found.some(([outer]) => outer.contains(el))) continue;
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) continue;
    const style = getComputedStyle(el);
    if (style.position === 'fixed' || style.visibility === 'hidden') continue;
    const hidden = el.scrollWidth - el.clientWidth;
    if (box.right > edge + 1) {
      const by = Math.ceil(box.right - edge);
      found.push([el, describe(el) + ' sticks out of the content column by ' + by + ' px']);
    } else if (hidden > 1 && ['auto', 'scroll', 'hidden'].includes(style.overflowX)) {
      found.push([el, describe(el) + ' hides ' + hidden + ' px behind a horizontal scroll']);
    }
  }
  return found.map(([, line]) => line);
}"""
# How far (0-255, per channel) a screenshot's pixel may be from the colour drawn (antialiasing, scaling).
TOLERANCE = 48


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """``directory`` over HTTP on a free port of 127.0.0.1, for as long as the context lasts."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def site_pages(site: Path) -> list[str]:
    """Every page of the built site, as paths relative to its root ("" for the home page)."""
    pages = []
    for index in sorted(site.rglob("index.html")):
        relative = index.parent.relative_to(site).as_posix()
        pages.append("" if relative == "." else relative + "/")
    return pages


def check_site(site: Path, pages: list[str] | None = None, board_page: str | None = BOARD_PAGE) -> list[str]:
    """The problems found opening ``pages`` (default: all) of the built site in Chromium."""
    from playwright.sync_api import sync_playwright

    problems: list[str] = []
    pages = site_pages(site) if pages is None else pages
    if not pages:
        return [f"{site}: no page to open"]
    with serve(site) as root, tempfile.TemporaryDirectory(prefix="nqcsp-chromium-") as profile, \
            sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            profile, executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport=WINDOW, service_workers="block")
        try:
            host = urlsplit(root).netloc

            def local_only(route: object) -> None:
                request = route.request  # type: ignore[attr-defined]
                if urlsplit(request.url).netloc in (host, "") or request.url.startswith("data:"):
                    route.continue_()  # type: ignore[attr-defined]
                else:
                    problems.append(f"a page asked for {request.url}: the site must not need the network")
                    route.abort()  # type: ignore[attr-defined]

            browser.route("**/*", local_only)
            for path in pages:
                problems += check_page(browser, root + path, path or "/")
                if path == board_page:
                    problems += check_board(browser, root + path)
        finally:
            browser.close()
    return problems


def check_page(browser: object, url: str, name: str) -> list[str]:
    problems: list[str] = []
    page = browser.new_page()  # type: ignore[attr-defined]
    page.on("console", lambda message: problems.append(f"{name}: console {message.type}: {message.text}")
            if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(f"{name}: script error: {error}"))
    page.on("requestfailed", lambda request: problems.append(f"{name}: request failed: {request.url}"))
    page.on("response", lambda response: problems.append(f"{name}: HTTP {response.status}: {response.url}")
            if response.status >= 400 else None)
    try:
        response = page.goto(url, wait_until="networkidle")
        if response is None or not response.ok:
            status = response.status if response else "no response"
            problems.append(f"{name}: the page did not load ({status})")
        for image in page.eval_on_selector_all(
                "img", "images => images.map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])"):
            src, complete, width = image
            if not complete or not width:
                problems.append(f"{name}: image {src} is missing or did not render")
        problems += [f"{name}: {line}" for line in overflow(page)]
    finally:
        page.close()
    return problems


def overflow(page: object) -> list[str]:
    """What overflows the content column of the page as it is shown now (``OVERFLOW_SCRIPT``)."""
    for selector in COLUMNS:
        column = page.locator(selector).first  # type: ignore[attr-defined]
        if column.count():
            lines: list[str] = column.evaluate(OVERFLOW_SCRIPT)
            return lines
    return []


def expected_board() -> tuple[int, list[int], set[tuple[int, int]]]:
    """The board the getting-started page draws, from nqcsp itself and verified: n, columns, mandatory."""
    import nqcsp

    n, queens = BOARD
    result = nqcsp.solve(n, queens)
    columns = [int(c) for c in result.columns]
    if not nqcsp.verify(n, columns, queens=queens):
        raise AssertionError("the expected board is not a solution")
    return n, columns, set(queens)


def check_board(browser: object, url: str) -> list[str]:
    """Screenshot the board picture and read each square's colour at its centre."""
    from PIL import Image

    from nqcsp.board.svg import CELL, DARK, FOUND, LIGHT, MANDATORY, MARGIN

    n, columns, mandatory = expected_board()
    page = browser.new_page()  # type: ignore[attr-defined]
    try:
        page.goto(url, wait_until="networkidle")
        image = page.locator(f"img[src$='{BOARD_IMAGE}']").first
        if image.count() == 0:
            return [f"{url}: no picture {BOARD_IMAGE}"]
        image.scroll_into_view_if_needed()
        shot = Image.open(io.BytesIO(image.screenshot())).convert("RGB")
        # Pixels per unit of the picture's own geometry: its viewBox may be wider than the board (a legend).
        svg = image.evaluate("i => fetch(i.src).then(r => r.text())")
    finally:
        page.close()
    view_box = re.search(r'viewBox="0 0 ([\d.]+) ', svg)
    if view_box is None:
        return [f"{BOARD_IMAGE}: no viewBox"]
    scale = shot.width / float(view_box.group(1))
    problems = []
    for row in range(n):
        for col in range(n):
            x = round((MARGIN + (col + 0.5) * CELL) * scale)
            y = round((MARGIN + (row + 0.5) * CELL) * scale)
            if columns[row] == col:
                mandatory_here = (row, col) in mandatory
                want, what = (MANDATORY, "a mandatory queen") if mandatory_here else (FOUND, "a queen")
            else:
                want, what = (LIGHT if (row + col) % 2 == 0 else DARK), "an empty square"
            got = shot.getpixel((x, y))
            if max(abs(a - b) for a, b in zip(got, _rgb(want), strict=True)) > TOLERANCE:
                problems.append(f"{BOARD_IMAGE}: square ({row}, {col}) shows {got}, not {what} ({want})")
    return problems


def _rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: python tests/docs/browser.py SITE_DIR (a site built by mkdocs build)", file=sys.stderr)
        return 2
    site = Path(argv[0])
    pages = site_pages(site)
    problems = check_site(site, pages)
    for problem in problems:
        print(problem)
    print(f"{len(pages)} pages opened in Chromium: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
