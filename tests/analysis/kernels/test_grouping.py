"""The tables by op type and by shape against a plain Python grouping of the tasks: counts, sums, extremes and
numpy's percentiles of each row, with durations that pack into one key and durations too long to."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from timelineview.analysis.kernels.grouping import group_stats, kernel_rows
from timelineview.analysis.kernels.table import KernelGroups, KernelTable

STRINGS = ["MatMul", "Add", "AI_CORE", "AI_VECTOR_CORE", "1,2", "3,4", "5"]


def _table(rng: np.random.Generator, tasks: int) -> KernelTable:
    """Groups drawn from few op types, units and shapes, so several groups share a row of either table."""
    n_groups = 24
    op, core, shapes = rng.integers(0, 2, n_groups), rng.integers(2, 4, n_groups), rng.integers(4, 7, n_groups)
    none = np.full(n_groups, -1, np.int32)
    groups = KernelGroups(strings=STRINGS, op_type=op.astype(np.int32), core_type=core.astype(np.int32),
                          shapes=shapes.astype(np.int32), dtypes=none, formats=none, out_shapes=none,
                          flops=np.where(op == 0, 1e6, np.nan))
    group = rng.integers(0, n_groups, tasks).astype(np.int32)
    return KernelTable(source="name", slices=np.arange(tasks, dtype=np.int64), group=group,
                       block_dim=np.full(tasks, -1, np.int32), groups=groups, described=0)


def _plain(table: KernelTable, durations: np.ndarray, by_shape: bool) -> dict[tuple[str, str], list[int]]:
    g = table.groups
    rows: dict[tuple[str, str], list[int]] = defaultdict(list)
    for k, grp in enumerate(table.group.tolist()):
        second = g.shapes[grp] if by_shape else g.core_type[grp]
        rows[(STRINGS[g.op_type[grp]], STRINGS[second])].append(int(durations[k]))
    return rows


@pytest.mark.parametrize("longest", [90_000, 2**61])  # the second does not pack with the row into 63 bits
@pytest.mark.parametrize("by_shape", [False, True])
def test_rows_equal_a_plain_grouping(by_shape, longest):
    rng = np.random.default_rng(5)
    table = _table(rng, 3_000)
    durations = rng.integers(1, 90_000, len(table)).astype(np.int64)
    durations[7] = longest
    got = kernel_rows(table, durations, by_shape)
    plain = _plain(table, durations, by_shape)
    keys = list(zip(got.op_type, got.shapes if by_shape else got.core_type, strict=True))
    assert sorted(keys) == sorted(plain)
    for k, key in enumerate(keys):
        durs = plain[key]
        assert int(got.count[k]) == len(durs)
        # sums are float64 (bincount): exact below 2**53 ns, which a real card's are
        assert int(got.total_ns[k]) == (sum(durs) if sum(durs) < 2**53 else pytest.approx(sum(durs), rel=1e-15))
        assert (int(got.min_ns[k]), int(got.max_ns[k])) == (min(durs), max(durs))
        if by_shape:  # numpy's own interpolation rounds the last bit its way
            assert float(got.p50_ns[k]) == pytest.approx(np.percentile(np.array(durs, np.float64), 50), rel=1e-12)
            assert float(got.p90_ns[k]) == pytest.approx(np.percentile(np.array(durs, np.float64), 90), rel=1e-12)
    shared = kernel_rows(table, durations, by_shape, stats=group_stats(table, durations))
    assert shared.total_ns.tolist() == got.total_ns.tolist() and shared.op_type == got.op_type
