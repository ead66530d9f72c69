"""The README's facts that the code owns: its backend table follows the registry, its two commands come
first, and every CLI command it lists exists."""

import re
from pathlib import Path

import nqcsp
from nqcsp.cli import build_parser

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def backend_rows() -> dict[str, list[str]]:
    section = README.split("\n## Backends", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`([a-z0-9]+)`", cells[0]) if cells else None
        if match:
            rows[match.group(1)] = cells
    return rows


def test_the_backend_table_follows_the_registry():
    rows = backend_rows()
    infos = {info.name: info for info in nqcsp.available_solvers()}
    assert set(rows) == set(infos)
    header = [cell.strip() for cell in README.split("\n## Backends", 1)[1].split("| name |", 1)[1]
              .splitlines()[0].strip("|").split("|")]
    complete_at = ["name", *header].index("complete")
    for name, cells in rows.items():
        assert cells[complete_at] == ("yes" if infos[name].complete else "no"), name
        for option in infos[name].options:
            assert f"`{option}`" in README, f"option {option} of {name} is not documented"


def test_the_first_lines_are_the_two_commands():
    lines = README.splitlines()
    assert lines[0] == "```" and lines[3] == "```"
    assert lines[1].startswith("pip install -e . && nqcsp solve")
    assert lines[2] == "pip install -e '.[dev]' && python -m pytest -q"


def test_every_listed_command_exists():
    listed = set(re.findall(r"^nqcsp ([a-z-]+)", README, flags=re.MULTILINE)) - {"--version"}
    choices = build_parser()._subparsers._group_actions[0].choices
    assert listed and listed <= set(choices)
