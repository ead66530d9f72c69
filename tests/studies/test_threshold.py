"""The completion threshold: a(n) from scratch against OEIS A374013 for small n (an oracle, never a table in
the code), its blocked set against brute force, the evidence re-checked by code the sweep does not use
(and tampered or malformed evidence refused, naming the field), the evidence files kept in the repository
re-checked, the CLI, and Ctrl-C then resume from a checkpoint."""

import base64
import contextlib
import copy
import itertools
import json
import lzma
import math
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from interrupting import interrupt_when, start_interruptible
from naive import naive_has_solution
from test_queen_sets import naive_sets

import nqcsp
from nqcsp.cli import main as cli_main
from nqcsp.runtime.limits import OutOfTime
from nqcsp.studies import evidence as evidence_module
from nqcsp.studies.evidence import count_sets, evidence_from_json, read_evidence
from nqcsp.studies.queen_sets import cover_cache, iter_set_sweep
from nqcsp.studies.threshold import check_threshold

# OEIS A374013, offset 4: the oracle for the small boards computed here from scratch.
A374013 = {4: 0, 5: 1, 6: 0, 7: 1, 8: 1, 9: 1, 10: 2, 11: 2, 12: 2, 13: 2, 14: 3, 15: 3, 16: 3, 17: 3}
EVIDENCE = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "thresholds"


@pytest.fixture(scope="module")
def thresholds():
    return {n: nqcsp.completion_threshold(n) for n in range(4, 11)}


@pytest.mark.parametrize("n", range(4, 11))
def test_threshold_matches_oeis_with_evidence(n, thresholds):
    found = thresholds[n]
    assert found.value == A374013[n] and found.exact
    assert len(found.blocked) == found.value + 1
    assert not naive_has_solution(n, list(found.blocked))
    assert found.certificate.checked
    assert [level.k for level in found.levels] == list(range(found.value + 1))
    for level in found.levels[1:]:
        assert level.ksets == len(naive_sets(n, level.k))
        assert level.covered + level.searched == level.classes
    for witness in found.witnesses:
        assert nqcsp.verify(n, witness)


def test_independent_counts_match_brute_force():
    from nqcsp.bitboard.coverage import images, mirrored_row_combinations

    for n, k in [(5, 2), (6, 3), (7, 3), (8, 4), (9, 0), (9, 1)]:
        assert count_sets(n, k) == len(naive_sets(n, k))
    # The witnesses' k-subsets and their images, counted by the coverage kernel and by brute force: odd and
    # even boards (a single queen in the middle column of an odd board is its own mirror image).
    for n, take in [(7, None), (8, None), (8, 3), (9, 5), (10, 2)]:
        solutions = np.array(list(nqcsp.solutions(n))[:take], dtype=np.uint8)
        for k in range(5):
            combos = len(mirrored_row_combinations(n, k)[0])
            covered, finished = evidence_module._cover_task(n, k, solutions, 0, combos, None)
            expected = {subset for picture in images(solutions).reshape(-1, n)
                        for subset in itertools.combinations(enumerate(picture.tolist()), k)}
            assert finished and covered == len(expected), (n, take, k)


def test_the_cover_cache_keeps_fewer_witnesses_and_the_same_account():
    from nqcsp.runtime.parallel import InProcess

    accounts = []
    for use in (False, True):
        with cover_cache(14, 3, 1 << 30) as cache:
            *_, account = iter_set_sweep(14, 3, executor=InProcess(), keep_witnesses=True,
                                         cover=cache if use else None)
        accounts.append(account)
    plain, cached = accounts
    assert (plain.classes, plain.ksets, len(plain.blocked)) \
        == (cached.classes, cached.ksets, len(cached.blocked))
    kept = [len(np.concatenate(a.witnesses)) for a in accounts]
    assert kept[1] * 2 < kept[0], kept
    for witness in np.concatenate(cached.witnesses):
        assert nqcsp.verify(14, witness)



