"""The kernel of ``nqcsp.proof.lrat``: LRAT reading and hint-directed unit propagation (numba).

The formula comes in as arrays (``nqcsp.proof.dimacs.Cnf``, laid out by ``nqcsp.proof.lrat``): this kernel
reads no DIMACS. Proof bytes in, a status array out; see ``nqcsp.proof.lrat`` for what is accepted.
``outcome`` = code (0 accepted, else a key of ``nqcsp.proof.lrat._REASONS``, or ``MORE``/``GROW``), detail
(a clause number or an error kind).
"""

from __future__ import annotations

import numpy as np

from nqcsp.runtime.jit import njit, njit_unrefcounted

_SPACE, _TAB, _NEWLINE, _RETURN = 32, 9, 10, 13
_DELETE, _ADD, _MINUS, _ZERO, _NINE = 100, 97, 45, 48, 57
_LARGEST = 1 << 40

# ``_next``'s status: a number, a text 'd', the end of the data, or why not.
NUMBER, DELETE, END = 1, 2, 0
TOO_BIG, UNEXPECTED, CUT = -1, -2, -3


@njit(cache=True, nogil=True, inline="always")
def _is_space(byte):
    return byte in (_SPACE, _NEWLINE, _TAB, _RETURN)


@njit(cache=True, nogil=True)
def _skip(data, pos):
    """Past white space: the next token's start."""
    n = data.shape[0]
    while pos < n and _is_space(data[pos]):
        pos += 1
    return pos


@njit(cache=True, nogil=True)
def _next(data, pos, binary, final):
    """(status, value, pos): ``NUMBER``; ``DELETE`` (a text 'd'); ``END`` of the data when ``final`` (text:
    nothing but white space left); ``TOO_BIG``, ``UNEXPECTED``; ``CUT``: the data ends before
    or inside the token and more may come (not ``final``), or, when ``final``, a binary number ends early."""
    n = data.shape[0]
    if binary:
        value = np.int64(0)
        shift = 0
        while True:
            if pos >= n:
                return CUT, 0, pos
            byte = np.int64(data[pos])
            pos += 1
            value |= (byte & 127) << shift
            if byte < 128:
                break
            shift += 7
            if shift > 42:
                return TOO_BIG, 0, pos
        if value == 1:
            return UNEXPECTED, 0, pos      # "-0": no number is written so (cake_lpr refuses it too)
        if value & 1:
            return NUMBER, -(value >> 1), pos
        return NUMBER, value >> 1, pos
    pos = _skip(data, pos)
    if pos >= n:
        return (END if final else CUT), 0, pos  # more of the step may come
    if data[pos] == _DELETE:
        if pos + 1 >= n:
            return (UNEXPECTED if final else CUT), 0, pos
        if not _is_space(data[pos + 1]):
            return UNEXPECTED, 0, pos
        return DELETE, 0, pos + 1
    sign = 1
    if data[pos] == _MINUS:
        sign = -1
        pos += 1
    start = pos
    value = np.int64(0)
    while pos < n and _ZERO <= data[pos] <= _NINE:
        value = value * 10 + (data[pos] - _ZERO)
        if value > _LARGEST:
            return TOO_BIG, 0, pos
        pos += 1
    if pos >= n and not final:
        return CUT, 0, pos  # more digits may follow in the next piece
    if pos == start or (pos < n and not _is_space(data[pos])):
        return UNEXPECTED, 0, pos
    return NUMBER, sign * value, pos


@njit_unrefcounted(cache=True, nogil=True, inline="always")
def _compact(store, used, first, starts, lengths, alive, order, live):
    """Room for more literals: the live clauses (``order[:live]``, in store order) and the clause being
    read (``store[first:used]``) moved to the front, the deleted ones' literals and entries dropped;
    (used, first, live). Its cost is the entries it walks, each live one or deleted since the last time,
    so a proof is checked in time linear in its size whatever numbers its clauses take, and in memory
    bounded by what is live (a search tree's proof deletes each node's children)."""
    at = 0
    kept = 0
    for k in range(live):
        clause = order[k]
        if alive[clause]:
            start = starts[clause]
            starts[clause] = at
            for offset in range(lengths[clause]):  # forwards: a clause only ever moves down
                store[at + offset] = store[start + offset]
            at += lengths[clause]
            order[kept] = clause
            kept += 1
    for offset in range(used - first):
        store[at + offset] = store[first + offset]
    return at + used - first, at, kept


# ``check_steps``' ``state``: literals stored, the last clause number, lemmas checked, hints followed, the
# first byte not yet read, steps read, entries of ``order``, the table size a ``GROW`` asks for, whether a
# step has added the empty clause.
USED, LAST, LEMMAS, HINTS, POS, STEPS, LIVE, NEED, DERIVED = 0, 1, 2, 3, 4, 5, 6, 7, 8
STATE_SIZE = 9
MORE = -1   # ``outcome[0]`` when the proof read so far may go on (unless ``final``)
GROW = -2   # ``outcome[0]`` when a table must grow (to ``state[NEED]`` entries, or ``order`` or the store
            # when it is 0): the caller grows it and calls again


