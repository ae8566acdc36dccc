"""The nesting-stack walk that lays out a lane whose slices overlap without nesting.

One pass over the lane's slices (sorted by start, longer first) keeps a stack of open
ends: a slice that fits inside the innermost open slice goes one level deeper, one that
does not overflows, and the overflowed slices are laid out the same way in rows below.
It is a loop over slices, so it has two forms with the same result: plain Python, and
a numba-compiled one, used once ``load.jit.warm_scanner`` has readied it (importing numba
only for this would cost more than it saves).
"""

from __future__ import annotations

import numpy as np


def stack_levels_python(starts: list[int], ends: list[int], level: np.ndarray) -> int:
    """Fill ``level`` for the slices (start, end) of one lane; return how many overflowed
    the first pass. The walk below, run by the interpreter on lists."""
    n = len(starts)
    levels = [-1] * n
    over = _stack_levels_kernel(starts, ends, levels, [0] * n, [0] * n, [0] * n)
    level[:] = levels
    return over


def _stack_levels_kernel(starts, ends, level, stack, pending, overflow):
    """The walk: fill ``level``, return the first pass's overflow count. ``stack``,
    ``pending`` and ``overflow`` are scratch sequences as long as the lane (lists for the
    interpreter, arrays compiled)."""
    n_pending = len(starts)
    for i in range(n_pending):
        pending[i] = i
    base = 0
    first_overflow = -1
    while n_pending:
        depth = 0
        n_over = 0
        top = 0
        for k in range(n_pending):
            i = pending[k]
            s, e = starts[i], ends[i]
            while depth and stack[depth - 1] <= s:
                depth -= 1
            if depth == 0 or e <= stack[depth - 1]:
                level[i] = base + depth
                stack[depth] = e
                depth += 1
                top = max(top, depth)
            else:
                overflow[n_over] = i
                n_over += 1
        if first_overflow < 0:
            first_overflow = n_over
        base += top
        pending, overflow = overflow, pending
        n_pending = n_over
    return max(first_overflow, 0)


_compiled = None  # the compiled walk, once ``warm`` or a call made it


def stack_levels(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, int]:
    """Levels of one lane's slices (sorted by start, longer first) and how many overflowed
    the first pass: compiled for a long lane when this process has it ready."""
    level = np.full(len(starts), -1, dtype=np.int64)
    if _compiled is not None and len(starts) > 1000:
        over = stack_levels_compiled(starts.astype(np.int64), ends.astype(np.int64), level)
    else:
        over = stack_levels_python(starts.tolist(), ends.tolist(), level)
    return level, over


def stack_levels_compiled(starts: np.ndarray, ends: np.ndarray, level: np.ndarray) -> int:
    """``stack_levels_python`` compiled by numba (int64 arrays)."""
    global _compiled
    if _compiled is None:
        from timelineview.model.decode.scan.scan_jit import numba

        _compiled = numba.njit(cache=True, nogil=True, boundscheck=False)(_stack_levels_kernel)
    n = len(starts)
    scratch = np.empty((3, n), dtype=np.int64)
    return _compiled(starts, ends, level, scratch[0], scratch[1], scratch[2])


def warm() -> None:
    """Compile (or load from numba's cache) the compiled walk; ``stack_levels`` uses it from
    then on."""
    stack_levels_compiled(np.array([0, 1], np.int64), np.array([2, 3], np.int64), np.zeros(2, np.int64))
