"""The field's scores (benchmarks/judging/scores.py; the report, benchmarks/suites/field/report.py) on
hand-made records: judging, PAR-2, VBS, marginal
contributions, Borda, wrong answers shown, and the self-contained page. Every expected figure below is
worked out by hand from the records, not by the code under test."""

from __future__ import annotations

import json
import re

import pytest
from run_records import run_record as run

from benchmarks.judging import scores
from benchmarks.suites.field import report as field

RECORDS = [
    # i1: SAT, both solve (a: 1 s, b: 3 s)
    run("a", "i1", "SAT", 1.0, verified=True), run("b", "i1", "SAT", 3.0, verified=True),
    # i2: UNSAT certified by a (2 s); b's claim (4 s) is confirmed by it
    run("a", "i2", "UNSAT", 2.0, checked=True), run("b", "i2", "UNSAT", 4.0),
    # i3: only b solves (5 s), a times out
    run("a", "i3", "TIMEOUT", 11.5), run("b", "i3", "SAT", 5.0, verified=True),
    # i4: a solves (1 s); b claims UNSAT on a solvable instance: wrong
    run("a", "i4", "SAT", 1.0, verified=True), run("b", "i4", "UNSAT", 0.5),
    # i5: b claims UNSAT and nothing confirms it; a was never run there (after a timeout)
    run("b", "i5", "UNSAT", 2.0),
    # i6 (UNSAT by brute force): a's call broke (no answer), b's solution failed verification: wrong
    run("a", "i6", "WRONG", 0.1, expected="UNSAT", error="solver 'a' failed on n=8: TypeError: boom"),
    run("b", "i6", "WRONG", 0.1, expected="UNSAT",
        error="solver 'b' returned an invalid solution for n=8: two queens on row 1"),
    # local search on i1 only
    run("qs4", "i1", "SAT", 0.2, verified=True, solver="qs4"),
]


@pytest.fixture
def board():
    return scores.board_of(RECORDS, "field")


def test_truth_and_verdicts(board):
    assert board.truth == {"i1": "SAT", "i2": "UNSAT", "i3": "SAT", "i4": "SAT", "i5": None, "i6": "UNSAT"}
    assert board.engines == ["a", "b"] and board.local_search == ["qs4"]
    assert board.verdict("b", "i2") == "correct"       # a claim a certified answer confirms
    assert board.verdict("b", "i4") == "wrong"
    assert board.verdict("b", "i5") == "unconfirmed"
    assert board.verdict("a", "i6") == "failed" and board.verdict("b", "i6") == "wrong"
    assert board.verdict("a", "i5") == "not run"


def test_par2_counts_every_unsolved_or_unrun_pair_twice_the_limit(board):
    instances = sorted(board.instances)
    # a: 1 + 2 + 20 + 1 + 20 (never run) + 20 (failed); b: 3 + 4 + 5 + 20 (wrong) + 20 (unconfirmed)
    # + 20 (wrong)
    assert scores.par2(board, "a", instances) == pytest.approx(64 / 6)
    assert scores.par2(board, "b", instances) == pytest.approx(72 / 6)


def test_vbs_and_marginal_contributions(board):
    instances = sorted(board.instances)
    solved, score = scores.vbs_score(board, ["a", "b"], instances)
    assert solved == 4 and score == pytest.approx((1 + 2 + 5 + 1 + 20 + 20) / 6)
    contribution = scores.marginal(board, instances)
    # Without a: i1 3, i2 4, i3 5, i4 20, i5 20, i6 20 -> 72/6; without b: i3 becomes 20 -> 64/6.
    assert contribution["a"] == (1, pytest.approx(72 / 6 - 49 / 6))
    assert contribution["b"] == (1, pytest.approx(64 / 6 - 49 / 6))


def test_borda_as_the_minizinc_challenge_scores_it(board):
    points = scores.borda(board, ["a", "b"], sorted(board.instances))
    # i1: a 3/4, b 1/4; i2: a 4/6, b 2/6; i3: b 1; i4: a 1; i5: nothing.
    assert points["a"] == pytest.approx(0.75 + 4 / 6 + 1)
    assert points["b"] == pytest.approx(0.25 + 2 / 6 + 1)


