"""The packed n-gram count of the vector-run check against a plain Python count of the same pieces, on random
sequences: few op types (packed into one integer per piece) and many (one column per position)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from timelineview.analysis.advisor.task_groups import longest_per_group
from timelineview.analysis.advisor.vector_runs import MAX_SEQUENCE, sequence_groups


def random_pieces(rng: np.random.Generator, n_pieces: int, n_types: int) -> tuple[np.ndarray, np.ndarray]:
    lengths = rng.integers(1, MAX_SEQUENCE + 1, n_pieces)
    bounds = np.concatenate(([0], np.cumsum(lengths)))
    return rng.integers(-1, n_types, int(bounds[-1])), bounds


@pytest.mark.parametrize("n_types", [3, 40, 1000])  # 1000 op types need more than 63 bits for 8 positions
def test_sequence_groups_count_as_a_plain_python_count(n_types):
    rng = np.random.default_rng(n_types)
    op_type, bounds = random_pieces(rng, 3000, n_types)
    pieces = [tuple(op_type[bounds[i]:bounds[i + 1]].tolist()) for i in range(len(bounds) - 1)]
    which, first = sequence_groups(op_type, bounds)
    reference = Counter(pieces)
    assert len(first) == len(reference)
    assert Counter({pieces[int(f)]: int(c) for f, c in zip(first, np.bincount(which), strict=True)}) == reference
    assert all(pieces[int(first[w])] == p for w, p in zip(which.tolist(), pieces, strict=True))
    # numbered in the lexicographic order of the sequences (a prefix first), as the check's ties are broken
    assert [pieces[int(f)] for f in first] == sorted(reference)


def test_longest_per_group_as_a_plain_sort():
    rng = np.random.default_rng(7)
    n, groups, k = 50_000, 60, 3
    group = np.where(rng.random(n) < 0.001, groups - 1, rng.integers(0, groups - 1, n))  # one rare group
    values = rng.integers(0, 500, n)  # many ties: the earlier row first
    got = longest_per_group(group, values, groups, k)
    for g in range(groups):
        rows = [r for r in range(n) if group[r] == g]
        expected = sorted(rows, key=lambda r: (-values[r], r))[:k]
        assert got[g].tolist() == expected
