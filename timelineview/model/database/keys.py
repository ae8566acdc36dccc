"""Distinct values of integer key columns, without numpy's general ``unique`` where it is slow.

``np.unique`` with ``return_inverse`` sorts the whole column (an ``argsort`` of millions of
task rows for their few streams), and its hash path took seconds on a few million connection
ids; a lookup table over the values' span, or a sort and a comparison, does the same in a
fraction of that.
"""

from __future__ import annotations

import numpy as np

DENSE_SPAN = 1 << 22  # a column whose values span at most this many integers gets a lookup table


def sorted_unique(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending."""
    s = np.sort(values)
    if len(s) < 2:
        return s
    keep = np.empty(len(s), bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]


def unique_inverse(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values ascending, each value's position among them): ``np.unique(values,
    return_inverse=True)``, by a lookup table when the values span few integers."""
    values = np.asarray(values)
    if not len(values) or values.dtype.kind not in "iu":
        uniq, inverse = np.unique(values, return_inverse=True)
        return uniq, inverse.reshape(-1)
    lo, hi = int(values.min()), int(values.max())
    if hi - lo >= DENSE_SPAN:
        uniq, inverse = np.unique(values, return_inverse=True)
        return uniq, inverse.reshape(-1)
    shifted = values - lo if lo else values
    present = np.zeros(hi - lo + 1, bool)
    present[shifted] = True
    at = np.flatnonzero(present)
    lut = np.zeros(hi - lo + 1, np.int64)
    lut[at] = np.arange(len(at))
    return (at + lo).astype(values.dtype), lut[shifted]
