"""Text from records made safe for a Markdown page: an engine's name, an instance, an error or a note
goes into a table cell or a line as text, never as markup. ``<``, ``>`` and ``&`` become HTML entities
(Markdown passes raw HTML through, so ``<script>`` would run on the site), ``|`` is escaped (it would
end the cell), a backtick too (it would open code), and line breaks become spaces (a row is one line)."""

from __future__ import annotations

import html
import re

_MARKUP = str.maketrans({"|": "\\|", "`": "\\`", "\n": " ", "\r": " ", "*": "\\*", "_": "\\_",
                         "[": "\\[", "]": "\\]"})


def cell(value: object) -> str:
    """``value`` as plain text inside a Markdown table cell or a line."""
    return html.escape(str(value), quote=False).translate(_MARKUP)


def code(value: object) -> str:
    """``value`` as inline code (a code span shows ``<`` as itself, so nothing there is escaped but ``|``,
    which would end a table cell), fenced by more backticks than any run of them inside."""
    text = str(value).replace("\n", " ").replace("\r", " ").replace("|", "\\|")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    padded = f" {text} " if text.startswith("`") or text.endswith("`") else text
    return f"{fence}{padded}{fence}"
