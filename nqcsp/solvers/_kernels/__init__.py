"""Numba kernels: arrays and scalars in, arrays out. Imported only by the backends that use them."""
