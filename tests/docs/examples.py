"""The runner of the site's examples: every code block of README.md and docs/*.md that shows Python or a
shell command is executed, so the pages cannot drift from the code.

A block's language says what it is:

- ``pycon``: a doctest (``>>>`` lines and their output; ``...`` stands for any text, white space is
  normalised);
- ``python``: run as it is; its assertions are its output;
- ``console``: ``$ `` lines are commands, run by bash, each followed by the output it must print (stdout and
  stderr as a terminal shows them; ``...`` stands for any text). Every command must exit 0: a page that
  shows another exit code says so in the shell (``; echo "exit $?"``);
- ``bash`` (or ``sh``): commands without output, run by ``bash -e``;
- ``text``, ``json``, ``toml``, ... : data, not run (``DATA``).

The blocks of one page run in order in one temporary directory and one Python namespace, as a reader
following the page would run them. A picture the page shows as ``img/NAME`` must be made by the page's
own commands, byte for byte the copy in docs/img/.

A block that cannot run here (a cluster of machines, an outside binary, hours of benchmarks, the install
itself) says so on the line before it: ``<!-- not run: REASON -->``. It is still checked: each ``nqcsp``
and ``python -m benchmarks`` command in it (but those built by shell expansions) must parse with the real
parser, and Python must compile.
"""

from __future__ import annotations

import doctest
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
IMAGES = DOCS / "img"

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>```+)(?P<info>[^\n`]*)\n(?P<body>.*?)"
                   r"^(?P=indent)(?P=fence)[ \t]*$", re.M | re.S)
NOT_RUN = re.compile(r"<!-- not run: (?P<reason>[^>]+?) -->[ \t]*\n\Z")
IMAGE = re.compile(r"\]\((?:docs/)?img/(?P<name>[^)\s]+)\)")
PYCON, PYTHON, CONSOLE, SHELL = "pycon", "python", "console", "bash"
KINDS = {"pycon": PYCON, "python": PYTHON, "py": PYTHON, "console": CONSOLE, "bash": SHELL, "sh": SHELL}
DATA = {"text", "json", "jsonl", "toml", "yaml", "ini", "svg", "xml", "dimacs", "csv"}
# README's first block is the two set-up commands, bare as the README's first lines must be; .ci/run runs
# them itself.
SETUP_REASON = "the two set-up commands: .ci/run installs the package and runs the tests itself"
COMMAND_TIMEOUT_S = 600


@dataclass
class Block:
    page: str
    line: int
    language: str
    body: str
    not_run: str | None = None

    @property
    def kind(self) -> str | None:
        return KINDS.get(self.language)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


# The repository's Markdown files the site carries as pages of its own (docs/hooks.py, BORROWED_PAGES).
BORROWED = ("CHANGELOG.md", "CONTRIBUTING.md", "models/README.md")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md")), *(ROOT / name for name in BORROWED)]


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of a page, each with its language and whether it is marked not run."""
    text = path.read_text(encoding="utf-8")
    page = str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name
    found = []
    for match in FENCE.finditer(text):
        indent = match.group("indent")
        body = "".join(line[len(indent):] if line.startswith(indent) else line
                       for line in match.group("body").splitlines(keepends=True))
        language = match.group("info").strip().split()[0] if match.group("info").strip() else ""
        line = text.count("\n", 0, match.start()) + 1
        marked = NOT_RUN.search(text[:match.start()].rstrip(" \t") or "\n")
        block = Block(page, line, language, body, marked.group("reason") if marked else None)
        if page == "README.md" and line == 1 and not language:
            block.language, block.not_run = "bash", SETUP_REASON
        found.append(block)
    return found


def check_classified(block: Block) -> None:
    if block.kind is None and block.language not in DATA:
        raise AssertionError(f"{block.where}: a code block in {block.language or 'no language'}: name it "
                             f"({', '.join(sorted(KINDS))} run; {', '.join(sorted(DATA))} are data)")


# ---------------------------------------------------------------- shell


def environment() -> dict[str, str]:
    """The environment the commands run in: this Python's scripts first on PATH (``nqcsp``), the checkout
    on PYTHONPATH (``python -m benchmarks``), output unbuffered (stdout and stderr in the order written)."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env["PYTHONUNBUFFERED"] = "1"
    env["COLUMNS"] = "100"
    return env


def console_steps(body: str) -> list[tuple[str, str]]:
    """``(command, expected output)`` pairs of a console block (a trailing backslash continues a command on
    the next line, after the continuation prompt ``> ``)."""
    steps: list[tuple[str, list[str]]] = []
    lines = body.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command += "\n" + lines[i].removeprefix("> ")      # the shell's continuation prompt
            steps.append((command, []))
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise AssertionError(f"output before the first command: {line!r}")
        i += 1
    return [(command, "\n".join(out)) for command, out in steps]


def run_console(block: Block, workdir: Path) -> None:
    checker = doctest.OutputChecker()
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    steps = console_steps(block.body)
    if not steps:
        raise AssertionError(f"{block.where}: a console block without a `$ ` command")
    for command, want in steps:
        done = subprocess.run(["bash", "-c", command], cwd=workdir, env=environment(),
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              text=True, timeout=COMMAND_TIMEOUT_S)
        got = done.stdout
        if done.returncode != 0:
            raise AssertionError(f"{block.where}: `{command}` exited {done.returncode}:\n{got}")
        expected = want + "\n" if want else ""
        if not checker.check_output(expected, got, flags):
            raise AssertionError(f"{block.where}: `{command}` printed\n{got}\ninstead of\n{expected}")


