"""Slow cards (metrics.md §4): a verdict that stays right as clusters grow.

Only the two causes the tuning method names flag a card: a slow node (``compute_us``) and a slow
data pipeline (``step_interval_us``). Step time is the same on every card of a lockstep job, and the
card with the most pure communication is usually the one that *waits* for a slow card: both are
shown per card, neither flags anybody.

Each card's value is its median over its steps (the mean below 3 steps), so one stalled step does
not make a card slow. A card is flagged when (1) it exceeds the cluster median by a practical size,
max(5 % of the median, 1 % of the median step time); (2) its robust z-score passes z_N (the
correction for N cards of :mod:`~timelineview.analysis.worst_of_many`: about 1 % of healthy clusters
name anyone, whatever N); (3) it is above that threshold in at least half of its steps, more often
than the other cards' steps make likely by chance, and with its steps holding more of the cluster's
highest than chance gives a card like the others (the z-score's normal model of a median fails with few
steps of heavy-tailed noise; ranks need no model).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.cluster.marker_shifts import marker_shifts
from timelineview.analysis.worst_of_many import (
    FALSE_ALARM_RATE,
    binomial_tail,
    hypergeometric_tail,
    median_and_sigma,
    robust_z,
    z_threshold,
)

SLOW_CARD_METRICS = ("compute_us", "step_interval_us")  # the metrics that can flag a card
STEP_TIME_KEY = "span_us"  # a step's length in the step documents
STEP_INTERVAL_KEY = "step_interval_us"
MIN_CARDS_FOR_SLOW = 3
MIN_STEPS_FOR_MEDIAN = 3  # fewer steps: their mean
MIN_RELATIVE_EXCESS = 0.05
# A metric that is tiny next to the step (a 50 µs excess of a 0.5 ms step interval in a 13 ms step)
# must not flag a card nobody would call slow: the excess must also pass 1 % of the median step time.
MIN_STEP_SHARE_EXCESS = 0.01
MIN_SHARE_OF_STEPS_ABOVE = 0.5  # consistency: above the threshold in at least half of its steps
MEDIAN_EFFICIENCY_FACTOR = float(np.sqrt(np.pi / 2))  # a median's spread over a mean's, normal data


@dataclass(frozen=True)
class SlowCard:
    """One flag: ``card`` is slow on ``metric`` (its ``value`` against the cluster ``median``, µs),
    with its robust z-score (None when the cards' MAD is 0), how many of its ``steps`` were above the
    ``threshold`` (µs), and the z the rule asked for (``z_required``)."""

    card: str
    metric: str
    value: float
    median: float
    z: float | None
    steps_above: int
    steps: int
    threshold: float
    z_required: float

    def document(self) -> dict:
        # plain Python numbers: the document is JSON (numpy scalars come in from the medians)
        return {"card": self.card, "metric": self.metric, "value": float(self.value), "median": float(self.median),
                "z": None if self.z is None else float(self.z), "steps_above": int(self.steps_above),
                "steps": int(self.steps), "threshold": float(self.threshold), "z_required": float(self.z_required)}


def step_values(card: dict, key: str) -> dict[object, float]:
    """The card's values of ``key`` by step (its step number, else its position); its card-level value
    as one step when it has no steps."""
    out = {}
    for k, s in enumerate(card.get("steps") or []):
        if s.get(key) is not None:
            out[s.get("step", k)] = float(s[key])
    if not out and card.get(key) is not None:
        out[0] = float(card[key])
    return out


def typical(values) -> float:
    """A card's value over its steps: the median, the mean below 3 steps (NaN without steps)."""
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return float("nan")
    return float(np.median(values) if len(values) >= MIN_STEPS_FOR_MEDIAN else np.mean(values))


def median_step_time(card_docs: list[dict]) -> float:
    """Median over cards of each card's typical step time (µs)."""
    values = [typical(list(step_values(c, STEP_TIME_KEY).values())) for c in card_docs]
    values = [v for v in values if np.isfinite(v)]
    return float(np.median(values)) if values else 0.0


def _typical_spread(step_excess: np.ndarray, steps: np.ndarray) -> float:
    """The spread that step-to-step noise alone gives a card's typical excess: 1.4826 × the MAD of every
    card's excess in every step (about the cards' median in that step), over √(its steps) (× √(π/2)
    for a median)."""
    if not len(step_excess):
        return 0.0
    per_step = median_and_sigma(step_excess)[1]
    n = float(np.median(steps))
    return per_step * (MEDIAN_EFFICIENCY_FACTOR if n >= MIN_STEPS_FOR_MEDIAN else 1.0) / np.sqrt(max(n, 1.0))


@dataclass(frozen=True)
class MetricVerdict:
    """One metric over the cards: each card's typical value and its typical excess over the cluster in
    the same steps, the cluster median, the spread, and the threshold of an excess."""

    values: np.ndarray  # per card, median over its steps (NaN without steps)
    excess: np.ndarray  # per card, median over its steps of (its value − the cards' median in that step)
    step_excess: list[np.ndarray]  # per card, its excess in each of its steps
    median: float
    sigma: float
    practical: float
    z_required: float

    @property
    def threshold(self) -> float:
        """An excess above this passes both the practical and the statistical size."""
        return max(self.practical, self.z_required * self.sigma)


def _step_order(key) -> tuple:
    """Steps in time order: by number (a card without steps has the one key 0)."""
    return (0, float(key), "") if isinstance(key, (int, float)) else (1, 0.0, str(key))


def _grid(per_card: list[dict], keys: list) -> np.ndarray:
    """Cards × steps (``keys``, in order) of the cards' values by step, NaN where a card lacks one."""
    index = {k: j for j, k in enumerate(keys)}
    grid = np.full((len(per_card), len(keys)), np.nan)
    for i, v in enumerate(per_card):
        for k, x in v.items():
            if k in index:
                grid[i, index[k]] = x
    return grid


def judge_metric(card_docs: list[dict], metric: str, median_step_us: float) -> MetricVerdict | None:
    """Each card's value, its excess over the cluster step by step and the threshold (None below 3 cards).

    Step values differ from step to step far more than from card to card (each step runs other work),
    so a card is compared with the other cards *in the same steps*: its excess in step k is its value
    minus the cards' median in step k, and its typical excess the median of those. The spread is the
    larger of 1.4826 × the MAD of the cards' typical excesses and what step-to-step noise alone gives
    them: with few cards a MAD is unsteady, and the second one, measured on every card's steps, is not.
    A card's step interval is judged with its moved step markers put back (``marker_shifts``).
    """
    per_card = [step_values(c, metric) for c in card_docs]
    keys = sorted({k for v in per_card for k in v}, key=_step_order)
    grid = _grid(per_card, keys)
    if metric == STEP_INTERVAL_KEY and len(keys) > 1:
        # a host bubble that moved a card's step marker shortened its step interval by as much: put back
        grid = grid + marker_shifts(_grid([step_values(c, STEP_TIME_KEY) for c in card_docs], keys))
    values = np.array([typical(row[np.isfinite(row)]) for row in grid])
    have = np.isfinite(values)
    if have.sum() < MIN_CARDS_FOR_SLOW:
        return None
    with np.errstate(all="ignore"):
        step_median = np.nanmedian(grid[have], axis=0)
    step_excess = [(row - step_median)[np.isfinite(row)] for row in grid]
    excess = np.array([typical(e) for e in step_excess])
    median = float(np.median(values[have]))
    rows = np.flatnonzero(have)
    between = median_and_sigma(excess[have])[1]
    within = _typical_spread(np.concatenate([step_excess[i] for i in rows]),
                             np.array([len(step_excess[i]) for i in rows]))
    practical = max(MIN_RELATIVE_EXCESS * abs(median), MIN_STEP_SHARE_EXCESS * abs(median_step_us))
    return MetricVerdict(values, excess, step_excess, median, max(between, within), practical,
                         z_threshold(len(rows)))


def _share_reaching(count: int, others: int) -> float:
    """How often another card's step reaches a level that ``count`` of the ``others`` steps reach: their
    share, or, when some do, the one-sigma upper bound of a Poisson count (Gehrels' approximation,
    k + 1 + √(k + ¾)). The level is the most extreme card's, where a count of one or two is all there is
    to go by: taken as it stands, it calls two ordinary stalls of a heavy tail unlikely (it named a card on
    2 of 60 healthy generated 256-card clusters with 3 steps of 40 operators where 1 % of the kernels run
    2-5x their usual time; none with the bound)."""
    if others <= 0:
        return 0.0
    if count <= 0:
        return 0.0  # no other step reaches it: nothing says the tail is heavy
    return min((count + 1 + np.sqrt(count + 0.75)) / others, 1.0)


def _by_chance(steps: np.ndarray, needed: int, pooled: np.ndarray) -> float:
    """The chance that a card like the others has ``needed`` of its steps as far above as this card's
    ``needed``-th highest step: P(Binomial(steps, p) ≥ needed), p how often the other cards' steps
    (``pooled``: every card's, sorted) reach that level (:func:`_share_reaching`). The z-score assumes
    normal noise; this check asks the cards' own steps, so a heavy tail of stalls does not name a card by
    chance."""
    level = float(np.sort(steps)[-needed])
    reach_all = len(pooled) - int(np.searchsorted(pooled, level, side="left"))
    others = len(pooled) - len(steps)
    return binomial_tail(len(steps), needed, _share_reaching(reach_all - int((steps >= level).sum()), others))


def _by_rank(steps: np.ndarray, needed: int, pooled: np.ndarray) -> float:
    """The chance that a card like the others holds as many of the cluster's highest steps as this one:
    for each m from ``needed`` to all its steps, the chance that m of its steps reach its m-th highest
    (hypergeometric: a healthy card's steps are any of the cluster's ``pooled`` steps), the least of them
    times their number (they are several looks at one card).

    :func:`_by_chance` counts the other steps that reach the card's level, and where none does the count
    says p = 0, which M steps cannot show: their ranks alone give a card at most a chance of
    C(steps, m) / C(M, m). With 3 steps the z-score's normal model of a median fails first (a median of 3
    passes a level when 2 steps do, and heavy-tailed noise — stalls, kernels running several times their
    length — puts two steps of some card above the others now and then): two steps of 3 at the top among
    32 cards are a 1-in-1,500 event per card, and named a card in 4 of 60 healthy generated clusters. This
    chance needs no model of the noise, so with few steps a card is named only when enough of them stand
    out (3 of 3 at the top among 32 cards: 1 in 70,000 with the two looks)."""
    order = np.sort(steps)[::-1]
    looks = range(needed, len(steps) + 1)
    least = 1.0
    for m in looks:
        reach = len(pooled) - int(np.searchsorted(pooled, float(order[m - 1]), side="left"))
        least = min(least, hypergeometric_tail(len(pooled), reach, len(steps), m))
    return min(least * len(looks), 1.0)


def _ranks_can_judge(steps: int, needed: int, pooled: int, allowed: float) -> bool:
    """Whether :func:`_by_rank` of a card's ``steps`` among ``pooled`` steps could pass ``allowed`` at all
    (all its steps at the top): with fewer (one step per card, 8 cards of 2 steps) the ranks cannot tell a
    heavy tail from a slow card, and the z-score and :func:`_by_chance` decide alone."""
    return (steps - needed + 1) * hypergeometric_tail(pooled, steps, steps, steps) <= allowed


def flag_metric(card_docs: list[dict], metric: str, median_step_us: float) -> list[SlowCard]:
    """The cards of ``card_docs`` flagged on ``metric`` (any per-step metric: the rule of :func:`slow_cards`)."""
    v = judge_metric(card_docs, metric, median_step_us)
    if v is None:
        return []
    centre = float(np.nanmedian(v.excess))
    z = robust_z(v.excess, centre, v.sigma)
    candidates = (np.isfinite(v.values) & (v.values > v.median) & (v.values - v.median >= v.practical)
                  & (v.excess - centre >= v.practical) & ((v.sigma == 0) | (z > v.z_required)))
    judged = [k for k in range(len(card_docs)) if np.isfinite(v.values[k])]
    allowed = FALSE_ALARM_RATE / len(judged)  # α / N: the chance of naming any healthy card stays about α
    pooled = np.sort(np.concatenate([v.step_excess[k] for k in judged]) - centre)
    out = []
    for k in np.flatnonzero(candidates).tolist():
        steps = v.step_excess[k] - centre
        above = int((steps > v.threshold).sum())
        needed = int(np.ceil(MIN_SHARE_OF_STEPS_ABOVE * len(steps)))
        if above < needed:
            continue  # a stall or two, not a slow card
        if _by_chance(steps, needed, pooled) > allowed:
            continue  # the other cards' steps reach this card's level often enough to make it chance
        if _ranks_can_judge(len(steps), needed, len(pooled), allowed) and _by_rank(steps, needed, pooled) > allowed:
            continue  # its steps do not hold enough of the cluster's highest to rule out chance
        out.append(SlowCard(card_docs[k]["card"], metric, float(v.values[k]), v.median,
                            float(z[k]) if v.sigma > 0 else None, above, len(steps),
                            v.median + centre + v.threshold, v.z_required))
    return out


def slow_cards(card_docs: list[dict]) -> list[SlowCard]:
    """The slow-card flags of metrics.md §4 over ``card_docs`` ({"card", "steps": [step metrics]}),
    in the cards' order (then by metric)."""
    if len(card_docs) < MIN_CARDS_FOR_SLOW:
        return []
    step_us = median_step_time(card_docs)
    flagged = [f for metric in SLOW_CARD_METRICS for f in flag_metric(card_docs, metric, step_us)]
    order = {c["card"]: i for i, c in enumerate(card_docs)}
    flagged.sort(key=lambda f: (order[f.card], SLOW_CARD_METRICS.index(f.metric)))
    return flagged
