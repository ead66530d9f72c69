"""The one judge and a report that trusts no input: the strict record reader, every copy of a pair judged,
names and notes escaped, the same rule for every suite, and help on every command of the lab."""

from __future__ import annotations

import argparse
import json
import pathlib
import re

import pytest
from run_records import run_record as run

from benchmarks import cli
from benchmarks.harness import records
from benchmarks.judging import scores, summary
from benchmarks.suites.field import report as field

ROOT = pathlib.Path(__file__).resolve().parents[2]



GOOD = [run("a", "i1", "SAT", 1.0, verified=True), run("b", "i1", "SAT", 2.0, verified=True),
        run("a", "i2", "UNSAT", 1.0, checked=True), run("b", "i2", "UNSAT", 3.0)]


def write(path: pathlib.Path, lines: list[str]) -> pathlib.Path:
    path.write_text("".join(line + "\n" for line in lines))
    return path


def report(path: pathlib.Path, capsys, *more: str) -> tuple[int, str]:
    code = field.main(["report", str(path), "--outdir", str(path.parent / "out"), *more])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("value", "named"), [("NaN", "NaN"), ("Infinity", "Infinity"),
                                              ("-1.5", "wall_s must be >= 0")])
def test_a_time_that_no_measurement_can_be_is_refused_with_its_line(tmp_path, capsys, value, named):
    bad = json.dumps(run("b", "i3", "SAT", 1.0, verified=True)).replace('"wall_s": 1.0', f'"wall_s": {value}')
    path = write(tmp_path / "field.jsonl", [*map(json.dumps, GOOD), bad])
    code, err = report(path, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"field.jsonl:{len(GOOD) + 1}" in err and named in err
    assert not (tmp_path / "out" / "field.md").exists()


@pytest.mark.parametrize(("line", "words"), [
    ("{not json", "is not JSON"),
    ("[1, 2]", "a record is a JSON object"),
    (json.dumps({k: v for k, v in run("a", "i3", "SAT", 1.0, verified=True).items() if k != "status"}),
     "missing key 'status'"),
    (json.dumps(run("a", "i3", "SAT", 1.0, verified=True, wal_s=1.0)), "unknown key 'wal_s'"),
    (json.dumps(run("a", "i3", "SOLVED", 1.0)), "status 'SOLVED'"),
    (json.dumps(run("a", "i3", "SAT", 1.0, verified="yes")), "verified"),
    (json.dumps({**run("a", "i3", "SAT", 1.0, verified=True), "n": -8}), "n must be an integer >= 0"),
])
def test_a_bad_line_is_one_line_of_error_and_exit_2_never_a_traceback(tmp_path, capsys, line, words):
    path = write(tmp_path / "field.jsonl", [json.dumps(GOOD[0]), line])
    code, err = report(path, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and words in err, err
    assert "field.jsonl:2" in err and "Traceback" not in err


def test_a_wrong_copy_of_a_pair_is_wrong_whatever_a_later_copy_says():
    # b's wrong UNSAT on a solvable instance, then a correct duplicate record of the same run.
    copies = [*GOOD, run("a", "i3", "SAT", 1.0, verified=True), run("b", "i3", "UNSAT", 0.5),
              run("b", "i3", "SAT", 0.7, verified=True)]
    board = scores.board_of(copies, "field")
    assert board.verdict("b", "i3") == "wrong"
    assert [(e, i) for e, i, _ in scores.wrong_answers(board)] == [("b", "i3")]
    row = {r["engine"]: r for r in scores.score_rows(board, None)}["b"]
    assert row["wrong"] == 1 and row["solved"] == 2


def test_repetitions_score_the_median_and_one_lucky_copy_of_three_is_no_solve():
    copies = [run("a", "i1", "SAT", t, verified=True) for t in (1.0, 3.0, 2.0)] + \
             [run("b", "i1", "SAT", 0.1, verified=True), run("b", "i1", "UNKNOWN", 10.0),
              run("b", "i1", "UNKNOWN", 10.0)]
    board = scores.board_of(copies, "field")
    assert board.time("a", "i1") == 2.0
    assert board.verdict("b", "i1") == "unsolved" and board.time("b", "i1") is None


def test_names_and_notes_go_into_the_pages_as_text_never_as_markup(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    evil = "<script>alert(1)</script>|x"
    lines = [json.dumps(r) for r in GOOD] + [json.dumps(run(evil, "i1", "SAT", 1.5, verified=True)),
                                              json.dumps(run(evil, "i2", "UNKNOWN", 10.0))]
    path = write(tmp_path / "field.jsonl", lines)
    code, err = report(path, capsys, "--note", "<b>load | 4</b>")
    assert code == 0, err
    text = (tmp_path / "out" / "field.md").read_text()
    page = (tmp_path / "out" / "field.html").read_text()
    assert "<script>alert" not in text and "<b>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;\\|x" in text
    # The engine's row has as many cells as the table's head: its "|" did not end a cell.
    head = next(line for line in text.splitlines() if line.startswith("| engine"))
    row = next(line for line in text.splitlines() if "alert(1)" in line and line.startswith("|"))
    assert len(re.split(r"(?<!\\)\|", row)) == len(head.split("|"))
    assert "<script>alert" not in page and "<b>load" not in page
    assert "&lt;b&gt;load | 4&lt;/b&gt;" in page and "&lt;b&gt;load \\| 4&lt;/b&gt;" in text
    assert page.count("<script>") == 1          # the page's own sorting script only


def test_every_suite_is_judged_by_the_strict_rule_a_claim_is_never_the_truth():
    # An uncertified UNSAT on an instance nothing else decides: the old rule took it as the truth.
    claim = {**run("cpmpy/z3", "i7", "UNSAT", 1.0), "suite": "completion", "family": "completion"}
    judged = summary.judge([claim])
    assert judged[0]["verdict"] == "unconfirmed" and judged[0]["correct"] is None
    certified = {**run("backtrack", "i7", "UNSAT", 1.0, checked=True), "suite": "completion",
                 "family": "completion"}
    assert [r["correct"] for r in summary.judge([claim, certified])] == [True, True]


def test_one_instance_truth_in_the_tree():
    sources = [p for p in [*ROOT.glob("benchmarks/**/*.py"), *ROOT.glob("nqcsp/**/*.py")]]
    defining = [p.relative_to(ROOT).as_posix() for p in sources if "def instance_truth(" in p.read_text()]
    assert defining == ["benchmarks/judging/truth.py"]


def test_the_analysis_refuses_a_bad_record_with_exit_2(tmp_path, capsys):
    path = write(tmp_path / "tiny.jsonl", [json.dumps({**GOOD[0], "wall_s": -1})])
    assert cli.main(["analyze", str(path), "--outdir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "tiny.jsonl:1" in err


class _Parsed(Exception):
    pass


def parsers_of(monkeypatch, argv: list[str]) -> argparse.ArgumentParser:
    """The parser a command builds, caught as it starts to parse."""
    caught: list[argparse.ArgumentParser] = []

    def catch(self, *args, **kwargs):
        caught.append(self)
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", catch)
    with pytest.raises(_Parsed):
        cli.main(argv)
    monkeypatch.undo()
    return caught[0]


def subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, str | None, argparse.ArgumentParser]]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            found += [(name, helps.get(name), sub) for name, sub in action.choices.items()]
    return found


@pytest.mark.parametrize("study", [None, *cli.STUDIES])
def test_every_command_of_the_lab_has_help(monkeypatch, study):
    parser = parsers_of(monkeypatch, [study, "--help"] if study else ["--help"])
    assert parser.description, f"{study} has no description"
    for name, text, sub in subcommands(parser):
        assert text, f"{study or 'benchmarks'} {name} has no help"
        if study == "thresholds":
            for action in sub._actions:
                assert action.help, f"thresholds {name} {action.option_strings or action.dest} has no help"


def test_a_record_reader_names_the_file_it_cannot_read(tmp_path):
    with pytest.raises(records.RecordError, match="missing.jsonl"):
        records.read_records([tmp_path / "missing.jsonl"])


def test_the_comparison_refuses_a_bad_record_with_exit_2(tmp_path, capsys):
    good = write(tmp_path / "before.jsonl", [json.dumps(GOOD[0])])
    # json.dumps writes a NaN as the bare word NaN, which is not JSON.
    bad = write(tmp_path / "after.jsonl", [json.dumps({**GOOD[0], "wall_s": float("nan")})])
    assert cli.main(["compare", str(good), str(bad)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "after.jsonl:1" in err and "NaN" in err


def test_a_results_file_to_resume_from_with_a_bad_record_is_exit_2(tmp_path, capsys):
    out = tmp_path / "tiny.jsonl"
    write(out, [json.dumps({**GOOD[0], "suite": "tiny", "wall_s": -3})])
    assert cli.main(["run", "tiny", "--out", str(tmp_path), "--resume", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "tiny.jsonl:1" in err and "wall_s" in err
    write(out, [json.dumps({**GOOD[0], "suite": "tiny"})])         # no seed: which job it was is unknown
    assert cli.main(["run", "tiny", "--out", str(tmp_path), "--resume", "--no-progress"]) == 2
    assert "no seed" in capsys.readouterr().err


def test_a_line_longer_than_any_record_is_refused_by_its_length_before_it_is_parsed(tmp_path, monkeypatch):
    monkeypatch.setattr(records, "MAX_LINE_BYTES", 4096)
    path = write(tmp_path / "big.jsonl", [json.dumps(GOOD[0]), "[" * 10_000])
    with pytest.raises(records.RecordError, match=r"big.jsonl:2: a line of more than 4096 bytes"):
        records.read_records([path])
    assert len(records.read_records([write(tmp_path / "ok.jsonl", [json.dumps(GOOD[0])])])) == 1
