"""The kernel of ``nqcsp.lrat``: DIMACS and LRAT reading and hint-directed unit propagation (numba).

Bytes in, a status array out; see ``nqcsp.lrat`` for what is accepted. ``outcome`` = code (0 accepted,
else a key of ``nqcsp.lrat._REASONS``), detail (a clause number or an error kind), lemmas, hints.
"""

from __future__ import annotations

import numpy as np

from nqcsp._jit import njit, njit_unrefcounted

_SPACE, _TAB, _NEWLINE, _RETURN = 32, 9, 10, 13
_COMMENT, _PROBLEM, _DELETE, _ADD, _MINUS, _ZERO, _NINE = 99, 112, 100, 97, 45, 48, 57
_LARGEST = 1 << 40


@njit(cache=True, nogil=True, inline="always")
def _is_space(byte):
    return byte in (_SPACE, _NEWLINE, _TAB, _RETURN)


@njit(cache=True, nogil=True)
def _skip(data, pos):
    """Past white space and whole comment lines ('c' first on a line)."""
    n = data.shape[0]
    while pos < n:
        byte = data[pos]
        if _is_space(byte):
            pos += 1
        elif byte == _COMMENT and (pos == 0 or data[pos - 1] == _NEWLINE):
            while pos < n and data[pos] != _NEWLINE:
                pos += 1
        else:
            break
    return pos


@njit(cache=True, nogil=True)
def _next(data, pos, binary):
    """(status, value, pos): status 1 a number, 2 a text 'd', 0 the end of the text, -1 a number that does
    not fit, -2 an unexpected character, -3 the data ends inside a binary number."""
    n = data.shape[0]
    if binary:
        value = np.int64(0)
        shift = 0
        while True:
            if pos >= n:
                return -3, 0, pos
            byte = np.int64(data[pos])
            pos += 1
            value |= (byte & 127) << shift
            if byte < 128:
                break
            shift += 7
            if shift > 42:
                return -1, 0, pos
        if value & 1:
            return 1, -(value >> 1), pos
        return 1, value >> 1, pos
    pos = _skip(data, pos)
    if pos >= n:
        return 0, 0, pos
    if data[pos] == _DELETE:
        if pos + 1 < n and not _is_space(data[pos + 1]):
            return -2, 0, pos
        return 2, 0, pos + 1
    sign = 1
    if data[pos] == _MINUS:
        sign = -1
        pos += 1
    start = pos
    value = np.int64(0)
    while pos < n and _ZERO <= data[pos] <= _NINE:
        value = value * 10 + (data[pos] - _ZERO)
        if value > _LARGEST:
            return -1, 0, pos
        pos += 1
    if pos == start or (pos < n and not _is_space(data[pos])):
        return -2, 0, pos
    return 1, sign * value, pos


@njit(cache=True, nogil=True)
def _grow(store, used):
    if used < store.shape[0]:
        return store
    bigger = np.empty(2 * store.shape[0] + 16, dtype=store.dtype)
    bigger[:used] = store[:used]
    return bigger


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _compact(store, used, first, starts, lengths, alive, last):
    """Room for more literals: the live clauses (numbers up to ``last``) and the clause being read
    (``store[first:used]``) moved to the front, the deleted ones' literals dropped; (used, first). Proofs
    that delete what they no longer need (a search tree's proof deletes each node's children) are so
    checked in memory bounded by what is live."""
    at = 0
    for clause in range(1, last + 1):
        if alive[clause]:
            start = starts[clause]
            starts[clause] = at
            for offset in range(lengths[clause]):  # forwards: a clause only ever moves down
                store[at + offset] = store[start + offset]
            at += lengths[clause]
    for offset in range(used - first):
        store[at + offset] = store[first + offset]
    return at + used - first, at


