"""The site's generated parts and the files it borrows from the repository (MkDocs hooks, ``mkdocs.yml``).

- **Generated text.** Between ``<!-- generated: NAME -->`` and ``<!-- end generated -->`` a page holds
  text made from the code, never written by hand: ``backends`` and ``backend-options`` (the registry,
  ``nqcsp.solvers``), ``cli`` (the reference, from ``nqcsp.cli.build_parser()``). The build makes it again,
  so the site always matches the code; ``tests/docs/test_site.py`` checks that the copy in the repository
  matches too (it is readable on a forge), and ``python docs/hooks.py`` rewrites it.
- **Borrowed files.** Links out of ``docs/`` that the repository resolves (``../CHANGELOG.md``,
  ``../CONTRIBUTING.md``, ``../models/README.md``, ``../benchmarks/results/FILE``) point at the site's
  copy: the three Markdown files become pages of the site, the benchmark plots and the field's report
  (field.html, field.md) are copied beside it.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- end generated -->)", re.S)
# Repository files the pages link to, and the page of the site that carries each.
BORROWED_PAGES = {"CHANGELOG.md": "changelog.md", "CONTRIBUTING.md": "contributing.md",
                  "models/README.md": "models.md"}
RESULTS = "benchmarks/results/"
HELP_WIDTH = 80


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def backends() -> str:
    """The registry's table: one row per backend, every fact from its ``BackendSpec``."""
    from nqcsp.solvers import specs

    lines = ["| name | complete | needs | largest residual board | what it is |",
             "| --- | --- | --- | --- | --- |"]
    for spec in specs():
        needs = ", ".join(f"the `{r[4:]}` program" if r.startswith("bin:") else f"`{r}`"
                          for r in spec.requires)
        largest = "any" if spec.max_free is None else f"{spec.max_free} free lines"
        lines.append(f"| `{spec.name}` | {'yes' if spec.complete else 'no'} | {needs} | {largest} | "
                     f"{_cell(spec.description)} |")
    return "\n".join(lines) + "\n"


def backend_options() -> str:
    """Every backend option with its default and what it sets, from the registry."""
    from nqcsp.solvers import specs

    lines = ["| backend | option | default | values | what it sets |", "| --- | --- | --- | --- | --- |"]
    for spec in specs():
        for option in spec.options:
            if option.kind == "choice":
                values = ", ".join(f"`{choice!r}`" for choice in option.choices)
            elif option.kind == "int":
                values = (f"integer {option.low:g} .. {option.high:g}" if option.high is not None
                          else "integer")
            elif option.kind == "bool":
                values = "`True`, `False`"
            else:
                values = "checked by the backend"
            lines.append(f"| `{spec.name}` | `{option.name}` | `{option.default!r}` | {values} | "
                         f"{_cell(option.doc)} |")
    return "\n".join(lines) + "\n"


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    """argparse wraps help at $COLUMNS: fixed here, so the reference is the same on every terminal."""
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if old is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = old


def cli() -> str:
    """The CLI reference: ``nqcsp --help`` and each subcommand's ``--help``, as argparse prints them."""
    from nqcsp.cli import build_parser

    with _columns(HELP_WIDTH):
        parser = build_parser()
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        parts = ["```text", parser.format_help().rstrip(), "```", ""]
        for name, command in sub.choices.items():
            parts += [f"### `nqcsp {name}`", "", "```text", command.format_help().rstrip(), "```", ""]
    return "\n".join(parts)


GENERATORS: dict[str, Callable[[], str]] = {"backends": backends, "backend-options": backend_options,
                                            "cli": cli}


def regenerate(text: str) -> str:
    """``text`` with every generated block made again from the code (an unknown name is an error)."""

    def fill(match: re.Match[str]) -> str:
        name = match.group("name")
        if name not in GENERATORS:
            raise ValueError(f"unknown generated block {name!r}; known: {', '.join(GENERATORS)}")
        return match.group(1) + GENERATORS[name]() + match.group(4)

    return BLOCK.sub(fill, text)


def site_links(markdown: str) -> str:
    """Links out of docs/ that the repository resolves, pointed at the site's copies."""
    for source, page in BORROWED_PAGES.items():
        markdown = markdown.replace(f"](../{source}", f"]({page}")
    return markdown.replace(f"](../{RESULTS}", "](results/")


# ---------------------------------------------------------------- MkDocs events


def on_files(files: Any, config: Any) -> Any:
    from mkdocs.structure.files import File

    for source, page in BORROWED_PAGES.items():
        text = site_links((ROOT / source).read_text(encoding="utf-8"))
        files.append(File.generated(config, page, content=text))
    for plot in sorted((ROOT / RESULTS).glob("*.png")):
        files.append(File.generated(config, f"results/{plot.name}", abs_src_path=str(plot)))
    # The field's report: its page (self-contained, plots inside) and its Markdown, read as they are.
    for report in ("field.html", "field.md"):
        text = (ROOT / RESULTS / report).read_text(encoding="utf-8")
        files.append(File.generated(config, f"results/{report}", content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return site_links(regenerate(markdown))


def main() -> int:
    """Rewrite the generated blocks of every page in docs/ from the code."""
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        new = regenerate(text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print(f"rewrote {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