def test_the_cover_cache_reserves_its_pages_or_is_not_kept(monkeypatch, tmp_path):
    # Its file was once sparse in /dev/shm: in a container's 64 MB /dev/shm the first page the file system
    # could not supply killed the sweep with SIGBUS. Memory that has no room is now passed over: an
    # anonymous memory file first, then a file of the temporary folder, else no cache.
    import errno
    import os
    import tempfile

    from nqcsp.runtime.parallel import InProcess

    reserve = os.posix_fallocate
    full = {"memfd"}

    def fallocate(handle, offset, size):
        target = os.readlink(f"/proc/self/fd/{handle}")
        kind = "memfd" if target.startswith("/memfd:") else os.path.dirname(target)
        if kind in full:
            raise OSError(errno.ENOSPC, "No space left on device")
        reserve(handle, offset, size)

    monkeypatch.setattr(os, "posix_fallocate", fallocate)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with cover_cache(9, 2, 1 << 30) as cache:
        assert cache is not None
        target = os.readlink(cache.path)
        assert target.startswith(str(tmp_path)) and target.endswith("(deleted)"), target
        assert list(tmp_path.iterdir()) == []        # no name left to leave behind
        assert os.path.getsize(cache.path) == math.comb(81, 2) // 8 + 1
        *_, account = iter_set_sweep(9, 2, executor=InProcess(), keep_witnesses=True, cover=cache)
    assert account.classes and all(nqcsp.verify(9, w) for w in np.concatenate(account.witnesses))
    full.add(str(tmp_path))
    with cover_cache(9, 2, 1 << 30) as cache:
        assert cache is None
    assert list(tmp_path.iterdir()) == []


def _cover_bits(cache):
    bits = cache.bits()
    return len(bits), int(bits.max())


