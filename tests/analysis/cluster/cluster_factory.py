"""A synchronous data-parallel job of several cards, with planted offsets and slow cards."""

from __future__ import annotations

import numpy as np

from ..factory import COMM, HW, HW2, Sl, build_store

PY = "Python/Thread 1"


def make_cluster(n_cards: int, steps: int = 4, compute_us=None, interval_us=None, offsets_ns=None,
                 jitter_ns: int = 0, seed: int = 0, comm_names=None):
    """Cards run compute then one all-reduce per step; the all-reduce ends at the same global
    instant on every card (the slowest card decides it). Card c's clock reads global + offsets_ns[c]."""
    rng = np.random.default_rng(seed)
    compute_us = compute_us or [1000.0] * n_cards
    interval_us = interval_us or [50.0] * n_cards
    offsets_ns = offsets_ns or [0] * n_cards
    cards = [[] for _ in range(n_cards)]
    t = 1_000_000_000
    for k in range(steps):
        comp_end = []
        for c in range(n_cards):
            start = t + int(interval_us[c] * 1000)
            piece = int(compute_us[c] * 1000) // 4
            for j in range(4):
                lane = HW if j % 2 == 0 else HW2
                cards[c].append(Sl(lane, f"op{j}", start + j * piece, piece, "AI_CORE"))
            comp_end.append(start + 4 * piece)
        comm_end = max(comp_end) + 200_000
        for c in range(n_cards):
            name = comm_names[c](k) if comm_names else f"hcom_allReduce__{k}_0_1"
            end = comm_end + (int(rng.integers(-jitter_ns, jitter_ns + 1)) if jitter_ns else 0)
            cards[c].append(Sl(COMM, name, comp_end[c], end - comp_end[c]))
        step_end = comm_end + 30_000
        for c in range(n_cards):
            cards[c].append(Sl(PY, f"ProfilerStep#{k + 1}", t, step_end - t))
        t = step_end
    stores = []
    for c in range(n_cards):
        shifted = [Sl(s.lane, s.name, s.start + offsets_ns[c], s.dur, s.task_type) for s in cards[c]]
        stores.append(build_store(shifted, card=f"rank {c}", rank=c, paths=(f"rank{c}.json",)))
    return stores
