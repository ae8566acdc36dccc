"""Grouping millions of tasks by several integer columns without sorting rows: each column is turned into dense
ids (``distinct_inverse``), and the columns are combined one at a time, re-densified after each, so every key
stays one int64 (``np.unique(axis=0)`` on ten million rows takes minutes)."""

from __future__ import annotations

import numpy as np

from timelineview.analysis.kernels.dense_ids import distinct_inverse, first_positions

CONTENDERS_MIN_ROWS = 4096  # fewer rows: the passes over all of them cost less than finding the contenders


def group_rows(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the group of each row, the first row of each group) of the rows of ``columns`` (equal lengths)."""
    _, group = distinct_inverse(np.asarray(columns[0]))
    for column in columns[1:]:
        values, ids = distinct_inverse(np.asarray(column))
        _, group = distinct_inverse(group.astype(np.int64) * max(len(values), 1) + ids)
    n = int(group.max()) + 1 if len(group) else 0
    return group.astype(np.int64), first_positions(group, n)


def longest_of(values: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` largest ``values``, largest first (ties: the earlier first)."""
    if len(values) > k:
        pick = np.argpartition(-values, k - 1)[:k] if k > 0 else np.zeros(0, np.int64)
    else:
        pick = np.arange(len(values))
    return pick[np.lexsort((pick, -values[pick]))]


def longest_per_group(group: np.ndarray, values: np.ndarray, n_groups: int, k: int) -> list[np.ndarray]:
    """Per group, the positions of its ``k`` largest ``values``, largest first (ties: the earlier first). The rows
    that can be among them are found first (``_contenders``), then ``k`` passes of a per-group maximum over those,
    no sort of all the values (ten million of them take seconds to sort)."""
    values = np.asarray(values).astype(np.int64, copy=False)
    rows = _contenders(group, values, n_groups, k)
    picked = _longest_per_group_of(group[rows], values[rows], n_groups, k)
    return [rows[p] for p in picked]


def _contenders(group: np.ndarray, values: np.ndarray, n_groups: int, k: int) -> np.ndarray:
    """The rows whose value is at least a lower bound of their group's ``k``-th largest, ascending. Rows are dealt
    into ``k`` interleaved hands; the ``k`` hands' maxima of a group are ``k`` of its values, so the least of them
    is at most its ``k``-th largest (a group missing from a hand keeps all its rows)."""
    if k <= 0 or len(values) <= CONTENDERS_MIN_ROWS:
        return np.arange(len(values))
    bound = np.full(n_groups, np.iinfo(np.int64).max, np.int64)
    for hand in range(k):
        best = np.full(n_groups, np.iinfo(np.int64).min, np.int64)
        np.maximum.at(best, group[hand::k], values[hand::k])
        np.minimum(bound, best, out=bound)
    return np.flatnonzero(values >= bound[group])


def _longest_per_group_of(group: np.ndarray, values: np.ndarray, n_groups: int, k: int) -> list[np.ndarray]:
    """``longest_per_group`` over every row."""
    left = np.arange(len(values))
    picked: list[np.ndarray] = []
    for _ in range(k):
        if not len(left):
            break
        g, v = group[left], values[left]
        best = np.full(n_groups, np.iinfo(np.int64).min, np.int64)
        np.maximum.at(best, g, v.astype(np.int64))
        at_best = left[v == best[g]]
        first = np.full(n_groups, len(values), np.int64)
        np.minimum.at(first, group[at_best], at_best)
        chosen = first[first < len(values)]
        picked.append(chosen)
        keep = np.ones(len(values), bool)
        keep[chosen] = False
        left = left[keep[left]]
    if not picked:
        return [np.zeros(0, np.int64) for _ in range(n_groups)]
    rank = np.concatenate([np.full(len(p), r) for r, p in enumerate(picked)])
    chosen = np.concatenate(picked)
    order = np.lexsort((rank, group[chosen]))  # a few per group: a small sort
    chosen = chosen[order]
    bounds = np.searchsorted(group[chosen], np.arange(n_groups + 1))
    return [chosen[bounds[g]:bounds[g + 1]] for g in range(n_groups)]


def stream_order(lane: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Positions by (lane, start), ties in the order given: no sort when they are so already, else a stable sort by
    start and a radix sort by lane (few lanes)."""
    n = len(start)
    by_start = bool(n < 2 or (start[1:] >= start[:-1]).all())
    if by_start and bool(n < 2 or (lane[1:] >= lane[:-1]).all()):
        return np.arange(n)
    order = np.arange(n) if by_start else np.argsort(start, kind="stable")
    lanes = lane[order]
    fits = len(lanes) and 0 <= int(lanes.min()) and int(lanes.max()) < np.iinfo(np.int16).max
    small = lanes.astype(np.int16) if fits else lanes
    return order[np.argsort(small, kind="stable")]
