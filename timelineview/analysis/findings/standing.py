"""Which values stand out above the others (metrics.md §4): the machinery every mark and the slow-operator verdict
share — a robust z-score past z_N for N = the number compared, a practical floor, ties never credited. No Qt."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.cluster.slow_cards import MIN_CARDS_FOR_SLOW
from timelineview.analysis.worst_of_many import median_and_sigma, required_z, robust_z, z_threshold


@dataclass(frozen=True)
class Standing:
    """Values judged against their median: which stand out above it (``passes``), their robust z, and the
    median, the spread, the z asked for and the practical floor."""

    passes: np.ndarray  # bool per value
    z: np.ndarray  # float per value (±inf when sigma is 0)
    median: float
    sigma: float
    z_required: float
    practical: float


def stand_out(values: np.ndarray, practical: float, compared: int | None = None,
              sigma_floor: float = 0.0) -> Standing:
    """Which of ``values`` (NaN: absent) stand out *above* the others: at least ``practical`` above their
    median and a robust z above z_N for N = ``compared`` (default: the values). The spread is 1.4826 × the
    MAD of these values, or ``sigma_floor`` where larger: a spread measured on many more values (pooled
    over steps, operators or runs). Without such a floor z_N is widened for a MAD of few values. With a
    spread of 0, the practical floor alone decides (§4)."""
    values = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(values)
    n = int(finite.sum())
    if n < MIN_CARDS_FOR_SLOW:
        return Standing(np.zeros(len(values), bool), np.zeros(len(values)), float("nan"), 0.0, float("inf"),
                        practical)
    median, sigma = median_and_sigma(values[finite])
    sigma = max(sigma, sigma_floor)
    # a MAD of 8 values can be half the true spread: without a steadier floor z_N is widened for it
    z_req = z_threshold(compared or n) if sigma_floor > 0 else required_z(compared or n, n)
    z = robust_z(np.where(finite, values, median), median, sigma)
    above = np.where(finite, values - median, -np.inf)
    passes = finite & (above > 0) & (above >= practical) & ((sigma == 0) | (z > z_req))
    return Standing(passes, z, median, sigma, z_req, practical)


def single_out(standing: Standing) -> int | None:
    """The one value that stands out, or None when none or several do (ties are never credited)."""
    hits = np.flatnonzero(standing.passes)
    return int(hits[0]) if len(hits) == 1 else None
