"""Derived witnesses (``nqcsp.bitboard.derived_witnesses``, evidence version 3): the positions' code read
back and refused when forged, every position a derived sweep records deriving one of the sweep's own
witnesses, a derived threshold's evidence re-checked whole and refused when a position, the seed or the
fields are tampered with, the same a(n) as the class sweep's, a resumed derived sweep equal to an
uninterrupted one, and a stored derived file that must keep deriving (the derivation is part of the
format)."""

import base64
import copy
import json
import lzma
import pathlib

import numpy as np
import pytest
from naive import naive_is_solution

import nqcsp
from nqcsp.bitboard.coverage import mirrored_row_combinations
from nqcsp.bitboard.derived_witnesses import NOT_DERIVED, decode_positions, derive, encode_positions
from nqcsp.runtime.parallel import InProcess
from nqcsp.studies.evidence import check_evidence, evidence_from_json, position_limit, read_evidence
from nqcsp.studies.row_sweep import iter_row_sweep, plan_combinations

STORED = pathlib.Path(__file__).resolve().parents[1] / "data" / "a14-derived.json.xz"


def sweep(n, k, **options):
    options.setdefault("executor", InProcess())
    *_, account = iter_row_sweep(n, k, derived=True, **options)
    return account


@pytest.fixture(scope="module")
def derived_12():
    found = nqcsp.completion_threshold(12, engine="rows", derived=True, executor=InProcess())
    return found.evidence().to_json()


def test_positions_read_back_as_written():
    rng = np.random.default_rng(5)
    for size in (1, 2, 300):
        positions = np.unique(rng.integers(0, 2 ** 62, size))
        read = decode_positions(encode_positions(positions), len(positions), 2 ** 62)
        assert np.array_equal(read, positions)
    assert decode_positions(encode_positions(np.array([0, 127, 128, 16384])), 4, 16385).tolist() == \
        [0, 127, 128, 16384]


@pytest.mark.parametrize("data, count, limit, message", [
    (bytes([0x85]), 1, 100, "cut short"),
    (bytes([5, 0]), 2, 100, "twice"),
    (bytes([5, 1]), 3, 100, "not count = 3"),
    (bytes([99, 1]), 2, 100, "past the last"),
    (bytes([0xFF] * 9 + [1]), 1, 2 ** 62, "more than 9 bytes"),
    (bytes([0xFF] * 8 + [0x3F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x3F]), 2, 2 ** 62,
     "past the last"),                      # two differences of 2^62 - 1: the sum passes the limit
])
def test_forged_positions_are_refused(data, count, limit, message):
    with pytest.raises(ValueError, match=message):
        decode_positions(data, count, limit)


