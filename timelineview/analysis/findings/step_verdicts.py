"""Slow steps (metrics.md §4, revised): a step is a property of the job, not of one card. No Qt.

In a lockstep job every collective synchronises the cards, so a step that is slow is slow on every
card. Each step is therefore judged on the cluster's median over cards of its length, against the
other steps (the worst of N = the number of steps, :mod:`~timelineview.analysis.worst_of_many`), and
named as a step, without a card list, when it is slow on most cards.

A step long on one card only is judged among every card's every step (N = cards × steps), on its
length over the cluster's median in that step. A host bubble that moves one card's step marker makes
that card's step k long and its step k + 1 short by as much: that is a boundary shift, netted
before judging, never a slow step.

Real jobs have heavy-tailed step-to-step noise (a data-loader hiccup makes one step in ten 20–50 %
long), which no robust z-score sees as noise: the practical floor, a step at least twice the median
step, keeps such hiccups from being called slow whatever the spread says.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.findings.rules import RULE_BY_NAME
from timelineview.analysis.worst_of_many import MAD_SCALE, required_z

_THRESHOLDS = RULE_BY_NAME["slow_step"].thresholds
MIN_STEPS = int(_THRESHOLDS["min_steps"])  # fewer steps: nothing to compare a step with
# Practical floor: a slow step is at least this many times its reference (above the 20–50 % hiccups
# healthy jobs have now and then).
MIN_STEP_RATIO = float(_THRESHOLDS["min_step_ratio"])
MOST_CARDS = 0.5  # a job step is named when it passes the floor on more than this share of the cards


@dataclass(frozen=True)
class StepVerdict:
    """One slow step. ``cards`` is empty for a job step (slow on most cards), else the cards on which the
    step alone is slow. ``value`` is the step's length (ns; the cluster median for a job step, the worst
    card's otherwise) against ``reference`` (the median step; the step's cluster median for a card-local
    one). ``z`` is None when the spread is 0 (the practical floor alone decided)."""

    column: int  # position of the step among the judged step numbers
    step: int
    cards: list[int]  # positions of the cards (empty: the whole job)
    value: float
    reference: float
    z: float | None
    z_required: float
    compared: int  # N: how many values the step was the worst of

    @property
    def job(self) -> bool:
        return not self.cards


@dataclass(frozen=True)
class StepGrid:
    """Step lengths aligned by step number: ``spans[card, column]`` (ns, NaN where a card lacks a step)."""

    steps: np.ndarray  # step number of each column
    spans: np.ndarray

    @classmethod
    def from_cards(cls, per_card: list[dict[int, float]]) -> StepGrid:
        """From each card's {step number: length}."""
        steps = np.array(sorted({k for card in per_card for k in card}), dtype=np.int64)
        column = {int(k): j for j, k in enumerate(steps)}
        spans = np.full((len(per_card), len(steps)), np.nan)
        for i, card in enumerate(per_card):
            for k, v in card.items():
                spans[i, column[int(k)]] = float(v)
        return cls(steps, spans)


def _relative_spread(relative: np.ndarray) -> float:
    """1.4826 × the MAD of relative excesses around 0 (their reference is already a median)."""
    relative = relative[np.isfinite(relative)]
    return MAD_SCALE * float(np.median(np.abs(relative - np.median(relative)))) if len(relative) else 0.0


def _passes(relative: np.ndarray, sigma: float, z_required: float) -> tuple[np.ndarray, np.ndarray | None]:
    """(slow mask, z or None): at least the practical floor, and a robust z above ``z_required``."""
    floor = relative >= MIN_STEP_RATIO - 1.0
    if sigma <= 0:
        return floor, None
    z = relative / sigma
    return floor & (z > z_required), z


def net_boundary_shifts(spans: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The step lengths with each boundary shift put back: where a card's step k is longer than the step's
    reference and its step k + 1 shorter (or the other way round), the smaller of the two deviations moved
    back across the boundary they share. ``reference``: per column, the cluster's median of that step."""
    netted = spans.copy()
    for k in range(spans.shape[1] - 1):
        here = netted[:, k] - reference[k]
        after = netted[:, k + 1] - reference[k + 1]
        opposite = np.isfinite(here) & np.isfinite(after) & (np.sign(here) == -np.sign(after))
        moved = np.where(opposite, np.sign(here) * np.minimum(np.abs(here), np.abs(after)), 0.0)
        netted[:, k] -= moved
        netted[:, k + 1] += moved
    return netted


def job_slow_steps(grid: StepGrid) -> list[StepVerdict]:
    """Steps slow for the job: the cluster's median of the step at least the floor over the median step,
    with a robust z over the steps above z_N (N = the steps), and past the floor on most cards."""
    spans = grid.spans
    have = np.isfinite(spans).sum(axis=0) > 0
    if int(have.sum()) < MIN_STEPS:
        return []
    with np.errstate(all="ignore"):
        cluster = np.nanmedian(spans, axis=0)
    median = float(np.median(cluster[have]))
    if median <= 0:
        return []
    relative = np.where(have, cluster / median - 1.0, np.nan)
    n = int(have.sum())
    z_required = required_z(n, n)
    sigma = _relative_spread(relative)
    slow, z = _passes(np.nan_to_num(relative, nan=-1.0), sigma, z_required)
    out = []
    for j in np.flatnonzero(slow & have).tolist():
        on = spans[:, j] >= MIN_STEP_RATIO * median
        if on.sum() <= MOST_CARDS * np.isfinite(spans[:, j]).sum():
            continue
        out.append(StepVerdict(j, int(grid.steps[j]), [], float(cluster[j]), median,
                               None if z is None else float(z[j]), z_required, n))
    return sorted(out, key=lambda v: -v.value)


def card_slow_steps(grid: StepGrid, skip_columns: set[int] = frozenset()) -> list[StepVerdict]:
    """Steps slow on some cards only, one verdict per step: a card's step (boundary shifts netted) at least
    the floor over the cluster's median of that step, with a robust z above z_N for N = cards × steps.
    Columns in ``skip_columns`` (the job's slow steps) are not judged again."""
    spans = grid.spans
    n_cards, n_steps = spans.shape
    if n_cards < 2 or n_steps < MIN_STEPS:
        return []
    with np.errstate(all="ignore"):
        reference = np.nanmedian(spans, axis=0)
        netted = net_boundary_shifts(spans, reference)
        relative = netted / reference - 1.0
    judged = np.isfinite(relative) & (reference > 0)
    n = int(judged.sum())
    if n == 0:
        return []
    z_required = required_z(n, n)
    sigma = _relative_spread(relative[judged])
    slow, z = _passes(np.where(judged, relative, -1.0), sigma, z_required)
    out = []
    for j in range(n_steps):
        if j in skip_columns:
            continue
        rows = np.flatnonzero(slow[:, j])
        if not len(rows):
            continue
        worst = int(rows[np.argmax(spans[rows, j])])
        out.append(StepVerdict(j, int(grid.steps[j]), rows.tolist(), float(spans[worst, j]), float(reference[j]),
                               None if z is None else float(z[worst, j]), z_required, n))
    return sorted(out, key=lambda v: -(v.value / v.reference))


def slow_steps(grid: StepGrid) -> list[StepVerdict]:
    """Every slow step of the grid: the job's first (slowest first), then the card-local ones."""
    job = job_slow_steps(grid)
    return job + card_slow_steps(grid, {v.column for v in job})
