"""``memory_imbalance``: metrics.md §4's slow-card rule applied to each card's peak reserved memory.

It takes plain arrays (one value per card) so that the cluster rules can share one implementation.
A card is flagged when, with at least ``MIN_CARDS`` cards, (1) its value exceeds the median by at least
max(5 % of the median, ``MIN_EXCESS_MB``) and (2) its robust z-score (value − median) / (1.4826 × MAD)
exceeds z_N = Φ⁻¹(1 − 0.01 / N), so that on a healthy cluster the chance that any card is flagged
stays about 1 % whatever N (with MAD = 0, the practical size alone). §4's third condition, being
above in half of the steps, does not apply: reserved memory is a high-water mark (a caching allocator
keeps what it reserved), so the card's peak is the figure of every step after it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.worst_of_many import median_and_sigma, z_threshold

MIN_CARDS = 3
MIN_RELATIVE_EXCESS = 0.05  # of the median
MIN_EXCESS_MB = 16.0  # below this a difference in reserved memory matters to no one


@dataclass(frozen=True)
class Outlier:
    """A card flagged above the others: its position in the arrays given, value, median, z (None when MAD = 0)."""

    index: int
    value: float
    median: float
    z: float | None
    threshold: float  # the value above which a card is flagged


def high_outliers(values: np.ndarray, min_excess: float = 0.0) -> list[Outlier]:
    """Cards whose value stands above the cluster's by both a practical and an N-corrected statistical size."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n < MIN_CARDS:
        return []
    median, scale = median_and_sigma(values)
    practical = max(MIN_RELATIVE_EXCESS * abs(median), min_excess)
    z_n = z_threshold(n)
    threshold = median + max(practical, z_n * scale)
    out = []
    for i, v in enumerate(values):
        z = float((v - median) / scale) if scale > 0 else None
        if v - median >= practical and (z is None or z > z_n):
            out.append(Outlier(i, float(v), median, z, threshold))
    return out


def memory_imbalance(cards: list[str], peak_reserved_mb: np.ndarray) -> list[dict]:
    """Cards flagged on their peak reserved memory (MB), in the order given: {"card", "metric", "value",
    "median", "z", "threshold"}."""
    return [{"card": cards[o.index], "metric": "peak_reserved_mb", "value": o.value, "median": o.median,
             "z": o.z, "threshold": o.threshold}
            for o in high_outliers(peak_reserved_mb, MIN_EXCESS_MB)]
