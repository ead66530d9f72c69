"""Naive pure-Python references the tests compare everything with. Deliberately slow and obvious."""

from __future__ import annotations

from collections.abc import Iterable, Iterator


def naive_is_solution(n: int, queens: Iterable[int], mandatory: Iterable[tuple[int, int]] = ()) -> bool:
    """O(n^2): every pair of queens checked for a shared column or diagonal."""
    cols = [int(c) for c in queens]
    if len(cols) != n or any(not 0 <= c < n for c in cols):
        return False
    for r1 in range(n):
        for r2 in range(r1 + 1, n):
            if cols[r1] == cols[r2] or abs(cols[r1] - cols[r2]) == r2 - r1:
                return False
    return all(cols[r] == c for r, c in mandatory)


def naive_solutions(n: int, mandatory: Iterable[tuple[int, int]] = ()) -> Iterator[tuple[int, ...]]:
    """All solutions in lexicographic order, by plain recursion over rows."""
    mandatory = list(mandatory)
    fixed = dict(mandatory)
    cols: list[int] = []

    def place(row: int) -> Iterator[tuple[int, ...]]:
        if row == n:
            # Checked again in full: two mandatory queens in one row collapse in `fixed`.
            if all(cols[r] == c for r, c in mandatory):
                yield tuple(cols)
            return
        for c in ([fixed[row]] if row in fixed else range(n)):
            if all(c != pc and abs(c - pc) != row - pr for pr, pc in enumerate(cols)):
                cols.append(c)
                yield from place(row + 1)
                cols.pop()

    yield from place(0)


def naive_count(n: int, mandatory: Iterable[tuple[int, int]] = ()) -> int:
    return sum(1 for _ in naive_solutions(n, mandatory))


def naive_has_solution(n: int, mandatory: Iterable[tuple[int, int]] = ()) -> bool:
    return next(naive_solutions(n, mandatory), None) is not None


def naive_unique(n: int) -> int:
    """Classes of solutions under the 8 board symmetries: every solution turned and mirrored as cells,
    the smallest image kept."""
    classes = set()
    for cols in naive_solutions(n):
        cells = [(r, c) for r, c in enumerate(cols)]
        images = []
        for _ in range(4):
            cells = [(c, n - 1 - r) for r, c in cells]                  # a quarter turn
            for board in (cells, [(r, n - 1 - c) for r, c in cells]):   # and its mirror image
                images.append(tuple(c for _, c in sorted(board)))
        classes.add(min(images))
    return len(classes)


# --- the proof formats, written out from their definitions (the docstrings of nqcsp.proof.dimacs, lrat) ---

MAX_VARIABLES = 2**31 - 1


def naive_dimacs(data: bytes) -> tuple[int, list[list[int]], list[str]] | None:
    """(variables, clauses, comments before the header) of DIMACS text, or None when the text breaks the
    grammar of nqcsp.proof.dimacs: read byte by byte and line by line, no regular expression, no numpy."""
    for at, byte in enumerate(data):
        if byte == 13:
            if data[at + 1:at + 2] != b"\n":
                return None
        elif byte not in (9, 10) and not 32 <= byte <= 126:
            return None
    lines = [line[:-1] if line.endswith(b"\r") else line for line in data.split(b"\n")]
    header = None
    comments: list[str] = []
    numbers: list[int] = []

    def plain(token: bytes) -> bool:
        return token == b"0" or (token[:1] in b"123456789" and len(token) > 0 and token.isdigit())

    for line in lines:
        if line.startswith(b"c"):
            if header is None:
                comments.append(line[1:].decode().strip(" \t"))
            continue
        tokens = line.replace(b"\t", b" ").split(b" ")
        tokens = [t for t in tokens if t]
        if line.startswith(b"p"):
            if header is not None or len(tokens) != 4 or tokens[:2] != [b"p", b"cnf"] \
                    or not all(plain(t) for t in tokens[2:]) or numbers:
                return None
            header = (int(tokens[2]), int(tokens[3]))
            continue
        if not tokens:
            continue
        if header is None:
            return None
        for token in tokens:
            digits = token[1:] if token.startswith(b"-") else token
            if not plain(digits) or token == b"-0":
                return None
            numbers.append(int(token))
    if header is None or header[0] > MAX_VARIABLES:
        return None
    if numbers and numbers[-1] != 0:
        return None
    clauses, current = [], []
    for number in numbers:
        if number == 0:
            clauses.append(current)
            current = []
        elif abs(number) > header[0]:
            return None
        else:
            current.append(number)
    if len(clauses) != header[1]:
        return None
    return header[0], clauses, comments


class Malformed(Exception):
    """The proof's bytes break the LRAT grammar."""


