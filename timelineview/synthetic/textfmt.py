"""Integer nanoseconds to the microsecond text producers write, exactly (no float rounding).

``us_str`` gives the CANN 8 string form with exactly three decimals (``1736412474721123.620``);
``us_num`` gives the float-looking form with trailing zeros trimmed (``56635864664.91``,
``0.0``). Both represent the nanosecond value exactly, so a loader that parses the text
digit by digit gets the ground-truth ns back.
"""

from __future__ import annotations

import numpy as np

_FRAC3 = [f"{r:03d}" for r in range(1000)]
_FRAC_TRIM = [(f"{r:03d}".rstrip("0") or "0") for r in range(1000)]


def _split(ns: np.ndarray) -> tuple[list[int], list[int]]:
    ns = np.asarray(ns, np.int64)
    if len(ns) and int(ns.min()) < 0:
        raise ValueError("negative time cannot be written")
    q, r = np.divmod(ns, 1000)
    return q.tolist(), r.tolist()


def us_str(ns: np.ndarray) -> list[str]:
    """Three-decimal microsecond text per value (no quotes)."""
    q, r = _split(ns)
    f = _FRAC3
    return [f"{a}.{f[b]}" for a, b in zip(q, r)]


def us_num(ns: np.ndarray) -> list[str]:
    """Shortest exact microsecond number text per value, always with a decimal point."""
    q, r = _split(ns)
    f = _FRAC_TRIM
    return [f"{a}.{f[b]}" for a, b in zip(q, r)]


def us_str1(ns: int) -> str:
    return us_str(np.array([ns]))[0]


def us_num1(ns: int) -> str:
    return us_num(np.array([ns]))[0]