def test_every_position_of_a_derived_sweep_derives_one_of_its_witnesses():
    n, k = 11, 3
    account = sweep(n, k)
    hints = account.hints
    assert account.finished and len(hints) and account.random == 0
    assert np.array_equal(plan_combinations(n, k), mirrored_row_combinations(n, k)[0])
    rows = np.zeros((len(hints), n), dtype=np.uint8)
    combinations = mirrored_row_combinations(n, k)[0]
    assert derive(n, k, combinations, hints, np.uint64(0), 2000 * n, rows) == NOT_DERIVED
    kept = {tuple(row) for row in account.witnesses.tolist()}
    for row, position in zip(rows.tolist(), hints.tolist(), strict=True):
        assert naive_is_solution(n, row)
        assert tuple(row) in kept
        # The solution holds the set its position names.
        combination, index = divmod(position, n ** k)
        columns = [index // n ** (k - 1 - i) % n for i in range(k)]
        assert [row[r] for r in plan_combinations(n, k)[combination]] == columns


def test_a_derived_threshold_is_rechecked_and_agrees_with_the_class_sweep(derived_12):
    assert derived_12["version"] == 3 and derived_12["witnesses"]["derived"]["count"] > 0
    evidence = evidence_from_json(json.loads(json.dumps(derived_12)))
    report = check_evidence(evidence, executor=InProcess())
    assert report.ok, report.lines
    assert any("derived from the positions" in line for line in report.lines)
    by_classes = nqcsp.completion_threshold(12, executor=InProcess())
    assert (evidence.value, evidence.exact) == (by_classes.value, True)


def _tampered(document, change):
    forged = copy.deepcopy(document)
    change(forged["witnesses"]["derived"])
    return forged


def test_a_tampered_derivation_fails_the_check(derived_12):
    derived = derived_12["witnesses"]["derived"]
    positions = decode_positions(base64.b64decode(derived["data"]), derived["count"], position_limit(12, 2))

    def write(fields, values):
        fields["count"] = len(values)
        fields["data"] = base64.b64encode(encode_positions(values)).decode()

    # Position 0 names the set of every queen in column 0: no solution holds it.
    attacking = _tampered(derived_12, lambda d: write(d, np.unique(np.concatenate([[0], positions]))))
    report = check_evidence(evidence_from_json(attacking), executor=InProcess())
    assert not report.ok and any("position #0 (0) derives no solution" in line for line in report.lines)
    # Half the positions gone: sets left uncovered.
    halved = _tampered(derived_12, lambda d: write(d, positions[::2]))
    assert not check_evidence(evidence_from_json(halved), executor=InProcess()).ok
    # Another seed derives other solutions, which do not cover the level.
    reseeded = _tampered(derived_12, lambda d: d.update(seed=1))
    assert not check_evidence(evidence_from_json(reseeded), executor=InProcess()).ok


@pytest.mark.parametrize("change, message", [
    (lambda doc: doc.update(version=2), "not one of its fields"),
    (lambda doc: doc["witnesses"].pop("derived"), "derived"),
    (lambda doc: doc["witnesses"]["derived"].update(budget=0), "budget"),
    (lambda doc: doc["witnesses"]["derived"].update(count=1), "count"),
    (lambda doc: doc["witnesses"]["derived"].update(spare=1), "spare"),
    (lambda doc: doc["witnesses"]["derived"].update(data="!" * 400), "base64"),
])
def test_the_reader_refuses_a_derived_document_out_of_form(derived_12, change, message):
    forged = copy.deepcopy(derived_12)
    change(forged)
    with pytest.raises(ValueError, match=message):
        evidence_from_json(forged, "evidence 'x.json'")


def test_a_resumed_derived_sweep_records_the_same_positions(tmp_path):
    checkpoint = tmp_path / "n11-k3.jsonl"
    running = iter_row_sweep(11, 3, executor=InProcess(), checkpoint=str(checkpoint), batch=4, derived=True)
    for account in running:
        if account.tasks_done >= 3:
            break
    running.close()
    resumed = sweep(11, 3, checkpoint=str(checkpoint), batch=4)
    whole = sweep(11, 3, batch=4)
    assert resumed.resumed >= 3 and resumed.finished
    assert np.array_equal(resumed.hints, whole.hints)
    with pytest.raises(ValueError, match="derived"):       # the same checkpoint, but not derived
        *_, _ = iter_row_sweep(11, 3, executor=InProcess(), checkpoint=str(checkpoint), batch=4)


def test_a_checkpoint_whose_positions_were_altered_is_named_not_an_internal_error(tmp_path):
    nqcsp.completion_threshold(12, engine="rows", derived=True, executor=InProcess(), checkpoint_dir=tmp_path)
    record_file = tmp_path / "n12-k2-rows-derived.jsonl"
    header, *records = record_file.read_text().splitlines()
    last = json.loads(records[-1])
    hints = last["outcome"]["hints"]
    positions = decode_positions(base64.b64decode(hints["base64"]), hints["count"], position_limit(12, 2))
    positions[-1] += 1            # still increasing and on the task's combinations: read back, then derived
    hints["base64"] = base64.b64encode(encode_positions(positions)).decode()
    record_file.write_text("\n".join([header, *records[:-1], json.dumps(last)]) + "\n")
    with pytest.raises(ValueError, match=f"checkpoint {str(record_file)!r}: .*altered"):
        nqcsp.completion_threshold(12, engine="rows", derived=True, executor=InProcess(),
                                   checkpoint_dir=tmp_path)


def test_the_stored_derived_evidence_still_derives():
    # Made by `python -m benchmarks thresholds evidence --from 14 --to 14 --engine rows --derived`: if the
    # derivation ever computes anything else, evidence published in this format stops checking.
    evidence = read_evidence(STORED.read_bytes(), where=STORED.name)
    assert evidence.derived is not None and evidence.claim == "a(14) = 3"
    report = check_evidence(evidence, executor=InProcess())
    assert report.ok, report.lines


def test_the_stored_file_is_version_3():
    header = json.loads(lzma.decompress(STORED.read_bytes()))
    assert header["version"] == 3 and header["witnesses"]["count"] == 0
