"""``nqcsp solvers [--json]``: the registered backends, from the registry."""

from __future__ import annotations

import argparse
import json
from typing import Any

from nqcsp.cli.common import EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("solvers", help="list the backends",
                            description="The registered backends: completeness, whether installed here, "
                                        "description; with --json also their options and size limits.")
    parser.add_argument("--json", action="store_true",
                        help="one JSON array of objects (name, complete, installed, requires, max_free, "
                             "description, options with their defaults)")
    parser.set_defaults(run=run)


def solver_records() -> list[dict[str, Any]]:
    """Every backend as plain JSON data, read from the registry alone."""
    from nqcsp.solvers import available_solvers, spec

    records = []
    for info in available_solvers():
        backend = spec(info.name)
        options = [{"name": o.name, "kind": o.kind, "default": o.default, "doc": o.doc,
                    **({"choices": list(o.choices)} if o.choices else {}),
                    **({"low": o.low} if o.low is not None else {}),
                    **({"high": o.high} if o.high is not None else {})} for o in backend.options]
        records.append({"name": info.name, "complete": info.complete, "installed": info.installed,
                        "requires": list(backend.requires), "max_free": info.max_free,
                        "description": info.description, "options": options})
    return records


def run(args: argparse.Namespace) -> int:
    records = solver_records()
    if args.json:
        print(json.dumps(records, default=str))
        return EXIT_OK
    print(f"{'name':<14}{'complete':<10}{'installed':<11}description")
    for record in records:
        print(f"{record['name']:<14}{'yes' if record['complete'] else 'no':<10}"
              f"{'yes' if record['installed'] else 'no':<11}{record['description']}")
    return EXIT_OK
