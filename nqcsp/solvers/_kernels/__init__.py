"""Numba kernels of local search: arrays and scalars in, arrays out (the bitboard kernels live in
``nqcsp.bitboard``)."""
