"""coverage_fraction equals the covered share of each pixel column computed interval by interval, also
when a column is narrower than a nanosecond (the deepest zoom)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from timelineview.viewstate.timeline.lod import coverage_fraction


def reference(starts, ends, t0: int, t1: int, width: int) -> list[float]:
    """Exact share of each column [t0 + i*span/width, t0 + (i+1)*span/width) covered by the intervals."""
    span = Fraction(t1 - t0, width)
    out = []
    for i in range(width):
        a, b = t0 + i * span, t0 + (i + 1) * span
        covered = sum(max(Fraction(0), min(b, Fraction(int(e))) - max(a, Fraction(int(s))))
                      for s, e in zip(starts, ends))
        out.append(float(covered / span))
    return out


@pytest.mark.parametrize(("t0", "t1", "width"), [(1_000_000, 1_000_010, 97), (1_000_003, 1_000_050, 200),
                                                 (999_000, 1_003_000, 64), (1_000_000, 1_000_001, 13)])
def test_coverage_matches_the_interval_by_interval_share(t0, t1, width):
    rng = np.random.default_rng(t1 - t0 + width)
    edges = np.sort(rng.choice(np.arange(998_000, 1_004_000), 400, replace=False)).astype(np.int64) + 10**15
    starts, ends = edges[0::2], edges[1::2]  # disjoint, sorted
    cum = np.concatenate([[0], np.cumsum(ends - starts)])
    got = coverage_fraction(starts, ends, cum, t0 + 10**15, t1 + 10**15, width)
    want = reference(starts - 10**15, ends - 10**15, t0, t1, width)
    assert np.allclose(got, want, atol=1e-9)


def test_a_covered_nanosecond_fills_every_column_inside_it():
    starts, ends = np.array([100], np.int64), np.array([200], np.int64)
    cum = np.array([0, 100], np.int64)
    assert np.allclose(coverage_fraction(starts, ends, cum, 150, 160, 1000), np.ones(1000), atol=1e-9)
    half = coverage_fraction(starts, ends, cum, 195, 205, 1000)
    assert np.allclose(half, np.r_[np.ones(500), np.zeros(500)], atol=1e-9)
