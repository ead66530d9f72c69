"""Every code block of the site and the README runs (``examples``: the conventions), page by page."""

import pytest
from examples import ROOT, blocks, check_classified, check_unrun, commands, console_steps, pages, run_page

# The blocks that cannot run here, each marked on the page with its reason; kept few.
MAX_NOT_RUN = 12


# Pages whose blocks take 3 s or more on a quiet machine (sweeps, clusters, benchmarks) run in the slow run.
SLOW_PAGES = {"docs/comparison.md", "docs/getting-started.md", "docs/dask.md", "docs/blockades.md",
              "docs/guaranteed-answers.md", "README.md"}


@pytest.mark.parametrize("page", [pytest.param(page, marks=pytest.mark.slow)
                                  if page.relative_to(ROOT).as_posix() in SLOW_PAGES else page
                                  for page in pages()], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_of_the_page_runs(page, tmp_path):
    counts = run_page(page, tmp_path)
    assert sum(counts.values()) == len(blocks(page))


def test_few_blocks_are_marked_not_run_and_each_says_why():
    unrun = [block for page in pages() for block in blocks(page) if block.not_run is not None]
    assert len(unrun) <= MAX_NOT_RUN, [block.where for block in unrun]
    assert all(len(block.not_run.split()) >= 3 for block in unrun)
    ran = [block for page in pages() for block in blocks(page) if block.not_run is None and block.kind]
    assert len(ran) >= 4 * len(unrun)


def test_the_runner_fails_on_drift(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```console\n$ nqcsp solve 4\n.Q..\n...Q\nQ...\n..Q.\n```\n")
    run_page(page, tmp_path)
    page.write_text("```console\n$ nqcsp solve 4\n..Q.\n```\n")
    with pytest.raises(AssertionError, match="instead of"):
        run_page(page, tmp_path)
    page.write_text("```pycon\n>>> import nqcsp\n>>> nqcsp.count(6)\n5\n```\n")
    with pytest.raises(AssertionError, match="Expected:\\s+5\\s+Got:\\s+4"):
        run_page(page, tmp_path)
    page.write_text("```console\n$ nqcsp solve 6 --queen 0,0\nno solution ...\n```\n")
    with pytest.raises(AssertionError, match="exited 1"):
        run_page(page, tmp_path)
    page.write_text("```\nnqcsp solve 4\n```\n")
    with pytest.raises(AssertionError, match="no language"):
        run_page(page, tmp_path)


def test_a_block_marked_not_run_is_still_parsed(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("<!-- not run: needs a cluster of machines -->\n"
                    "```bash\nnqcsp blockades 1 9 --no-such-flag\n```\n")
    (block,) = blocks(page)
    check_classified(block)
    assert block.not_run == "needs a cluster of machines"
    with pytest.raises(AssertionError, match="does not parse"):
        check_unrun(block)
    page.write_text("<!-- not run: needs a cluster of machines -->\n```bash\n"
                    "dask worker tcp://HOST:8786 && nqcsp blockades 1 9 --scheduler tcp://HOST:8786  # x\n"
                    "```\n")
    (block,) = blocks(page)
    assert check_unrun(block) == 1


def test_console_steps_and_commands_are_read_as_a_shell_would():
    assert console_steps("$ a \\\n>   b\nout\n$ c\n") == [("a \\\n  b", "out"), ("c", "")]
    assert commands("x --y 1 && nqcsp solve 8 | head -2  # note\n") == [
        ["x", "--y", "1"], ["nqcsp", "solve", "8"], ["head", "-2"]]
