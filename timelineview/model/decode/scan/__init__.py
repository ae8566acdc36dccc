"""The compiled byte scanner: trace event bytes straight to columns (numba kernels), and its output turned
into chunk results (``scan_decode``). Importing this package imports no numba; ``scan_jit`` does."""