def test_a_worker_never_reads_an_earlier_levels_cover_cache():
    # The next level's cache was given the descriptor number the last one had, so its path was the same,
    # and a worker that had mapped the last one read its bits as this level's: a Dask threshold's
    # evidence missed 388 sets of 3 queens, and a resumed checkpoint's record was refused as false.
    from nqcsp.runtime.parallel import ProcessPool

    pool = ProcessPool(1)
    try:
        with cover_cache(9, 2, 1 << 30) as first:
            first.bits()[:] = 255                          # as if every set of 2 queens were covered
            assert pool.submit(_cover_bits, first).result() == (math.comb(81, 2) // 8 + 1, 255)
        with cover_cache(9, 3, 1 << 30) as second:
            assert second.path == first.path and second.identity != first.identity
            assert pool.submit(_cover_bits, second).result() == (math.comb(81, 3) // 8 + 1, 0)
    finally:
        pool.shutdown()


@pytest.mark.slow
def test_a_sweep_killed_at_any_moment_leaves_no_memory_behind(tmp_path):
    # A cover cache was a file in /dev/shm: 4 kills of `threshold 16` left 5 files (65 MB), 1.08 GB a kill at
    # n = 26. Now it is memory without a name, held by the sweep's processes and freed with the last of
    # them; the pool's semaphores have no name either (multiprocessing unlinks them when made).
    import os
    import signal
    import time

    def names() -> set[str]:
        shared = set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()
        return {name for name in shared | set(os.listdir(tmp_path))
                if name.startswith(("nqcsp-", "sem.mp", "mp-"))}

    before = names()
    # n = 18: its sweep holds the cache for 15 s here; n = 16's held it 2.2 s on an AMD EPYC, so
    # the kill 2.5 s in came after the sweep had ended.
    for how, after in ((signal.SIGKILL, 0.0), (signal.SIGTERM, 1.0), (signal.SIGKILL, 2.5)):
        child = subprocess.Popen([sys.executable, "-m", "nqcsp", "threshold", "18", "--jobs", "2",
                                  "--no-progress"], env={**os.environ, "TMPDIR": str(tmp_path)},
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        folder = f"/proc/{child.pid}/fd"
        deadline = time.monotonic() + 120
        mapped = False
        while not mapped and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.05)
            with contextlib.suppress(OSError):
                mapped = any(os.readlink(f"{folder}/{fd}").startswith("/memfd:nqcsp-cover-18-")
                             for fd in os.listdir(folder))
            assert names() <= before, names() - before
        time.sleep(after)       # killed as it starts a level, or a moment into it
        assert mapped and child.poll() is None, "the sweep held no cover cache before it was killed"
        child.send_signal(how)
        child.wait(30)
        time.sleep(0.5)         # its workers die with it
        assert names() <= before, names() - before


def test_saved_evidence_is_rechecked_and_tampering_is_caught(thresholds):
    document = json.loads(json.dumps(thresholds[10].to_json()))
    assert check_threshold(document).ok

    def with_witnesses(rows):
        changed = copy.deepcopy(document)
        data = np.asarray(rows, dtype=np.uint8)
        changed["witnesses"] = {"count": len(data), "data": base64.b64encode(data.tobytes()).decode()}
        return changed

    witnesses = evidence_from_json(document).witnesses.copy()
    broken = witnesses.copy()
    broken[0, 0] = broken[0, 1]
    report = check_threshold(with_witnesses(broken))
    assert not report.ok and any("not solutions" in line for line in report.lines)
    thin = check_threshold(with_witnesses(witnesses[:3]))      # too few to cover every set of 2 queens
    assert not thin.ok and any(line.startswith("FAIL  k = 2") for line in thin.lines)
    forged = copy.deepcopy(document)
    # Three queens of a verified witness: completable, so no proof can be of this board.
    forged["blocked"]["queens"] = [[row, int(col)] for row, col in enumerate(witnesses[0][:3])]
    assert forged["blocked"]["queens"] != document["blocked"]["queens"]
    assert not check_threshold(forged).ok
    lied = copy.deepcopy(document)
    lied["levels"][2]["sets"] += 1
    report = check_threshold(lied)
    assert not report.ok and any("the evidence records" in line for line in report.lines)
    with pytest.raises(ValueError, match="not nqcsp threshold evidence"):
        check_threshold({"n": 10})


def _evidence_10(thresholds):
    return json.loads(json.dumps(thresholds[10].to_json()))


@pytest.mark.parametrize(("edit", "field"), [
    (lambda d: d.update(version=99), "version"),
    (lambda d: d.update(version=True), "version"),
    (lambda d: d.update(value=2.7), "value"),
    (lambda d: d.update(value="2"), "value"),
    (lambda d: d.update(value=-5), "value"),
    (lambda d: d.update(value=10**6), "value"),
    (lambda d: d.update(n=10**30), ": n must"),
    (lambda d: d.update(n=3), ": n must"),
    (lambda d: d.update(extra=1), "'extra' is not one of its fields"),
    (lambda d: d.pop("levels"), "'levels' is missing"),
    (lambda d: d.update(exact="yes"), "exact must"),
    (lambda d: d["blocked"]["queens"].append(d["blocked"]["queens"][0]), "queens"),
    (lambda d: d["blocked"]["queens"].__setitem__(1, d["blocked"]["queens"][0]), "queens"),
    (lambda d: d["blocked"]["queens"].__setitem__(0, [0, 2**70]), "queens[0]"),
    (lambda d: d["blocked"]["queens"].__setitem__(0, [0.0, 1]), "queens[0]"),
    (lambda d: d["blocked"].update(certificate=[]), "certificate"),
    (lambda d: d["blocked"].update(certificate=None), "certificate"),
    (lambda d: d["blocked"]["certificate"].update(details="x"), "details"),
    (lambda d: d["blocked"]["certificate"].update(details=[1]), "details"),
    (lambda d: d["blocked"]["certificate"].update(kind="agreement"), "kind 'agreement'"),
    (lambda d: d["blocked"]["certificate"]["details"]["proof"].update(base64="!!"), "proof.base64"),
    (lambda d: d["levels"].pop(), "levels must"),
    (lambda d: d["levels"][1].update(k=2), "levels[1]: k"),
    (lambda d: d["levels"][1].update(sets=10**40), "levels[1]: sets"),
    (lambda d: d["witnesses"].update(count=10**12), "count must"),
    (lambda d: d["witnesses"].update(count=d["witnesses"]["count"] + 1), "data"),
    (lambda d: d["witnesses"].update(data=[[0, 2, 4]]), "data"),
    (lambda d: d.update(exact=False), "blocked must be null"),
    (lambda d: d["witnesses"].update(encoding="lehmer"), "encoding must"),
    (lambda d: d["witnesses"].update(encoding="ranks"), "not count x 3"),   # 10! - 1 takes 3 bytes
])
def test_malformed_evidence_is_refused_naming_the_field(thresholds, edit, field):
    document = _evidence_10(thresholds)
    edit(document)
    with pytest.raises(ValueError, match=re.escape(field)):
        evidence_from_json(document)


def test_witnesses_written_as_ranks_read_back_the_same_and_forged_ranks_are_refused(thresholds):
    from nqcsp.bitboard.permutation_ranks import rank_bytes

    evidence = evidence_from_json(_evidence_10(thresholds))
    document = json.loads(json.dumps(evidence.to_json("ranks")))
    assert document["witnesses"]["encoding"] == "ranks"
    read = evidence_from_json(document)
    assert np.array_equal(read.witnesses, np.unique(evidence.witnesses, axis=0))
    assert check_threshold(document).ok
    data = bytearray(base64.b64decode(document["witnesses"]["data"]))
    width = rank_bytes(10)
    cases = {"repeats the permutation": (width, bytes(width)), "beyond 10!": (0, b"\xff" * width)}
    for message, (at, put) in cases.items():
        forged = bytearray(data)
        forged[at:at + width] = put
        changed = copy.deepcopy(document)
        changed["witnesses"]["data"] = base64.b64encode(bytes(forged)).decode()
        with pytest.raises(ValueError, match=message):
            evidence_from_json(changed)
    # Ranks of permutations that are not solutions read as permutations: the re-check refuses them.
    changed = copy.deepcopy(document)
    shifted = bytearray(data)
    shifted[width - 1] ^= 1
    changed["witnesses"]["data"] = base64.b64encode(bytes(shifted)).decode()
    report = check_threshold(changed)
    assert not report.ok and any("not solutions" in line for line in report.lines)
    with pytest.raises(ValueError, match="encoding must be"):
        evidence.to_json("lehmer")


def test_evidence_bytes_are_bounded_before_they_are_read(monkeypatch, thresholds):
    with pytest.raises(ValueError, match="nested too deeply"):
        read_evidence(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ValueError, match="not JSON"):
        read_evidence(b'{"n": NaN}')
    monkeypatch.setattr(evidence_module, "MAX_DOCUMENT_BYTES", 1000)
    bomb = lzma.compress(b" " * 10**6, format=lzma.FORMAT_XZ)
    with pytest.raises(ValueError, match="decompresses to more than"):
        read_evidence(bomb)


def test_threshold_cli_and_check_threshold(tmp_path, capsys):
    evidence = tmp_path / "a9.json.xz"
    assert cli_main(["threshold", "9", "--evidence", str(evidence), "--no-progress"]) == 0
    assert capsys.readouterr().out.startswith("a(9) = 1\n")
    assert evidence.read_bytes().startswith(b"\xfd7zXZ")
    assert cli_main(["check-threshold", str(evidence)]) == 0
    assert "valid: a(9) = 1" in capsys.readouterr().out
    document = json.loads(lzma.decompress(evidence.read_bytes()))
    thin = np.frombuffer(base64.b64decode(document["witnesses"]["data"]), dtype=np.uint8)[:9]
    document["witnesses"] = {"count": 1, "data": base64.b64encode(thin.tobytes()).decode()}
    (tmp_path / "thin.json").write_text(json.dumps(document))
    assert cli_main(["check-threshold", str(tmp_path / "thin.json")]) == 1
    assert "INVALID" in capsys.readouterr().out
    for argv in (["threshold", "3"], ["check-threshold", str(tmp_path / "missing.json")],
                 ["check-threshold", str(tmp_path)], ["threshold", "9", "--up-to", "9"]):
        assert cli_main(argv) == 2
        assert len(capsys.readouterr().err.splitlines()) == 1


def test_a_time_limit_covers_the_whole_check(monkeypatch, capsys):
    # The limit was only the certificate's, and a check that could not fit it was an internal error (4).
    # a(20)'s levels take 1.7 s or more on one core (measured on a quiet machine) after its certificate's
    # fraction of one: a deadline of 1 s comes among them (2.5 s did not, on a quiet machine).
    path = EVIDENCE / "a20.json.xz"
    monkeypatch.setattr(evidence_module, "TASK_MARKS", 1 << 20)   # many small steps: the deadline is seen
    with pytest.raises(OutOfTime):
        check_threshold(read_evidence(path.read_bytes()), time_limit=1.0, jobs=1)
    assert cli_main(["check-threshold", str(path), "--time-limit", "1", "--jobs", "1"]) == 3
    assert "time limit" in capsys.readouterr().err
    assert cli_main(["check-threshold", str(path), "--memory-limit", "1M"]) == 3


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_no_evidence_file_makes_check_threshold_exit_4(thresholds, tmp_path, data):
    text = json.dumps(_evidence_10(thresholds)).encode()
    kind = data.draw(st.sampled_from(["bytes", "json", "xz"]))
    if kind == "bytes":
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 40))
        piece = data.draw(st.binary(max_size=12))
        blob = text[:at] + piece + text[at + cut:]
    else:
        document = _evidence_10(thresholds)
        fields = ["n", "value", "exact", "blocked", "levels", "witnesses", "version"]
        name = data.draw(st.sampled_from(fields))
        document[name] = data.draw(st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70),
                                             st.floats(allow_nan=False), st.text(max_size=5),
                                             st.lists(st.integers(0, 30), max_size=4),
                                             st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)))
        blob = json.dumps(document).encode()
        if kind == "xz":
            blob = lzma.compress(blob, format=lzma.FORMAT_XZ)
    path = tmp_path / "e.json"
    path.write_bytes(blob)
    assert cli_main(["check-threshold", str(path)]) in (0, 1, 2, 3)


