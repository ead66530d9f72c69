"""The LRAT check stays linear on hostile proofs: seconds per proof byte at growing sizes.

    python -m benchmarks lrat-scaling [--sizes 32,64,128,256] [--repeat 1]

Three proofs of each size (MB), all valid refutations of one small formula (two variables' four clauses,
and unit clauses setting 1,000 more false), checked by ``nqcsp.proof.lrat.check_lrat`` in this process:

- ``normal``: wide lemmas (1,000 literals), each deleted once the next is there, as a search tree's
  proof deletes its children;
- ``many small``: the same bytes, but 1,000 two-literal lemmas (each deleted at once) between two wide
  ones: the clause numbers grow 500 times faster than the live clauses, which made every compaction of
  the old checker walk every number up to the last (quadratic);
- ``raised numbers``: the old hostile proof, a first lemma numbered near the proof's size, which the
  bytes 0x61 inside varints allowed; now refused at once (the k-th step may take the formula's clauses
  plus k), so its row shows how fast.

Prints seconds and nanoseconds per byte for each; linear means flat ns/byte as the size doubles.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence

WIDTH = 1000
UNITS = range(3, WIDTH + 3)
CNF = (f"p cnf {WIDTH + 2} {WIDTH + 4}\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n"
       + "".join(f"-{v} 0\n" for v in UNITS)).encode()
FIRST = WIDTH + 5           # the first number a lemma takes
WIDE = "1 " + " ".join(map(str, UNITS))
UNIT_HINTS = " ".join(str(clause) for clause in range(5, WIDTH + 5))


def proof(kind: str, megabytes: int) -> bytes:
    """Each addition takes the largest number its step may (the formula's clauses plus its step's)."""
    target = megabytes << 20
    lines: list[str] = []
    size = 0
    number = FIRST
    last_wide = None
    while size < target:
        if kind == "many small":
            for _ in range(1000):
                small = f"{number} 1 3 0 1 3 0\n{number} d {number} 0\n"
                lines.append(small)
                size += len(small)
                number += 2   # the lemma and its deletion are two steps
        line = f"{number} {WIDE} 0 1 3 0\n"
        steps = 1
        if last_wide is not None:
            line += f"{number} d {last_wide} 0\n"
            steps += 1
        lines.append(line)
        size += len(line)
        last_wide = number
        number += steps
    lines.append(f"{number} 0 {UNIT_HINTS} {last_wide} 2 4 0\n")
    return "".join(lines).encode()


def varint(x: int) -> bytes:
    u, out = (2 * x if x >= 0 else -2 * x + 1), bytearray()
    while u >= 128:
        out.append((u & 127) | 128)
        u >>= 7
    out.append(u)
    return bytes(out)


def raised(megabytes: int) -> bytes:
    """The normal proof in binary, its clause numbers starting at a quarter of its size, then as many bytes
    'a' after the empty clause: the old checker counted every 'a' of the proof towards the numbers it allowed,
    and each of its compactions then walked every number up to the last."""
    target = megabytes << 20
    body = b"".join(varint(x) for x in (*map(int, WIDE.split()), 0, 1, 3, 0))
    offset = target // 4
    parts: list[bytes] = []
    size = 0
    number, last_wide = offset, None
    while size < target // 2:
        step = b"a" + varint(number) + body
        if last_wide is not None:
            step += b"d" + varint(last_wide) + b"\x00"
        parts.append(step)
        size += len(step)
        last_wide, number = number, number + 2
    hints = b"".join(varint(x) for x in (*range(5, WIDTH + 5), last_wide, 2, 4, 0))
    parts.append(b"a" + varint(number) + b"\x00" + hints)
    size = sum(map(len, parts))
    return b"".join(parts) + b"a" * max(0, target - size)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks lrat-scaling",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="32,64,128,256", help="proof sizes in MB, comma-separated")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    from nqcsp.proof.lrat import check_lrat

    check_lrat(CNF, proof("normal", 1))   # loads the kernel outside every timing
    print(f"{'proof':<16}{'MB':>6}{'accepted':>10}{'seconds':>10}{'ns/byte':>10}")
    for megabytes in (int(x) for x in args.sizes.split(",")):
        for kind in ("normal", "many small", "raised numbers"):
            data = raised(megabytes) if kind == "raised numbers" else proof(kind, megabytes)
            best = float("inf")
            for _ in range(args.repeat):
                started = time.perf_counter()
                verdict = check_lrat(CNF, data)
                best = min(best, time.perf_counter() - started)
            print(f"{kind:<16}{len(data) / 2**20:>6.0f}{verdict.ok!s:>10}{best:>10.2f}"
                  f"{best / len(data) * 1e9:>10.1f}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
