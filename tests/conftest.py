import importlib.metadata
import os
import sys

import pytest

# The naive references live beside the tests; make them importable as `naive` from every test module.
sys.path.insert(0, os.path.dirname(__file__))

FIELD_SKIP = "needs nqcsp[field] (pip install -e '.[field]')"


def field_missing() -> list[str]:
    """The distributions of nqcsp's field extra that are not installed here, read from nqcsp's own metadata
    (pyproject.toml's list as pip installed it), so that the README's `pip install -e '.[dev]'` skips
    exactly the tests that need more."""
    from packaging.requirements import Requirement

    try:
        requirements = [Requirement(text) for text in importlib.metadata.requires("nqcsp") or ()]
    except importlib.metadata.PackageNotFoundError:
        return ["nqcsp (pip install -e .)"]
    missing = []
    for requirement in requirements:
        marker = requirement.marker
        # The field's own: required with the extra, not without it (a base dependency's python_version
        # marker is true either way).
        if marker is None or not marker.evaluate({"extra": "field"}) or marker.evaluate({"extra": ""}):
            continue
        try:
            importlib.metadata.distribution(requirement.name)
        except importlib.metadata.PackageNotFoundError:
            missing.append(requirement.name)
    return missing


def pytest_collection_modifyitems(config, items):
    """A test marked `field` skips, naming the extra, where the field extra is not installed."""
    marked = [item for item in items if item.get_closest_marker("field") is not None]
    missing = field_missing() if marked else []
    if missing:
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        skip = pytest.mark.skip(reason=f"{FIELD_SKIP}: {missing[0]}{more} not installed")
        for item in marked:
            item.add_marker(skip)
