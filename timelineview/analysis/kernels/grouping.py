"""The compute tasks of a card grouped by (op type, core type) and by (op type, input shapes) — the
producer's ``op_statistic.csv`` and its shape view — with FLOPs and achieved TFLOPS per row.

Each statistic is one pass over the tasks (``bincount`` / ``ufunc.at`` on the group each task falls in), made
once per kernel group (``group_stats``, shared by both tables) and summed into the rows from the groups; the
percentiles of the shape rows take one partition of the tasks by (row, duration) at the ranks they need.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.kernels.table import KernelTable

NS_PER_US = 1000.0
FLOPS_PER_TFLOP_NS = 1e3  # flops / ns ÷ 1e3 = TFLOPS (1e12 flops / 1e9 ns)


@dataclass(frozen=True)
class KernelRows:
    """Statistics per row (a distinct key), ordered by total duration, descending.

    ``groups_of_row`` lists, per row, the kernel groups it gathers (a view selects a row's tasks with
    ``np.isin(table.group, groups_of_row[k])``).
    """

    op_type: list[str]
    core_type: list[str]  # by op type: the row's core type; by shape: the core types seen, joined by "/"
    shapes: list[str] | None  # by shape only
    dtypes: list[str] | None
    count: np.ndarray  # int64
    total_ns: np.ndarray  # int64
    min_ns: np.ndarray
    max_ns: np.ndarray
    flops: np.ndarray  # float64 Σ flops; NaN where the op type is not counted
    p50_ns: np.ndarray | None  # by shape only
    p90_ns: np.ndarray | None
    groups_of_row: list[np.ndarray]
    compute_total_ns: int

    def __len__(self) -> int:
        return len(self.op_type)

    @property
    def share(self) -> np.ndarray:
        return self.total_ns / self.compute_total_ns if self.compute_total_ns else np.zeros(len(self))

    @property
    def tflops(self) -> np.ndarray:
        """Achieved TFLOPS: flops / duration (NaN where not counted or no time)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.total_ns > 0, self.flops / np.maximum(self.total_ns, 1) / FLOPS_PER_TFLOP_NS, np.nan)


@dataclass(frozen=True)
class GroupStats:
    """Per kernel group: its tasks, their total duration, the shortest and the longest (int64 ns; a group
    without tasks holds the identities)."""

    count: np.ndarray
    total: np.ndarray
    low: np.ndarray
    high: np.ndarray


def group_stats(table: KernelTable, durations: np.ndarray) -> GroupStats:
    """The tasks' statistics per group of ``table``; ``durations`` are the tasks' (int64 ns, the table's order)."""
    n = len(table.groups)
    group = table.group
    low = np.full(n, np.iinfo(np.int64).max, np.int64)
    high = np.zeros(n, np.int64)
    total = np.zeros(n, np.int64)
    if not len(group):
        return GroupStats(np.zeros(n, np.int64), total, low, high)
    # ``ufunc.at`` on int64: exact, and for ten million tasks about a tenth of a ``bincount`` weighted by int64
    # durations (which casts them to float64 and sums through that path); a sort by group first costs more
    # than all three passes
    np.minimum.at(low, group, durations)
    np.maximum.at(high, group, durations)
    np.add.at(total, group, durations)
    return GroupStats(np.bincount(group, minlength=n).astype(np.int64), total, low, high)