# It allocates nothing (the caller grows the tables), so it runs without reference counting.
@njit_unrefcounted(cache=True, nogil=True)
def check_steps(proof, binary, final, num_clauses, num_vars, starts, lengths, alive, store, order, value,
                trail, state, outcome):
    """Check the additions and deletions of ``proof`` from ``state[POS]`` on, to its end; when ``final``,
    accepted (``outcome[0]`` 0) if one of them added the empty clause. The k-th step of the proof may add
    a clause numbered at most ``num_clauses + k``, above the last one added. Unless ``final``, a
    step the data ends inside is left unread (nothing of it applied) and ``outcome[0]`` is ``MORE``, with
    ``state[POS]`` at its start, for the caller to come back with more of the proof; ``GROW`` likewise
    when a table is too small."""
    used = state[USED]
    last_id = state[LAST]
    lemmas = state[LEMMAS]
    hints = state[HINTS]
    pos = state[POS]
    steps = state[STEPS]
    live = state[LIVE]
    n = proof.shape[0]
    outcome[0] = MORE
    while True:
        step_start = pos
        deletion = False
        clause = np.int64(0)
        if binary:
            if pos >= n:
                break
            kind = proof[pos]
            pos += 1
            if kind == _DELETE:
                deletion = True
            elif kind == _ADD:
                status, clause, pos = _next(proof, pos, True, final)
                if status == CUT and not final:
                    pos = step_start
                    break
                if status != NUMBER:
                    outcome[0], outcome[1] = 3, status
                    return
                if clause <= 0:
                    outcome[0], outcome[1] = 3, UNEXPECTED
                    return
            else:
                outcome[0], outcome[1] = 3, pos - 1
                return
        else:
            status, clause, pos = _next(proof, pos, False, final)
            if status == END:
                break
            if status == CUT:
                pos = step_start
                break
            if status != NUMBER or clause <= 0:
                outcome[0], outcome[1] = 3, UNEXPECTED if status >= 0 else status
                return
            status, _, after = _next(proof, pos, False, final)
            if status == CUT:
                pos = step_start
                break
            if status == DELETE:
                deletion = True
                pos = after
        if deletion:
            # Read to the step's end before deleting anything: a step cut short is left for later whole.
            scan = pos
            while True:
                status, gone, scan = _next(proof, scan, binary, final)
                if status != NUMBER or gone == 0:
                    break
            if status == CUT and not final:
                pos = step_start
                break
            if status != NUMBER:
                outcome[0], outcome[1] = 3, CUT if status == END else status
                return
            while True:
                status, gone, pos = _next(proof, pos, binary, True)  # the step is whole
                if gone == 0:
                    break
                if gone < 0 or gone >= starts.shape[0] or alive[gone] == 0:
                    outcome[0], outcome[1] = 11, gone
                    return
                alive[gone] = 0
            steps += 1
            state[POS], state[STEPS] = pos, steps
            continue
        if clause <= last_id or clause > num_clauses + steps + 1:
            outcome[0], outcome[1] = 4, clause
            return
        if clause >= starts.shape[0] or live >= order.shape[0]:
            outcome[0] = GROW
            state[NEED] = clause + 1 if clause >= starts.shape[0] else 0
            pos = step_start
            break
        first = used
        hints_before = hints
        assigned = 0
        conflict = False
        cut = False
        while True:
            status, lit, pos = _next(proof, pos, binary, final)
            if status != NUMBER:
                cut = status == CUT and not final
                if not cut:
                    outcome[0], outcome[1] = 3, CUT if status == END else status
                break
            if lit == 0:
                break
            var = abs(lit)
            if var > num_vars:
                outcome[0], outcome[1] = 5, clause
                break
            false_value = -1 if lit > 0 else 1
            if value[var] == false_value:
                continue  # the same literal again: the clause is the same without it
            if used >= store.shape[0]:
                used, first, live = _compact(store, used, first, starts, lengths, alive, order, live)
                if 2 * used > store.shape[0]:
                    outcome[0] = GROW
                    state[NEED] = 0
                    cut = True
                    break
            store[used] = lit
            used += 1
            if value[var] == 0:
                value[var] = false_value
                trail[assigned] = var
                assigned += 1
            else:
                conflict = True  # the clause holds a literal and its negation: a tautology
        while outcome[0] == MORE and not cut:
            status, hint, pos = _next(proof, pos, binary, final)
            if status != NUMBER:
                cut = status == CUT and not final
                if not cut:
                    outcome[0], outcome[1] = 3, CUT if status == END else status
                break
            if hint == 0:
                break
            if hint < 0:
                outcome[0], outcome[1] = 10, clause
                break
            if conflict:
                continue
            if hint >= clause or alive[hint] == 0:
                outcome[0], outcome[1] = 6, clause
                break
            hints += 1
            open_count = 0
            open_lit = 0
            for at in range(starts[hint], starts[hint] + lengths[hint]):
                other = store[at]
                current = value[abs(other)]
                if current == 0:
                    # One open literal written twice is still one.
                    if open_count == 0 or other != open_lit:
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
            hints = hints_before
            pos = step_start
            break
        if outcome[0] != MORE:
            return
        if not conflict:
            outcome[0], outcome[1] = 9, clause
            return
        starts[clause] = first
        lengths[clause] = used - first
        alive[clause] = 1
        order[live] = clause
        live += 1
        last_id = clause
        lemmas += 1
        steps += 1
        state[USED], state[LAST], state[LEMMAS], state[HINTS] = used, last_id, lemmas, hints
        state[POS], state[STEPS], state[LIVE] = pos, steps, live
        if used == first:
            state[DERIVED] = 1      # the steps after it are read and checked all the same
    state[USED], state[LAST], state[LEMMAS], state[HINTS] = used, last_id, lemmas, hints
    state[POS], state[STEPS], state[LIVE] = pos, steps, live
    if final and outcome[0] == MORE:
        outcome[0] = 0 if state[DERIVED] else 12