@pytest.mark.parametrize("n", range(4, 17))
def test_the_evidence_kept_in_the_repository_is_valid(n):
    # CI re-checks every kept term up to n = 16; `python -m benchmarks thresholds check` the rest.
    path = EVIDENCE / f"a{n}.json.xz"
    evidence = read_evidence(path.read_bytes())
    assert evidence.n == n and evidence.exact and evidence.value == A374013[n]
    report = check_threshold(evidence)
    assert report.ok, "\n".join(report.lines)


@pytest.mark.slow   # about 10 s: a first run interrupted mid-level, then the resumed run
def test_ctrl_c_then_resume_loses_and_repeats_nothing(tmp_path):
    command = [sys.executable, "-m", "nqcsp", "threshold", "16", "--checkpoint", str(tmp_path), "--jobs", "2",
               "--json"]
    level = tmp_path / "n16-k3.jsonl"

    def some_tasks_done(out, err):
        return level.exists() and len(level.read_text().splitlines()) >= 4

    # start_interruptible: a pytest started in the background (nohup ... &) passes on an ignored SIGINT,
    # and the run then finished instead of stopping (rc 0, "finished before it could be interrupted").
    proc = start_interruptible(command)
    rc, out, err, took = interrupt_when(proc, some_tasks_done)
    assert rc == 130 and "resume" in err and "Traceback" not in err, (rc, err[-500:])
    before = [json.loads(line) for line in level.read_text().splitlines()]
    assert before[0]["header"]["k"] == 3 and 3 <= len(before) - 1 < 35
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    after = [json.loads(line) for line in level.read_text().splitlines()]
    assert after[:len(before)] == before                     # kept, not redone
    assert len({r["task"] for r in after[1:]}) == len(after) - 1
    document = json.loads(done.stdout)
    assert document["value"] == A374013[16]
    report = check_threshold(document)
    # The witnesses of the resumed tasks and the new ones cover every set of 3 queens: none lost.
    assert report.ok, "\n".join(report.lines)


