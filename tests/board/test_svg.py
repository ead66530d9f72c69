"""Pictures of boards: the SVG is parsed (xml.etree) and every queen's square is read back from its
geometry and held against the columns; every solution read back goes through ``nqcsp.verify``, every
UNSAT drawn is one the solver certified and a naive search confirms."""

import subprocess
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

import numpy as np
import pytest
from naive import naive_solutions

import nqcsp
from nqcsp.board.svg import CELL, MARGIN, board_svg, queen_set_svg

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"


def parse(text):
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    return root


def queens_drawn(root):
    """{(row, col): kind} read from the queen glyphs' squares alone (not their data attributes)."""
    out = {}
    for glyph in root.iter(f"{SVG}use"):
        kinds = glyph.get("class").split()
        if kinds[0] != "queen":
            continue
        assert glyph.get(f"{XLINK}href").endswith("-queen")
        assert float(glyph.get("width")) == float(glyph.get("height")) == CELL
        col = (float(glyph.get("x")) - MARGIN) / CELL
        row = (float(glyph.get("y")) - MARGIN) / CELL
        assert col == int(col) and row == int(row), (row, col)
        assert (int(glyph.get("data-row")), int(glyph.get("data-col"))) == (int(row), int(col))
        out[(int(row), int(col))] = kinds[1]
    return out


def legend(root):
    """The legend's words, line by line."""
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "legend"]
    return [text.text for group in groups for text in group.iter(f"{SVG}text")]


def columns_of(drawn, n):
    cols = [-1] * n
    for (row, col), _ in drawn.items():
        assert cols[row] == -1, f"two queens drawn on row {row}"
        cols[row] = col
    return cols


def shaded_cells(root):
    cells = set()
    for group in root.iter(f"{SVG}g"):
        if group.get("class") == "attacked":
            for rect in group.iter(f"{SVG}rect"):
                row = (float(rect.get("y")) - MARGIN) / CELL
                first = (float(rect.get("x")) - MARGIN) / CELL
                width = float(rect.get("width")) / CELL
                assert float(rect.get("height")) == CELL
                cells.update((int(row), int(first) + i) for i in range(int(width)))
    return cells


def naive_attacked(n, queens):
    return {(r, c) for r in range(n) for c in range(n) if (r, c) not in queens and any(
        r == qr or c == qc or abs(r - qr) == abs(c - qc) for qr, qc in queens)}


@pytest.mark.parametrize(("n", "queens"), [(8, [(0, 3)]), (1, []), (4, [(1, 3)]), (12, [(5, 5), (0, 2)]),
                                           (30, [(29, 17)]), (70, [])])
def test_a_solution_is_drawn_square_by_square_with_the_mandatory_queens_apart(n, queens):
    result = nqcsp.solve(n, queens)
    assert result.status is nqcsp.Status.SAT
    root = parse(result.to_svg())
    assert root.get("data-picture") == "exact" and root.get("data-n") == str(n)
    drawn = queens_drawn(root)
    cols = columns_of(drawn, n)
    assert cols == list(result.column_tuple())
    assert nqcsp.verify(n, cols, queens=queens)
    assert {cell for cell, kind in drawn.items() if kind == "mandatory"} == set(queens)
    assert all(kind == "found" for cell, kind in drawn.items() if cell not in set(queens))
    assert result._repr_svg_() == result.to_svg()


def test_a_blocked_set_is_drawn_with_the_cells_it_attacks_and_its_empty_line():
    queens = [(0, 0), (1, 2), (2, 4)]          # column 5 has no cell left: an empty line
    assert list(naive_solutions(6, queens)) == []
    result = nqcsp.solve(6, queens)
    assert result.status is nqcsp.Status.UNSAT and result.certificate.checked
    for text in (result.to_svg(), queen_set_svg(6, queens)):
        root = parse(text)
        assert queens_drawn(root) == dict.fromkeys(queens, "mandatory")
        assert shaded_cells(root) == naive_attacked(6, set(queens))
        lines = [(r.get("data-line"), int(r.get("data-index"))) for r in root.iter(f"{SVG}rect")
                 if r.get("class") == "empty-line"]
        assert lines == [("column", 5)]
    assert result.certificate.details["line"] == "column" and result.certificate.details["index"] == 5