@njit(cache=True, nogil=True)
def read_formula(cnf, extra, outcome):
    """The formula: 'p cnf V C', then C clauses of literals within 1..V. (V, C, starts, lengths, alive,
    store, used): a table of clause numbers with room for ``extra`` more, and the literals of the
    clauses; ``outcome[0]`` is 0 or the code of what is wrong."""
    fail = (0, 0, np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.uint8),
            np.zeros(1, dtype=np.int32), 0)
    pos = _skip(cnf, 0)
    if pos >= cnf.shape[0] or cnf[pos] != _PROBLEM:
        outcome[0] = 1
        return fail
    pos += 1
    pos = _skip(cnf, pos)
    if pos + 3 > cnf.shape[0] or cnf[pos] != 99 or cnf[pos + 1] != 110 or cnf[pos + 2] != 102:  # "cnf"
        outcome[0] = 1
        return fail
    status, num_vars, pos = _next(cnf, pos + 3, False)
    status2, num_clauses, pos = _next(cnf, pos, False)
    if status != 1 or status2 != 1 or num_vars < 0 or num_clauses < 0:
        outcome[0] = 1
        return fail
    table = num_clauses + extra + 1
    starts = np.zeros(table, dtype=np.int64)
    lengths = np.zeros(table, dtype=np.int32)
    alive = np.zeros(table, dtype=np.uint8)
    store = np.empty(cnf.shape[0] // 2 + (1 << 20), dtype=np.int32)
    used = 0
    clause = 1
    starts[1 if table > 1 else 0] = 0
    while True:
        status, lit, pos = _next(cnf, pos, False)
        if status == 0:
            break
        if status != 1:
            outcome[0] = 1
            return fail
        if lit == 0:
            if clause > num_clauses:
                outcome[0] = 2
                return fail
            lengths[clause] = used - starts[clause]
            alive[clause] = 1
            clause += 1
            if clause < table:
                starts[clause] = used
            continue
        if clause > num_clauses or abs(lit) > num_vars:
            outcome[0] = 2
            return fail
        store = _grow(store, used)
        store[used] = lit
        used += 1
    if clause != num_clauses + 1:
        outcome[0] = 13
        return fail
    return num_vars, num_clauses, starts, lengths, alive, store, used


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _number(proof, pos, binary, final, outcome):
    """(True, False, the next number of a proof line, pos), or False with ``cut`` (the data ends inside
    the line, and more may come: not ``final``) or ``outcome`` set to "malformed"."""
    status, value, pos = _next(proof, pos, binary)
    if status == 1:
        return True, False, value, pos
    cut = (status == -3 or (status == 0 and not binary)) and not final
    if not cut:
        outcome[0], outcome[1] = 3, -3 if status == 0 else status
    return False, cut, 0, pos


# ``check_steps``' ``state``: literals stored, the last clause number, lemmas checked, hints followed, the
# first byte not yet read.
USED, LAST, LEMMAS, HINTS, POS = 0, 1, 2, 3, 4
MORE = -1   # ``outcome[0]`` when the proof read so far ends inside a line or before the empty clause
GROW = -2   # ``outcome[0]`` when the live literals fill over half the store: a bigger one, then go on


# It allocates nothing (the caller grows the store), so it runs without reference counting.
@njit_unrefcounted(cache=True, nogil=True)
def check_steps(proof, binary, final, limit, num_vars, starts, lengths, alive, store, value, trail, state,
                outcome):
    """Check the additions and deletions of ``proof`` from ``state[POS]`` on; clause numbers must stay
    below ``limit``. Unless ``final``, a line the data ends inside is left unread (nothing of it applied)
    and ``outcome[0]`` is ``MORE``, with ``state[POS]`` at its start, for the caller to come back with
    more of the proof; ``GROW`` likewise when the store of literals is over half full once compacted."""
    used = state[USED]
    last_id = state[LAST]
    lemmas = state[LEMMAS]
    hints = state[HINTS]
    pos = state[POS]
    n = proof.shape[0]
    outcome[0] = MORE
    while True:
        line_start = pos
        deletion = False
        if binary:
            if pos >= n:
                break
            kind = proof[pos]
            pos += 1
            if kind == _DELETE:
                deletion = True
            elif kind == _ADD:
                status, clause, pos = _next(proof, pos, True)
                if status == -3 and not final:
                    pos = line_start
                    break
                if status != 1:
                    outcome[0], outcome[1] = 3, status
                    return
                if clause <= 0:
                    outcome[0], outcome[1] = 3, -2
                    return
            else:
                outcome[0], outcome[1] = 3, pos - 1
                return
        else:
            status, clause, pos = _next(proof, pos, False)
            if status == 0:
                break
            if status != 1 or clause <= 0:
                outcome[0], outcome[1] = 3, -2 if status >= 0 else status
                return
            mark = pos
            status, _, after = _next(proof, pos, False)
            if status == 2:
                deletion = True
                pos = after
            else:
                pos = mark
        if deletion:
            # Read to the line's end before deleting anything: a line cut short is left for later whole.
            scan = pos
            while True:
                status, gone, scan = _next(proof, scan, binary)
                if status != 1 or gone == 0:
                    break
            if status != 1 and not final and (status == -3 or (status == 0 and not binary)):
                pos = line_start
                break
            while True:
                ok, _, gone, pos = _number(proof, pos, binary, True, outcome)  # the line is whole
                if not ok:
                    return
                if gone == 0:
                    break
                if gone < 0 or gone >= limit or alive[gone] == 0:
                    outcome[0], outcome[1] = 11, gone
                    return
                alive[gone] = 0
            continue
        if clause <= last_id or clause >= limit:
            outcome[0], outcome[1] = 4, clause
            return
        first = used
        assigned = 0
        conflict = False
        cut = False
        while True:
            ok, cut, lit, pos = _number(proof, pos, binary, final, outcome)
            if not ok:
                break
            if lit == 0:
                break
            var = abs(lit)
            if var > num_vars:
                outcome[0], outcome[1] = 5, clause
                break
            if used >= store.shape[0]:
                used, first = _compact(store, used, first, starts, lengths, alive, last_id)
                if 2 * used > store.shape[0]:
                    outcome[0] = GROW
                    cut = True
                    break
            store[used] = lit
            used += 1
            false_value = -1 if lit > 0 else 1
            if value[var] == 0:
                value[var] = false_value
                trail[assigned] = var
                assigned += 1
            elif value[var] != false_value:
                conflict = True  # the clause holds a literal and its negation: a tautology
        while outcome[0] == MORE and not cut:
            ok, cut, hint, pos = _number(proof, pos, binary, final, outcome)
            if not ok:
                break
            if hint == 0:
                break
            if hint < 0:
                outcome[0], outcome[1] = 10, clause
                break
            if conflict:
                continue
            if hint >= limit or alive[hint] == 0 or hint >= clause:
                outcome[0], outcome[1] = 6, clause
                break
            hints += 1
            open_count = 0
            open_lit = 0
            for at in range(starts[hint], starts[hint] + lengths[hint]):
                other = store[at]
                current = value[abs(other)]
                if current == 0:
                    open_count += 1
                    open_lit = other
                elif (current > 0) == (other > 0):
                    outcome[0], outcome[1] = 7, clause
                    break
            if outcome[0] != MORE:
                break
            if open_count == 0:
                conflict = True
            elif open_count == 1:
                var = abs(open_lit)
                value[var] = 1 if open_lit > 0 else -1
                trail[assigned] = var
                assigned += 1
            else:
                outcome[0], outcome[1] = 8, clause
                break
        for at in range(assigned):
            value[trail[at]] = 0
        if cut:
            used = first
            pos = line_start
            break
        if outcome[0] != MORE:
            return
        if not conflict:
            outcome[0], outcome[1] = 9, clause
            return
        starts[clause] = first
        lengths[clause] = used - first
        alive[clause] = 1
        last_id = clause
        lemmas += 1
        state[USED], state[LAST], state[LEMMAS], state[HINTS], state[POS] = used, last_id, lemmas, hints, pos
        if used == first:
            outcome[0] = 0
            return
    state[USED], state[LAST], state[LEMMAS], state[HINTS], state[POS] = used, last_id, lemmas, hints, pos
    if final and outcome[0] == MORE:
        outcome[0] = 12
