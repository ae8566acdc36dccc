"""Rules that pick the worst of many (a slow card among N cards, a slow step among N steps, a slow link
among N links), corrected for N (metrics.md §4).

Among N healthy values, the largest robust z-score grows with N: a fixed "3 MADs" threshold names
someone on most large clusters. With z_N = Φ⁻¹(1 − α / N), the chance that *any* of N values drawn
from the same (normal) distribution passes it stays about α, whatever N.
"""

from __future__ import annotations

from math import comb
from statistics import NormalDist

import numpy as np

FALSE_ALARM_RATE = 0.01  # α: the share of healthy runs in which a rule may name anything
MAD_SCALE = 1.4826  # MAD of a normal distribution -> its standard deviation


def z_threshold(n: int, alpha: float = FALSE_ALARM_RATE) -> float:
    """z_N = Φ⁻¹(1 − α / N): the robust z-score one value in N must pass to be called an outlier
    (3.0 at 8, 3.6 at 64, 4.3 at 1024 for α = 1 %)."""
    return NormalDist().inv_cdf(1.0 - alpha / max(int(n), 1))


def median_and_sigma(values: np.ndarray) -> tuple[float, float]:
    """(median, 1.4826 × MAD): a robust centre and spread (spread 0 when half the values are equal)."""
    values = np.asarray(values, dtype=np.float64)
    median = float(np.median(values))
    return median, MAD_SCALE * float(np.median(np.abs(values - median)))


def robust_z(values: np.ndarray, median: float, sigma: float) -> np.ndarray:
    """(value − median) / sigma; ±inf (0 at the median) when sigma is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (np.asarray(values, dtype=np.float64) - median) / sigma if sigma > 0 else \
            np.sign(np.asarray(values, dtype=np.float64) - median) * np.inf
    return np.nan_to_num(z, nan=0.0, posinf=np.inf, neginf=-np.inf)


# The MAD's efficiency against the standard deviation for normal data: a spread measured as a MAD over n
# values is about as steady as a standard deviation over 0.37 × (n − 1) degrees of freedom.
MAD_EFFICIENCY = 0.37
MIN_DEGREES_OF_FREEDOM = 1.0


def widened(z: float, degrees_of_freedom: float) -> float:
    """The Student-t quantile matching the normal quantile ``z`` (Cornish–Fisher expansion, Abramowitz &
    Stegun 26.7.5): what a z-score must pass when its spread was itself measured on few values."""
    nu = max(degrees_of_freedom, MIN_DEGREES_OF_FREEDOM)
    g1 = (z ** 3 + z) / 4
    g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96
    g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384
    return z + g1 / nu + g2 / nu ** 2 + g3 / nu ** 3


def required_z(compared: int, spread_from: int | None = None, alpha: float = FALSE_ALARM_RATE) -> float:
    """The z-score one of ``compared`` values must pass: z_N for N = ``compared``, widened for a spread
    measured as the MAD of ``spread_from`` values (default: the same values)."""
    n = compared if spread_from is None else spread_from
    return widened(z_threshold(compared, alpha), MAD_EFFICIENCY * (n - 1))


def binomial_tail(n: int, k: int, p: float) -> float:
    """P(at least ``k`` of ``n`` independent trials succeed), each with probability ``p``."""
    p = min(max(p, 0.0), 1.0)
    return float(sum(comb(n, j) * p ** j * (1 - p) ** (n - j) for j in range(max(k, 0), n + 1)))


def hypergeometric_tail(population: int, successes: int, draws: int, k: int) -> float:
    """P(at least ``k`` of ``draws`` values taken at random, without replacement, from ``population`` values
    of which ``successes`` reach a level, reach it): how likely a card's own steps are to hold that many of
    the cluster's highest when the card is like the others."""
    if k <= 0:
        return 1.0
    if draws > population or successes > population:
        return 0.0
    total = comb(population, draws)
    hits = sum(comb(successes, j) * comb(population - successes, draws - j)
               for j in range(k, min(draws, successes) + 1))
    return hits / total  # draws ≤ population here: total ≥ 1
