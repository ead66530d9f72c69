"""The header of threshold evidence held to its schema (issue 49, item 1): "format" and "version" named
when missing or another's, every other field required or refused, and the file the document came from
named in every refusal (issue 50, item 5). Each test fails on the code before."""

from __future__ import annotations

import base64
import json
import lzma

import pytest

from nqcsp import verify
from nqcsp.studies.evidence import evidence_from_json, read_evidence

SOLUTION_4 = [1, 3, 0, 2]


def _inexact_4() -> dict:
    """a(4) >= 0: the smallest document there is, one witness (a solution of the 4 x 4 board)."""
    assert verify(4, SOLUTION_4)
    return {"format": "nqcsp-threshold", "version": 2, "n": 4, "value": 0, "exact": False, "blocked": None,
            "levels": [{"k": 0, "sets": 1}],
            "witnesses": {"count": 1, "data": base64.b64encode(bytes(SOLUTION_4)).decode()}}


def test_the_smallest_document_reads_back_whole():
    evidence = evidence_from_json(_inexact_4())
    assert evidence.claim == "a(4) >= 0" and evidence.witnesses.tolist() == [SOLUTION_4]
    assert verify(4, evidence.witnesses[0])


@pytest.mark.parametrize(("edit", "says"), [
    (lambda d: d.pop("format"),
     "is not nqcsp threshold evidence (\"format\": \"nqcsp-threshold\"): the field 'format' is missing"),
    (lambda d: d.update(format="nqcsp-checkpoint"), "its format is 'nqcsp-checkpoint'"),
    (lambda d: d.pop("version"), "the field 'version' is missing; this nqcsp reads versions 2 and 3"),
    # A KeyError before (an internal error from the command): "blocked" was read without being required.
    (lambda d: d.pop("blocked"), "the field 'blocked' is missing"),
    (lambda d: d.update(valu=0), "'valu' is not one of its fields"),
    (lambda d: d["witnesses"].pop("count"), "witnesses: the field 'count' is missing"),
    (lambda d: d["witnesses"].update(encodng="ranks"), "did you mean 'encoding'?"),
])
def test_a_header_off_its_schema_is_refused_naming_where_and_the_key(edit, says):
    document = _inexact_4()
    edit(document)
    with pytest.raises(ValueError) as refused:
        evidence_from_json(document, "evidence 'a4.json'")
    assert str(refused.value).startswith("evidence 'a4.json'") and says in str(refused.value), refused.value


def test_read_evidence_names_the_file_in_every_refusal():
    where = "evidence 'a4.json.xz'"
    document = _inexact_4()
    del document["version"]
    for data in (json.dumps(document).encode(), lzma.compress(json.dumps(document).encode())):
        with pytest.raises(ValueError, match=f"^{where}: the field 'version' is missing"):
            read_evidence(data, where=where)
    for data, says in [(b"{", "is not JSON"), (lzma.compress(b"{}")[:-8], "is not valid xz data|cut short")]:
        with pytest.raises(ValueError, match=f"^{where}.*({says})"):
            read_evidence(data, where=where)
