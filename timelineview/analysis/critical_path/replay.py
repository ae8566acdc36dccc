"""Replay a step graph: recompute every launch, collective end and step end from the graph's durations,
for all steps and cards at once (a loop over the operators of a step only)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.critical_path.graph import StepGraph


@dataclass
class ReplayInputs:
    """The durations a replay reads; a what-if changes some of them."""

    wait: np.ndarray  # (K, C)
    busy: np.ndarray  # (K, J+1, C)
    gap: np.ndarray  # (K, J+1, C)
    transit: np.ndarray  # (K, J)

    @classmethod
    def measured(cls, g: StepGraph) -> ReplayInputs:
        return cls(g.wait.copy(), g.busy.copy(), g.gap.copy(), g.transit.copy())


@dataclass
class Timeline:
    """The replayed instants, ns from each step's start."""

    block_start: np.ndarray  # (K, J+1, C)
    ready: np.ndarray  # (K, J+1, C) end of each block
    arrival: np.ndarray  # (K, J, C)
    queued: np.ndarray  # (K, J, C) bool: the launch waited for the previous operator
    resumed: np.ndarray  # (K, J+1, C) bool: the block waited for the previous operator
    ends: np.ndarray  # (K, J)
    step: np.ndarray  # (K,) step time


def replay(g: StepGraph, x: ReplayInputs) -> Timeline:
    """Every instant of every step, from ``x`` and the graph's dependencies."""
    k_steps, n_blocks, n_cards = x.busy.shape
    n_ops = n_blocks - 1
    block_start = np.empty_like(x.busy)
    ready = np.empty_like(x.busy)
    resumed = np.zeros(x.busy.shape, bool)
    arrival = np.empty((k_steps, n_ops, n_cards))
    queued = np.zeros(arrival.shape, bool)
    ends = np.empty((k_steps, n_ops))
    prev_ready = x.wait
    for i in range(n_blocks):
        start = prev_ready
        if i:
            after = ends[:, i - 1, None] + g.lead[:, i]
            wait_op = g.blocked[:, i] & (after > prev_ready)
            start = np.where(wait_op, after, prev_ready)
            resumed[:, i] = wait_op
        block_start[:, i] = start
        ready[:, i] = start + x.busy[:, i] + x.gap[:, i]
        prev_ready = ready[:, i]
        if i == n_ops:
            break
        own = ready[:, i] + g.own_slack[:, i]
        if i:
            behind = ends[:, i - 1, None] + g.prev_slack[:, i]
            queued[:, i] = behind > own
            own = np.maximum(own, behind)
        arrival[:, i] = own
        ends[:, i] = own.max(axis=1) + x.transit[:, i]
    top = np.maximum(ends[:, -1], ready[:, -1].max(axis=1))
    return Timeline(block_start, ready, arrival, queued, resumed, ends, top + g.tail)
