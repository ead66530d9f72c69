"""The one parser of JSON from outside (``nqcsp.runtime.values.parse_json``): RFC 8259 strictly, and its
memory estimate an upper bound of what parsing takes, for every shape of document."""

from __future__ import annotations

import json
import tracemalloc

import pytest

from nqcsp.runtime.values import Fields, close_names, did_you_mean, json_bytes_needed, parse_json

ITEMS = 20_000


def _listed(item: str) -> str:
    return "[" + ",".join([item] * ITEMS) + "]"


# Shapes that make many Python objects from few bytes of text, and the plain ones.
SHAPES = {
    "empty lists": _listed("[]"),
    "lists of empty lists": _listed("[[],[]]"),
    "empty objects": _listed("{}"),
    "one-key objects": _listed('{"a":1}'),
    "distinct keys in objects": "[" + ",".join(f'{{"k{i}":{i}}}' for i in range(ITEMS)) + "]",
    "one wide object": "{" + ",".join(f'"k{i}":{i}' for i in range(ITEMS)) + "}",
    "one wide object of floats": "{" + ",".join(f'"k{i}":{i}.5' for i in range(ITEMS)) + "}",
    "small ints": _listed("0"),
    "large ints": "[" + ",".join(str(10**6 + i) for i in range(ITEMS)) + "]",
    "huge ints": "[" + ",".join(str(10**40 + i) for i in range(ITEMS)) + "]",
    "floats": _listed("1.5"),
    "one-character strings": _listed('"a"'),
    "short strings": _listed('"ab"'),
    "escaped strings": _listed('"\\u00e9\\u4e2d"'),
    "true and null": _listed("true"),
    "pairs": _listed("[1,2]"),
    "deep nesting": "[" * 500 + "]" * 500,
    "one long ASCII string": '{"data":"' + "QUJD" * ITEMS + '"}',
    # One character beyond U+FFFF makes the whole parsed string 4 bytes a character.
    "a long string widened by an escape": '["' + "a" * (4 * ITEMS) + '\\ud83d\\ude00"]',
    "a long string widened by UTF-8": '["' + "a" * (4 * ITEMS) + '\U0001f600"]',
}


def _peak(text: str | bytes) -> int:
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        parsed = parse_json(text, "the document")
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    del parsed
    return peak


@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_the_memory_estimate_bounds_what_parsing_takes(shape: str, as_bytes: bool) -> None:
    text: str | bytes = SHAPES[shape].encode("utf-8") if as_bytes else SHAPES[shape]
    assert parse_json(text, "the document") == json.loads(text)
    assert _peak(text) <= json_bytes_needed(text)


def test_a_document_over_the_memory_limit_is_refused_before_it_is_parsed() -> None:
    text = SHAPES["empty lists"].encode("ascii")
    needed = json_bytes_needed(text)
    assert parse_json(text, "the document", memory=needed) == [[]] * ITEMS
    with pytest.raises(ValueError, match=r"the document would take about .* over the memory limit of"):
        parse_json(text, "the document", memory=needed - 1)


@pytest.mark.parametrize(("text", "says"), [
    ('{"id": NaN}', "NaN is not a JSON number"),
    ('[Infinity]', "Infinity is not a JSON number"),
    ('[-Infinity]', "-Infinity is not a JSON number"),
    ('{"id": 1e400}', "1e400 is beyond the range of a double"),
    ('[-1E+999]', "-1E\\+999 is beyond the range of a double"),
    ('{"n": 8, "n": 9}', "the key 'n' is given twice"),
    ('{"a": {"b": 1, "b": 1}}', "the key 'b' is given twice"),
    ("[" * 200_000 + "]" * 200_000, "nested too deeply"),
    ('{"n": 8', "Expecting"),
    (b'["\xff"]', "not UTF-8"),
    ("", "Expecting value"),
])
def test_what_is_not_json_is_refused_naming_where(text: str | bytes, says: str) -> None:
    with pytest.raises(ValueError, match=rf"^line 3 is not JSON: .*{says}"):
        parse_json(text, "line 3")


def test_json_that_is_valid_is_read_as_json_reads_it() -> None:
    text = '{"n": 8, "queens": [[0, 3]], "id": -0.0, "big": 1e308, "s": "\\u00e9", "t": true, "u": null}'
    assert parse_json(text, "x") == json.loads(text)


# --- the one schema check of a JSON object from outside --------------------------------------------------


def test_a_schema_refuses_an_unknown_key_first_with_its_near_miss_then_a_missing_one() -> None:
    assert Fields({"queens": []}, "q.json").keys(("queens",)).data == {"queens": []}
    assert Fields({"n": 8}, "line 3").keys(("n",), ("id",)).data == {"n": 8}
    with pytest.raises(ValueError, match=r"^q\.json: 'queen' is not one of its fields \(queens\); did you "
                                         r"mean 'queens'\?$"):
        Fields({"queen": [[0, 0]]}, "q.json").keys(("queens",))
    with pytest.raises(ValueError, match=r"^q\.json: the field 'queens' is missing$"):
        Fields({}, "q.json").keys(("queens",))
    with pytest.raises(ValueError, match=r"^line 3: 'x' is not one of its fields \(n, id\)$"):
        Fields({"n": 8, "x": 1}, "line 3").keys(("n",), ("id",))
    with pytest.raises(ValueError, match="must be a JSON object"):
        Fields([1], "line 3").keys(("n",))
    with pytest.raises(ValueError, match=r"^line 3: 'tial' is not one of its fields \(n and the options\); "
                                         r"did you mean 'tail'\?$"):
        Fields({"n": 8, "tial": 1}, "line 3").keys(("n",), ("tail", "start"), "n and the options")


def test_did_you_mean_names_the_closest_names_only() -> None:
    assert did_you_mean("timelimit", ("time_limit", "memory_limit", "seed")) == "; did you mean 'time_limit'?"
    both = "; did you mean 'sat_solver' or 'mzn_solver'?"
    assert did_you_mean("solver", ("sat_solver", "mzn_solver")) == both
    assert did_you_mean("--time-limt", ("--time-limit", "--seed"), "{}") == "; did you mean --time-limit?"
    assert did_you_mean("zzz", ("time_limit",)) == "" and did_you_mean(3, ("time_limit",)) == ""
    assert close_names("glucose", ("glucose3", "glucose4", "g4", "glucose4")) == ["glucose4", "glucose3"]
