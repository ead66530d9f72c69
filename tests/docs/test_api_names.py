"""Every name of nqcsp the guides and the README show as code (`nqcsp.x.y`) exists and is in the API
reference (docs/api.md), by itself, through a name for the same object, or as a member its entry shows
(issue 50: `nqcsp.proof.audit` was named on the guaranteed-answers page and in no reference). The design
notes are history, not a guide: they may name what the reference leaves out."""

import importlib
import pathlib
import re
import types

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
GUIDES = sorted({*DOCS.glob("*.md"), ROOT / "README.md"} - {DOCS / "api.md", DOCS / "design-notes.md"})
MISSING = object()


def resolve(name):
    """The object a dotted name means: the longest importable module, then attributes; MISSING if none."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            found = getattr(found, attribute, MISSING)
            if found is MISSING:
                return MISSING
        return found
    return MISSING


def reference_entries(text):
    """``::: NAME`` entries of the reference with the members they show (None: all of them)."""
    entries = {}
    for match in re.finditer(r"^::: ([\w.]+)\n((?:    .*\n)*)", text, flags=re.M):
        members = re.search(r"^\s+members: (.*)$", match[2], flags=re.M)
        if members is None:
            entries[match[1]] = None
        elif members[1].strip() == "false":
            entries[match[1]] = ()
        else:
            entries[match[1]] = tuple(re.findall(r"\w+", members[1]))
    return entries


def named_in(page):
    return set(re.findall(r"`(nqcsp(?:\.\w+)+)", page.read_text()))


def missing_from_reference(names, entries):
    shown = {id(resolve(entry)) for entry in entries}
    missing = []
    for name in sorted(names):
        found = resolve(name)
        if found is MISSING:
            missing.append(f"{name}: no such name")
            continue
        if id(found) in shown:
            continue
        parent, _, last = name.rpartition(".")
        under = [entry for entry in entries if name.startswith(entry + ".")]
        if any(entries[entry] is None or (entry == parent and last in entries[entry]) for entry in under):
            continue
        # A module the reference shows names of (nqcsp.runtime.lazy: its MissingDependency).
        if isinstance(found, types.ModuleType) and any(entry.startswith(name + ".") for entry in entries):
            continue
        missing.append(name)
    return missing


def test_every_name_a_guide_shows_is_in_the_api_reference():
    entries = reference_entries((DOCS / "api.md").read_text())
    names = {name: page.name for page in GUIDES for name in named_in(page)}
    missing = missing_from_reference(names, entries)
    assert not missing, [f"{name} ({names[name.split(':')[0]]})" for name in missing]


def test_the_check_finds_a_name_left_out_and_one_that_does_not_exist():
    entries = reference_entries("::: nqcsp.api.solve\n\n::: nqcsp.proof.certify\n    options:\n"
                                "      members: [recheck]\n\n::: nqcsp.runtime.lazy.MissingDependency\n")
    assert entries == {"nqcsp.api.solve": None, "nqcsp.proof.certify": ("recheck",),
                       "nqcsp.runtime.lazy.MissingDependency": None}
    assert missing_from_reference({"nqcsp.solve", "nqcsp.proof.certify.recheck", "nqcsp.runtime.lazy"},
                                  entries) == []
    assert missing_from_reference({"nqcsp.proof.audit", "nqcsp.proof.certify.write_certificate",
                                   "nqcsp.no_such_name"}, entries) == \
        ["nqcsp.no_such_name: no such name", "nqcsp.proof.audit", "nqcsp.proof.certify.write_certificate"]