def kernel_rows(table: KernelTable, durations: np.ndarray, by_shape: bool,
                stats: GroupStats | None = None) -> KernelRows:
    """Rows by (op type, core type), or by (op type, input shapes) when ``by_shape``; ``durations`` are the
    tasks' (int64 ns, the table's order); ``stats`` their ``group_stats`` when the caller has them already."""
    g = table.groups
    stats = group_stats(table, durations) if stats is None else stats
    key_columns = [g.op_type, g.shapes] if by_shape else [g.op_type, g.core_type]
    keys = np.stack(key_columns, axis=1) if len(g) else np.zeros((0, 2), np.int32)
    row_keys, row_of_group = np.unique(keys, axis=0, return_inverse=True)
    row_of_group = row_of_group.reshape(-1)
    n_rows = len(row_keys)
    # the rows' figures from their groups': sums of integers (int64, exact), minima, maxima
    count = np.zeros(n_rows, np.int64)
    np.add.at(count, row_of_group, stats.count)
    total = np.zeros(n_rows, np.int64)
    np.add.at(total, row_of_group, stats.total)
    low = np.full(n_rows, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(low, row_of_group, stats.low)
    high = np.zeros(n_rows, np.int64)
    np.maximum.at(high, row_of_group, stats.high)
    counted = ~np.isnan(g.flops)
    flops = np.bincount(row_of_group, weights=np.where(counted, g.flops, 0.0) * stats.count, minlength=n_rows)
    any_counted = np.bincount(row_of_group, weights=counted.astype(float), minlength=n_rows) > 0
    flops = np.where(any_counted, flops, np.nan)
    groups_of_row = _members(row_of_group, n_rows)
    p50 = p90 = None
    if by_shape:
        # int32 (a row per distinct key): the per-task row array is the largest here besides the durations
        row = row_of_group.astype(np.int32)[table.group] if len(table.group) else np.zeros(0, np.int32)
        p50, p90 = _percentiles(row, durations, count)
        del row
    labels = g.text(row_keys[:, 0]) if n_rows else []
    second = g.text(row_keys[:, 1]) if n_rows else []
    if by_shape:
        cores = ["/".join(sorted(set(g.text(g.core_type[m])))) for m in groups_of_row]
        dtypes = [g.text(g.dtypes[m[:1]])[0] if len(m) else "" for m in groups_of_row]
    else:
        cores, dtypes = second, None
    order = sorted(range(n_rows), key=lambda k: (-int(total[k]), labels[k], second[k]))
    pick = np.array(order, np.int64)

    def sub(a: np.ndarray | None) -> np.ndarray | None:
        return None if a is None else a[pick] if n_rows else a

    return KernelRows(op_type=[labels[k] for k in order], core_type=[cores[k] for k in order],
                      shapes=[second[k] for k in order] if by_shape else None,
                      dtypes=[dtypes[k] for k in order] if dtypes is not None else None,
                      count=sub(count), total_ns=sub(total), min_ns=sub(low), max_ns=sub(high), flops=sub(flops),
                      p50_ns=sub(p50), p90_ns=sub(p90), groups_of_row=[groups_of_row[k] for k in order],
                      compute_total_ns=int(durations.sum()))


def _members(row_of_group: np.ndarray, n_rows: int) -> list[np.ndarray]:
    order = np.argsort(row_of_group, kind="stable")
    bounds = np.searchsorted(row_of_group[order], np.arange(n_rows + 1))
    return [order[bounds[k]:bounds[k + 1]].astype(np.int32) for k in range(n_rows)]


def _values_at_ranks(row: np.ndarray, durations: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The durations at ``ranks`` (ascending, distinct) of the tasks sorted by (row, duration). One partition of a
    packed int64 key (row, duration) at those ranks where it fits (twice as fast as its sort: only the ranks
    are put in place), built and partitioned in place: ten million tasks hold one array of theirs here
    besides the caller's. Else one sort of the tasks by the two keys."""
    top = int(durations.max()) + 1 if len(durations) else 1
    if len(row) and int(row.max()) < np.iinfo(np.int64).max // top - 1 and int(durations.min()) >= 0:
        key = row.astype(np.int64)
        key *= top
        key += durations
        key.partition(ranks)
        return key[ranks] % top
    order = np.lexsort((durations, row))
    return durations[order[ranks]].astype(np.int64)


def _percentiles(row: np.ndarray, durations: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median and 90th percentile of each row's durations (``count`` tasks a row; linear between the closest
    ranks, as numpy's default), from the durations at those ranks of the tasks ordered by (row, duration).
    The closest ranks' difference is taken in int64 (exact) before the float product."""
    n_rows, n_tasks = len(count), len(durations)
    bounds = np.concatenate([[0], np.cumsum(count)]).astype(np.int64)
    places = []
    for q in (0.5, 0.9):
        n = bounds[1:] - bounds[:-1]
        pos = bounds[:-1] + q * np.maximum(n - 1, 0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, np.maximum(bounds[1:] - 1, 0))
        lo = np.minimum(lo, max(n_tasks - 1, 0))
        places.append((n, lo, hi, pos - np.floor(pos)))
    if not n_tasks:
        return np.full(n_rows, np.nan), np.full(n_rows, np.nan)
    ranks = np.unique(np.concatenate([a for _, lo, hi, _ in places for a in (lo, hi)]))
    at = _values_at_ranks(row, durations, ranks)
    out = []
    for n, lo, hi, frac in places:
        d_lo, d_hi = at[np.searchsorted(ranks, lo)], at[np.searchsorted(ranks, hi)]
        out.append(np.where(n > 0, d_lo + (d_hi - d_lo) * frac, np.nan))
    return out[0], out[1]