def test_a_blocked_set_without_an_empty_line_marks_none_and_attacking_queens_are_joined():
    assert list(naive_solutions(6, [(0, 0)])) == []
    root = parse(queen_set_svg(6, [(0, 0)]))
    assert not [r for r in root.iter(f"{SVG}rect") if r.get("class") == "empty-line"]
    assert shaded_cells(root) == naive_attacked(6, {(0, 0)})
    result = nqcsp.solve(6, [(0, 0), (1, 1)])
    assert result.status is nqcsp.Status.UNSAT and result.certificate.kind == "attack"
    lines = [line for line in parse(result.to_svg()).iter(f"{SVG}line") if line.get("class") == "attack"]
    assert [(float(x.get("x1")), float(x.get("y1")), float(x.get("x2")), float(x.get("y2"))) for x in lines] \
        == [(MARGIN + CELL / 2, MARGIN + CELL / 2, MARGIN + 1.5 * CELL, MARGIN + 1.5 * CELL)]


def test_big_boards_are_a_density_picture_whose_blocks_hold_every_queen():
    n = 10**6
    result = nqcsp.solve(n, [(5, 7)])
    assert result.status is nqcsp.Status.SAT and nqcsp.verify(n, result.columns, queens=[(5, 7)])
    text = result.to_svg()
    root = parse(text)
    assert root.get("data-picture") == "density" and len(text) < 2_000_000
    counts = [int(r.get("data-queens")) for r in root.iter(f"{SVG}rect") if r.get("data-queens")]
    assert sum(counts) == n
    # Independently: the queens per block from the columns.
    size = -(-n // 100)
    blocks = np.bincount((np.arange(n) // size) * 100 + result.columns // size, minlength=100 * 100)
    assert sorted(counts) == sorted(blocks[blocks > 0].tolist())
    outlined = [r for g in root.iter(f"{SVG}g") if g.get("class") == "mandatory"
                for r in g.iter(f"{SVG}rect")]
    assert [(float(r.get("x")), float(r.get("y"))) for r in outlined] == [(MARGIN, MARGIN)]


def test_a_density_picture_is_refused_before_its_counts_exceed_the_memory_limit(monkeypatch):
    with pytest.raises(ValueError, match="needs 32.1 MiB, over the memory limit of 1.0 MiB"):
        board_svg(10**7, np.arange(10**7), memory_limit=1 << 20)
    n = 10**7
    result = nqcsp.solve(n)
    assert nqcsp.verify(n, result.columns)
    with pytest.raises(ValueError, match="over the memory limit"):
        result.to_svg(memory_limit=1 << 20)
    assert result._repr_svg_() is not None
    import nqcsp.board.svg as svg

    monkeypatch.setattr(svg, "as_memory_limit", lambda limit: 1 << 20)
    assert result._repr_svg_() is None        # a notebook falls back to the text repr


def test_an_empty_line_of_a_density_picture_is_marked_as_a_band():
    queens = [(0, 0), (1, 2), (2, 4)]          # column 5 has no cell left
    assert list(naive_solutions(6, queens)) == []
    root = parse(board_svg(6, None, queens, shade_attacks=True, exact_up_to=2))
    assert root.get("data-picture") == "density"
    bands = [(r.get("data-line"), int(r.get("data-index"))) for r in root.iter(f"{SVG}rect")
             if r.get("class") == "empty-line"]
    assert bands == [("column", 5)]


@pytest.mark.parametrize(("args", "message"), [
    ((4, [0, 1, 2]), "has 4 columns, got 3"), ((4, [0, 1, 2, 4]), "column 4 of row 3 is off the 4x4 board"),
    ((4, None, [(4, 0)]), r"cell \(4, 0\) is off the 4x4 board"), ((-1,), "n must be >= 0")])
def test_bad_boards_are_refused_naming_the_value(args, message):
    with pytest.raises(ValueError, match=message):
        board_svg(*args)


def test_unknown_answers_draw_the_mandatory_queens():
    result = nqcsp.solve(200, [(0, 0), (1, 2)], solver="qs4", max_restarts=0, max_failed_swaps=0, seed=1)
    if result.status is nqcsp.Status.SAT:
        assert nqcsp.verify(200, result.columns, queens=[(0, 0), (1, 2)])
        pytest.skip("qs4 found a solution")
    assert "no answer" in parse(result.to_svg()).find(f"{SVG}title").text


class SheetReader(HTMLParser):
    """The pictures (img src), captions and title of an index.html contact sheet."""

    def __init__(self):
        super().__init__()
        self.images, self.captions, self.title, self._in = [], [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images.append(dict(attrs)["src"])
        self._in = tag

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "figcaption":
            self.captions.append(data)
        elif self._in == "title":
            self.title = data


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "nqcsp", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def test_solve_format_svg_draws_the_verified_solution():
    out = run_cli("solve", "8", "--queen", "0,3", "--format", "svg")
    assert out.returncode == 0, out.stderr
    drawn = queens_drawn(parse(out.stdout))
    cols = columns_of(drawn, 8)
    assert nqcsp.verify(8, cols, queens=[(0, 3)]) and drawn[(0, 3)] == "mandatory"
    unsat = run_cli("solve", "6", "--queen", "0,0", "--format", "svg")
    assert unsat.returncode == 1 and list(naive_solutions(6, [(0, 0)])) == []
    assert queens_drawn(parse(unsat.stdout)) == {(0, 0): "mandatory"}


def test_blockades_svg_draws_every_blocked_class(tmp_path):
    out = run_cli("blockades", "4", "6", "--jobs", "1", "--svg", str(tmp_path / "pictures"))
    assert out.returncode == 0, out.stderr
    names = sorted(p.name for p in (tmp_path / "pictures").iterdir() if p.suffix == ".svg")
    assert names == ["n4-0-0.svg", "n4-1-1.svg", "n6-0-0.svg", "n6-1-1.svg", "n6-2-2.svg"]
    # The contact sheet shows each picture once, captioned with its board and queen.
    sheet = SheetReader()
    sheet.feed((tmp_path / "pictures" / "index.html").read_text())
    assert sorted(sheet.images) == names and len(sheet.images) == len(set(sheet.images))
    assert "n = 6: (2, 2)" in sheet.captions and sheet.title == "5 blocked classes"
    for name in names:
        n, row, col = (int(v) for v in name.removesuffix(".svg").lstrip("n").split("-"))
        assert list(naive_solutions(n, [(row, col)])) == []        # blocked, by a second method
        root = parse((tmp_path / "pictures" / name).read_text())
        assert queens_drawn(root) == {(row, col): "mandatory"}
        assert shaded_cells(root) == naive_attacked(n, {(row, col)})
    bad = run_cli("blockades", "4", "--svg", "/proc/no/such/dir")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr


def test_blockades_svg_refuses_a_bad_directory_before_the_sweep(tmp_path):
    # The directory was once checked only when the pictures were drawn, after the whole sweep had run.
    (tmp_path / "a-file").write_text("kept\n")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for given, says in (("a-file", "is not a directory"), ("dangling", "does not exist")):
        bad = run_cli("blockades", "4", "6", "--jobs", "1", "--svg", str(tmp_path / given))
        assert bad.returncode == 2 and bad.stdout == "", (bad.stdout, bad.stderr)
        assert bad.stderr.count("\n") == 1 and says in bad.stderr, bad.stderr
    assert (tmp_path / "a-file").read_text() == "kept\n" and not (tmp_path / "nowhere").exists()


def test_the_legend_names_every_mark_drawn_and_only_those():
    solved = nqcsp.solve(8, [(0, 3)])
    assert nqcsp.verify(8, solved.columns, queens=[(0, 3)])
    assert legend(parse(solved.to_svg())) == ["queen of the solution (verified)", "mandatory queen (given)"]
    assert legend(parse(solved.to_svg(legend=False))) == []
    assert list(naive_solutions(6, [(0, 0), (1, 2), (2, 4)])) == []
    assert legend(parse(queen_set_svg(6, [(0, 0), (1, 2), (2, 4)]))) == [
        "mandatory queen (given)", "square a mandatory queen attacks",
        "row or column with no free square left"]
    attacking = nqcsp.solve(6, [(0, 0), (1, 1)])
    assert attacking.status is nqcsp.Status.UNSAT and attacking.certificate.kind == "attack"
    assert legend(parse(attacking.to_svg()))[-1] == "two mandatory queens attacking each other"
    # Every legend line has its swatch beside it: as many swatches as lines.
    root = parse(queen_set_svg(6, [(0, 0), (1, 2), (2, 4)]))
    group = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    ys = sorted({float(e.get("y")) for e in group if e.tag != f"{SVG}text"})
    assert len(ys) == 3


def test_options_as_python_chess_takes_them(tmp_path):
    cols = [1, 3, 0, 2]
    assert nqcsp.verify(4, cols)
    root = parse(board_svg(4, cols, [(0, 1)], size=200, coordinates=False,
                           colors={"square dark": "#8ca2ad", "queen found": "navy"},
                           highlight={(3, 2): "#90caf9", (1, 1): "#90caf9"},
                           lines=[((0, 0), (3, 3), "#2e7d32")]))
    assert root.get("width") == "200"
    pattern = next(root.iter(f"{SVG}pattern"))
    assert {r.get("fill") for r in pattern} == {"#ffce9e", "#8ca2ad"}
    assert {g.get("fill") for g in root.iter(f"{SVG}use") if g.get("class") == "queen found"} == {"navy"}
    assert not [t for t in root.iter(f"{SVG}text") if t.text.isdigit()]          # no coordinates
    filled = {(int((float(r.get("y")) - MARGIN) / CELL), int((float(r.get("x")) - MARGIN) / CELL))
              for g in root.iter(f"{SVG}g") if g.get("class") == "highlight" for r in g}
    assert filled == {(3, 2), (1, 1)}
    drawn = [line for line in root.iter(f"{SVG}line") if line.get("class") == "drawn"]
    assert [(float(x.get("x1")), float(x.get("y2")), x.get("stroke")) for x in drawn] == [
        (MARGIN + CELL / 2, MARGIN + 3.5 * CELL, "#2e7d32")]
    assert "highlighted square" in legend(root) and "line drawn between squares" in legend(root)
    labelled = parse(board_svg(4, cols))
    assert [t.text for t in labelled.iter(f"{SVG}text") if t.text.isdigit()] == [
        "0", "0", "1", "1", "2", "2", "3", "3"]
    # Two colour sets on one page (a notebook) do not share the squares' pattern.
    assert next(root.iter(f"{SVG}pattern")).get("id") != next(labelled.iter(f"{SVG}pattern")).get("id")


@pytest.mark.parametrize(("options", "error", "message"), [
    ({"colors": {"square grey": "#000"}}, ValueError, "unknown colour name 'square grey'"),
    ({"colors": {"attacked": 'red" onload="x'}}, ValueError, "is not #rgb"),
    ({"highlight": {(4, 0): "#fff"}}, ValueError, r"cell \(4, 0\) is off the 4x4 board"),
    ({"highlight": {(1, 0): "url(#x)"}}, ValueError, "is not #rgb"),
    ({"lines": [((0, 0), (0, 9))]}, ValueError, r"cell \(0, 9\) is off"),
    ({"lines": [(0, 0)]}, ValueError, r"a line is \(\(r1, c1\), \(r2, c2\)\)"),
    ({"size": 0}, ValueError, "size must be >= 1 pixel, got 0"),
    ({"size": "200"}, TypeError, "size must be an integer, got '200'"),
    ({"title": 3}, TypeError, "title must be a string, got 3"),
    ({"title": "a\x01b"}, ValueError, "title holds U\\+0001 at position 1"),
    ({"title": "\x1b[31mred"}, ValueError, "U\\+001B at position 0"),
    ({"title": "x\ufffe"}, ValueError, "U\\+FFFE"),
])
def test_bad_options_are_refused_naming_the_value(options, error, message):
    with pytest.raises(error, match=message):
        board_svg(4, [1, 3, 0, 2], **options)


@pytest.mark.parametrize("n", ["8", 8.9, True, 8.0, None])
def test_a_board_size_is_an_integer_and_nothing_else(n):
    with pytest.raises(TypeError, match=f"n must be an integer, got {n!r}"):
        board_svg(n)
    assert parse(board_svg(np.int64(4), [1, 3, 0, 2])).get("data-n") == "4"


@pytest.mark.parametrize("title", ['Tom & Jerry <"x"> \'y\'', "tab\tand\nnewline", "queens \u265b \U0001F451",
                                   "]]> <!-- -->"])
def test_any_title_xml_can_hold_stays_well_formed(title):
    root = parse(board_svg(4, [1, 3, 0, 2], title=title))
    assert root.find(f"{SVG}title").text == title


def test_mandatory_queens_stay_visible_on_the_density_picture_of_a_big_board():
    n = 1000
    result = nqcsp.solve(n, [(500, 333)])
    assert result.status is nqcsp.Status.SAT and nqcsp.verify(n, result.columns, queens=[(500, 333)])
    root = parse(result.to_svg())
    assert root.get("data-picture") == "density"
    pixels_per_unit = float(root.get("width")) / float(root.get("viewBox").split()[2])
    marks = [u for u in root.iter(f"{SVG}use") if u.get("class") == "queen-mark mandatory"]
    assert len(marks) == 1
    side = float(marks[0].get("width"))
    assert side * pixels_per_unit >= 12, side * pixels_per_unit      # a block alone is 6 px
    # Centred on the block that holds (500, 333): blocks of 10 x 10 squares, CELL / 2 units each.
    centre = (float(marks[0].get("x")) + side / 2, float(marks[0].get("y")) + side / 2)
    assert centre == (MARGIN + (33 + 0.5) * CELL / 2, MARGIN + (50 + 0.5) * CELL / 2)
    assert "block holding a mandatory queen (outlined)" in legend(root)
    assert any(words.startswith("1 queen") for words in legend(root))