def lrat_steps(proof: bytes) -> Iterator[tuple]:
    """The steps of an LRAT proof, read lazily: ("a", id, lits, hints) and ("d", ids); Malformed where the
    grammar breaks. Binary: 'a' or 'd', then numbers as 2x or 2|x| + 1 (never 1: no "-0"), base 128
    little-endian, 7 bytes at most. Text: tokens separated by white space, numbers -?[0-9]+ up to 2^40,
    'd' after the id marks a deletion; no comments."""
    if proof[:1] in (b"a", b"d"):
        yield from _binary_steps(proof)
    else:
        yield from _text_steps(proof)


def lrat_binary(steps: list[tuple]) -> bytes:
    """Steps written as binary LRAT (the inverse of lrat_steps)."""
    out = bytearray()

    def number(x: int) -> None:
        u = 2 * x if x >= 0 else -2 * x + 1
        while u >= 128:
            out.append((u & 127) | 128)
            u >>= 7
        out.append(u)

    for step in steps:
        out += step[0].encode()
        for x in ([step[1], *step[2], 0, *step[3], 0] if step[0] == "a" else [*step[1], 0]):
            number(x)
    return bytes(out)


def lrat_text(steps: list[tuple]) -> bytes:
    """Steps written as text LRAT, a deletion numbered as the addition before it."""
    lines, last = [], 0
    for step in steps:
        if step[0] == "a":
            last = step[1]
            lines.append(" ".join(map(str, [step[1], *step[2], 0, *step[3], 0])))
        else:
            lines.append(" ".join(map(str, [last, "d", *step[1], 0])))
    return ("\n".join(lines) + "\n").encode()


def _binary_steps(proof: bytes) -> Iterator[tuple]:
    at = 0

    def number() -> int:
        nonlocal at
        value = 0
        for shift in range(0, 49, 7):
            if at >= len(proof):
                raise Malformed("a number ends early")
            byte = proof[at]
            at += 1
            value |= (byte & 127) << shift
            if byte < 128:
                if value == 1:
                    raise Malformed("-0 is not a number")
                return -(value >> 1) if value & 1 else value >> 1
        raise Malformed("a number does not fit")

    def until_zero() -> list[int]:
        out = []
        while (x := number()) != 0:
            out.append(x)
        return out

    while at < len(proof):
        kind = proof[at]
        at += 1
        if kind == ord("a"):
            lemma = number()
            if lemma <= 0:
                raise Malformed("a clause number is not positive")
            yield "a", lemma, until_zero(), until_zero()
        elif kind == ord("d"):
            yield "d", until_zero()
        else:
            raise Malformed("neither 'a' nor 'd'")


def _text_steps(proof: bytes) -> Iterator[tuple]:
    tokens: list[bytes] = []
    for line in proof.split(b"\n"):
        tokens += line.replace(b"\t", b" ").replace(b"\r", b" ").split(b" ")
    tokens = [t for t in tokens if t]
    at = 0

    def number() -> int:
        nonlocal at
        if at >= len(tokens):
            raise Malformed("a step ends early")
        token = tokens[at]
        at += 1
        digits = token[1:] if token.startswith(b"-") else token
        if not digits.isdigit() or not digits.isascii() or int(digits) > 2**40:
            raise Malformed(f"not a number: {token!r}")
        return int(token)

    def until_zero() -> list[int]:
        out = []
        while (x := number()) != 0:
            out.append(x)
        return out

    while at < len(tokens):
        lemma = number()
        if lemma <= 0:
            raise Malformed("a clause number is not positive")
        if at < len(tokens) and tokens[at] == b"d":
            at += 1
            yield "d", until_zero()
        else:
            yield "a", lemma, until_zero(), until_zero()


def naive_lrat(formula: list[list[int]] | list[tuple[int, ...]], num_vars: int, proof: bytes) -> bool:
    """LRAT by its definition: the k-th step may add a clause numbered above every earlier one and at
    most len(formula) + k; each hint, a live earlier clause, is unit or falsified under the lemma's
    negation (a tautology needs none); every step read, to the proof's end; accepted when one of them
    added the empty clause."""
    clauses = {i: set(c) for i, c in enumerate(formula, 1)}
    last = len(formula)
    derived = False
    try:
        for k, step in enumerate(lrat_steps(proof), 1):
            if step[0] == "d":
                for i in step[1]:
                    if i not in clauses:
                        return False
                    del clauses[i]
                continue
            _, lemma_id, lits, hints = step
            if lemma_id <= last or lemma_id > len(formula) + k:
                return False
            if any(abs(x) > num_vars for x in lits):
                return False
            true = {-x for x in lits}           # the literals the lemma's negation makes true
            conflict = any(-x in true for x in true)
            for h in hints:
                if h < 0:
                    return False
                if conflict:
                    continue
                if h not in clauses or h >= lemma_id:
                    return False
                if any(x in true for x in clauses[h]):
                    return False
                open_ = {x for x in clauses[h] if -x not in true}
                if not open_:
                    conflict = True
                elif len(open_) == 1:
                    true.add(open_.pop())
                else:
                    return False
            if not conflict:
                return False
            clauses[lemma_id] = set(lits)
            last = lemma_id
            derived = derived or not lits
    except Malformed:
        return False
    return derived
