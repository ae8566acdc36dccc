"""The compute tasks of a card grouped by (op type, core type) and by (op type, input shapes) — the
producer's ``op_statistic.csv`` and its shape view — with FLOPs and achieved TFLOPS per row.

Each statistic is one pass over the tasks (``bincount`` / ``ufunc.at`` on the row each task falls in);
the percentiles of the shape rows take one sort of the tasks by (row, duration).
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


def kernel_rows(table: KernelTable, durations: np.ndarray, by_shape: bool) -> KernelRows:
    """Rows by (op type, core type), or by (op type, input shapes) when ``by_shape``; ``durations`` are the
    tasks' (int64 ns, the table's order)."""
    g = table.groups
    key_columns = [g.op_type, g.shapes] if by_shape else [g.op_type, g.core_type]
    keys = np.stack(key_columns, axis=1) if len(g) else np.zeros((0, 2), np.int32)
    row_keys, row_of_group = np.unique(keys, axis=0, return_inverse=True)
    row_of_group = row_of_group.reshape(-1)
    n_rows = len(row_keys)
    # int32 (a row per distinct key): the per-task row array is the largest here besides the durations
    row = row_of_group.astype(np.int32)[table.group] if len(table.group) else np.zeros(0, np.int32)
    count = np.bincount(row, minlength=n_rows).astype(np.int64)
    total = np.bincount(row, weights=durations, minlength=n_rows) if len(row) else np.zeros(n_rows)
    total = np.zeros(n_rows, np.int64) + np.asarray(total).round().astype(np.int64)
    low = np.full(n_rows, np.iinfo(np.int64).max, np.int64)
    np.minimum.at(low, row, durations)
    high = np.zeros(n_rows, np.int64)
    np.maximum.at(high, row, durations)
    group_count = np.bincount(table.group, minlength=len(g)) if len(table.group) else np.zeros(len(g), np.int64)
    counted = ~np.isnan(g.flops)
    flops = np.bincount(row_of_group, weights=np.where(counted, g.flops, 0.0) * group_count, minlength=n_rows)
    any_counted = np.bincount(row_of_group, weights=counted.astype(float), minlength=n_rows) > 0
    flops = np.where(any_counted, flops, np.nan)
    groups_of_row = _members(row_of_group, n_rows)
    p50 = p90 = None
    if by_shape:
        p50, p90 = _percentiles(row, durations, n_rows)
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


def _sorted_by_row(row: np.ndarray, durations: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """(where each row starts among the tasks sorted by (row, duration), then the end; the durations in that
    order): one sort of a packed int64 key (row, duration) where it fits, which is several times
    faster than sorting indices by two keys. The key is built and sorted in place, the rows' starts are
    found in it and it is turned into the durations in place, so ten million tasks hold one array of theirs
    here besides the caller's."""
    top = int(durations.max()) + 1 if len(durations) else 1
    if len(row) and int(row.max()) < np.iinfo(np.int64).max // top - 1 and int(durations.min()) >= 0:
        key = row.astype(np.int64)
        key *= top
        key += durations
        key.sort()
        bounds = np.searchsorted(key, np.arange(n_rows + 1, dtype=np.int64) * top)
        np.remainder(key, top, out=key)
        return bounds, key
    order = np.lexsort((durations, row))
    return np.searchsorted(row[order], np.arange(n_rows + 1)), durations[order].astype(np.float64)


def _percentiles(row: np.ndarray, durations: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Median and 90th percentile of each row's durations (linear between the closest ranks, as numpy's
    default), from one sort of the tasks by (row, duration). The sorted durations may be int64 (exact below
    2**53 ns, as float64 holds them): the closest ranks' difference is taken before the float product."""
    bounds, d = _sorted_by_row(row, durations, n_rows)
    out = []
    for q in (0.5, 0.9):
        n = bounds[1:] - bounds[:-1]
        pos = bounds[:-1] + q * np.maximum(n - 1, 0)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, np.maximum(bounds[1:] - 1, 0))
        lo = np.minimum(lo, max(len(d) - 1, 0))
        frac = pos - np.floor(pos)
        value = d[lo] + (d[hi] - d[lo]) * frac if len(d) else np.zeros(n_rows)
        out.append(np.where(n > 0, value, np.nan))
    return out[0], out[1]
