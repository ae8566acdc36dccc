"""A card's task counts and times split by step: each task falls in the step its start lies in, and the tasks are
summed per (kind, step) in one pass, the tables' rows then being sums of kinds (a few thousand kinds × steps
instead of ten million tasks per table)."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.advisor.tasks import StepWindows

NS_PER_US = 1000.0
MAX_CELLS_PER_TASK = 4  # more (kind, step) cells than this per task: sum each table's rows from the tasks instead


def step_column(start: np.ndarray, steps: StepWindows) -> np.ndarray:
    """Each start's step, ``len(steps.starts)`` for a start in none. One search over the steps' edges side by
    side (start, end, start, end…): an odd position is inside a step (a step ending where the next begins
    gives the start to the next)."""
    edges = np.column_stack((steps.starts, steps.ends)).reshape(-1)
    column = np.searchsorted(edges, start, side="right")
    outside = (column & 1) == 0
    column >>= 1  # in place: ten million tasks, as few arrays of them as can be
    column[outside] = len(steps.starts)
    return column


def step_sums(key: np.ndarray, n_keys: int, column: np.ndarray, n_steps: int,
              dur: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(tasks, ns) per [key, step] of the tasks' ``key`` (< 0: none) and step ``column`` (``n_steps``: none)."""
    cell = np.multiply(key, n_steps + 1, dtype=np.int64)
    if len(key) and int(key.min()) < 0:
        cell[key < 0] = n_keys * (n_steps + 1)
    cell += column
    size = (n_keys + 1) * (n_steps + 1)
    counts = np.bincount(cell, minlength=size).reshape(n_keys + 1, n_steps + 1)[:n_keys, :n_steps]
    ns = np.bincount(cell, weights=dur, minlength=size).reshape(n_keys + 1, n_steps + 1)[:n_keys, :n_steps]
    return counts, ns


def summed_rows(counts: np.ndarray, ns: np.ndarray, row_of_key: np.ndarray, n_rows: int) -> list[list[list]]:
    """Per row, [[tasks per step], [µs per step]]: the keys' cells summed into their rows (-1: in none)."""
    mine = np.flatnonzero(row_of_key >= 0)
    row_counts = np.zeros((n_rows, counts.shape[1]), np.int64)
    row_ns = np.zeros((n_rows, counts.shape[1]))
    np.add.at(row_counts, row_of_key[mine], counts[mine])
    np.add.at(row_ns, row_of_key[mine], ns[mine])
    return [[c, (t / NS_PER_US).tolist()] for c, t in zip(row_counts.tolist(), row_ns, strict=True)]


def split_by_step(kind_of_task: np.ndarray, n_kinds: int, start: np.ndarray, dur: np.ndarray, steps: StepWindows,
                  tables: list[tuple[np.ndarray, int]]) -> list[list[list]]:
    """Per table (each: its row of every kind, -1 for none, and its number of rows), its rows split by step."""
    n_steps = len(steps.starts)
    column = step_column(start, steps)
    if n_kinds * (n_steps + 1) <= MAX_CELLS_PER_TASK * len(start) + 4096:
        counts, ns = step_sums(kind_of_task, n_kinds, column, n_steps, dur)
        return [summed_rows(counts, ns, row_of_kind, n_rows) for row_of_kind, n_rows in tables]
    out = []
    for row_of_kind, n_rows in tables:  # kinds almost as many as tasks: each table from the tasks
        counts, ns = step_sums(row_of_kind[kind_of_task], n_rows, column, n_steps, dur)
        out.append(summed_rows(counts, ns, np.arange(n_rows), n_rows))
    return out
