"""The CLI teaches: ``nqcsp`` alone prints its usage and every command (exit 2), and every argument of
every command has help text (the parser is walked, so a new flag without help fails here)."""

import argparse
import subprocess
import sys

import pytest

from nqcsp.cli import build_parser, main


def actions(parser, path=("nqcsp",)):
    """Every (command path, action) of the parser and of its subcommands' parsers."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helped = {choice.dest for choice in action._choices_actions}
            for name, command in action.choices.items():
                yield (*path, name), ("subcommand", name in helped)
                yield from actions(command, (*path, name))
        else:
            yield path, action


def missing_help(parser):
    missing = []
    for path, action in actions(parser):
        if isinstance(action, tuple):
            if not action[1]:
                missing.append(f"{' '.join(path)}: no help in the list of commands")
        elif not action.help or action.help == argparse.SUPPRESS or not action.help.strip():
            missing.append(f"{' '.join(path)}: {'/'.join(action.option_strings) or action.dest} has no help")
    return missing


def test_every_argument_of_every_command_has_help():
    parser = build_parser()
    assert missing_help(parser) == []
    commands = {path[1] for path, _ in actions(parser) if len(path) > 1}
    assert {"solve", "verify", "blockades", "threshold", "check-proof", "export"} <= commands


def test_the_walk_finds_an_argument_without_help():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub.choices["blockades"].add_argument("--undocumented", action="store_true")
    sub.add_parser("bare")
    assert missing_help(parser) == ["nqcsp blockades: --undocumented has no help",
                                    "nqcsp bare: no help in the list of commands"]


def test_nqcsp_alone_prints_its_usage_and_every_command_and_exits_2():
    done = subprocess.run([sys.executable, "-m", "nqcsp"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.startswith("usage: nqcsp ")
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name in sub.choices:
        assert f"\n    {name} " in done.stderr or f"\n    {name}\n" in done.stderr, name
    assert "nqcsp solve 8 --queen 0,3" in done.stderr and "'nqcsp COMMAND --help'" in done.stderr


@pytest.mark.parametrize("argv", [["--no-such-flag"], ["nosuchcommand"], ["solve", "--frobnicate"]])
def test_a_wrong_command_line_is_still_one_line(argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("nqcsp"), err
