"""Numba kernels: arrays and scalars in, arrays out. Each backend keeps its kernels in its own module."""