def test_search_first_finds_the_blocked_set_and_keeps_the_account():
    found = nqcsp.completion_threshold(12, search_first=3.0)
    assert found.value == A374013[12]
    assert found.blocked_level["found_by"] == "search" and found.blocked_level["k"] == found.value + 1
    assert not naive_has_solution(12, list(found.blocked))
    assert check_threshold(found.to_json()).ok


def test_up_to_gives_a_proven_lower_bound_and_says_what_the_search_spent():
    found = nqcsp.completion_threshold(16, up_to=2, search_first=0.5)
    assert not found.exact and found.value == 2 and found.certificate is None
    assert found.search["k"] == 3 and found.search["decided"] > 0 and not found.search["blocked"]
    document = found.to_json()
    assert document["exact"] is False and document["blocked"] is None
    report = check_threshold(document)
    assert report.ok and not any("blocked set" in line for line in report.lines)
    with pytest.raises(ValueError, match="up_to"):
        nqcsp.completion_threshold(8, up_to=8)


def test_block_placements_are_the_small_solutions_as_blocks():
    from nqcsp.studies.blockade_search import block_placements

    placements = block_placements(9, 4)
    assert len(placements) == 2 * 6 * 6        # two solutions of 4 queens, 6 x 6 offsets
    for cells in placements:
        rows, cols = zip(*(divmod(code, 9) for code in cells), strict=True)
        assert max(rows) - min(rows) == 3 and max(cols) - min(cols) == 3
        assert nqcsp.verify(4, [c - min(cols) for c in cols])


def test_threshold_benchmark_runs_and_agrees():
    out = subprocess.run([sys.executable, "-m", "benchmarks", "thresholds", "sweep", "--from", "4", "--to",
                          "9", "--check"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    rows = [line.split() for line in out.stdout.splitlines()[2:-1]]
    assert [int(row[0]) for row in rows] == list(range(4, 10))
    assert all(int(row[1]) == A374013[int(row[0])] for row in rows)
    assert out.stdout.splitlines()[-1].endswith("0 disagreements")
