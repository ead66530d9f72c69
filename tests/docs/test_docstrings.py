"""The examples in the public API's docstrings run (the API reference shows them): a doctest of each
module that holds a public name, a returned or raised type, or the pictures."""

import doctest
import importlib

import pytest

import nqcsp

MODULES = sorted({*nqcsp._HOMES.values(), "nqcsp.board.svg", "nqcsp.board.problem"})


@pytest.mark.parametrize("module", MODULES)
def test_the_docstring_examples_of_the_module_run(module):
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(importlib.import_module(module)):
        runner.run(test)
    failed, _ = runner.summarize(verbose=False)
    assert failed == 0, module


def test_the_public_types_have_an_example():
    for name in ("Result", "Status", "Certificate", "SolverInfo", "InternalSolverError"):
        assert "Examples:" in getattr(nqcsp, name).__doc__, name
    from nqcsp.board.svg import board_svg, queen_set_svg

    assert all("Examples:" in f.__doc__ for f in (board_svg, queen_set_svg, nqcsp.Result.to_svg))
