"""Single-instruction bit counts for the bitboard kernels (numba has no popcount or count-trailing-zeros).

LLVM's ``ctpop`` and ``cttz`` become one POPCNT / TZCNT instruction on every x86-64 and ARM64 CPU that
numba targets for its host; the shift-and-mask versions they replace took a dozen operations, and the
residual search does several per node.
"""

from __future__ import annotations

from llvmlite import ir

from nqcsp.runtime.jit import intrinsic, types


@intrinsic
def popcount(typingctx, word):
    """The set bits of a uint64, as an int64."""
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])
    return types.int64(types.uint64), codegen


@intrinsic
def lowest_bit_index(typingctx, word):
    """The position of the lowest set bit of a nonzero uint64, as an int64."""
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))
    return types.int64(types.uint64), codegen