def run_shell(block: Block, workdir: Path) -> None:
    program = block.body.split()[0] if block.body.split() else ""
    if program not in ("nqcsp", "python", "cd", "echo") and shutil.which(program) is None:
        import pytest

        pytest.skip(f"{block.where} runs {program}, which is not installed here")
    done = subprocess.run(["bash", "-e", "-c", block.body], cwd=workdir, env=environment(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=COMMAND_TIMEOUT_S)
    if done.returncode != 0:
        raise AssertionError(f"{block.where}: exited {done.returncode}:\n{done.stdout}{done.stderr}")


# ---------------------------------------------------------------- Python


def run_pycon(block: Block, namespace: dict[str, object]) -> None:
    test = doctest.DocTestParser().get_doctest(block.body, namespace, block.where, block.page, block.line - 1)
    if not test.examples:
        raise AssertionError(f"{block.where}: a pycon block without a `>>>` line")
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    result = runner.run(test, out=report.write, clear_globs=False)
    namespace.update(test.globs)      # DocTest runs on a copy: the page's next blocks see its names
    if result.failed:
        raise AssertionError(report.getvalue())


def run_python(block: Block, namespace: dict[str, object]) -> None:
    exec(compile(block.body, block.where, "exec"), namespace)


# ---------------------------------------------------------------- blocks marked not run


def commands(body: str) -> list[list[str]]:
    """The simple commands of shell text: `$ ` prompts and comments dropped, split at ; && || |."""
    text = "\n".join(line[2:] if line.startswith("$ ") else line for line in body.splitlines()
                     if line.startswith("$ ") or not line.startswith(("#",)))
    out = []
    for line in text.replace("\\\n", " ").splitlines():
        for part in re.split(r"&&|\|\||;|\|", line.split(" #", 1)[0]):
            words = shlex.split(part, comments=True)
            if words:
                out.append(words)
    return out


def check_unrun(block: Block) -> int:
    """Parse every nqcsp and benchmarks command of a block marked not run; compile its Python. Returns
    how many commands or programs were checked."""
    from benchmarks.cli import parser as benchmarks_parser
    from nqcsp.cli import build_parser

    checked = 0
    if block.kind in (SHELL, CONSOLE):
        for words in commands(block.body if block.kind == SHELL else
                              "\n".join(line for line in block.body.splitlines() if line.startswith("$ "))):
            if any("$" in word for word in words):
                continue              # a shell expansion: known only when it runs
            if words[0] == "nqcsp":
                parser, args = build_parser(), words[1:]
            elif words[:3] == ["python", "-m", "benchmarks"] and words[3:4] in (["run"], ["analyze"],
                                                                                   ["list"]):
                parser, args = benchmarks_parser(), words[3:]
            else:
                continue
            try:
                parser.parse_args(args)
            except SystemExit as exc:
                raise AssertionError(f"{block.where}: `{' '.join(words)}` does not parse") from exc
            checked += 1
    elif block.kind == PYTHON:
        compile(block.body, block.where, "exec")
        checked += 1
    return checked


# ---------------------------------------------------------------- a page


def run_page(path: Path, workdir: Path) -> dict[str, int]:
    """Run every block of the page in ``workdir``; return counts of blocks run, not run, data."""
    counts = {"run": 0, "not run": 0, "data": 0}
    namespace: dict[str, object] = {"__name__": "__main__"}
    here = os.getcwd()
    if not (workdir / "models").exists():
        (workdir / "models").symlink_to(ROOT / "models")     # the models' own page runs them by path
    os.chdir(workdir)
    try:
        for block in blocks(path):
            check_classified(block)
            if block.not_run is not None:
                check_unrun(block)
                counts["not run"] += 1
            elif block.kind is None:
                counts["data"] += 1
            else:
                if block.kind == PYCON:
                    run_pycon(block, namespace)
                elif block.kind == PYTHON:
                    run_python(block, namespace)
                elif block.kind == CONSOLE:
                    run_console(block, workdir)
                else:
                    run_shell(block, workdir)
                counts["run"] += 1
    finally:
        os.chdir(here)
    check_pictures(path, workdir)
    return counts


def check_pictures(path: Path, workdir: Path) -> None:
    """Every ``img/NAME`` the page shows was made by its commands, byte for byte the committed copy."""
    made = {p.name: p for p in workdir.rglob("*")
            if p.is_file() and "models" not in p.relative_to(workdir).parts}
    for name in IMAGE.findall(path.read_text(encoding="utf-8")):
        committed = IMAGES / name
        assert committed.exists(), f"{path.name} shows img/{name}, which is not in docs/img/"
        assert name in made, f"{path.name} shows img/{name}, which none of its commands makes"
        assert made[name].read_bytes() == committed.read_bytes(), (
            f"docs/img/{name} is not what {path.name}'s commands make now: copy {made[name]} there")