def test_wrong_answers_are_listed_and_none_is_accepted(board):
    assert [(e, i) for e, i, _ in scores.wrong_answers(board)] == [("b", "i4"), ("b", "i6")]
    assert scores.accepted_wrong(board) == []
    text = field.markdown(board, RECORDS, "test")
    assert "**2 complete engines**" in text and "**6 instances**" in text
    assert "**0 wrong answers accepted**; 2 wrong answers given" in text
    assert "- b on `i4`: UNSAT" in text and "- b on `i5`" in text and "- a on `i6`: WRONG" in text


def test_a_verified_solution_and_a_certified_unsat_together_refuse_to_score():
    with pytest.raises(ValueError, match="i9"):
        scores.board_of([run("a", "i9", "SAT", 1.0, verified=True),
                        run("b", "i9", "UNSAT", 1.0, checked=True)])


def test_the_page_is_self_contained_and_sortable(tmp_path):
    pytest.importorskip("matplotlib")
    results = tmp_path / "field.jsonl"
    results.write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    written = field.report([results], tmp_path)
    page = (tmp_path / "field.html").read_text()
    assert [p.name for p in written] == ["field.md", "field.html"]
    assert page.count("data:image/png;base64,") == 2 and 'class="sortable"' in page
    # Nothing from outside the page: no address, no file beside it.
    assert not re.search(r"""(src|href)=["'](?!data:)""", page)


def test_the_second_look_finds_wrong_answers_a_broken_judge_would_accept(monkeypatch):
    monkeypatch.setattr(scores, "verdict", lambda record, truth: "correct")
    accepted = scores.accepted_wrong(scores.board_of(RECORDS))
    assert ("b", "i4") in accepted and ("b", "i6") in accepted and ("a", "i3") in accepted


def test_the_field_families_and_what_local_search_is_given(monkeypatch, capsys):
    from naive import naive_has_solution

    from benchmarks.harness.catalog import SUITES
    from benchmarks.harness.instances import PROB079_ENV, generate

    monkeypatch.delenv(PROB079_ENV, raising=False)
    params = SUITES["field"]["params"]
    items = generate("field", params)
    err = capsys.readouterr().err
    assert "no CSPLib prob079 instances" in err and "no excluded-diagonals instances" in err
    families = {}
    for item in items:
        families.setdefault(item["family"], []).append(item)
    sizes = {family: len(members) for family, members in families.items()}
    assert sizes == {"peak": 35, "codewars": 31, "one-queen": 4, "blocked": 31}
    for item in families["blocked"]:
        cells = [tuple(c) for c in item["queens"]]
        assert item["expected"] == "UNSAT" and not naive_has_solution(item["n"], cells)
    given = generate("field", {**params, "families": ("codewars", "one-queen", "blocked"),
                               "known_solvable_only": True})
    assert given and all(i["family"] in ("codewars", "one-queen") for i in given)
    for item in given:
        if item["n"] <= 10:
            assert naive_has_solution(item["n"], [tuple(c) for c in item["queens"]])


def test_the_family_line_counts_what_the_best_engine_and_the_vbs_solve_and_what_stays_unlabelled(board):
    line = field.family_line(board, None)
    # a solves i1, i2, i4 (3, PAR-2 64/6); b solves i1, i2, i3 (3, PAR-2 72/6): a is the best single engine.
    # The VBS solves i1..i4; i5 is decided by nobody whose answer checks.
    assert line.startswith("The best single engine (a) solves 3 of 6, the VBS 4 of 6")
    assert "Labels: 3 SAT (a verified solution), 2 UNSAT (brute force or a checked certificate), " \
           "1 unlabelled (no complete engine decided it in time)." in line


def test_the_header_says_how_often_pairs_ran_and_on_which_cores():
    repeated = [run("a", "i1", "SAT", t, verified=True, repetition=k, core=k % 2)
                for k, t in enumerate((1.0, 2.0, 3.0))] + [run("a", "i2", "SAT", 1.0, verified=True, core=0)]
    lines = field.header(scores.board_of(repeated, "field"), repeated)
    assert "runs per engine and instance: 1 to 3 (50.0% of the pairs ran 3 times)" in " ".join(lines)
    assert "4 runs of 4 pinned to one CPU of its own (2 CPUs in use" in " ".join(lines)
