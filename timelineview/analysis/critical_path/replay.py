"""Replay a step graph: recompute every launch, operator end and step end from the graph's durations,
for all steps at once. A collective is evaluated for all cards together; a run of sends and receives
card by card in the order its pairs wait for each other (a receive ends at max(own launch, the peer
send's launch) + transit)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from timelineview.analysis.critical_path.graph import StepGraph
from timelineview.analysis.critical_path.slots import LAUNCH_NODE


@dataclass
class ReplayInputs:
    """The durations a replay reads; a what-if changes some of them."""

    wait: np.ndarray  # (K, C)
    busy: np.ndarray  # (K, J+1, C)
    gap: np.ndarray  # (K, J+1, C)
    transit: np.ndarray  # (K, J, C)

    @classmethod
    def measured(cls, g: StepGraph) -> ReplayInputs:
        return cls(g.wait.copy(), g.busy.copy(), g.gap.copy(), g.transit.copy())


@dataclass
class Timeline:
    """The replayed instants, ns from each step's start."""

    block_start: np.ndarray  # (K, J+1, C)
    ready: np.ndarray  # (K, J+1, C) end of each block
    busy: np.ndarray  # (K, J+1, C) the compute time of each block (the rest of the block: its dispatch gaps)
    arrival: np.ndarray  # (K, J, C)
    queued: np.ndarray  # (K, J, C) bool: the launch waited for the previous operator
    resumed: np.ndarray  # (K, J+1, C) bool: the block waited for the previous operator
    ends: np.ndarray  # (K, J, C) each card's end of each slot (a collective's the same on every card)
    step: np.ndarray  # (K,) step time


def replay(g: StepGraph, x: ReplayInputs) -> Timeline:
    """Every instant of every step, from ``x`` and the graph's dependencies."""
    k_steps, n_blocks, n_cards = x.busy.shape
    n_ops = n_blocks - 1
    arrival = np.empty((k_steps, n_ops, n_cards))
    tl = Timeline(block_start=np.empty_like(x.busy), ready=np.empty_like(x.busy), busy=x.busy, arrival=arrival,
                  queued=np.zeros(arrival.shape, bool), resumed=np.zeros(x.busy.shape, bool),
                  ends=np.empty_like(arrival), step=np.zeros(k_steps))
    runs = {r.first: r for r in g.layout.runs} if g.layout is not None else {}
    all_cards = np.arange(n_cards)
    i = 0
    while i < n_ops:
        run = runs.get(i)
        if run is None:
            _launch(g, x, tl, np.full(n_cards, i), all_cards)
            tl.ends[:, i] = (tl.arrival[:, i].max(axis=1) + x.transit[:, i].max(axis=1))[:, None]
            i += 1
            continue
        for nodes, slots, cards in run.levels:
            launch = nodes == LAUNCH_NODE
            if launch.any():
                _launch(g, x, tl, slots[launch], cards[launch])
            if (~launch).any():
                _end_pairs(g, x, tl, slots[~launch], cards[~launch])
        i = run.stop
    _blocks(g, x, tl, np.full(n_cards, n_ops), all_cards)
    top = np.maximum(tl.ends[:, -1].max(axis=1), tl.ready[:, -1].max(axis=1)) if n_ops else \
        tl.ready[:, -1].max(axis=1)
    tl.step[:] = top + g.tail
    return tl


def _blocks(g: StepGraph, x: ReplayInputs, tl: Timeline, js: np.ndarray, cs: np.ndarray) -> None:
    """Block js[n] of card cs[n]: after the card's previous block, or after its previous slot's end
    when the block waited for it."""
    prev = np.where(js > 0, js - 1, 0)
    prev_ready = np.where(js[None] > 0, tl.ready[:, prev, cs], x.wait[:, cs])
    after = _after_previous_end(g, tl, g.lead[:, js, cs], js, cs)
    wait_op = (js[None] > 0) & g.blocked[:, js, cs] & (after > prev_ready)
    start = np.where(wait_op, after, prev_ready)
    tl.resumed[:, js, cs] = wait_op
    tl.block_start[:, js, cs] = start
    tl.ready[:, js, cs] = start + x.busy[:, js, cs] + x.gap[:, js, cs]


def _launch(g: StepGraph, x: ReplayInputs, tl: Timeline, js: np.ndarray, cs: np.ndarray) -> None:
    """Block js[n] of card cs[n] and the card's launch of slot js[n] after it."""
    _blocks(g, x, tl, js, cs)
    own = tl.ready[:, js, cs] + g.own_slack[:, js, cs]
    behind = _after_previous_end(g, tl, g.prev_slack[:, js, cs], js, cs)
    tl.queued[:, js, cs] = behind > own
    tl.arrival[:, js, cs] = np.maximum(own, behind)


def _after_previous_end(g: StepGraph, tl: Timeline, extra: np.ndarray, js: np.ndarray, cs: np.ndarray) -> np.ndarray:
    """For slot js[n] of card cs[n], the end of the card's previous slot plus ``extra`` (steps × n); -inf for a
    first slot, which has no previous operator to wait for (its would be an unwritten end, plus an infinite
    slack)."""
    out = np.full(extra.shape, -np.inf)
    prev = g.layout.previous_run[js, cs] if g.layout is not None else js - 1
    later = prev >= 0
    out[:, later] = tl.ends[:, prev[later], cs[later]] + extra[:, later]
    return out


def _end_pairs(g: StepGraph, x: ReplayInputs, tl: Timeline, js: np.ndarray, cs: np.ndarray) -> None:
    """Slot js[n] of card cs[n] ends at the later launch of its pair plus its transit (absent: at its launch)."""
    lay = g.layout
    ps, pc = lay.peer_slot[js, cs], lay.peer_card[js, cs]
    paired = lay.present[js, cs] & (ps >= 0)
    peer = tl.arrival[:, np.maximum(ps, 0), np.maximum(pc, 0)]
    own = tl.arrival[:, js, cs]
    tl.ends[:, js, cs] = np.where(paired[None], np.maximum(own, peer) + x.transit[:, js, cs], own)
