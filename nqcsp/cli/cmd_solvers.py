"""``nqcsp solvers``: the registered backends."""

from __future__ import annotations

import argparse

from nqcsp.cli.common import EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("solvers", help="list the backends")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from nqcsp.solvers import available_solvers

    print(f"{'name':<14}{'complete':<10}{'installed':<11}description")
    for info in available_solvers():
        print(f"{info.name:<14}{'yes' if info.complete else 'no':<10}"
              f"{'yes' if info.installed else 'no':<11}{info.description}")
    return EXIT_OK
