"""The OEIS b-file of A374013 (``benchmarks/results/thresholds/b374013.txt``): each line "n a(n)" backed by
its evidence file's claim (read from the file's header alone: the witnesses behind it are 100 MB of
re-check, ``nqcsp check-threshold``'s job), the run of n contiguous from 4 and stopping where a(n) is not
settled, and every term up to n = 20 the published one (the OEIS column of thresholds.md's table)."""

import json
import lzma
import pathlib
import re

import pytest

RESULTS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "results"
BFILE = RESULTS / "thresholds" / "b374013.txt"
TABLE = RESULTS / "thresholds.md"
RECHECK = "nqcsp check-threshold benchmarks/results/thresholds/a<n>.json.xz --jobs 2"


def bfile_terms(text):
    """{n: a(n)} of a b-file: '#' lines are comments, every other line two integers; ValueError for a
    line of another form or an n listed twice."""
    terms = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        match = re.fullmatch(r"(-?\d+) (-?\d+)", line)
        if match is None or int(match[1]) in terms:
            raise ValueError(f"b-file line {number}: {line!r} is not 'n a(n)' of a new n")
        terms[int(match[1])] = int(match[2])
    return terms


def evidence_claim(path):
    """(n, value, exact) of an evidence file, from the opening of its JSON: the keys before "blocked" (the
    certificate and witnesses after them are not read)."""
    opening = lzma.LZMADecompressor().decompress(path.read_bytes()[:1 << 16], max_length=1 << 12)
    head, found, _ = opening.partition(b',"blocked":')
    assert found, f"{path.name}: no 'blocked' field in its first {len(opening)} bytes"
    header = json.loads(head + b"}")
    assert header["format"] == "nqcsp-threshold" and header["version"] in (2, 3), header
    return header["n"], header["value"], header["exact"]


def table_rows():
    """{n: (a(n) as the table prints it, the OEIS column)} from thresholds.md's table ready for OEIS."""
    lines = TABLE.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| n | a(n) | OEIS |"))
    rows = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        n, value, oeis = (cell.strip() for cell in line.strip("|").split("|")[:3])
        rows[int(n)] = (value.strip("*"), oeis)
    return rows


def test_the_reader_refuses_a_line_that_is_not_a_term():
    assert bfile_terms("# comment\n4 0\n5 1\n") == {4: 0, 5: 1}
    for bad in ("4 0\n4 1\n", "4 0 7\n", "4\n", "a 1\n"):
        with pytest.raises(ValueError, match="b-file line"):
            bfile_terms(bad)


def test_each_term_is_its_evidence_files_exact_claim():
    terms = bfile_terms(BFILE.read_text())
    assert terms, "the b-file lists no term"
    for n, value in terms.items():
        evidence = RESULTS / "thresholds" / f"a{n}.json.xz"
        assert evidence.exists(), f"a({n}) = {value} has no evidence file {evidence.name}"
        assert evidence_claim(evidence) == (n, value, True), n


def test_the_terms_run_from_4_and_stop_where_a_n_is_not_settled():
    terms = bfile_terms(BFILE.read_text())
    first, last = min(terms), max(terms)
    assert first == 4 and sorted(terms) == list(range(first, last + 1))
    # The next board's evidence, where there is one, proves a bound only: the b-file cannot go on.
    after = RESULTS / "thresholds" / f"a{last + 1}.json.xz"
    if after.exists():
        assert evidence_claim(after)[2] is False, f"a({last + 1}) is settled but not in the b-file"


def test_the_terms_are_the_tables_and_the_published_ones():
    terms = bfile_terms(BFILE.read_text())
    rows = table_rows()
    settled = {n: int(value) for n, (value, _) in rows.items() if value.isdigit()}
    assert terms == settled
    published = {n: int(oeis) for n, (_, oeis) in rows.items() if oeis.isdigit()}
    assert set(published) == set(range(4, 21)), sorted(published)
    assert {n: terms[n] for n in published} == published


def test_the_bfile_names_the_command_that_rechecks_each_line():
    comments = " ".join(line.lstrip("# ") for line in BFILE.read_text().splitlines() if line.startswith("#"))
    assert RECHECK in comments
