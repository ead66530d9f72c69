"""Self-contained HTML pages of judged results: sortable tables and embedded PNG plots, the style and
the sorting script read from this package's ``static/`` files and inlined, so a page needs nothing from
outside it. Every text from a record is escaped here (``html.escape``): a name is never markup."""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

STATIC = Path(__file__).resolve().parent / "static"


def escape(value: object) -> str:
    return html.escape(str(value))


def table(rows: Sequence[dict[str, Any]], columns: Sequence[tuple[str, str]], caption: str,
          shown: Callable[[str, dict[str, Any]], str]) -> str:
    """A sortable table: one row a dict, ``columns`` (key, title) pairs, ``shown(key, row)`` the text of a
    cell (its raw value sorts)."""
    head = "".join(f"<th>{escape(title)}</th>" for _, title in columns)
    body = "".join("<tr>" + "".join(f'<td data-value="{escape(row[key])}">{escape(shown(key, row))}</td>'
                                    for key, _ in columns) + "</tr>" for row in rows)
    return (f'<table class="sortable"><caption>{escape(caption)}</caption><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table>")


def image(data: bytes, alt: str) -> str:
    return f'<p><img src="data:image/png;base64,{base64.b64encode(data).decode()}" alt="{escape(alt)}"></p>'


def items(lines: Sequence[str]) -> str:
    """A bullet list of plain texts (escaped)."""
    return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"


def page(title: str, parts: Sequence[str]) -> str:
    """One HTML page of already-escaped ``parts``, the style and the sorting script inlined."""
    style = (STATIC / "report.css").read_text()
    script = (STATIC / "report.js").read_text()
    return "\n".join(["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
                      f"<title>{escape(title)}</title>", f"<style>{style}</style></head><body>",
                      f"<h1>{escape(title)}</h1>", *parts, f"<script>{script}</script>",
                      "</body></html>"]) + "\n"
